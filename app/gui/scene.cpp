#include "app/gui/scene.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace headroom::gui {

bool parse_scene_text(const std::string& text, const std::string& path, Scene* scene, std::string* error) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ...", or
    // out_of_range.406 for a number too large for a double (found by fuzz/scene_fuzz.cpp).
    std::string what = e.what();
    const size_t cut = what.find("] ");
    if (cut != std::string::npos) what = what.substr(cut + 2);
    *error = "scene file '" + path + "' is not valid JSON: " + what +
             " - fix the file or write a scene like {\"view\": \"Widgets demo\"}";
    return false;
  }
  if (!j.is_object()) {
    *error = "scene file '" + path + "' must contain a JSON object like {\"view\": \"Widgets demo\"}, but it holds a " +
             std::string(j.type_name());
    return false;
  }
  Scene s;
  s.path = path;
  if (j.contains("view")) {
    if (!j["view"].is_string()) {
      *error = "scene file '" + path + "': \"view\" must be a view name string like \"Widgets demo\", but it is a " +
               std::string(j["view"].type_name());
      return false;
    }
    s.view = j["view"].get<std::string>();
  }
  s.data = std::move(j);
  *scene = std::move(s);
  return true;
}

bool load_scene_file(const std::string& path, Scene* scene, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read scene file '" + path + "': " + std::strerror(errno) +
             " - pass the path of an existing JSON scene file";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    *error = "cannot read scene file '" + path + "': read error - is it a regular file?";
    return false;
  }
  return parse_scene_text(ss.str(), path, scene, error);
}

}  // namespace headroom::gui
