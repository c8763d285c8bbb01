// The explorer's reading thread against a DB that another connection writes to.
#include "app/gui/explorer/explorer_loader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

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

}  // namespace
}  // namespace headroom::explorer
