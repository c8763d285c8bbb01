// SVG export of a line plot: a pure function from plain data to a standalone SVG 1.1
// document (vector graphics for papers and reports). No ImGui context is needed;
// line_plot's CapturePlotSvg() fills an SvgPlot with what a plot shows and calls this.
//
// The document has a white background and dark text whatever the GUI theme, a frame
// around the plot area, grid lines and labeled ticks from axis_ticks (nice_ticks, or
// log_ticks on log axes), the title, axis labels and a legend in the top-right corner.
// Lines are decimated to min/max per pixel column (decimate.h), so a 10^5-point curve
// becomes at most ~2 points per horizontal pixel.
#pragma once

#include <imgui.h>

#include <string>
#include <utility>
#include <vector>

#include "widgets/axis_ticks.h"

namespace headroom::widgets {

struct SvgPlot {
  std::string title, x_label, y_label;    // plain text (escaped on output); empty = not drawn
  std::vector<std::string> x_categories;  // non-empty: x = i names x_categories[i] (category_ticks)
  bool log_x = false, log_y = false;      // log10 axes; non-positive values are gaps
  double x_min = 0.0, x_max = 1.0;        // the visible data range (log axes: both > 0)
  double y_min = 0.0, y_max = 1.0;
  struct Series {
    std::string label;  // legend text; empty = no legend entry
    ImU32 color = 0;    // IM_COL32; alpha < 255 becomes stroke/fill opacity
    // A line through (xs[i], ys[i]) when ys is non-empty: xs ascending and as long as ys.
    // NaN / Inf y (and non-positive values on log axes) split it into separate polylines.
    std::vector<double> xs, ys;
    // A translucent band between ylo[i] and yhi[i] at xs[i] when both are non-empty
    // (same length as xs); drawn under every line. A series may have a band, a line or both.
    std::vector<double> ylo, yhi;
    float thickness = 1.5f;  // line width in SVG user units (pixels)
  };
  std::vector<Series> series;
  std::vector<std::pair<double, ImU32>> vlines;  // vertical markers at x, drawn over the series
};

// Where render_svg puts things for a given size (exposed for tests and callers that
// want to annotate the SVG): the plot rectangle in SVG pixels and the axis ticks.
struct SvgLayout {
  double left = 0, top = 0, right = 0, bottom = 0;  // plot area, y grows downwards
  int x_tick_target = 2, y_tick_target = 2;         // target_count passed to axis_ticks
  std::vector<AxisTick> x_ticks, y_ticks;           // nice_ticks / log_ticks of the ranges
};
SvgLayout svg_layout(const SvgPlot& plot, int width, int height);

// The whole document ("<?xml ...?><svg ...>...</svg>"), width x height pixels (each at
// least 64). Structure, for tools that post-process it:
//   <g class="xticks">/<g class="yticks"> one <text> per labeled tick, in ascending value;
//   <g class="bands"> one <path> per contiguous valid run of a band (clipped to the plot area
//     with a clipPath);
//   <g class="lines"> one <polyline> per contiguous valid run of a line, its points clipped
//     to the plot rectangle (a line leaving and re-entering the rectangle also splits);
//   <g class="vlines"> one <line> per marker inside the x range;
//   <g class="legend"> one <text> per labeled series.
// Degenerate ranges (min >= max, non-finite, non-positive on a log axis) are widened or
// replaced like the on-screen plot does (fit_range), never producing NaN coordinates.
std::string render_svg(const SvgPlot& plot, int width, int height);

// Text escaped for XML content and attribute values: & < > " ' become entities;
// control characters that XML 1.0 forbids are dropped. UTF-8 passes through.
std::string xml_escape(const std::string& text);

}  // namespace headroom::widgets
