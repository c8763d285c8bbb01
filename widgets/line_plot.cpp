#include "widgets/line_plot.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "widgets/axis_ticks.h"
#include "widgets/decimate.h"
#include "widgets/draw_util.h"
#include "widgets/frame_stats.h"
#include "widgets/line_plot_internal.h"
#include "widgets/plot_math.h"
#include "widgets/png_export.h"
#include "widgets/svg_plot.h"
#include "widgets/text_wrap.h"

namespace headroom::widgets {

using detail::PlotContext;
using detail::PlotSeries;
using detail::PlotState;
using detail::SeriesKind;

namespace detail {
PlotContext& plot_context() {
  static PlotContext ctx;
  return ctx;
}
}  // namespace detail

namespace {

PlotContext& g_plot = detail::plot_context();
std::unordered_map<ImGuiID, PlotState> g_states;

PlotSeries& add_series(const char* label, ImU32 color) {
  if (g_plot.series_used == static_cast<int>(g_plot.series.size())) g_plot.series.emplace_back();
  PlotSeries& s = g_plot.series[g_plot.series_used++];
  s.label = label ? label : "";
  s.color = color ? color : detail::palette_color(g_plot.next_color);
  ++g_plot.next_color;
  s.label_id = ImHashStr(s.label);
  s.xs = s.ys = s.ylo = s.yhi = nullptr;
  s.n = 0;
  s.vx = 0.0;
  s.thickness = 1.5f;
  s.hidden = false;
  return s;
}

bool contains(const std::vector<ImGuiID>& v, ImGuiID id) { return std::find(v.begin(), v.end(), id) != v.end(); }

void toggle(std::vector<ImGuiID>& v, ImGuiID id) {
  auto it = std::find(v.begin(), v.end(), id);
  if (it == v.end()) v.push_back(id);
  else v.erase(it);
}

// The popup listing the series a legend beside a short plot left out ("+ N more").
ImGuiID legend_more_popup_id() { return ImHashStr("##legend more", 0, g_plot.id); }

// The popup itself: every series the legend left out, its colour and name, a click hiding or
// showing it as a legend row's click does. It stays open for several clicks.
void legend_more_popup(PlotState& st, int shown_rows) {
  const float max_h = ImGui::GetIO().DisplaySize.y * 0.6f;
  ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f), ImVec2(FLT_MAX, max_h));
  if (!ImGui::BeginPopupEx(legend_more_popup_id(), ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar |
                                                       ImGuiWindowFlags_NoSavedSettings))
    return;
  ImGui::TextDisabled("Not in the legend: click to hide or show");
  const float line = ImGui::GetTextLineHeight(), swatch = line * 1.2f;
  int row = 0;
  for (int i = 0; i < g_plot.series_used; ++i) {
    const detail::PlotSeries& s = g_plot.series[i];
    if (!detail::has_legend_entry(s) || row++ < shown_rows) continue;
    ImGui::PushID(static_cast<int>(s.label_id));
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImU32 col = s.hidden ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : s.color;
    ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, at.y + line * 0.5f), ImVec2(at.x + swatch, at.y + line * 0.5f),
                                        col, 2.0f);
    ImGui::Dummy(ImVec2(swatch, line));
    ImGui::SameLine();
    const std::string label(s.label, detail::visible_text_end(s.label));
    if (s.hidden) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_DontClosePopups)) toggle(st.hidden, s.label_id);
    if (s.hidden) ImGui::PopStyleColor();
    ImGui::PopID();
  }
  ImGui::EndPopup();
}

// The plot area inside the frame: title above, y label + tick labels left, tick labels +
// x label below. Uses last frame's y tick label width (the ticks are not known yet).
ImRect layout_plot_area(const PlotState& st) {
  const float line = ImGui::GetTextLineHeight();
  const ImRect& f = g_plot.frame;
  const float tick_w = st.y_tick_w > 0.0f ? st.y_tick_w : ImGui::CalcTextSize("0.000").x;
  // A title wider than the frame takes a second line (a metric's "...; lower is better" is read
  // there) before it is cut with "...".
  g_plot.title_shown =
      g_plot.title.empty() ? std::string() : wrap_in_current_font(g_plot.title, f.GetWidth() - 4.0f, 2);
  const int title_lines = static_cast<int>(std::count(g_plot.title_shown.begin(), g_plot.title_shown.end(), '\n')) + 1;
  const float top = g_plot.title.empty() ? line * 0.5f : line * static_cast<float>(title_lines) + 6.0f;
  const float bottom = line + 9.0f + (g_plot.x_label.empty() ? 0.0f : line + 2.0f);
  g_plot.y_label_shown =
      detail::fitting_y_label(g_plot.y_label.c_str(), nullptr, std::floor(f.GetHeight() - top - bottom));
  const float left = 6.0f + (g_plot.y_label_shown ? line + 4.0f : 0.0f) + tick_w + 8.0f;
  return ImRect(ImVec2(std::floor(f.Min.x + left), std::floor(f.Min.y + top)),
                ImVec2(std::floor(f.Max.x - 10.0f - st.legend_reserve), std::floor(f.Max.y - bottom)));
}

// Mouse input on last frame's legend and this frame's plot area: legend clicks, wheel
// zoom, drag pan (past the drag threshold, relative to the range at the press),
// double-click refit, click detection, the context menu.
void handle_input(PlotState& st, ImGuiWindow* window) {
  const ImGuiIO& io = ImGui::GetIO();
  const PlotFlags flags = g_plot.flags;
  const bool log_x = flags & PlotFlags_LogX;
  const bool inputs = !(flags & PlotFlags_NoInputs);
  const ImRect& plot = g_plot.plot;
  ImRect hover_area = plot;  // the plot and a legend beside it, which may reach below the plot area
  hover_area.Max.x += st.legend_reserve;
  if (st.legend.GetWidth() > 0.0f) hover_area.Add(st.legend);
  g_plot.hovered = ImGui::ItemHoverable(hover_area, g_plot.id);
  g_plot.over_legend = g_plot.hovered && st.legend.Contains(io.MousePos) && !(flags & PlotFlags_NoLegend);
  if (g_plot.over_legend && inputs && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    const int row = detail::legend_row_index(st.legend, st.legend_row_h, io.MousePos);
    if (row >= 0 && row < static_cast<int>(st.legend_rows.size())) toggle(st.hidden, st.legend_rows[row]);
    else if (row == static_cast<int>(st.legend_rows.size()) && st.legend_left_out > 0)
      ImGui::OpenPopupEx(legend_more_popup_id());  // "+ N more": the list of what it left out
  }
  const AxisMap xm{st.x.lo, st.x.hi, log_x, plot.Min.x, plot.Max.x};
  if (g_plot.hovered && !g_plot.over_legend) {
    if (inputs) ImGui::SetItemUsingMouseWheel();
    if (inputs && io.MouseWheel != 0.0f) {
      st.x = zoom_range(st.x, xm.from_pixel(io.MousePos.x), std::pow(0.8, io.MouseWheel), log_x);
      st.user_x = true;
    }
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      st.pressed = true;
      st.panning = false;
      st.press_double = ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left);
      st.press_x = st.x;
      if (inputs && st.press_double) st.user_x = false;
      if (inputs) {
        ImGui::SetActiveID(g_plot.id, window);
        ImGui::FocusWindow(window);
      }
    }
    if (inputs && ImGui::IsMouseReleased(ImGuiMouseButton_Right)) ImGui::OpenPopupEx(g_plot.id);
  }
  if (st.pressed) {
    if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      if (inputs && !st.press_double && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
        const float dx = io.MousePos.x - io.MouseClickedPos[0].x;
        st.x = pan_range(st.press_x, dx, plot.GetWidth(), log_x);
        st.user_x = true;
        st.panning = true;
      }
    } else {
      const float thr = io.MouseDragThreshold;
      g_plot.clicked = ImGui::IsMouseReleased(ImGuiMouseButton_Left) && !st.panning && !st.press_double &&
                       io.MouseDragMaxDistanceSqr[0] < thr * thr && plot.Contains(io.MousePos);
      st.pressed = st.panning = false;
      if (ImGui::GetActiveID() == g_plot.id) ImGui::ClearActiveID();
    }
  }
  g_plot.mouse_x = AxisMap{st.x.lo, st.x.hi, log_x, plot.Min.x, plot.Max.x}.from_pixel(io.MousePos.x);
}

// Runs once per plot, at the first call after the Setup* calls: layout, x limits, input.
void setup_finish() {
  IM_ASSERT(g_plot.open && "needs a BeginPlot() that returned true");
  if (g_plot.setup_done) return;
  g_plot.setup_done = true;
  PlotState& st = g_states[g_plot.id];
  // States outlive ImGui contexts (they are keyed by ID only): start over when the frame
  // count did not advance, i.e. in a new context (tests, tools) or a duplicate ID.
  const int frame = ImGui::GetFrameCount();
  if (st.last_frame > 0 && frame <= st.last_frame) st = PlotState{};
  st.last_frame = frame;
  g_plot.st = &st;
  const PlotFlags flags = g_plot.flags;
  const bool log_x = flags & PlotFlags_LogX;
  if ((st.last_flags ^ flags) & PlotFlags_LogX) {
    st.user_x = false;
    st.shown = false;  // the old range was for the other scale
  }
  st.last_flags = flags;

  const AxisRange& lim = g_plot.limits_x;
  const bool lim_ok = g_plot.limits_x_set && std::isfinite(lim.lo) && std::isfinite(lim.hi) && lim.lo < lim.hi &&
                      (!log_x || lim.lo > 0.0);
  if (lim_ok && (g_plot.limits_x_cond == PlotCond_Always || !st.user_x)) st.x = lim;

  g_plot.plot = layout_plot_area(st);
  g_plot.layout_ok = g_plot.plot.GetWidth() >= 8.0f && g_plot.plot.GetHeight() >= 8.0f;
  if (g_plot.layout_ok) handle_input(st, ImGui::GetCurrentWindow());
  // Set limits hold unless the user took over; a double-click this frame returns to them.
  if (lim_ok && !st.user_x) st.x = lim;
  g_plot.limits_applied = lim_ok && (g_plot.limits_x_cond == PlotCond_Always || !st.user_x);
}

}  // namespace

bool BeginPlot(const char* title_id, const ImVec2& size) {
  IM_ASSERT(!g_plot.open && "BeginPlot() called twice without EndPlot()");
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return false;
  const ImGuiID id = window->GetID(title_id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 sz = size;
  if (sz.x <= 0.0f) sz.x = std::max(avail.x + sz.x, 120.0f);
  if (sz.y == 0.0f) sz.y = ImGui::GetFontSize() * 18.0f;
  else if (sz.y < 0.0f) sz.y = std::max(avail.y + sz.y, 100.0f);
  const ImRect bb(window->DC.CursorPos, window->DC.CursorPos + sz);
  ImGui::ItemSize(bb);
  if (!ImGui::ItemAdd(bb, id)) return false;

  g_plot.open = true;
  g_plot.id = id;
  g_plot.title.assign(title_id, detail::visible_text_end(title_id));
  g_plot.frame = bb;
  g_plot.x_label.clear();
  g_plot.y_label.clear();
  g_plot.y_label_shown = nullptr;
  g_plot.x_categories.clear();
  g_plot.flags = 0;
  g_plot.fixed_y = false;
  g_plot.limits_x_set = false;
  g_plot.svg_out = nullptr;
  g_plot.setup_done = false;
  g_plot.st = nullptr;
  g_plot.layout_ok = false;
  g_plot.limits_applied = false;
  g_plot.hovered = g_plot.over_legend = g_plot.clicked = false;
  g_plot.mouse_x = 0.0;
  g_plot.series_used = 0;
  g_plot.next_color = 0;
  return true;
}

void SetupAxes(const char* x_label, const char* y_label, PlotFlags flags) {
  IM_ASSERT(g_plot.open && "SetupAxes() needs a BeginPlot() that returned true");
  IM_ASSERT(!g_plot.setup_done && "Setup* calls must come before plotting and queries");
  g_plot.x_label = x_label ? x_label : "";
  g_plot.y_label = y_label ? y_label : "";
  g_plot.flags = flags;
}

void SetupAxisCategoriesX(const std::vector<std::string>& names) {
  IM_ASSERT(g_plot.open && "SetupAxisCategoriesX() needs a BeginPlot() that returned true");
  IM_ASSERT(!g_plot.setup_done && "Setup* calls must come before plotting and queries");
  g_plot.x_categories = names;
}

void SetupAxisLimitsY(double lo, double hi) {
  IM_ASSERT(g_plot.open);
  g_plot.fixed_y = true;
  g_plot.y_fixed = {std::min(lo, hi), std::max(lo, hi)};
}

void SetupAxisLimitsX(double lo, double hi, PlotCond cond) {
  IM_ASSERT(g_plot.open && "SetupAxisLimitsX() needs a BeginPlot() that returned true");
  IM_ASSERT(!g_plot.setup_done && "Setup* calls must come before plotting and queries");
  g_plot.limits_x_set = true;
  g_plot.limits_x_cond = cond;
  g_plot.limits_x = {std::min(lo, hi), std::max(lo, hi)};
}

namespace {
PlotBox g_last_area, g_last_legend;
PlotBox box_of(const ImRect& r) { return PlotBox{r.Min.x, r.Min.y, r.Max.x, r.Max.y}; }
}  // namespace

PlotBox GetLastPlotArea() { return g_last_area; }
PlotBox GetLastPlotLegend() { return g_last_legend; }

PlotRange GetPlotLimitsX() {
  setup_finish();
  const PlotState& st = *g_plot.st;
  if (!st.shown && !st.user_x && !g_plot.limits_applied) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
  }
  return {st.x.lo, st.x.hi};
}

bool IsPlotUserRanged() {
  setup_finish();
  return g_plot.st->user_x;
}

bool IsPlotHovered() {
  setup_finish();
  return g_plot.hovered;
}

double GetPlotMousePosX() {
  setup_finish();
  return g_plot.mouse_x;
}

bool IsPlotClicked() {
  setup_finish();
  return g_plot.clicked;
}

void PlotLine(const char* label, const float* xs, const float* ys, int n, ImU32 color, float thickness,
              float marker_radius) {
  IM_ASSERT(g_plot.open && "PlotLine() needs a BeginPlot() that returned true");
  setup_finish();
  PlotSeries& s = add_series(label, color);
  s.kind = SeriesKind::Line;
  s.xs = xs;
  s.ys = ys;
  s.n = ys ? std::max(0, n) : 0;
  s.thickness = thickness;
  s.marker_radius = marker_radius;
}

void PlotShaded(const char* label, const float* xs, const float* ylo, const float* yhi, int n, ImU32 color) {
  IM_ASSERT(g_plot.open && "PlotShaded() needs a BeginPlot() that returned true");
  setup_finish();
  PlotSeries& s = add_series(label, color);
  s.kind = SeriesKind::Shaded;
  s.xs = xs;
  s.ylo = ylo;
  s.yhi = yhi;
  s.n = (ylo && yhi) ? std::max(0, n) : 0;
}

void PlotVLine(const char* label, double x, ImU32 color) {
  IM_ASSERT(g_plot.open && "PlotVLine() needs a BeginPlot() that returned true");
  setup_finish();
  PlotSeries& s = add_series(label, color);
  s.kind = SeriesKind::VLine;
  s.vx = x;
}

void CapturePlotSvg(std::string* out, int width, int height) {
  IM_ASSERT(g_plot.open && "CapturePlotSvg() needs a BeginPlot() that returned true");
  g_plot.svg_out = out;
  g_plot.svg_w = width;
  g_plot.svg_h = height;
}

void EndPlot() {
  IM_ASSERT(g_plot.open && "EndPlot() without a BeginPlot() that returned true");
  setup_finish();
  g_plot.open = false;
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  ImDrawList* dl = window->DrawList;
  const ImGuiIO& io = ImGui::GetIO();
  PlotState& st = *g_plot.st;
  FrameStats& fs = detail::mutable_frame_stats();
  ++fs.plots_drawn;
  if (!g_plot.layout_ok) return;
  const PlotFlags flags = g_plot.flags;
  const bool log_x = flags & PlotFlags_LogX, log_y = flags & PlotFlags_LogY;
  for (int i = 0; i < g_plot.series_used; ++i) g_plot.series[i].hidden = contains(st.hidden, g_plot.series[i].label_id);
  const ImRect& f = g_plot.frame;
  ImRect& plot = g_plot.plot;  // narrowed below when the legend must go beside the plot
  const float line = ImGui::GetTextLineHeight();
  // Decide the legend's place on the plot's full width (what it had before a legend beside it).
  plot.Max.x += st.legend_reserve;
  st.legend_reserve = 0.0f;

  // X range: the user's, the set limits, or fit to the (visible) data.
  double dlo = HUGE_VAL, dhi = -HUGE_VAL;
  for (int i = 0; i < g_plot.series_used; ++i) {
    const PlotSeries& s = g_plot.series[i];
    double a, b;
    if (!s.hidden && s.kind != SeriesKind::VLine && s.n > 0 && x_extent(s.xs, s.n, log_x, &a, &b)) {
      dlo = std::min(dlo, a);
      dhi = std::max(dhi, b);
    }
  }
  const bool has_data = dlo <= dhi;
  if (!st.user_x && !g_plot.limits_applied)
    st.x = has_data ? fit_range(dlo, dhi, log_x, 0.0) : fit_range(0, 1, log_x, 0.0);
  if (log_x && !(st.x.lo > 0.0)) st.x = fit_range(has_data ? dlo : 1.0, has_data ? dhi : 10.0, true, 0.0);
  st.shown = true;

  // Decimate to the plot's width, then fit y to what is visible.
  AxisMap xm, ym;
  int points = 0;
  auto fit_data = [&]() {
    xm = AxisMap{st.x.lo, st.x.hi, log_x, plot.Min.x, plot.Max.x};
    const int pixels = std::max(1, static_cast<int>(plot.GetWidth()));
    double ylo = HUGE_VAL, yhi = -HUGE_VAL;
    points = 0;
    // Inclusive with a little slack: a log-x fit round-trips through log10/pow, so a point at
    // the data's end can sit a hair outside the range and would drop out of the y fit.
    const double slack = 1e-9 * std::max({std::abs(st.x.lo), std::abs(st.x.hi), 1.0});
    auto in_x = [&](double x) { return x >= st.x.lo - slack && x <= st.x.hi + slack; };
    for (int i = 0; i < g_plot.series_used; ++i) {
      PlotSeries& s = g_plot.series[i];
      s.line.clear();
      s.band.clear();
      if (s.hidden || s.n <= 0) continue;
      if (s.kind == SeriesKind::Line) {
        s.line = decimate_minmax(s.xs, s.ys, s.n, st.x.lo, st.x.hi, pixels, log_x, log_y);
        for (const DecimatedPoint& p : s.line)
          if (in_x(p.x)) ylo = std::min(ylo, p.y), yhi = std::max(yhi, p.y);
        points += static_cast<int>(s.line.size());
      } else if (s.kind == SeriesKind::Shaded) {
        s.band = decimate_band(s.xs, s.ylo, s.yhi, s.n, st.x.lo, st.x.hi, pixels, log_x, log_y);
        for (const DecimatedBandPoint& p : s.band)
          if (in_x(p.x)) ylo = std::min(ylo, p.lo), yhi = std::max(yhi, p.hi);
        points += static_cast<int>(s.band.size());
      }
    }
    AxisRange yr = g_plot.fixed_y ? g_plot.y_fixed
                                  : (ylo <= yhi ? fit_range(ylo, yhi, log_y, 0.06)
                                                : fit_range(log_y ? 1 : 0, log_y ? 10 : 1, log_y, 0.0));
    if (log_y && !(yr.lo > 0.0)) yr = fit_range(std::max(yr.hi * 1e-3, 1e-12), std::max(yr.hi, 1e-9), true, 0.0);
    ym = AxisMap{yr.lo, yr.hi, log_y, plot.Max.y, plot.Min.y};
  };
  fit_data();

  // The legend never covers data: the first corner with none under it, else beside the plot
  // (the plot narrows for it), unless the plot is too narrow to give up the room.
  detail::Legend legend;
  const ImVec2 lsize = (flags & PlotFlags_NoLegend) ? ImVec2(0.0f, 0.0f) : detail::legend_size();
  if (lsize.x > 0.0f) {
    legend.row_h = line;
    const auto corners = detail::legend_corners(plot, lsize);
    const bool fits = lsize.x + 12.0f < plot.GetWidth() && lsize.y + 12.0f < plot.GetHeight();
    legend.rect = corners[0];
    bool placed = false;
    for (const ImRect& c : corners)
      if (fits && !detail::data_under(c, xm, ym)) {
        legend.rect = c;
        placed = true;
        break;
      }
    if (!placed) {
      // Beside the plot, at most 40% of its width (labels elided beyond that) and no taller than
      // the frame below the plot's top (rows beyond it summed up as "+ N more").
      const float width = std::min(lsize.x, plot.GetWidth() * 0.4f), room = width + 10.0f;
      plot.Max.x -= room;
      st.legend_reserve = room;  // next frame's input maps the mouse on the narrower plot
      fit_data();
      const float pad_y = ImGui::GetStyle().FramePadding.y;
      const int entries = static_cast<int>(std::lround((lsize.y - 2.0f * pad_y) / line));
      const int rows = detail::legend_rows_fitting(entries, f.Max.y - plot.Min.y, line, pad_y);
      const float height = rows < entries ? 2.0f * pad_y + (rows + 1) * line : lsize.y;
      legend.max_rows = rows < entries ? rows : legend.max_rows;
      legend.rect =
          ImRect(ImVec2(plot.Max.x + 6.0f, plot.Min.y), ImVec2(plot.Max.x + 6.0f + width, plot.Min.y + height));
    }
  }

  // Axes.
  const int x_target = std::max(2, static_cast<int>(plot.GetWidth() / (ImGui::GetFontSize() * 5.5f)));
  const int y_target = std::max(2, static_cast<int>(plot.GetHeight() / (line * 2.5f)));
  const std::vector<AxisTick> xt = log_x                          ? log_ticks(xm.lo, xm.hi, x_target)
                                   : !g_plot.x_categories.empty() ? detail::fitting_category_ticks(xm, plot.GetWidth())
                                                                  : nice_ticks(xm.lo, xm.hi, x_target);
  const std::vector<AxisTick> yt = log_y ? log_ticks(ym.lo, ym.hi, y_target) : nice_ticks(ym.lo, ym.hi, y_target);
  st.y_tick_w = std::max(detail::max_tick_label_width(yt), ImGui::CalcTextSize("0.0").x);

  dl->AddRectFilled(plot.Min, plot.Max, detail::plot_bg_color());
  detail::draw_x_axis(dl, plot, xm, xt, true);
  detail::draw_y_axis(dl, plot, ym, yt, true);

  // Series: bands under lines, markers over them, then legend and hover.
  st.legend = legend.rect;
  st.legend_row_h = legend.row_h;
  st.legend_rows.clear();
  st.legend_left_out = 0;
  if (!(flags & PlotFlags_NoLegend))
    for (int i = 0; i < g_plot.series_used; ++i)
      if (detail::has_legend_entry(g_plot.series[i])) {
        if (static_cast<int>(st.legend_rows.size()) < legend.max_rows)
          st.legend_rows.push_back(g_plot.series[i].label_id);
        else ++st.legend_left_out;
      }
  const bool over_legend = g_plot.hovered && legend.rect.Contains(io.MousePos);
  const bool legend_inputs = over_legend && !(flags & PlotFlags_NoInputs);
  const int hot_row = legend_inputs ? detail::legend_row_at(legend, io.MousePos) : -1;
  const bool more_hot =
      legend_inputs && st.legend_left_out > 0 &&
      detail::legend_row_index(legend.rect, legend.row_h, io.MousePos) == static_cast<int>(st.legend_rows.size());
  if (more_hot) ImGui::SetTooltip("%d more series: click to list them, and hide or show each", st.legend_left_out);
  dl->PushClipRect(plot.Min, plot.Max, true);
  for (int i = 0; i < g_plot.series_used; ++i)
    if (g_plot.series[i].kind == SeriesKind::Shaded) detail::draw_band(dl, g_plot.series[i], xm, ym);
  for (int i = 0; i < g_plot.series_used; ++i)
    if (g_plot.series[i].kind == SeriesKind::Line) detail::draw_line(dl, g_plot.series[i], xm, ym);
  for (int i = 0; i < g_plot.series_used; ++i)
    if (g_plot.series[i].kind == SeriesKind::VLine && !g_plot.series[i].hidden)
      detail::draw_vline(dl, g_plot.series[i], plot, xm);
  if (g_plot.hovered && !(flags & PlotFlags_NoHover) && !st.panning && !over_legend && has_data &&
      io.MousePos.x >= plot.Min.x && io.MousePos.x <= plot.Max.x)
    detail::hover_tooltip(dl, plot, xm, ym, xm.from_pixel(io.MousePos.x));
  dl->PopClipRect();
  dl->AddRect(plot.Min, plot.Max, ImGui::GetColorU32(ImGuiCol_Border));
  detail::draw_legend(dl, legend, hot_row, more_hot);  // after the clip: it may sit beside the plot
  g_last_area = box_of(plot);
  g_last_legend = box_of(legend.rect);

  // Labels.
  const ImU32 tc = detail::text_color();
  for (std::size_t begin = 0, i = 0; begin < g_plot.title_shown.size(); ++i) {
    const std::size_t end = std::min(g_plot.title_shown.find('\n', begin), g_plot.title_shown.size());
    detail::draw_title(dl, f.Min.x, f.Max.x, plot.GetCenter().x, f.Min.y + 1.0f + line * static_cast<float>(i), tc,
                       g_plot.title_shown.c_str() + begin, g_plot.title_shown.c_str() + end);
    begin = end + 1;
  }
  if (!g_plot.x_label.empty()) {
    // Clear of the frame's bottom by the font's whole height (ImGui rounds its ascent and descent
    // outwards, past one line) and 3 pixels: set one line above it, a plot at a window's bottom edge
    // lost its label's descenders there, the underscore first ("head size d_p" read "head size d p").
    // Centred under the plot, kept inside the frame, and cut with "..." where wider than it.
    const ImFont* font = ImGui::GetFont();
    const float ink = std::max(line, (font->Ascent - font->Descent) * ImGui::GetFontSize() / font->FontSize);
    detail::draw_title(dl, f.Min.x, f.Max.x, plot.GetCenter().x, f.Max.y - ink - 3.0f, detail::text_color(0.8f),
                       g_plot.x_label.c_str());
  }
  if (const char* y_label = g_plot.y_label_shown)
    detail::AddTextVertical(
        dl, ImGui::GetFont(), ImGui::GetFontSize(),
        ImVec2(f.Min.x + 6.0f + line * 0.5f, plot.GetCenter().y - ImGui::CalcTextSize(y_label).x * 0.5f),
        detail::text_color(0.8f), y_label);
  if (ImGui::BeginPopupEx(g_plot.id, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar |
                                         ImGuiWindowFlags_NoSavedSettings)) {
    if (ImGui::MenuItem("Fit to data", "double-click")) st.user_x = false;
    if (ImGui::MenuItem("Show all series")) st.hidden.clear();
    if (ImGui::MenuItem("Export PNG"))
      request_panel_export(f.Min, f.Max, timestamped_png_name("", g_plot.title.empty() ? "plot" : g_plot.title));
    ImGui::EndPopup();
  }
  legend_more_popup(st, static_cast<int>(st.legend_rows.size()));

  if (g_plot.svg_out) {
    const int w = g_plot.svg_w > 0 ? g_plot.svg_w : static_cast<int>(f.GetWidth());
    const int h = g_plot.svg_h > 0 ? g_plot.svg_h : static_cast<int>(f.GetHeight());
    *g_plot.svg_out = render_svg(detail::capture_svg(st.x, AxisRange{ym.lo, ym.hi}), w, h);
    g_plot.svg_out = nullptr;
  }
  fs.plot_points += points;
}

}  // namespace headroom::widgets
