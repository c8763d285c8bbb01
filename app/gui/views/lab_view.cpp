#include "app/gui/views/lab_view.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "app/gui/explorer/data_paths.h"
#include "app/gui/gui_options.h"
#include "app/gui/ui_util.h"
#include "app/gui/views/lab_panels.h"
#include "app/gui/views/lesson_highlight.h"
#include "core/io/spec_json.h"

namespace headroom::gui {
namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

}  // namespace

LabView::LabView(ViewContext& context) : context_(context), snap_(engine_.snapshot()) {
  select_tab_ = static_cast<int>(c_.tab);
  model_.set_text(c_.text);
}

bool LabView::validate_scene(const nlohmann::json& scene, std::string* error) const {
  if (!scene.contains("lab")) return true;
  LabControls c;
  if (!controls_from_json(scene["lab"], &c, error)) return false;
  std::optional<StoredRunRef> stored;
  if (!stored_run_from_json(scene["lab"], &stored, error)) return false;
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  if (model_spec_of(c, &spec, &problems)) return true;
  *error = "lab: an impossible model: " + problems.front().field + ": " + problems.front().message;
  return false;
}

bool LabView::load_lesson_scene(const nlohmann::json& scene, std::string* error) {
  LabControls fresh;  // the defaults, not what the lecturer changed on the step before
  std::optional<StoredRunRef> stored;
  if (scene.contains("lab") &&
      (!controls_from_json(scene["lab"], &fresh, error) || !stored_run_from_json(scene["lab"], &stored, error)))
    return false;
  c_ = fresh;
  stored_.reset();
  stored_message_.clear();
  if (stored) open_stored_ref(*stored);  // its weights, not the seed's (the lesson refuses keep_weights with it)
  // Fresh weights from the step's seed, so a step shown again looks as it did the first time;
  // unless the step goes on with what the step before trained.
  posted_key_.clear();
  reset_next_post_ = !scene.value("keep_weights", false);
  select_tab_ = static_cast<int>(c_.tab);
  model_.set_text(c_.text);
  return true;
}

void LabView::set_lesson_focus(const LessonFocus& focus) {
  focus_ = focus;
  // The Theorem 1 thread only works while its tab is shown; a focused panel counts as shown.
  if (focus.panel == "maps") c_.tab = LabTab::Heads;
  if (focus.panel == "rank") c_.tab = LabTab::Rank;
  if (focus.panel == "projections") c_.tab = LabTab::Projections;
  if (focus.panel == "theorem") c_.tab = LabTab::Theorem;
  if (focus.panel == "separation") c_.tab = LabTab::Separation;
  select_tab_ = static_cast<int>(c_.tab);
}

bool LabView::set_control(const std::string& name, double value) {
  if (name == "lr") {
    c_.lr = static_cast<float>(value);
    return true;
  }
  const std::pair<const char*, int*> fields[] = {{"pos_rank", &c_.pos_rank},
                                                 {"d", &c_.d},
                                                 {"heads", &c_.heads},
                                                 {"heads_k", &c_.heads_k},
                                                 {"heads_v", &c_.heads_v},
                                                 {"head_size", &c_.head_size},
                                                 {"embed_rank", &c_.embed_rank},
                                                 {"layers", &c_.layers},
                                                 {"context", &c_.context},
                                                 {"synthetic_n", &c_.synthetic_n},
                                                 {"theorem_n", &c_.theorem_n},
                                                 {"theorem_dp", &c_.theorem_dp},
                                                 {"theorem_head", &c_.theorem_head},
                                                 {"layer", &c_.layer},
                                                 {"enlarged_head", &c_.enlarged_head}};
  for (const auto& [key, field] : fields)
    if (name == key) {
      *field = static_cast<int>(std::lround(value));
      return true;
    }
  return false;
}

bool LabView::lesson_action(const LessonAnimation& action, std::string* error) {
  if (action.kind == LessonAnimation::Kind::Train) {
    c_.training = false;
    sync();  // the step's own model first, so the steps train the model the step shows
    post_now(action.steps);
    return true;
  }
  if (!head_is_off(c_, action.layer, action.head)) toggle_head(&c_, action.layer, action.head);
  return true;
}

nlohmann::json LabView::lesson_state() const {
  nlohmann::json j = {{"panel", drawn_panel_},
                      {"highlighted", highlights_drawn_},
                      {"controls_cut_off", controls_cut_off_},
                      {"lab", to_json(c_)}};
  stored_state(&j);
  if (!drawn_panel_.empty() && !stored_message_.empty()) j["panel_problem"] = panel_problem();  // drawn above it
  if (c_.tab == LabTab::Theorem) j["theorem"] = theorem_.state();
  // Why a step has or has not settled (the handout records it; a step that never settles says where).
  j["wait"] = {{"last_posted", last_posted_},
               {"snapshot_request", snap_ ? snap_->request_id : 0},
               {"snapshot_valid", snap_ && snap_->valid},
               {"pending_steps", snap_ ? snap_->training.pending_steps : 0},
               {"stored_pending", stored_pending()},
               {"frames_shown", frames_shown_},
               {"settled", settled()}};
  if (snap_ && snap_->valid) {  // what the step shows was trained this far, to this loss on the input
    j["training_step"] = snap_->training.step;
    j["input_loss"] = snap_->ablation.sentence_loss_all;
  }
  return j;
}

bool LabView::load_scene(const nlohmann::json& scene, std::string* error) {
  if (!scene.contains("lab")) return true;
  std::optional<StoredRunRef> stored;
  if (!stored_run_from_json(scene["lab"], &stored, error)) return false;
  if (!controls_from_json(scene["lab"], &c_, error)) return false;
  select_tab_ = static_cast<int>(c_.tab);
  model_.set_text(c_.text);
  if (stored) open_stored_ref(*stored);
  return true;
}

nlohmann::json LabView::state() const {
  nlohmann::json j;
  j["lab"] = to_json(c_);
  j["lab_settled"] = settled();               // the engine has answered the last request (trained what it was asked)
  j["controls_cut_off"] = controls_cut_off_;  // named controls running past their panel's right edge
  if (c_.tab == LabTab::Theorem) j["theorem"] = theorem_.state();
  if (snap_ && snap_->valid) {
    j["model"] = core::to_json(snap_->spec);
    j["model"]["n"] = snap_->n;
    j["lab_snapshot"] = {{"layers", snap_->layers.size()},
                         {"heads", snap_->layers.empty() ? 0 : snap_->layers[0].W.size()},
                         {"version", snap_->version},
                         {"training_step", snap_->training.step},
                         {"projections_cut_off", projections_cut_off_}};
  }
  if (snap_ && (!snap_->real.dir.empty() || !snap_->real.error.empty())) {  // a real checkpoint (issue 16)
    const RealModelInfo& r = snap_->real;
    nlohmann::json ranks = nlohmann::json::array();
    if (!r.dir.empty())
      for (const auto& layer : snap_->layers) {
        std::vector<int> per_head;
        for (const auto& sp : layer.spectra) per_head.push_back(sp.rank);
        ranks.push_back(per_head);
      }
    j["real_model"] = {{"dir", r.dir},           {"error", r.error},
                       {"family", r.family},     {"heads", r.heads},
                       {"kv_heads", r.kv_heads}, {"d_k", r.d_k},
                       {"causal", r.causal},     {"tokens", snap_->tokens},
                       {"ranks", ranks},         {"rank_cap", snap_->layers.empty() ? 0 : snap_->layers[0].rank_cap},
                       {"open_ms", r.open_ms},   {"compute_ms", snap_->compute_ms}};
  }
  j["controls_clipped"] = model_.labels_clipped();
  j["tab_labels_cut"] = tab_labels_cut_;
  stored_state(&j);
  if (maps_drawn_.model.drawn) {
    const ModelViewDrawn& m = maps_drawn_.model;
    j["model_view"] = {{"rows", m.rows},
                       {"cols", m.cols},
                       {"tile", m.tile},
                       {"roles_shown", m.roles_shown},
                       {"tile_centres", m.tile_centres}};
  }
  if (maps_drawn_.neurons.drawn) {
    const NeuronsViewDrawn& v = maps_drawn_.neurons;
    j["neurons_view"] = {{"head", v.head},
                         {"query", v.query},
                         {"keys", v.keys},
                         {"r", v.r},
                         {"sum_error", v.sum_error},
                         {"origin", {v.x, v.y}},
                         {"keys_y", v.keys_y},
                         {"cell_h", v.cell_h},
                         {"products_x", v.products_x},
                         {"cell_w", v.cell_w},
                         {"head_button", {v.head_button_x, v.head_button_y}}};
  }
  if (maps_drawn_.lines.drawn) {
    const LinesViewDrawn& l = maps_drawn_.lines;
    j["lines_view"] = {{"rect", {l.x, l.y, l.width, l.height}},
                       {"top", l.top},
                       {"row_h", l.row_h},
                       {"tokens", l.tokens},
                       {"focus_query", l.focus_query},
                       {"focus_key", l.focus_key}};
    for (const auto& k : l.head_links)
      j["lines_view"]["head_links"].push_back({{"head", k.head}, {"x", k.x}, {"y", k.y}});
  }
  if (!problems_.empty()) {
    j["problems"] = nlohmann::json::array();
    for (const auto& p : problems_) j["problems"].push_back({{"field", p.field}, {"message", p.message}});
  }
  return j;
}

nlohmann::json LabView::bench_metrics() const {
  nlohmann::json j = nlohmann::json::object();
  if (!latency_ms_.empty())
    j = {{"snapshot_ms_median", percentile(latency_ms_, 0.5)},
         {"snapshot_ms_p95", percentile(latency_ms_, 0.95)},
         {"snapshot_samples", latency_ms_.size()}};
  if (snap_ && !snap_->real.dir.empty()) {  // a real checkpoint: opening it, and one sentence's maps
    j["real_open_ms"] = snap_->real.open_ms;
    j["real_tokens"] = snap_->n;
  }
  if (stored_requests_ > 0) {  // scrubbing a stored run: how many steps were asked for and loaded
    j["stored_step_requests"] = stored_requests_;
    j["stored_step_loads"] = stored_loads_;
  }
  return j;
}

bool LabView::settled() const {
  if (!problems_.empty()) return true;
  if (!snap_ || snap_->request_id < last_posted_) return false;
  if (snap_->partial) return false;                         // the spectra and ranks are still measured
  if (snap_->training.pending_steps > 0) return false;      // steps asked for are still training
  if (stored_pending()) return false;                       // a stored run is still being read
  if (real_posted_ > snap_->real.request_id) return false;  // a real model is still being read
  // The frame a tab bar first appears lays it out and shows its first tab; a tab chosen by the
  // scene is drawn from the next frame on. A panel (a lesson's panel in focus too) sizes its
  // scroll bar from the frame before: new content taller than the panel gets it on its second.
  if (snap_->valid && frames_shown_ < 2) return false;
  if (c_.tab == LabTab::Theorem) return theorem_.settled();
  return true;
}

bool LabView::busy() const { return c_.training || !settled(); }

bool LabView::lesson_step_drawn() const {
  if (c_.tab != LabTab::Theorem || !problems_.empty()) return settled();
  if (stored_pending()) return false;  // the step's stored run is still being read
  return snap_ && snap_->request_id >= last_posted_ && frames_shown_ >= 1 && theorem_.answer_drawn();
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
         std::to_string(c_.training) + "|" + std::to_string(c_.lr) + "|" + nlohmann::json(c_.heads_off).dump() +
         (c_.importance ? "|importance" + std::to_string(c_.layer) : "");
}

void LabView::stored_state(nlohmann::json* j) const {
  if (stored_) {
    const bool loaded = stored_->index >= 0 && stored_->index < static_cast<int>(stored_->steps.size());
    (*j)["stored_run"] = {{"name", stored_->run.run_name},
                          {"step", loaded ? stored_->steps[static_cast<size_t>(stored_->index)] : -1}};
  }
  if (!stored_message_.empty()) (*j)["stored_run_problem"] = stored_message_;
}

void LabView::open_stored_ref(const StoredRunRef& ref) {
  std::string why;
  const std::string path = explorer::resolve_db_name(ref.db, &why);
  if (path.empty()) {
    stored_message_ = "lab.stored_run.db: " + why;  // the lab shows its own model instead
    return;
  }
  open_stored(StoredCheckpoint{path, 0, ref.name, "", ref.step});  // run_id 0: found by name
}

void LabView::open_stored(const StoredCheckpoint& checkpoint) {
  stored_message_.clear();
  stored_opening_ = checkpoint.run_name;
  stored_posted_ = engine_.open_stored(checkpoint);
}

void LabView::take_stored(const LabSnapshot& s) {
  const StoredRunState& st = s.stored;
  // Any answer newer than the last one shown: scrubbing faster than steps load still shows
  // every step that did load (the latest request wins in the engine).
  if (stored_posted_ == 0 || st.request_id == 0 || st.request_id <= stored_seen_) return;
  stored_seen_ = st.request_id;
  stored_opening_.clear();
  if (!st.error.empty()) {
    stored_message_ = st.error;  // the lab keeps the model (and a stored run) it had
    return;
  }
  stored_message_.clear();
  stored_ = st;
  stored_scrub_ = st.index;
  ++stored_loads_;
  // The sliders show the stored model; its key counts as posted, so the controls do not
  // rebuild the model the engine just loaded.
  controls_from_model_spec(s.spec, st.run.tokenizer, &c_);
  c_.training = false;
  core::ModelSpec controls_spec;
  if (model_spec_of(c_, &controls_spec, &problems_)) posted_key_ = request_key(controls_spec);
  else stored_message_ = "the stored model is not one the lab's controls can show";
}

// An untrained model's maps are random: say so, and offer a trained one from the results Headroom
// ships (the explorer opens them and hands one run back), so a first look shows learned heads.
void LabView::draw_untrained_offer() {
  if (focus_.active || !stored_opening_.empty() || c_.training || !snap_ || !snap_->valid ||
      snap_->training.step != 0 || explorer::results_db_path().empty())
    return;
  wrapped_text_disabled("Untrained: random weights.");
  if (ImGui::SmallButton("Open a trained run")) {
    context_.request_open_path = explorer::results_db_path();
    context_.request_trained_example = true;
    context_.select_view = "Explorer";
  }
  tooltip(
      "Opens the papers' results shipped with Headroom in the explorer and brings one of their trained runs here\n"
      "(the talking-heads run with the most heads): its maps, spectra and P_l / P_w after training on KJV.\n"
      "Train (below) trains this model instead.");
  ImGui::Spacing();
}

void LabView::draw_stored_run() {
  if (!stored_opening_.empty()) wrapped_text_disabled("opening %s...", stored_opening_.c_str());
  if (!stored_message_.empty()) problem_text(stored_message_);
  if (!stored_) {
    draw_untrained_offer();
    return;
  }
  ImGui::Spacing();
  ImGui::TextUnformatted("Stored run");
  ImGui::Separator();
  wrapped_text("%s", stored_->run.run_name.c_str());
  const int last = static_cast<int>(stored_->steps.size()) - 1;
  stored_scrub_ = std::clamp(stored_scrub_, 0, last);
  const std::string label = "step " + std::to_string(stored_->steps[static_cast<size_t>(stored_scrub_)]);
  if (ImGui::SliderInt("##stored_step", &stored_scrub_, 0, last, label.c_str()) && stored_scrub_ != stored_->index) {
    StoredCheckpoint at = stored_->run;
    at.step = stored_->steps[static_cast<size_t>(stored_scrub_)];
    stored_posted_ = engine_.open_stored(at);  // latest wins: scrubbing fast loads what it lands on
  }
  tooltip("Replay training: each stop is a checkpoint the worker stored (maps, spectra and P_l / P_w at that step).");
  if (stored_pending())
    wrapped_text_disabled("loading step %lld...",
                          static_cast<long long>(stored_->steps[static_cast<size_t>(stored_scrub_)]));
  else
    wrapped_text_disabled("%d stored %s, vocabulary %s", last + 1, last == 0 ? "step" : "steps",
                          stored_->run.tokenizer.c_str());
  if (ImGui::SmallButton("Leave stored run")) stored_.reset();
  tooltip("Keep the model in the lab (you can train it on), but stop following the stored run.");
}

void LabView::sync() {
  c_.text = model_.text_buffer;
  // Benchmark mode: a control change every few frames (the seed: a full rebuild and recompute).
  // With a stored run open it scrubs to the next stored step as soon as the last one loaded (read
  // and decoded on the engine thread) instead.
  // (A lesson benchmarks its own steps: the lab leaves the controls to it.)
  if (context_.options && context_.options->bench_frames > 0 && !focus_.active && ++bench_frame_ % 6 == 0) {
    if (stored_ && stored_->steps.size() > 1 && !stored_pending()) {  // the next step once one loaded
      stored_scrub_ = (stored_scrub_ + 1) % static_cast<int>(stored_->steps.size());
      StoredCheckpoint at = stored_->run;
      at.step = stored_->steps[static_cast<size_t>(stored_scrub_)];
      stored_posted_ = engine_.open_stored(at);
      ++stored_requests_;
    } else if (!real_model_open() || snap_->request_id >= last_posted_) {
      c_.seed++;  // a real model: the next sentence once the last one's maps are in (they take longer)
    }
  }

  if (context_.open_in_lab) {
    open_stored(*context_.open_in_lab);
    context_.open_in_lab.reset();
  }
  if (context_.open_model_dir) {
    real_.set_path(*context_.open_model_dir);
    open_model(*context_.open_model_dir);
    context_.open_model_dir.reset();
  }
  if (std::exchange(context_.request_open_model, false)) real_.focus_path();
  core::ModelSpec spec;
  // While a stored run is being read, its answer sets the controls: a model posted meanwhile (a
  // lesson step's defaults) would be built and then thrown away, or replace the stored weights.
  if (!stored_pending() && model_spec_of(c_, &spec, &problems_)) {
    const std::string key = request_key(spec);
    if (key != posted_key_) {
      // A control that changes the model's shapes leaves the stored run (its weights are gone).
      if (stored_ && !same_shapes(spec, snap_ && snap_->valid ? snap_->spec : spec)) stored_.reset();
      posted_key_ = key;
      post_now(0, std::exchange(reset_next_post_, false));
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
    if (s->real.request_id >= real_posted_) real_.opened();
  }

  // A head's map comes from the snapshot: while a newer model or a stored run is on its way, the
  // map shown is about to go, and a fit of it would hold up the one asked for.
  const bool snapshot_behind = stored_pending() || !snap_ || snap_->request_id < last_posted_;
  if (c_.pattern != TargetPattern::HeadMap || !snapshot_behind) theorem_.update(c_, snap_.get());
}

// ImGui 1.86 names few keys; the GLFW backend indexes io.KeysDown by GLFW key codes.
void LabView::handle_shortcuts() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl) return;
  if (focus_.active) return;  // a lesson's keys (Space, arrows) belong to the presenter
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) c_.training = !c_.training;
  if (ImGui::IsKeyPressed(GLFW_KEY_S) && !c_.training) post_now(1);
  if (ImGui::IsKeyPressed(GLFW_KEY_R)) post_now(0, true);
  if (ImGui::IsKeyPressed(GLFW_KEY_LEFT_BRACKET)) c_.heads = std::max(1, c_.heads / 2);
  if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT_BRACKET)) c_.heads = std::min(64, c_.heads * 2);
  for (int t = 0; t < 5; ++t)
    if (ImGui::IsKeyPressed(GLFW_KEY_1 + t)) c_.tab = static_cast<LabTab>(t), select_tab_ = t;
}

void LabView::open_model(const std::string& dir) {
  real_.set_opening(dir);
  real_posted_ = engine_.open_model(dir);
}

void LabView::draw_controls_column(float width) {
  ImGui::BeginChild("##lab_controls", ImVec2(width, 0), true);
  // The lab's own model keeps the top of the column (its sliders are what a lecturer reaches for);
  // the real-model header follows it, and is all there is once a real model is open: a real model
  // has no controls to drag and is not trained here.
  if (!real_model_open()) {
    draw_stored_run();
    model_.draw(c_, snap_.get(), context_);
    if (model_.loaded_tab >= 0) select_tab_ = std::exchange(model_.loaded_tab, -1);
    if (snap_) draw_lab_training(*snap_, c_, context_, [this](int steps, bool reset) { post_now(steps, reset); });
  }
  const auto action = real_.draw(snap_.get(), model_.text_buffer, sizeof model_.text_buffer);
  if (action.open) open_model(action.dir);
  if (action.close) real_posted_ = engine_.open_model("");
  ImGui::EndChild();
}

std::string LabView::panel_problem() const { return stored_message_ + "; showing the lab's own model instead"; }

void LabView::draw_focused_panel() {
  const std::string& p = focus_.panel;
  drawn_panel_ = p;
  // The step's stored run could not be opened: the panel shows the lab's own model, and says why
  // (the controls column that usually says so is hidden while a panel is focused).
  if (!stored_message_.empty()) problem_text(panel_problem());
  if (p == "summary") return draw_lab_summary(*snap_);
  if (p == "maps") return draw_lab_maps(*snap_, c_, context_, &maps_drawn_);
  if (p == "rank") return draw_lab_rank(*snap_, c_, context_);
  if (p == "projections") {
    projections_cut_off_ = draw_lab_projections(*snap_, c_, context_);
    return;
  }
  if (p == "theorem") return theorem_.draw(c_, context_);
  if (p == "separation") return draw_lab_separation(*snap_, context_);
  if (p == "training") {
    const float plot = std::max(120.0f, ImGui::GetContentRegionAvail().y - 6 * ImGui::GetFrameHeightWithSpacing());
    return draw_lab_training(
        *snap_, c_, context_, [this](int steps, bool reset) { post_now(steps, reset); }, plot);
  }
  drawn_panel_.clear();  // the lesson loader only lets known panels through
}

void LabView::draw() {
  begin_highlights(focus_.active ? focus_.highlight : std::vector<std::string>{});
  handle_shortcuts();
  sync();
  const bool focused = focus_.active && !focus_.panel.empty();
  // A focused step shows the controls only when the lecturer gets them or the step points at one.
  bool controls = !focused || focus_.try_it;
  static const char* const kColumnControls[] = {
      "kind",      "d",           "heads",    "heads_k",   "heads_v",  "standard_head_size",
      "head_size", "embed_rank",  "pos_rank", "positions", "pos_init", "pos_init_scale",
      "vocab",     "layers",      "causal",   "seed",      "input",    "text",
      "task",      "synthetic_n", "training", "lr"};
  for (const char* k : kColumnControls) controls = controls || is_highlighted(k);
  if (controls) {
    // The controls take at most 30% of the width, so the maps keep the room on a projector; in a
    // lesson's large type the labels need more (a step shows few panels beside them).
    const float share = focus_.active ? 0.42f : 0.30f;
    const float avail = ImGui::GetContentRegionAvail().x;
    // A window narrow for its type (presentation type, a 4:3 or 5:4 window): the checkbox labels
    // still show whole, the column taking up to 42%.
    const float width = std::max(std::min(330.0f * context_.ui_scale, avail * share),
                                 std::min(LabModelPanel::least_width(), avail * 0.42f));
    draw_controls_column(width);
    ImGui::SameLine();
  }
  ImGui::BeginChild("##lab_main", ImVec2(0, 0), false);
  if (!problems_.empty()) {
    // Most messages name their field first ("d_model = -5 is impossible: ..."); the rest get it.
    for (const auto& p : problems_)
      problem_text(p.message.rfind(p.field, 0) == 0 ? p.message : p.field + ": " + p.message);
    ImGui::TextDisabled(snap_ && snap_->valid ? "Showing the last model that works."
                                              : "Nothing to show until the controls describe a possible model.");
    ImGui::Separator();
  }
  drawn_panel_.clear();
  maps_drawn_ = {};
  if (snap_ && snap_->valid && focused) {
    draw_focused_panel();
    ++frames_shown_;
  } else if (snap_ && snap_->valid) {
    // Where the panel has room for fewer than 30 lines (a projector's large type), each badge keeps
    // to 3 lines, the whole in its tooltip, so that the maps still show above the fold.
    const float lines_room = ImGui::GetContentRegionAvail().y / ImGui::GetTextLineHeightWithSpacing();
    draw_lab_summary(*snap_, lines_room < 30.0f ? 3 : 0);
    if (ImGui::BeginTabBar("##lab_tabs")) {
      const LabTab tabs[] = {LabTab::Heads, LabTab::Rank, LabTab::Projections, LabTab::Theorem, LabTab::Separation};
      const TabLabel names[] = {{"Attention maps", "Maps"},
                                {"Rank", "Rank"},
                                {"P_l / P_w", "P_l/P_w"},
                                {"Theorem 1", "Thm 1"},
                                {"Depth vs width", "Depth"}};
      // A real checkpoint shows its heads: maps and ranks (its other tabs are about the lab's controls).
      const int shown = real_model_open() ? 2 : 5;
      const FittingTabs fitting = fitting_tab_labels(names, shown, ImGui::GetContentRegionAvail().x);
      const auto& labels = fitting.labels;
      tab_labels_cut_ = 0;
      for (int i = 0; i < shown; ++i) {
        // A tab chosen by a scene or a shortcut is selected once; afterwards clicks decide.
        const ImGuiTabItemFlags flags = select_tab_ == static_cast<int>(tabs[i]) ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(labels[i].c_str(), nullptr, flags);
        tab_labels_cut_ += tab_label_cut(labels[i].c_str());
        const bool brief = fitting.brief && std::string_view(names[i].brief) != names[i].full;
        tooltip((brief ? std::string(names[i].full) + " (shortcut: " : std::string("Shortcut: ")) +
                std::to_string(i + 1) + (brief ? ")" : ""));
        if (open) {
          if (select_tab_ < 0) c_.tab = tabs[i];
          switch (tabs[i]) {
            case LabTab::Heads: draw_lab_maps(*snap_, c_, context_, &maps_drawn_); break;
            case LabTab::Rank: draw_lab_rank(*snap_, c_, context_); break;
            case LabTab::Projections: projections_cut_off_ = draw_lab_projections(*snap_, c_, context_); break;
            case LabTab::Theorem: theorem_.draw(c_, context_); break;
            case LabTab::Separation: draw_lab_separation(*snap_, context_); break;
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
  highlights_drawn_ = highlights_drawn();
  controls_cut_off_ = controls_cut_off();
}

}  // namespace headroom::gui
