#include "widgets/line_plot.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "widgets/axis_ticks.h"
#include "widgets/decimate.h"
#include "widgets/draw_util.h"
#include "widgets/frame_stats.h"
#include "widgets/plot_math.h"
#include "widgets/png_export.h"

namespace headroom::widgets {
namespace {

enum class Kind { Line, Shaded };

struct Series {
  Kind kind = Kind::Line;
  const char* label = "";
  const float* xs = nullptr;
  const float* ys = nullptr;   // line
  const float* ylo = nullptr;  // band
  const float* yhi = nullptr;
  int n = 0;
  ImU32 color = 0;
  float thickness = 1.5f;
  ImGuiID label_id = 0;
  bool hidden = false;
  std::vector<DecimatedPoint> line;
  std::vector<DecimatedBandPoint> band;
};

struct PlotState {
  AxisRange x{0.0, 1.0};
  bool user_x = false;  // zoomed/panned: keep x; otherwise fit to data every frame
  PlotFlags last_flags = 0;
  float y_tick_w = 0.0f;  // widest y tick label last frame (layout needs it before ticks exist)
  std::vector<ImGuiID> hidden;
};

struct PlotContext {
  bool open = false;
  ImGuiID id = 0;
  std::string title;
  ImRect frame;
  std::string x_label, y_label;
  PlotFlags flags = 0;
  bool fixed_y = false;
  AxisRange y_fixed;
  std::vector<Series> series;
  int series_used = 0;
  int next_color = 0;
};

PlotContext g_plot;
std::unordered_map<ImGuiID, PlotState> g_states;

Series& add_series(const char* label, ImU32 color) {
  if (g_plot.series_used == static_cast<int>(g_plot.series.size())) g_plot.series.emplace_back();
  Series& s = g_plot.series[g_plot.series_used++];
  s.label = label ? label : "";
  s.color = color ? color : detail::palette_color(g_plot.next_color);
  ++g_plot.next_color;
  s.label_id = ImHashStr(s.label);
  return s;
}

bool contains(const std::vector<ImGuiID>& v, ImGuiID id) { return std::find(v.begin(), v.end(), id) != v.end(); }

void draw_band(ImDrawList* dl, const Series& s, const AxisMap& xm, const AxisMap& ym) {
  const ImU32 col = (s.color & ~IM_COL32_A_MASK) | (static_cast<ImU32>(64) << IM_COL32_A_SHIFT);
  for (size_t i = 1; i < s.band.size(); ++i) {
    const DecimatedBandPoint& a = s.band[i - 1];
    const DecimatedBandPoint& b = s.band[i];
    if (b.gap_before) continue;
    const float x0 = xm.to_pixel(a.x), x1 = xm.to_pixel(b.x);
    dl->AddQuadFilled(ImVec2(x0, ym.to_pixel(a.lo)), ImVec2(x1, ym.to_pixel(b.lo)),
                      ImVec2(x1, ym.to_pixel(b.hi)), ImVec2(x0, ym.to_pixel(a.hi)), col);
  }
}

void draw_line(ImDrawList* dl, const Series& s, const AxisMap& xm, const AxisMap& ym,
               std::vector<ImVec2>& scratch) {
  auto flush = [&]() {
    if (scratch.size() >= 2)
      dl->AddPolyline(scratch.data(), static_cast<int>(scratch.size()), s.color, 0, s.thickness);
    else if (scratch.size() == 1)
      dl->AddCircleFilled(scratch[0], s.thickness, s.color);
    scratch.clear();
  };
  scratch.clear();
  for (const DecimatedPoint& p : s.line) {
    if (p.gap_before) flush();
    scratch.emplace_back(xm.to_pixel(p.x), ym.to_pixel(p.y));
  }
  flush();
}

// Legend geometry: a box in the plot's top-right corner, one row per labeled series.
struct Legend {
  ImRect rect;
  float row_h = 0.0f;
};

Legend legend_layout(const ImRect& plot) {
  const ImGuiStyle& style = ImGui::GetStyle();
  Legend L;
  L.row_h = ImGui::GetTextLineHeight();
  float w = 0.0f;
  int rows = 0;
  for (int i = 0; i < g_plot.series_used; ++i) {
    const Series& s = g_plot.series[i];
    const char* end = detail::visible_text_end(s.label);
    if (end == s.label) continue;
    w = std::max(w, ImGui::CalcTextSize(s.label, end).x);
    ++rows;
  }
  if (rows == 0) return L;
  const ImVec2 pad = style.FramePadding;
  const ImVec2 size(pad.x * 2 + L.row_h * 1.2f + style.ItemInnerSpacing.x + w, pad.y * 2 + rows * L.row_h);
  L.rect = ImRect(ImVec2(plot.Max.x - size.x - 6.0f, plot.Min.y + 6.0f), ImVec2(plot.Max.x - 6.0f, plot.Min.y + 6.0f + size.y));
  return L;
}

// The labeled series under p (index into g_plot.series), or -1.
int legend_row_at(const Legend& L, const ImVec2& p) {
  if (!L.rect.Contains(p)) return -1;
  float y = L.rect.Min.y + ImGui::GetStyle().FramePadding.y;
  for (int i = 0; i < g_plot.series_used; ++i) {
    const Series& s = g_plot.series[i];
    if (detail::visible_text_end(s.label) == s.label) continue;
    if (p.y >= y && p.y < y + L.row_h) return i;
    y += L.row_h;
  }
  return -1;
}

void draw_legend(ImDrawList* dl, const Legend& L, const PlotState& st, int hot_row) {
  if (L.rect.GetWidth() <= 0.0f) return;
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 pad = style.FramePadding;
  const float line = L.row_h, swatch = line * 1.2f;
  dl->AddRectFilled(L.rect.Min, L.rect.Max, ImGui::GetColorU32(ImGuiCol_PopupBg, 0.85f), 3.0f);
  dl->AddRect(L.rect.Min, L.rect.Max, ImGui::GetColorU32(ImGuiCol_Border), 3.0f);
  float y = L.rect.Min.y + pad.y;
  for (int i = 0; i < g_plot.series_used; ++i) {
    const Series& s = g_plot.series[i];
    const char* end = detail::visible_text_end(s.label);
    if (end == s.label) continue;
    if (i == hot_row)
      dl->AddRectFilled(ImVec2(L.rect.Min.x, y), ImVec2(L.rect.Max.x, y + line), ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.5f));
    const bool hidden = contains(st.hidden, s.label_id);
    const ImU32 col = hidden ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : s.color;
    const float sx = L.rect.Min.x + pad.x, cy = y + line * 0.5f;
    if (s.kind == Kind::Line)
      dl->AddLine(ImVec2(sx, cy), ImVec2(sx + swatch, cy), col, 2.0f);
    else
      dl->AddRectFilled(ImVec2(sx, cy - line * 0.3f), ImVec2(sx + swatch, cy + line * 0.3f),
                        (col & ~IM_COL32_A_MASK) | (static_cast<ImU32>(110) << IM_COL32_A_SHIFT));
    dl->AddText(ImVec2(sx + swatch + style.ItemInnerSpacing.x, y),
                hidden ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : ImGui::GetColorU32(ImGuiCol_Text), s.label, end);
    y += line;
  }
}

void hover_tooltip(ImDrawList* dl, const ImRect& plot, const AxisMap& xm, const AxisMap& ym, double x) {
  const float px = xm.to_pixel(x);
  dl->AddLine(ImVec2(px, plot.Min.y), ImVec2(px, plot.Max.y), detail::text_color(0.45f));
  ImGui::BeginTooltip();
  const double span = std::fabs(xm.hi - xm.lo);
  const std::string xs = format_tick(x, xm.log ? x * 0.01 : span / 1000.0);
  ImGui::TextDisabled("%s %s", g_plot.x_label.empty() ? "x" : g_plot.x_label.c_str(), xs.c_str());
  const float h = ImGui::GetTextLineHeight();
  for (int k = 0; k < g_plot.series_used; ++k) {
    const Series& s = g_plot.series[k];
    if (s.hidden || s.n <= 0) continue;
    const int i = nearest_index(s.xs, s.n, x);
    const char* end = detail::visible_text_end(s.label);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p + ImVec2(0, h * 0.25f), p + ImVec2(h * 0.5f, h * 0.75f), s.color);
    ImGui::Dummy(ImVec2(h * 0.5f, h));
    ImGui::SameLine();
    const std::string name(s.label, end);
    if (s.kind == Kind::Line) {
      ImGui::Text("%s: %.5g", name.c_str(), static_cast<double>(s.ys[i]));
      const double sx = s.xs ? s.xs[i] : i;
      const ImVec2 q(xm.to_pixel(sx), ym.to_pixel(s.ys[i]));
      if (std::isfinite(s.ys[i]) && plot.Contains(q)) dl->AddCircleFilled(q, 3.5f, s.color);
    } else {
      ImGui::Text("%s: %.5g .. %.5g", name.c_str(), static_cast<double>(s.ylo[i]), static_cast<double>(s.yhi[i]));
    }
  }
  ImGui::EndTooltip();
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
  g_plot.flags = 0;
  g_plot.fixed_y = false;
  g_plot.series_used = 0;
  g_plot.next_color = 0;
  return true;
}

void SetupAxes(const char* x_label, const char* y_label, PlotFlags flags) {
  IM_ASSERT(g_plot.open && "SetupAxes() needs a BeginPlot() that returned true");
  g_plot.x_label = x_label ? x_label : "";
  g_plot.y_label = y_label ? y_label : "";
  g_plot.flags = flags;
}

void SetupAxisLimitsY(double lo, double hi) {
  IM_ASSERT(g_plot.open);
  g_plot.fixed_y = true;
  g_plot.y_fixed = {std::min(lo, hi), std::max(lo, hi)};
}

void PlotLine(const char* label, const float* xs, const float* ys, int n, ImU32 color, float thickness) {
  IM_ASSERT(g_plot.open && "PlotLine() needs a BeginPlot() that returned true");
  Series& s = add_series(label, color);
  s.kind = Kind::Line;
  s.xs = xs;
  s.ys = ys;
  s.n = ys ? std::max(0, n) : 0;
  s.thickness = thickness;
}

void PlotShaded(const char* label, const float* xs, const float* ylo, const float* yhi, int n, ImU32 color) {
  IM_ASSERT(g_plot.open && "PlotShaded() needs a BeginPlot() that returned true");
  Series& s = add_series(label, color);
  s.kind = Kind::Shaded;
  s.xs = xs;
  s.ylo = ylo;
  s.yhi = yhi;
  s.n = (ylo && yhi) ? std::max(0, n) : 0;
}

void EndPlot() {
  IM_ASSERT(g_plot.open && "EndPlot() without a BeginPlot() that returned true");
  g_plot.open = false;
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  ImDrawList* dl = window->DrawList;
  const ImGuiIO& io = ImGui::GetIO();
  PlotState& st = g_states[g_plot.id];
  FrameStats& fs = detail::mutable_frame_stats();
  ++fs.plots_drawn;
  const PlotFlags flags = g_plot.flags;
  const bool log_x = flags & PlotFlags_LogX, log_y = flags & PlotFlags_LogY;
  if ((st.last_flags ^ flags) & PlotFlags_LogX) st.user_x = false;
  st.last_flags = flags;
  for (int i = 0; i < g_plot.series_used; ++i)
    g_plot.series[i].hidden = contains(st.hidden, g_plot.series[i].label_id);

  // Layout: title, y label + tick labels on the left, tick labels + x label below.
  const float line = ImGui::GetTextLineHeight();
  const ImRect& f = g_plot.frame;
  if (st.y_tick_w <= 0.0f) st.y_tick_w = ImGui::CalcTextSize("0.000").x;
  const float left = 6.0f + (g_plot.y_label.empty() ? 0.0f : line + 4.0f) + st.y_tick_w + 8.0f;
  const float top = g_plot.title.empty() ? line * 0.5f : line + 6.0f;
  const float bottom = line + 9.0f + (g_plot.x_label.empty() ? 0.0f : line + 2.0f);
  const ImRect plot(ImVec2(std::floor(f.Min.x + left), std::floor(f.Min.y + top)),
                    ImVec2(std::floor(f.Max.x - 10.0f), std::floor(f.Max.y - bottom)));
  if (plot.GetWidth() < 8.0f || plot.GetHeight() < 8.0f) return;

  // X range: fit to the data unless the user zoomed/panned.
  double dlo = HUGE_VAL, dhi = -HUGE_VAL;
  for (int i = 0; i < g_plot.series_used; ++i) {
    const Series& s = g_plot.series[i];
    double a, b;
    if (!s.hidden && s.n > 0 && x_extent(s.xs, s.n, log_x, &a, &b)) {
      dlo = std::min(dlo, a);
      dhi = std::max(dhi, b);
    }
  }
  const bool has_data = dlo <= dhi;
  if (!st.user_x) st.x = has_data ? fit_range(dlo, dhi, log_x, 0.0) : fit_range(0, 1, log_x, 0.0);
  if (log_x && !(st.x.lo > 0.0)) st.x = fit_range(has_data ? dlo : 1.0, has_data ? dhi : 10.0, true, 0.0);

  // Input. The legend takes clicks first (toggling series); elsewhere wheel zooms,
  // drag pans and double-click fits.
  const bool inputs = !(flags & PlotFlags_NoInputs);
  const bool hovered = ImGui::ItemHoverable(plot, g_plot.id);
  const Legend legend = (flags & PlotFlags_NoLegend) ? Legend{} : legend_layout(plot);
  const int legend_row = hovered && inputs ? legend_row_at(legend, io.MousePos) : -1;
  const bool over_legend = legend.rect.Contains(io.MousePos);
  if (legend_row >= 0 && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    const ImGuiID lid = g_plot.series[legend_row].label_id;
    auto it = std::find(st.hidden.begin(), st.hidden.end(), lid);
    if (it == st.hidden.end()) st.hidden.push_back(lid); else st.hidden.erase(it);
    for (int i = 0; i < g_plot.series_used; ++i)
      g_plot.series[i].hidden = contains(st.hidden, g_plot.series[i].label_id);
  }
  AxisMap xm{st.x.lo, st.x.hi, log_x, plot.Min.x, plot.Max.x};
  if (inputs && hovered && !over_legend) {
    ImGui::SetItemUsingMouseWheel();
    if (io.MouseWheel != 0.0f) {
      st.x = zoom_range(st.x, xm.from_pixel(io.MousePos.x), std::pow(0.8, io.MouseWheel), log_x);
      st.user_x = true;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
      st.user_x = false;
      if (has_data) st.x = fit_range(dlo, dhi, log_x, 0.0);
    } else if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      ImGui::SetActiveID(g_plot.id, window);
      ImGui::FocusWindow(window);
    }
    if (ImGui::IsMouseReleased(ImGuiMouseButton_Right)) ImGui::OpenPopupEx(g_plot.id);
  }
  const bool dragging = inputs && ImGui::GetActiveID() == g_plot.id;
  if (dragging) {
    if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      // Not on the press frame: a jump of the pointer onto the plot is not a drag.
      if (io.MouseDelta.x != 0.0f && !ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        st.x = pan_range(st.x, io.MouseDelta.x, plot.GetWidth(), log_x);
        st.user_x = true;
      }
    } else {
      ImGui::ClearActiveID();
    }
  }
  xm = AxisMap{st.x.lo, st.x.hi, log_x, plot.Min.x, plot.Max.x};

  // Decimate, then fit y to what is visible.
  const int pixels = std::max(1, static_cast<int>(plot.GetWidth()));
  double ylo = HUGE_VAL, yhi = -HUGE_VAL;
  int points = 0;
  for (int i = 0; i < g_plot.series_used; ++i) {
    Series& s = g_plot.series[i];
    s.line.clear();
    s.band.clear();
    if (s.hidden || s.n <= 0) continue;
    if (s.kind == Kind::Line) {
      s.line = decimate_minmax(s.xs, s.ys, s.n, st.x.lo, st.x.hi, pixels, log_x, log_y);
      for (const DecimatedPoint& p : s.line)
        if (p.x >= st.x.lo && p.x <= st.x.hi) ylo = std::min(ylo, p.y), yhi = std::max(yhi, p.y);
      points += static_cast<int>(s.line.size());
    } else {
      s.band = decimate_band(s.xs, s.ylo, s.yhi, s.n, st.x.lo, st.x.hi, pixels, log_x, log_y);
      for (const DecimatedBandPoint& p : s.band)
        if (p.x >= st.x.lo && p.x <= st.x.hi) ylo = std::min(ylo, p.lo), yhi = std::max(yhi, p.hi);
      points += static_cast<int>(s.band.size());
    }
  }
  AxisRange yr = g_plot.fixed_y ? g_plot.y_fixed
                 : (ylo <= yhi ? fit_range(ylo, yhi, log_y, 0.06) : fit_range(log_y ? 1 : 0, log_y ? 10 : 1, log_y, 0.0));
  if (log_y && !(yr.lo > 0.0)) yr = fit_range(std::max(yr.hi * 1e-3, 1e-12), std::max(yr.hi, 1e-9), true, 0.0);
  const AxisMap ym{yr.lo, yr.hi, log_y, plot.Max.y, plot.Min.y};

  // Axes.
  const int x_target = std::max(2, static_cast<int>(plot.GetWidth() / (ImGui::GetFontSize() * 5.5f)));
  const int y_target = std::max(2, static_cast<int>(plot.GetHeight() / (line * 2.5f)));
  const std::vector<AxisTick> xt = log_x ? log_ticks(xm.lo, xm.hi, x_target) : nice_ticks(xm.lo, xm.hi, x_target);
  const std::vector<AxisTick> yt = log_y ? log_ticks(ym.lo, ym.hi, y_target) : nice_ticks(ym.lo, ym.hi, y_target);
  st.y_tick_w = std::max(detail::max_tick_label_width(yt), ImGui::CalcTextSize("0.0").x);

  dl->AddRectFilled(plot.Min, plot.Max, detail::plot_bg_color());
  detail::draw_x_axis(dl, plot, xm, xt, true);
  detail::draw_y_axis(dl, plot, ym, yt, true);

  dl->PushClipRect(plot.Min, plot.Max, true);
  for (int i = 0; i < g_plot.series_used; ++i)
    if (g_plot.series[i].kind == Kind::Shaded) draw_band(dl, g_plot.series[i], xm, ym);
  static std::vector<ImVec2> scratch;
  for (int i = 0; i < g_plot.series_used; ++i)
    if (g_plot.series[i].kind == Kind::Line) draw_line(dl, g_plot.series[i], xm, ym, scratch);
  draw_legend(dl, legend, st, legend_row);
  if (hovered && !(flags & PlotFlags_NoHover) && !dragging && !over_legend && has_data)
    hover_tooltip(dl, plot, xm, ym, xm.from_pixel(io.MousePos.x));
  dl->PopClipRect();
  dl->AddRect(plot.Min, plot.Max, ImGui::GetColorU32(ImGuiCol_Border));

  // Labels.
  const ImU32 tc = detail::text_color();
  if (!g_plot.title.empty())
    detail::draw_title(dl, f.Min.x, f.Max.x, plot.GetCenter().x, f.Min.y + 1.0f, tc, g_plot.title.c_str());
  if (!g_plot.x_label.empty()) {
    const ImVec2 sz = ImGui::CalcTextSize(g_plot.x_label.c_str());
    dl->AddText(ImVec2(plot.GetCenter().x - sz.x * 0.5f, f.Max.y - line - 1.0f), detail::text_color(0.8f), g_plot.x_label.c_str());
  }
  if (!g_plot.y_label.empty() && ImGui::CalcTextSize(g_plot.y_label.c_str()).x <= plot.GetHeight())
    detail::AddTextVertical(dl, ImGui::GetFont(), ImGui::GetFontSize(),
                            ImVec2(f.Min.x + 6.0f + line * 0.5f,
                                   plot.GetCenter().y - ImGui::CalcTextSize(g_plot.y_label.c_str()).x * 0.5f),
                            detail::text_color(0.8f), g_plot.y_label.c_str());
  if (ImGui::BeginPopupEx(g_plot.id, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings)) {
    if (ImGui::MenuItem("Fit to data", "double-click")) st.user_x = false;
    if (ImGui::MenuItem("Show all series")) st.hidden.clear();
    if (ImGui::MenuItem("Export PNG"))
      request_panel_export(f.Min, f.Max, timestamped_png_name("", g_plot.title.empty() ? "plot" : g_plot.title));
    ImGui::EndPopup();
  }

  fs.plot_points += points;
}

}  // namespace headroom::widgets
