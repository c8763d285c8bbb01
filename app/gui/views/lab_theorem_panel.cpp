// The lab's Theorem 1 tab: LRB Theorem 1 live (target, reached, difference, error vs d_p).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "app/gui/views/lab_theorem_panel.h"
#include "app/gui/views/lesson_highlight.h"
#include "widgets/heatmap.h"
#include "widgets/line_plot.h"

namespace headroom::gui {

void LabTheoremPanel::update(const LabControls& c, const LabSnapshot* snapshot) {
  if (c.tab != LabTab::Theorem) return;
  std::string key;
  const TheoremRequest t = theorem_request_of(c, snapshot, &key);
  if (key == key_) return;
  key_ = key;
  posted_ = demo_.post(t);
}

bool LabTheoremPanel::answer_drawn() const {
  return drawn_ && drawn_->request_id >= posted_ && (drawn_->ready || !drawn_->error.empty());
}

nlohmann::json LabTheoremPanel::state() const {
  if (!drawn_ || !drawn_->ready) return nullptr;
  const TheoremSnapshot& t = *drawn_;
  return {{"n", t.n},
          {"d_p", t.d_p},
          {"causal", t.causal},
          {"method", t.method},
          {"construction_rank", t.construction_rank},
          {"minimal_head_size", t.minimal_head_size >= 0 ? nlohmann::json(t.minimal_head_size) : nlohmann::json()},
          {"max_abs_error", t.max_abs_error},
          {"max_logit", t.max_logit},
          {"error", t.error}};
}

bool LabTheoremPanel::settled() const {
  return drawn_ && drawn_->request_id >= posted_ && (drawn_->curve_complete || !drawn_->error.empty());
}

void LabTheoremPanel::draw(LabControls& c, const ViewContext& ctx) {
  // In TargetPattern's order.
  const char* patterns[] = {"identity",     "previous token", "uniform",    "random",
                            "a head's map", "self vs past",   "first token"};
  int p = static_cast<int>(c.pattern);
  ImGui::SetNextItemWidth(180 * ctx.ui_scale);
  if (ImGui::Combo("target", &p, patterns, IM_ARRAYSIZE(patterns))) c.pattern = static_cast<TargetPattern>(p);
  highlight_item("pattern");
  if (c.pattern == TargetPattern::HeadMap) {
    same_line_if_fits(labelled_width(120 * ctx.ui_scale, "head"));
    ImGui::SetNextItemWidth(120 * ctx.ui_scale);
    ImGui::SliderInt("head##thm", &c.theorem_head, 0, 63);
    highlight_item("theorem_head");
  } else {
    same_line_if_fits(labelled_width(160 * ctx.ui_scale, "n"));
    ImGui::SetNextItemWidth(160 * ctx.ui_scale);
    ImGui::SliderInt("n##thm", &c.theorem_n, 2, 64);
    highlight_item("theorem_n");
  }
  same_line_if_fits(labelled_width(200 * ctx.ui_scale, "d_p"));
  ImGui::SetNextItemWidth(200 * ctx.ui_scale);
  ImGui::SliderInt("d_p##thm", &c.theorem_dp, 1, 64);
  highlight_item("theorem_dp");
  same_line_if_fits(ImGui::GetFrameHeight() + labelled_width(0, "causal") + ImGui::GetFrameHeight());
  ImGui::Checkbox("causal##thm", &c.theorem_causal);
  highlight_item("theorem_causal");
  help_marker(
      "LRB Theorem 1: if d_p >= n, any positive column-stochastic P is Softmax((W_k X)^T (W_q X)/sqrt(d_p)) for "
      "some W_q, W_k (the construction, eqs. 4-7). Softmax ignores a constant added to a query's logits, so "
      "d_p = n - 1 already suffices (the construction here uses it). Causal (query j sees keys 0..j): almost "
      "every target is constructed exactly from d_p = floor(n/2), with logits of rank floor(n/2); 'self vs "
      "past' only approximately, with ever larger weights, until n - 1. Each pattern's own exact smallest head "
      "is the least rank of its logits (Woerdeman's minimal-rank completion of its log-ratios; ties can raise "
      "it, to n - 1 for 'self vs past', or lower it, to 1 for 'first token'), and the weights are built there "
      "too, by completing the log-ratios key by key. Where no construction applies, the best fit (L-BFGS, float64). "
      "Every target is mixed with uniform first (5%; a "
      "head's map, a softmax already, 0.1%), so that every entry a query sees is positive, as the theorem needs. X is "
      "d = 2n x n, Gaussian. Proofs and "
      "measurements: docs/causal_threshold.md.");
  auto t = demo_.snapshot();
  drawn_ = t;
  if (!t->error.empty()) {
    ImGui::TextColored(kProblem, "%s", t->error.c_str());
    return;
  }
  if (!t->ready) {
    ImGui::TextDisabled("computing...");
    return;
  }
  ImGui::PushTextWrapPos(0.0f);
  if (t->method == "construction")
    wrapped_text(
        "%s, n = %d, d_p = %d, X is %d x %d: max |reached - target| = %.2e by construction (logits of rank %d)",
        t->causal ? "causal" : "full", t->n, t->d_p, t->d, t->n, t->max_abs_error, t->construction_rank);
  else if (t->method == "least-rank construction")
    wrapped_text(
        "%s, n = %d, d_p = %d, X is %d x %d: max |reached - target| = %.2e by construction at this pattern's least "
        "rank (its log-ratios completed key by key; logits of rank %d)",
        t->causal ? "causal" : "full", t->n, t->d_p, t->d, t->n, t->max_abs_error, t->construction_rank);
  else if (t->method == "perturbed construction")
    wrapped_text(
        "%s, n = %d, d_p = %d, X is %d x %d: max |reached - target| = %.2e by construction for a pattern within "
        "%.0e of it (logits of rank %d, up to %.2g)",
        t->causal ? "causal" : "full", t->n, t->d_p, t->d, t->n, t->max_abs_error, t->perturbation,
        t->construction_rank, t->max_logit);
  else
    wrapped_text("%s, n = %d, d_p = %d, X is %d x %d: max |reached - target| = %.2e by %s",
                 t->causal ? "causal" : "full", t->n, t->d_p, t->d, t->n, t->max_abs_error, t->method.c_str());
  // This pattern's own exact smallest head, then the thresholds that hold for every / almost every one.
  const int least = t->minimal_head_size;
  const std::string most = std::string("almost every ") + (t->causal ? "causal " : "") + "pattern";
  const std::string generic = std::to_string(t->generic_threshold);
  std::string line =
      least < 0
          ? "Measuring this pattern's own smallest head..."
          : "Some head makes this pattern exactly from d_p = " + std::to_string(least) +
                " on (the least rank of its logits, by Woerdeman's formula)" +
                (least < t->generic_threshold   ? ": fewer than " + most + " needs (" + generic + "); its ties lower it"
                 : least > t->generic_threshold ? ": more than " + most + " needs (" + generic + "); its ties raise it"
                                                : ", as for " + most + " (" + generic + ")");
  if (least < 0) {
    // the answer went out first; the least rank follows in a moment
  } else if (t->d_p >= least) {
    line += ".";
  } else if (t->causal && t->d_p >= t->generic_threshold) {
    line +=
        ". Below that it is only approached, with ever larger logits (the best of a construction for a nearby "
        "pattern and the fit is shown).";
  } else if (least == t->generic_threshold) {
    line += std::string(". Below ") + (t->causal ? "floor(n/2)" : "n - 1") +
            " almost every pattern is out of reach even approximately: the fit's error stays.";
  } else {
    line += ". Below that none does; the fit is shown.";
  }
  wrapped_text_disabled("%s", line.c_str());
  // One click to the head size where this pattern is made exactly (a lecturer's next question).
  if (least >= 1 && least != c.theorem_dp && least <= kTheoremMaxHeadSize) {
    const std::string go = "go to d_p = " + std::to_string(least) + "##theorem_least";
    if (ImGui::Button(go.c_str())) c.theorem_dp = least;  // not small: "g", "p" and "_" need the padding
    tooltip("Set the head size to this pattern's own smallest head, where it is made exactly.");
  }
  if (t->causal)
    wrapped_text_disabled(
        "Causal, n = %d: every pattern exactly from d_p = n - 1 = %d; almost every one from floor(n/2) = %d, "
        "and every one to any precision from there.",
        t->n, t->every_pattern_threshold, t->generic_threshold);
  else
    wrapped_text_disabled(
        "Full, n = %d: every pattern exactly from d_p = n - 1 = %d (LRB Thm 1 with a constant per query).", t->n,
        t->every_pattern_threshold);
  ImGui::PopTextWrapPos();
  // Three maps side by side, but no taller than leaves the error curve its 8 lines below them: the
  // curve is where the threshold shows (a lesson's projector had it below the fold). Down to 6
  // lines a map; a shorter panel scrolls.
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float room_y = ImGui::GetContentRegionAvail().y - line_h * 9.0f - ImGui::GetStyle().ItemSpacing.y * 2;
  const float w = std::min((ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3,
                           std::max(room_y, line_h * 6.0f));
  const Matrix* mats[] = {&t->target, &t->reached, &t->difference};
  const char* names[] = {"target P", "reached softmax", "difference"};
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine();
    widgets::HeatmapStyle style;
    style.title = names[i];
    style.size = ImVec2(w, 0);
    style.version = t->request_id * 4 + (t->curve_complete ? 1 : 0);
    if (i == 2) {
      style.colormap = widgets::Colormap::Diverging;
      style.auto_range = false;
      const float e = std::max(1e-6f, static_cast<float>(t->max_abs_error));
      style.vmin = -e;
      style.vmax = e;
    } else {
      style.auto_range = false;
      style.vmin = 0;
      style.vmax = 1;
    }
    style.tooltip_format = "query %s -> key %s: %.4f";
    widgets::Heatmap(names[i], mats[i]->data(), mats[i]->rows, mats[i]->cols, style);
  }
  // The rest of the panel, but at least 8 lines tall: in a short window (a projector's type) the
  // panel scrolls to it rather than squash it to one tick.
  const float curve_h = std::max(ImGui::GetContentRegionAvail().y, ImGui::GetTextLineHeightWithSpacing() * 8.0f);
  if (!t->curve_dp.empty() && widgets::BeginPlot("error vs head size##thm_curve", ImVec2(-1, curve_h))) {
    widgets::SetupAxes("head size d_p", "max |reached - P|", widgets::PlotFlags_LogY);
    // From d_p = 0, so that a mark at 1 (a pattern made exactly by one dimension) is not the edge.
    widgets::SetupAxisLimitsX(0, t->n + 2, widgets::PlotCond_Always);
    std::vector<float> floor(t->curve_error.size());
    for (size_t i = 0; i < floor.size(); ++i) floor[i] = std::max(1e-12f, t->curve_error[i]);
    widgets::PlotLine("error", t->curve_dp.data(), floor.data(), static_cast<int>(floor.size()));
    const float ny[2] = {1e-12f, 1.0f};
    const float every[2] = {float(t->every_pattern_threshold), float(t->every_pattern_threshold)};
    widgets::PlotLine("n - 1 (every P)", every, ny, 2, IM_COL32(230, 90, 60, 255));
    // The plot reads its series at EndPlot(): every array must live until then (ASan found this
    // one declared inside the `if`, out of scope by EndPlot()).
    const float generic[2] = {float(t->generic_threshold), float(t->generic_threshold)};
    if (t->causal) widgets::PlotLine("floor(n/2) (causal)", generic, ny, 2, IM_COL32(235, 190, 60, 255));
    const float least_x[2] = {float(t->minimal_head_size), float(t->minimal_head_size)};
    if (t->minimal_head_size >= 0 && t->minimal_head_size != t->generic_threshold &&
        t->minimal_head_size != t->every_pattern_threshold)
      widgets::PlotLine("this P, exactly", least_x, ny, 2, IM_COL32(120, 200, 120, 255));
    widgets::EndPlot();
  }
}

}  // namespace headroom::gui
