// The paper figures, built on the builder's thread: what the tab draws, never read on the UI thread.
#include "app/gui/explorer/figure_builder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "core/io/blocking_io.h"
#include "tests/explorer/explorer_test_util.h"

namespace headroom::explorer {
namespace {

using testing::ConfigSpec;
using testing::ScratchDb;

// The rows snapshot the loader would publish for a DB with one th-heads run per head count.
std::shared_ptr<const RowsSnapshot> th_heads_snapshot(ScratchDb& db, std::uint64_t version) {
  const auto suite = db.store().ensure_suite("th-heads", testing::suite_toml("th_heads.toml"), "quick");
  for (const int heads : {2, 8}) {
    const std::string name = "th-heads/multi-head/heads=" + std::to_string(heads);
    if (db.store().find_run(name)) continue;
    ConfigSpec c;
    c.heads = heads;
    c.d_k = c.d_v = 32 / heads;
    db.log(db.add_run(suite, name, c), "val_loss", {5.8, 3.0 + 0.1 * heads});
    db.finish(name);
  }
  auto s = std::make_shared<RowsSnapshot>();
  s->open = true;
  s->version = version;
  s->rows = load_run_rows(db.store());
  s->suites = db.store().list_suites();
  return s;
}

std::shared_ptr<const BuiltFigures> answer_to(const FigureBuilder& builder, std::uint64_t request) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (builder.built()->request < request && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return builder.built();
}

TEST(FigureBuilder, BuildsOffTheUiThreadOnEachFiguresAxisAndTheLatestRequestWins) {
  ScratchDb db;
  const auto rows = th_heads_snapshot(db, 7);
  FigureBuilder builder;
  EXPECT_EQ(builder.built()->request, 0u);
  EXPECT_TRUE(builder.built()->figures.empty());

  // The test thread stands in for the UI thread: the reference CSV must be read elsewhere.
  io::mark_ui_thread();
  const long blocking_before = io::blocking_calls_on_ui_thread();
  builder.build({rows, testing::reference_dir(), {{"th-heads", FigureAxis::Parameters}}});
  const auto last = builder.build({rows, testing::reference_dir(), {}});
  const auto answer = answer_to(builder, last);
  EXPECT_EQ(io::blocking_calls_on_ui_thread(), blocking_before);
  io::mark_ui_thread(false);

  ASSERT_EQ(answer->request, last);
  EXPECT_EQ(answer->rows_version, 7u);
  EXPECT_EQ(answer->warnings, "");
  ASSERT_EQ(answer->figures.size(), 1u);
  const Figure& fig = answer->figures[0];
  EXPECT_EQ(fig.suite, "th-heads");
  EXPECT_EQ(fig.axis, FigureAxis::SuiteKey);  // the last request's default, not the first's parameters
  EXPECT_FALSE(fig.paper.empty()) << "the reference CSV was read: TH Table 1 beside ours";
  ASSERT_FALSE(fig.ours.empty());

  const auto on_params =
      answer_to(builder, builder.build({rows, testing::reference_dir(), {{"th-heads", FigureAxis::Parameters}}}));
  ASSERT_EQ(on_params->figures.size(), 1u);
  EXPECT_EQ(on_params->figures[0].axis, FigureAxis::Parameters);

  // The same as building on the calling thread.
  std::string warnings;
  const auto here = build_figures(rows->suites, rows->rows, testing::reference_dir(), &warnings, {});
  ASSERT_EQ(here.size(), 1u);
  std::ostringstream a, b;
  write_figure_csv(a, here[0]);
  write_figure_csv(b, fig);
  EXPECT_EQ(a.str(), b.str());
}

TEST(FigureBuilder, AnEmptyRequestAnswersWithNoFigures) {
  FigureBuilder builder;
  const auto answer = answer_to(builder, builder.build({nullptr, testing::reference_dir(), {}}));
  EXPECT_GT(answer->request, 0u);
  EXPECT_TRUE(answer->figures.empty());
}

}  // namespace
}  // namespace headroom::explorer
