// The explorer's Compare tab: two configurations among the selected runs, each pooled over its
// seeds across suites (explorer/paired.h), their final validation losses paired by seed, A - B
// per seed with its mean, range, spread and sign count, and the paired difference over training.
// A researcher's "is A better than B, seed for seed?", as the write-ups answer it. Comparisons
// pinned side by side pool into one effect (explorer::pool_comparisons): "does this change do
// the same at every context?", as `suite_report.py --pool` answers it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/explorer/paired.h"
#include "app/gui/views/explorer_session.h"

namespace headroom::gui {

class ExplorerCompare {
 public:
  // Pools the selected runs' configurations again when the rows or the selection changed: the
  // view calls it before wanted(), so a new selection's curves are asked for in the same frame.
  void refresh(const ExplorerSession& session);
  // The val_loss curves of every paired run.
  std::vector<explorer::CurveKey> wanted() const;
  void draw(ExplorerSession& session);
  bool settled(const ExplorerSession& session) const;
  nlohmann::json state() const;  // for --state-out: the pools, the pairs and their statistics
  std::size_t pin_count() const { return pins_.size(); }
  const std::string& pin_problem() const { return pin_problem_; }
  void reset();       // a new DB
  void clear_pins();  // a lesson step: only the pins its scene names

  std::string scene_export;  // a scene's "export" on this tab: the pairs to this stem + ".csv" once paired
  // A scene's "pin": each [A run, B run] pins the comparison of their configurations once every
  // row is read; a name no run has is said in the tab.
  std::vector<std::array<std::string, 2>> scene_pins;

 private:
  void pair_pools();                              // paired_, units_warning_ and parameters_ for pools a_ and b_
  void reselect(const ExplorerSession& session);  // pools_, labels_, A and B for new rows or a new selection
  void apply_scene_pins(const ExplorerSession& session);
  void pin(const explorer::RunRow& a, const explorer::RunRow& b, const std::string& names);  // names: "A - B"
  void repin(const ExplorerSession& session);  // pinned_ and pooled_ again, from the session's rows (= rows_)
  void draw_pins(const ExplorerSession& session, float ui_scale);
  void draw_farthest(std::size_t pin) const;  // the pinned table's "farthest" cell, every gap in its tooltip
  // The width the pair table's numbers need, its scrollbar included.
  static float pair_table_width();
  void draw_pair_table(float width, float height) const;
  void draw_difference_plot(const ExplorerSession& session, float height);
  void draw_footer(float ui_scale);  // the y-fit toggle and the CSV export
  // STEM.csv, the pairs, and with pins STEM_pinned.csv; export_message_ says what happened.
  void export_csv(const std::string& stem);

  std::shared_ptr<const explorer::RowsSnapshot> rows_;  // the rows pools_ and paired_ point into
  std::set<std::int64_t> selection_;                    // the selection they were made from
  std::vector<explorer::SeedPool> pools_;
  std::vector<std::string> labels_;  // one per pool, distinct
  int a_ = 0, b_ = 1;                // the pools compared (indices into pools_)
  explorer::PairedComparison paired_;
  std::string units_warning_;  // the two pools' losses are in different units
  std::string parameters_;     // their parameter counts side by side
  int curves_drawn_ = 0;
  float pinned_column_w_ = 1e9f;  // the pinned table's label column, as wide as it was last frame
  int stable_frames_ = 0;         // frames since the plot's curves last changed (its tick gutter lags one frame)
  bool fit_late_ = true;          // the y axis fits the differences from 10% of the run on
  char export_path_[512] = "headroom-compare";
  std::string export_message_;
  bool export_error_ = false;

  struct Pin {
    std::string a_key, b_key;   // the pools' seed_pool_key
    std::int64_t a_run, b_run;  // a run of each (the pools are made again from them as rows change)
    std::string label;          // "suite: A - B", the names as the combos show them, without run counts
    std::string detail;         // the tooltip: both runs and their shapes (n, d, h, d_k, L)
  };
  std::vector<std::string> names_;  // one per pool: labels_ without the run counts
  std::vector<Pin> pins_;
  std::vector<explorer::PairedComparison> pinned_;  // one per pin
  explorer::PooledComparisons pooled_;
  std::string pin_problem_;  // a scene pin naming no run
};

}  // namespace headroom::gui
