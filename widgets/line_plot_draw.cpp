// Drawing helpers of line_plot: series, markers, legend, hover tooltip, SVG capture.
#include <algorithm>
#include <cmath>
#include <string>

#include "widgets/axis_ticks.h"
#include "widgets/draw_util.h"
#include "widgets/line_plot_internal.h"
#include "widgets/text_wrap.h"

namespace headroom::widgets::detail {
bool has_legend_entry(const PlotSeries& s) { return visible_text_end(s.label) != s.label; }

namespace {

ImU32 with_alpha(ImU32 c, int a) { return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(a) << IM_COL32_A_SHIFT); }

}  // namespace

void draw_band(ImDrawList* dl, const PlotSeries& s, const AxisMap& xm, const AxisMap& ym) {
  const ImU32 col = with_alpha(s.color, 64);
  // Adjacent quads tile the band, so anti-aliased fringes would only add (many) triangles and
  // overdraw their shared edges; a software rasterizer (Xvfb) pays for every one of them.
  const ImDrawListFlags flags = dl->Flags;
  dl->Flags &= ~ImDrawListFlags_AntiAliasedFill;
  for (size_t i = 1; i < s.band.size(); ++i) {
    const DecimatedBandPoint& a = s.band[i - 1];
    const DecimatedBandPoint& b = s.band[i];
    if (b.gap_before) continue;
    const float x0 = xm.to_pixel(a.x), x1 = xm.to_pixel(b.x);
    dl->AddQuadFilled(ImVec2(x0, ym.to_pixel(a.lo)), ImVec2(x1, ym.to_pixel(b.lo)), ImVec2(x1, ym.to_pixel(b.hi)),
                      ImVec2(x0, ym.to_pixel(a.hi)), col);
  }
  dl->Flags = flags;
}

void draw_line(ImDrawList* dl, const PlotSeries& s, const AxisMap& xm, const AxisMap& ym) {
  static std::vector<ImVec2> scratch;
  auto flush = [&]() {
    if (scratch.size() >= 2) dl->AddPolyline(scratch.data(), static_cast<int>(scratch.size()), s.color, 0, s.thickness);
    else if (scratch.size() == 1) dl->AddCircleFilled(scratch[0], s.thickness, s.color);
    scratch.clear();
  };
  scratch.clear();
  for (const DecimatedPoint& p : s.line) {
    if (p.gap_before) flush();
    scratch.emplace_back(xm.to_pixel(p.x), ym.to_pixel(p.y));
  }
  flush();
  if (s.marker_radius > 0.0f)
    for (const DecimatedPoint& p : s.line)
      dl->AddCircleFilled(ImVec2(xm.to_pixel(p.x), ym.to_pixel(p.y)), s.marker_radius, s.color);
}

void draw_vline(ImDrawList* dl, const PlotSeries& s, const ImRect& plot, const AxisMap& xm) {
  if (!(s.vx >= std::min(xm.lo, xm.hi) && s.vx <= std::max(xm.lo, xm.hi))) return;
  const float x = std::round(xm.to_pixel(s.vx)) + 0.5f;
  dl->AddLine(ImVec2(x, plot.Min.y), ImVec2(x, plot.Max.y), s.color, 1.5f);
}

ImVec2 legend_size() {
  const PlotContext& g = plot_context();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float row_h = ImGui::GetTextLineHeight();
  float w = 0.0f;
  int rows = 0;
  for (int i = 0; i < g.series_used; ++i) {
    const PlotSeries& s = g.series[i];
    if (!has_legend_entry(s)) continue;
    w = std::max(w, ImGui::CalcTextSize(s.label, visible_text_end(s.label)).x);
    ++rows;
  }
  if (rows == 0) return ImVec2(0.0f, 0.0f);
  const ImVec2 pad = style.FramePadding;
  return ImVec2(pad.x * 2 + row_h * 1.2f + style.ItemInnerSpacing.x + w, pad.y * 2 + rows * row_h);
}

int legend_rows_fitting(int entries, float height, float row_h, float pad_y) {
  const int fit = row_h > 0.0f ? static_cast<int>((height - 2.0f * pad_y) / row_h) : entries;
  if (entries <= fit) return entries;
  return std::max(1, fit - 1);
}

std::vector<ImRect> legend_corners(const ImRect& plot, const ImVec2& size) {
  constexpr float m = 6.0f;  // margin from the plot's edges
  const float l = plot.Min.x + m, r = plot.Max.x - m - size.x, t = plot.Min.y + m, b = plot.Max.y - m - size.y;
  auto box = [&](float x, float y) { return ImRect(ImVec2(x, y), ImVec2(x + size.x, y + size.y)); };
  return {box(r, t), box(l, t), box(r, b), box(l, b)};
}

bool segment_hits_rect(const ImVec2& a, const ImVec2& b, const ImRect& r) {
  if (r.Contains(a) || r.Contains(b)) return true;
  double t0, t1;
  return clip_segment(a.x, a.y, b.x, b.y, r.Min.x, r.Min.y, r.Max.x, r.Max.y, &t0, &t1);
}

bool data_under(const ImRect& r, const AxisMap& xm, const AxisMap& ym) {
  const PlotContext& g = plot_context();
  // A few pixels of air around the box: a line grazing its edge still reads as covered.
  ImRect box = r;
  box.Expand(3.0f);
  for (int i = 0; i < g.series_used; ++i) {
    const PlotSeries& s = g.series[i];
    if (s.hidden) continue;
    if (s.kind == SeriesKind::VLine) {
      if (!(s.vx >= std::min(xm.lo, xm.hi) && s.vx <= std::max(xm.lo, xm.hi))) continue;
      const float x = xm.to_pixel(s.vx);
      if (x >= box.Min.x && x <= box.Max.x) return true;
      continue;
    }
    if (s.kind == SeriesKind::Line) {
      ImVec2 prev;
      bool have_prev = false;
      for (const DecimatedPoint& p : s.line) {
        const ImVec2 q(xm.to_pixel(p.x), ym.to_pixel(p.y));
        if (have_prev && !p.gap_before ? segment_hits_rect(prev, q, box) : box.Contains(q)) return true;
        if (s.marker_radius > 0.0f && box.Contains(q)) return true;
        prev = q;
        have_prev = true;
      }
    } else if (s.kind == SeriesKind::Shaded) {
      ImVec2 plo, phi;
      bool have_prev = false;
      for (const DecimatedBandPoint& p : s.band) {
        const ImVec2 lo(xm.to_pixel(p.x), ym.to_pixel(p.lo)), hi(xm.to_pixel(p.x), ym.to_pixel(p.hi));
        // The band's vertical extent at this x, and its two edges since the last point.
        if (segment_hits_rect(lo, hi, box)) return true;
        if (have_prev && !p.gap_before && (segment_hits_rect(plo, lo, box) || segment_hits_rect(phi, hi, box)))
          return true;
        plo = lo, phi = hi;
        have_prev = true;
      }
    }
  }
  return false;
}

int legend_row_at(const Legend& L, const ImVec2& p) {
  const PlotContext& g = plot_context();
  if (!L.rect.Contains(p)) return -1;
  float y = L.rect.Min.y + ImGui::GetStyle().FramePadding.y;
  int row = 0;
  for (int i = 0; i < g.series_used && row < L.max_rows; ++i) {
    const PlotSeries& s = g.series[i];
    if (!has_legend_entry(s)) continue;
    if (p.y >= y && p.y < y + L.row_h) return i;
    y += L.row_h;
    ++row;
  }
  return -1;
}

int legend_row_index(const ImRect& rect, float row_h, const ImVec2& p) {
  if (!rect.Contains(p)) return -1;
  // The top padding counts as the first row (the cast truncates towards zero).
  return static_cast<int>((p.y - rect.Min.y - ImGui::GetStyle().FramePadding.y) / std::max(row_h, 1.0f));
}

void draw_legend(ImDrawList* dl, const Legend& L, int hot_row, bool more_hot) {
  const PlotContext& g = plot_context();
  if (L.rect.GetWidth() <= 0.0f) return;
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 pad = style.FramePadding;
  const float line = L.row_h, swatch = line * 1.2f;
  dl->AddRectFilled(L.rect.Min, L.rect.Max, ImGui::GetColorU32(ImGuiCol_PopupBg, 0.85f), 3.0f);
  dl->AddRect(L.rect.Min, L.rect.Max, ImGui::GetColorU32(ImGuiCol_Border), 3.0f);
  float y = L.rect.Min.y + pad.y;
  int row = 0, left_out = 0;
  for (int i = 0; i < g.series_used; ++i) {
    const PlotSeries& s = g.series[i];
    if (!has_legend_entry(s)) continue;
    if (row++ >= L.max_rows) {
      ++left_out;
      continue;
    }
    const char* end = visible_text_end(s.label);
    if (i == hot_row)
      dl->AddRectFilled(ImVec2(L.rect.Min.x, y), ImVec2(L.rect.Max.x, y + line),
                        ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.5f));
    const ImU32 col = s.hidden ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : s.color;
    const float sx = L.rect.Min.x + pad.x, cy = y + line * 0.5f;
    switch (s.kind) {
      case SeriesKind::Line: dl->AddLine(ImVec2(sx, cy), ImVec2(sx + swatch, cy), col, 2.0f); break;
      case SeriesKind::Shaded:
        dl->AddRectFilled(ImVec2(sx, cy - line * 0.3f), ImVec2(sx + swatch, cy + line * 0.3f), with_alpha(col, 110));
        break;
      case SeriesKind::VLine:
        dl->AddLine(ImVec2(sx + swatch * 0.5f, y + 1.0f), ImVec2(sx + swatch * 0.5f, y + line - 1.0f), col, 2.0f);
        break;
    }
    const float tx = sx + swatch + style.ItemInnerSpacing.x, room = L.rect.Max.x - pad.x - tx;
    const ImU32 text_col = s.hidden ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : ImGui::GetColorU32(ImGuiCol_Text);
    if (ImGui::CalcTextSize(s.label, end).x <= room + 0.5f) {
      dl->AddText(ImVec2(tx, y), text_col, s.label, end);
    } else {  // a narrowed legend: the label elided in its middle, so that runs' names that differ at
              // their ends ("...,seed=3") stay apart (the hover tooltip names the series in full)
      const std::string shown = elide_middle(std::string_view(s.label, static_cast<size_t>(end - s.label)), room);
      dl->AddText(ImVec2(tx, y), text_col, shown.c_str());
    }
    y += line;
  }
  if (left_out > 0) {
    if (more_hot)
      dl->AddRectFilled(ImVec2(L.rect.Min.x, y), ImVec2(L.rect.Max.x, y + line),
                        ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.5f));
    const std::string more = "+ " + std::to_string(left_out) + " more";
    dl->AddText(ImVec2(L.rect.Min.x + pad.x, y), ImGui::GetColorU32(more_hot ? ImGuiCol_Text : ImGuiCol_TextDisabled),
                more.c_str());
  }
}

std::vector<AxisTick> fitting_category_ticks(const AxisMap& xm, float plot_width) {
  const PlotContext& g = plot_context();
  float widest = 0.0f;
  for (const std::string& name : g.x_categories) widest = std::max(widest, ImGui::CalcTextSize(name.c_str()).x);
  const float slot = widest + ImGui::GetFontSize();  // a name and a gap
  return category_ticks(xm.lo, xm.hi, g.x_categories, std::max(1, static_cast<int>(plot_width / slot)));
}

void hover_tooltip(ImDrawList* dl, const ImRect& plot, const AxisMap& xm, const AxisMap& ym, double x) {
  const PlotContext& g = plot_context();
  const float px = xm.to_pixel(x);
  dl->AddLine(ImVec2(px, plot.Min.y), ImVec2(px, plot.Max.y), text_color(0.45f));
  ImGui::BeginTooltip();
  const double span = std::fabs(xm.hi - xm.lo);
  const long nearest = std::lround(x);
  const bool category = !xm.log && nearest >= 0 && nearest < static_cast<long>(g.x_categories.size());
  const std::string xs =
      category ? g.x_categories[static_cast<size_t>(nearest)] : format_tick(x, xm.log ? x * 0.01 : span / 1000.0);
  ImGui::TextDisabled("%s %s", g.x_label.empty() ? "x" : g.x_label.c_str(), xs.c_str());
  const float h = ImGui::GetTextLineHeight();
  for (int k = 0; k < g.series_used; ++k) {
    const PlotSeries& s = g.series[k];
    // A series without a legend entry ("##zero", a guide line) has no name to show either.
    if (s.hidden || s.n <= 0 || s.kind == SeriesKind::VLine || !has_legend_entry(s)) continue;
    const int i = nearest_index(s.xs, s.n, x);
    const char* end = visible_text_end(s.label);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p + ImVec2(0, h * 0.25f), p + ImVec2(h * 0.5f, h * 0.75f), s.color);
    ImGui::Dummy(ImVec2(h * 0.5f, h));
    ImGui::SameLine();
    const std::string name(s.label, end);
    if (s.kind == SeriesKind::Line) {
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

SvgPlot capture_svg(const AxisRange& x, const AxisRange& y) {
  const PlotContext& g = plot_context();
  SvgPlot out;
  out.title = g.title;
  out.x_label = g.x_label;
  out.x_categories = g.x_categories;
  out.y_label = g.y_label;
  out.log_x = g.flags & PlotFlags_LogX;
  out.log_y = g.flags & PlotFlags_LogY;
  out.x_min = x.lo;
  out.x_max = x.hi;
  out.y_min = y.lo;
  out.y_max = y.hi;
  for (int k = 0; k < g.series_used; ++k) {
    const PlotSeries& s = g.series[k];
    if (s.hidden) continue;
    if (s.kind == SeriesKind::VLine) {
      out.vlines.emplace_back(s.vx, s.color);
      continue;
    }
    if (s.n <= 0) continue;
    SvgPlot::Series o;
    o.label.assign(s.label, visible_text_end(s.label));
    o.color = s.color;
    o.thickness = s.thickness;
    // The samples inside the range plus two on each side (lines run to the border).
    const int i0 = std::max(0, nearest_index(s.xs, s.n, x.lo) - 2);
    const int i1 = std::min(s.n, nearest_index(s.xs, s.n, x.hi) + 3);
    for (int i = i0; i < i1; ++i) {
      o.xs.push_back(s.xs ? static_cast<double>(s.xs[i]) : static_cast<double>(i));
      if (s.kind == SeriesKind::Line) {
        o.ys.push_back(s.ys[i]);
      } else {
        o.ylo.push_back(s.ylo[i]);
        o.yhi.push_back(s.yhi[i]);
      }
    }
    out.series.push_back(std::move(o));
  }
  return out;
}

}  // namespace headroom::widgets::detail
