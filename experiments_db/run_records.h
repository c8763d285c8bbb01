// Plain data exchanged with RunStore. No SQL, no behaviour.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiments_db/blob.h"
#include "experiments_db/run_status.h"

namespace headroom::db {

// Artifact kinds the worker and GUI agree on. The library itself stores any
// non-empty kind; the blob format (safetensors) is opaque to it.
inline constexpr std::string_view kCheckpointArtifact = "checkpoint";
// Model-only weights (no optimiser state), one per checkpoint: what the lab opens.
inline constexpr std::string_view kWeightsArtifact = "weights";
// P_l / P_w mixing matrices of a talking-heads run, for replay in the GUI.
inline constexpr std::string_view kTalkingHeadsArtifact = "talking_heads";
// The metric the worker logs at a run's last step too: the clock at its last point is the run's
// (its mean rate: the explorer's tok/s, status's mean_tokens_per_s).
inline constexpr const char* kClockMetric = "val_loss";

struct SuiteRecord {
  std::int64_t id = 0;
  std::string name;
  std::string source_toml;  // the suite file as it was enqueued, for provenance
  std::string scale;
  double created_at = 0;  // Unix seconds
};

struct NewRun {
  std::optional<std::int64_t> suite_id;  // from ensure_suite; none for ad-hoc runs
  std::string name;                      // unique in the database
  std::string config_json;               // the full run config; must be valid JSON
  std::int64_t seed = 0;
  // Decides which `--shard I/N` worker trains the run: shard_key % N == I.
  // Unset means "position of the run in its suite" (0, 1, 2, ... in enqueue
  // order), which is the same on every machine that enqueues the same suite.
  std::optional<std::int64_t> shard_key;
  std::int64_t param_count = 0;
  std::string software_version;  // Headroom version that enqueued it
};

struct RunRecord {
  std::int64_t id = 0;
  std::optional<std::int64_t> suite_id;
  std::string suite_name;  // empty when the run belongs to no suite
  std::string name;
  RunStatus status = RunStatus::Queued;
  std::string worker;  // last worker that claimed it; empty if never claimed
  std::string config_json;
  std::int64_t seed = 0;
  std::int64_t shard_key = 0;
  std::int64_t param_count = 0;
  std::int64_t current_step = 0;  // last step whose progress was committed
  std::int64_t attempts = 0;      // how often it was claimed; > 1 means resumed
  std::string software_version;
  std::string error_text;  // set by fail(); empty otherwise
  double created_at = 0;   // Unix seconds, like all times here
  std::optional<double> started_at;
  std::optional<double> finished_at;
  std::optional<double> heartbeat_at;
};

// One logged value. Steps are >= 0. NaN values (a diverged loss) are stored
// and read back as NaN.
struct MetricRow {
  std::string name;
  std::int64_t step = 0;
  std::int64_t tokens = 0;  // tokens seen when the value was measured
  double wall_seconds = 0;  // training wall time when it was measured
  double value = 0;
};

// An artifact to write. Does not own its bytes (see BlobView).
struct ArtifactWrite {
  std::string kind;
  std::int64_t step = 0;
  BlobView bytes;
};

struct Artifact {
  std::int64_t step = 0;
  std::string kind;
  Blob bytes;
  double created_at = 0;
};

// Everything a worker records at one point of training, committed atomically
// by RunStore::commit_progress.
struct Progress {
  std::int64_t run_id = 0;
  std::string worker_id;
  std::int64_t current_step = 0;
  std::vector<MetricRow> metrics;
  std::vector<ArtifactWrite> artifacts;  // e.g. a checkpoint and a P_l/P_w snapshot
};

// One bucket of a downsampled curve. Only buckets that contain points are
// returned, in step order.
struct CurveBucket {
  std::int64_t step_first = 0;  // first and last stored step inside the bucket
  std::int64_t step_last = 0;
  double min = 0;  // NaN values are ignored; NaN if all were NaN
  double max = 0;
  double last = 0;  // value at step_last
  // x coordinates of the last point, for plotting against tokens or time.
  std::int64_t last_tokens = 0;
  double last_wall_seconds = 0;
};

// Where a run's clock stood at one logged point: tokens trained and seconds spent in training
// steps so far (NaN seconds: not logged).
struct MetricClock {
  std::int64_t tokens = 0;
  double wall_seconds = std::numeric_limits<double>::quiet_NaN();
  // Tokens trained per second spent in training steps up to this point; NaN without a clock.
  double tokens_per_second() const {
    return wall_seconds > 0 && tokens > 0 ? static_cast<double>(tokens) / wall_seconds
                                          : std::numeric_limits<double>::quiet_NaN();
  }
};

// One run's metrics at a glance (RunStore::metric_summaries).
struct RunMetricSummary {
  std::map<std::string, double> latest;  // value at the highest step of each metric
  double min_of_metric = std::numeric_limits<double>::quiet_NaN();
  // The clock at the highest step of that same metric (every point carries it), so tokens over
  // seconds is the run's mean throughput up to there. NaN seconds when not read or not logged.
  MetricClock clock_at_last;
};

struct StepRange {
  std::int64_t first = 0;
  std::int64_t last = 0;
};

struct ExportRow {
  std::int64_t run_id = 0;
  std::string run_name;
  std::string metric;
  std::int64_t step = 0;
  std::int64_t tokens = 0;
  double wall_seconds = 0;
  double value = 0;
};

struct MergeReport {
  int suites_added = 0;
  int runs_added = 0;     // new names
  int runs_replaced = 0;  // same name, the incoming run had got further
  int runs_skipped = 0;   // same name, the existing run had got as far or further
  std::int64_t metric_rows = 0;
  std::int64_t artifacts = 0;
};

}  // namespace headroom::db
