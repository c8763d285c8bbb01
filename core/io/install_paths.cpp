#include "core/io/install_paths.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace headroom::io {
namespace {

namespace fs = std::filesystem;

bool has_suites(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "suites", ec);
}

// `inner` lies in `outer` (both made absolute and normal first).
bool is_inside(const fs::path& inner, const fs::path& outer) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(inner, ec), b = fs::weakly_canonical(outer, ec);
  const auto [end, unused] = std::mismatch(b.begin(), b.end(), a.begin(), a.end());
  return end == b.end();
}

}  // namespace

std::string self_path() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return {};
  return std::string(buffer, static_cast<size_t>(n));
}

std::string share_dir() {
  if (const char* env = std::getenv("HEADROOM_ASSETS"); env != nullptr && env[0] != '\0') return env;
  const fs::path exe = self_path();
  const fs::path installed = (exe.parent_path() / ".." / "share" / "headroom").lexically_normal();
  if (!exe.empty() && has_suites(installed)) return installed.string();
#if defined(HEADROOM_SOURCE_ASSETS_DIR) && defined(HEADROOM_BUILD_DIR)
  if (!exe.empty() && is_inside(exe, HEADROOM_BUILD_DIR) && has_suites(HEADROOM_SOURCE_ASSETS_DIR))
    return HEADROOM_SOURCE_ASSETS_DIR;
#endif
  return installed.string();
}

}  // namespace headroom::io
