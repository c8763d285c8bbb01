// The explorer's run table at scale, without a window: how long the loader takes to read every
// run row (and where: the runs query, the metric summaries, the weight counts, building rows), and how long a filter
// and a sort take on them (what the UI thread does today on every filter keystroke and header
// click). Medians of ROUNDS.
//
//   bench_explorer_rows DB [ROUNDS=3]      (make one: make_explorer_db OUT.sqlite 100000 100)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "app/gui/explorer/run_filter.h"
#include "app/gui/explorer/run_rows.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"
#include "experiments_db/schema.h"

using namespace headroom;
using Clock = std::chrono::steady_clock;

namespace {

double median_ms(int rounds, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_explorer_rows DB [ROUNDS=3]\n");
    return 2;
  }
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  try {
    if (const auto version = db::Connection::older_schema(argv[1])) {
      const auto t0 = Clock::now();
      db::Connection::open(argv[1], db::OpenMode::ReadWrite);  // upgrades, as the explorer would
      std::printf("upgraded schema %d -> %d in %.0f ms\n", *version, db::kSchemaVersion,
                  std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    auto conn = db::Connection::open(argv[1], db::OpenMode::ReadOnly);
    db::RunStore store(conn);
    std::size_t n = 0;
    const double runs_ms = median_ms(rounds, [&] { n = store.list_runs().size(); });
    const double summaries_ms = median_ms(rounds, [&] { store.metric_summaries("val_loss"); });
    const double bare_summaries_ms = median_ms(rounds, [&] {
      store.metric_summaries("val_loss", std::numeric_limits<std::int64_t>::min(),
                             std::numeric_limits<std::int64_t>::max(), /*read_clocks=*/false);
    });
    const double weights_ms = median_ms(rounds, [&] { store.artifact_counts("weights"); });
    std::vector<explorer::RunRow> rows;
    const double rows_ms = median_ms(rounds, [&] { rows = explorer::load_run_rows(store); });
    std::printf("| %zu runs (median of %d) | ms |\n|---|---|\n", n, rounds);
    std::printf("| list_runs (SQL + records) | %.0f |\n", runs_ms);
    std::printf("| metric_summaries(val_loss), with each run's clock (the first load) | %.0f |\n", summaries_ms);
    std::printf("| metric_summaries(val_loss), no clocks (a reload) | %.0f |\n", bare_summaries_ms);
    std::printf("| artifact_counts(weights) | %.0f |\n", weights_ms);
    {
      const auto records = store.list_runs();
      std::vector<db::RunRecord> copy;
      std::vector<explorer::RunRow> built;
      std::vector<double> ms;
      for (int r = 0; r < rounds; ++r) {
        copy = records;
        const auto t0 = Clock::now();
        built.clear();
        built.reserve(copy.size());
        for (auto& rec : copy) built.push_back(explorer::make_run_row(std::move(rec), {}, 0.0));
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      std::printf("| make_run_row x %zu (JSON configs -> rows) | %.0f |\n", records.size(), ms[ms.size() / 2]);
    }
    std::printf("| load_run_rows (all three + JSON configs -> rows) | %.0f |\n", rows_ms);
    for (int parts : {2, 4}) {
      std::vector<explorer::RunRow> split;
      const double ms = median_ms(rounds, [&] { split = explorer::load_run_rows_parallel(store, argv[1], parts); });
      std::printf("| load_run_rows_parallel, %d parts (the loader's first load) | %.0f |\n", parts, ms);
    }
    std::vector<explorer::RunRow> again;
    const double reload_ms = median_ms(rounds, [&] { again = explorer::load_run_rows(store, rows); });
    std::printf("| load_run_rows again, reusing the parsed configs (a reload while a worker writes) | %.0f |\n",
                reload_ms);
    const double copy_ms = median_ms(rounds, [&] {
      std::vector<explorer::RunRow> copy = rows;  // what publishing a snapshot by value costs
      (void)copy;
    });
    std::printf("| copy of every row (a snapshot by value) | %.0f |\n", copy_ms);
    for (const char* text :
         {"kind=talking-heads h>=8", "val<2.5 status!=failed", "model.attention.heads=16", "seed=3"}) {
      std::string error;
      const auto filter = explorer::parse_run_filter(text, &error);
      if (!filter) {
        std::fprintf(stderr, "filter %s: %s\n", text, error.c_str());
        return 1;
      }
      std::size_t kept = 0;
      const double ms = median_ms(rounds, [&] {
        kept = 0;
        for (const auto& r : rows) kept += explorer::matches(*filter, r);
      });
      std::printf("| filter `%s` (%zu kept) | %.1f |\n", text, kept, ms);
    }
    std::vector<const explorer::RunRow*> all;
    for (const auto& r : rows) all.push_back(&r);
    for (auto column : {explorer::RunColumn::Name, explorer::RunColumn::BestVal, explorer::RunColumn::H}) {
      const double ms = median_ms(rounds, [&] {
        auto v = all;
        explorer::sort_rows(v, column, false);
      });
      std::printf("| sort by column %d | %.1f |\n", static_cast<int>(column), ms);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_explorer_rows: %s\n", e.what());
    return 1;
  }
  return 0;
}
