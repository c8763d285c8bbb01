// Metrics, artifacts, atomic progress commits and the curve query.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "experiments_db/connection.h"
#include "tests/db/db_test_util.h"
#include "experiments_db/db_error.h"
#include "experiments_db/run_store.h"
#include "experiments_db/transaction.h"

namespace headroom::db {
namespace {

using testing::bytes_of;
using testing::read_bytes;
using testing::TempDir;

namespace fs = std::filesystem;

// A database with one run, claimed by worker "w".
struct Fixture {
  TempDir dir;
  Connection connection = Connection::open(dir.path("runs.sqlite"), OpenMode::Create);
  RunStore store{connection};
  std::int64_t run = 0;

  Fixture() {
    NewRun new_run;
    new_run.name = "run";
    new_run.config_json = "{}";
    run = store.enqueue_run(new_run);
    store.claim_next("w", 0, 1, 60);
  }

  std::int64_t metric_rows() {
    Statement count = connection.prepare("SELECT count(*) FROM metrics");
    count.step();
    return count.column_int64(0);
  }
};

TEST(Metrics, ReloggingTheSameStepReplacesInsteadOfDuplicating) {
  Fixture f;
  f.store.append_metrics(f.run, {{"loss", 0, 0, 0.0, 5.0}, {"loss", 10, 640, 1.5, 4.0}, {"acc", 10, 640, 1.5, 0.1}});
  // A resumed run logs step 10 again, with a different value.
  f.store.append_metrics(f.run, {{"loss", 10, 640, 1.7, 3.5}, {"loss", 20, 1280, 3.0, 3.0}});
  EXPECT_EQ(f.metric_rows(), 4);
  const auto curve = f.store.curve(f.run, "loss", 10, 10, 1);
  ASSERT_EQ(curve.size(), 1u);
  EXPECT_EQ(curve[0].last, 3.5);
  EXPECT_EQ(curve[0].last_wall_seconds, 1.7);
  EXPECT_EQ(f.store.metric_names(f.run), (std::vector<std::string>{"acc", "loss"}));
  const auto latest = f.store.latest_metrics(f.run);
  EXPECT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest.at("loss"), 3.0);
  EXPECT_EQ(latest.at("acc"), 0.1);
  const auto range = f.store.metric_step_range(f.run, "loss").value();
  EXPECT_EQ(range.first, 0);
  EXPECT_EQ(range.last, 20);
  EXPECT_FALSE(f.store.metric_step_range(f.run, "missing"));
}

TEST(Metrics, NanValuesSurviveAndAreIgnoredByMinMax) {
  Fixture f;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  f.store.append_metrics(
      f.run, {{"loss", 1, 0, 0, 2.0}, {"loss", 2, 0, 0, nan}, {"loss", 3, 0, 0, -1.0}, {"loss", 4, 0, 0, nan}});
  EXPECT_TRUE(std::isnan(f.store.latest_metrics(f.run).at("loss")));
  const auto curve = f.store.curve(f.run, "loss", 0, 9, 1);
  ASSERT_EQ(curve.size(), 1u);
  EXPECT_EQ(curve[0].min, -1.0);
  EXPECT_EQ(curve[0].max, 2.0);
  EXPECT_TRUE(std::isnan(curve[0].last));
  const auto only_nan = f.store.curve(f.run, "loss", 4, 4, 1);
  ASSERT_EQ(only_nan.size(), 1u);
  EXPECT_TRUE(std::isnan(only_nan[0].min));
}

TEST(Metrics, BadRowsAreRefusedWithClearMessages) {
  Fixture f;
  EXPECT_THROW(f.store.append_metrics(f.run + 100, {{"loss", 0, 0, 0, 1.0}}), DbError);
  try {
    f.store.append_metrics(f.run, {{"loss", -5, 0, 0, 1.0}});
    ADD_FAILURE() << "stored a negative step";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("step -5"), std::string::npos) << error.what();
  }
  EXPECT_THROW(f.store.append_metrics(f.run, {{"", 0, 0, 0, 1.0}}), DbError);
  EXPECT_EQ(f.metric_rows(), 0);
}

TEST(Artifacts, LatestAtAndStepsByKind) {
  Fixture f;
  f.store.put_artifact(f.run, 100, std::string(kCheckpointArtifact), bytes_of("ckpt-100"));
  f.store.put_artifact(f.run, 200, std::string(kCheckpointArtifact), bytes_of("ckpt-200"));
  f.store.put_artifact(f.run, 50, std::string(kTalkingHeadsArtifact), bytes_of("P@50"));
  f.store.put_artifact(f.run, 150, std::string(kTalkingHeadsArtifact), bytes_of("P@150"));
  f.store.put_artifact(f.run, 200, std::string(kCheckpointArtifact), bytes_of("ckpt-200-again"));  // replaces

  const Artifact latest = f.store.latest_artifact(f.run, std::string(kCheckpointArtifact)).value();
  EXPECT_EQ(latest.step, 200);
  EXPECT_EQ(latest.kind, kCheckpointArtifact);
  EXPECT_EQ(latest.bytes, bytes_of("ckpt-200-again"));
  EXPECT_EQ(f.store.artifact_steps(f.run, std::string(kCheckpointArtifact)), (std::vector<std::int64_t>{100, 200}));
  EXPECT_EQ(f.store.artifact_steps(f.run, std::string(kTalkingHeadsArtifact)), (std::vector<std::int64_t>{50, 150}));
  EXPECT_EQ(f.store.artifact_at(f.run, std::string(kTalkingHeadsArtifact), 50).value().bytes, bytes_of("P@50"));
  EXPECT_FALSE(f.store.artifact_at(f.run, std::string(kTalkingHeadsArtifact), 51));
  EXPECT_FALSE(f.store.latest_artifact(f.run, "optimizer"));

  NewRun second;
  second.name = "other";
  second.config_json = "{}";
  const std::int64_t other = f.store.enqueue_run(second);
  f.store.put_artifact(other, 7, std::string(kCheckpointArtifact), bytes_of("c"));
  EXPECT_EQ(f.store.artifact_counts(std::string(kCheckpointArtifact)),
            (std::map<std::int64_t, std::int64_t>{{f.run, 2}, {other, 1}}));
  EXPECT_EQ(f.store.artifact_counts(std::string(kTalkingHeadsArtifact)),
            (std::map<std::int64_t, std::int64_t>{{f.run, 2}}));
  EXPECT_EQ(f.store.artifact_counts(std::string(kCheckpointArtifact), other, other),
            (std::map<std::int64_t, std::int64_t>{{other, 1}}));
  EXPECT_TRUE(f.store.artifact_counts("optimizer").empty());

  EXPECT_EQ(f.store.prune_artifacts(f.run, std::string(kCheckpointArtifact), 1), 1);
  EXPECT_EQ(f.store.artifact_steps(f.run, std::string(kCheckpointArtifact)), (std::vector<std::int64_t>{200}));
  EXPECT_EQ(f.store.artifact_steps(f.run, std::string(kTalkingHeadsArtifact)).size(), 2u);
}

TEST(Progress, CommitProgressWritesEverythingTogether) {
  Fixture f;
  const Blob checkpoint = bytes_of("weights@100");
  const Blob mixing = bytes_of("P_l,P_w@100");
  Progress progress;
  progress.run_id = f.run;
  progress.worker_id = "w";
  progress.current_step = 100;
  progress.metrics = {{"loss", 100, 6400, 12.5, 2.5}, {"acc", 100, 6400, 12.5, 0.4}};
  progress.artifacts = {{std::string(kCheckpointArtifact), 100, checkpoint},
                        {std::string(kTalkingHeadsArtifact), 100, mixing}};
  EXPECT_TRUE(f.store.commit_progress(progress));
  EXPECT_EQ(f.store.get_run(f.run)->current_step, 100);
  EXPECT_EQ(f.metric_rows(), 2);
  EXPECT_EQ(f.store.latest_artifact(f.run, std::string(kCheckpointArtifact))->bytes, checkpoint);
  EXPECT_EQ(f.store.latest_artifact(f.run, std::string(kTalkingHeadsArtifact))->bytes, mixing);
}

TEST(Progress, FailureHalfWayThroughCommitProgressWritesNothing) {
  Fixture f;
  const Blob checkpoint = bytes_of("weights@100");
  Progress progress;
  progress.run_id = f.run;
  progress.worker_id = "w";
  progress.current_step = 100;
  progress.metrics = {{"loss", 100, 6400, 12.5, 2.5}};
  // The heartbeat, step, metric and checkpoint are written before the last
  // artifact fails; all of it must be rolled back.
  progress.artifacts = {{std::string(kCheckpointArtifact), 100, checkpoint}, {"", 100, checkpoint}};
  EXPECT_THROW(f.store.commit_progress(progress), DbError);
  EXPECT_FALSE(f.connection.in_transaction());
  EXPECT_EQ(f.store.get_run(f.run)->current_step, 0);
  EXPECT_EQ(f.metric_rows(), 0);
  EXPECT_FALSE(f.store.latest_artifact(f.run, std::string(kCheckpointArtifact)));
}

TEST(Progress, CallerHeldTransactionCoversMetricsAndArtifacts) {
  Fixture f;
  try {
    Transaction transaction(f.connection);
    f.store.append_metrics(f.run, {{"loss", 1, 0, 0, 1.0}});
    f.store.put_artifact(f.run, 1, std::string(kCheckpointArtifact), bytes_of("x"));
    throw std::runtime_error("worker crashed before commit");
  } catch (const std::runtime_error&) {}
  EXPECT_EQ(f.metric_rows(), 0);
  EXPECT_FALSE(f.store.latest_artifact(f.run, std::string(kCheckpointArtifact)));
  {
    Transaction transaction(f.connection);
    f.store.append_metrics(f.run, {{"loss", 1, 0, 0, 1.0}});
    f.store.put_artifact(f.run, 1, std::string(kCheckpointArtifact), bytes_of("x"));
    transaction.commit();
  }
  EXPECT_EQ(f.metric_rows(), 1);
  EXPECT_TRUE(f.store.latest_artifact(f.run, std::string(kCheckpointArtifact)));
}

TEST(Progress, DeleteProgressAfterRewindsToACheckpoint) {
  Fixture f;
  std::vector<MetricRow> rows;
  for (int step = 0; step <= 300; step += 10) rows.push_back({"loss", step, step * 64, step * 0.1, 1.0 / (step + 1)});
  const Blob bytes = bytes_of("ckpt");
  for (int step : {100, 200, 300}) {
    ASSERT_TRUE(f.store.commit_progress({f.run, "w", step, {}, {{std::string(kCheckpointArtifact), step, bytes}}}));
  }
  f.store.append_metrics(f.run, rows);
  f.store.delete_progress_after(f.run, 200);
  EXPECT_EQ(f.store.metric_step_range(f.run, "loss")->last, 200);
  EXPECT_EQ(f.metric_rows(), 21);
  EXPECT_EQ(f.store.artifact_steps(f.run, std::string(kCheckpointArtifact)), (std::vector<std::int64_t>{100, 200}));
  EXPECT_EQ(f.store.get_run(f.run)->current_step, 200);
}

// Brute force reference for RunStore::curve.
std::vector<CurveBucket> reference_curve(const std::vector<MetricRow>& rows, std::int64_t lo, std::int64_t hi,
                                         int buckets) {
  std::vector<CurveBucket> out;
  std::int64_t current = -1;
  for (const MetricRow& row : rows) {  // rows sorted by step
    if (row.step < lo || row.step > hi) continue;
    const std::int64_t bucket = (row.step - lo) * buckets / (hi - lo + 1);
    if (bucket != current) {
      out.push_back({row.step, row.step, row.value, row.value, row.value, row.tokens, row.wall_seconds});
      current = bucket;
    }
    CurveBucket& b = out.back();
    b.step_last = row.step;
    b.min = std::min(b.min, row.value);
    b.max = std::max(b.max, row.value);
    b.last = row.value;
    b.last_tokens = row.tokens;
    b.last_wall_seconds = row.wall_seconds;
  }
  return out;
}

void expect_same_curve(const std::vector<CurveBucket>& actual, const std::vector<CurveBucket>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("bucket " + std::to_string(i));
    EXPECT_EQ(actual[i].step_first, expected[i].step_first);
    EXPECT_EQ(actual[i].step_last, expected[i].step_last);
    EXPECT_EQ(actual[i].min, expected[i].min);
    EXPECT_EQ(actual[i].max, expected[i].max);
    EXPECT_EQ(actual[i].last, expected[i].last);
    EXPECT_EQ(actual[i].last_tokens, expected[i].last_tokens);
    EXPECT_EQ(actual[i].last_wall_seconds, expected[i].last_wall_seconds);
  }
}

// `trials` random step ranges (every fourth the whole series) and bucket counts of `rows`' metric
// in `store`, each against the brute-force reference.
void expect_exact_on_random_ranges(RunStore& store, std::int64_t run, const std::vector<MetricRow>& rows, int trials,
                                   std::mt19937_64& random) {
  const std::int64_t last = rows.back().step;
  for (int trial = 0; trial < trials; ++trial) {
    std::int64_t lo = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(last + 1));
    std::int64_t hi = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(last + 1));
    if (trial % 4 == 0) lo = 0, hi = last;
    if (hi < lo) std::swap(lo, hi);
    const int buckets = 1 + static_cast<int>(random() % 700);
    SCOPED_TRACE("range " + std::to_string(lo) + ".." + std::to_string(hi) + " buckets " + std::to_string(buckets));
    const std::int64_t effective = std::min<std::int64_t>(buckets, hi - lo + 1);
    expect_same_curve(store.curve(run, rows.front().name, lo, hi, buckets),
                      reference_curve(rows, lo, hi, static_cast<int>(effective)));
  }
}

TEST(Curve, MatchesBruteForceOnAKnownSeries) {
  Fixture f;
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(0.0, 0.3);
  std::vector<MetricRow> dense;
  for (int step = 0; step < 10000; ++step) {
    dense.push_back({"loss", step, step * 512LL, step * 0.05, 5.0 * std::exp(-step / 3000.0) + noise(random)});
  }
  std::vector<MetricRow> sparse;  // logged every 7 steps, with gaps
  for (int step = 3; step < 10000; step += 7) {
    if (step % 1000 < 300) continue;
    sparse.push_back({"grad_norm", step, step * 512LL, step * 0.05, noise(random)});
  }
  f.store.append_metrics(f.run, dense);
  f.store.append_metrics(f.run, sparse);
  // A second run's rows must not leak into the first run's curve.
  NewRun other;
  other.name = "other";
  other.config_json = "{}";
  const std::int64_t other_run = f.store.enqueue_run(other);
  f.store.append_metrics(other_run, {{"loss", 5000, 0, 0, -1000.0}});

  expect_same_curve(f.store.curve(f.run, "loss", 0, 9999, 100), reference_curve(dense, 0, 9999, 100));
  EXPECT_EQ(f.store.curve(f.run, "loss", 0, 9999, 100).size(), 100u);
  expect_same_curve(f.store.curve(f.run, "loss", 123, 8765, 37), reference_curve(dense, 123, 8765, 37));
  expect_same_curve(f.store.curve(f.run, "loss", 0, 9999, 1), reference_curve(dense, 0, 9999, 1));
  expect_same_curve(f.store.curve(f.run, "grad_norm", 0, 9999, 100), reference_curve(sparse, 0, 9999, 100));
  expect_same_curve(f.store.curve(f.run, "grad_norm", -50, 20000, 333), reference_curve(sparse, -50, 20000, 333));
}

TEST(Curve, EmptyRangesAndMoreBucketsThanPoints) {
  Fixture f;
  std::vector<MetricRow> rows;
  for (int step = 0; step < 100; step += 10) rows.push_back({"loss", step, 0, 0, static_cast<double>(step)});
  f.store.append_metrics(f.run, rows);
  EXPECT_TRUE(f.store.curve(f.run, "loss", 50, 40, 10).empty());      // hi < lo
  EXPECT_TRUE(f.store.curve(f.run, "loss", 1000, 2000, 10).empty());  // nothing logged there
  EXPECT_TRUE(f.store.curve(f.run, "loss", 41, 49, 10).empty());      // between two points
  EXPECT_TRUE(f.store.curve(f.run, "nope", 0, 100, 10).empty());
  EXPECT_TRUE(f.store.curve(f.run + 7, "loss", 0, 100, 10).empty());
  const auto fine = f.store.curve(f.run, "loss", 0, 99, 1000);  // more buckets than steps and points
  expect_same_curve(fine, reference_curve(rows, 0, 99, 100));
  ASSERT_EQ(fine.size(), 10u);
  EXPECT_EQ(fine[3].step_first, 30);
  EXPECT_EQ(fine[3].last, 30.0);
  expect_same_curve(f.store.curve(f.run, "loss", 20, 20, 5), reference_curve(rows, 20, 20, 1));
  EXPECT_THROW(f.store.curve(f.run, "loss", 0, 99, 0), DbError);
  EXPECT_THROW(f.store.curve(f.run, "loss", 0, std::numeric_limits<std::int64_t>::max(), 100), DbError);
}

TEST(Curve, MatchesBruteForceOnRandomRangesAndVeryLongRuns) {
  Fixture f;
  std::mt19937_64 random(99);
  std::vector<MetricRow> rows;
  std::int64_t step = 0;
  for (int i = 0; i < 30000; ++i) {
    // Mostly small gaps, sometimes huge ones, so every pyramid level
    // (blocks of 16 .. 16^6 steps) and several top-level blocks get used.
    step += (random() % 50 == 0) ? static_cast<std::int64_t>(random() % 3000000) : 1 + random() % 5;
    rows.push_back({"loss", step, step * 8, step * 0.01, std::ldexp(static_cast<double>(random() % 100000), -7)});
  }
  f.store.append_metrics(f.run, rows);
  ASSERT_GT(rows.back().step, 40'000'000);
  expect_exact_on_random_ranges(f.store, f.run, rows, 60, random);
}

TEST(Curve, StaysExactAfterOverwritesAndRewinds) {
  Fixture f;
  std::vector<MetricRow> rows;
  // Values after step 2500 are far out of range: once rewound, they must
  // never show up in a min or max again.
  for (int step = 0; step < 5000; ++step) {
    rows.push_back({"loss", step, step, 0, (step > 2500 ? 1000.0 : 10.0) + (step % 97)});
  }
  f.store.append_metrics(f.run, rows);
  // Overwrite the global minimum and maximum with ordinary values: the
  // pyramid must forget the old extremes.
  rows[1000].value = -50.0;
  rows[3000].value = 500.0;
  f.store.append_metrics(f.run, {rows[1000], rows[3000]});
  expect_same_curve(f.store.curve(f.run, "loss", 0, 4999, 7), reference_curve(rows, 0, 4999, 7));
  rows[1000].value = 50.0;
  rows[3000].value = 50.0;
  f.store.append_metrics(f.run, {rows[1000], rows[3000]});
  expect_same_curve(f.store.curve(f.run, "loss", 0, 4999, 7), reference_curve(rows, 0, 4999, 7));
  // Rewind to step 2500 and log a different future.
  f.store.delete_progress_after(f.run, 2500);
  rows.resize(2501);
  expect_same_curve(f.store.curve(f.run, "loss", 0, 4999, 3), reference_curve(rows, 0, 4999, 3));
  std::vector<MetricRow> future;
  for (int step = 2600; step < 4000; ++step) future.push_back({"loss", step, step, 0, -1.0 * step});
  f.store.append_metrics(f.run, future);
  rows.insert(rows.end(), future.begin(), future.end());
  expect_same_curve(f.store.curve(f.run, "loss", 0, 4999, 9), reference_curve(rows, 0, 4999, 9));
}

TEST(Curve, QueryPlanEntersPointsAndPyramidOnlyThroughPrimaryKeys) {
  Fixture f;
  const std::vector<std::string> plan = f.store.explain_curve_plan();
  std::string text;
  for (const std::string& line : plan) text += line + "\n";
  // metrics and metric_blocks are WITHOUT ROWID tables: their primary keys
  // (series_id, step) and (series_id, level, block) are the indexes.
  EXPECT_NE(text.find("SEARCH metrics USING PRIMARY KEY (series_id=? AND step>? AND step<?)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("SEARCH b USING PRIMARY KEY (series_id=? AND level=? AND block>? AND block<?)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SEARCH m USING PRIMARY KEY (series_id=? AND step=?)"), std::string::npos) << text;
  for (const char* scan : {"SCAN metrics", "SCAN m\n", "SCAN b\n", "SCAN metric_blocks"}) {
    EXPECT_EQ(text.find(scan), std::string::npos) << scan << " in\n" << text;
  }
}

TEST(Curve, WorkGrowsWithBucketsNotWithPoints) {
  Fixture f;
  std::vector<MetricRow> small;
  std::vector<MetricRow> large;
  for (int step = 0; step < 200000; ++step) {
    const double value = std::sin(step * 0.001) + (step % 13) * 0.01;
    if (step % 100 == 0) small.push_back({"small", step, 0, 0, value});
    large.push_back({"large", step, 0, 0, value});
  }
  f.store.append_metrics(f.run, small);
  f.store.append_metrics(f.run, large);
  // SQLite VM instructions, not time: deterministic. 100x the points within
  // the same buckets must not cost anywhere near 100x.
  const std::int64_t small_work = f.store.curve_work(f.run, "small", 0, 199999, 50);
  const std::int64_t large_work = f.store.curve_work(f.run, "large", 0, 199999, 50);
  EXPECT_GT(small_work, 0);
  EXPECT_LT(large_work, 3 * small_work) << "2,000 points: " << small_work << ", 200,000 points: " << large_work;
  const std::int64_t double_buckets = f.store.curve_work(f.run, "large", 0, 199999, 100);
  EXPECT_GT(double_buckets, large_work * 3 / 2) << "more buckets should mean proportionally more work";
  expect_same_curve(f.store.curve(f.run, "large", 0, 199999, 50), reference_curve(large, 0, 199999, 50));
}

// Merge and export rebuild a sparse series' pyramid from level 2 (schema 3): the curve query
// must read its points where level 1 would be, at any range and bucket count, and stay exact
// when the merged file is appended to, rewound, and then logged densely.
TEST(Curve, SparseSeriesStartAtLevelTwoAfterAMergeAndStayExact) {
  Fixture f;
  std::mt19937_64 random(2026);
  std::vector<MetricRow> sparse;  // at most one point per 16-step block, with huge gaps
  std::int64_t step = 5;
  for (int i = 0; i < 20000; ++i) {
    step += (random() % 60 == 0) ? 16 + static_cast<std::int64_t>(random() % 2000000) : 16 + random() % 40;
    sparse.push_back({"loss", step, step * 8, step * 0.01, std::ldexp(static_cast<double>(random() % 100000), -7)});
  }
  std::vector<MetricRow> dense;
  for (int s = 0; s < 3000; ++s) dense.push_back({"grad_norm", s, s, 0, std::sin(s * 0.01)});
  f.store.append_metrics(f.run, sparse);
  f.store.append_metrics(f.run, dense);

  const std::string merged_path = f.dir.path("merged.sqlite");
  Connection connection = Connection::open(merged_path, OpenMode::Create);
  RunStore merged(connection);
  merged.merge_from(f.connection.path());
  const std::int64_t run = merged.list_runs().at(0).id;
  const auto query = [&](const std::string& sql) {
    Statement statement = connection.prepare(sql);
    EXPECT_TRUE(statement.step()) << sql;
    return statement.column_int64(0);
  };
  const auto lowest = [&](const char* metric) {
    return query("SELECT lowest_block_level FROM metric_series WHERE name = '" + std::string(metric) + "'");
  };
  const auto level1_blocks = [&](const char* metric) {
    return query(
        "SELECT count(*) FROM metric_blocks b JOIN metric_series s ON s.id = b.series_id "
        "WHERE b.level = 1 AND s.name = '" +
        std::string(metric) + "'");
  };
  EXPECT_EQ(lowest("loss"), 2);
  EXPECT_EQ(level1_blocks("loss"), 0);
  EXPECT_EQ(lowest("grad_norm"), 1);
  EXPECT_EQ(level1_blocks("grad_norm"), 3000 / 16 + 1);

  const auto expect_exact = [&](const std::vector<MetricRow>& rows, int trials) {
    expect_exact_on_random_ranges(merged, run, rows, trials, random);
  };
  expect_exact(sparse, 60);
  expect_exact(dense, 10);
  // Reading points in level 1's place keeps the cost bounded: within 2x of the live file's
  // curve over the same series, which has level 1.
  EXPECT_LT(merged.curve_work(run, "loss", 0, sparse.back().step, 300),
            2 * f.store.curve_work(f.run, "loss", 0, sparse.back().step, 300));

  // Appending sparse points keeps level 2; a new minimum and maximum show up.
  const std::int64_t end = sparse.back().step;
  const std::vector<MetricRow> more = {{"loss", end + 20, 0, 0, -7.0}, {"loss", end + 300, 0, 0, 900.0}};
  merged.append_metrics(run, more);
  sparse.insert(sparse.end(), more.begin(), more.end());
  EXPECT_EQ(lowest("loss"), 2);
  expect_exact(sparse, 12);
  // Rewinding forgets them again.
  merged.delete_progress_after(run, end);
  sparse.resize(sparse.size() - 2);
  EXPECT_EQ(lowest("loss"), 2);
  expect_exact(sparse, 12);
  // Two points in one 16-step block: the series goes back to level 1, and stays exact.
  const std::int64_t block_start = (end / 16 + 1) * 16;
  const std::vector<MetricRow> burst = {{"loss", block_start, 0, 0, 3.0}, {"loss", block_start + 1, 0, 0, -3.0}};
  merged.append_metrics(run, burst);
  sparse.insert(sparse.end(), burst.begin(), burst.end());
  EXPECT_EQ(lowest("loss"), 1);
  EXPECT_EQ(level1_blocks("loss"), static_cast<std::int64_t>(sparse.size()) - 1);
  expect_exact(sparse, 12);
}

}  // namespace
}  // namespace headroom::db

namespace headroom::db {
namespace {

TEST(Summaries, LatestOfEveryMetricAndTheMinimumOfOneForAllRuns) {
  Fixture f;
  NewRun second;
  second.name = "second";
  second.config_json = "{}";
  const std::int64_t other = f.store.enqueue_run(second);
  NewRun empty;
  empty.name = "empty";
  empty.config_json = "{}";
  const std::int64_t silent = f.store.enqueue_run(empty);
  std::vector<MetricRow> rows;
  for (int s = 0; s < 5000; ++s)
    rows.push_back({"val_loss", s, 0, 0, 3.0 + std::sin(s * 0.01) + (s == 1234 ? -2.5 : 0.0)});
  rows.push_back({"train_loss", 7, 0, 0, 9.0});
  rows.push_back({"train_loss", 3, 0, 0, 1.0});  // logged out of order: the latest is step 7's
  f.store.append_metrics(f.run, rows);
  f.store.append_metrics(other, {{"val_loss", 0, 0, 0, std::nan("")}, {"lr", 10, 0, 0, 0.5}});

  const auto s = f.store.metric_summaries("val_loss");
  ASSERT_EQ(s.count(f.run), 1u);
  EXPECT_DOUBLE_EQ(s.at(f.run).latest.at("train_loss"), 9.0);
  EXPECT_DOUBLE_EQ(s.at(f.run).latest.at("val_loss"), 3.0 + std::sin(4999 * 0.01));
  double expected_min = 1e9;
  for (const auto& r : rows)
    if (r.name == "val_loss") expected_min = std::min(expected_min, r.value);
  EXPECT_DOUBLE_EQ(s.at(f.run).min_of_metric, expected_min);
  EXPECT_TRUE(std::isnan(s.at(other).min_of_metric));  // only NaN logged
  EXPECT_DOUBLE_EQ(s.at(other).latest.at("lr"), 0.5);
  EXPECT_EQ(s.count(silent), 0u);  // nothing logged: no entry

  // The same answers as the per-run calls.
  EXPECT_EQ(s.at(f.run).latest, f.store.latest_metrics(f.run));
}

}  // namespace
}  // namespace headroom::db

namespace headroom::db {
namespace {

// What metric_summaries must say, computed the slow way from the points themselves.
std::map<std::int64_t, RunMetricSummary> summaries_from_points(Connection& connection, const std::string& min_metric) {
  std::map<std::int64_t, RunMetricSummary> out;
  Statement select = connection.prepare(
      "SELECT s.run_id, s.name, (SELECT value FROM metrics WHERE series_id = s.id ORDER BY step DESC LIMIT 1), "
      "(SELECT min(value) FROM metrics WHERE series_id = s.id), "
      "(SELECT tokens FROM metrics WHERE series_id = s.id ORDER BY step DESC LIMIT 1), "
      "(SELECT wall_seconds FROM metrics WHERE series_id = s.id ORDER BY step DESC LIMIT 1) FROM metric_series s "
      "WHERE EXISTS (SELECT 1 FROM metrics WHERE series_id = s.id)");
  while (select.step()) {
    auto& run = out[select.column_int64(0)];
    run.latest[select.column_text(1)] = select.column_nullable_double(2);
    if (select.column_text(1) == min_metric) {
      run.min_of_metric = select.column_nullable_double(3);
      run.clock_at_last = {select.column_int64(4), select.column_nullable_double(5)};
    }
  }
  return out;
}

void expect_same(const std::map<std::int64_t, RunMetricSummary>& got,
                 const std::map<std::int64_t, RunMetricSummary>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [run, w] : want) {
    ASSERT_EQ(got.count(run), 1u) << "run " << run;
    const auto& g = got.at(run);
    ASSERT_EQ(g.latest.size(), w.latest.size()) << "run " << run;
    for (const auto& [name, value] : w.latest) {
      ASSERT_EQ(g.latest.count(name), 1u) << name;
      if (std::isnan(value)) {
        EXPECT_TRUE(std::isnan(g.latest.at(name))) << name;
      } else {
        EXPECT_EQ(g.latest.at(name), value) << name;
      }
    }
    if (std::isnan(w.min_of_metric)) {
      EXPECT_TRUE(std::isnan(g.min_of_metric)) << "run " << run;
    } else {
      EXPECT_EQ(g.min_of_metric, w.min_of_metric) << "run " << run;
    }
    EXPECT_EQ(g.clock_at_last.tokens, w.clock_at_last.tokens) << "run " << run;
    if (std::isnan(w.clock_at_last.wall_seconds)) {
      EXPECT_TRUE(std::isnan(g.clock_at_last.wall_seconds)) << "run " << run;
    } else {
      EXPECT_EQ(g.clock_at_last.wall_seconds, w.clock_at_last.wall_seconds) << "run " << run;
    }
  }
}

TEST(Summaries, StayTrueThroughRewritesTrimsAndMerges) {
  Fixture f;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(0.0, 10.0);
  for (int commit = 0; commit < 20; ++commit) {
    std::vector<MetricRow> rows;
    // Every point carries the run's clock (tokens, seconds), which the summary reads at the last one.
    for (int i = 0; i < 40; ++i) {
      const std::int64_t step = commit * 30 + i;
      rows.push_back({i % 3 ? "val_loss" : "acc", step, step * 64, 0.01 * double(step) + commit, value(rng)});
    }
    if (commit % 4 == 3) rows.push_back({"val_loss", 5, 0, 0, 1e-3 * commit});  // an old step rewritten
    f.store.append_metrics(f.run, rows);
    expect_same(f.store.metric_summaries("val_loss"), summaries_from_points(f.connection, "val_loss"));
  }
  // The minimum itself rewritten upwards: the summary must find the next smallest.
  f.store.append_metrics(f.run, {{"val_loss", 5, 0, 0, 50.0}});
  expect_same(f.store.metric_summaries("val_loss"), summaries_from_points(f.connection, "val_loss"));
  f.store.delete_progress_after(f.run, 200);  // a resume from step 200
  expect_same(f.store.metric_summaries("val_loss"), summaries_from_points(f.connection, "val_loss"));
  EXPECT_EQ(f.store.latest_metrics(f.run), summaries_from_points(f.connection, "val_loss").at(f.run).latest);
  f.store.delete_progress_after(f.run, -1);  // every point gone
  EXPECT_EQ(f.store.metric_summaries("val_loss").count(f.run), 0u);
  EXPECT_TRUE(f.store.latest_metrics(f.run).empty());

  // A merged run arrives with its summary.
  TempDir other_dir;
  {
    auto other = Connection::open(other_dir.path("shard.sqlite"), OpenMode::Create);
    RunStore shard(other);
    NewRun run;
    run.name = "from-shard";
    run.config_json = "{}";
    const std::int64_t id = shard.enqueue_run(run);
    shard.append_metrics(id, {{"val_loss", 3, 96, 1.5, 2.5}, {"val_loss", 9, 288, 4.5, 4.0}, {"acc", 9, 0, 0, 0.5}});
  }
  f.store.merge_from(other_dir.path("shard.sqlite"));
  const auto merged = f.store.metric_summaries("val_loss");
  expect_same(merged, summaries_from_points(f.connection, "val_loss"));
  const auto shard_run = f.store.find_run("from-shard").value().id;
  EXPECT_EQ(merged.at(shard_run).min_of_metric, 2.5);
  EXPECT_EQ(merged.at(shard_run).latest.at("val_loss"), 4.0);
  EXPECT_EQ(merged.at(shard_run).clock_at_last.tokens, 288);
  EXPECT_EQ(merged.at(shard_run).clock_at_last.wall_seconds, 4.5);
  // Without clocks (the explorer's reloads), and one run's clock on its own.
  constexpr auto kAll = std::numeric_limits<std::int64_t>::max();
  const auto without = f.store.metric_summaries("val_loss", -kAll, kAll, /*read_clocks=*/false);
  EXPECT_TRUE(std::isnan(without.at(shard_run).clock_at_last.wall_seconds));
  EXPECT_EQ(without.at(shard_run).min_of_metric, 2.5);
  const auto clock = f.store.last_clock(shard_run, "val_loss");
  ASSERT_TRUE(clock.has_value());
  EXPECT_EQ(clock->tokens, 288);
  EXPECT_EQ(clock->wall_seconds, 4.5);
  EXPECT_FALSE(f.store.last_clock(shard_run, "no such metric").has_value());
}

}  // namespace
}  // namespace headroom::db
