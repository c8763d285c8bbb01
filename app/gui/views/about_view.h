// "About" tab: version, renderer, keyboard shortcuts, command line, where settings live.
#pragma once

#include "app/gui/views/view.h"

namespace headroom::gui {

class AboutView : public View {
 public:
  explicit AboutView(ViewContext& context) : context_(context) {}
  const char* name() const override { return "About"; }
  void draw() override;

 private:
  ViewContext& context_;
};

}  // namespace headroom::gui
