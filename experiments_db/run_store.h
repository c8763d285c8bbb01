// Suites, runs, the work queue, metrics and artifacts of one experiments database.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "experiments_db/connection.h"
#include "experiments_db/run_records.h"

namespace headroom::db {

// The typed face of an experiments database: callers never see SQL.
//
// A RunStore borrows a Connection (which must outlive it) and is as
// thread-affine as the connection. Several processes can each have their own
// Connection + RunStore on the same file: every write is one transaction that
// takes the write lock up front, so workers never observe each other's
// half-done work and never fail with "database is locked" within the busy
// timeout.
//
// Every writing method opens its own transaction, and since transactions nest
// (see Transaction) all of them can also run inside one the caller holds.
// On a ReadOnly connection the writing methods throw a DbError.
// Where two stored run configs (JSON) differ, as "model.width is 16 in the first, 32 in the
// second"; nullopt when they are the same run. train.device does not count: a claim rewrites it
// with the device that trained the run. Text that is not JSON is compared as text.
// `where_first` / `where_second` name the two in the message ("in the DB", "here").
std::optional<std::string> run_config_difference(const std::string& first, const std::string& second,
                                                 const std::string& where_first = "in the first",
                                                 const std::string& where_second = "in the second");

class RunStore {
 public:
  // Seconds since the Unix epoch. Injectable so tests can age heartbeats.
  using Clock = std::function<double()>;

  explicit RunStore(Connection& connection, Clock clock = {});

  // The database file, as the connection was opened with it (for messages).
  const std::string& db_path() const { return connection_.path(); }

  // --- suites ---------------------------------------------------------------

  // Id of the suite with this name, creating it if needed. An existing suite
  // keeps its source text and scale (set_suite_source replaces the text).
  std::int64_t ensure_suite(const std::string& name, const std::string& source_toml, const std::string& scale);
  std::vector<SuiteRecord> list_suites();
  // Replaces suite `id`'s stored file text (an edited suite file that adds runs to it).
  void set_suite_source(std::int64_t id, const std::string& source_toml);

  // --- runs and the queue ---------------------------------------------------

  // Queues a run and returns its id. Idempotent by name: if a run with this
  // name exists, its id is returned and nothing changes (so re-enqueueing a
  // suite after editing it does not duplicate runs; rename runs to re-run).
  std::int64_t enqueue_run(const NewRun& run);

  std::optional<RunRecord> get_run(std::int64_t run_id);
  std::optional<RunRecord> find_run(const std::string& name);
  std::vector<RunRecord> list_runs();  // in id (enqueue) order
  // The runs with first_id <= id <= last_id, in id order. Without `with_config` their
  // config_json stays empty: the explorer re-reads every run's state often but each
  // (immutable) config once.
  std::vector<RunRecord> list_runs(std::int64_t first_id, std::int64_t last_id, bool with_config);
  // The same, handed to `sink` one at a time (no vector of 100,000 records in between).
  void for_each_run(std::int64_t first_id, std::int64_t last_id, bool with_config,
                    const std::function<void(RunRecord&&)>& sink);
  // The smallest and largest run id, and how many runs there are (nullopt: no runs).
  struct RunIds {
    std::int64_t first = 0, last = 0, count = 0;
  };
  std::optional<RunIds> run_ids();

  // Atomically takes the oldest run of this shard that is either queued or
  // running with a heartbeat older than `stale_after_seconds` (its worker
  // died), marks it running for `worker_id` with a fresh heartbeat, and
  // returns it. Safe with any number of workers on one file: a run is handed
  // to exactly one of them. `stale_after_seconds <= 0` never steals.
  // Shards: a run belongs to shard (shard_key % shard_count); use 0, 1 for
  // "all runs". nullopt when there is nothing to do.
  // `device` ("cpu", "cuda:0"; "" leaves it) is written into the claimed run's config as
  // train.device in the same statement, so a stored run says where it trains or last trained (a
  // run moves between devices and resumes: the device is not part of what it computes), and the
  // attempt count that the claim raises tells readers the config may have changed.
  std::optional<RunRecord> claim_next(const std::string& worker_id, int shard_index, int shard_count,
                                      double stale_after_seconds, const std::string& device = "");

  // `train --name`: claims that one run whatever its state, to start or
  // resume it, unless it is done (returns nullopt: nothing to do). Throws a
  // DbError if there is no such run or another worker is training it (its
  // heartbeat is younger than `stale_after_seconds`).
  std::optional<RunRecord> claim_by_name(const std::string& name, const std::string& worker_id,
                                         double stale_after_seconds, const std::string& device = "");

  // Refreshes the heartbeat. Returns false when the run is no longer this
  // worker's to train -- it was cancelled, or declared dead and claimed by
  // another worker -- and the worker should stop without writing more.
  bool heartbeat(std::int64_t run_id, const std::string& worker_id);

  // End states, only applied while this worker owns the running run (same
  // rule and return value as heartbeat).
  bool finish(std::int64_t run_id, const std::string& worker_id);
  bool fail(std::int64_t run_id, const std::string& worker_id, const std::string& error_text);

  // A worker asked to stop (SIGTERM, "Stop worker" in the GUI) hands its run
  // back: running -> queued, so the next worker resumes it from its last
  // checkpoint at once instead of waiting for its heartbeat to go stale. Same
  // ownership rule and return value as heartbeat.
  bool release(std::int64_t run_id, const std::string& worker_id);

  // A queued or running run becomes cancelled: never claimed by claim_next
  // again, and its worker's next heartbeat returns false. Returns false if
  // the run was already done, failed or cancelled.
  bool cancel(std::int64_t run_id);

  // A failed or cancelled run goes back to the queue (keeping its progress,
  // so the next worker resumes from its last checkpoint). False otherwise.
  bool requeue(std::int64_t run_id);

  // --- progress (written by the worker) ---------------------------------------

  // Upserts metric rows. The key is (run, metric name, step); logging the same
  // key again REPLACES the stored row (last write wins): after a resume the
  // re-logged values are the ones consistent with the checkpoint training
  // continued from, so they should win over the crashed attempt's.
  void append_metrics(std::int64_t run_id, const std::vector<MetricRow>& rows);

  // Stores an artifact; the same (run, kind, step) again replaces it.
  void put_artifact(std::int64_t run_id, std::int64_t step, const std::string& kind, BlobView bytes);

  // One atomic step of training: refreshes the heartbeat, sets current_step,
  // upserts the metrics and stores the artifacts, all in one transaction --
  // after a crash the file holds either all of it or none. Returns false (and
  // writes nothing) if the run is no longer this worker's (see heartbeat).
  bool commit_progress(const Progress& progress);

  // For resuming from the checkpoint at `step`: drops metrics and artifacts
  // logged after it by the crashed attempt and lowers current_step to it.
  void delete_progress_after(std::int64_t run_id, std::int64_t step);

  // Deletes all but the newest `keep_last` artifacts of a kind (checkpoints
  // are big; P_l/P_w snapshots are usually all kept). Returns how many went.
  int prune_artifacts(std::int64_t run_id, const std::string& kind, int keep_last);

  // --- reading -------------------------------------------------------------

  std::optional<Artifact> latest_artifact(std::int64_t run_id, const std::string& kind);
  std::optional<Artifact> artifact_at(std::int64_t run_id, const std::string& kind, std::int64_t step);
  // Ascending. Reads no artifact bytes.
  std::vector<std::int64_t> artifact_steps(std::int64_t run_id, const std::string& kind);
  // How many artifacts of `kind` each run holds (runs with none are absent), for the runs with
  // first_id <= id <= last_id. One seek of the artifacts' (run, kind, step) index per run; reads no
  // artifact bytes.
  std::map<std::int64_t, std::int64_t> artifact_counts(const std::string& kind,
                                                       std::int64_t first_id = std::numeric_limits<std::int64_t>::min(),
                                                       std::int64_t last_id = std::numeric_limits<std::int64_t>::max());

  // Names of the metrics that have at least one row, sorted.
  std::vector<std::string> metric_names(std::int64_t run_id);
  // Value at the highest step of each metric (the `status` table). Cost: one
  // index seek per metric, independent of how many rows were logged.
  std::map<std::string, double> latest_metrics(std::int64_t run_id);
  // latest_metrics for every run at once, plus each run's minimum of `min_metric` (NaN when it
  // has none or all were NaN) and, with `read_clocks`, the tokens and wall seconds of its last
  // point: the explorer's table in two statements. Cost: one index seek per metric series, one row
  // of the min/max pyramid's top level per series of `min_metric`, and with clocks one point
  // look-up per such series (about 1.9 us a run, 2x the statement's time at 100,000 runs).
  // Only runs with first_id <= id <= last_id when given.
  std::map<std::int64_t, RunMetricSummary> metric_summaries(
      const std::string& min_metric, std::int64_t first_id = std::numeric_limits<std::int64_t>::min(),
      std::int64_t last_id = std::numeric_limits<std::int64_t>::max(), bool read_clocks = true);
  // The clock at the last point of one run's `metric`; nullopt when it has no points.
  std::optional<MetricClock> last_clock(std::int64_t run_id, const std::string& metric);

  // First and last logged step of a metric; nullopt if it has no rows.
  std::optional<StepRange> metric_step_range(std::int64_t run_id, const std::string& metric);

  // A curve downsampled for plotting: the steps [step_lo, step_hi] are split
  // into `buckets` equal slices -- a point at `step` falls in bucket
  // (step - step_lo) * buckets / (step_hi - step_lo + 1) -- and each slice
  // that holds points yields its exact min, max and last value.
  //
  // Cost: one SQL statement whose work grows with `buckets`, not with the
  // number of stored points. Per bucket it does three primary-key seeks
  // (first step, last step, last value) and reads fewer than ~32 rows per
  // level of a min/max pyramid kept next to the metrics (blocks of 16, 256,
  // ... 16^6 steps, maintained on every write), so a bucket spanning a
  // million points costs about as much as one spanning a hundred. Measured on
  // one core: 100 buckets over 1M points ~7 ms, 1000 buckets ~50 ms (a plain
  // scan of the points takes ~230 ms). Buckets spanning more than 16^6
  // steps each read one extra row per 16^6 steps.
  // Empty when step_hi < step_lo or nothing was logged in the range; more
  // buckets than steps is fine (each step is then its own bucket).
  std::vector<CurveBucket> curve(std::int64_t run_id, const std::string& metric, std::int64_t step_lo,
                                 std::int64_t step_hi, int buckets);

  // Diagnostics for tests and benchmarks. explain_curve_plan is SQLite's
  // EXPLAIN QUERY PLAN of the curve statement, one line per node.
  // curve_work runs curve() and returns the SQLite virtual-machine steps it
  // took: a deterministic measure of its work (unlike time).
  std::vector<std::string> explain_curve_plan();
  std::int64_t curve_work(std::int64_t run_id, const std::string& metric, std::int64_t step_lo, std::int64_t step_hi,
                          int buckets);

  // Streams (run, metric, step, tokens, wall, value) rows ordered by run id,
  // metric name, step, for all runs or one. Reads a consistent snapshot. The
  // callback must not write to this database.
  void export_rows(std::optional<std::int64_t> run_id, const std::function<void(const ExportRow&)>& sink);

  // --- merging -------------------------------------------------------------

  // Folds another experiments database (e.g. a cluster shard) into this one
  // in one transaction; the other file is only read. Suites with the same name
  // are shared. Runs get new ids and bring their metrics and artifacts. When
  // both files hold a run with the same name (shards enqueue every run but
  // train only theirs) the run that got further wins: done beats not done,
  // then the higher current_step, then the status order failed > cancelled >
  // running > queued; on a tie the existing run stays. Two runs of one name
  // with different configurations (run_config_difference) are different
  // experiments: the merge is refused and nothing of the other file is
  // written. Foreign, damaged or newer files are refused with the same
  // messages as Connection::open.
  MergeReport merge_from(const std::string& other_path);

  // Copies every row of every table of `source` (a Headroom database of this or an older schema
  // version, opened e.g. as OpenMode::Source) into this one, which must hold no suites and no runs
  // yet: ids, configs and metrics as they are, except artifacts whose kind is in
  // `artifact_kinds_left_out`, which are not even read (a paper-scale DB is gigabytes of
  // checkpoints). Derived data is not copied but made again: the series' summaries and their curve
  // pyramids, sparse series from level 2 (metric_blocks.h). One read snapshot of `source` (a worker
  // may be writing it), one transaction here; both nest in the caller's. Returns the artifacts
  // copied. `headroom-worker export --results-only` starts from it.
  std::int64_t copy_from(Connection& source, const std::set<std::string>& artifact_kinds_left_out);

  // Keeps at most `max_points` (>= 1) points of every metric series whose name is not in
  // `kept_whole`: evenly spaced by index, the first and the last always among them (one point:
  // the last). Their pyramids and summaries are made again. One transaction (nests in the
  // caller's). Returns the points deleted. `export --results-only --aux-series-points` uses it
  // on the series a shared DB needs least (lr, grad_norm, tokens_per_s), keeping the losses whole.
  std::int64_t thin_series(const std::set<std::string>& kept_whole, int max_points);

 private:
  double now() const;
  std::vector<CurveBucket> run_curve(std::int64_t run_id, const std::string& metric, std::int64_t step_lo,
                                     std::int64_t step_hi, int buckets, std::int64_t* vm_steps);
  void require_run(std::int64_t run_id);
  std::int64_t series_id(std::int64_t run_id, const std::string& metric, bool create);
  bool update_owned_run(std::int64_t run_id, const std::string& worker_id, const char* set_clause,
                        const std::string* text);

  Connection& connection_;
  Clock clock_;
};

}  // namespace headroom::db
