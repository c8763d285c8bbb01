#include "widgets/attention_lines.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "widgets/draw_util.h"
#include "widgets/frame_stats.h"
#include "widgets/heatmap_layout.h"
#include "widgets/png_export.h"

namespace headroom::widgets {

namespace {
constexpr float kPad = 8.0f;              // between a label column and the lines
constexpr float kLabelGap = 3.0f;         // between zig-zagged label columns
constexpr float kMinSpan = 40.0f;         // the lines' horizontal extent, at least
constexpr float kMaxSpan = 420.0f;        // and at most: wider only flattens every line
constexpr float kRowPerText = 1.15f;      // a row's height per text height, when the height allows
constexpr float kFocusMinWeight = 0.01f;  // a focused token's lines: all but the invisible
}  // namespace

LinesGeometry attention_lines_geometry(int n, float width, float avail_h, float label_w, float text_h,
                                       float min_row_h) {
  LinesGeometry g;
  if (n <= 0) return g;
  const float full_row = text_h * kRowPerText;
  const float lo = std::min(min_row_h, full_row);
  g.row_h = avail_h > 0.0f ? std::clamp(avail_h / n, lo, full_row) : full_row;
  // Rows lower than the text: labels stick out by half the difference at the top and the bottom.
  g.top = std::max(0.0f, 0.5f * (text_h - g.row_h));
  if (g.top > 0.0f && avail_h > 0.0f) {
    g.row_h = std::clamp((avail_h - 2.0f * g.top) / n, lo, full_row);
    g.top = std::max(0.0f, 0.5f * (text_h - g.row_h));
  }
  g.label_w = label_w;
  g.label_stride = label_stride(n, g.row_h * n, text_h);
  g.label_columns = std::min(g.label_stride, LinesGeometry::kMaxLabelColumns);
  const float labels_w = g.label_columns * label_w + (g.label_columns - 1) * kLabelGap;
  const float span = std::clamp(width - 2.0f * (labels_w + kPad), kMinSpan, kMaxSpan);
  g.line_x0 = labels_w + kPad;
  g.line_x1 = g.line_x0 + span;
  g.size = ImVec2(g.line_x1 + kPad + labels_w, g.row_h * n + 2.0f * g.top);
  return g;
}

float LinesGeometry::query_label_x(int i, float w) const {
  return line_x0 - kPad - static_cast<float>(i % label_stride) * (label_w + kLabelGap) - w;
}

float LinesGeometry::key_label_x(int i) const {
  return line_x1 + kPad + static_cast<float>(i % label_stride) * (label_w + kLabelGap);
}

int attention_lines_token_at(const LinesGeometry& g, int n, ImVec2 p, bool* key_side) {
  if (n <= 0 || !(g.row_h > 0.0f) || p.x < 0.0f || p.y < 0.0f || p.x >= g.size.x || p.y >= g.size.y) return -1;
  if (key_side) *key_side = p.x >= 0.5f * (g.line_x0 + g.line_x1);
  return std::clamp(static_cast<int>((p.y - g.top) / g.row_h), 0, n - 1);
}

std::vector<AttentionLine> attention_lines(const float* const* maps, int heads, const bool* shown, int n, int query,
                                           int key, float min_weight) {
  std::vector<AttentionLine> out;
  if (maps == nullptr || n <= 0) return out;
  if (query >= n) query = -1;
  if (key >= n) key = -1;
  for (int h = 0; h < heads; ++h) {
    if ((shown && !shown[h]) || maps[h] == nullptr) continue;
    const float* m = maps[h];
    const int q0 = query >= 0 ? query : 0, q1 = query >= 0 ? query + 1 : n;
    for (int q = q0; q < q1; ++q) {
      const int k0 = query < 0 && key >= 0 ? key : 0, k1 = query < 0 && key >= 0 ? key + 1 : n;
      for (int k = k0; k < k1; ++k) {
        const float w = m[static_cast<size_t>(q) * n + k];
        if (std::isfinite(w) && w >= min_weight && w > 0.0f) out.push_back({h, q, k, w});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const AttentionLine& a, const AttentionLine& b) { return a.weight < b.weight; });
  return out;
}

ImU32 head_color(int head, int heads) {
  if (heads <= 10) return detail::palette_color(head);
  // Evenly spaced hues, every other head a little darker, so neighbours stay apart.
  float r = 0, g = 0, b = 0;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(head) / static_cast<float>(heads), 0.70f,
                              head % 2 == 0 ? 0.95f : 0.72f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

AttentionLinesResult AttentionLines(const char* id, const float* const* maps, int heads, const bool* shown, int n,
                                    int pinned_query, const AttentionLinesStyle& style) {
  AttentionLinesResult res;
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems || maps == nullptr || n <= 0 || heads <= 0) return res;
  const ImGuiID gid = window->GetID(id);

  // The labels, clipped, and the widest of them.
  std::vector<std::string> labels(static_cast<size_t>(n));
  float label_w = 0.0f;
  char buf[96];
  for (int i = 0; i < n; ++i) {
    if (style.tokens && style.tokens[i]) {
      labels[i] = detail::clip_label(style.tokens[i], style.max_label_chars, buf, sizeof buf);
    } else {
      labels[i] = std::to_string(i);
    }
    label_w = std::max(label_w, ImGui::CalcTextSize(labels[i].c_str()).x);
  }
  const float text_h = ImGui::GetTextLineHeight();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const LinesGeometry g =
      attention_lines_geometry(n, avail.x, style.height > 0.0f ? style.height : avail.y, label_w, text_h);
  const ImVec2 origin = window->DC.CursorPos;
  res.origin = origin;
  res.geometry = g;
  ImRect bb;
  bool hovered = false, pressed = false;
  if (!detail::item_box(gid, g.size, &bb, &hovered, &pressed)) return res;
  if (hovered) {
    bool key_side = false;
    res.hovered = attention_lines_token_at(g, n, ImGui::GetIO().MousePos - origin, &key_side);
    res.hovered_key = res.hovered >= 0 && key_side;
    if (pressed && res.hovered >= 0 && !key_side) res.clicked_query = res.hovered;
  }
  if (res.hovered >= 0) {
    (res.hovered_key ? res.focus_key : res.focus_query) = res.hovered;
  } else if (pinned_query >= 0 && pinned_query < n) {
    res.focus_query = pinned_query;
  }
  const bool focused = res.focus_query >= 0 || res.focus_key >= 0;
  const auto lines = attention_lines(maps, heads, shown, n, res.focus_query, res.focus_key,
                                     focused ? kFocusMinWeight : style.min_weight);
  // At most max_lines, the strongest (the set is sorted weakest first).
  const size_t first = style.max_lines > 0 && lines.size() > static_cast<size_t>(style.max_lines)
                           ? lines.size() - static_cast<size_t>(style.max_lines)
                           : 0;

  ImDrawList* dl = window->DrawList;
  auto row_y = [&](int i) { return origin.y + g.top + (static_cast<float>(i) + 0.5f) * g.row_h; };
  // The tokens the focused one reads (or is read by) get a background as strong as the largest
  // weight of a shown head: the weights at a glance, before the lines are followed.
  if (focused) {
    std::vector<float> strongest(static_cast<size_t>(n), 0.0f);
    for (size_t i = first; i < lines.size(); ++i) {
      const AttentionLine& l = lines[i];
      const int other = res.focus_query >= 0 ? l.key : l.query;
      strongest[other] = std::max(strongest[other], l.weight);
    }
    const float x0 = res.focus_query >= 0 ? origin.x + g.line_x1 + kPad * 0.5f : origin.x;
    const float x1 = res.focus_query >= 0 ? origin.x + g.size.x : origin.x + g.line_x0 - kPad * 0.5f;
    for (int i = 0; i < n; ++i)
      if (strongest[i] > 0.0f)
        dl->AddRectFilled(ImVec2(x0, row_y(i) - 0.5f * g.row_h), ImVec2(x1, row_y(i) + 0.5f * g.row_h),
                          detail::accent_color(std::min(1.0f, strongest[i]) * 0.55f));
    const int self = focused && res.focus_query >= 0 ? res.focus_query : res.focus_key;
    const float sx0 = res.focus_query >= 0 ? origin.x : origin.x + g.line_x1 + kPad * 0.5f;
    const float sx1 = res.focus_query >= 0 ? origin.x + g.line_x0 - kPad * 0.5f : origin.x + g.size.x;
    dl->AddRect(ImVec2(sx0, row_y(self) - 0.5f * g.row_h), ImVec2(sx1, row_y(self) + 0.5f * g.row_h),
                detail::accent_color(), 0.0f, 0, 1.5f);
  }
  // Lines: one colour per head, as opaque as the weight; thicker for the focused token's few.
  for (size_t i = first; i < lines.size(); ++i) {
    const AttentionLine& l = lines[i];
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(head_color(l.head, heads));
    const float alpha = focused ? std::min(1.0f, 0.15f + 0.85f * l.weight) : std::min(1.0f, 0.6f * l.weight);
    dl->AddLine(ImVec2(origin.x + g.line_x0, row_y(l.query)), ImVec2(origin.x + g.line_x1, row_y(l.key)),
                ImGui::ColorConvertFloat4ToU32(ImVec4(c.x, c.y, c.z, alpha)), focused ? 1.0f + 2.0f * l.weight : 1.0f);
  }
  detail::mutable_frame_stats().attention_lines_drawn += static_cast<int>(lines.size() - first);
  // Labels: queries right-aligned on the left, keys left-aligned on the right, zig-zagged where
  // rows are lower than the text; the one in focus always.
  const int self = res.focus_query >= 0 ? res.focus_query : res.focus_key;
  for (int i = 0; i < n; ++i) {
    if (!g.label_drawn(i) && i != self) continue;
    const char* t = labels[i].c_str();
    const float w = ImGui::CalcTextSize(t).x, y = row_y(i) - 0.5f * text_h;
    const ImU32 col = detail::text_color(i == self ? 1.0f : 0.85f);
    dl->AddText(ImVec2(origin.x + g.query_label_x(i, w), y), col, t);
    dl->AddText(ImVec2(origin.x + g.key_label_x(i), y), col, t);
  }
  if (ImGui::BeginPopupContextItem()) {
    if (ImGui::MenuItem("Export PNG")) request_panel_export(bb.Min, bb.Max, timestamped_png_name("", "lines"));
    ImGui::EndPopup();
  }
  return res;
}

}  // namespace headroom::widgets
