#include "core/data/corpus.h"
#include "core/data/subprocess.h"
#include "core/io/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace headroom::core {
namespace {

constexpr size_t kBlockBytes = 8192;
constexpr int kValidationEvery = 20;  // every 20th block: ~5% validation

void make_dirs(const std::string& path) {
  std::string partial;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    ::mkdir(partial.c_str(), 0755);
  }
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// `bible` prints headings ("Genesis 1", "1 Samuel 3") and verses as "  N text" wrapped at 80
// columns. Keep one verse per line, without numbers or headings.
bool is_heading(const std::string& line) {
  if (line.empty() || line.size() > 40 || !std::isdigit(static_cast<unsigned char>(line.back()))) return false;
  if (line.find_first_of(".,;:?!") != std::string::npos) return false;
  const size_t start = (std::isdigit(static_cast<unsigned char>(line[0])) && line.size() > 2 && line[1] == ' ') ? 2 : 0;
  return std::isupper(static_cast<unsigned char>(line[start]));
}

std::string clean_bible_output(const std::string& raw) {
  std::string out, verse;
  std::stringstream ss(raw);
  std::string line;
  auto flush = [&] {
    if (!verse.empty()) out += verse + "\n";
    verse.clear();
  };
  while (std::getline(ss, line)) {
    size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    if (i == line.size()) continue;
    if (i >= 1 && std::isdigit(static_cast<unsigned char>(line[i]))) {  // "  12 text": a new verse
      flush();
      size_t j = i;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      verse = line.substr(std::min(line.size(), j + 1));
    } else if (is_heading(line)) {
      flush();
    } else if (!verse.empty()) {
      verse += " " + line.substr(i);  // continuation of a wrapped verse
    }
  }
  flush();
  return out;
}

}  // namespace

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

long long first_invalid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (extra < 0 || i + extra >= s.size()) return static_cast<long long>(i);
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return static_cast<long long>(i);
    i += extra + 1;
  }
  return -1;
}

std::string cache_dir() {
  std::string dir;
  if (const char* c = std::getenv("HEADROOM_CACHE_DIR"); c && *c) dir = c;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) dir = std::string(x) + "/headroom";
  else if (const char* h = std::getenv("HOME"); h && *h) dir = std::string(h) + "/.cache/headroom";
  else dir = "/tmp/headroom-cache";
  make_dirs(dir);
  return dir;
}

bool is_builtin_corpus(const std::string& name) { return name == "kjv" || name == kLinuxDocsCorpus; }

std::string linux_source_tarball() {
  if (const char* p = std::getenv("HEADROOM_LINUX_SOURCE"); p && *p) return p;
  return "/usr/src/linux-source-6.1.tar.xz";
}

std::string extract_linux_docs(const std::string& tarball) {
  const std::string what = std::string("corpus ") + kLinuxDocsCorpus + ": ";
  const std::string remedy =
      "install Debian's linux-source-6.1 (`apt-get install linux-source-6.1`, which puts the kernel's source in "
      "/usr/src), or set HEADROOM_LINUX_SOURCE to a linux-source tarball, or pass a text file with --corpus PATH";
  struct stat st {};
  if (::stat(tarball.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw std::invalid_argument(what + "the kernel's Documentation/ prose is read from " + tarball +
                                ", which does not exist; " + remedy);
  // Every .rst of Documentation/ but its translations, in the archive's order (fixed for a tarball).
  // scripts/stage_corpora.sh runs the same command for GPU machines: change both together.
  int code = 0;
  std::string err;
  std::string text = run_program({"tar", "-xJf", tarball, "--wildcards", "--exclude=*/Documentation/translations/*",
                                  "-O", "*/Documentation/*.rst"},
                                 &code, &err);
  if (code != 0 || text.size() < kLinuxDocsMinBytes)
    throw std::invalid_argument(what + "could not read Documentation/*.rst from " + tarball + " (tar " +
                                (code == -1 ? std::string("is not installed") : "exited " + std::to_string(code)) +
                                ", " + std::to_string(text.size()) + " bytes" +
                                (err.empty() ? std::string() : ": " + err.substr(0, err.find('\n'))) + "); " + remedy);
  const long long bad = first_invalid_utf8(text);
  if (bad >= 0)
    throw std::invalid_argument(what + "the text read from " + tarball + " is not UTF-8 (invalid byte at offset " +
                                std::to_string(bad) + "); " + remedy);
  return text;
}

namespace {

// The train / validation split as byte ranges of `text`, in order: every kValidationEvery-th block
// of ~kBlockBytes (cut at a line end) is validation; a text too short to have one keeps its last
// tenth for validation so it is never empty.
struct Span {
  size_t begin, end;
  bool validation;
};
std::vector<Span> split_spans(const std::string& text) {
  std::vector<Span> spans;
  size_t pos = 0;
  int block = 0;
  bool any_validation = false;
  while (pos < text.size()) {
    size_t end = std::min(text.size(), pos + kBlockBytes);
    const size_t nl = text.find('\n', end);
    end = nl == std::string::npos ? text.size() : nl + 1;  // cut at a line end
    const bool validation = block % kValidationEvery == kValidationEvery - 1;
    any_validation = any_validation || validation;
    spans.push_back({pos, end, validation});
    pos = end;
    ++block;
  }
  if (!any_validation && !text.empty()) {
    const size_t cut = text.size() - std::max<size_t>(1, text.size() / 10);
    spans = {{0, cut, false}, {cut, text.size(), true}};
  }
  return spans;
}

}  // namespace

void split_train_validation(const std::string& text, std::string* train, std::string* validation) {
  train->clear();
  validation->clear();
  for (const Span& s : split_spans(text)) (s.validation ? validation : train)->append(text, s.begin, s.end - s.begin);
}

int count_train_symbols(const std::string& text) {
  bool seen[256] = {};
  for (const Span& s : split_spans(text))
    if (!s.validation)
      for (size_t i = s.begin; i < s.end; ++i) seen[static_cast<unsigned char>(text[i])] = true;
  return static_cast<int>(std::count(std::begin(seen), std::end(seen), true));
}

SplitBytes split_bytes(const std::string& text) {
  SplitBytes b;
  for (const Span& s : split_spans(text)) (s.validation ? b.validation : b.train) += s.end - s.begin;
  return b;
}

std::string load_corpus_text(const std::string& name) {
  std::string text;
  if (name == "kjv") {
    const std::string cached = cache_dir() + "/kjv.txt";
    if (!read_file(cached, &text) || text.empty()) {
      int code = 0;
      const std::string raw = run_program({"bible", "gen1:1-rev22:21"}, &code);  // argv, no shell
      if (code != 0 || raw.size() < 1000000)
        throw std::invalid_argument(
            "corpus kjv: the built-in King James Bible needs Debian's `bible` program (package bible-kjv), which " +
            std::string(code == -1 ? "is not installed" : "failed") +
            "; run scripts/setup.sh or `apt-get install bible-kjv`, or pass a text file with --corpus PATH");
      text = clean_bible_output(raw);
      // A cache only: if it cannot be written whole (full disk, read-only home), the next run reads
      // the Bible again instead of a truncated copy.
      write_file_atomically(cached, text, nullptr);
    }
  } else if (name == kLinuxDocsCorpus) {
    const std::string cached = cache_dir() + "/" + kLinuxDocsCorpus + ".txt";
    if (!read_file(cached, &text) || text.size() < kLinuxDocsMinBytes) {
      text = extract_linux_docs(linux_source_tarball());
      write_file_atomically(cached, text, nullptr);  // a cache only, as for kjv
    }
  } else {
    struct stat st {};
    if (::stat(name.c_str(), &st) != 0)
      throw std::invalid_argument("corpus " + name +
                                  ": no such file; use kjv or linux-docs (built in) or a path to a UTF-8 text file");
    if (!S_ISREG(st.st_mode)) throw std::invalid_argument("corpus " + name + ": not a regular file");
    if (!read_file(name, &text)) throw std::invalid_argument("corpus " + name + ": cannot read the file");
    if (text.size() < 2) throw std::invalid_argument("corpus " + name + ": the file is empty; a corpus needs text");
    const long long bad = first_invalid_utf8(text);
    if (bad >= 0)
      throw std::invalid_argument("corpus " + name + ": not UTF-8 text (invalid byte at offset " + std::to_string(bad) +
                                  "); convert it, e.g. iconv -t UTF-8");
  }
  return text;
}

Corpus load_corpus(const std::string& name) {
  Corpus c;
  c.name = name;
  const std::string text = load_corpus_text(name);
  c.fingerprint = fnv1a64(text);
  split_train_validation(text, &c.train, &c.validation);
  return c;
}

}  // namespace headroom::core
