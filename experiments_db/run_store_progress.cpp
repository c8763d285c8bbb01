// RunStore: metrics, artifacts, curves and export.
#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

#include "experiments_db/db_error.h"
#include "experiments_db/metric_blocks.h"
#include "experiments_db/run_store.h"
#include "experiments_db/transaction.h"

namespace headroom::db {
namespace {

// ?1 series id, ?2 step_lo, ?3 span = step_hi - step_lo + 1, ?4 bucket count
// (at most span, so no bucket is empty by construction).
//
// bucket:  the step range of every bucket, by integer arithmetic that is the
//          exact inverse of (step - lo) * B / span (bucket i starts at
//          lo + ceil(i * span / B)).
// edge:    first and last stored step of each bucket (two seeks).
// tier:    the pyramid levels this series stores (0 = the points themselves;
//          level 1 is absent when the series starts at level 2) and, for
//          each, the width in bits of the next level up.
// inside:  per bucket and tier, the blocks lying entirely inside [first,
//          last], and likewise one tier up (up_lo > up_hi: none, or no tier
//          above), and the shift from that tier's block index to this one's.
// part:    the blocks each tier must contribute: those not covered by a
//          whole block one tier up -- at most two runs of < 16 blocks, except
//          on the top level (and for a series starting at level 2, two runs
//          of < 256 steps of points, < 16 points each while it stays sparse).
//          Together they tile [first, last] exactly.
// extreme: the values / block extremes of those parts, read by primary key.
// CROSS JOIN pins every join order so that metrics and metric_blocks are only
// ever entered through their primary keys.
static_assert(detail::kBlockFanoutBits == 4 && detail::kBlockLevels == 6,
              "kCurveSql's tier table and shifts assume 16-way blocks on 6 levels");
constexpr const char* kCurveSql = R"sql(
WITH RECURSIVE
bucket(i, lo, hi) AS (
  SELECT 0, ?2, ?2 + (?3 + ?4 - 1) / ?4 - 1
  UNION ALL
  SELECT i + 1, hi + 1, ?2 + ((i + 2) * ?3 + ?4 - 1) / ?4 - 1 FROM bucket WHERE i + 1 < ?4
),
edge(i, a, b) AS MATERIALIZED (
  SELECT i,
    (SELECT step FROM metrics WHERE series_id = ?1 AND step BETWEEN bucket.lo AND bucket.hi
     ORDER BY step LIMIT 1),
    (SELECT step FROM metrics WHERE series_id = ?1 AND step BETWEEN bucket.lo AND bucket.hi
     ORDER BY step DESC LIMIT 1)
  FROM bucket  -- empty buckets get NULLs and drop out of every join below
),
level(l, bits) AS (VALUES (0, 0), (1, 4), (2, 8), (3, 12), (4, 16), (5, 20), (6, 24)),
tier(l, bits, up_bits) AS (
  SELECT l, bits, CASE WHEN l = 0 THEN 4 * lowest ELSE bits + 4 END
  FROM level CROSS JOIN (SELECT lowest_block_level AS lowest FROM metric_series WHERE id = ?1)
  WHERE l <> 1 OR lowest = 1
),
inside(i, l, lo, hi, up_lo, up_hi, shift) AS MATERIALIZED (
  SELECT i, l, (a + (1 << bits) - 1) >> bits, ((b + 1) >> bits) - 1,
    CASE WHEN up THEN (a + (1 << up_bits) - 1) >> up_bits ELSE 1 END,
    CASE WHEN up THEN ((b + 1) >> up_bits) - 1 ELSE 0 END,
    up_bits - bits
  FROM (SELECT edge.i, edge.a, edge.b, tier.l, tier.bits, tier.up_bits,
          tier.l < 6 AND (1 << tier.up_bits) <= edge.b - edge.a + 1 AS up
        FROM edge CROSS JOIN tier
        WHERE (1 << tier.bits) <= edge.b - edge.a + 1)  -- blocks wider than the bucket cannot help
),
part(i, l, lo, hi) AS (
  SELECT i, l, lo, CASE WHEN up_lo <= up_hi THEN (up_lo << shift) - 1 ELSE hi END FROM inside WHERE lo <= hi
  UNION ALL
  SELECT i, l, (up_hi + 1) << shift, hi FROM inside WHERE lo <= hi AND up_lo <= up_hi
),
extreme(i, lo_value, hi_value) AS (
  SELECT part.i, m.value, m.value
  FROM part CROSS JOIN metrics m ON m.series_id = ?1 AND m.step BETWEEN part.lo AND part.hi
  WHERE part.l = 0
  UNION ALL
  SELECT part.i, b.min_value, b.max_value
  FROM part CROSS JOIN metric_blocks b
    ON b.series_id = ?1 AND b.level = part.l AND b.block BETWEEN part.lo AND part.hi
  WHERE part.l > 0
),
summary(i, lo_value, hi_value) AS MATERIALIZED (
  SELECT i, min(lo_value), max(hi_value) FROM extreme GROUP BY i
)
SELECT edge.a, edge.b, summary.lo_value, summary.hi_value, m.value, m.tokens, m.wall_seconds
FROM edge
CROSS JOIN summary ON summary.i = edge.i
CROSS JOIN metrics m ON m.series_id = ?1 AND m.step = edge.b
ORDER BY edge.i
)sql";

Artifact read_artifact(const Statement& row) {
  Artifact artifact;
  artifact.step = row.column_int64(0);
  artifact.kind = row.column_text(1);
  artifact.bytes = row.column_blob(2);
  artifact.created_at = row.column_double(3);
  return artifact;
}

}  // namespace

std::int64_t RunStore::series_id(std::int64_t run_id, const std::string& metric, bool create) {
  Statement select = connection_.prepare("SELECT id FROM metric_series WHERE run_id = ? AND name = ?");
  select.bind(1, run_id).bind(2, metric);
  if (select.step()) return select.column_int64(0);
  if (!create) return 0;
  Statement insert = connection_.prepare("INSERT INTO metric_series (run_id, name) VALUES (?, ?)");
  insert.bind(1, run_id).bind(2, metric).step();
  return connection_.last_insert_rowid();
}

// --- progress ---------------------------------------------------------------

void RunStore::append_metrics(std::int64_t run_id, const std::vector<MetricRow>& rows) {
  Transaction transaction(connection_);
  require_run(run_id);
  std::unordered_map<std::string, std::int64_t> series;
  std::unordered_map<std::int64_t, std::set<std::int64_t>> touched_blocks;  // series -> level-1 blocks
  Statement upsert = connection_.prepare(
      "INSERT INTO metrics (series_id, step, tokens, wall_seconds, value) VALUES (?, ?, ?, ?, ?) "
      "ON CONFLICT (series_id, step) DO UPDATE SET "
      "tokens = excluded.tokens, wall_seconds = excluded.wall_seconds, value = excluded.value");
  for (const MetricRow& row : rows) {
    if (row.name.empty()) {
      throw DbError(connection_.path() + ": a metric of run " + std::to_string(run_id) + " at step " +
                    std::to_string(row.step) + " has an empty name; every metric needs a name such as \"loss\"");
    }
    if (row.step < 0) {
      throw DbError(connection_.path() + ": metric '" + row.name + "' of run " + std::to_string(run_id) + " has step " +
                    std::to_string(row.step) + "; steps count from 0");
    }
    auto found = series.find(row.name);
    if (found == series.end()) found = series.emplace(row.name, series_id(run_id, row.name, true)).first;
    upsert.bind(1, found->second).bind(2, row.step).bind(3, row.tokens).bind(4, row.wall_seconds).bind(5, row.value);
    upsert.step();
    upsert.reset();
    touched_blocks[found->second].insert(row.step >> detail::kBlockFanoutBits);
  }
  for (auto& [id, blocks] : touched_blocks) detail::refresh_metric_blocks(connection_, id, std::move(blocks));
  transaction.commit();
}

void RunStore::put_artifact(std::int64_t run_id, std::int64_t step, const std::string& kind, BlobView bytes) {
  if (kind.empty()) {
    throw DbError(connection_.path() + ": an artifact of run " + std::to_string(run_id) + " at step " +
                  std::to_string(step) + " has an empty kind; use e.g. \"" + std::string(kCheckpointArtifact) +
                  "\" or \"" + std::string(kTalkingHeadsArtifact) + "\"");
  }
  if (step < 0) {
    throw DbError(connection_.path() + ": artifact '" + kind + "' of run " + std::to_string(run_id) + " has step " +
                  std::to_string(step) + "; steps count from 0");
  }
  Transaction transaction(connection_);
  require_run(run_id);
  Statement upsert = connection_.prepare(
      "INSERT INTO artifacts (run_id, step, kind, bytes, created_at) VALUES (?, ?, ?, ?, ?) "
      "ON CONFLICT (run_id, kind, step) DO UPDATE SET bytes = excluded.bytes, created_at = excluded.created_at");
  upsert.bind(1, run_id).bind(2, step).bind(3, kind).bind(4, bytes).bind(5, now());
  upsert.step();
  transaction.commit();
}

bool RunStore::commit_progress(const Progress& progress) {
  if (progress.current_step < 0) {
    throw DbError(connection_.path() + ": progress of run " + std::to_string(progress.run_id) + " has step " +
                  std::to_string(progress.current_step) + "; steps count from 0");
  }
  Transaction transaction(connection_);
  Statement update = connection_.prepare(
      "UPDATE runs SET heartbeat_at = ?3, current_step = ?4 "
      "WHERE id = ?1 AND worker = ?2 AND status = 'running'");
  update.bind(1, progress.run_id).bind(2, progress.worker_id).bind(3, now()).bind(4, progress.current_step);
  update.step();
  if (connection_.changes() != 1) return false;  // cancelled or stolen: roll back, write nothing
  append_metrics(progress.run_id, progress.metrics);
  for (const ArtifactWrite& artifact : progress.artifacts) {
    put_artifact(progress.run_id, artifact.step, artifact.kind, artifact.bytes);
  }
  transaction.commit();
  return true;
}

void RunStore::delete_progress_after(std::int64_t run_id, std::int64_t step) {
  Transaction transaction(connection_);
  require_run(run_id);
  Statement metrics = connection_.prepare(
      "DELETE FROM metrics WHERE series_id IN (SELECT id FROM metric_series WHERE run_id = ?1) AND step > ?2");
  metrics.bind(1, run_id).bind(2, step).step();
  detail::trim_metric_blocks(connection_, run_id, step);
  Statement artifacts = connection_.prepare("DELETE FROM artifacts WHERE run_id = ?1 AND step > ?2");
  artifacts.bind(1, run_id).bind(2, step).step();
  Statement run = connection_.prepare("UPDATE runs SET current_step = min(current_step, ?2) WHERE id = ?1");
  run.bind(1, run_id).bind(2, step).step();
  transaction.commit();
}

int RunStore::prune_artifacts(std::int64_t run_id, const std::string& kind, int keep_last) {
  if (keep_last < 0) {
    throw DbError(connection_.path() + ": cannot keep " + std::to_string(keep_last) + " artifacts; keep 0 or more");
  }
  Statement prune = connection_.prepare(
      "DELETE FROM artifacts WHERE run_id = ?1 AND kind = ?2 AND step NOT IN "
      "(SELECT step FROM artifacts WHERE run_id = ?1 AND kind = ?2 ORDER BY step DESC LIMIT ?3)");
  prune.bind(1, run_id).bind(2, kind).bind(3, keep_last).step();
  return static_cast<int>(connection_.changes());
}

// --- reading ----------------------------------------------------------------

std::optional<Artifact> RunStore::latest_artifact(std::int64_t run_id, const std::string& kind) {
  Statement select = connection_.prepare(
      "SELECT step, kind, bytes, created_at FROM artifacts WHERE run_id = ? AND kind = ? "
      "ORDER BY step DESC LIMIT 1");
  select.bind(1, run_id).bind(2, kind);
  if (!select.step()) return std::nullopt;
  return read_artifact(select);
}

std::optional<Artifact> RunStore::artifact_at(std::int64_t run_id, const std::string& kind, std::int64_t step) {
  Statement select = connection_.prepare(
      "SELECT step, kind, bytes, created_at FROM artifacts WHERE run_id = ? AND kind = ? AND step = ?");
  select.bind(1, run_id).bind(2, kind).bind(3, step);
  if (!select.step()) return std::nullopt;
  return read_artifact(select);
}

std::vector<std::int64_t> RunStore::artifact_steps(std::int64_t run_id, const std::string& kind) {
  Statement select = connection_.prepare("SELECT step FROM artifacts WHERE run_id = ? AND kind = ? ORDER BY step");
  select.bind(1, run_id).bind(2, kind);
  std::vector<std::int64_t> steps;
  while (select.step()) steps.push_back(select.column_int64(0));
  return steps;
}

std::map<std::int64_t, std::int64_t> RunStore::artifact_counts(const std::string& kind, std::int64_t first_id,
                                                               std::int64_t last_id) {
  // One seek of the (run_id, kind, step) index per run: the cost does not grow with the runs' other
  // artifacts (a talking-heads run may hold hundreds of P_l / P_w snapshots).
  Statement select = connection_.prepare(
      "SELECT r.id, (SELECT count(*) FROM artifacts a WHERE a.run_id = r.id AND a.kind = ?3) "
      "FROM runs r WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id");
  select.bind(1, first_id).bind(2, last_id).bind(3, kind);
  std::map<std::int64_t, std::int64_t> counts;
  while (select.step())
    if (const std::int64_t n = select.column_int64(1); n > 0)
      counts.emplace_hint(counts.end(), select.column_int64(0), n);
  return counts;
}

std::vector<std::string> RunStore::metric_names(std::int64_t run_id) {
  Statement select = connection_.prepare(
      "SELECT name FROM metric_series s WHERE run_id = ? "
      "AND EXISTS (SELECT 1 FROM metrics WHERE series_id = s.id) ORDER BY name");
  select.bind(1, run_id);
  std::vector<std::string> names;
  while (select.step()) names.push_back(select.column_text(0));
  return names;
}

std::map<std::string, double> RunStore::latest_metrics(std::int64_t run_id) {
  Statement select =
      connection_.prepare("SELECT name, last_value FROM metric_series WHERE run_id = ? AND last_step IS NOT NULL");
  select.bind(1, run_id);
  std::map<std::string, double> latest;
  while (select.step()) latest[select.column_text(0)] = select.column_nullable_double(1);
  return latest;
}

std::map<std::int64_t, RunMetricSummary> RunStore::metric_summaries(const std::string& min_metric,
                                                                    std::int64_t first_id, std::int64_t last_id,
                                                                    bool read_clocks) {
  // One pass over the series' summary columns (kept by every write; schema version 2).
  std::map<std::int64_t, RunMetricSummary> out;
  // The clock of min_metric's last point: one look-up of the metrics' primary key per run, for
  // that series only (with `s.name = ?3` beside the key SQLite sought the point of every series:
  // 3x the statement's time at 100,000 runs; with the CASE, 1.4 us a run).
  Statement select = connection_.prepare(
      "SELECT s.run_id, s.name, s.last_value, s.min_value, p.tokens, p.wall_seconds FROM metric_series s "
      "LEFT JOIN metrics p ON p.series_id = (CASE WHEN s.name = ?3 THEN s.id END) AND p.step = s.last_step "
      "WHERE s.last_step IS NOT NULL AND s.run_id BETWEEN ?1 AND ?2");
  select.bind(1, first_id);
  select.bind(2, last_id);
  // An empty name matches no series: no clock is read.
  select.bind(3, read_clocks ? min_metric : std::string());
  auto hint = out.end();
  while (select.step()) {
    const std::int64_t run_id = select.column_int64(0);
    if (hint == out.end() || hint->first != run_id) hint = out.try_emplace(hint, run_id);
    std::string name = select.column_text(1);
    if (name == min_metric) {
      hint->second.min_of_metric = select.column_nullable_double(3);
      if (!select.column_is_null(4))
        hint->second.clock_at_last = {select.column_int64(4), select.column_nullable_double(5)};
    }
    hint->second.latest.emplace(std::move(name), select.column_nullable_double(2));
  }
  return out;
}

std::optional<MetricClock> RunStore::last_clock(std::int64_t run_id, const std::string& metric) {
  Statement select = connection_.prepare(
      "SELECT p.tokens, p.wall_seconds FROM metric_series s "
      "JOIN metrics p ON p.series_id = s.id AND p.step = s.last_step WHERE s.run_id = ?1 AND s.name = ?2");
  select.bind(1, run_id);
  select.bind(2, metric);
  if (!select.step()) return std::nullopt;
  return MetricClock{select.column_int64(0), select.column_nullable_double(1)};
}

std::optional<StepRange> RunStore::metric_step_range(std::int64_t run_id, const std::string& metric) {
  const std::int64_t series = series_id(run_id, metric, false);
  if (series == 0) return std::nullopt;
  // Two subqueries: SQLite answers a lone min() or max() with one index seek.
  Statement select = connection_.prepare(
      "SELECT (SELECT min(step) FROM metrics WHERE series_id = ?1), "
      "(SELECT max(step) FROM metrics WHERE series_id = ?1)");
  select.bind(1, series);
  if (!select.step() || select.column_is_null(0)) return std::nullopt;
  return StepRange{select.column_int64(0), select.column_int64(1)};
}

std::vector<CurveBucket> RunStore::curve(std::int64_t run_id, const std::string& metric, std::int64_t step_lo,
                                         std::int64_t step_hi, int buckets) {
  return run_curve(run_id, metric, step_lo, step_hi, buckets, nullptr);
}

std::int64_t RunStore::curve_work(std::int64_t run_id, const std::string& metric, std::int64_t step_lo,
                                  std::int64_t step_hi, int buckets) {
  std::int64_t vm_steps = 0;
  run_curve(run_id, metric, step_lo, step_hi, buckets, &vm_steps);
  return vm_steps;
}

std::vector<CurveBucket> RunStore::run_curve(std::int64_t run_id, const std::string& metric, std::int64_t step_lo,
                                             std::int64_t step_hi, int buckets, std::int64_t* vm_steps) {
  if (buckets < 1) {
    throw DbError("a curve needs at least 1 bucket (got " + std::to_string(buckets) +
                  "); pass the plot's width in pixels, for example");
  }
  if (step_hi < step_lo) return {};
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  // The bucket arithmetic multiplies the span by the bucket count; keep it
  // within 64 bits (SQLite would silently switch to floating point).
  if (step_lo < -(kMax / 4) || step_hi > kMax / 4 || step_hi - step_lo >= (kMax / 4) / buckets) {
    throw DbError("the curve step range [" + std::to_string(step_lo) + ", " + std::to_string(step_hi) +
                  "] is too wide for " + std::to_string(buckets) +
                  " buckets; clamp it to the metric's logged steps (metric_step_range)");
  }
  const std::int64_t series = series_id(run_id, metric, false);
  if (series == 0) return {};
  const std::int64_t span = step_hi - step_lo + 1;
  const std::int64_t effective_buckets = std::min<std::int64_t>(buckets, span);

  Statement select = connection_.prepare(kCurveSql);
  select.bind(1, series).bind(2, step_lo).bind(3, span).bind(4, effective_buckets);
  std::vector<CurveBucket> curve;
  while (select.step()) {
    CurveBucket bucket;
    bucket.step_first = select.column_int64(0);
    bucket.step_last = select.column_int64(1);
    bucket.min = select.column_nullable_double(2);
    bucket.max = select.column_nullable_double(3);
    bucket.last = select.column_nullable_double(4);
    bucket.last_tokens = select.column_int64(5);
    bucket.last_wall_seconds = select.column_nullable_double(6);
    curve.push_back(bucket);
  }
  if (vm_steps != nullptr) *vm_steps = select.vm_steps();
  return curve;
}

std::vector<std::string> RunStore::explain_curve_plan() {
  Statement explain = connection_.prepare(std::string("EXPLAIN QUERY PLAN ") + kCurveSql);
  std::vector<std::string> plan;
  while (explain.step()) plan.push_back(explain.column_text(3));
  return plan;
}

void RunStore::export_rows(std::optional<std::int64_t> run_id, const std::function<void(const ExportRow&)>& sink) {
  Transaction snapshot(connection_, TransactionKind::Read);
  Statement select = connection_.prepare(
      "SELECT r.id, r.name, s.name, m.step, m.tokens, m.wall_seconds, m.value "
      "FROM runs r JOIN metric_series s ON s.run_id = r.id JOIN metrics m ON m.series_id = s.id "
      "WHERE ?1 IS NULL OR r.id = ?1 ORDER BY r.id, s.name, m.step");
  select.bind(1, run_id);
  ExportRow row;
  while (select.step()) {
    row.run_id = select.column_int64(0);
    row.run_name = select.column_text(1);
    row.metric = select.column_text(2);
    row.step = select.column_int64(3);
    row.tokens = select.column_int64(4);
    row.wall_seconds = select.column_nullable_double(5);
    row.value = select.column_nullable_double(6);
    sink(row);
  }
  snapshot.commit();
}

}  // namespace headroom::db
