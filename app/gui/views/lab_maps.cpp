// The lab's Attention maps tab: every head's map at a stage (J, L, W, U; TH §4), one enlarged.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "widgets/heatmap.h"

namespace headroom::gui {
namespace {

const std::vector<Matrix>& stage_maps(const LayerView& l, MapStage s) {
  switch (s) {
    case MapStage::J: return l.J;
    case MapStage::L: return l.L;
    case MapStage::W: return l.W;
    case MapStage::U: return l.U;
  }
  return l.W;
}

}  // namespace

void draw_lab_maps(const LabSnapshot& s, LabControls& c, const ViewContext& ctx) {
  const int layers = static_cast<int>(s.layers.size());
  c.layer = std::clamp(c.layer, 0, layers - 1);
  ImGui::SetNextItemWidth(200 * ctx.ui_scale);
  ImGui::SliderInt("layer", &c.layer, 0, layers - 1);
  const bool th = core::is_talking_heads_family(s.spec.attention.kind);
  if (th) {
    ImGui::SameLine();
    int stage = static_cast<int>(c.stage);
    const char* names[] = {"J raw logits", "L mixed logits", "W weights", "U mixed weights"};
    for (int i = 0; i < 4; ++i) {
      ImGui::SameLine();
      ImGui::RadioButton(names[i], &stage, i);
    }
    c.stage = static_cast<MapStage>(stage);
    help_marker("TH §4: J = Q K^T per key head (h_k); L = J P_l (h heads); W = softmax(L); U = W P_w (h_v heads).");
  } else {
    ImGui::SameLine();
    int stage = c.stage == MapStage::J || c.stage == MapStage::L ? 0 : 1;
    ImGui::RadioButton("logits", &stage, 0);
    ImGui::SameLine();
    ImGui::RadioButton("weights", &stage, 1);
    c.stage = stage == 0 ? MapStage::L : MapStage::W;
  }
  const auto& layer = s.layers[c.layer];
  const auto& maps = stage_maps(layer, c.stage);
  std::vector<const char*> labels;
  for (const auto& t : s.tokens) labels.push_back(t.c_str());
  std::vector<const float*> ptrs;
  std::vector<std::string> titles;
  std::vector<const char*> title_ptrs;
  for (size_t h = 0; h < maps.size(); ++h) {
    ptrs.push_back(maps[h].data());
    titles.push_back("head " + std::to_string(h));
  }
  for (auto& t : titles) title_ptrs.push_back(t.c_str());
  const bool weights = c.stage == MapStage::W || c.stage == MapStage::U;
  widgets::HeatmapStyle style;
  style.row_labels = labels.data();
  style.col_labels = labels.data();
  style.version = s.version;
  style.colormap = weights ? widgets::Colormap::Viridis : widgets::Colormap::Diverging;
  style.auto_range = !weights;
  style.vmin = 0.0f;
  style.vmax = 1.0f;
  style.tooltip_format = weights ? "query '%s' -> key '%s': weight %.3f" : "query '%s' -> key '%s': logit %.3f";
  if (c.enlarged_head >= static_cast<int>(maps.size())) c.enlarged_head = -1;
  const float grid_width = c.enlarged_head >= 0 ? ImGui::GetContentRegionAvail().x * 0.45f : 0.0f;
  ImGui::BeginChild("##grid", ImVec2(grid_width, 0));
  style.size = ImVec2(0, ImGui::GetContentRegionAvail().y);  // every head fits on screen
  const int clicked = widgets::HeatmapGrid("##heads", ptrs.data(), static_cast<int>(ptrs.size()), s.n, s.n,
                                           title_ptrs.data(), style, c.enlarged_head, 64.0f * ctx.ui_scale);
  if (clicked >= 0) c.enlarged_head = clicked == c.enlarged_head ? -1 : clicked;
  ImGui::EndChild();
  if (c.enlarged_head >= 0) {
    ImGui::SameLine();
    ImGui::BeginChild("##enlarged");
    const std::string title = "layer " + std::to_string(c.layer) + ", head " + std::to_string(c.enlarged_head) + " (" +
                              to_string(c.stage) + ") - click to close";
    style.title = title.c_str();
    style.size = ImVec2(0, 0);
    if (widgets::Heatmap("##big", maps[c.enlarged_head].data(), s.n, s.n, style)) c.enlarged_head = -1;
    ImGui::EndChild();
  }
}

}  // namespace headroom::gui
