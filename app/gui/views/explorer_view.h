// The experiment explorer: browse the runs of an experiments DB while a worker fills it, overlay
// their curves, see the papers' tables and figures re-made from them beside the papers' numbers,
// open a run's checkpoint in the lab, and start / stop a worker.
//
// All SQL runs on the ExplorerLoader thread (read-only connection); draw() only swaps its
// snapshots. The GUI writes to a DB only through `headroom-worker` child processes (enqueue,
// serve), and creates the user's default DB on first launch.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/gui/explorer/curves.h"
#include "app/gui/explorer/explorer_loader.h"
#include "app/gui/explorer/figures.h"
#include "app/gui/explorer/run_filter.h"
#include "app/gui/explorer/worker_process.h"
#include "app/gui/views/view.h"
#include "widgets/line_plot.h"

namespace headroom::gui {

enum class ExplorerTab { Curves, Figures, Run };
enum class Smoothing { None, Ema, MovingAverage };
enum class Grouping { None, SeedsOnly, ConfigKey };

class ExplorerView : public View {
 public:
  explicit ExplorerView(ViewContext& context);
  ~ExplorerView() override;
  const char* name() const override { return "Explorer"; }
  void draw() override;
  bool load_scene(const nlohmann::json& scene, std::string* error) override;
  nlohmann::json state() const override;
  nlohmann::json bench_metrics() const override;
  bool settled() const override;

 private:
  using Clock = std::chrono::steady_clock;

  // By value: callers pass loader_->db_path(). `create`: a missing DB is created (first launch).
  void open_db(std::string path, bool create = false);
  void ensure_started();  // first draw: open --db, the last DB, or create the default one
  void remember_recent(const std::string& path);
  void sync();            // snapshots in, filter and sort, curve wants out
  bool curves_ready() const;  // every wanted curve has arrived

  void draw_toolbar();
  void draw_worker_bar();
  void draw_table();
  void draw_curves();
  void draw_figures();
  void draw_run();
  void draw_projection_replay(const explorer::RunDetail& detail);

  void start_worker_command(std::vector<std::string> args);
  void enqueue_suite(const std::string& suite_file, const std::string& scale);
  void export_curves_csv();
  const std::vector<std::string>& suite_files();  // assets/suites/*.toml, listed once
  const explorer::RunRow* find_row(std::int64_t id) const;
  std::string short_name(const explorer::RunRow& row) const;

  ViewContext& context_;
  std::string assets_dir_;
  bool started_ = false;
  std::vector<std::string> recent_;
  char path_buffer_[1024] = {};

  std::unique_ptr<explorer::ExplorerLoader> loader_;
  std::shared_ptr<const explorer::RowsSnapshot> rows_;
  std::shared_ptr<const explorer::CurvesSnapshot> curves_;
  std::vector<explorer::CurveKey> curves_wanted_;  // sorted, as last given to the loader
  std::uint64_t filtered_version_ = 0;
  std::vector<const explorer::RunRow*> shown_;  // filtered + sorted view of rows_
  char filter_buffer_[256] = {};
  std::string filter_text_, filter_error_;
  std::optional<explorer::RunFilter> filter_;
  explorer::RunColumn sort_column_ = explorer::RunColumn::Suite;
  bool sort_ascending_ = true;
  bool sort_dirty_ = true;
  std::set<std::int64_t> selected_;
  std::int64_t focused_ = -1;       // the run the Run tab shows
  bool selection_defaulted_ = false;
  int frames_with_rows_ = 0;        // tab bars and tables need a frame or two to lay out
  std::vector<std::string> scene_select_;  // run names from a scene, applied when rows arrive
  std::string scene_open_in_lab_;          // a run name from a scene, opened in the lab when rows arrive
  std::string scene_export_;               // a file stem from a scene: CSV + SVG of the curves once drawn

  // Curves
  ExplorerTab tab_ = ExplorerTab::Curves;
  int select_tab_ = -1;
  std::string metric_ = "val_loss";
  explorer::XAxis x_axis_ = explorer::XAxis::Step;
  bool log_x_ = false, log_y_ = false;
  Smoothing smoothing_ = Smoothing::None;
  float ema_weight_ = 0.6f;
  int ma_window_ = 5;
  Grouping grouping_ = Grouping::None;
  char group_key_[128] = "model.attention.heads";
  explorer::BandKind band_ = explorer::BandKind::MinMax;
  int buckets_ = 320;  // per curve; each bucket also draws its exact min..max, so spikes survive
  std::optional<db::StepRange> zoom_steps_;  // steps of the zoomed window (nullopt: everything)
  widgets::PlotRange last_x_range_{};
  bool was_user_ranged_ = false;
  int curves_drawn_ = 0;
  double marked_step_ = -1;          // the step clicked on the plot (opened in the lab)
  std::string svg_request_;          // path to write the next frame's plot SVG to
  std::string svg_buffer_;
  std::string export_message_;
  bool export_error_ = false;
  char export_path_[512] = {};

  // Figures
  std::vector<explorer::Figure> figures_;
  std::uint64_t figures_version_ = 0;
  std::string figure_warnings_;
  int figure_index_ = 0;
  std::string scene_figure_;
  // x of each figure, by suite name (absent: the figure's default; VB figures plot parameters).
  std::map<std::string, explorer::FigureAxis> figure_axes_;
  explorer::FigureAxis scene_figure_axis_ = explorer::FigureAxis::Default;
  bool figures_stale_ = false;

  // Run details: what the loader was asked for, the replayed P_l / P_w step, the weights slider.
  explorer::RunDetailRequest run_wanted_;
  std::int64_t replay_step_ = -1;  // -1: the newest snapshot
  int weights_index_ = -1;         // -1: the newest stored weights

  // Worker
  explorer::WorkerProcess worker_;
  std::deque<std::vector<std::string>> queued_commands_;
  int suite_index_ = 0;
  int scale_index_ = 0;
  std::string worker_message_;
  std::vector<std::string> suite_files_;
  bool suite_files_loaded_ = false;

  // Benchmark: open -> first full draw, and pan/zoom
  Clock::time_point opened_at_{};
  double open_to_full_draw_ms_ = -1;     // Open (window already up) -> every wanted curve drawn
  double startup_to_full_draw_ms_ = -1;  // the same from process start (window, fonts included)
  int bench_frame_ = 0;
  std::vector<double> refetch_ms_;
  Clock::time_point refetch_started_{};
  bool refetch_pending_ = false;
};

}  // namespace headroom::gui
