// The lab's P_l / P_w tab: the talking-heads projections as TH §7.4 / Fig. 1 shows them.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "widgets/heatmap.h"

namespace headroom::gui {

int draw_lab_projections(const LabSnapshot& s, LabControls& c, const ViewContext& ctx) {
  const int layers = static_cast<int>(s.layers.size());
  c.layer = std::clamp(c.layer, 0, layers - 1);
  if (layers > 1) layer_picker("projections", &c.layer, layers, ctx.ui_scale);
  const auto& l = s.layers[c.layer];
  if (!l.has_P_l && !l.has_P_w) {
    wrapped_text("%s has no talking-heads projections. Pick talking-heads, logits-proj, weights-proj or dynamic-proj.",
                 core::to_string(s.spec.attention.kind));
    return 0;
  }
  wrapped_text("TH §7.4 / Fig. 1: each matrix normalised to [-1, 1]. Rows are input heads, columns output heads.");
  struct Item {
    const char* name;
    const Projection* p;
  };
  std::vector<Item> items;
  if (l.has_P_l) items.push_back({"P_l (logits, h_k x h)", &l.P_l});
  if (l.has_P_w) items.push_back({"P_w (weights, h x h_v)", &l.P_w});
  if (l.has_P_l && l.has_P_w) items.push_back({"P_l x P_w", &l.P_lw});
  // As many maps a row as leave each room for its title (a lesson's "try it" column at 1024 wide: one).
  const float avail = ImGui::GetContentRegionAvail().x;
  float title_w = 0;
  for (const Item& item : items) title_w = std::max(title_w, ImGui::CalcTextSize(item.name).x);
  const size_t per_row =
      std::clamp<size_t>(static_cast<size_t>(avail / (title_w + 2 * ImGui::GetStyle().ItemSpacing.x)), 1, items.size());
  const float w = avail / per_row - ImGui::GetStyle().ItemSpacing.x;
  // A tall matrix (P_w with h = 16 > h_v = 4) keeps its square cells but no more height than the
  // panel has below its title and its three measures, so the measures stay in view.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float max_h = std::max(150.0f * ctx.ui_scale, ImGui::GetContentRegionAvail().y - 5.0f * line);
  const float visible_bottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
  int cut_off = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i % per_row) ImGui::SameLine();
    ImGui::BeginGroup();
    // Wrap the numbers at the map's own width: a group wider than its map pushes the next map out of view.
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    widgets::HeatmapStyle style;
    style.title = items[i].name;
    style.colormap = widgets::Colormap::Diverging;
    style.auto_range = false;
    style.vmin = -1;
    style.vmax = 1;
    style.version = s.version;
    const auto& m = items[i].p->normalised;
    const bool too_tall = w * static_cast<float>(m.rows) / static_cast<float>(std::max(m.cols, 1)) > max_h;
    style.size = ImVec2(w, too_tall ? max_h : 0.0f);
    style.tooltip_format = "in head %s -> out head %s: %.3f";
    widgets::Heatmap(items[i].name, m.data(), m.rows, m.cols, style);
    // One measure a line; a column too narrow for both puts the number under its name, never splits it.
    const auto measure = [](const char* name, double value) {
      char number[32];
      std::snprintf(number, sizeof number, "%.3g", value);
      ImGui::TextUnformatted(name);
      same_line_if_fits(ImGui::CalcTextSize(number).x);
      ImGui::TextUnformatted(number);
    };
    if (std::isnan(items[i].p->det)) {
      ImGui::TextUnformatted("not square");
    } else {
      measure("|det|", std::abs(items[i].p->det));
      measure("min |eigenvalue|", items[i].p->smallest_abs_eigenvalue);
    }
    measure("min singular value", items[i].p->smallest_sv);
    ImGui::PopTextWrapPos();
    tooltip(
        "TH §7.4: its trained BERT's projections had |det| > 1e-9 and smallest eigenvalue > 1e-3 (well\n"
        "conditioned). Eigenvalues of a non-symmetric matrix may be complex: shown is the smallest modulus.\n"
        "The smallest singular value is a different measure (it is <= the smallest |eigenvalue|).");
    ImGui::EndGroup();
    cut_off += ImGui::GetItemRectMax().y > visible_bottom ? 1 : 0;
  }
  return cut_off;
}

}  // namespace headroom::gui
