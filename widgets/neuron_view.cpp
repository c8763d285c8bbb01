#include "widgets/neuron_view.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "widgets/colormap.h"
#include "widgets/draw_util.h"
#include "widgets/frame_stats.h"
#include "widgets/png_export.h"

namespace headroom::widgets {

namespace {
constexpr float kPad = 8.0f;  // between the columns
}  // namespace

NeuronGeometry neuron_view_geometry(int keys, int r, float avail_w, float avail_h, float label_w, float text_h,
                                    float title_w, float min_cell, float max_cell, float min_row) {
  NeuronGeometry g;
  if (keys <= 0 || r <= 0) return g;
  g.label_w = label_w;
  g.header_h = text_h + 4.0f;
  g.logit_w = 3.5f * text_h;
  g.weight_w = 4.0f * text_h;
  const float fixed = label_w + 3.0f * kPad + g.logit_w + g.weight_w;
  g.cell_w = std::clamp(std::floor((avail_w - fixed) / static_cast<float>(r)), min_cell, max_cell);
  // The query's row, a gap of half a row, then the keys.
  const float rows = static_cast<float>(keys) + 1.5f;
  g.cell_h = std::clamp(std::floor((avail_h - g.header_h) / rows), min_row, text_h + 2.0f);
  g.products_x = label_w + kPad;
  g.logit_x = g.products_x + std::max(static_cast<float>(r) * g.cell_w, title_w) + kPad;
  g.weight_x = g.logit_x + g.logit_w + kPad;
  g.query_y = g.header_h;
  g.keys_y = g.query_y + 1.5f * g.cell_h;
  g.size = ImVec2(g.weight_x + g.weight_w, g.keys_y + static_cast<float>(keys) * g.cell_h);
  return g;
}

NeuronHit neuron_view_hit(const NeuronGeometry& g, int keys, int r, ImVec2 p) {
  NeuronHit hit;
  if (keys <= 0 || r <= 0 || g.cell_h <= 0.0f) return hit;
  if (p.y >= g.query_y && p.y < g.query_y + g.cell_h) {
    hit.row = -2;
  } else if (p.y >= g.keys_y && p.y < g.keys_y + static_cast<float>(keys) * g.cell_h) {
    hit.row = static_cast<int>((p.y - g.keys_y) / g.cell_h);
  } else {
    return hit;
  }
  if (p.x >= g.products_x && p.x < g.products_x + static_cast<float>(r) * g.cell_w) {
    hit.column = 0;
    hit.component = std::min(r - 1, static_cast<int>((p.x - g.products_x) / g.cell_w));
  } else if (p.x >= g.logit_x && p.x < g.logit_x + g.logit_w) {
    hit.column = 1;
  } else if (p.x >= g.weight_x && p.x < g.weight_x + g.weight_w) {
    hit.column = 2;
  }
  return hit;
}

float neuron_products_max(const NeuronViewInput& in) {
  float mx = 0.0f;
  if (!in.a || !in.b) return mx;
  for (int j = 0; j < in.keys; ++j)
    for (int c = 0; c < in.r; ++c) {
      const float v = std::abs(in.a[c] * in.b[static_cast<size_t>(j) * in.r + c]);
      if (std::isfinite(v)) mx = std::max(mx, v);
    }
  return mx;
}

float neuron_sum_error(const NeuronViewInput& in) {
  float worst = 0.0f;
  if (!in.a || !in.b || !in.logits) return worst;
  for (int j = 0; j < in.keys; ++j) {
    double sum = 0;
    for (int c = 0; c < in.r; ++c) sum += double(in.a[c]) * in.b[static_cast<size_t>(j) * in.r + c];
    worst = std::max(worst, static_cast<float>(std::abs(sum - in.logits[j])));
  }
  return worst;
}

namespace {

// Diverging colour of v on a symmetric scale +-mx (grey for a non-finite value).
float diverging_t(float v, float mx) { return mx > 0.0f ? 0.5f + 0.5f * std::clamp(v / mx, -1.0f, 1.0f) : 0.5f; }
ImU32 diverging(float v, float mx) {
  if (!std::isfinite(v)) return kColormapNanColor;
  return colormap_color(Colormap::Diverging, diverging_t(v, mx));
}
// Text that reads on that colour: dark on light cells, light on dark ones.
ImU32 text_on(float v, float mx) {
  float rgb[3] = {0.5f, 0.5f, 0.5f};
  if (std::isfinite(v)) colormap_rgb(Colormap::Diverging, diverging_t(v, mx), rgb);
  const float luma = 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2];
  return luma > 0.5f ? IM_COL32(20, 20, 20, 255) : IM_COL32(240, 240, 240, 255);
}

}  // namespace

NeuronViewResult NeuronView(const char* id, const NeuronViewInput& in) {
  NeuronViewResult res;
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems || !in.a || !in.b || !in.logits || in.keys <= 0 || in.r <= 0) return res;
  const ImGuiID gid = window->GetID(id);

  std::vector<std::string> labels(static_cast<size_t>(in.keys));
  float label_w = ImGui::CalcTextSize(in.query_label).x;
  char buf[96];
  for (int j = 0; j < in.keys; ++j) {
    labels[j] = in.key_labels && in.key_labels[j] ? detail::clip_label(in.key_labels[j], 12, buf, sizeof buf)
                                                  : std::to_string(j);
    label_w = std::max(label_w, ImGui::CalcTextSize(labels[j].c_str()).x);
  }
  const float text_h = ImGui::GetTextLineHeight();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  char title[48];
  std::snprintf(title, sizeof title, "a_c b_c, c = 0..%d", in.r - 1);
  const NeuronGeometry g =
      neuron_view_geometry(in.keys, in.r, avail.x, avail.y, label_w, text_h, ImGui::CalcTextSize(title).x);
  const ImVec2 origin = window->DC.CursorPos;
  res.origin = origin;
  res.geometry = g;
  ImRect bb;
  bool hovered = false, pressed = false;
  if (!detail::item_box(gid, g.size, &bb, &hovered, &pressed)) return res;
  if (hovered) res.hovered = neuron_view_hit(g, in.keys, in.r, ImGui::GetIO().MousePos - origin);

  ImDrawList* dl = window->DrawList;
  const ImU32 text = detail::text_color(), dim = detail::text_color(0.55f);
  // Column titles.
  dl->AddText(origin + ImVec2(g.products_x, 0), dim, title);
  dl->AddText(origin + ImVec2(g.logit_x, 0), dim, "logit");
  if (in.weights) dl->AddText(origin + ImVec2(g.weight_x, 0), dim, "weight");

  float a_max = 0.0f;
  for (int c = 0; c < in.r; ++c)
    if (std::isfinite(in.a[c])) a_max = std::max(a_max, std::abs(in.a[c]));
  const float p_max = neuron_products_max(in);
  float l_max = 0.0f;
  for (int j = 0; j < in.keys; ++j)
    if (std::isfinite(in.logits[j])) l_max = std::max(l_max, std::abs(in.logits[j]));

  const bool row_text = g.cell_h >= text_h;  // numbers and every label fit in a row
  const int label_stride = row_text ? 1 : std::max(1, static_cast<int>(std::ceil(text_h / g.cell_h)));
  auto cell = [&](float x, float y, float w, ImU32 col) {
    // A 1 px gap between cells where they are wide enough to keep their colour (narrower ones would
    // read as stripes of the background).
    dl->AddRectFilled(origin + ImVec2(x, y),
                      origin + ImVec2(x + w - (w >= 8 ? 1 : 0), y + g.cell_h - (g.cell_h >= 8 ? 1 : 0)), col);
  };
  // The query's row: a, on its own scale.
  dl->AddText(
      origin + ImVec2(g.label_w - ImGui::CalcTextSize(in.query_label).x, g.query_y + 0.5f * (g.cell_h - text_h)),
      detail::accent_color(), in.query_label);
  for (int c = 0; c < in.r; ++c) cell(g.products_x + c * g.cell_w, g.query_y, g.cell_w, diverging(in.a[c], a_max));
  int cells = in.r;
  for (int j = 0; j < in.keys; ++j) {
    const float y = g.keys_y + j * g.cell_h;
    if (j % label_stride == 0) {
      const float w = ImGui::CalcTextSize(labels[j].c_str()).x;
      dl->AddText(origin + ImVec2(g.label_w - w, y + 0.5f * (g.cell_h - text_h)), text, labels[j].c_str());
    }
    const float* bj = in.b + static_cast<size_t>(j) * in.r;
    for (int c = 0; c < in.r; ++c) cell(g.products_x + c * g.cell_w, y, g.cell_w, diverging(in.a[c] * bj[c], p_max));
    cells += in.r;
    cell(g.logit_x, y, g.logit_w, diverging(in.logits[j], l_max));
    if (row_text) {
      std::snprintf(buf, sizeof buf, "%.2f", in.logits[j]);
      dl->AddText(origin + ImVec2(g.logit_x + 2.0f, y + 0.5f * (g.cell_h - text_h)), text_on(in.logits[j], l_max), buf);
    }
    if (in.weights && std::isfinite(in.weights[j])) {
      const float w = std::clamp(in.weights[j], 0.0f, 1.0f);
      dl->AddRectFilled(origin + ImVec2(g.weight_x, y + 1.0f),
                        origin + ImVec2(g.weight_x + w * g.weight_w, y + g.cell_h - 1.0f), detail::accent_color(0.8f));
      if (row_text) {
        std::snprintf(buf, sizeof buf, "%.2f", in.weights[j]);
        dl->AddText(origin + ImVec2(g.weight_x + 2.0f, y + 0.5f * (g.cell_h - text_h)), text, buf);
      }
    }
  }
  detail::mutable_frame_stats().neuron_cells_drawn += cells;
  if (in.group > 0 && in.group < in.r)  // rules between the groups (a talking-heads key head's d_k each)
    for (int c = in.group; c < in.r; c += in.group)
      dl->AddLine(origin + ImVec2(g.products_x + c * g.cell_w - 0.5f, g.query_y),
                  origin + ImVec2(g.products_x + c * g.cell_w - 0.5f, g.size.y), detail::text_color(0.7f), 1.0f);

  // The hovered row and its numbers.
  const NeuronHit& h = res.hovered;
  if (h.row >= 0 || h.row == -2) {
    const float y = h.row == -2 ? g.query_y : g.keys_y + h.row * g.cell_h;
    dl->AddRect(origin + ImVec2(0, y), origin + ImVec2(g.size.x, y + g.cell_h), detail::accent_color(), 0.0f, 0, 1.0f);
    if (h.row == -2) {
      if (h.component >= 0) ImGui::SetTooltip("%s: a_%d = %.4f", in.query_label, h.component, in.a[h.component]);
    } else {
      const float* bj = in.b + static_cast<size_t>(h.row) * in.r;
      const char* key = labels[h.row].c_str();
      if (h.component >= 0) {
        const int c = h.component;
        ImGui::SetTooltip("key '%s' (%d), component %d:\na_%d = %.4f, b_%d = %.4f\na_%d b_%d = %.4f of the logit %.4f",
                          key, h.row, c, c, in.a[c], c, bj[c], c, c, in.a[c] * bj[c], in.logits[h.row]);
      } else if (h.column == 1) {
        ImGui::SetTooltip("key '%s' (%d): logit = sum of the %d products = %.4f", key, h.row, in.r, in.logits[h.row]);
      } else if (h.column == 2 && in.weights) {
        ImGui::SetTooltip("key '%s' (%d): weight %.4f (softmax of the row's logits)", key, h.row, in.weights[h.row]);
      }
    }
  }
  if (ImGui::BeginPopupContextItem()) {
    if (ImGui::MenuItem("Export PNG")) request_panel_export(bb.Min, bb.Max, timestamped_png_name("", "neurons"));
    ImGui::EndPopup();
  }
  return res;
}

}  // namespace headroom::widgets
