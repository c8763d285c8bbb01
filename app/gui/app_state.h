// The --state-out document: what the GUI showed when it exited, for tests and
// scripts to assert on without reading pixels.
//
//   {"view": "Widgets demo", "window": {"width": 1280, "height": 800},
//    "frames": 5, "heatmaps_drawn": 17, ...every view's state() merged in...}
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace headroom::gui {

struct AppStateInputs {
  std::string view;  // the tab shown in the last frame
  int window_width = 0, window_height = 0;
  int framebuffer_width = 0, framebuffer_height = 0;
  int frames = 0;                     // frames rendered
  int heatmaps_drawn = 0;             // in the last frame
  int heatmap_uploads = 0;            // in the last frame
  int plots_drawn = 0;                // in the last frame
  int attention_lines_drawn = 0;      // in the last frame (the lab's lines view)
  int neuron_cells_drawn = 0;         // in the last frame (the lab's neurons view)
  long blocking_io_on_ui_thread = 0;  // SQL or checkpoint decodes that ran on the UI thread (a bug)
  bool presentation = false;
  std::vector<std::string> views;  // all registered views, in tab order
  std::string screenshot;          // the PNG written, if any
  std::string tooltip;             // the text of gui::tooltip() in the last frame, "" if none
  double tooltip_width_em = 0;     // its window's width in em, 0 if none
};

// Builds the state object. `view_states` are merged in first (e.g. the lab's
// "model"), then the shell's own keys, so views cannot clobber the contract fields.
nlohmann::json build_app_state(const AppStateInputs& in, const std::vector<nlohmann::json>& view_states);

// Writes json to path (pretty, trailing newline). false + *error on failure.
bool write_json_file(const std::string& path, const nlohmann::json& j, std::string* error);

}  // namespace headroom::gui
