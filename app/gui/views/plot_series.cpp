#include "app/gui/views/plot_series.h"

#include "widgets/line_plot.h"

namespace headroom::gui {

void plot_all(const std::vector<PlotSeries>& series) {
  for (const auto& s : series)
    if (!s.lo.empty())
      widgets::PlotShaded(s.band_label.c_str(), s.x.data(), s.lo.data(), s.hi.data(), static_cast<int>(s.x.size()),
                          s.color);
  for (const auto& s : series)
    widgets::PlotLine(s.label.c_str(), s.x.data(), s.y.data(), static_cast<int>(s.x.size()), s.color, s.thickness,
                      s.marker_radius);
}

ImU32 with_alpha(ImU32 c, int alpha) {
  return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT);
}

}  // namespace headroom::gui
