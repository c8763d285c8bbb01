// Internals of line_plot shared by line_plot.cpp (API, input, EndPlot) and
// line_plot_draw.cpp (series drawing, legend, tooltip, SVG capture). Not a public API.
#pragma once

#include <imgui.h>
#include <imgui_internal.h>

#include <string>
#include <vector>

#include "widgets/decimate.h"
#include "widgets/line_plot.h"
#include "widgets/plot_math.h"
#include "widgets/svg_plot.h"

namespace headroom::widgets::detail {

enum class SeriesKind { Line, Shaded, VLine };

struct PlotSeries {
  SeriesKind kind = SeriesKind::Line;
  const char* label = "";
  const float* xs = nullptr;
  const float* ys = nullptr;   // line
  const float* ylo = nullptr;  // band
  const float* yhi = nullptr;
  int n = 0;
  double vx = 0.0;  // marker
  ImU32 color = 0;
  float thickness = 1.5f;
  float marker_radius = 0.0f;  // > 0: a dot at every point (sparse series: a paper table's rows)
  ImGuiID label_id = 0;
  bool hidden = false;
  std::vector<DecimatedPoint> line;
  std::vector<DecimatedBandPoint> band;
};

// Kept across frames per plot ID.
struct PlotState {
  int last_frame = 0;  // ImGui frame count when last set up; a count that went back means a new context
  AxisRange x{0.0, 1.0};
  bool shown = false;   // x holds a range that was drawn (false before the first EndPlot)
  bool user_x = false;  // zoomed/panned: keep x; otherwise fit to data (or the Once limits)
  PlotFlags last_flags = 0;
  float y_tick_w = 0.0f;  // widest y tick label last frame (layout needs it before ticks exist)
  std::vector<ImGuiID> hidden;
  // Legend as drawn last frame: input is handled before this frame's series are known.
  ImRect legend;
  float legend_row_h = 0.0f;
  float legend_reserve = 0.0f;       // width the plot gave up last frame for a legend beside it
  std::vector<ImGuiID> legend_rows;  // label id per row
  int legend_left_out = 0;           // entries summed up as "+ N more" (its row follows legend_rows)
  // Left-button press that started inside the plot area (not on the legend).
  bool pressed = false;
  bool press_double = false;  // the press was the second click of a double-click
  bool panning = false;       // moved past the drag threshold: a pan, not a click
  AxisRange press_x;          // x range at the press; a pan is relative to it
};

// The plot between BeginPlot() and EndPlot().
struct PlotContext {
  bool open = false;
  ImGuiID id = 0;
  std::string title;
  std::string title_shown;  // title as drawn: in two lines ('\n') where one is too narrow (layout)
  ImRect frame;
  std::string x_label, y_label;
  const char* y_label_shown = nullptr;    // y_label where the plot is tall enough for it (layout)
  std::vector<std::string> x_categories;  // SetupAxisCategoriesX: x = i names x_categories[i]
  PlotFlags flags = 0;
  bool fixed_y = false;
  AxisRange y_fixed;
  bool limits_x_set = false;
  PlotCond limits_x_cond = PlotCond_Once;
  AxisRange limits_x;
  std::string* svg_out = nullptr;
  int svg_w = 0, svg_h = 0;
  // Set by the setup step (first call after the Setup* calls).
  bool setup_done = false;
  PlotState* st = nullptr;
  ImRect plot;                  // the area inside the axes
  bool layout_ok = false;       // plot is large enough to draw
  bool limits_applied = false;  // st->x comes from SetupAxisLimitsX this frame (no fit)
  bool hovered = false, over_legend = false, clicked = false;
  double mouse_x = 0.0;
  std::vector<PlotSeries> series;
  int series_used = 0;
  int next_color = 0;
};

PlotContext& plot_context();

// Legend geometry: one row per labeled series. EndPlot puts it in the first corner of the plot
// (top-right, top-left, bottom-right, bottom-left) where it covers no data, else beside the plot.
struct Legend {
  ImRect rect;
  float row_h = 0.0f;
  // Entries drawn (and clickable); where more series have labels, the row after them says how many
  // were left out ("+ 7 more"): a legend beside the plot is never taller than the plot's frame.
  int max_rows = 1 << 30;
};
// The rows a legend of `entries` entries shows in `height` pixels: every entry where they fit, else
// as many as fit with one row kept for "+ N more". At least 1.
int legend_rows_fitting(int entries, float height, float row_h, float pad_y);
ImVec2 legend_size();  // (0, 0) when no series has a label
// The four candidate boxes of `size` inside `plot`, in order of preference.
std::vector<ImRect> legend_corners(const ImRect& plot, const ImVec2& size);
// Whether the shown data (line points and segments, band edges, vertical lines) touches `r`.
bool data_under(const ImRect& r, const AxisMap& xm, const AxisMap& ym);
// Whether the segment a-b meets the rectangle (inside or crossing it).
bool segment_hits_rect(const ImVec2& a, const ImVec2& b, const ImRect& r);
int legend_row_at(const Legend& L, const ImVec2& p);  // index into series, or -1
// The legend row (0 = the first) under `p` in a legend drawn in `rect` with rows `row_h` high, or -1
// outside it; the row after the entries is "+ N more" where entries were left out.
int legend_row_index(const ImRect& rect, float row_h, const ImVec2& p);
// `more_hot`: the "+ N more" row is under the mouse (it opens the list of what it left out).
void draw_legend(ImDrawList* dl, const Legend& L, int hot_row, bool more_hot = false);
// A series with a visible label (text before any "##"): it has a legend row.
bool has_legend_entry(const PlotSeries& s);

void draw_band(ImDrawList* dl, const PlotSeries& s, const AxisMap& xm, const AxisMap& ym);
void draw_line(ImDrawList* dl, const PlotSeries& s, const AxisMap& xm, const AxisMap& ym);
void draw_vline(ImDrawList* dl, const PlotSeries& s, const ImRect& plot, const AxisMap& xm);
// The categorical x axis' ticks for this plot's width: as many names as fit side by side.
std::vector<AxisTick> fitting_category_ticks(const AxisMap& xm, float plot_width);
void hover_tooltip(ImDrawList* dl, const ImRect& plot, const AxisMap& xm, const AxisMap& ym, double x);

// What the plot shows this frame, as an SvgPlot (visible series, samples around the x range).
SvgPlot capture_svg(const AxisRange& x, const AxisRange& y);

}  // namespace headroom::widgets::detail
