// Arbitrary bytes opened as an experiments DB, as the explorer and `status` open one: refused
// with a DbError naming the problem, or read without crashing, the stored suites' TOML included
// (the explorer parses it for the papers' figures).
//
// HEADROOM_FUZZ_SEED=PATH writes a small valid DB there first (scripts/fuzz.sh seeds the corpus).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "app/gui/explorer/figures.h"
#include "app/gui/explorer/run_rows.h"
#include "experiments_db/connection.h"
#include "experiments_db/db_error.h"
#include "experiments_db/run_store.h"

namespace db = headroom::db;

namespace {

std::string scratch_path() { return "/tmp/headroom_fuzz_db_" + std::to_string(getpid()) + ".sqlite"; }

void remove_db(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

void write_seed(const std::string& path) {
  remove_db(path);
  auto conn = db::Connection::open(path, db::OpenMode::Create);
  db::RunStore store(conn);
  store.ensure_suite("th-heads",
                     "[suite]\nname = \"th-heads\"\nreproduces = \"TH Table 1\"\nx = \"model.attention.heads\"\n"
                     "reference = \"th_t1.csv\"\n",
                     "quick");
  db::NewRun run;
  run.name = "seed/multi-head/heads=2";
  run.config_json = R"({"model":{"width":32,"attention":{"kind":"multi-head","heads":2}}})";
  const auto id = store.enqueue_run(run);
  std::vector<db::MetricRow> rows;
  for (int s = 0; s < 20; ++s) rows.push_back({"val_loss", s, s * 10, s * 0.1, 5.0 - s * 0.1});
  store.append_metrics(id, rows);
  conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* seed = std::getenv("HEADROOM_FUZZ_SEED")) write_seed(seed);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_path();
  remove_db(path);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    auto conn = db::Connection::open(path, db::OpenMode::ReadOnly);
    db::RunStore store(conn);
    if (const auto ids = store.run_ids()) {
      const auto runs = store.list_runs(ids->first, ids->last, /*with_config=*/true);
      (void)store.metric_summaries("val_loss");
      for (std::size_t i = 0; i < runs.size() && i < 4; ++i) {
        (void)store.latest_metrics(runs[i].id);
        (void)store.curve(runs[i].id, "val_loss", 0, 1000, 16);
      }
    }
    std::string warnings;
    (void)headroom::explorer::build_figures(store, headroom::explorer::load_run_rows(store), "/nonexistent", &warnings);
  } catch (const db::DbError&) {
    // refused, with its message
  }
  remove_db(path);
  return 0;
}
