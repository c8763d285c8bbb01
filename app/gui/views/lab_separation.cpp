// The lab's Separation rank tab: VB's upper bound on how much a depth-L Transformer can tie the
// two halves of its input together (VB app. A, eq. 9; Thm 1: log sep = O~(L · min(r, d_x))),
// plotted against the width d_x for this model's embedding rank, for a full-rank embedding, and
// for one layer more; the token rank counts only the tokens that occur in its data (VB §5.2). It is a bound, not a
// measurement: the curves say what width and depth can buy at most, which is VB's argument for why a low-rank
// vocabulary caps width.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "app/gui/views/plot_series.h"
#include "core/analysis/separation_rank.h"
#include "widgets/line_plot.h"
#include "widgets/draw_util.h"

namespace headroom::gui {
namespace {

// log10 of VB eq. 9 for `spec` at width d_x: r = min(r, d_x, V, the symbols that occur),
// r_e = min(r_pos or d_x, d_x, n).
double log10_bound(const core::ModelSpec& spec, int d_x, int depth, int symbols) {
  return core::model_log_separation_rank_bound(spec, d_x, depth, symbols) / std::log(10.0);
}

}  // namespace

void draw_lab_separation(const LabSnapshot& s, const ViewContext& ctx) {
  const core::ModelSpec& spec = s.spec;
  const int L = spec.depth, d = spec.width, r = core::effective_embed_rank(spec);
  const int r_e = core::effective_pos_rank(spec);
  // The tokens that occur cap the rank the data can use (VB §5.2), as the vocabulary badge says.
  const int symbols = s.vocabulary_symbols > 0 && s.vocabulary_symbols < spec.vocab ? s.vocabulary_symbols : 0;
  core::ModelSpec full = spec;  // the same model with an unfactorised embedding: r = min(d_x, V)
  full.embed_rank = 0;
  const int d_max = std::max({128, 2 * d, 4 * r});
  const double here = log10_bound(spec, d, L, symbols), wider = log10_bound(spec, 2 * d, L, symbols),
               deeper = log10_bound(spec, d, L + 1, symbols);

  // An unfactorised embedding has r = min(d, V) at every width: its curve is the full-rank one.
  const bool factorised = spec.embed_rank > 0;
  std::string rank_text =
      factorised ? "embedding rank r = " + std::to_string(r) : "a full-rank embedding (r = " + std::to_string(r) + ")";
  const std::string data = s.vocabulary_data.empty() ? "its data" : s.vocabulary_data;
  if (symbols > 0 && symbols < r)
    rank_text += ", of which the " + std::to_string(symbols) + " tokens that occur in " + data +
                 " can use rank <= " + std::to_string(symbols);
  const std::string symbols_text =
      symbols > 0 ? " r counts only the " + std::to_string(symbols) + " of the V = " + std::to_string(spec.vocab) +
                        " tokens that occur in " + data +
                        ", as VB §5.2 does: embedding rows never trained add no rank the data can use."
                  : std::string();
  ImGui::PushTextWrapPos(0.0f);
  const std::string positions_text = spec.positions == core::Positions::None
                                         ? "no positional embedding (r_pos = 0)"
                                         : "positional rank r_pos = " + std::to_string(r_e);
  wrapped_text("VB eq. 9 bounds the separation rank of a depth-%d model with %s and %s: log10 sep <= %.0f at d = %d.",
               L, rank_text.c_str(), positions_text.c_str(), here, d);
  wrapped_text("Twice as wide (d = %d): %.0f%s.  One layer more (L = %d): %.0f.", 2 * d, wider,
               wider - here < 0.5 ? ", the same: the bound grows with min(r, d) + r_pos, and both are used up" : "",
               L + 1, deeper);
  wrapped_text_disabled(
      "An upper bound from the theory (VB Thm 1: log sep = O~(L min(r, d)); with a positional rank, eq. 9 adds r_pos "
      "<= min(d, n)), computed here, not measured: once d passes r and r_pos, width cannot raise it; depth multiplies "
      "it.%s",
      symbols_text.c_str());
  ImGui::PopTextWrapPos();

  // This model, a full-rank embedding (when this one is factorised) and one layer more. Labels
  // short: on a 4:3 projector the legend sits beside the plot.
  const std::string this_rank = factorised ? "r = " + std::to_string(r) : "full rank";
  std::vector<PlotSeries> series(factorised ? 3 : 2);
  series[0].label = this_rank + ", L = " + std::to_string(L);
  series.back().label = this_rank + ", L = " + std::to_string(L + 1);
  if (factorised) series[1].label = "full rank, L = " + std::to_string(L);
  for (size_t i = 0; i < series.size(); ++i) {
    // The one-layer-more curve keeps its colour whether or not the full-rank one is drawn.
    series[i].color = widgets::detail::palette_color(i + 1 == series.size() ? 2 : static_cast<int>(i));
    series[i].thickness = i == 0 ? 3.0f : 2.0f;
  }
  for (int x = 1; x <= d_max; x += std::max(1, d_max / 256)) {
    const float fx = static_cast<float>(x);
    series[0].x.push_back(fx), series[0].y.push_back(static_cast<float>(log10_bound(spec, x, L, symbols)));
    if (factorised)
      series[1].x.push_back(fx), series[1].y.push_back(static_cast<float>(log10_bound(full, x, L, symbols)));
    series.back().x.push_back(fx), series.back().y.push_back(static_cast<float>(log10_bound(spec, x, L + 1, symbols)));
  }
  const float h = std::max(160.0f * ctx.ui_scale, ImGui::GetContentRegionAvail().y);
  if (widgets::BeginPlot("##separation", ImVec2(-1, h))) {
    // Log y: the full-rank curve climbs by hundreds while a layer adds a few, and both must show.
    // Short: a longer label did not fit a lesson's plot height and was left out.
    widgets::SetupAxes("width d", "log10 sep. rank bound", widgets::PlotFlags_LogY);
    plot_all(series);
    widgets::PlotVLine("this d", d, with_alpha(ImGui::GetColorU32(ImGuiCol_Text), 140));
    widgets::EndPlot();
  }
}

}  // namespace headroom::gui
