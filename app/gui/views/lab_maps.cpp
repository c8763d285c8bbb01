// The lab's Attention maps tab: every head's map at a stage (J, L, W, U; TH §4), one enlarged.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "app/gui/views/lesson_highlight.h"
#include "widgets/attention_lines.h"
#include "widgets/heatmap.h"
#include "widgets/heatmap_layout.h"
#include "widgets/neuron_view.h"

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

// Head ablation: a toggle per value head of the layer, the losses with the switched-off heads
// beside the whole model's, and (when asked) each head's importance as bars.
void draw_head_ablation(const LabSnapshot& s, LabControls& c, const ViewContext& ctx) {
  const int heads = s.spec.attention.heads_v;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("switch off:");
  help_marker(
      "Click a head to switch it off: its output (its rows of W_o) reads as zero, so it adds nothing to the "
      "residual stream; its own map is unchanged, later layers see the difference. Click again to switch it on. "
      "The weights are kept. MHA tutorial: many heads can be pruned with little loss.");
  if (heads <= 16) {  // a button per head
    for (int h = 0; h < heads; ++h) {
      const std::string text = std::to_string(h);
      same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
      const bool off = head_is_off(c, c.layer, h);
      if (off) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.55f, 0.18f, 0.16f, 1.0f));
      const std::string label = text + "##off" + text;
      if (ImGui::SmallButton(label.c_str())) toggle_head(&c, c.layer, h);
      if (off) ImGui::PopStyleColor();
    }
  } else {  // many heads: pick one, keep the row short so the maps keep their room
    static int pick = 0;
    pick = std::clamp(pick, 0, heads - 1);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::InputInt("##pick_head", &pick);
    ImGui::SameLine();
    if (ImGui::SmallButton(head_is_off(c, c.layer, pick) ? "switch on" : "switch off")) toggle_head(&c, c.layer, pick);
    int off_here = 0;
    for (const auto& [layer, head] : c.heads_off) off_here += layer == c.layer;
    ImGui::SameLine();
    ImGui::TextDisabled("%d off in this layer", off_here);
  }
  same_line_if_fits(ImGui::GetFrameHeight() + labelled_width(0, "importance"));
  ImGui::Checkbox("importance", &c.importance);
  highlight_item("importance");
  tooltip("Each head of this layer switched off alone: how much the validation loss rises (one forward per head).");
  const Ablation& a = s.ablation;
  if (!c.heads_off.empty() && !a.heads_off.empty()) {
    wrapped_text("loss on the input %.4g -> %.4g with %zu head%s off; on a validation batch of %s %.4g -> %.4g",
                 a.sentence_loss_all, a.sentence_loss, a.heads_off.size(), a.heads_off.size() == 1 ? "" : "s",
                 a.val_source.c_str(), a.val_loss_all, a.val_loss);
  } else {
    ImGui::Text("loss on the input %.4g", a.sentence_loss);
  }
  if (!c.importance || a.layer != c.layer || a.importance.empty()) return;
  // Bars: rise of the validation loss per head, the largest filling the row.
  const float row_h = ImGui::GetTextLineHeight() * 1.15f;
  const float width = ImGui::GetContentRegionAvail().x;
  double top = 1e-9;
  for (double v : a.importance) top = std::max(top, std::abs(v));
  ImGui::PushTextWrapPos(0.0f);
  wrapped_text_disabled("importance in layer %d: validation loss rise with the head off (%s)", a.layer,
                        a.val_source.c_str());
  ImGui::PopTextWrapPos();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float label_w = ImGui::CalcTextSize("head 00  ").x, value_w = ImGui::CalcTextSize("+0.000e-00 ").x;
  const float bar_w = std::max(20.0f, width - label_w - value_w);
  for (size_t h = 0; h < a.importance.size(); ++h) {
    const float y = at.y + h * row_h;
    char label[32], value[32];
    std::snprintf(label, sizeof label, "head %zu", h);
    std::snprintf(value, sizeof value, "%+.3g", a.importance[h]);  // tiny rises stay readable
    draw->AddText(ImVec2(at.x, y), ImGui::GetColorU32(ImGuiCol_Text), label);
    // A head already switched off adds nothing more ("+0" read as a useless head): its cost is the
    // loss line above, with every head switched off.
    if (std::find(a.heads_off.begin(), a.heads_off.end(), std::make_pair(a.layer, static_cast<int>(h))) !=
        a.heads_off.end()) {
      draw->AddText(ImVec2(at.x + label_w, y), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                    "(off: its cost is in the loss above)");
      continue;
    }
    const float len = static_cast<float>(std::abs(a.importance[h]) / top) * bar_w;
    const ImU32 col = a.importance[h] >= 0 ? ImGui::GetColorU32(ImGuiCol_PlotHistogram) : IM_COL32(150, 150, 150, 255);
    draw->AddRectFilled(ImVec2(at.x + label_w, y + 2), ImVec2(at.x + label_w + len, y + row_h - 2), col);
    draw->AddText(ImVec2(at.x + label_w + len + 4, y), ImGui::GetColorU32(ImGuiCol_Text), value);
  }
  ImGui::Dummy(ImVec2(width, row_h * a.importance.size()));
  (void)ctx;
}

// Which heads do one thing, read off W (core::head_role): the lab's answer to "what is head 3
// doing?", in one line above the maps, each head's mean weights in its tooltip.
void draw_head_roles(const LayerView& layer) {
  if (layer.roles.empty() || layer.roles[0].queries == 0) return;  // too short a sequence to tell
  const std::string line = core::describe_roles(layer.roles);
  ImGui::PushTextWrapPos(0.0f);
  wrapped_text_disabled("%s", line.empty() ? "No head puts half its weight on one key or spreads it evenly."
                                           : ("What heads do: " + line + ".").c_str());
  ImGui::PopTextWrapPos();
  if (!ImGui::IsItemHovered()) return;  // the per-head table only for a frame that shows it
  std::string tip =
      "Read off each head's weights W over the queries 2..n-1: the offset (self, previous token, k back) or\n"
      "the first token with at least half the mean weight names the head (an offset counts where a third of\n"
      "those queries can read it); a head spreading its weight nearly evenly (entropy >= 90% of uniform) is\n"
      "broad; others are mixed. Mean weights per head:\n";
  char row[224];
  for (size_t h = 0; h < layer.roles.size(); ++h) {
    const auto& r = layer.roles[h];
    std::snprintf(row, sizeof row, "\nhead %zu: self %.2f, previous %.2f, next %.2f, first %.2f, entropy %.2f: %s", h,
                  r.self, r.previous, r.next, r.first, r.entropy, core::role_label(r).c_str());
    if (r.kind == core::HeadRoleKind::Offset && (r.offset > 1 || r.offset < -1))
      std::snprintf(row + std::strlen(row), sizeof row - std::strlen(row), " (%.2f)", r.share);
    tip += row;
  }
  tooltip(tip);
}

// A head's role in short, over its tile in the model view and beside its name in the lines view's
// focus panel: at W only (what head_role reads), none for mixed heads.
std::string role_tag(const std::vector<core::HeadRole>& roles, size_t head, MapStage stage) {
  if (stage != MapStage::W || head >= roles.size() || roles[head].kind == core::HeadRoleKind::Mixed) return {};
  return core::role_short_label(roles[head]);
}

// What a head does, for its button's tooltip: "head 3: previous token (mean weight 0.62)"; "" when
// the sequence is too short to tell.
std::string head_role_tip(const LayerView& layer, size_t h) {
  if (h >= layer.roles.size() || layer.roles[h].queries == 0) return {};
  const core::HeadRole& r = layer.roles[h];
  char buf[160];
  if (r.kind == core::HeadRoleKind::Mixed)
    std::snprintf(buf, sizeof buf, "head %zu: mixed (no key takes half its weight, and it is not even)", h);
  else if (r.kind == core::HeadRoleKind::Broad)
    std::snprintf(buf, sizeof buf, "head %zu: broad (its rows' entropy %.2f of uniform)", h, r.entropy);
  else std::snprintf(buf, sizeof buf, "head %zu: %s (mean weight %.2f)", h, core::role_label(r).c_str(), r.share);
  return buf;
}

// One line per shown head for the focused token: its three strongest keys (a query) or readers
// (a key), in the head's colour.
// The focused token's strongest weights per shown head. With the query pinned, a head's name opens
// the neurons view of that head and query (*c), where its logits are taken apart.
void draw_lines_focus(const LabSnapshot& s, const LayerView& layer, const std::vector<bool>& shown, int token, bool key,
                      LabControls* c, std::vector<LinesViewDrawn::HeadLink>* links) {
  const int n = s.n;
  auto label = [&](int i) {
    return "'" + (i < static_cast<int>(s.tokens.size()) ? s.tokens[static_cast<size_t>(i)] : std::to_string(i)) +
           "' (" + std::to_string(i) + ")";
  };
  ImGui::TextUnformatted(((key ? "key " : "query ") + label(token) + (key ? " is read by" : " reads")).c_str());
  char row[64];
  for (size_t h = 0; h < layer.W.size(); ++h) {
    if (!shown[h]) continue;
    const Matrix& m = layer.W[h];
    if (m.rows != n || m.cols != n) continue;
    std::vector<std::pair<float, int>> top;  // weight, the other token
    for (int i = 0; i < n; ++i) {
      const float w = m.v[static_cast<size_t>(key ? i : token) * n + (key ? token : i)];
      if (w >= 0.005f) top.push_back({w, i});
    }
    std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    ImGui::PushStyleColor(ImGuiCol_Text, widgets::head_color(static_cast<int>(h), static_cast<int>(layer.W.size())));
    const std::string name = "head " + std::to_string(h);
    const bool pinned = c && !key && c->lines_query == token && h < layer.A.size();
    if (pinned) {
      if (ImGui::Selectable((name + "##neurons").c_str(), false, 0, ImGui::CalcTextSize(name.c_str()))) {
        c->map_view = MapView::Neurons;
        c->neuron_head = static_cast<int>(h);
      }
      if (links) {
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        links->push_back({static_cast<int>(h), 0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y)});
      }
      ImGui::PopStyleColor();
      tooltip("Take this head's logits for the pinned query apart (the neurons view).");
    } else {
      ImGui::TextUnformatted(name.c_str());
      ImGui::PopStyleColor();
    }
    if (const std::string role = role_tag(layer.roles, h, MapStage::W); !role.empty()) {
      ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);  // its role, as over its map
      ImGui::TextDisabled("(%s)", role.c_str());
    }
    // One entry per weight, each whole on a line (a narrow panel moves the next one down).
    const size_t shown_entries = std::min<size_t>(3, top.size());
    for (size_t i = 0; i < std::max<size_t>(1, shown_entries); ++i) {
      std::string entry = key ? "no query reads it" : "nothing above 0.005";
      if (i < shown_entries) {
        std::snprintf(row, sizeof row, "%.2f ", top[i].first);
        entry = row + label(top[i].second) + (i + 1 < shown_entries ? "," : "");
      }
      same_line_if_fits(ImGui::CalcTextSize(entry.c_str()).x);
      ImGui::TextUnformatted(entry.c_str());
    }
  }
}

// BertViz's head view: a toggle per head in its colour, the lines, and the focused token's reads.
void draw_lines_view(const LabSnapshot& s, const LayerView& layer, LabControls& c, LinesViewDrawn* drawn) {
  const int heads = static_cast<int>(layer.W.size());
  if (heads == 0 || s.n <= 0) return;
  if (c.lines_query >= s.n) c.lines_query = -1;  // a shorter input since it was pinned
  std::vector<bool> shown(static_cast<size_t>(heads), true);
  for (int h : c.lines_hidden)
    if (h >= 0 && h < heads) shown[static_cast<size_t>(h)] = false;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("heads");
  for (int h = 0; h < heads; ++h) {
    const std::string text = std::to_string(h);
    same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    const ImVec4 col = ImGui::ColorConvertU32ToFloat4(widgets::head_color(h, heads));
    const ImVec4 dim(col.x * 0.35f, col.y * 0.35f, col.z * 0.35f, 1.0f);
    ImGui::PushStyleColor(ImGuiCol_Button, shown[static_cast<size_t>(h)] ? col : dim);
    ImGui::PushStyleColor(ImGuiCol_Text,
                          shown[static_cast<size_t>(h)] ? ImVec4(0, 0, 0, 1) : ImVec4(0.6f, 0.6f, 0.6f, 1));
    if (ImGui::SmallButton((text + "##show").c_str())) {
      auto it = std::find(c.lines_hidden.begin(), c.lines_hidden.end(), h);
      if (it == c.lines_hidden.end()) {
        c.lines_hidden.push_back(h);
      } else {
        c.lines_hidden.erase(it);
      }
    }
    ImGui::PopStyleColor(2);
    const std::string role = head_role_tip(layer, static_cast<size_t>(h));
    tooltip((role.empty() ? "" : role + ". ") + "Click to hide or show its lines.");
  }
  same_line_if_fits(labelled_width(0, "all") + labelled_width(0, "none"));
  if (ImGui::SmallButton("all")) c.lines_hidden.clear();
  tooltip("Show every head's lines.");
  ImGui::SameLine();
  if (ImGui::SmallButton("none")) {
    c.lines_hidden.clear();
    for (int h = 0; h < heads; ++h) c.lines_hidden.push_back(h);
  }
  tooltip("Hide every head's lines (then click a head to show its own).");

  std::vector<const float*> maps;
  for (const auto& m : layer.W) maps.push_back(m.data());
  std::vector<const char*> tokens;
  for (const auto& t : s.tokens) tokens.push_back(t.c_str());
  const bool labelled = static_cast<int>(tokens.size()) == s.n;
  auto flags = std::make_unique<bool[]>(static_cast<size_t>(heads));
  for (int h = 0; h < heads; ++h) flags[static_cast<size_t>(h)] = shown[static_cast<size_t>(h)];

  const float avail_w = ImGui::GetContentRegionAvail().x;
  ImGui::BeginChild("##lines", ImVec2(std::max(200.0f, avail_w * 0.5f), 0));
  widgets::AttentionLinesStyle style;
  style.tokens = labelled ? tokens.data() : nullptr;
  const auto r = widgets::AttentionLines("##head_view", maps.data(), heads, flags.get(), s.n, c.lines_query, style);
  if (r.clicked_query >= 0) c.lines_query = r.clicked_query == c.lines_query ? -1 : r.clicked_query;
  if (drawn)
    *drawn = {true,           r.origin.x,       r.origin.y, r.geometry.size.x, r.geometry.size.y,
              r.geometry.top, r.geometry.row_h, s.n,        r.focus_query,     r.focus_key};
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##lines_focus");
  ImGui::PushTextWrapPos(0.0f);
  if (r.focus_query >= 0 || r.focus_key >= 0) {
    draw_lines_focus(s, layer, shown, r.focus_query >= 0 ? r.focus_query : r.focus_key, r.focus_query < 0, &c,
                     drawn ? &drawn->head_links : nullptr);
    if (c.lines_query >= 0)
      wrapped_text_disabled(r.hovered >= 0
                                ? "query %d is pinned"
                                : "pinned: click it again to unpin, or a head's name to take its logits apart",
                            c.lines_query);
  } else {
    wrapped_text_disabled(
        "Every query's lines from weight %.2g. Hover a token to keep only its lines: on the left what a query "
        "reads, on the right who reads a key. Click a query to pin it.",
        style.min_weight);
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

// What a head's logit is a sum of, in words, for the neurons view's caption.
std::string neuron_caption(const LabSnapshot& s, int r) {
  const auto& a = s.spec.attention;
  const std::string rs = std::to_string(r);
  if (!s.real.dir.empty() || !core::is_talking_heads_family(a.kind)) {
    if (a.kind == core::AttentionKind::GeneralBilinear)
      return "TH §6: logit = x_i P_h x_j, a = x_i P_h and b = x_j: d = " + rs + " products.";
    std::string t = "logit = q_i . k_j / sqrt(d_k): d_k = " + rs + " products a_c b_c";
    t += s.real.rotary ? " (q and k after the rotary position encoding)." : ".";
    if (r < s.n)
      t += " Fewer components than tokens (" + rs + " < n = " + std::to_string(s.n) +
           "): every logit of the head is built from these few numbers, rank <= " + rs + " (LRB §2.3).";
    return t;
  }
  if (a.kind == core::AttentionKind::WeightsProj)  // P_w only: a head's own logits
    return "logit = q_i . k_j / sqrt(d_k): d_k = " + rs + " products; P_w mixes the weights afterwards (TH §7.1.3).";
  std::string t =
      "The mixed logit L_h = sum_k P_l[k,h] q_k . k_k: a stacks every key head's q scaled by its P_l "
      "weight, b every key head's k (TH §4): h_k d_k = " +
      rs + " products, a key head's d_k = " + std::to_string(a.d_k) + " between two rules";
  if (a.kind == core::AttentionKind::DynamicProj) t += ", the key-dependent term's half of them (TH app. A)";
  return t + ".";
}

// BertViz's neuron view: one head, one query; each key's logit as the sum of r products a_c b_c.
void draw_neurons_view(const LabSnapshot& s, const LayerView& layer, LabControls& c, NeuronsViewDrawn* drawn) {
  const int heads = static_cast<int>(layer.A.size());
  if (heads == 0 || s.n <= 0 || layer.L.size() != layer.A.size()) {
    ImGui::TextDisabled("This layer's logits have no factors to take apart.");
    return;
  }
  if (c.neuron_head >= heads) c.neuron_head = 0;
  if (c.lines_query >= s.n) c.lines_query = -1;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("head");
  ImVec2 head_button(0, 0);
  for (int h = 0; h < heads; ++h) {
    const std::string text = std::to_string(h);
    same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    const bool on = h == c.neuron_head;
    const ImVec4 col = ImGui::ColorConvertU32ToFloat4(widgets::head_color(h, heads));
    ImGui::PushStyleColor(ImGuiCol_Button, on ? col : ImVec4(col.x * 0.35f, col.y * 0.35f, col.z * 0.35f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_Text, on ? ImVec4(0, 0, 0, 1) : ImVec4(0.6f, 0.6f, 0.6f, 1));
    if (ImGui::SmallButton((text + "##neuron_head").c_str())) c.neuron_head = h;
    if (on)
      head_button = ImVec2(0.5f * (ImGui::GetItemRectMin().x + ImGui::GetItemRectMax().x),
                           0.5f * (ImGui::GetItemRectMin().y + ImGui::GetItemRectMax().y));
    ImGui::PopStyleColor(2);
    if (const std::string role = head_role_tip(layer, static_cast<size_t>(h)); !role.empty()) tooltip(role);
  }
  const int query = c.lines_query >= 0 ? c.lines_query : s.n - 1;
  const bool labelled = static_cast<int>(s.tokens.size()) == s.n;
  const std::string qtok = labelled ? s.tokens[static_cast<size_t>(query)] : std::to_string(query);
  int q = query;
  ImGui::SetNextItemWidth(std::min(300.0f, ImGui::GetContentRegionAvail().x * 0.4f));
  if (ImGui::SliderInt("query", &q, 0, s.n - 1, ("%d '" + qtok + "'").c_str()) && q != query) c.lines_query = q;
  tooltip("The query whose logits are taken apart (the lines view's pinned query; the last token when none is).");
  const Matrix &A = layer.A[static_cast<size_t>(c.neuron_head)], &B = layer.B[static_cast<size_t>(c.neuron_head)];
  const Matrix& L = layer.L[static_cast<size_t>(c.neuron_head)];
  const Matrix* W =
      static_cast<size_t>(c.neuron_head) < layer.W.size() ? &layer.W[static_cast<size_t>(c.neuron_head)] : nullptr;
  const int r = A.cols;
  ImGui::PushTextWrapPos(0.0f);
  wrapped_text_disabled("%s", neuron_caption(s, r).c_str());
  ImGui::PopTextWrapPos();
  // Causal: the keys up to the query (the later ones are masked out of the softmax).
  const bool causal = s.real.dir.empty() ? s.spec.attention.causal : s.real.causal;
  const int keys = causal ? query + 1 : s.n;
  if (causal && query + 1 < s.n)
    ImGui::TextDisabled("Causal: the keys up to the query; the %d after it are masked out of its softmax.",
                        s.n - query - 1);
  std::vector<const char*> labels;
  for (int j = 0; j < keys && labelled; ++j) labels.push_back(s.tokens[static_cast<size_t>(j)].c_str());
  widgets::NeuronViewInput in;
  in.a = A.data() + static_cast<size_t>(query) * r;
  in.b = B.data();
  in.logits = L.data() + static_cast<size_t>(query) * L.cols;
  in.weights = W ? W->data() + static_cast<size_t>(query) * W->cols : nullptr;
  in.keys = keys;
  in.r = r;
  // Mixed logits stack the key heads' components: a rule between them.
  const int dk = s.spec.attention.d_k;
  if (s.real.dir.empty() && core::is_talking_heads_family(s.spec.attention.kind) && dk > 0 && r > dk && r % dk == 0)
    in.group = dk;
  in.key_labels = labelled ? labels.data() : nullptr;
  const std::string query_label = "query '" + qtok + "' (a)";
  in.query_label = query_label.c_str();
  ImGui::BeginChild("##neurons", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const auto res = widgets::NeuronView("##neuron_view", in);
  ImGui::EndChild();
  if (drawn)
    *drawn = {true,
              c.neuron_head,
              query,
              keys,
              r,
              widgets::neuron_sum_error(in),
              res.origin.x,
              res.origin.y,
              res.geometry.keys_y,
              res.geometry.cell_h,
              res.geometry.products_x,
              res.geometry.cell_w,
              head_button.x,
              head_button.y};
}

// BertViz's model view: every layer's heads at the chosen stage, a row per layer, small; a click
// opens that head enlarged in its layer's maps.

void draw_model_view(const LabSnapshot& s, LabControls& c, const ViewContext& ctx, ModelViewDrawn* drawn) {
  const int layers = static_cast<int>(s.layers.size());
  int heads = 0;
  for (const auto& l : s.layers) heads = std::max(heads, static_cast<int>(stage_maps(l, c.stage).size()));
  if (layers == 0 || heads == 0) return;
  ImGui::TextDisabled("%d layers x %d heads (%s); a click opens the head in its layer", layers, heads,
                      to_string(c.stage));
  const ImGuiStyle& st = ImGui::GetStyle();
  const float gap = 3.0f * ctx.ui_scale;
  const float row_label_w = ImGui::CalcTextSize("layer 00").x + st.ItemSpacing.x;
  const bool weights = c.stage == MapStage::W || c.stage == MapStage::U;
  const float scale_w = weights ? widgets::ColorScaleWidth(0.0f, 1.0f) + st.ItemSpacing.x : 0.0f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float head_h = ImGui::GetTextLineHeightWithSpacing();  // a head's number over its tile
  const float layer_gap = 4.0f * gap;
  // Every layer the same grid of heads, tiles as large as fit: a layer's heads wrap onto more rows
  // where the height allows (2 layers of 16 heads: 2 rows of 8 each, not one row of 16 thumbnails);
  // never below 12 px, where the panel scrolls.
  const widgets::GridLayout grid = widgets::grid_layout(
      heads, avail.x - row_label_w - scale_w, (avail.y - (layers - 1) * layer_gap) / layers, gap, head_h, 12.0f);
  const float tile = grid.tile_w;
  const float layer_h = grid.rows * (grid.tile_h + gap) - gap;
  int drawn_roles = 0;
  ImGui::BeginChild("##model_view", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  char text[48];
  widgets::HeatmapStyle style;
  style.show_axis_labels = false;
  style.show_scale = false;
  style.square_cells = false;
  style.version = s.version;
  style.colormap = weights ? widgets::Colormap::Viridis : widgets::Colormap::Diverging;
  style.auto_range = !weights;
  style.size = ImVec2(tile, tile);
  std::vector<const char*> labels;
  for (const auto& t : s.tokens) labels.push_back(t.c_str());
  const bool labelled = static_cast<int>(labels.size()) == s.n;
  style.row_labels = labelled ? labels.data() : nullptr;  // the tooltips name the tokens
  style.col_labels = style.row_labels;
  style.tooltip_format = weights ? "query '%s' -> key '%s': weight %.3f" : "query '%s' -> key '%s': logit %.3f";
  const ImU32 number_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  std::vector<std::array<float, 4>> centres;
  for (int l = 0; l < layers; ++l) {
    const auto& maps = stage_maps(s.layers[static_cast<size_t>(l)], c.stage);
    const auto& layer_roles = s.layers[static_cast<size_t>(l)].roles;
    const float y0 = origin.y + l * (layer_h + layer_gap);
    std::snprintf(text, sizeof text, "layer %d", l);
    draw->AddText(ImVec2(origin.x, y0 + 0.5f * (layer_h - ImGui::GetTextLineHeight())),
                  ImGui::GetColorU32(ImGuiCol_Text), text);
    if (l > 0)  // a rule between layers
      draw->AddLine(ImVec2(origin.x, y0 - 0.5f * layer_gap),
                    ImVec2(origin.x + row_label_w + grid.cols * (tile + gap) - gap, y0 - 0.5f * layer_gap),
                    ImGui::GetColorU32(ImGuiCol_Separator));
    for (size_t h = 0; h < maps.size(); ++h) {
      const int col = static_cast<int>(h) % grid.cols, row = static_cast<int>(h) / grid.cols;
      const float x = origin.x + row_label_w + col * (tile + gap);
      const float y = y0 + row * (grid.tile_h + gap);
      std::snprintf(text, sizeof text, "%zu", h);
      const float w = ImGui::CalcTextSize(text).x;
      // At W, the head's role beside its number where the tile is wide enough ("3 prev").
      const std::string role = role_tag(layer_roles, h, c.stage);
      const float role_w = role.empty() ? 0.0f : ImGui::CalcTextSize(role.c_str()).x + st.ItemInnerSpacing.x;
      if (role_w > 0.0f && w + role_w + gap <= tile) {
        const float x0 = x + 0.5f * (tile - w - role_w);
        draw->AddText(ImVec2(x0, y), number_col, text);
        draw->AddText(ImVec2(x0 + w + st.ItemInnerSpacing.x, y), ImGui::GetColorU32(ImGuiCol_Text), role.c_str());
        ++drawn_roles;
      } else if (w + gap <= tile || h % 2 == 0) {  // every other number where they crowd
        draw->AddText(ImVec2(x + 0.5f * (tile - w), y), number_col, text);
      }
      ImGui::SetCursorScreenPos(ImVec2(x, y + head_h));
      centres.push_back({static_cast<float>(l), static_cast<float>(h), x + 0.5f * tile, y + head_h + 0.5f * tile});
      std::snprintf(text, sizeof text, "##m%d_%zu", l, h);
      if (widgets::Heatmap(text, maps[h].data(), s.n, s.n, style)) {
        c.layer = l;
        c.enlarged_head = static_cast<int>(h);
        c.map_view = MapView::Heatmaps;
      }
    }
  }
  const float grid_w = row_label_w + grid.cols * (tile + gap);
  const float grid_h = layers * (layer_h + layer_gap) - layer_gap;
  if (weights) {  // one colour scale for every tile
    ImGui::SetCursorScreenPos(ImVec2(origin.x + grid_w + st.ItemSpacing.x, origin.y + head_h));
    widgets::ColorScale("##model_scale", style.colormap, 0.0f, 1.0f,
                        ImVec2(scale_w - st.ItemSpacing.x, std::max(60.0f, grid_h - head_h)));
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(grid_w + scale_w, grid_h));
  if (drawn) *drawn = {true, grid.rows, grid.cols, tile, drawn_roles, std::move(centres)};
  ImGui::EndChild();
}

}  // namespace

void layer_picker(const char* id, int* layer, int layers, float ui_scale) {
  ImGui::PushID(id);
  ImGui::BeginGroup();
  if (layers > 8) {
    ImGui::SetNextItemWidth(200 * ui_scale);
    ImGui::SliderInt("layer", layer, 0, layers - 1);
  } else {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("layer");
    for (int l = 0; l < layers; ++l) {
      ImGui::SameLine();
      ImGui::RadioButton(std::to_string(l).c_str(), layer, l);
    }
  }
  ImGui::EndGroup();
  ImGui::PopID();
}

void draw_lab_maps(const LabSnapshot& s, LabControls& c, const ViewContext& ctx, MapsDrawn* drawn) {
  const int layers = static_cast<int>(s.layers.size());
  c.layer = std::clamp(c.layer, 0, layers - 1);
  const bool th = core::is_talking_heads_family(s.spec.attention.kind);
  const char* names[] = {"J raw logits", "L mixed logits", "W weights", "U mixed weights"};
  if (layers > 1 && c.map_view != MapView::Model) {  // a one-layer model has nothing to choose
    layer_picker("maps", &c.layer, layers, ctx.ui_scale);
    highlight_item("layer");
    // The stage buttons beside the layers when they fit, below them when not (a lesson at 1024 wide).
    float stages = 0;
    for (const char* n :
         th ? std::vector<const char*>(names, names + 4) : std::vector<const char*>{"logits", "weights"})
      stages += labelled_width(ImGui::GetFrameHeight(), n) + ImGui::GetStyle().ItemSpacing.x;
    same_line_if_fits(stages);
  }
  if (c.map_view == MapView::Lines || c.map_view == MapView::Neurons) {
    // Lines are drawn from the weights W, neurons from the logits L and W: no stage to choose.
  } else if (th) {
    int stage = static_cast<int>(c.stage);
    ImGui::BeginGroup();           // one item, so a lesson's highlight frames all four
    for (int i = 0; i < 4; ++i) {  // wrapping inside the group where the panel is narrower than the row
      if (i) same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), names[i]));
      ImGui::RadioButton(names[i], &stage, i);
    }
    ImGui::EndGroup();
    c.stage = static_cast<MapStage>(stage);
    highlight_item("stage");
    help_marker("TH §4: J = Q K^T per key head (h_k); L = J P_l (h heads); W = softmax(L); U = W P_w (h_v heads).");
  } else {
    int stage = c.stage == MapStage::J || c.stage == MapStage::L ? 0 : 1;
    ImGui::BeginGroup();
    ImGui::RadioButton("logits", &stage, 0);
    ImGui::SameLine();
    ImGui::RadioButton("weights", &stage, 1);
    ImGui::EndGroup();
    c.stage = stage == 0 ? MapStage::L : MapStage::W;
    highlight_item("stage");
  }
  // Heatmaps of one layer, lines between the tokens, or every layer at once.
  const MapView views[] = {MapView::Heatmaps, MapView::Lines, MapView::Model, MapView::Neurons};
  // The group below: " view", then each button after an item spacing.
  float views_w = ImGui::CalcTextSize(" view").x + 4 * ImGui::GetStyle().ItemSpacing.x;
  for (MapView v : views) views_w += labelled_width(ImGui::GetFrameHeight(), to_string(v));
  same_line_if_fits(views_w);
  int view = static_cast<int>(c.map_view);
  ImGui::BeginGroup();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled(" view");  // apart from the stage buttons before it
  for (MapView v : views) {      // wrapping inside the group on a panel narrower than the row (a projector)
    same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), to_string(v)));
    ImGui::RadioButton(to_string(v), &view, static_cast<int>(v));
  }
  ImGui::EndGroup();
  c.map_view = static_cast<MapView>(view);
  highlight_item("map_view");
  tooltip(
      "maps: a heatmap per head of one layer (query rows, key columns); lines: BertViz's head view, the tokens "
      "joined by lines as opaque as each head's weights; all layers: every layer's heads at once, a click opens "
      "one (BertViz's model view); neurons: one head's logits for one query as sums of products of its query's "
      "and each key's numbers (BertViz's neuron view)");
  if (c.map_view == MapView::Lines)
    help_marker(
        "BertViz's head view: the tokens twice, queries on the left and keys on the right. A line from query i "
        "to key j is as opaque as the head's weight W[i][j] (softmax of the logits), one colour per head. Hover a "
        "token to keep only its lines: what a query reads, or who reads a key. Click a query to pin it.");
  const bool real = !s.real.dir.empty();  // a real checkpoint: no ablation (the lab's own models only)
  if (c.map_view == MapView::Model) {     // switching heads off is per layer: in the layer's own view
    draw_model_view(s, c, ctx, drawn ? &drawn->model : nullptr);
    return;
  }
  if (!real) draw_head_ablation(s, c, ctx);
  const bool grouped = real && s.real.kv_heads < s.real.heads;
  const auto& layer = s.layers[c.layer];
  if (c.map_view == MapView::Lines) {
    draw_head_roles(layer);
    draw_lines_view(s, layer, c, drawn ? &drawn->lines : nullptr);
    return;
  }
  if (c.map_view == MapView::Neurons) {
    draw_neurons_view(s, layer, c, drawn ? &drawn->neurons : nullptr);
    return;
  }
  const auto& maps = stage_maps(layer, c.stage);
  if (c.stage == MapStage::W) draw_head_roles(layer);
  std::vector<const char*> labels;
  for (const auto& t : s.tokens) labels.push_back(t.c_str());
  std::vector<const float*> ptrs;
  std::vector<std::string> titles;
  std::vector<const char*> title_ptrs;
  for (size_t h = 0; h < maps.size(); ++h) {
    ptrs.push_back(maps[h].data());
    // Value heads are what ablation switches off: name them on the maps that are per value head.
    const bool per_value_head = c.stage == MapStage::U || !core::is_talking_heads_family(s.spec.attention.kind);
    std::string title = "head " + std::to_string(h);
    if (grouped && h < s.real.kv_group.size()) title += " kv " + std::to_string(s.real.kv_group[h]);  // its group
    if (per_value_head && head_is_off(c, c.layer, static_cast<int>(h))) title += " (off)";
    titles.push_back(std::move(title));
  }
  for (auto& t : titles) title_ptrs.push_back(t.c_str());
  const bool weights = c.stage == MapStage::W || c.stage == MapStage::U;
  widgets::HeatmapStyle style;
  style.row_labels = labels.data();
  style.col_labels = labels.data();
  style.version = s.version;
  style.colormap = weights ? widgets::Colormap::Viridis : widgets::Colormap::Diverging;
  style.auto_range = false;
  style.vmin = 0.0f;
  style.vmax = 1.0f;
  if (!weights) {
    // Logits: one range, symmetric about 0, for every head of the layer, so that the maps compare
    // and one colour scale beside them reads them all (each map on its own range had none).
    float top = 0.0f;
    for (const auto& m : maps)
      for (const float v : m.v)
        if (std::isfinite(v)) top = std::max(top, std::fabs(v));
    style.vmax = top > 0.0f ? top : 1.0f;
    style.vmin = -style.vmax;
  }
  style.tooltip_format = weights ? "query '%s' -> key '%s': weight %.3f" : "query '%s' -> key '%s': logit %.3f";
  if (c.enlarged_head >= static_cast<int>(maps.size())) c.enlarged_head = -1;
  if (maps.size() == 1) {  // one head: the map itself, large, with its tokens on the axes
    const std::string title = "layer " + std::to_string(c.layer) + ", head 0 (" + to_string(c.stage) + ")";
    style.title = title.c_str();
    style.size = ImVec2(0, ImGui::GetContentRegionAvail().y);
    widgets::Heatmap("##single", maps[0].data(), s.n, s.n, style);
    return;
  }
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
    std::string title = "layer " + std::to_string(c.layer) + ", head " + std::to_string(c.enlarged_head) + " (" +
                        to_string(c.stage) + ")";
    // Its role where the weights name one (the line above the grid): "previous token, 0.93".
    const auto head = static_cast<size_t>(c.enlarged_head);
    if (c.stage == MapStage::W && head < layer.roles.size() && layer.roles[head].kind != core::HeadRoleKind::Mixed) {
      char share[16];
      std::snprintf(share, sizeof share, "%.2f", layer.roles[head].share);
      title += ": " + core::role_label(layer.roles[head]) +
               (layer.roles[head].kind == core::HeadRoleKind::Broad ? ", entropy " : ", ") + share;
    }
    title += " - click to close";
    style.title = title.c_str();
    style.size = ImVec2(0, 0);
    if (widgets::Heatmap("##big", maps[c.enlarged_head].data(), s.n, s.n, style)) c.enlarged_head = -1;
    ImGui::EndChild();
  }
}

}  // namespace headroom::gui
