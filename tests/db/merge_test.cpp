// Export of metric rows, merging databases (e.g. cluster shards) and copying one into a new file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "experiments_db/connection.h"
#include "tests/db/db_test_util.h"
#include "experiments_db/db_error.h"
#include "experiments_db/evenly_spaced.h"
#include "experiments_db/run_store.h"

namespace headroom::db {
namespace {

using testing::bytes_of;
using testing::read_bytes;
using testing::TempDir;

namespace fs = std::filesystem;

NewRun run_in(std::int64_t suite, const std::string& name) {
  NewRun run;
  run.suite_id = suite;
  run.name = name;
  run.config_json = R"({"name": ")" + name + R"("})";
  run.software_version = "0.1.0";
  return run;
}

// Trains `name` in `store` to `steps` and finishes it, like a worker would.
void train(RunStore& store, const std::string& name, int steps, double scale) {
  const RunRecord run = store.claim_by_name(name, "worker", 60).value();
  for (int step = 10; step <= steps; step += 10) {
    const double spike = step % 40 == 20 ? 1.0 : 0.0;  // extremes mid-run, not only at the ends
    Progress progress{run.id,
                      "worker",
                      step,
                      {{"loss", step, step * 8LL, step * 0.5, scale / step + spike},
                       {"acc", step, step * 8LL, step * 0.5, step * 0.001}},
                      {}};
    const Blob checkpoint = bytes_of(name + "@" + std::to_string(step));
    if (step % 50 == 0) progress.artifacts.push_back({std::string(kCheckpointArtifact), step, checkpoint});
    ASSERT_TRUE(store.commit_progress(progress));
  }
  ASSERT_TRUE(store.finish(run.id, "worker"));
}

using Row = std::tuple<std::string, std::string, std::int64_t, double>;  // run name, metric, step, value

std::vector<Row> exported(RunStore& store, std::optional<std::int64_t> run_id = std::nullopt) {
  std::vector<Row> rows;
  store.export_rows(run_id,
                    [&](const ExportRow& row) { rows.emplace_back(row.run_name, row.metric, row.step, row.value); });
  return rows;
}

TEST(Export, RowsAreOrderedByRunMetricStep) {
  TempDir dir;
  Connection connection = Connection::open(dir.path("runs.sqlite"), OpenMode::Create);
  RunStore store(connection);
  const std::int64_t suite = store.ensure_suite("s", "", "");
  const std::int64_t a = store.enqueue_run(run_in(suite, "a"));
  const std::int64_t b = store.enqueue_run(run_in(suite, "b"));
  store.append_metrics(b, {{"loss", 20, 0, 0, 0.5}, {"loss", 10, 0, 0, 1.0}});
  store.append_metrics(a, {{"loss", 10, 160, 2.5, 3.0}, {"acc", 10, 160, 2.5, 0.2}});
  const std::vector<Row> all = exported(store);
  const std::vector<Row> expected = {
      {"a", "acc", 10, 0.2}, {"a", "loss", 10, 3.0}, {"b", "loss", 10, 1.0}, {"b", "loss", 20, 0.5}};
  EXPECT_EQ(all, expected);
  EXPECT_EQ(exported(store, b), std::vector<Row>(expected.begin() + 2, expected.end()));
  std::vector<ExportRow> full;
  store.export_rows(a, [&](const ExportRow& row) { full.push_back(row); });
  ASSERT_EQ(full.size(), 2u);
  EXPECT_EQ(full[1].run_id, a);
  EXPECT_EQ(full[1].tokens, 160);
  EXPECT_EQ(full[1].wall_seconds, 2.5);
}

TEST(Merge, ShardsFoldIntoTheUnionWithConsistentMetrics) {
  TempDir dir;
  const std::string shard_paths[2] = {dir.path("shard0.sqlite"), dir.path("shard1.sqlite")};
  // Both machines enqueue the same suite; each trains only its shard: shard 0
  // trains r0 and r2, shard 1 trains r1 and r3 (shard key = position).
  std::map<std::string, std::vector<Row>> truth;
  for (int shard = 0; shard < 2; ++shard) {
    Connection connection = Connection::open(shard_paths[shard], OpenMode::Create);
    RunStore store(connection);
    const std::int64_t suite = store.ensure_suite("sweep", "[suite]", "tiny");
    for (const char* name : {"r0", "r1", "r2", "r3"}) store.enqueue_run(run_in(suite, name));
    for (const RunRecord& run : store.list_runs()) {
      if (run.shard_key % 2 != shard) continue;
      train(store, run.name, 100 + 10 * static_cast<int>(run.shard_key), 1.0 + run.shard_key);
      truth[run.name] = exported(store, run.id);
    }
  }
  // An unrelated ad-hoc run in shard 1, no suite.
  {
    Connection connection = Connection::open(shard_paths[1], OpenMode::ReadWrite);
    RunStore store(connection);
    NewRun adhoc;
    adhoc.name = "adhoc";
    adhoc.config_json = "{}";
    const std::int64_t id = store.enqueue_run(adhoc);
    store.append_metrics(id, {{"loss", 0, 0, 0, 9.0}});
    truth["adhoc"] = exported(store, id);
  }
  const std::string before0 = read_bytes(shard_paths[0]);

  const std::string out_path = dir.path("merged.sqlite");
  Connection out = Connection::open(out_path, OpenMode::Create);
  RunStore merged(out);
  const MergeReport first = merged.merge_from(shard_paths[0]);
  EXPECT_EQ(first.suites_added, 1);
  EXPECT_EQ(first.runs_added, 4);
  const MergeReport second = merged.merge_from(shard_paths[1]);
  EXPECT_EQ(second.suites_added, 0);               // "sweep" is shared
  EXPECT_EQ(second.runs_added, 1);                 // adhoc
  EXPECT_EQ(second.runs_replaced, 2);              // r1, r3 were only queued in shard 0
  EXPECT_EQ(second.runs_skipped, 2);               // r0, r2 are only queued in shard 1
  EXPECT_EQ(read_bytes(shard_paths[0]), before0);  // sources are only read

  EXPECT_EQ(merged.list_suites().size(), 1u);
  const auto runs = merged.list_runs();
  ASSERT_EQ(runs.size(), 5u);
  for (const RunRecord& run : runs) {
    SCOPED_TRACE(run.name);
    EXPECT_EQ(exported(merged, run.id), truth.at(run.name));
    // The pyramid behind curve() is rebuilt for merged runs.
    const auto curve = merged.curve(run.id, "loss", 0, 1000, 3);
    ASSERT_FALSE(curve.empty());
    double min = curve[0].last;
    double max = curve[0].last;
    for (const auto& [run_name, metric, step, value] : truth.at(run.name)) {
      if (metric != "loss" || step > curve[0].step_last) continue;
      min = std::min(min, value);
      max = std::max(max, value);
    }
    EXPECT_EQ(curve[0].min, min);
    EXPECT_EQ(curve[0].max, max);
    if (run.name == "adhoc") {
      EXPECT_FALSE(run.suite_id);
      continue;
    }
    EXPECT_EQ(run.suite_name, "sweep");
    EXPECT_EQ(run.status, RunStatus::Done);
    EXPECT_EQ(run.software_version, "0.1.0");
    EXPECT_EQ(run.config_json, run_in(0, run.name).config_json);
    const auto steps = merged.artifact_steps(run.id, std::string(kCheckpointArtifact));
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(merged.latest_artifact(run.id, std::string(kCheckpointArtifact))->bytes,
              bytes_of(run.name + "@" + std::to_string(steps.back())));
  }
  // No orphans: every metric row and artifact belongs to one of the 5 runs.
  Statement orphans = out.prepare(
      "SELECT (SELECT count(*) FROM metric_series WHERE run_id NOT IN (SELECT id FROM runs)) + "
      "(SELECT count(*) FROM artifacts WHERE run_id NOT IN (SELECT id FROM runs))");
  ASSERT_TRUE(orphans.step());
  EXPECT_EQ(orphans.column_int64(0), 0);
  std::int64_t total = 0;
  for (const auto& [name, rows] : truth) total += static_cast<std::int64_t>(rows.size());
  EXPECT_EQ(static_cast<std::int64_t>(exported(merged).size()), total);

  // Merging the same shard again changes nothing.
  const MergeReport again = merged.merge_from(shard_paths[1]);
  EXPECT_EQ(again.runs_added + again.runs_replaced, 0);
  EXPECT_EQ(again.runs_skipped, 5);
}

TEST(Merge, RefusesItselfAndForeignFilesUntouched) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  Connection connection = Connection::open(path, OpenMode::Create);
  RunStore store(connection);
  EXPECT_THROW(store.merge_from(path), DbError);
  const std::string text_path = dir.path("notes.txt");
  { std::ofstream(text_path) << "not a database\n"; }
  try {
    store.merge_from(text_path);
    ADD_FAILURE() << "merged a text file";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("is not a Headroom experiments database"), std::string::npos);
  }
  EXPECT_EQ(read_bytes(text_path), "not a database\n");
  EXPECT_THROW(store.merge_from(dir.path("missing.sqlite")), DbError);
  EXPECT_FALSE(fs::exists(dir.path("missing.sqlite")));
  EXPECT_TRUE(store.list_runs().empty());
}

TEST(Merge, ARunOfTheSameNameWithAnotherConfigIsAnotherExperimentAndNothingIsMerged) {
  TempDir dir;
  const auto make = [&](const std::string& file, const std::string& config) {
    Connection connection = Connection::open(dir.path(file), OpenMode::Create);
    RunStore store(connection);
    NewRun run = run_in(store.ensure_suite("s", "toml", "quick"), "s/a");
    run.config_json = config;
    store.enqueue_run(run);
    train(store, "s/a", 100, 1.0);
  };
  make("cpu.sqlite", R"({"model": {"width": 16}, "train": {"device": "cpu", "lr": 0.001}})");
  make("gpu.sqlite", R"({"model": {"width": 16}, "train": {"device": "cuda:0", "lr": 0.001}})");
  make("wider.sqlite", R"({"model": {"width": 32}, "train": {"device": "cpu", "lr": 0.001}})");

  Connection connection = Connection::open(dir.path("cpu.sqlite"), OpenMode::ReadWrite);
  RunStore store(connection);
  const auto before = exported(store);
  try {
    store.merge_from(dir.path("wider.sqlite"));
    ADD_FAILURE() << "merged another experiment of the same name";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("model.width is 16 in the first, 32 in the second"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(exported(store), before);
  EXPECT_EQ(store.list_runs().size(), 1u);
  // The device a run trained on is not part of the experiment: the same run from a GPU merges.
  const MergeReport report = store.merge_from(dir.path("gpu.sqlite"));
  EXPECT_EQ(report.runs_skipped, 1);

  EXPECT_EQ(run_config_difference(R"({"a": 1})", R"({"a": 1, "b": 2})"), "b is absent in the first, 2 in the second");
  EXPECT_EQ(run_config_difference("not json", "not json"), std::nullopt);
  EXPECT_NE(run_config_difference("not json", "{}"), std::nullopt);
}

// Every row of `table`, each column quoted by SQLite (blobs as hex, NULL as NULL), one line a row.
std::string dump(Connection& connection, const std::string& table, const std::string& where = "") {
  std::string columns;
  Statement info = connection.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
  info.bind(1, table);
  while (info.step()) columns += (columns.empty() ? "quote(" : " || ',' || quote(") + info.column_text(0) + ")";
  Statement rows = connection.prepare("SELECT " + columns + " FROM " + table + where + " ORDER BY 1");
  std::string out;
  while (rows.step()) out += rows.column_text(0) + "\n";
  return out;
}

TEST(Copy, EveryRowButTheArtifactKindsLeftOutAndOnlyIntoANewDatabase) {
  TempDir dir;
  const std::string source_path = dir.path("full.sqlite");
  {
    Connection connection = Connection::open(source_path, OpenMode::Create);
    RunStore store(connection);
    const std::int64_t suite = store.ensure_suite("sweep", "[suite]", "paper");
    for (const char* name : {"r0", "r1", "r2"}) store.enqueue_run(run_in(suite, name));
    train(store, "r0", 200, 1.0);  // checkpoints at 50 .. 200
    train(store, "r2", 100, 2.0);  // r1 stays queued
    const std::int64_t r0 = store.find_run("r0")->id;
    store.put_artifact(r0, 200, "weights", bytes_of("final weights"));
    store.put_artifact(r0, 100, std::string(kTalkingHeadsArtifact), bytes_of("P_l P_w"));
    store.put_artifact(r0, 150, "empty", Blob{});
    store.append_metrics(r0, {{"grad_norm", 200, 1600, 100.0, std::nan("")}});  // NaN is stored as NULL
    NewRun adhoc;
    adhoc.name = "adhoc";
    adhoc.config_json = "{}";
    store.enqueue_run(adhoc);
  }
  const std::string before = read_bytes(source_path);
  Connection source = Connection::open(source_path, OpenMode::ReadOnly);
  Connection copy = Connection::open(dir.path("copy.sqlite"), OpenMode::Create);
  RunStore store(copy);
  EXPECT_EQ(store.copy_from(source, {std::string(kCheckpointArtifact), "weights"}), 2);  // talking_heads, empty

  for (const char* table : {"suites", "runs", "metrics"}) {
    SCOPED_TRACE(table);
    const std::string rows = dump(source, table);
    EXPECT_GT(rows.size(), 10u);
    EXPECT_EQ(dump(copy, table), rows);
  }
  // Derived data is made again, not copied: the same summaries and pyramid, except that a sparse
  // series (grad_norm, one point) starts at level 2; loss and acc (every 10 steps) keep level 1.
  const std::string dense = " WHERE name <> 'grad_norm'";
  EXPECT_GT(dump(source, "metric_series", dense).size(), 10u);
  EXPECT_EQ(dump(copy, "metric_series", dense), dump(source, "metric_series", dense));
  const auto sparse_series = [](Connection& connection) {
    Statement row = connection.prepare(
        "SELECT id || ',' || quote(last_step) || ',' || quote(last_value) || ',' || quote(min_value) || ',' || "
        "lowest_block_level FROM metric_series WHERE name = 'grad_norm'");
    return row.step() ? row.column_text(0) : std::string("none");
  };
  const std::string summary = sparse_series(source);
  EXPECT_EQ(summary.back(), '1');
  EXPECT_EQ(sparse_series(copy), summary.substr(0, summary.size() - 1) + "2");
  const std::string sparse_level1 =
      "level = 1 AND series_id IN (SELECT id FROM metric_series WHERE name = 'grad_norm')";
  EXPECT_NE(dump(source, "metric_blocks", " WHERE " + sparse_level1), "");
  EXPECT_EQ(dump(copy, "metric_blocks"), dump(source, "metric_blocks", " WHERE NOT (" + sparse_level1 + ")"));
  const std::string kept = " WHERE kind NOT IN ('checkpoint', 'weights')";
  EXPECT_EQ(dump(copy, "artifacts"), dump(source, "artifacts", kept));
  EXPECT_NE(dump(copy, "artifacts").find("X''"), std::string::npos) << "the empty blob stays a blob";
  EXPECT_NE(dump(source, "metrics").find("NULL"), std::string::npos);
  // What RunStore reads back agrees: the curve behind the explorer, and the run table's summary.
  const std::int64_t r0 = store.find_run("r0")->id;
  RunStore original(source);
  EXPECT_EQ(exported(store, store.find_run("r2")->id), exported(original, store.find_run("r2")->id));
  EXPECT_EQ(store.curve(r0, "loss", 0, 1000, 4).size(), original.curve(r0, "loss", 0, 1000, 4).size());
  EXPECT_EQ(store.latest_metrics(r0).at("loss"), original.latest_metrics(r0).at("loss"));
  EXPECT_TRUE(std::isnan(store.latest_metrics(r0).at("grad_norm")));
  EXPECT_TRUE(store.artifact_steps(r0, std::string(kCheckpointArtifact)).empty());

  // Only into a new database: a second copy is refused and changes nothing.
  const std::string runs = dump(copy, "runs");
  try {
    store.copy_from(source, {});
    ADD_FAILURE() << "copied into a database that already holds runs";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("already holds suites or runs"), std::string::npos) << error.what();
  }
  EXPECT_EQ(dump(copy, "runs"), runs);
  EXPECT_EQ(dump(copy, "artifacts"), dump(source, "artifacts", kept));
  EXPECT_EQ(read_bytes(source_path), before) << "the source was written";
}

// The thinning rule both export options share: evenly spaced indices, first and last kept, the last
// alone at 1, everything at or above the count, on steps that need not be evenly spaced themselves.
TEST(Copy, EvenlySpacedKeepsFirstAndLastAndSpacesTheIndices) {
  const std::vector<std::int64_t> steps{0, 10, 20, 30, 45, 60, 80, 100, 130, 160, 200};  // 11 steps
  EXPECT_EQ(evenly_spaced(steps, 3), (std::set<std::int64_t>{0, 60, 200}));              // indices 0, 5, 10
  EXPECT_EQ(evenly_spaced(steps, 5), (std::set<std::int64_t>{0, 20, 60, 100, 200}));     // 0, 2, 5, 7, 10
  EXPECT_EQ(evenly_spaced(steps, 2), (std::set<std::int64_t>{0, 200}));
  EXPECT_EQ(evenly_spaced(steps, 1), (std::set<std::int64_t>{200}));
  EXPECT_TRUE(evenly_spaced(steps, 0).empty());
  const std::set<std::int64_t> all(steps.begin(), steps.end());
  EXPECT_EQ(evenly_spaced(steps, 11), all);
  EXPECT_EQ(evenly_spaced(steps, 50), all);
  EXPECT_TRUE(evenly_spaced({}, 4).empty());
  for (std::size_t keep = 2; keep <= steps.size(); ++keep) EXPECT_EQ(evenly_spaced(steps, keep).size(), keep);
}

// thin_series keeps the named series whole and spaces the others' points evenly, first and last
// kept; the curves and summaries read afterwards are those of a database that never had the
// points left out (an independent one, written with only the kept points).
TEST(Copy, ThinSeriesKeepsTheNamedSeriesWholeAndTheOthersEvenlySpaced) {
  TempDir dir;
  Connection connection = Connection::open(dir.path("thin.sqlite"), OpenMode::Create);
  Connection oracle_connection = Connection::open(dir.path("oracle.sqlite"), OpenMode::Create);
  RunStore store(connection), oracle(oracle_connection);
  const std::int64_t run = store.enqueue_run(run_in(store.ensure_suite("s", "", ""), "r"));
  const std::int64_t twin = oracle.enqueue_run(run_in(oracle.ensure_suite("s", "", ""), "r"));
  std::vector<MetricRow> points, kept_points;
  const auto lr = [](int i) { return 0.5 + 0.4 * std::sin(0.37 * i); };  // extremes everywhere, not only at the ends
  for (int i = 0; i < 100; ++i) {
    const std::int64_t step = 10 * (i + 1);
    points.push_back({"loss", step, step * 8, step * 0.5, 1.0 / (i + 1)});
    points.push_back({"lr", step, step * 8, step * 0.5, lr(i)});
    kept_points.push_back(points[points.size() - 2]);
    if (i == 0 || i == 24 || i == 49 || i == 74 || i == 99) kept_points.push_back(points.back());  // i * 99 / 4
  }
  store.append_metrics(run, points);
  oracle.append_metrics(twin, kept_points);

  EXPECT_EQ(store.thin_series({"loss"}, 5), 95);
  std::vector<Row> lr_rows;
  for (const Row& row : exported(store))
    if (std::get<1>(row) == "lr") lr_rows.push_back(row);
  const std::vector<Row> expected = {{"r", "lr", 10, lr(0)},
                                     {"r", "lr", 250, lr(24)},
                                     {"r", "lr", 500, lr(49)},
                                     {"r", "lr", 750, lr(74)},
                                     {"r", "lr", 1000, lr(99)}};
  EXPECT_EQ(lr_rows, expected);
  EXPECT_EQ(exported(store), exported(oracle));  // loss whole too
  for (const char* metric : {"loss", "lr"}) {
    for (const auto [lo, hi, buckets] : {std::tuple{0, 1000, 4}, std::tuple{0, 1000, 64}, std::tuple{240, 760, 3}}) {
      const auto got = store.curve(run, metric, lo, hi, buckets), want = oracle.curve(twin, metric, lo, hi, buckets);
      ASSERT_EQ(got.size(), want.size()) << metric << " " << lo << ".." << hi;
      for (std::size_t b = 0; b < got.size(); ++b) {
        EXPECT_EQ(got[b].step_first, want[b].step_first) << metric << " bucket " << b;
        EXPECT_EQ(got[b].step_last, want[b].step_last) << metric << " bucket " << b;
        EXPECT_EQ(got[b].min, want[b].min) << metric << " bucket " << b;
        EXPECT_EQ(got[b].max, want[b].max) << metric << " bucket " << b;
      }
    }
  }
  EXPECT_EQ(store.latest_metrics(run), oracle.latest_metrics(twin));

  // Already within the limit: nothing goes. One point: the last. Zero: refused, nothing changed.
  EXPECT_EQ(store.thin_series({"loss"}, 5), 0);
  EXPECT_EQ(store.thin_series({}, 1), 99 + 4);
  EXPECT_EQ(exported(store), (std::vector<Row>{{"r", "loss", 1000, 0.01}, {"r", "lr", 1000, lr(99)}}));
  EXPECT_THROW(store.thin_series({}, 0), DbError);
  EXPECT_EQ(exported(store).size(), 2u);
}

// A file of an older schema (here 1: no series summaries, every pyramid from level 1) is read as
// it is by merge and export, never upgraded, and what they write equals what a current file gives.
TEST(Copy, AnOlderSchemaSourceIsReadAsItIsAndItsDerivedDataMadeAgain) {
  TempDir dir;
  const std::string current_path = dir.path("current.sqlite"), old_path = dir.path("old.sqlite");
  {
    Connection connection = Connection::open(current_path, OpenMode::Create);
    RunStore store(connection);
    const std::int64_t suite = store.ensure_suite("sweep", "[suite]", "full");
    for (const char* name : {"r0", "r1"}) store.enqueue_run(run_in(suite, name));
    train(store, "r0", 200, 1.0);
    const std::int64_t r0 = store.find_run("r0")->id;
    std::vector<MetricRow> sparse;  // one point per 100 steps: its copy starts at level 2
    for (int step = 0; step < 5000; step += 100) sparse.push_back({"val_loss", step, step, 0, 1.0 + (step % 700)});
    store.append_metrics(r0, sparse);
  }
  fs::copy_file(current_path, old_path);
  {
    Connection raw = Connection::open(old_path, OpenMode::ReadWrite);
    raw.exec(testing::kDowngradeToVersion1);
  }
  const std::string before = read_bytes(old_path);
  EXPECT_THROW(Connection::open(old_path, OpenMode::ReadOnly), DbError);  // a reader still says "upgrade it"

  Connection current = Connection::open(current_path, OpenMode::Source);
  Connection old = Connection::open(old_path, OpenMode::Source);
  Connection from_current = Connection::open(dir.path("from_current.sqlite"), OpenMode::Create);
  Connection from_old = Connection::open(dir.path("from_old.sqlite"), OpenMode::Create);
  RunStore(from_current).copy_from(current, {});
  RunStore(from_old).copy_from(old, {});
  for (const char* table : {"suites", "runs", "metric_series", "metrics", "metric_blocks", "artifacts"}) {
    SCOPED_TRACE(table);
    EXPECT_NE(dump(from_current, table), "");
    EXPECT_EQ(dump(from_old, table), dump(from_current, table));
  }
  Connection merged = Connection::open(dir.path("merged.sqlite"), OpenMode::Create);
  RunStore store(merged);
  EXPECT_EQ(store.merge_from(old_path).runs_added, 2);
  const std::int64_t r0 = store.find_run("r0")->id;
  RunStore reference(from_current);
  EXPECT_EQ(exported(store), exported(reference));
  EXPECT_EQ(store.latest_metrics(r0), reference.latest_metrics(r0));
  EXPECT_EQ(store.metric_summaries("val_loss").at(r0).min_of_metric, 1.0);
  const auto curve = store.curve(r0, "val_loss", 0, 4999, 7), expected = reference.curve(r0, "val_loss", 0, 4999, 7);
  ASSERT_EQ(curve.size(), expected.size());
  for (std::size_t i = 0; i < curve.size(); ++i) EXPECT_EQ(curve[i].max, expected[i].max) << "bucket " << i;
  EXPECT_EQ(read_bytes(old_path), before) << "the older file was written";
}

}  // namespace
}  // namespace headroom::db
