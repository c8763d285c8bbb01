// The lab's Rank tab: each head's singular spectrum against the rank the theory allows (LRB §2.3).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "widgets/spectrum.h"

namespace headroom::gui {

namespace {

// A real checkpoint's rank tab (issue 16): the cap is min(n, d_k) in every layer (no embedding
// factorisation to cap layer 0), what the analysis can claim for these heads, and every layer's
// head ranks as a histogram, so a whole model's deficits show at once.
void draw_real_rank_header(const LabSnapshot& s, const LabControls& c) {
  const auto& l = s.layers[static_cast<size_t>(c.layer)];
  const int threshold = s.real.causal ? s.n / 2 : s.n - 1;
  ImGui::Text("Theory caps each head's logits at rank %d = min(n = %d, d_k = %d); %s need rank %d.", l.rank_cap, s.n,
              s.real.d_k,
              s.real.causal ? "causal heads reach almost every pattern from floor(n/2), so they"
                            : "full attention reaches every pattern from n - 1, so heads",
              threshold);
  ImGui::Text("This layer's input (n x d) has measured rank %d.", l.input_rank);
  for (const auto& note : s.real.notes) ImGui::TextDisabled("%s", note.c_str());
  ImGui::Separator();
  // Per layer: how many heads have each rank, bars to the cap.
  ImGui::TextUnformatted("Head ranks per layer (heads at each rank; cap marked |):");
  const int cap = std::max(1, l.rank_cap);
  const float row_h = ImGui::GetTextLineHeight(), label_w = ImGui::CalcTextSize("layer 00 ").x;
  const float bar_w = std::clamp((ImGui::GetContentRegionAvail().x * 0.6f - label_w) / static_cast<float>(cap + 2),
                                 2.0f, ImGui::GetFontSize());
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 on = ImGui::GetColorU32(ImGuiCol_PlotHistogram), below = ImGui::GetColorU32(ImGuiCol_PlotLines),
              text = ImGui::GetColorU32(ImGuiCol_Text);
  for (size_t layer = 0; layer < s.layers.size(); ++layer) {
    std::vector<int> count(static_cast<size_t>(cap) + 1, 0);
    for (const auto& sp : s.layers[layer].spectra) ++count[static_cast<size_t>(std::clamp(sp.rank, 0, cap))];
    const ImVec2 at = ImGui::GetCursorScreenPos();
    char label[32];
    std::snprintf(label, sizeof label, "layer %zu", layer);
    draw->AddText(at, text, label);
    const int heads = std::max<int>(1, static_cast<int>(s.layers[layer].spectra.size()));
    for (int r = 0; r <= cap; ++r) {
      if (count[static_cast<size_t>(r)] == 0) continue;
      const float h = row_h * static_cast<float>(count[static_cast<size_t>(r)]) / static_cast<float>(heads);
      const float x = at.x + label_w + static_cast<float>(r) * bar_w;
      draw->AddRectFilled(ImVec2(x, at.y + row_h - h), ImVec2(x + bar_w - 1, at.y + row_h), r == cap ? on : below);
    }
    const float cap_x = at.x + label_w + static_cast<float>(cap + 1) * bar_w;
    draw->AddLine(ImVec2(cap_x, at.y), ImVec2(cap_x, at.y + row_h), text);
    ImGui::Dummy(ImVec2(label_w + static_cast<float>(cap + 2) * bar_w, row_h));
    if (ImGui::IsItemHovered()) {
      std::string tip = "layer " + std::to_string(layer) + ":";
      for (int r = 0; r <= cap; ++r)
        if (count[static_cast<size_t>(r)] > 0)
          tip += " " + std::to_string(count[static_cast<size_t>(r)]) + " at rank " + std::to_string(r) + ";";
      ImGui::SetTooltip("%s", tip.c_str());
    }
  }
  // The rank axis under the rows: 0 at the left, the cap at its line.
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const std::string cap_text = "cap " + std::to_string(cap);
  draw->AddText(ImVec2(at.x + label_w, at.y), text, "0");
  draw->AddText(
      ImVec2(at.x + label_w + static_cast<float>(cap + 1) * bar_w - ImGui::CalcTextSize(cap_text.c_str()).x * 0.5f,
             at.y),
      text, cap_text.c_str());
  ImGui::Dummy(ImVec2(label_w, row_h));
}

}  // namespace

void draw_lab_rank(const LabSnapshot& s, LabControls& c, const ViewContext& ctx) {
  const int layers = static_cast<int>(s.layers.size());
  c.layer = std::clamp(c.layer, 0, layers - 1);
  if (layers > 1) {
    layer_picker("rank", &c.layer, layers, ctx.ui_scale);
  }
  const auto& l = s.layers[c.layer];
  const auto& a = s.spec.attention;
  if (s.partial) {  // the first answer to a change: its spectra are a moment behind
    ImGui::TextDisabled("Measuring the heads' spectra...");
    return;
  }
  // Wrapped: at a lesson's or a projector's type size these lines are wider than the panel.
  ImGui::PushTextWrapPos(0.0f);
  if (!s.real.dir.empty()) {
    draw_real_rank_header(s, c);
  } else {
    // The kind's own term with its value, so every number in the min is on the screen.
    const std::string term = a.kind == core::AttentionKind::DynamicProj
                                 ? "2 min(d, h_k d_k) = " + std::to_string(2 * std::min(a.d_model, a.heads_k * a.d_k))
                             : core::has_logits_projection(a.kind) ? "h_k d_k = " + std::to_string(a.heads_k * a.d_k)
                             : a.kind == core::AttentionKind::GeneralBilinear ? "d"
                                                                              : "d_p = " + std::to_string(a.d_k);
    wrapped_text("Theory caps each logit matrix at rank %d = min(n = %d, d = %d, %s).", l.rank_cap, s.n, a.d_model,
                 term.c_str());
    tooltip(
        "LRB §2.3: (W_k X)^T (W_q X) has rank <= d_p, and X is d wide. Talking-heads mixes h_k such matrices\n"
        "(TH §4); dynamic projections add a second term of the same rank (TH app. A). A cap of n - 1 already\n"
        "reaches every pattern (softmax ignores a constant per query); causal heads reach random patterns\n"
        "from floor(n/2) (docs/causal_threshold.md).");
    wrapped_text("This layer's input (n x d) has measured rank %d.", l.input_rank);
    if (c.layer == 0)
      wrapped_text_disabled(
          "Layer 0's input is LayerNorm(token + position): rank <= min(n, d, r + r_pos + 1) = %d (the +1: "
          "LayerNorm's bias), so the input also caps layer 0.",
          s.input_rank_cap);
    else
      wrapped_text_disabled(
          "Deeper layers mix the embedding's low rank away (residual + MLP), so only min(n, d_p) applies.");
    wrapped_text("Token embedding (V x d): measured rank %d of r = %d.", s.embedding_rank,
                 core::effective_embed_rank(s.spec));
  }
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  const int heads = static_cast<int>(l.spectra.size());
  const float avail = ImGui::GetContentRegionAvail().x;
  const int cols = std::max(1, std::min(heads, static_cast<int>(avail / (240.0f * ctx.ui_scale))));
  const float w = avail / cols - ImGui::GetStyle().ItemSpacing.x;
  // The spectra share the height left (a lesson gives this panel the screen), within reason.
  const int rows = (heads + cols - 1) / cols;
  const float h_each =
      std::clamp(ImGui::GetContentRegionAvail().y / std::max(1, rows) - ImGui::GetStyle().ItemSpacing.y,
                 150.0f * ctx.ui_scale, 320.0f * ctx.ui_scale);
  // Layer 0's logits are X W_q (X W_k)^T: the input's own cap bounds them too, and the plot's cap
  // line says so (a low-rank embedding showed "cap 54" over a rank-9 head whose input allows 10).
  const int cap =
      c.layer == 0 && s.real.dir.empty() && s.input_rank_cap > 0 ? std::min(l.rank_cap, s.input_rank_cap) : l.rank_cap;
  std::vector<float> sv;
  for (int h = 0; h < heads; ++h) {
    const auto& sp = l.spectra[h];
    sv.assign(sp.singular_values.begin(), sp.singular_values.end());
    widgets::SpectrumStyle style;
    style.tolerance = static_cast<float>(sp.tolerance);
    const bool grouped = !s.real.dir.empty() && s.real.kv_heads < s.real.heads && h < int(s.real.kv_group.size());
    const std::string title = "head " + std::to_string(h) +
                              (grouped ? " (kv " + std::to_string(s.real.kv_group[static_cast<size_t>(h)]) + ")" : "") +
                              ": rank " + std::to_string(sp.rank) + " of n = " + std::to_string(s.n) + "##spec" +
                              std::to_string(h);
    widgets::SpectrumBars(title.c_str(), sv.data(), static_cast<int>(sv.size()), sp.rank, cap, ImVec2(w, h_each),
                          style);
    if ((h + 1) % cols != 0 && h + 1 < heads) ImGui::SameLine();
  }
}

}  // namespace headroom::gui
