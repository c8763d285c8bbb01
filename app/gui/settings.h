// What the GUI remembers between sessions: a small settings.json (last view, window
// size) and ImGui's own imgui.ini, both in the user's config directory. Never read
// or written in automation mode, so scripted runs are hermetic.
#pragma once

#include <string>

namespace headroom::gui {

struct Settings {
  std::string last_view;
  int window_width = 0;  // 0: not stored
  int window_height = 0;
};

// $XDG_CONFIG_HOME/headroom, else $HOME/.config/headroom; "" when neither is set.
// Pure: takes the environment values (nullptr = unset) so it can be tested.
std::string config_dir_from(const char* xdg_config_home, const char* home);

// config_dir_from() with the real environment.
std::string config_dir();

// Creates dir (and parents). Returns false with *error set when it cannot.
bool ensure_dir(const std::string& dir, std::string* error);

// Loads <dir>/settings.json. A missing file gives defaults and true; an unreadable
// or malformed one gives defaults, false, and *error explaining (the caller warns).
bool load_settings(const std::string& dir, Settings* settings, std::string* error);

// Writes <dir>/settings.json, creating dir. Returns false with *error set on failure.
bool save_settings(const std::string& dir, const Settings& settings, std::string* error);

}  // namespace headroom::gui
