#include "widgets/draw_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace headroom::widgets::detail {

void AddTextVertical(ImDrawList* dl, const ImFont* font, float font_size, const ImVec2& top_center, ImU32 col,
                     const char* text, const char* text_end) {
  const ImVec2 sz = font->CalcTextSizeA(font_size, FLT_MAX, 0.0f, text, text_end);
  // Render horizontally at the clip rect's corner, where ImGui's CPU-side culling keeps
  // every glyph, then rotate the new vertices into place: (x, y) -> (y, -x).
  const ImVec4 clip = dl->_ClipRectStack.Size ? dl->_ClipRectStack.back() : ImVec4(0, 0, 8192, 8192);
  const ImVec2 origin(clip.x, clip.y);
  const int v0 = dl->VtxBuffer.Size;
  dl->AddText(font, font_size, origin, col, text, text_end);
  const ImVec2 anchor(top_center.x - sz.y * 0.5f, top_center.y + sz.x);
  for (int i = v0; i < dl->VtxBuffer.Size; ++i) {
    ImDrawVert& v = dl->VtxBuffer[i];
    const float lx = v.pos.x - origin.x, ly = v.pos.y - origin.y;
    v.pos = ImVec2(anchor.x + ly, anchor.y - lx);
  }
}

const char* fitting_y_label(const char* label, const char* short_label, float plot_height) {
  if (label && *label && ImGui::CalcTextSize(label).x <= plot_height) return label;
  if (!short_label || !*short_label || ImGui::CalcTextSize(short_label).x > plot_height) return nullptr;
  const ImFont* font = ImGui::GetFont();
  for (const char* s = short_label; *s;) {
    unsigned int c = 0;
    s += ImTextCharFromUtf8(&c, s, nullptr);
    if (c == 0 || !font->FindGlyphNoFallback(static_cast<ImWchar>(c))) return nullptr;
  }
  return short_label;
}

bool item_box(ImGuiID id, const ImVec2& size, ImRect* bb, bool* hovered, bool* pressed) {
  const ImVec2 at = ImGui::GetCurrentWindow()->DC.CursorPos;
  *bb = ImRect(at, at + size);
  ImGui::ItemSize(*bb);
  if (!ImGui::ItemAdd(*bb, id)) return false;
  bool held = false;
  *pressed = ImGui::ButtonBehavior(*bb, id, hovered, &held);
  return true;
}

const char* clip_label(const char* label, int max_chars, char* buf, int buf_size) {
  if (label == nullptr) return "";
  if (max_chars <= 0 || buf_size < 8) return label;
  int chars = 0;
  const char* p = label;
  const char* cut = nullptr;
  while (*p) {
    if ((static_cast<unsigned char>(*p) & 0xC0) != 0x80) {  // start of a code point
      if (chars == max_chars) {
        cut = p;
        break;
      }
      ++chars;
    }
    ++p;
  }
  if (cut == nullptr) return label;
  // Leave room for ".." and step back to a code point boundary.
  size_t keep = std::min(static_cast<size_t>(cut - label), static_cast<size_t>(buf_size - 3));
  while (keep > 0 && (static_cast<unsigned char>(label[keep]) & 0xC0) == 0x80) --keep;
  std::memcpy(buf, label, keep);
  std::memcpy(buf + keep, "..", 3);
  return buf;
}

ImU32 palette_color(int i) {
  static const ImU32 kTab10[10] = {IM_COL32(31, 119, 180, 255),  IM_COL32(255, 127, 14, 255),
                                   IM_COL32(44, 160, 44, 255),   IM_COL32(214, 39, 40, 255),
                                   IM_COL32(148, 103, 189, 255), IM_COL32(140, 86, 75, 255),
                                   IM_COL32(227, 119, 194, 255), IM_COL32(127, 127, 127, 255),
                                   IM_COL32(188, 189, 34, 255),  IM_COL32(23, 190, 207, 255)};
  return kTab10[((i % 10) + 10) % 10];
}

ImU32 text_color(float alpha) { return ImGui::GetColorU32(ImGuiCol_Text, alpha); }
ImU32 grid_color() { return ImGui::GetColorU32(ImGuiCol_Text, 0.10f); }
ImU32 plot_bg_color() { return ImGui::GetColorU32(ImGuiCol_FrameBg, 0.55f); }
ImU32 accent_color(float alpha) { return ImGui::GetColorU32(ImGuiCol_PlotHistogram, alpha); }

float max_tick_label_width(const std::vector<AxisTick>& ticks) {
  float w = 0.0f;
  for (const AxisTick& t : ticks)
    if (!t.label.empty()) w = std::max(w, ImGui::CalcTextSize(t.label.c_str()).x);
  return w;
}

void draw_x_axis(ImDrawList* dl, const ImRect& plot, const AxisMap& xm, const std::vector<AxisTick>& ticks, bool grid) {
  const ImU32 tc = text_color(0.85f), gc = grid_color(), mc = text_color(0.5f);
  float last_right = -FLT_MAX;
  for (const AxisTick& t : ticks) {
    const float x = std::round(xm.to_pixel(t.value)) + 0.5f;
    if (x < plot.Min.x - 0.5f || x > plot.Max.x + 0.5f) continue;
    if (grid)
      dl->AddLine(ImVec2(x, plot.Min.y), ImVec2(x, plot.Max.y),
                  t.major ? gc : ImGui::GetColorU32(ImGuiCol_Text, 0.05f));
    dl->AddLine(ImVec2(x, plot.Max.y), ImVec2(x, plot.Max.y + (t.major ? 4.0f : 2.0f)), mc);
    if (t.label.empty()) continue;
    const ImVec2 sz = ImGui::CalcTextSize(t.label.c_str());
    // Keep end labels inside the widget (plots leave ~10 px right of the plot area).
    const float left = std::min(x - sz.x * 0.5f, plot.Max.x + 8.0f - sz.x);
    if (left < last_right + 6.0f) continue;
    dl->AddText(ImVec2(left, plot.Max.y + 5.0f), tc, t.label.c_str());
    last_right = left + sz.x;
  }
}

void draw_y_axis(ImDrawList* dl, const ImRect& plot, const AxisMap& ym, const std::vector<AxisTick>& ticks, bool grid) {
  const ImU32 tc = text_color(0.85f), gc = grid_color(), mc = text_color(0.5f);
  float last_top = FLT_MAX;
  for (const AxisTick& t : ticks) {  // ascending values: bottom to top
    const float y = std::round(ym.to_pixel(t.value)) + 0.5f;
    if (y < plot.Min.y - 0.5f || y > plot.Max.y + 0.5f) continue;
    if (grid && t.major) dl->AddLine(ImVec2(plot.Min.x, y), ImVec2(plot.Max.x, y), gc);
    dl->AddLine(ImVec2(plot.Min.x - (t.major ? 4.0f : 2.0f), y), ImVec2(plot.Min.x, y), mc);
    if (t.label.empty()) continue;
    const ImVec2 sz = ImGui::CalcTextSize(t.label.c_str());
    const float top = y - sz.y * 0.5f;
    if (top + sz.y > last_top - 1.0f) continue;
    dl->AddText(ImVec2(plot.Min.x - 6.0f - sz.x, top), tc, t.label.c_str());
    last_top = top;
  }
}

void dashed_vline(ImDrawList* dl, float x, float y0, float y1, ImU32 col, float thickness, float dash, float gap) {
  if (y1 < y0) std::swap(y0, y1);
  for (float y = y0; y < y1; y += dash + gap)
    dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + dash, y1)), col, thickness);
}

void draw_title(ImDrawList* dl, float min_x, float max_x, float center_x, float y, ImU32 col, const char* text,
                const char* text_end) {
  const ImVec2 sz = ImGui::CalcTextSize(text, text_end);
  float x = std::clamp(center_x - sz.x * 0.5f, min_x, std::max(min_x, max_x - sz.x));
  ImGui::PushStyleColor(ImGuiCol_Text, col);
  ImGui::RenderTextEllipsis(dl, ImVec2(x, y), ImVec2(max_x, y + sz.y), max_x, max_x, text, text_end, &sz);
  ImGui::PopStyleColor();
}

const char* visible_text_end(const char* label) { return ImGui::FindRenderedTextEnd(label); }

}  // namespace headroom::widgets::detail
