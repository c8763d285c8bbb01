// The live lab: build a model from sliders, run it on typed text or a synthetic sequence, and see
// every head's map, each head's singular spectrum against the rank the theory allows, the
// talking-heads projections, LRB Theorem 1 live, and live training. All computing happens in
// LabEngine / TheoremDemo threads; draw() only reads their latest snapshots.
//
// This view owns the controls (LabControls, what a scene saves), the engine, the stored run
// opened from the explorer, and the layout. The panels are files of their own: lab_model_panel
// (left column), lab_training, lab_summary, lab_maps, lab_rank, lab_projections and
// lab_theorem_panel.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/lab/lab_controls.h"
#include "app/gui/lab/lab_engine.h"
#include "app/gui/views/lab_model_panel.h"
#include "app/gui/views/lab_panels.h"
#include "app/gui/views/lab_real_model.h"
#include "app/gui/views/lab_theorem_panel.h"
#include "app/gui/views/view.h"

namespace headroom::gui {

class LabView : public View {
 public:
  explicit LabView(ViewContext& context);
  const char* name() const override { return "Lab"; }
  void draw() override;
  bool load_scene(const nlohmann::json& scene, std::string* error) override;
  nlohmann::json state() const override;
  nlohmann::json bench_metrics() const override;
  bool settled() const override;
  bool busy() const override;  // also while it trains
  bool lesson_step_drawn() const override;
  bool validate_scene(const nlohmann::json& scene, std::string* error) const override;
  bool load_lesson_scene(const nlohmann::json& scene, std::string* error) override;
  void set_lesson_focus(const LessonFocus& focus) override;
  bool set_control(const std::string& name, double value) override;
  bool lesson_action(const LessonAnimation& action, std::string* error) override;
  nlohmann::json lesson_state() const override;

 private:
  void sync();  // posts requests for changed controls, collects snapshots and latencies
  void handle_shortcuts();
  void post_now(int single_steps = 0, bool reset = false);
  std::string request_key(const core::ModelSpec& spec) const;
  // Opens a stored run's weights (nearest stored step <= the wanted one): the engine reads the DB.
  void open_stored(const StoredCheckpoint& checkpoint);
  void take_stored(const LabSnapshot& s);  // a snapshot answering open_stored updates the controls
  // A stored run a scene or a lesson step names (lab.stored_run): its DB name resolved here, the
  // run found by name on the engine thread; a DB that cannot be found is told inline.
  void open_stored_ref(const StoredRunRef& ref);
  void stored_state(nlohmann::json* j) const;
  bool stored_pending() const {
    return stored_posted_ > stored_seen_;
  }  // a stored run is being read  // "stored_run" and "stored_run_problem" for --state-out
  void draw_stored_run();
  void draw_untrained_offer();
  void open_model(const std::string& dir);  // a real checkpoint: the engine reads it
  bool real_model_open() const { return snap_ && !snap_->real.dir.empty(); }
  void draw_controls_column(float width);
  // A lesson step's panel alone, filling the view (`focus_.panel`).
  void draw_focused_panel();

  // The stored run shown, when one was opened from the explorer, a scene or a lesson step.
  std::optional<StoredRunState> stored_;
  uint64_t stored_posted_ = 0, stored_seen_ = 0;  // the newest open_stored request, the newest answered
  int stored_scrub_ = 0;                          // the step slider (ahead of stored_->index while loading)
  std::string stored_opening_;                    // the run being opened (until the engine answers)
  std::string stored_message_;
  // What a focused panel says above itself while stored_message_ is set (the controls column that
  // usually says it is hidden).
  std::string panel_problem() const;
  int stored_requests_ = 0, stored_loads_ = 0;  // --bench-frames scrubbing: steps asked for, steps loaded

  ViewContext& context_;
  LabControls c_;
  LabEngine engine_;
  LabModelPanel model_;
  LabRealModelPanel real_;
  uint64_t real_posted_ = 0;  // the newest open_model request
  LabTheoremPanel theorem_;
  std::vector<core::SpecProblem> problems_;
  std::string posted_key_;
  uint64_t last_posted_ = 0;
  std::shared_ptr<const LabSnapshot> snap_;
  int frames_shown_ = 0;  // frames drawn from snap_ (settled() waits for the tab bar's second)
  // control change -> snapshot latency, for --bench-frames
  std::map<uint64_t, std::chrono::steady_clock::time_point> posted_at_;
  std::vector<double> latency_ms_;
  int bench_frame_ = 0;
  int select_tab_ = -1;          // a tab to select programmatically in the next frame
  int tab_labels_cut_ = 0;       // tabs whose labels ImGui cut short in the last frame
  int projections_cut_off_ = 0;  // P_l / P_w maps drawn past the panel's bottom in the last frame
  LessonFocus focus_;
  bool reset_next_post_ = false;  // a lesson step was loaded: its first request re-initialises the weights
  std::string drawn_panel_;       // the panel the last frame drew (lesson checks)
  MapsDrawn maps_drawn_;          // the lines or model view, as the last frame drew it (state())
  std::vector<std::string> highlights_drawn_;
  std::vector<std::string> controls_cut_off_;  // the last frame's (lesson_highlight.h)
};

}  // namespace headroom::gui
