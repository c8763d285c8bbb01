#include "app/gui/explorer/data_paths.h"

#include <sys/stat.h>

#include <cstdlib>

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

}  // namespace headroom::explorer
