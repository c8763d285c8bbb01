#include "app/gui/views/widgets_demo_view.h"

#include "widgets/widgets_demo.h"

namespace headroom::gui {

void WidgetsDemoView::draw() { widgets::ShowWidgetsDemoContents(); }

bool WidgetsDemoView::load_scene(const nlohmann::json& scene, std::string* error) {
  if (!scene.contains("widgets_demo")) return true;
  const nlohmann::json& j = scene["widgets_demo"];
  if (!j.is_object()) {
    *error = "\"widgets_demo\" must be an object like {\"stress\": true}, but it is a " + std::string(j.type_name());
    return false;
  }
  widgets::WidgetsDemoOptions o = *widgets::GetWidgetsDemoOptions();
  struct Flag {
    const char* key;
    bool* value;
  };
  const Flag flags[] = {{"fixed_range", &o.fixed_range},
                        {"animate", &o.animate},
                        {"stress", &o.stress},
                        {"log_x", &o.log_x},
                        {"log_y", &o.log_y},
                        {"spectrum_log", &o.spectrum_log},
                        {"show_band", &o.show_band}};
  const char* const valid =
      "selected_head, colormap, fixed_range, animate, stress, log_x, log_y, spectrum_log, show_band";
  for (const auto& [key, value] : j.items()) {
    if (key == "selected_head") {
      if (!value.is_number_integer() || value.get<int>() < 0) {
        *error = "\"widgets_demo.selected_head\" must be a head index >= 0, e.g. 3";
        return false;
      }
      o.selected_head = value.get<int>();
    } else if (key == "colormap") {
      if (!value.is_string() || !widgets::colormap_from_name(value.get<std::string>().c_str(), &o.colormap)) {
        *error =
            "\"widgets_demo.colormap\" must be one of 'viridis', 'diverging', 'high-contrast', not " + value.dump();
        return false;
      }
    } else {
      bool found = false;
      for (const Flag& f : flags) {
        if (key != f.key) continue;
        if (!value.is_boolean()) {
          *error = "\"widgets_demo." + key + "\" must be true or false, not " + value.dump();
          return false;
        }
        *f.value = value.get<bool>();
        found = true;
      }
      if (!found) {
        *error = "unknown key \"widgets_demo." + key + "\"; valid keys: " + valid;
        return false;
      }
    }
  }
  *widgets::GetWidgetsDemoOptions() = o;
  return true;
}

bool WidgetsDemoView::busy() const { return widgets::GetWidgetsDemoOptions()->animate; }

nlohmann::json WidgetsDemoView::state() const {
  const widgets::WidgetsDemoOptions& o = *widgets::GetWidgetsDemoOptions();
  return {{"widgets_demo",
           {{"selected_head", o.selected_head},
            {"colormap", widgets::colormap_name(o.colormap)},
            {"stress", o.stress},
            {"animate", o.animate}}}};
}

}  // namespace headroom::gui
