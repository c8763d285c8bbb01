#include "app/gui/settings.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "core/io/atomic_file.h"

namespace headroom::gui {

std::string config_dir_from(const char* xdg_config_home, const char* home) {
  // XDG says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  if (xdg_config_home && xdg_config_home[0] == '/') return std::string(xdg_config_home) + "/headroom";
  if (home && home[0]) return std::string(home) + "/.config/headroom";
  return "";
}

std::string config_dir() { return config_dir_from(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME")); }

bool ensure_dir(const std::string& dir, std::string* error) {
  if (dir.empty()) {
    if (error) *error = "no config directory: set HOME or XDG_CONFIG_HOME";
    return false;
  }
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      if (error) *error = "cannot create directory '" + part + "': " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

bool load_settings(const std::string& dir, Settings* settings, std::string* error) {
  *settings = Settings{};
  const std::string path = dir + "/settings.json";
  std::ifstream in(path);
  if (!in) return true;  // first run
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    const nlohmann::json j = nlohmann::json::parse(ss.str());
    if (!j.is_object()) throw std::runtime_error("top level is not an object");
    settings->last_view = j.value("last_view", std::string());
    if (j.contains("window") && j["window"].is_object()) {
      settings->window_width = j["window"].value("width", 0);
      settings->window_height = j["window"].value("height", 0);
    }
  } catch (const std::exception& e) {
    *settings = Settings{};
    if (error) *error = "ignoring settings file '" + path + "' (" + e.what() + "); it will be rewritten on exit";
    return false;
  }
  return true;
}

bool save_settings(const std::string& dir, const Settings& settings, std::string* error) {
  if (!ensure_dir(dir, error)) return false;
  nlohmann::json j = {{"last_view", settings.last_view}};
  if (settings.window_width > 0 && settings.window_height > 0)
    j["window"] = {{"width", settings.window_width}, {"height", settings.window_height}};
  const std::string path = dir + "/settings.json";
  return core::write_file_atomically(path, j.dump(2) + "\n", error);
}

}  // namespace headroom::gui
