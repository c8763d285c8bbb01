// The explorer's reading thread against a DB that another connection writes to.
#include "app/gui/explorer/explorer_loader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <random>
#include <thread>

#include "core/io/blocking_io.h"
#include "core/io/safetensors.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"
#include "tests/db/db_test_util.h"

namespace headroom::explorer {
namespace {

using db::testing::TempDir;

// Waits (bounded) until `ready` holds; the loader works on its own thread.
bool eventually(const std::function<bool()>& ready, double seconds = 10) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return ready();
}

std::int64_t add_run(db::RunStore& store, const std::string& name) {
  db::NewRun run;
  run.name = name;
  run.config_json = R"({"model":{"width":64,"depth":2,"attention":{"kind":"multi-head","heads":8,"d_k":8}}})";
  return store.enqueue_run(run);
}

TEST(ExplorerLoader, SeesAWorkersCommitsAndRefetchesWantedCurves) {
  TempDir dir("explorer");
  const std::string path = dir.path("runs.sqlite");
  auto writer_conn = db::Connection::open(path, db::OpenMode::Create);
  db::RunStore writer(writer_conn);
  const auto id = add_run(writer, "a");
  ASSERT_TRUE(writer.claim_next("w", 0, 1, 60));
  std::vector<db::MetricRow> rows;
  for (int s = 0; s < 100; ++s) rows.push_back({"train_loss", s, s * 10, s * 0.1, 5.0 - s * 0.01});
  ASSERT_TRUE(writer.commit_progress({id, "w", 99, rows, {}}));

  ExplorerLoader loader(path, 0.02);
  ASSERT_TRUE(eventually([&] { return loader.rows()->rows.size() == 1; }));
  EXPECT_TRUE(loader.rows()->open);
  EXPECT_EQ(loader.rows()->rows[0].step, 99);

  CurveKey key{id, "train_loss", XAxis::Step, std::nullopt, 1000};
  loader.want({key});
  ASSERT_TRUE(eventually([&] { return loader.curves()->complete && loader.curves()->curves.count(key); }));
  EXPECT_EQ(loader.curves()->curves.at(key).y.size(), 100u);

  // The worker goes on: the loader notices through data_version and refetches.
  rows.clear();
  for (int s = 100; s < 150; ++s) rows.push_back({"train_loss", s, s * 10, s * 0.1, 5.0 - s * 0.01});
  ASSERT_TRUE(writer.commit_progress({id, "w", 149, rows, {}}));
  ASSERT_TRUE(eventually([&] {
    auto c = loader.curves();
    return c->complete && c->curves.count(key) && c->curves.at(key).y.size() == 150;
  }));
  EXPECT_EQ(loader.rows()->rows[0].step, 149);
  EXPECT_DOUBLE_EQ(loader.curves()->curves.at(key).y.back(), 5.0 - 149 * 0.01);

  // A new run appears too.
  add_run(writer, "b");
  ASSERT_TRUE(eventually([&] { return loader.rows()->rows.size() == 2; }));
}

TEST(ExplorerLoader, ABigDbShowsItsNewestRunsFirstThenEveryRunAsOneLoadWould) {
  TempDir dir("explorer");
  const std::string path = dir.path("runs.sqlite");
  auto writer_conn = db::Connection::open(path, db::OpenMode::Create);
  db::RunStore writer(writer_conn);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 30; ++i) ids.push_back(add_run(writer, "run" + std::to_string(i)));
  const auto straight = load_run_rows(writer);

  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  RowsPaging paging{20, 8, [released] { released.wait(); }};
  ExplorerLoader loader(path, 0.02, false, {}, paging);
  ASSERT_TRUE(eventually([&] { return !loader.rows()->rows.empty(); }));
  auto first = loader.rows();
  EXPECT_TRUE(first->partial);
  EXPECT_EQ(first->total_runs, 30);
  ASSERT_EQ(first->rows.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(first->rows[i].id, ids[22 + i]);  // the newest, in id order

  // Curves of the newest runs come while the older runs are still being read.
  CurveKey key{ids.back(), "train_loss", XAxis::Step, std::nullopt, 100};
  loader.want({key});
  ASSERT_TRUE(eventually([&] { return loader.curves()->complete; }));
  EXPECT_TRUE(loader.rows()->partial);

  release.set_value();
  ASSERT_TRUE(eventually([&] { return !loader.rows()->partial; }));
  const auto all = loader.rows();
  EXPECT_EQ(all->total_runs, 30);
  ASSERT_EQ(all->rows.size(), straight.size());
  for (std::size_t i = 0; i < straight.size(); ++i) {
    EXPECT_EQ(all->rows[i].id, straight[i].id);
    EXPECT_EQ(all->rows[i].name, straight[i].name);
    EXPECT_EQ(all->rows[i].h, straight[i].h);
  }

  // A DB at or under the threshold comes in one snapshot.
  ExplorerLoader small(path, 0.02, false, {}, RowsPaging{30, 8, {}});
  ASSERT_TRUE(eventually([&] { return !small.rows()->rows.empty(); }));
  EXPECT_FALSE(small.rows()->partial);
  EXPECT_EQ(small.rows()->rows.size(), 30u);
}

TEST(ExplorerLoader, AForeignFileIsExplainedAndLeftUntouched) {
  TempDir dir("explorer");
  const std::string path = dir.path("notes.sqlite");
  { std::ofstream(path) << "just some text, not a database\n"; }
  const std::string before = db::testing::read_bytes(path);
  ExplorerLoader loader(path, 0.02);
  ASSERT_TRUE(eventually([&] { return !loader.rows()->error.empty(); }));
  EXPECT_FALSE(loader.rows()->open);
  EXPECT_NE(loader.rows()->error.find(path), std::string::npos) << loader.rows()->error;
  EXPECT_EQ(db::testing::read_bytes(path), before);
}

TEST(ExplorerLoader, ADbWithFlippedPagesIsReportedNotACrash) {
  TempDir dir("explorer");
  const std::string path = dir.path("runs.sqlite");
  std::vector<std::int64_t> ids;
  {
    auto conn = db::Connection::open(path, db::OpenMode::Create);
    db::RunStore store(conn);
    for (int r = 0; r < 12; ++r) {
      ids.push_back(add_run(store, "run" + std::to_string(r)));
      ASSERT_TRUE(store.claim_next("w", 0, 1, 60));
      std::vector<db::MetricRow> rows;
      for (int s = 0; s < 2000; ++s) rows.push_back({"train_loss", s, s * 10, s * 0.1, 5.0 - s * 1e-3});
      ASSERT_TRUE(store.commit_progress({ids.back(), "w", 1999, rows, {}}));
    }
  }  // the last connection closes: the WAL is folded into the file
  const std::string good = db::testing::read_bytes(path);
  ASSERT_GT(good.size(), 16 * 4096u);
  std::vector<CurveKey> every_curve;
  for (auto id : ids) every_curve.push_back({id, "train_loss", XAxis::Step, std::nullopt, 200});

  // seed -1: the b-tree page type of every page after the first is broken; else 64 random bytes.
  int reported = 0;
  for (int seed = -1; seed < 24; ++seed) {
    std::string bytes = good;
    if (seed < 0) {
      for (size_t page = 4096; page < bytes.size(); page += 4096) bytes[page] = '\xFF';
    } else {
      std::mt19937 rng(static_cast<unsigned>(seed));
      std::uniform_int_distribution<size_t> at(100, bytes.size() - 1);
      for (int i = 0; i < 64; ++i) bytes[at(rng)] ^= static_cast<char>(1 + rng() % 255);
    }
    { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }
    ExplorerLoader loader(path, 0.02);
    ASSERT_TRUE(eventually([&] { return loader.rows()->open || !loader.rows()->error.empty(); })) << "seed " << seed;
    if (loader.rows()->open) {
      loader.want(every_curve);
      ASSERT_TRUE(eventually([&] { return loader.curves()->complete || !loader.rows()->error.empty(); }))
          << "seed " << seed;
    }
    const std::string error = loader.rows()->error;
    if (!error.empty()) {
      ++reported;
      EXPECT_NE(error.find(path), std::string::npos) << error;
    }
    if (seed < 0) {
      EXPECT_FALSE(loader.rows()->open);
      EXPECT_NE(error.find("damaged"), std::string::npos) << error;
    }
  }
  std::printf("%d of 25 damaged files reported\n", reported);
  EXPECT_GE(reported, 2);
}

TEST(ExplorerLoader, OnlyWantedCurvesAreKept) {
  TempDir dir("explorer");
  const std::string path = dir.path("runs.sqlite");
  auto conn = db::Connection::open(path, db::OpenMode::Create);
  db::RunStore store(conn);
  const auto a = add_run(store, "a"), b = add_run(store, "b");
  store.append_metrics(a, {{"val_loss", 0, 0, 0, 3.0}, {"val_loss", 10, 0, 0, 2.0}});
  store.append_metrics(b, {{"val_loss", 0, 0, 0, 4.0}});
  ExplorerLoader loader(path, 0.02);
  const CurveKey ka{a, "val_loss", XAxis::Step, std::nullopt, 100}, kb{b, "val_loss", XAxis::Step, std::nullopt, 100};
  loader.want({ka, kb});
  ASSERT_TRUE(eventually([&] { return loader.curves()->complete && loader.curves()->curves.size() == 2; }));
  loader.want({kb});
  ASSERT_TRUE(eventually([&] { return loader.curves()->complete && loader.curves()->curves.size() == 1; }));
  EXPECT_EQ(loader.curves()->curves.count(kb), 1u);
  EXPECT_DOUBLE_EQ(loader.curves()->curves.at(kb).y.at(0), 4.0);
}

// A P_l / P_w snapshot as the worker stores it: one tensor per projection, h_k x h and h x h_v
// (TH §5: the head counts differ when h_k, h, h_v are set apart).
db::Blob projections_at(float value) {
  core::StFile f;
  const float pl[4] = {value, 0, 0, value}, pw[6] = {1, 2, 3, 4, 5, 6};
  f.tensors.push_back(core::make_f32("layer0.P_l", {2, 2}, pl));
  f.tensors.push_back(core::make_f32("layer0.P_w", {2, 3}, pw));
  return core::encode_safetensors(f);
}

TEST(ExplorerLoader, ReadsARunsStepsAndDecodesItsProjectionsOffTheCallingThread) {
  TempDir dir("explorer");
  const std::string path = dir.path("runs.sqlite");
  auto conn = db::Connection::open(path, db::OpenMode::Create);
  db::RunStore store(conn);
  const auto a = add_run(store, "a");
  for (std::int64_t step : {10, 20, 30}) store.put_artifact(a, step, "talking_heads", projections_at(float(step)));
  store.put_artifact(a, 30, "weights", db::BlobView(std::string_view("w")));
  ExplorerLoader loader(path, 0.02);

  // The view's calls happen on the UI thread; none of them may read the DB there.
  io::mark_ui_thread();
  const long before = io::blocking_calls_on_ui_thread();
  loader.want_run({a, true, -1});
  const bool newest = eventually([&] { return loader.run_detail()->request.run_id == a; });
  io::mark_ui_thread(false);
  EXPECT_EQ(io::blocking_calls_on_ui_thread(), before);
  ASSERT_TRUE(newest);
  auto d = loader.run_detail();
  EXPECT_TRUE(d->error.empty()) << d->error;
  EXPECT_EQ(d->config_json, store.get_run(a)->config_json);  // the Run tab shows it as stored
  EXPECT_EQ(d->weights_steps, (std::vector<std::int64_t>{30}));
  EXPECT_EQ(d->projection_steps, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(d->projection_step, 30);
  ASSERT_EQ(d->maps.size(), 2u);
  EXPECT_EQ(d->maps[0].name, "layer0.P_l");
  EXPECT_EQ(d->maps[0].rows, 2);
  EXPECT_EQ(d->maps[0].cols, 2);
  EXPECT_FLOAT_EQ(d->maps[0].values[0], 30.0f);
  EXPECT_EQ(d->maps[1].rows, 2);  // not square: kept, not skipped
  EXPECT_EQ(d->maps[1].cols, 3);
  EXPECT_FLOAT_EQ(d->maps[1].values[5], 6.0f);

  // A step between snapshots shows the one before it.
  loader.want_run({a, true, 25});
  ASSERT_TRUE(eventually([&] { return loader.run_detail()->request.projection_step == 25; }));
  EXPECT_EQ(loader.run_detail()->projection_step, 20);
  EXPECT_FLOAT_EQ(loader.run_detail()->maps.at(0).values[0], 20.0f);

  // A new snapshot committed by the worker shows up under "the newest".
  loader.want_run({a, true, -1});
  ASSERT_TRUE(eventually([&] { return loader.run_detail()->projection_step == 30; }));
  store.put_artifact(a, 40, "talking_heads", projections_at(40.0f));
  ASSERT_TRUE(eventually([&] { return loader.run_detail()->projection_step == 40; }));

  // A damaged snapshot is explained, not fatal.
  store.put_artifact(a, 50, "talking_heads", db::BlobView(std::string_view("not safetensors")));
  ASSERT_TRUE(eventually([&] { return !loader.run_detail()->error.empty(); }));
  EXPECT_NE(loader.run_detail()->error.find("step 50"), std::string::npos) << loader.run_detail()->error;
  EXPECT_TRUE(loader.rows()->open);
}

TEST(BlockingIo, SqlAndDecodesOnAMarkedUiThreadAreCounted) {
#ifndef NDEBUG
  GTEST_SKIP() << "debug builds abort on blocking I/O on the UI thread; this checks the release counter";
#else
  TempDir dir("explorer");
  const std::string path = dir.path("runs.sqlite");
  db::Connection::open(path, db::OpenMode::Create);
  const auto bytes = projections_at(1.0f);
  const long before = io::blocking_calls_on_ui_thread();
  std::thread ui([&] {
    io::mark_ui_thread();
    auto conn = db::Connection::open(path, db::OpenMode::ReadOnly);  // open (+ its SQL)
    const long after_open = io::blocking_calls_on_ui_thread();
    EXPECT_GT(after_open, before);
    core::decode_safetensors(bytes.data(), bytes.size(), "test");
    EXPECT_EQ(io::blocking_calls_on_ui_thread(), after_open + 1);
  });
  ui.join();
  // Another thread, unmarked: not counted.
  const long after = io::blocking_calls_on_ui_thread();
  core::decode_safetensors(bytes.data(), bytes.size(), "test");
  EXPECT_EQ(io::blocking_calls_on_ui_thread(), after);
#endif
}

TEST(ExplorerLoader, CreatesAMissingDbOnlyWhenAsked) {
  TempDir dir("explorer");
  const std::string missing = dir.path("nothing.sqlite");
  {
    ExplorerLoader loader(missing, 0.02);
    ASSERT_TRUE(eventually([&] { return !loader.rows()->error.empty(); }));
    EXPECT_NE(loader.rows()->error.find("does not exist"), std::string::npos) << loader.rows()->error;
  }
  EXPECT_FALSE(std::ifstream(missing).good());
  ExplorerLoader loader(missing, 0.02, /*create=*/true);
  ASSERT_TRUE(eventually([&] { return loader.rows()->open; }));
  EXPECT_TRUE(loader.rows()->rows.empty());
  EXPECT_TRUE(std::ifstream(missing).good());
}

TEST(ExplorerLoader, UpgradesAnOlderSchemaInPlaceAndSaysSo) {
  TempDir dir("explorer");
  const std::string path = dir.path("v1.sqlite");
  {
    auto conn = db::Connection::open(path, db::OpenMode::Create);
    db::RunStore store(conn);
    const auto id = add_run(store, "a");
    store.append_metrics(id, {{"val_loss", 0, 0, 0, 4.0}, {"val_loss", 10, 0, 0, 2.0}, {"val_loss", 20, 0, 0, 3.0}});
    // Back to how a version-1 worker wrote it: no per-series summary columns.
    conn.exec(db::testing::kDowngradeToVersion1);
  }
  ASSERT_EQ(db::Connection::older_schema(path), 1);
  ExplorerLoader loader(path, 0.02);
  ASSERT_TRUE(eventually([&] { return loader.rows()->open || !loader.rows()->error.empty(); }));
  const auto rows = loader.rows();
  EXPECT_EQ(rows->error, "");
  EXPECT_NE(rows->notice.find("upgraded in place from schema version 1"), std::string::npos) << rows->notice;
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows->rows[0].best_val_loss, 2.0);
  EXPECT_DOUBLE_EQ(rows->rows[0].last_val_loss, 3.0);
  EXPECT_FALSE(db::Connection::older_schema(path));
}

}  // namespace
}  // namespace headroom::explorer
