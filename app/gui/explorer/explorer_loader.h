// The explorer's reading thread: keeps the GUI's frames free of SQL and of checkpoint decoding.
//
// One background thread owns a read-only connection to the experiments DB. It loads the run
// rows (a DB of more than RowsPaging::above runs: the newest `first_page` first, so the window
// has a table and the default selection's curves while helper threads read the rest), polls `PRAGMA data_version` (a
// few times a second) and reloads them when another process — a worker — committed; it fetches the curves the view says
// it wants, bucketed by the store (RunStore::curve), re-fetching a wanted curve when its run moved on; and it reads the
// Run tab's details (stored steps, the P_l / P_w snapshot at a step). The UI thread posts
// requests and swaps immutable snapshots through a Mailbox (latest wins), so a worker writing at
// full speed never stalls a frame and neither side ever sees "database is locked" (WAL: readers
// never block the writer).
#pragma once

#include <cstdint>
#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "app/gui/explorer/curves.h"
#include "app/gui/explorer/run_rows.h"
#include "experiments_db/run_records.h"

namespace headroom::explorer {

// When the first load comes in two parts (tests make both small).
struct RowsPaging {
  std::int64_t above = 8192;          // more runs than this: the newest first
  std::int64_t first_page = 2048;     // that many of them
  std::function<void()> before_rest;  // tests: runs on the helper before it reads the older runs
};

struct RowsSnapshot {
  std::uint64_t version = 0;  // increases with every reload
  bool open = false;          // the DB opened (else `error` says why)
  std::string error;          // one message: what is wrong with the file, what would be right
  bool can_create = false;    // with `error`: the file does not exist but its folder does (the GUI offers to create it)
  std::string notice;         // what opening did to the file, if anything (a schema upgrade)
  std::vector<RunRow> rows;   // in id order
  // A big DB's first load comes in two snapshots: the newest runs at once (`partial`), then
  // every run. `total_runs` is the number of runs the file held when the load began.
  bool partial = false;
  std::int64_t total_runs = 0;
  std::int64_t done = 0, running = 0;  // runs of `rows` with that status (the toolbar's counts)
  std::vector<db::SuiteRecord> suites;
  double load_ms = 0;  // how long the last reload took (for the benchmark)
};

// One wanted curve. `steps` empty: the whole logged range.
struct CurveKey {
  std::int64_t run_id = 0;
  std::string metric;
  XAxis axis = XAxis::Step;
  std::optional<db::StepRange> steps;
  int buckets = 512;
  bool operator<(const CurveKey& o) const;
  bool operator==(const CurveKey& o) const { return !(*this < o) && !(o < *this); }
};

struct CurvesSnapshot {
  std::uint64_t version = 0;
  std::map<CurveKey, Curve> curves;  // only keys of the current want list
  bool complete = false;             // every wanted curve is loaded and current
};

// The Run tab's question: one run's stored steps, and its P_l / P_w snapshot at a step.
struct RunDetailRequest {
  std::int64_t run_id = -1;           // -1: no run
  bool projections = false;           // also read the talking-heads snapshots
  std::int64_t projection_step = -1;  // the snapshot to decode; -1: the newest
  bool operator==(const RunDetailRequest& o) const {
    return run_id == o.run_id && projections == o.projections && projection_step == o.projection_step;
  }
  bool operator!=(const RunDetailRequest& o) const { return !(*this == o); }
};

struct ProjectionMap {
  std::string name;        // "layer0.P_l", ...
  int rows = 0, cols = 0;  // h_k x h (P_l) or h x h_v (P_w): square unless the head counts differ
  std::vector<float> values;
};

struct RunDetail {
  std::uint64_t version = 0;
  RunDetailRequest request;                    // the request this answers (run_id -1: none yet)
  std::string config_json;                     // the run's config as stored
  std::vector<std::int64_t> weights_steps;     // steps with stored weights (Open in lab), ascending
  std::vector<std::int64_t> projection_steps;  // steps with P_l / P_w snapshots, ascending
  std::int64_t projection_step = -1;           // the step `maps` show
  std::vector<ProjectionMap> maps;
  std::string error;  // what could not be read
};

class ExplorerLoader {
 public:
  // Opens `db_path` read-only on the loader thread; a refusal shows up as rows()->error. With
  // `create`, a missing DB is first created there (the user's default DB on first launch).
  // `before_reading` runs first on the loader thread (the view waits there for the last DB's
  // tables to be freed).
  explicit ExplorerLoader(std::string db_path, double poll_seconds = 0.25, bool create = false,
                          std::function<void()> before_reading = {}, RowsPaging paging = {});
  ~ExplorerLoader();
  ExplorerLoader(const ExplorerLoader&) = delete;
  ExplorerLoader& operator=(const ExplorerLoader&) = delete;

  const std::string& db_path() const { return path_; }
  std::shared_ptr<const RowsSnapshot> rows() const;
  std::shared_ptr<const CurvesSnapshot> curves() const;

  // Replaces the wanted curves. Loaded ones that are still wanted are kept.
  void want(std::vector<CurveKey> keys);
  // Reload the rows now (e.g. after the GUI started a worker).
  void refresh();
  // Replaces the Run tab's question; the answer arrives as run_detail() (re-read when the DB changes).
  void want_run(const RunDetailRequest& request);
  std::shared_ptr<const RunDetail> run_detail() const;

 private:
  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

}  // namespace headroom::explorer
