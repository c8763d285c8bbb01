// Lines (and bands) handed to widgets::PlotLine / PlotShaded, owning their arrays until EndPlot().
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

namespace headroom::gui {

struct PlotSeries {
  std::string label;
  std::string band_label;  // the plot keeps label pointers until EndPlot(): own them here
  ImU32 color = 0;
  float thickness = 1.5f;
  std::vector<float> x, y, lo, hi;  // lo / hi empty: no band
  float marker_radius = 0.0f;
};

// Bands first, then lines on top.
void plot_all(const std::vector<PlotSeries>& series);

ImU32 with_alpha(ImU32 color, int alpha);

}  // namespace headroom::gui
