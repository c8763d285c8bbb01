// The lab's Rank tab: each head's singular spectrum against the rank the theory allows (LRB §2.3).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "widgets/spectrum.h"

namespace headroom::gui {

void draw_lab_rank(const LabSnapshot& s, LabControls& c, const ViewContext& ctx) {
  const int layers = static_cast<int>(s.layers.size());
  c.layer = std::clamp(c.layer, 0, layers - 1);
  if (layers > 1) {
    layer_picker("rank", &c.layer, layers, ctx.ui_scale);
  }
  const auto& l = s.layers[c.layer];
  const auto& a = s.spec.attention;
  // Wrapped: at a lesson's or a projector's type size these lines are wider than the panel.
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("Theory caps each logit matrix at rank %d = min(n = %d, d = %d, %s).", l.rank_cap, s.n, a.d_model,
              a.kind == core::AttentionKind::DynamicProj       ? "2 min(d, h_k d_k)"
              : core::has_logits_projection(a.kind)            ? "h_k d_k"
              : a.kind == core::AttentionKind::GeneralBilinear ? "d"
                                                               : "d_p");
  tooltip(
      "LRB §2.3: (W_k X)^T (W_q X) has rank <= d_p, and X is d wide. Talking-heads mixes h_k such matrices\n"
      "(TH §4); dynamic projections add a second term of the same rank (TH app. A). A cap of n - 1 already\n"
      "reaches every pattern (softmax ignores a constant per query); causal heads reach random patterns\n"
      "from floor(n/2) (docs/causal_threshold.md).");
  ImGui::Text("This layer's input (n x d) has measured rank %d.", l.input_rank);
  if (c.layer == 0)
    ImGui::TextDisabled(
        "Layer 0's input is LayerNorm(token + position): rank <= r + r_pos (+1 for the LayerNorm bias) = %d, "
        "so the input also caps layer 0.",
        s.input_rank_cap);
  else
    ImGui::TextDisabled(
        "Deeper layers mix the embedding's low rank away (residual + MLP), so only min(n, d_p) applies.");
  ImGui::Text("Token embedding (V x d): measured rank %d of r = %d.", s.embedding_rank,
              core::effective_embed_rank(s.spec));
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
  std::vector<float> sv;
  for (int h = 0; h < heads; ++h) {
    const auto& sp = l.spectra[h];
    sv.assign(sp.singular_values.begin(), sp.singular_values.end());
    widgets::SpectrumStyle style;
    style.tolerance = static_cast<float>(sp.tolerance);
    const std::string title = "head " + std::to_string(h) + ": rank " + std::to_string(sp.rank) + ", deficit " +
                              std::to_string(s.n - sp.rank) + "##spec" + std::to_string(h);
    widgets::SpectrumBars(title.c_str(), sv.data(), static_cast<int>(sv.size()), sp.rank, l.rank_cap, ImVec2(w, h_each),
                          style);
    if ((h + 1) % cols != 0 && h + 1 < heads) ImGui::SameLine();
  }
}

}  // namespace headroom::gui
