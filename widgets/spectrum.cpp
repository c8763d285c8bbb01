#include "widgets/spectrum.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#include <string>

#include "widgets/axis_ticks.h"
#include "widgets/draw_util.h"
#include "widgets/frame_stats.h"
#include "widgets/plot_math.h"
#include "widgets/png_export.h"

namespace headroom::widgets {
namespace {

// A marker label with a translucent background at the top of the plot, placed to the
// right of x (or to the left when `left`), kept inside the plot.
// Returns the rectangle it covered, so a second label can avoid it.
// Where marker_label puts its box: beside x (left or right of it), inside the plot.
ImRect label_rect(const ImRect& plot, float x, float y, const char* text, bool left) {
  const ImVec2 sz = ImGui::CalcTextSize(text);
  float tx = left ? x - sz.x - 5.0f : x + 5.0f;
  tx = std::clamp(tx, plot.Min.x + 2.0f, plot.Max.x - sz.x - 2.0f);
  return ImRect(ImVec2(tx - 2, y - 1), ImVec2(tx + sz.x + 2, y + sz.y + 1));
}

ImRect marker_label(ImDrawList* dl, const ImRect& plot, float x, float y, const char* text, ImU32 col, bool left,
                    const ImRect* avoid = nullptr) {
  ImRect r = label_rect(plot, x, y, text, left);
  if (avoid && r.Overlaps(*avoid)) r.Translate(ImVec2(0.0f, avoid->Max.y - r.Min.y + 1.0f));  // next line down
  dl->AddRectFilled(r.Min, r.Max, ImGui::GetColorU32(ImGuiCol_WindowBg, 0.8f), 2.0f);
  dl->AddText(ImVec2(r.Min.x + 2, r.Min.y + 1), col, text);
  return r;
}

}  // namespace

int SpectrumBars(const char* title_id, const float* sv, int n, int rank, int cap, const ImVec2& size,
                 const SpectrumStyle& style) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return -1;
  const ImGuiID id = window->GetID(title_id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 sz = size;
  if (sz.x <= 0.0f) sz.x = std::max(avail.x + sz.x, 120.0f);
  if (sz.y == 0.0f) sz.y = ImGui::GetFontSize() * 14.0f;
  else if (sz.y < 0.0f) sz.y = std::max(avail.y + sz.y, 100.0f);
  const ImRect f(window->DC.CursorPos, window->DC.CursorPos + sz);
  ImGui::ItemSize(f);
  if (!ImGui::ItemAdd(f, id)) return -1;
  ++detail::mutable_frame_stats().plots_drawn;

  ImDrawList* dl = window->DrawList;
  const float line = ImGui::GetTextLineHeight();
  const char* title_end = detail::visible_text_end(title_id);
  const bool has_title = title_end != title_id;
  const bool log_y = style.log_y;

  // Y range over the valid values.
  float vmax = 0.0f, vmin_pos = HUGE_VALF;
  for (int i = 0; i < n; ++i) {
    const float v = sv ? sv[i] : NAN;
    if (!std::isfinite(v) || v < 0.0f) continue;
    vmax = std::max(vmax, v);
    if (v > 0.0f) vmin_pos = std::min(vmin_pos, v);
  }
  AxisRange yr;
  if (log_y) {
    const double top = vmax > 0.0f ? vmax : 1.0;
    const double bottom = vmin_pos <= vmax ? std::max<double>(vmin_pos, top * 1e-8) : top * 1e-3;
    yr = fit_range(bottom, top, true, 0.06);
  } else {
    yr = {0.0, vmax > 0.0f ? vmax * 1.08 : 1.0};
  }
  const int last = std::max({n, cap, rank, 1});
  const double x_hi = last + 0.5;

  const std::vector<AxisTick> yt_probe = log_y ? log_ticks(yr.lo, yr.hi, 4) : nice_ticks(yr.lo, yr.hi, 4);
  const float ytw = std::max(detail::max_tick_label_width(yt_probe), ImGui::CalcTextSize("0.0").x);
  const float top = has_title ? line + 6.0f : line * 0.5f;
  const float bottom = line + 9.0f + (style.x_label ? line + 2.0f : 0.0f);
  const char* y_label = detail::fitting_y_label(style.y_label, style.y_label_short, std::floor(sz.y - top - bottom));
  const float left = 6.0f + (y_label ? line + 4.0f : 0.0f) + ytw + 8.0f;
  const ImRect plot(ImVec2(std::floor(f.Min.x + left), std::floor(f.Min.y + top)),
                    ImVec2(std::floor(f.Max.x - 10.0f), std::floor(f.Max.y - bottom)));
  if (plot.GetWidth() < 8.0f || plot.GetHeight() < 8.0f) return -1;

  const AxisMap xm{0.5, x_hi, false, plot.Min.x, plot.Max.x};
  const AxisMap ym{yr.lo, yr.hi, log_y, plot.Max.y, plot.Min.y};
  const int y_target = std::max(2, static_cast<int>(plot.GetHeight() / (line * 2.5f)));
  const std::vector<AxisTick> yt = log_y ? log_ticks(yr.lo, yr.hi, y_target) : nice_ticks(yr.lo, yr.hi, y_target);
  std::vector<AxisTick> xt;
  for (AxisTick& t : nice_ticks(1.0, last, std::max(2, static_cast<int>(plot.GetWidth() / (line * 3.5f)))))
    if (std::fabs(t.value - std::round(t.value)) < 1e-9) xt.push_back(t);

  dl->AddRectFilled(plot.Min, plot.Max, detail::plot_bg_color());
  detail::draw_x_axis(dl, plot, xm, xt, false);
  detail::draw_y_axis(dl, plot, ym, yt, true);
  dl->PushClipRect(plot.Min, plot.Max, true);

  // Deficit region first, under the bars.
  const ImU32 deficit_col = IM_COL32(230, 80, 60, 255);
  if (rank >= 0 && cap > rank) {
    const float x0 = xm.to_pixel(rank + 0.5), x1 = xm.to_pixel(cap + 0.5);
    dl->AddRectFilled(ImVec2(x0, plot.Min.y), ImVec2(x1, plot.Max.y),
                      (deficit_col & ~IM_COL32_A_MASK) | (38u << IM_COL32_A_SHIFT));
  }

  const ImGuiIO& io = ImGui::GetIO();
  const bool hovered = ImGui::ItemHoverable(plot, id);
  int hot = -1;
  if (hovered) {
    const int i = static_cast<int>(std::lround(xm.from_pixel(io.MousePos.x))) - 1;
    if (i >= 0 && i < n) hot = i;
  }
  const ImU32 bar = style.bar_color ? style.bar_color : detail::accent_color();
  const ImU32 tail = style.tail_color ? style.tail_color : ImGui::GetColorU32(ImGuiCol_TextDisabled, 0.8f);
  const float slot = plot.GetWidth() / static_cast<float>(x_hi - 0.5);
  const float half = std::max(0.5f, slot * (slot > 6.0f ? 0.36f : 0.5f));
  for (int i = 0; i < n && sv; ++i) {
    const float v = sv[i];
    if (!std::isfinite(v) || v < 0.0f || (log_y && !(v > 0.0f))) continue;
    const float cx = xm.to_pixel(i + 1.0);
    const float y = std::max(ym.to_pixel(v), plot.Min.y);
    ImU32 col = (rank < 0 || i < rank) ? bar : tail;
    if (i == hot) col = ImGui::GetColorU32(ImGuiCol_Text);
    dl->AddRectFilled(ImVec2(cx - half, y), ImVec2(cx + half, plot.Max.y), col);
  }
  if (style.tolerance > 0.0f && (!log_y || style.tolerance > yr.lo)) {
    const float y = ym.to_pixel(style.tolerance);
    for (float x = plot.Min.x; x < plot.Max.x; x += 8.0f)
      dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + 5.0f, plot.Max.x), y), detail::text_color(0.6f));
  }

  // Markers: rank dashed (label on its left), cap solid (label on its right).
  char text[64];
  const ImU32 rank_col = ImGui::GetColorU32(ImGuiCol_Text, 0.9f);
  std::vector<ImRect> labels;  // what the tolerance's label must not cover
  ImRect rank_rect;
  const ImRect* rank_label = nullptr;
  if (rank >= 0) {
    const float x = std::round(xm.to_pixel(rank + 0.5)) + 0.5f;
    detail::dashed_vline(dl, x, plot.Min.y, plot.Max.y, rank_col, 1.5f);
    std::snprintf(text, sizeof text, "rank %d", rank);
    rank_rect = marker_label(dl, plot, x, plot.Min.y + 3.0f, text, rank_col, true);
    rank_label = &rank_rect;
    labels.push_back(rank_rect);
  }
  if (cap >= 0) {
    const float x = std::round(xm.to_pixel(cap + 0.5)) + 0.5f;
    dl->AddLine(ImVec2(x, plot.Min.y), ImVec2(x, plot.Max.y), deficit_col, 2.0f);
    std::snprintf(text, sizeof text, "cap %d", cap);
    const ImRect cap_rect = marker_label(dl, plot, x, plot.Min.y + 3.0f, text, deficit_col, false, rank_label);
    labels.push_back(cap_rect);
    if (rank >= 0 && cap > rank) {
      // Below the cap, not "deficit": the lab's deficit is n - rank, what the cap itself costs.
      std::snprintf(text, sizeof text, "%d below cap", cap - rank);
      const float mid = 0.5f * (xm.to_pixel(rank + 0.5) + xm.to_pixel(cap + 0.5));
      const ImVec2 ts = ImGui::CalcTextSize(text);
      if (ts.x < xm.to_pixel(cap + 0.5) - xm.to_pixel(rank + 0.5)) {
        const ImVec2 at(mid - ts.x * 0.5f, plot.Min.y + line * 1.5f);
        dl->AddText(at, deficit_col, text);
        labels.emplace_back(at, at + ts);
      } else {
        labels.push_back(
            marker_label(dl, plot, x, plot.Min.y + line * 1.4f + 3.0f, text, deficit_col, false, &cap_rect));
      }
    }
  }
  // The tolerance's label above its line, on a box like the markers' labels, right-aligned but left
  // of the rank and cap lines and of the markers' labels where they stand in its way.
  if (style.tolerance > 0.0f && (!log_y || style.tolerance > yr.lo)) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "tol %.2g", static_cast<double>(style.tolerance));
    const float y = ym.to_pixel(style.tolerance) - line - 2.0f;
    float right = plot.Max.x;
    for (int marker : {rank, cap}) {
      if (marker < 0) continue;
      const float x = xm.to_pixel(marker + 0.5);
      if (label_rect(plot, right, y, buf, true).Min.x - 4.0f < x) right = std::min(right, x - 1.0f);
    }
    for (bool moved = true; moved;) {  // each move goes left, so this ends
      moved = false;
      const ImRect r = label_rect(plot, right, y, buf, true);
      for (const ImRect& other : labels) {
        if (r.Overlaps(other) && other.Min.x + 3.0f < right && r.Min.x > plot.Min.x + 2.0f) {
          right = other.Min.x + 3.0f;  // label_rect keeps 5 px between x and the text, 2 for the box
          moved = true;
        }
      }
    }
    marker_label(dl, plot, right, y, buf, detail::text_color(0.7f), true);
  }
  dl->PopClipRect();
  dl->AddRect(plot.Min, plot.Max, ImGui::GetColorU32(ImGuiCol_Border));

  const ImU32 tc = detail::text_color();
  if (has_title) detail::draw_title(dl, f.Min.x, f.Max.x, plot.GetCenter().x, f.Min.y + 1.0f, tc, title_id, title_end);
  if (style.x_label) {
    const ImVec2 ts = ImGui::CalcTextSize(style.x_label);
    dl->AddText(ImVec2(plot.GetCenter().x - ts.x * 0.5f, f.Max.y - line - 1.0f), detail::text_color(0.8f),
                style.x_label);
  }
  if (y_label == style.y_label_short) {  // a symbol reads upright
    const ImVec2 ts = ImGui::CalcTextSize(y_label);
    dl->AddText(ImVec2(f.Min.x + 6.0f + (line - ts.x) * 0.5f, plot.GetCenter().y - ts.y * 0.5f),
                detail::text_color(0.8f), y_label);
  } else if (y_label) {
    detail::AddTextVertical(
        dl, ImGui::GetFont(), ImGui::GetFontSize(),
        ImVec2(f.Min.x + 6.0f + line * 0.5f, plot.GetCenter().y - ImGui::CalcTextSize(y_label).x * 0.5f),
        detail::text_color(0.8f), y_label);
  }

  if (hot >= 0) {
    ImGui::BeginTooltip();
    // sigma when the font has it (DejaVu does; ImGui's built-in font does not).
    const bool sigma = ImGui::GetFont()->FindGlyphNoFallback(0x3C3) != nullptr;
    char val[48];
    std::snprintf(val, sizeof val, style.value_format, static_cast<double>(sv[hot]));
    ImGui::Text("%s_%d = %s", sigma ? "\xCF\x83" : "s", hot + 1, val);
    if (rank >= 0 && hot < rank) ImGui::TextDisabled("inside the numerical rank (%d)", rank);
    if (rank >= 0 && hot >= rank) ImGui::TextDisabled("beyond the numerical rank (%d)", rank);
    if (cap >= 0 && hot >= cap) ImGui::TextDisabled("beyond the theoretical cap (%d)", cap);
    ImGui::EndTooltip();
  }
  if (hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Right)) ImGui::OpenPopupEx(id);
  if (ImGui::BeginPopupEx(
          id, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings)) {
    if (ImGui::MenuItem("Export PNG"))
      request_panel_export(f.Min, f.Max,
                           timestamped_png_name("", has_title ? std::string(title_id, title_end) : "spectrum"));
    ImGui::EndPopup();
  }
  return hot;
}

}  // namespace headroom::widgets
