// What the explorer's panels share: the open experiments DB (its loader and the latest
// snapshots) and the selection. The view owns it; the table, curves, figures, run and worker
// panels read it and change the selection.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/gui/explorer/explorer_loader.h"
#include "app/gui/explorer/explorer_scene.h"
#include "app/gui/views/view.h"
#include "experiments_db/run_liveness.h"

namespace headroom::gui {

struct ExplorerSession {
  explicit ExplorerSession(ViewContext& c) : context(c) {}

  ViewContext& context;
  std::unique_ptr<explorer::ExplorerLoader> loader;
  std::shared_ptr<const explorer::RowsSnapshot> rows;  // null until the loader has answered
  std::shared_ptr<const explorer::CurvesSnapshot> curves;
  std::vector<explorer::CurveKey> curves_wanted;  // sorted, as last given to the loader
  std::vector<const explorer::RunRow*> shown;     // the table's rows: filtered and sorted
  bool shown_filtered = false;                    // a filter chose them (else: every run)
  std::uint64_t shown_filter_generation = 0;      // changes when they are ordered under another filter
  std::set<std::int64_t> selected;
  std::int64_t focused = -1;  // the run the Run tab shows
  int frames_with_rows = 0;   // tab bars and tables need a frame or two to lay out
  int select_tab = -1;        // an ExplorerTab to select in the next frame
  std::string message;        // a problem to show under the worker bar (worker, scene)

  // Running runs whose worker is gone (killed outright: "interrupted") or silent ("stalled"), by
  // id; a worker dies without writing, so this is checked again each second, not on a reload.
  std::map<std::int64_t, db::WorkerCheck> stranded;
  // Checks the running rows' workers when the rows changed or a second has passed.
  void check_workers(double now);

  bool open() const { return loader && rows && rows->open; }
  const explorer::RunRow* find_row(std::int64_t id) const;
  // The run's name without its suite prefix ("th-heads/multi-head/heads=2" -> "multi-head/heads=2").
  std::string short_name(const explorer::RunRow& row) const;
  // Hands the run's stored weights nearest `step` to the lab and switches to it.
  void open_in_lab(const explorer::RunRow& row, std::int64_t step);
  // Every wanted curve has arrived and is current.
  bool curves_ready() const;
  bool benchmarking() const;  // --bench-frames

 private:
  const explorer::RowsSnapshot* checked_rows_ = nullptr;
  double checked_at_ = 0;
};

}  // namespace headroom::gui
