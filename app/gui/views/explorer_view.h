// The experiment explorer: browse the runs of an experiments DB while a worker fills it, overlay
// their curves, see the papers' tables and figures re-made from them beside the papers' numbers,
// open a run's checkpoint in the lab, and start / stop a worker.
//
// This view owns the tab: opening DBs, the toolbar, the layout, scenes, state and benchmark.
// Each panel is its own file with its own state: explorer_table, explorer_curves,
// explorer_compare, explorer_figures, explorer_run, explorer_worker_bar; they share an ExplorerSession (the DB and
// the selection). All SQL and checkpoint decoding runs on the ExplorerLoader thread; draw() only
// swaps its snapshots. The GUI writes to a DB only through `headroom-worker` child processes
// (enqueue, serve), and its loader creates the user's default DB on first launch.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "app/gui/views/explorer_compare.h"
#include "app/gui/views/explorer_curves.h"
#include "app/gui/views/explorer_figures.h"
#include "app/gui/views/explorer_run.h"
#include "app/gui/background_disposer.h"
#include "app/gui/views/explorer_session.h"
#include "app/gui/views/explorer_table.h"
#include "app/gui/views/explorer_worker_bar.h"
#include "app/gui/views/view.h"

namespace headroom::gui {

class ExplorerView : public View {
 public:
  explicit ExplorerView(ViewContext& context);
  ~ExplorerView() override;
  const char* name() const override { return "Explorer"; }
  void draw() override;
  bool load_scene(const nlohmann::json& scene, std::string* error) override;
  bool validate_scene(const nlohmann::json& scene, std::string* error) const override;
  bool load_lesson_scene(const nlohmann::json& scene, std::string* error) override;
  void set_lesson_focus(const LessonFocus& focus) override;
  bool set_control(const std::string& name, double value) override;
  nlohmann::json lesson_state() const override;
  nlohmann::json state() const override;
  nlohmann::json bench_metrics() const override;
  bool settled() const override;

 private:
  using Clock = std::chrono::steady_clock;

  // By value: callers pass the loader's own path. `create`: a missing DB is created (first launch).
  void open_db(std::string path, bool create = false);
  void ensure_started();  // first draw: open --db, the last DB, or create the default one
  void remember_recent(const std::string& path);
  void sync();  // snapshots in, filter and sort, curve wants out
  void apply_scene_selection();
  void draw_toolbar();
  void draw_tabs();
  // A lesson step about one panel: that panel alone, large; what keeps it from being drawn
  // (no DB, no runs of the step's suite) explained in its place.
  void draw_lesson_panel();
  bool lesson_panel_ready(std::string* why);
  // The shown tab has what it needs (settled() adds the benchmark steps); with `first_page`, the
  // newest runs of a big DB still being read are enough.
  bool content_ready(bool first_page = false) const;
  bool bench_frames_may_start() const override;
  void time_open();       // benchmark: open -> every wanted curve drawn
  void time_selection();  // benchmark: 50 runs selected at once -> their curves drawn

  ViewContext& context_;
  std::string assets_dir_;
  BackgroundDisposer disposer_;  // before session_: outlives it
  ExplorerSession session_;
  ExplorerTable table_;
  ExplorerCurves curves_;
  ExplorerCompare compare_;
  ExplorerFigures figures_;
  ExplorerRun run_;
  ExplorerWorkerBar worker_bar_;

  bool started_ = false;
  std::vector<std::string> recent_;
  char path_buffer_[1024] = {};
  ExplorerTab tab_ = ExplorerTab::Curves;
  int tab_labels_cut_ = 0;  // tabs whose labels ImGui cut short in the last frame
  bool selection_defaulted_ = false;
  std::vector<std::string> scene_select_;  // run names from a scene, applied when rows arrive
  std::string scene_open_in_lab_;          // a run name from a scene, opened in the lab when rows arrive
  LessonFocus lesson_;
  std::string lesson_figure_;   // the suite a lesson step's figure is of
  std::string drawn_panel_;     // the lesson panel drawn in the last frame ("" = the whole explorer)
  std::string lesson_problem_;  // why the lesson panel cannot be drawn (shown in its place), or ""

  // Benchmark: open -> first full draw, and zoom refetches
  Clock::time_point opened_at_{};
  double open_to_full_draw_ms_ = -1;     // Open (window already up) -> every run in, every wanted curve drawn
  double open_to_first_page_ms_ = -1;    // Open -> the first table page and its selection's curves drawn
  double previous_free_ms_ = -1;         // benchmark: freeing the first open's tables before the timed one
  double startup_to_full_draw_ms_ = -1;  // the same from process start (window, fonts included)
  std::vector<double> refetch_ms_;
  std::int64_t bench_error_frames_ = 0;  // --bench-frames: frames whose rows or curves carried an error
  std::string bench_first_error_;
  Clock::time_point refetch_started_{};
  bool refetch_pending_ = false;
  Clock::time_point bench_select_started_{};
  double bench_select_ms_ = -1;
  int bench_select_ = 0;  // a scene's bench_select
};

}  // namespace headroom::gui
