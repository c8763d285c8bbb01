#include "app/gui/views/lab_view.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "app/gui/gui_options.h"
#include "app/gui/ui_util.h"
#include "core/io/spec_json.h"
#include "widgets/heatmap.h"
#include "widgets/line_plot.h"
#include "widgets/spectrum.h"

namespace headroom::gui {
namespace {

using Clock = std::chrono::steady_clock;

const ImVec4 kBadgeLrb(0.85f, 0.35f, 0.25f, 1.0f);
const ImVec4 kBadgeVb(0.55f, 0.40f, 0.85f, 1.0f);
const ImVec4 kBadgeTh(0.20f, 0.60f, 0.75f, 1.0f);

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

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

LabView::LabView(ViewContext& context) : context_(context), snap_(engine_.snapshot()) {
  select_tab_ = static_cast<int>(c_.tab);
  std::strncpy(text_buffer_, c_.text.c_str(), sizeof text_buffer_ - 1);
  const char* home = std::getenv("HOME");
  std::snprintf(scene_path_, sizeof scene_path_, "%s/headroom-scene.json", home && *home ? home : ".");
}

bool LabView::load_scene(const nlohmann::json& scene, std::string* error) {
  if (!scene.contains("lab")) return true;
  if (!controls_from_json(scene["lab"], &c_, error)) return false;
  select_tab_ = static_cast<int>(c_.tab);
  std::memset(text_buffer_, 0, sizeof text_buffer_);
  std::strncpy(text_buffer_, c_.text.c_str(), sizeof text_buffer_ - 1);
  return true;
}

nlohmann::json LabView::state() const {
  nlohmann::json j;
  j["lab"] = to_json(c_);
  if (snap_ && snap_->valid) {
    j["model"] = core::to_json(snap_->spec);
    j["model"]["n"] = snap_->n;
    j["lab_snapshot"] = {{"layers", snap_->layers.size()},
                         {"heads", snap_->layers.empty() ? 0 : snap_->layers[0].W.size()},
                         {"version", snap_->version}};
  }
  if (!problems_.empty()) {
    j["problems"] = nlohmann::json::array();
    for (const auto& p : problems_) j["problems"].push_back({{"field", p.field}, {"message", p.message}});
  }
  return j;
}

nlohmann::json LabView::bench_metrics() const {
  if (latency_ms_.empty()) return nlohmann::json::object();
  return {{"snapshot_ms_median", percentile(latency_ms_, 0.5)},
          {"snapshot_ms_p95", percentile(latency_ms_, 0.95)},
          {"snapshot_samples", latency_ms_.size()}};
}

bool LabView::settled() const {
  if (!problems_.empty()) return true;
  if (!snap_ || snap_->request_id < last_posted_) return false;
  if (stored_posted_ > stored_seen_) return false;  // a stored run is still being read
  // The frame a tab bar first appears lays it out and shows its first tab; a tab chosen by the
  // scene is drawn from the next frame on.
  if (snap_->valid && frames_shown_ < 2) return false;
  if (c_.tab == LabTab::Theorem) {
    auto t = theorem_.snapshot();
    return t->request_id >= theorem_posted_ && (t->curve_complete || !t->error.empty());
  }
  return true;
}

void LabView::post_now(int single_steps, bool reset) {
  core::ModelSpec spec;
  if (!model_spec_of(c_, &spec, &problems_)) return;
  auto req = lab_request_of(c_, spec);
  req.single_steps = single_steps;
  req.reset_training = reset;
  last_posted_ = engine_.post(req);
  posted_at_[last_posted_] = Clock::now();
}

std::string LabView::request_key(const core::ModelSpec& spec) const {
  return core::to_json(spec).dump() + "|" + c_.vocab + "|" + c_.text + "|" + std::to_string(int(c_.input)) +
         std::to_string(int(c_.task)) + std::to_string(c_.synthetic_n) + "|" + std::to_string(c_.seed) + "|" +
         std::to_string(c_.training) + "|" + std::to_string(c_.lr);
}

void LabView::open_stored(const StoredCheckpoint& checkpoint) {
  stored_message_.clear();
  stored_opening_ = checkpoint.run_name;
  stored_posted_ = engine_.open_stored(checkpoint);
}

void LabView::take_stored(const LabSnapshot& s) {
  const StoredRunState& st = s.stored;
  if (stored_posted_ == 0 || st.request_id < stored_posted_ || st.request_id == stored_seen_) return;
  stored_seen_ = st.request_id;
  stored_opening_.clear();
  if (!st.error.empty()) {
    stored_message_ = st.error;  // the lab keeps the model (and a stored run) it had
    return;
  }
  stored_message_.clear();
  stored_ = st;
  stored_scrub_ = st.index;
  // The sliders show the stored model; its key counts as posted, so the controls do not
  // rebuild the model the engine just loaded.
  controls_from_model_spec(s.spec, st.run.tokenizer, &c_);
  c_.training = false;
  core::ModelSpec controls_spec;
  if (model_spec_of(c_, &controls_spec, &problems_)) posted_key_ = request_key(controls_spec);
  else stored_message_ = "the stored model is not one the lab's controls can show";
}

void LabView::draw_stored_run() {
  if (!stored_opening_.empty()) ImGui::TextDisabled("opening %s...", stored_opening_.c_str());
  if (!stored_message_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kProblem, "%s", stored_message_.c_str());
    ImGui::PopTextWrapPos();
  }
  if (!stored_) return;
  ImGui::Spacing();
  ImGui::TextUnformatted("Stored run");
  ImGui::Separator();
  ImGui::TextWrapped("%s", stored_->run.run_name.c_str());
  const int last = static_cast<int>(stored_->steps.size()) - 1;
  stored_scrub_ = std::clamp(stored_scrub_, 0, last);
  const std::string label = "step " + std::to_string(stored_->steps[static_cast<size_t>(stored_scrub_)]);
  if (ImGui::SliderInt("##stored_step", &stored_scrub_, 0, last, label.c_str()) && stored_scrub_ != stored_->index) {
    StoredCheckpoint at = stored_->run;
    at.step = stored_->steps[static_cast<size_t>(stored_scrub_)];
    stored_posted_ = engine_.open_stored(at);  // latest wins: scrubbing fast loads what it lands on
  }
  tooltip("Replay training: each stop is a checkpoint the worker stored (maps, spectra and P_l / P_w at that step).");
  if (stored_posted_ > stored_seen_) ImGui::TextDisabled("loading step %lld...", static_cast<long long>(stored_->steps[static_cast<size_t>(stored_scrub_)]));
  else ImGui::TextDisabled("%d stored steps, vocabulary %s", last + 1, stored_->run.tokenizer.c_str());
  if (ImGui::SmallButton("Leave stored run")) stored_.reset();
  tooltip("Keep the model in the lab (you can train it on), but stop following the stored run.");
}

void LabView::sync() {
  c_.text = text_buffer_;
  // Benchmark mode: a control change every few frames (the seed: a full rebuild and recompute).
  if (context_.options && context_.options->bench_frames > 0 && ++bench_frame_ % 6 == 0) c_.seed++;

  if (context_.open_in_lab) {
    open_stored(*context_.open_in_lab);
    context_.open_in_lab.reset();
  }
  core::ModelSpec spec;
  if (model_spec_of(c_, &spec, &problems_)) {
    const std::string key = request_key(spec);
    if (key != posted_key_) {
      // A control that changes the model's shapes leaves the stored run (its weights are gone).
      if (stored_ && !same_shapes(spec, snap_ && snap_->valid ? snap_->spec : spec)) stored_.reset();
      posted_key_ = key;
      post_now();
    }
  }
  auto s = engine_.snapshot();
  if (s != snap_) {
    auto it = posted_at_.find(s->request_id);
    if (it != posted_at_.end()) {
      latency_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - it->second).count());
      posted_at_.erase(posted_at_.begin(), std::next(it));
    }
    snap_ = s;
    frames_shown_ = 0;
    take_stored(*s);
  }

  if (c_.tab == LabTab::Theorem) {
    TheoremRequest t;
    t.pattern = c_.pattern;
    t.n = c_.theorem_n;
    t.d_p = c_.theorem_dp;
    t.causal = c_.theorem_causal;
    t.seed = c_.seed;
    std::string key = std::to_string(int(t.pattern)) + "/" + std::to_string(t.n) + "/" + std::to_string(t.d_p) + "/" +
                      std::to_string(t.seed) + (t.causal ? "/causal" : "/full");
    if (t.pattern == TargetPattern::HeadMap && snap_ && snap_->valid && !snap_->layers.empty()) {
      const auto& l = snap_->layers[std::min<size_t>(c_.layer, snap_->layers.size() - 1)];
      const int h = std::clamp(c_.theorem_head, 0, int(l.W.size()) - 1);
      t.head_map = l.W[h];
      t.n = l.W[h].rows;  // the head's own n
      key += "/head" + std::to_string(h) + "/v" + std::to_string(snap_->version);
    }
    if (key != theorem_key_) {
      theorem_key_ = key;
      theorem_posted_ = theorem_.post(t);
    }
  }
}

// ImGui 1.86 names few keys; the GLFW backend indexes io.KeysDown by GLFW key codes.
void LabView::handle_shortcuts() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl) return;
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) c_.training = !c_.training;
  if (ImGui::IsKeyPressed(GLFW_KEY_S) && !c_.training) post_now(1);
  if (ImGui::IsKeyPressed(GLFW_KEY_R)) post_now(0, true);
  if (ImGui::IsKeyPressed(GLFW_KEY_LEFT_BRACKET)) c_.heads = std::max(1, c_.heads / 2);
  if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT_BRACKET)) c_.heads = std::min(64, c_.heads * 2);
  for (int t = 0; t < 4; ++t)
    if (ImGui::IsKeyPressed(GLFW_KEY_1 + t)) c_.tab = static_cast<LabTab>(t), select_tab_ = t;
}

void LabView::draw() {
  handle_shortcuts();
  sync();
  // The controls take at most 30% of the width, so the maps keep the room on a projector.
  const float left = std::min(330.0f * context_.ui_scale, ImGui::GetContentRegionAvail().x * 0.30f);
  ImGui::BeginChild("##lab_controls", ImVec2(left, 0), true);
  draw_stored_run();
  draw_controls();
  if (snap_) draw_training(*snap_);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##lab_main", ImVec2(0, 0), false);
  if (!problems_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kProblem);
    for (const auto& p : problems_) ImGui::TextWrapped("Impossible %s: %s", p.field.c_str(), p.message.c_str());
    ImGui::PopStyleColor();
    ImGui::TextDisabled("Showing the last model that works.");
    ImGui::Separator();
  }
  if (snap_ && snap_->valid) {
    draw_summary(*snap_);
    if (ImGui::BeginTabBar("##lab_tabs")) {
      const LabTab tabs[] = {LabTab::Heads, LabTab::Rank, LabTab::Projections, LabTab::Theorem};
      const char* labels[] = {"Attention maps", "Rank", "P_l / P_w", "Theorem 1"};
      for (int i = 0; i < 4; ++i) {
        // A tab chosen by a scene or a shortcut is selected once; afterwards clicks decide.
        const ImGuiTabItemFlags flags = select_tab_ == static_cast<int>(tabs[i]) ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(labels[i], nullptr, flags);
        const std::string key = "Shortcut: " + std::to_string(i + 1);
        tooltip(key.c_str());
        if (open) {
          if (select_tab_ < 0) c_.tab = tabs[i];
          switch (tabs[i]) {
            case LabTab::Heads: draw_heads(*snap_); break;
            case LabTab::Rank: draw_rank(*snap_); break;
            case LabTab::Projections: draw_projections(*snap_); break;
            case LabTab::Theorem: draw_theorem(); break;
          }
          ImGui::EndTabItem();
        }
      }
      select_tab_ = -1;
      ImGui::EndTabBar();
    }
    ++frames_shown_;
  } else if (problems_.empty()) {
    ImGui::TextDisabled("Building the model...");
  }
  ImGui::EndChild();
}

void LabView::draw_controls() {
  // Widgets take a bit over half the panel and labels the rest, whatever the font scale.
  ImGui::PushItemWidth(std::max(ImGui::GetContentRegionAvail().x - 120.0f * context_.ui_scale, ImGui::GetContentRegionAvail().x * 0.56f));
  ImGui::TextUnformatted("Model");
  ImGui::Separator();
  const auto& kinds = core::all_attention_kinds();
  int kind = static_cast<int>(std::find(kinds.begin(), kinds.end(), c_.kind) - kinds.begin());
  if (ImGui::BeginCombo("attention", core::to_string(c_.kind))) {
    for (size_t i = 0; i < kinds.size(); ++i)
      if (ImGui::Selectable(core::to_string(kinds[i]), int(i) == kind)) {
        c_.kind = kinds[i];
        if (c_.kind == core::AttentionKind::FixedHead) c_.standard_head_size = false;
        if (c_.kind == core::AttentionKind::MultiHead) c_.standard_head_size = true;
      }
    ImGui::EndCombo();
  }
  help_marker("multi-head: d_p = d/h (LRB eq. 8). fixed-head: d_p chosen freely (LRB §3). talking-heads: P_l mixes "
              "logits and P_w mixes weights across heads (TH §4); logits-proj / weights-proj use one of them (TH §7.1.3); "
              "dynamic-proj adds input-dependent projections (TH app. A); general-bilinear: P[d,d,h], Q[d,d,h] (TH §6).");
  ImGui::SliderInt("d (width)", &c_.d, 8, 512);
  ImGui::SliderInt("h (heads)", &c_.heads, 1, 64);
  tooltip("Heads h. Shortcuts: [ halves, ] doubles.");
  if (core::is_talking_heads_family(c_.kind)) {
    if (c_.kind != core::AttentionKind::WeightsProj) ImGui::SliderInt("h_k (key heads)", &c_.heads_k, 1, 64);
    if (c_.kind != core::AttentionKind::LogitsProj) ImGui::SliderInt("h_v (value heads)", &c_.heads_v, 1, 64);
  }
  if (c_.kind != core::AttentionKind::GeneralBilinear) {
    if (ImGui::Checkbox("standard d_p = d/h", &c_.standard_head_size)) {
      if (c_.kind == core::AttentionKind::MultiHead && !c_.standard_head_size) c_.kind = core::AttentionKind::FixedHead;
      if (c_.kind == core::AttentionKind::FixedHead && c_.standard_head_size) c_.kind = core::AttentionKind::MultiHead;
    }
    tooltip("On: head size d_p = d/h, so more heads means smaller heads (LRB eq. 8).\n"
            "Off: a fixed head size d_p, independent of d and h (LRB §3).");
    if (!c_.standard_head_size) ImGui::SliderInt("d_p (head size)", &c_.head_size, 1, 256);
    else ImGui::TextDisabled("d_p = %d / %d = %s", c_.d, c_.heads, c_.heads > 0 && c_.d % c_.heads == 0 ? std::to_string(c_.d / c_.heads).c_str() : "not whole");
  }
  ImGui::SliderInt("r (emb. rank)", &c_.embed_rank, 0, c_.d, c_.embed_rank == 0 ? "full (r = d)" : "%d");
  tooltip("Embedding rank r: the token embedding is V x r times r x d (VB §5.1). At the left end the embedding is\n"
          "not factorised: full rank, r = min(V, d).");
  static const char* kVocabularies[] = {"bytes", "bpe:257", "bpe:500", "bpe:2000"};
  if (ImGui::BeginCombo("vocabulary", c_.vocab.c_str())) {
    for (const char* v : kVocabularies)
      if (ImGui::Selectable(v, c_.vocab == v)) c_.vocab = v;
    ImGui::EndCombo();
  }
  tooltip("bytes: V = 256. bpe:V: sentencepiece BPE with V pieces trained on the KJV train split (VB §5.2 used\n"
          "257, 500, 2000); trained once on first use (a few seconds), then cached. The rank of the embedding is\n"
          "at most min(V, r, d) (VB §2.1).");
  ImGui::SliderInt("L (layers)", &c_.layers, 1, 8);
  ImGui::Checkbox("causal", &c_.causal);
  int seed = static_cast<int>(c_.seed);
  if (ImGui::InputInt("seed", &seed)) c_.seed = static_cast<uint64_t>(std::max(0, seed));

  ImGui::Spacing();
  ImGui::TextUnformatted("Input");
  ImGui::Separator();
  int input = c_.input == LabInput::Text ? 0 : 1;
  ImGui::RadioButton("sentence", &input, 0);
  ImGui::SameLine();
  ImGui::RadioButton("synthetic", &input, 1);
  c_.input = input == 0 ? LabInput::Text : LabInput::Synthetic;
  if (c_.input == LabInput::Text) {
    ImGui::InputTextMultiline("##text", text_buffer_, sizeof text_buffer_, ImVec2(-1, ImGui::GetTextLineHeight() * 3));
    if (snap_ && snap_->valid) ImGui::TextDisabled("%s: n = %d tokens (<= context %d)", c_.vocab.c_str(), snap_->n, c_.context);
  } else {
    ImGui::SliderInt("n", &c_.synthetic_n, 4, std::min(128, c_.context));
  }
  const char* tasks[] = {"copy", "reverse", "induction", "recall"};
  int task = static_cast<int>(c_.task);
  if (ImGui::Combo("task", &task, tasks, 4)) c_.task = static_cast<core::SyntheticTask>(task);
  tooltip("The synthetic sequence shown, and what live training learns.");

  ImGui::Spacing();
  ImGui::TextUnformatted("Scene");
  ImGui::Separator();
  ImGui::InputText("##scene_path", scene_path_, sizeof scene_path_);
  ImGui::SameLine();
  if (ImGui::Button("Save")) save_scene();
  tooltip("Writes the whole lab state as a small JSON scene (open it with headroom --scene FILE).");
  ImGui::SameLine();
  if (ImGui::Button("Load")) load_scene_file();
  if (!scene_message_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    if (scene_error_) ImGui::TextColored(kProblem, "%s", scene_message_.c_str());
    else ImGui::TextDisabled("%s", scene_message_.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::PopItemWidth();
}

void LabView::save_scene() {
  c_.text = text_buffer_;
  const nlohmann::json scene = {{"view", name()}, {"lab", to_json(c_)}};
  std::ofstream out(scene_path_);
  out << scene.dump(2) << "\n";
  scene_error_ = !out;
  scene_message_ = scene_error_ ? std::string("cannot write ") + scene_path_ + ": check the folder exists and is writable"
                                : std::string("saved ") + scene_path_;
}

void LabView::load_scene_file() {
  std::ifstream in(scene_path_);
  scene_error_ = true;
  if (!in) {
    scene_message_ = std::string("cannot open ") + scene_path_ + ": no such file";
    return;
  }
  nlohmann::json scene;
  try {
    scene = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    scene_message_ = std::string(scene_path_) + " is not JSON: " + e.what();
    return;
  }
  std::string error;
  LabControls loaded = c_;
  if (!scene.is_object() || !scene.contains("lab")) {
    scene_message_ = std::string(scene_path_) + " has no \"lab\" object (save one with Save)";
    return;
  }
  if (!controls_from_json(scene["lab"], &loaded, &error)) {
    scene_message_ = std::string(scene_path_) + ": " + error;
    return;
  }
  c_ = loaded;  // only a scene that read completely replaces the controls
  std::memset(text_buffer_, 0, sizeof text_buffer_);
  std::strncpy(text_buffer_, c_.text.c_str(), sizeof text_buffer_ - 1);
  select_tab_ = static_cast<int>(c_.tab);
  scene_error_ = false;
  scene_message_ = std::string("loaded ") + scene_path_;
}

void LabView::draw_training(const LabSnapshot& s) {
  ImGui::Spacing();
  ImGui::TextUnformatted("Live training");
  ImGui::Separator();
  if (ImGui::Button(c_.training ? "Pause" : "Train")) c_.training = !c_.training;
  tooltip("Train on the synthetic task in the background (Space).");
  ImGui::SameLine();
  ImGui::BeginDisabled(c_.training);
  if (ImGui::Button("Step")) post_now(1);
  tooltip("One optimiser step (S).");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Reset")) post_now(0, true);
  tooltip("Re-initialise the weights from the seed (R).");
  ImGui::SliderFloat("lr", &c_.lr, 1e-4f, 1e-2f, "%.4f", ImGuiSliderFlags_Logarithmic);
  if (!s.valid) return;
  ImGui::Text("step %lld  %s", static_cast<long long>(s.training.step), s.training.task.c_str());
  if (!s.training.loss.empty()) {
    ImGui::SameLine();
    ImGui::Text("loss %.3f", s.training.loss.back());
    if (widgets::BeginPlot("##loss", ImVec2(-1, 150 * context_.ui_scale))) {
      widgets::SetupAxes("step", "train loss", widgets::PlotFlags_LogY | widgets::PlotFlags_NoLegend);
      widgets::PlotLine("loss", s.training.steps.data(), s.training.loss.data(), static_cast<int>(s.training.loss.size()));
      widgets::EndPlot();
    }
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("Changing the input, causal or the task keeps the weights; changing a shape starts over.");
  ImGui::PopTextWrapPos();
}

void LabView::draw_summary(const LabSnapshot& s) {
  // Wrapped: in presentation mode (large fonts) these lines are wider than the panel.
  ImGui::TextWrapped("%s", core::describe(s.spec).c_str());
  ImGui::TextWrapped("n = %d   params/attention layer %s   multiplies/attention layer %s   model params %s   (%.1f ms)",
                     s.n, human_count(double(s.costs.params)).c_str(), human_count(double(s.costs.multiplies)).c_str(),
                     human_count(double(s.parameters)).c_str(), s.compute_ms);
  tooltip("Costs by TH §5, computed for this spec and n (not copied from a table).");
  for (const auto& b : s.bottlenecks) {
    const ImVec4 color = b.paper == "LRB" ? kBadgeLrb : b.paper == "VB" ? kBadgeVb : kBadgeTh;
    ImGui::PushStyleColor(ImGuiCol_Button, color);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, color);
    const std::string label = b.paper + " " + b.section + "##" + b.id;
    ImGui::SmallButton(label.c_str());
    ImGui::PopStyleColor(2);
    ImGui::SameLine();
    ImGui::TextWrapped("%s", b.message.c_str());
  }
  if (s.bottlenecks.empty())
    ImGui::TextDisabled("No bottleneck at this n: every head reaches every attention pattern (rank cap >= n - 1, LRB Thm 1).");
}

void LabView::draw_heads(const LabSnapshot& s) {
  const int layers = static_cast<int>(s.layers.size());
  c_.layer = std::clamp(c_.layer, 0, layers - 1);
  ImGui::SetNextItemWidth(200 * context_.ui_scale);
  ImGui::SliderInt("layer", &c_.layer, 0, layers - 1);
  const bool th = core::is_talking_heads_family(s.spec.attention.kind);
  if (th) {
    ImGui::SameLine();
    int stage = static_cast<int>(c_.stage);
    const char* names[] = {"J raw logits", "L mixed logits", "W weights", "U mixed weights"};
    for (int i = 0; i < 4; ++i) {
      ImGui::SameLine();
      ImGui::RadioButton(names[i], &stage, i);
    }
    c_.stage = static_cast<MapStage>(stage);
    help_marker("TH §4: J = Q K^T per key head (h_k); L = J P_l (h heads); W = softmax(L); U = W P_w (h_v heads).");
  } else {
    ImGui::SameLine();
    int stage = c_.stage == MapStage::J || c_.stage == MapStage::L ? 0 : 1;
    ImGui::RadioButton("logits", &stage, 0);
    ImGui::SameLine();
    ImGui::RadioButton("weights", &stage, 1);
    c_.stage = stage == 0 ? MapStage::L : MapStage::W;
  }
  const auto& layer = s.layers[c_.layer];
  const auto& maps = stage_maps(layer, c_.stage);
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
  const bool weights = c_.stage == MapStage::W || c_.stage == MapStage::U;
  widgets::HeatmapStyle style;
  style.row_labels = labels.data();
  style.col_labels = labels.data();
  style.version = s.version;
  style.colormap = weights ? widgets::Colormap::Viridis : widgets::Colormap::Diverging;
  style.auto_range = !weights;
  style.vmin = 0.0f;
  style.vmax = 1.0f;
  style.tooltip_format = weights ? "query '%s' -> key '%s': weight %.3f" : "query '%s' -> key '%s': logit %.3f";
  if (c_.enlarged_head >= static_cast<int>(maps.size())) c_.enlarged_head = -1;
  const float grid_width = c_.enlarged_head >= 0 ? ImGui::GetContentRegionAvail().x * 0.45f : 0.0f;
  ImGui::BeginChild("##grid", ImVec2(grid_width, 0));
  style.size = ImVec2(0, ImGui::GetContentRegionAvail().y);  // every head fits on screen
  const int clicked = widgets::HeatmapGrid("##heads", ptrs.data(), static_cast<int>(ptrs.size()), s.n, s.n,
                                           title_ptrs.data(), style, c_.enlarged_head, 64.0f * context_.ui_scale);
  if (clicked >= 0) c_.enlarged_head = clicked == c_.enlarged_head ? -1 : clicked;
  ImGui::EndChild();
  if (c_.enlarged_head >= 0) {
    ImGui::SameLine();
    ImGui::BeginChild("##enlarged");
    const std::string title = "layer " + std::to_string(c_.layer) + ", head " + std::to_string(c_.enlarged_head) +
                              " (" + to_string(c_.stage) + ") - click to close";
    style.title = title.c_str();
    style.size = ImVec2(0, 0);
    if (widgets::Heatmap("##big", maps[c_.enlarged_head].data(), s.n, s.n, style)) c_.enlarged_head = -1;
    ImGui::EndChild();
  }
}

void LabView::draw_rank(const LabSnapshot& s) {
  const int layers = static_cast<int>(s.layers.size());
  c_.layer = std::clamp(c_.layer, 0, layers - 1);
  ImGui::SetNextItemWidth(200 * context_.ui_scale);
  ImGui::SliderInt("layer##rank", &c_.layer, 0, layers - 1);
  const auto& l = s.layers[c_.layer];
  const auto& a = s.spec.attention;
  ImGui::Text("Theory caps each logit matrix at rank %d = min(n = %d, d = %d, %s).", l.rank_cap, s.n, a.d_model,
              a.kind == core::AttentionKind::DynamicProj ? "2 min(d, h_k d_k)"
              : core::has_logits_projection(a.kind)      ? "h_k d_k"
              : a.kind == core::AttentionKind::GeneralBilinear ? "d" : "d_p");
  tooltip("LRB §2.3: (W_k X)^T (W_q X) has rank <= d_p, and X is d wide. Talking-heads mixes h_k such matrices\n"
          "(TH §4); dynamic projections add a second term of the same rank (TH app. A). A cap of n - 1 already\n"
          "reaches every pattern (softmax ignores a constant per query); causal heads reach random patterns\n"
          "from floor(n/2) (docs/causal_threshold.md).");
  ImGui::Text("This layer's input (n x d) has measured rank %d.", l.input_rank);
  if (c_.layer == 0)
    ImGui::TextDisabled("Layer 0's input is LayerNorm(token + position): rank <= r + r_pos (+1 for the LayerNorm bias) = %d, "
                        "so the input also caps layer 0.", s.input_rank_cap);
  else
    ImGui::TextDisabled("Deeper layers mix the embedding's low rank away (residual + MLP), so only min(n, d_p) applies.");
  ImGui::Text("Token embedding (V x d): measured rank %d of r = %d.", s.embedding_rank, core::effective_embed_rank(s.spec));
  ImGui::Separator();
  const int heads = static_cast<int>(l.spectra.size());
  const float avail = ImGui::GetContentRegionAvail().x;
  const int cols = std::max(1, std::min(heads, static_cast<int>(avail / (240.0f * context_.ui_scale))));
  const float w = avail / cols - ImGui::GetStyle().ItemSpacing.x;
  std::vector<float> sv;
  for (int h = 0; h < heads; ++h) {
    const auto& sp = l.spectra[h];
    sv.assign(sp.singular_values.begin(), sp.singular_values.end());
    widgets::SpectrumStyle style;
    style.tolerance = static_cast<float>(sp.tolerance);
    const std::string title = "head " + std::to_string(h) + ": rank " + std::to_string(sp.rank) + ", deficit " +
                              std::to_string(s.n - sp.rank) + "##spec" + std::to_string(h);
    widgets::SpectrumBars(title.c_str(), sv.data(), static_cast<int>(sv.size()), sp.rank, l.rank_cap,
                          ImVec2(w, 150 * context_.ui_scale), style);
    if ((h + 1) % cols != 0 && h + 1 < heads) ImGui::SameLine();
  }
}

void LabView::draw_projections(const LabSnapshot& s) {
  const int layers = static_cast<int>(s.layers.size());
  c_.layer = std::clamp(c_.layer, 0, layers - 1);
  ImGui::SetNextItemWidth(200 * context_.ui_scale);
  ImGui::SliderInt("layer##proj", &c_.layer, 0, layers - 1);
  const auto& l = s.layers[c_.layer];
  if (!l.has_P_l && !l.has_P_w) {
    ImGui::TextWrapped("%s has no talking-heads projections. Pick talking-heads, logits-proj, weights-proj or dynamic-proj.",
                       core::to_string(s.spec.attention.kind));
    return;
  }
  ImGui::TextWrapped("TH §7.4 / Fig. 1: each matrix normalised to [-1, 1]. Rows are input heads, columns output heads.");
  struct Item {
    const char* name;
    const Projection* p;
  };
  std::vector<Item> items;
  if (l.has_P_l) items.push_back({"P_l (logits, h_k x h)", &l.P_l});
  if (l.has_P_w) items.push_back({"P_w (weights, h x h_v)", &l.P_w});
  if (l.has_P_l && l.has_P_w) items.push_back({"P_l x P_w", &l.P_lw});
  const float w = ImGui::GetContentRegionAvail().x / items.size() - ImGui::GetStyle().ItemSpacing.x;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) ImGui::SameLine();
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
    style.size = ImVec2(w, 0);
    style.tooltip_format = "in head %s -> out head %s: %.3f";
    const auto& m = items[i].p->normalised;
    widgets::Heatmap(items[i].name, m.data(), m.rows, m.cols, style);
    if (std::isnan(items[i].p->det)) ImGui::TextWrapped("not square; smallest singular value %.3g", items[i].p->smallest_sv);
    else
      ImGui::TextWrapped("|det| %.3g   smallest |eigenvalue| %.3g   smallest singular value %.3g", std::abs(items[i].p->det),
                         items[i].p->smallest_abs_eigenvalue, items[i].p->smallest_sv);
    ImGui::PopTextWrapPos();
    tooltip("TH §7.4: its trained BERT's projections had |det| > 1e-9 and smallest eigenvalue > 1e-3 (well\n"
            "conditioned). Eigenvalues of a non-symmetric matrix may be complex: shown is the smallest modulus.\n"
            "The smallest singular value is a different measure (it is <= the smallest |eigenvalue|).");
    ImGui::EndGroup();
  }
}

void LabView::draw_theorem() {
  const char* patterns[] = {"identity", "previous token", "uniform", "random", "a head's map", "self vs past"};
  int p = static_cast<int>(c_.pattern);
  ImGui::SetNextItemWidth(180 * context_.ui_scale);
  if (ImGui::Combo("target", &p, patterns, 6)) c_.pattern = static_cast<TargetPattern>(p);
  ImGui::SameLine();
  if (c_.pattern == TargetPattern::HeadMap) {
    ImGui::SetNextItemWidth(120 * context_.ui_scale);
    ImGui::SliderInt("head##thm", &c_.theorem_head, 0, 63);
  } else {
    ImGui::SetNextItemWidth(160 * context_.ui_scale);
    ImGui::SliderInt("n##thm", &c_.theorem_n, 2, 24);
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(200 * context_.ui_scale);
  ImGui::SliderInt("d_p##thm", &c_.theorem_dp, 1, 32);
  ImGui::SameLine();
  ImGui::Checkbox("causal##thm", &c_.theorem_causal);
  help_marker("LRB Theorem 1: if d_p >= n, any positive column-stochastic P is Softmax((W_k X)^T (W_q X)/sqrt(d_p)) for "
              "some W_q, W_k (the construction, eqs. 4-7). Softmax ignores a constant added to a query's logits, so "
              "d_p = n - 1 already suffices (the construction here uses it). Causal (query j sees keys 0..j): almost "
              "every target is reached exactly from d_p = floor(n/2); 'self vs past' only approximately, with ever "
              "larger weights, until n - 1. Below, the best fit (L-BFGS, float64). Proof and measurements: "
              "docs/causal_threshold.md.");
  auto t = theorem_.snapshot();
  if (!t->error.empty()) {
    ImGui::TextColored(kProblem, "%s", t->error.c_str());
    return;
  }
  if (!t->ready) {
    ImGui::TextDisabled("computing...");
    return;
  }
  ImGui::Text("%s, n = %d, d_p = %d, X is %d x %d: max |reached - target| = %.2e by %s", t->causal ? "causal" : "full",
              t->n, t->d_p, t->d, t->n, t->max_abs_error, t->method.c_str());
  ImGui::PushTextWrapPos(0.0f);
  if (t->d_p >= t->every_pattern_threshold)
    ImGui::TextDisabled("d_p >= n - 1 = %d: every positive %spattern is reachable, exactly (LRB Thm 1 with a constant per query).",
                        t->every_pattern_threshold, t->causal ? "causal " : "");
  else if (t->causal && t->d_p >= t->generic_threshold)
    ImGui::TextDisabled("floor(n/2) = %d <= d_p < n - 1 = %d: almost every causal pattern is reachable exactly; structured "
                        "ones like 'self vs past' only approximately, with ever larger weights.",
                        t->generic_threshold, t->every_pattern_threshold);
  else
    ImGui::TextDisabled("d_p < %d = %s: almost every %spattern is out of reach, even approximately; the fit's error stays.",
                        t->generic_threshold,
                        t->causal ? "floor(n/2)" : "n - 1", t->causal ? "causal " : "");
  ImGui::PopTextWrapPos();
  const float w = (ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3;
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
  if (!t->curve_dp.empty() && widgets::BeginPlot("error vs head size##thm_curve", ImVec2(-1, -1))) {
    widgets::SetupAxes("head size d_p", "max |reached - P|", widgets::PlotFlags_LogY);
    std::vector<float> floor(t->curve_error.size());
    for (size_t i = 0; i < floor.size(); ++i) floor[i] = std::max(1e-12f, t->curve_error[i]);
    widgets::PlotLine("error", t->curve_dp.data(), floor.data(), static_cast<int>(floor.size()));
    const float ny[2] = {1e-12f, 1.0f};
    const float every[2] = {float(t->every_pattern_threshold), float(t->every_pattern_threshold)};
    widgets::PlotLine("d_p = n - 1: every pattern", every, ny, 2, IM_COL32(230, 90, 60, 255));
    if (t->causal) {
      const float generic[2] = {float(t->generic_threshold), float(t->generic_threshold)};
      widgets::PlotLine("d_p = floor(n/2): random causal patterns", generic, ny, 2, IM_COL32(90, 170, 230, 255));
    }
    widgets::EndPlot();
  }
}

}  // namespace headroom::gui
