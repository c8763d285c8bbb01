#include "app/gui/app_state.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/io/atomic_file.h"

#ifndef HEADROOM_VERSION
#define HEADROOM_VERSION "0.0.0"
#endif

namespace headroom::gui {

nlohmann::json build_app_state(const AppStateInputs& in, const std::vector<nlohmann::json>& view_states) {
  nlohmann::json j = nlohmann::json::object();
  for (const nlohmann::json& vs : view_states)
    if (vs.is_object()) j.update(vs);
  j["view"] = in.view;
  j["window"] = {{"width", in.window_width}, {"height", in.window_height}};
  j["framebuffer"] = {{"width", in.framebuffer_width}, {"height", in.framebuffer_height}};
  j["frames"] = in.frames;
  j["heatmaps_drawn"] = in.heatmaps_drawn;
  j["widgets"] = {{"heatmap_uploads", in.heatmap_uploads},
                  {"plots_drawn", in.plots_drawn},
                  {"attention_lines", in.attention_lines_drawn},
                  {"neuron_cells", in.neuron_cells_drawn}};
  j["blocking_io_on_ui_thread"] = in.blocking_io_on_ui_thread;
  j["presentation"] = in.presentation;
  j["views"] = in.views;
  j["version"] = HEADROOM_VERSION;
  if (!in.screenshot.empty()) j["screenshot"] = in.screenshot;
  j["tooltip"] = in.tooltip;
  j["tooltip_width_em"] = in.tooltip_width_em;
  return j;
}

bool write_json_file(const std::string& path, const nlohmann::json& j, std::string* error) {
  return core::write_file_atomically(path, j.dump(2) + "\n", error);
}

}  // namespace headroom::gui
