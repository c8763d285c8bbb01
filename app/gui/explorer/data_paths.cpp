#include "app/gui/explorer/data_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/io/install_paths.h"

namespace headroom::explorer {

std::string data_dir_from(const char* xdg_data_home, const char* home) {
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  if (xdg_data_home != nullptr && xdg_data_home[0] == '/') return std::string(xdg_data_home) + "/headroom";
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.local/share/headroom";
  return "";
}

std::string default_db_path() {
  const std::string dir = data_dir_from(std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
  return dir.empty() ? "" : dir + "/experiments.sqlite";
}

std::string results_db_path() {
  // Looked up once: the explorer's worker bar and the File menu ask every frame they are drawn.
  static const std::string found = [] {
    const std::string path = io::share_dir() + "/results/" + kResultsFile;
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? path : std::string();
  }();
  return found;
}

std::vector<PaperResult> paper_results_in(const std::string& dir) {
  namespace fs = std::filesystem;
  static const std::string kSuffix = "_gpu.sqlite";
  std::vector<PaperResult> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      continue;
    if (!it->is_regular_file(ec)) continue;
    found.push_back({name.substr(0, name.size() - kSuffix.size()), it->path().string()});
  }
  std::sort(found.begin(), found.end(), [](const PaperResult& a, const PaperResult& b) { return a.suite < b.suite; });
  return found;
}

const std::vector<PaperResult>& paper_results() {
  static const std::vector<PaperResult> found = paper_results_in(io::share_dir() + "/results/paper");
  return found;
}

bool is_shipped_db(const std::string& path) {
  if (path.empty()) return false;
  if (path == results_db_path()) return true;
  const auto& paper = paper_results();
  return std::any_of(paper.begin(), paper.end(), [&path](const PaperResult& r) { return r.path == path; });
}

std::string resolve_db_name(const std::string& name, std::string* error) {
  if (name == kResultsDb) {
    const std::string path = results_db_path();
    if (path.empty() && error)
      *error =
          "\"@results\" is the results database shipped with Headroom, and this installation has none (looked for " +
          io::share_dir() + "/results/" + kResultsFile + ")";
    return path;
  }
  const std::string prefix = kPaperDbPrefix;
  if (name.compare(0, prefix.size(), prefix) != 0) return name;
  const std::string suite = name.substr(prefix.size());
  std::string known;
  for (const auto& r : paper_results()) {
    if (r.suite == suite) return r.path;
    known += (known.empty() ? "" : ", ") + prefix + r.suite;
  }
  if (!error) return "";
  *error =
      "\"" + name + "\" names no paper-scale results shipped with Headroom (" +
      (known.empty() ? "this installation has none in " + io::share_dir() + "/results/paper" : "there are " + known) +
      ")";
  return "";
}

}  // namespace headroom::explorer
