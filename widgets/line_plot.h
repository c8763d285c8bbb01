// An ImPlot-shaped line plot for training curves and other long series.
//
//   if (BeginPlot("Loss##train", ImVec2(-1, 300))) {
//     SetupAxes("step", "loss", PlotFlags_LogY);
//     PlotShaded("train +- std", steps, lo, hi, n);
//     PlotLine("train", steps, loss, n);
//     EndPlot();
//   }
//
// Series are recorded by pointer and drawn in EndPlot(), after the axes are known,
// so the arrays must stay alive until EndPlot(). Each series is decimated to
// min/max per pixel column of the visible range, so 10^5-point curves draw in O(width).
// Interaction (state kept per plot ID): mouse wheel zooms x around the cursor, left
// drag pans x, double-click fits to the data again, clicking a legend entry hides or
// shows that series, hovering shows every series' value at the cursor's x.
#pragma once

#include <imgui.h>

namespace headroom::widgets {

enum PlotFlags_ : int {
  PlotFlags_None = 0,
  PlotFlags_LogX = 1 << 0,      // log10 x axis (non-positive x are skipped)
  PlotFlags_LogY = 1 << 1,      // log10 y axis (non-positive y are gaps)
  PlotFlags_NoLegend = 1 << 2,
  PlotFlags_NoHover = 1 << 3,   // no crosshair/tooltip
  PlotFlags_NoInputs = 1 << 4,  // no zoom/pan/legend clicks
};
using PlotFlags = int;

// Starts a plot. `title_id` follows ImGui's "Visible title##unique id" convention
// (an empty visible part draws no title). size.x <= 0: available width (+ size.x when
// negative); size.y == 0: a default height; size.y < 0: available height + size.y.
// Returns false when the plot is clipped: then do NOT call EndPlot().
bool BeginPlot(const char* title_id, const ImVec2& size = ImVec2(0, 0));

// Axis labels and flags. Call once after BeginPlot(), before plotting.
void SetupAxes(const char* x_label, const char* y_label, PlotFlags flags = PlotFlags_None);

// Fixes the y range instead of fitting it to the visible data.
void SetupAxisLimitsY(double lo, double hi);

// A line through (xs[i], ys[i]); xs ascending, or nullptr for x = i. NaN ys are gaps.
// color 0 picks the next palette color.
void PlotLine(const char* label, const float* xs, const float* ys, int n, ImU32 color = 0,
              float thickness = 1.5f);

// A filled band between ylo and yhi (e.g. mean +- std over seeds); drawn under the lines.
void PlotShaded(const char* label, const float* xs, const float* ylo, const float* yhi, int n,
                ImU32 color = 0);

// Ends the plot: computes ranges, handles input, draws everything.
void EndPlot();

}  // namespace headroom::widgets
