// The widgets on synthetic data, like imgui_demo.cpp: a living catalogue to check
// how every widget looks and behaves, and the GUI's "Widgets demo" view.
#pragma once

#include "widgets/colormap.h"

namespace headroom::widgets {

// The demo's knobs, also settable from outside (the GUI's scene files, benchmarks).
struct WidgetsDemoOptions {
  int selected_head = 0;
  Colormap colormap = Colormap::Viridis;
  bool fixed_range = false;  // heads on a fixed [0, 1] range with one shared color scale
  bool animate = false;      // recompute the maps every frame (re-upload only, in stress mode)
  bool stress = false;       // 32 heads of 256 x 256 instead of 16 of 64 x 64
  bool log_x = false;
  bool log_y = true;
  bool spectrum_log = true;
  bool show_band = true;
};

// The live options (edits take effect next frame).
WidgetsDemoOptions* GetWidgetsDemoOptions();

// A window of its own ("Headroom widgets demo"); pass nullptr for no close button.
void ShowWidgetsDemo(bool* open);

// The demo's contents drawn into the current window (what the app's view tab uses).
void ShowWidgetsDemoContents();

}  // namespace headroom::widgets
