// The lab's left column: the model's controls, the input, and scene files.
#include "app/gui/views/lab_model_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "app/gui/views/lesson_highlight.h"
#include "core/attention/attention_spec.h"
#include "core/io/atomic_file.h"

namespace headroom::gui {

LabModelPanel::LabModelPanel() {
  const char* home = std::getenv("HOME");
  std::snprintf(scene_path_, sizeof scene_path_, "%s/headroom-scene.json", home && *home ? home : ".");
}

void LabModelPanel::set_text(const std::string& text) {
  std::memset(text_buffer, 0, sizeof text_buffer);
  std::strncpy(text_buffer, text.c_str(), sizeof text_buffer - 1);
}

std::string LabModelPanel::field(const char* label) const {
  if (!stacked_) return label;
  ImGui::TextUnformatted(label);
  return std::string("##") + label;
}

namespace {
// The column's checkbox labels, the longest first.
const char* const kCheckboxLabels[] = {"start positions at zero", "positional embedding", "standard d_p = d/h"};
}  // namespace

float LabModelPanel::least_width() {
  const ImGuiStyle& style = ImGui::GetStyle();
  float widest = 0.0f;
  for (const char* label : kCheckboxLabels) widest = std::max(widest, labelled_width(ImGui::GetFrameHeight(), label));
  // The child window's padding and border on both sides, and its scrollbar.
  return widest + 2.0f * (style.WindowPadding.x + style.ChildBorderSize) + style.ScrollbarSize + 1.0f;
}

void LabModelPanel::count_if_clipped() { labels_clipped_ += item_runs_past_edge() ? 1 : 0; }

void LabModelPanel::draw(LabControls& c, const LabSnapshot* snapshot, const ViewContext& ctx) {
  labels_clipped_ = 0;
  // Labels keep the room their longest one needs (in any font size: a lesson's large type too), and
  // the widgets take the rest, at least 45% of the panel. A column too narrow for both, and for the
  // widest value ("general-bilinear" in the attention box), puts each label above its widget.
  const ImGuiStyle& style = ImGui::GetStyle();
  float longest = 0;
  for (const char* label : {"attention", "d (width)", "h (heads)", "h_k (key heads)", "h_v (value heads)",
                            "d_p (head size)", "r (emb. rank)", "r_pos (pos. rank)", "vocabulary", "L (layers)"})
    longest = std::max(longest, ImGui::CalcTextSize(label).x);
  const float label_room = longest + style.ItemInnerSpacing.x + style.ScrollbarSize;
  const float widest_value =
      ImGui::CalcTextSize("general-bilinear").x + ImGui::GetFrameHeight() + 2 * style.FramePadding.x;
  const float avail = ImGui::GetContentRegionAvail().x;
  const float beside = std::max(avail - label_room, avail * 0.45f);
  stacked_ = beside < widest_value || avail - beside < label_room - style.ScrollbarSize;
  ImGui::PushItemWidth(stacked_ ? -FLT_MIN : beside);
  ImGui::TextUnformatted("Model");
  ImGui::Separator();
  const auto& kinds = core::all_attention_kinds();
  int kind = static_cast<int>(std::find(kinds.begin(), kinds.end(), c.kind) - kinds.begin());
  if (ImGui::BeginCombo(field("attention").c_str(), core::to_string(c.kind))) {
    for (size_t i = 0; i < kinds.size(); ++i)
      if (ImGui::Selectable(core::to_string(kinds[i]), int(i) == kind)) {
        c.kind = kinds[i];
        if (c.kind == core::AttentionKind::FixedHead) c.standard_head_size = false;
        if (c.kind == core::AttentionKind::MultiHead) c.standard_head_size = true;
      }
    ImGui::EndCombo();
  }
  highlight_item("kind");
  help_marker(
      "multi-head: d_p = d/h (LRB eq. 8). fixed-head: d_p chosen freely (LRB §3). talking-heads: P_l mixes "
      "logits and P_w mixes weights across heads (TH §4); logits-proj / weights-proj use one of them (TH §7.1.3); "
      "dynamic-proj adds input-dependent projections (TH app. A); general-bilinear: P[d,d,h], Q[d,d,h] (TH §6).");
  ImGui::SliderInt(field("d (width)").c_str(), &c.d, 8, 512);
  highlight_item("d");
  ImGui::SliderInt(field("h (heads)").c_str(), &c.heads, 1, 64);
  highlight_item("heads");
  tooltip("Heads h. Shortcuts: [ halves, ] doubles.");
  if (core::is_talking_heads_family(c.kind)) {
    if (c.kind != core::AttentionKind::WeightsProj) {
      ImGui::SliderInt(field("h_k (key heads)").c_str(), &c.heads_k, 1, 64);
      highlight_item("heads_k");
    }
    if (c.kind != core::AttentionKind::LogitsProj) {
      ImGui::SliderInt(field("h_v (value heads)").c_str(), &c.heads_v, 1, 64);
      highlight_item("heads_v");
    }
  }
  if (c.kind != core::AttentionKind::GeneralBilinear) {
    if (ImGui::Checkbox("standard d_p = d/h", &c.standard_head_size)) {
      if (c.kind == core::AttentionKind::MultiHead && !c.standard_head_size) c.kind = core::AttentionKind::FixedHead;
      if (c.kind == core::AttentionKind::FixedHead && c.standard_head_size) c.kind = core::AttentionKind::MultiHead;
    }
    count_if_clipped();
    highlight_item("standard_head_size");
    tooltip(
        "On: head size d_p = d/h, so more heads means smaller heads (LRB eq. 8).\n"
        "Off: a fixed head size d_p, independent of d and h (LRB §3).");
    if (!c.standard_head_size) ImGui::SliderInt(field("d_p (head size)").c_str(), &c.head_size, 1, 256);
    else
      ImGui::TextDisabled("d_p = %d / %d = %s", c.d, c.heads,
                          c.heads > 0 && c.d % c.heads == 0 ? std::to_string(c.d / c.heads).c_str() : "not whole");
    highlight_item("head_size");
  }
  ImGui::SliderInt(field("r (emb. rank)").c_str(), &c.embed_rank, 0, c.d, c.embed_rank == 0 ? "full (r = d)" : "%d");
  highlight_item("embed_rank");
  tooltip(
      "Embedding rank r: the token embedding is V x r times r x d (VB §5.1). At the left end the embedding is\n"
      "not factorised: full rank, r = min(V, d).");
  ImGui::BeginDisabled(!c.positions);
  ImGui::SliderInt(field("r_pos (pos. rank)").c_str(), &c.pos_rank, 0, c.d,
                   !c.positions      ? "no positions"
                   : c.pos_rank == 0 ? "full"
                                     : "%d");
  ImGui::EndDisabled();
  highlight_item("pos_rank");
  tooltip(
      "Rank of the positional embedding (VB App. C.4): n x r_pos times r_pos x d. Layer 0's input has rank at\n"
      "most r + r_pos (+1 for LayerNorm); VB's bound assumes positions of rank 1. At the left end: full rank.");
  ImGui::Checkbox("positional embedding", &c.positions);
  count_if_clipped();
  highlight_item("positions");
  tooltip(
      "Off: the model has no positional embedding, and only the causal mask tells positions apart (query i\n"
      "sees i + 1 keys). A bidirectional model needs one: the lab says so instead of training.");
  ImGui::BeginDisabled(!c.positions);
  bool zero_start = c.pos_init == core::PosInit::Zero;
  if (ImGui::Checkbox("start positions at zero", &zero_start))
    c.pos_init = zero_start ? core::PosInit::Zero : core::PosInit::Random;
  count_if_clipped();
  ImGui::EndDisabled();
  highlight_item("pos_init");
  tooltip(
      "On: the positional table starts at zero (with r_pos > 0, its n x r_pos factor; the r_pos x d factor stays\n"
      "random, so the table still learns), and every other weight starts as it would with this off, for the\n"
      "same seed. In our KJV runs a low-rank positional table started this way no longer ended in bad seeds:\n"
      "docs/results/vb_pos_rank_full.md, \"Starting the positional table at zero\".");
  ImGui::BeginDisabled(!has_random_pos_start(c));
  ImGui::SliderFloat(field("pos. start scale").c_str(), &c.pos_init_scale, 0.1f, 4.0f,
                     !c.positions                        ? "no positions"
                     : c.pos_init == core::PosInit::Zero ? "zero start"
                                                         : "x %.2f",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  ImGui::EndDisabled();
  highlight_item("pos_init_scale");
  tooltip(
      "Scales the random positional start: drawn N(0, (0.02 s)^2) from the same draws as at s = 1 (with\n"
      "r_pos > 0, the n x r_pos factor), every other weight as at s = 1. In our KJV runs at rank 4 and 8, half\n"
      "the start already ended as well as the zero start: docs/results/vb_pos_rank_full.md, \"A smaller random\n"
      "start\". Ctrl+click to type a value.");
  static const char* kVocabularies[] = {"bytes", "bpe:257", "bpe:500", "bpe:2000"};
  if (ImGui::BeginCombo(field("vocabulary").c_str(), c.vocab.c_str())) {
    for (const char* v : kVocabularies)
      if (ImGui::Selectable(v, c.vocab == v)) c.vocab = v;
    ImGui::EndCombo();
  }
  highlight_item("vocab");
  tooltip(
      "bytes: V = 256. bpe:V: sentencepiece BPE with V pieces trained on the KJV train split (VB §5.2 used\n"
      "257, 500, 2000); trained once on first use (a few seconds), then cached. The rank of the embedding is\n"
      "at most min(V, r, d) (VB §2.1).");
  ImGui::SliderInt(field("L (layers)").c_str(), &c.layers, 1, 8);
  highlight_item("layers");
  ImGui::Checkbox("causal", &c.causal);
  count_if_clipped();
  highlight_item("causal");
  int seed = static_cast<int>(c.seed);
  if (ImGui::InputInt(field("seed").c_str(), &seed)) c.seed = static_cast<uint64_t>(std::max(0, seed));
  highlight_item("seed");

  ImGui::Spacing();
  ImGui::TextUnformatted("Input");
  ImGui::Separator();
  int input = c.input == LabInput::Text ? 0 : 1;
  ImGui::RadioButton("sentence", &input, 0);
  count_if_clipped();
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "synthetic"));
  ImGui::RadioButton("synthetic", &input, 1);
  count_if_clipped();
  highlight_item("input");
  c.input = input == 0 ? LabInput::Text : LabInput::Synthetic;
  if (c.input == LabInput::Text) {
    ImGui::InputTextMultiline("##text", text_buffer, sizeof text_buffer, ImVec2(-1, ImGui::GetTextLineHeight() * 3));
    highlight_item("text");
    if (snapshot && snapshot->valid) {
      ImGui::PushTextWrapPos(0.0f);
      wrapped_text_disabled("%s: n = %d tokens (<= context %d)", c.vocab.c_str(), snapshot->n, c.context);
      ImGui::PopTextWrapPos();
    }
  } else {
    ImGui::SliderInt(field("n").c_str(), &c.synthetic_n, 4, std::min(128, c.context));  // label above when stacked
    highlight_item("synthetic_n");
  }
  const char* tasks[] = {"copy", "reverse", "induction", "recall"};
  int task = static_cast<int>(c.task);
  if (ImGui::Combo(field("task").c_str(), &task, tasks, 4)) c.task = static_cast<core::SyntheticTask>(task);
  highlight_item("task");
  tooltip("The synthetic sequence shown, and what live training learns.");

  ImGui::Spacing();
  ImGui::TextUnformatted("Scene");
  ImGui::Separator();
  ImGui::InputText("##scene_path", scene_path_, sizeof scene_path_);
  ImGui::SameLine();
  if (ImGui::Button("Save")) save_scene(c);
  tooltip("Writes the whole lab state as a small JSON scene (open it with headroom --scene FILE).");
  ImGui::SameLine();
  if (ImGui::Button("Load") && load_scene_file(&c)) loaded_tab = static_cast<int>(c.tab);
  if (!scene_message_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    if (scene_error_) wrapped_text_colored(kProblem, "%s", scene_message_.c_str());
    else wrapped_text_disabled("%s", scene_message_.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::PopItemWidth();
}

void LabModelPanel::save_scene(LabControls& c) {
  c.text = text_buffer;
  const nlohmann::json scene = {{"view", "Lab"}, {"lab", to_json(c)}};
  std::string error;
  scene_error_ = !core::write_file_atomically(scene_path_, scene.dump(2) + "\n", &error);
  scene_message_ = scene_error_ ? error : std::string("saved ") + scene_path_;
}

bool LabModelPanel::load_scene_file(LabControls* into) {
  std::ifstream in(scene_path_);
  scene_error_ = true;
  if (!in) {
    scene_message_ = std::string("cannot open ") + scene_path_ + ": no such file";
    return false;
  }
  nlohmann::json scene;
  try {
    scene = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    scene_message_ = std::string(scene_path_) + " is not JSON: " + e.what();
    return false;
  }
  std::string error;
  LabControls loaded = *into;
  if (!scene.is_object() || !scene.contains("lab")) {
    scene_message_ = std::string(scene_path_) + " has no \"lab\" object (save one with Save)";
    return false;
  }
  if (!controls_from_json(scene["lab"], &loaded, &error)) {
    scene_message_ = std::string(scene_path_) + ": " + error;
    return false;
  }
  *into = loaded;  // only a scene that read completely replaces the controls
  std::memset(text_buffer, 0, sizeof text_buffer);
  std::strncpy(text_buffer, into->text.c_str(), sizeof text_buffer - 1);
  scene_error_ = false;
  scene_message_ = std::string("loaded ") + scene_path_;
  return true;
}

}  // namespace headroom::gui
