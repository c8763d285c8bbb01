// "Widgets demo" tab: every headroom widget on synthetic data (see widgets/widgets_demo.h).
//
// Scene key (all optional):
//   "widgets_demo": {"selected_head": 3, "colormap": "diverging", "fixed_range": false,
//                    "animate": false, "stress": true, "log_x": false, "log_y": true,
//                    "spectrum_log": true, "show_band": true}
#pragma once

#include "app/gui/views/view.h"

namespace headroom::gui {

class WidgetsDemoView : public View {
 public:
  explicit WidgetsDemoView(ViewContext& context) : context_(context) {}
  const char* name() const override { return "Widgets demo"; }
  void draw() override;
  bool load_scene(const nlohmann::json& scene, std::string* error) override;
  nlohmann::json state() const override;
  bool busy() const override;  // while its maps animate

 private:
  ViewContext& context_;
};

}  // namespace headroom::gui
