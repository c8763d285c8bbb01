// Scene files: a JSON object that says what the GUI shows at startup, so a view
// can be reproduced from a file (and screenshotted in CI). Today only "view" is
// interpreted here; every other key belongs to the views, which receive the
// whole object through View::load_scene().
//
//   {"view": "Widgets demo", "lab": {...}}
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace headroom::gui {

struct Scene {
  std::string path;
  std::string view;  // "" when the scene does not choose a view
  nlohmann::json data = nlohmann::json::object();
};

// Reads and validates a scene file. On failure returns false and sets *error to one
// line naming the file, the problem and what would be right.
bool load_scene_file(const std::string& path, Scene* scene, std::string* error);

// Same for scene text already in memory (`path` is only used in messages).
bool parse_scene_text(const std::string& text, const std::string& path, Scene* scene, std::string* error);

}  // namespace headroom::gui
