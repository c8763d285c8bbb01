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
// drag pans x (once past io.MouseDragThreshold; a shorter press is a click, see
// IsPlotClicked), double-click fits to the data again, clicking a legend entry hides or
// shows that series (or marker), hovering shows every series' value at the cursor's x.
//
// Order inside a plot: BeginPlot, then the Setup* calls, then anything else. Input
// (zoom, pan, legend clicks, double-click) is handled at the first call after the Setup*
// calls (or in EndPlot when there is none), using the plot rectangle laid out from this
// frame's size, title and labels, the previous frame's y tick label width and the
// previous frame's legend box (the legend needs this frame's series). So the
// queries below (GetPlotLimitsX, IsPlotHovered, GetPlotMousePosX, IsPlotClicked) already
// include this frame's input, and refer to the previous frame's layout only where the
// layout changes (the y tick labels got wider, or the x range was refit to the data).
//
// Zoom-dependent data (re-query from a database for the visible window):
//
//   if (BeginPlot("Loss##runs")) {
//     SetupAxes("step", "loss");
//     SetupAxisLimitsX(0, last_step);              // home view, until the user zooms
//     const PlotRange r = GetPlotLimitsX();        // the range drawn this frame
//     if (r.min != cached.min || r.max != cached.max) requery(r);
//     for (const Run& run : runs) PlotLine(run.name, run.xs, run.ys, run.n);
//     if (IsPlotClicked()) open_checkpoint_near(GetPlotMousePosX());
//     PlotVLine("##opened", opened_step, IM_COL32(230, 90, 60, 255));
//     EndPlot();
//   }
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

namespace headroom::widgets {

enum PlotFlags_ : int {
  PlotFlags_None = 0,
  PlotFlags_LogX = 1 << 0,  // log10 x axis (non-positive x are skipped)
  PlotFlags_LogY = 1 << 1,  // log10 y axis (non-positive y are gaps)
  PlotFlags_NoLegend = 1 << 2,
  PlotFlags_NoHover = 1 << 3,   // no crosshair/tooltip
  PlotFlags_NoInputs = 1 << 4,  // no zoom/pan/legend clicks
};
using PlotFlags = int;

// When SetupAxisLimitsX() applies.
enum PlotCond_ : int {
  PlotCond_Once,    // the plot's "home" x range while the user has not zoomed or panned
  PlotCond_Always,  // forced every frame (then this frame's zoom/pan applies on top)
};
using PlotCond = int;

// A closed data range [min, max] (un-logged values on log axes).
struct PlotRange {
  double min = 0.0, max = 0.0;
  double Size() const { return max - min; }
  bool Contains(double v) const { return v >= min && v <= max; }
};

// Screen rectangles of the plot area (inside the axes) and of its legend as the last EndPlot()
// drew them (legend empty when there was none). The legend never covers data: it takes the
// first corner of the plot (top-right, top-left, bottom-right, bottom-left) with no data under
// it, else a column beside the plot (at most 40% of its width, long labels elided).
struct PlotBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};
PlotBox GetLastPlotArea();
PlotBox GetLastPlotLegend();

// Starts a plot. `title_id` follows ImGui's "Visible title##unique id" convention
// (an empty visible part draws no title). size.x <= 0: available width (+ size.x when
// negative); size.y == 0: a default height; size.y < 0: available height + size.y.
// Returns false when the plot is clipped: then do NOT call EndPlot().
bool BeginPlot(const char* title_id, const ImVec2& size = ImVec2(0, 0));

// Axis labels and flags. Call once after BeginPlot(), before plotting.
void SetupAxes(const char* x_label, const char* y_label, PlotFlags flags = PlotFlags_None);

// A categorical x axis: the series' x = i stands for names[i] (x values are indices). The axis
// is labeled with the names (thinned so they never overlap) and the hover tooltip names the
// category; the names are copied. Linear x only (ignored with PlotFlags_LogX).
void SetupAxisCategoriesX(const std::vector<std::string>& names);

// Fixes the y range instead of fitting it to the visible data.
void SetupAxisLimitsY(double lo, double hi);

// Sets the x range instead of fitting it to the data (call after SetupAxes, before plotting).
//  - PlotCond_Once: shown while IsPlotUserRanged() is false, i.e. until the user zooms or
//    pans, and again after a double-click. Passing different limits in a later frame
//    moves the home view (not the user's zoomed view).
//  - PlotCond_Always: shown every frame, for plots linked to a shared range. This frame's
//    zoom/pan is applied on top of it, so store GetPlotLimitsX() back into the shared range
//    to link plots:  SetupAxisLimitsX(s.min, s.max, PlotCond_Always); s = GetPlotLimitsX();
//    A double-click then only clears IsPlotUserRanged(): the caller picks the home range.
// lo/hi may come in either order; on a log x axis a non-positive lo falls back to the fit.
void SetupAxisLimitsX(double lo, double hi, PlotCond cond = PlotCond_Once);

// The x range drawn this frame, including this frame's zoom/pan. Exact when the range is
// user-ranged or set by SetupAxisLimitsX(). Otherwise x is fit to the data in EndPlot(),
// after all series are known, so this returns the range shown in the PREVIOUS frame (the
// same unless the data's x extent changed or the user double-clicked this frame). Before
// anything was shown (the plot's first frame, or the first after switching PlotFlags_LogX)
// it returns {NaN, NaN}: set Once limits to know the range from the first frame.
PlotRange GetPlotLimitsX();

// True after the user zoomed (wheel) or panned (drag) this plot, until a double-click or
// the context menu's "Fit to data" (or a switch between linear and log x).
bool IsPlotUserRanged();

// The mouse is over the plot area (the rectangle inside the axes, legend included), the
// window is hovered and no other item is active. Independent of PlotFlags_NoInputs.
bool IsPlotHovered();

// The mouse's x in data coordinates (on a log x axis the un-logged value, not log10).
// Valid when IsPlotHovered(); otherwise the extrapolated value (outside the range).
double GetPlotMousePosX();

// True in the frame the left button is released after a press inside the plot area, not on
// the legend, without dragging past io.MouseDragThreshold (a drag pans instead) and not
// the second click of a double-click (that refits). GetPlotMousePosX() is then the x
// clicked. Works with PlotFlags_NoInputs too (only zoom/pan/legend are disabled).
bool IsPlotClicked();

// A line through (xs[i], ys[i]); xs ascending, or nullptr for x = i. NaN ys are gaps.
// color 0 picks the next palette color.
// marker_radius > 0 also draws a dot of that radius (pixels) at every drawn point, for sparse
// series such as a table's rows, where a point at the plot's edge would otherwise vanish.
void PlotLine(const char* label, const float* xs, const float* ys, int n, ImU32 color = 0, float thickness = 1.5f,
              float marker_radius = 0.0f);

// A filled band between ylo and yhi (e.g. mean +- std over seeds); drawn under the lines.
void PlotShaded(const char* label, const float* xs, const float* ylo, const float* yhi, int n, ImU32 color = 0);

// A vertical marker at x (e.g. the step opened in the lab), drawn over every series across
// the plot's height; not drawn when x is outside the shown range. It has a legend entry
// (clicking it hides the marker) unless label starts with "##"; it does not take part
// in fitting x to the data. color 0 picks the next palette color.
void PlotVLine(const char* label, double x, ImU32 color = 0);

// Makes this EndPlot() write an SVG 1.1 document of exactly what is shown this frame to
// *out (render_svg() from svg_plot.h: the visible x and y ranges, log flags, title and
// labels, visible series only, markers inside the range, though markers get no SVG legend
// entry) at width x height pixels (0 = the plot widget's on-screen size). *out must stay alive until EndPlot(); it is
// left unchanged when EndPlot() draws nothing (the widget is too small to have a plot area).
// The SVG uses a white background whatever the ImGui theme.
void CapturePlotSvg(std::string* out, int width = 0, int height = 0);

// Ends the plot: fits the ranges, draws everything (input was handled after the Setup* calls).
void EndPlot();

}  // namespace headroom::widgets
