#include "app/gui/explorer/data_paths.h"

#include <cstdlib>

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

}  // namespace headroom::explorer
