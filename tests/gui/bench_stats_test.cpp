#include "app/gui/app_state.h"
#include "app/gui/bench.h"

#include <gtest/gtest.h>

namespace hg = headroom::gui;

TEST(BenchStats, MedianAndNearestRankP95AndP99) {
  std::vector<double> ms;
  for (int i = 1; i <= 100; ++i) ms.push_back(i);
  const hg::BenchStats s = hg::compute_bench_stats(ms);
  EXPECT_EQ(s.frames, 100);
  EXPECT_DOUBLE_EQ(s.median_ms, 50.5);
  EXPECT_DOUBLE_EQ(s.p95_ms, 95.0);
  EXPECT_DOUBLE_EQ(s.p99_ms, 99.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 100.0);
  const hg::BenchStats one = hg::compute_bench_stats({7.0});
  EXPECT_DOUBLE_EQ(one.median_ms, 7.0);
  EXPECT_DOUBLE_EQ(one.p95_ms, 7.0);
  EXPECT_EQ(hg::compute_bench_stats({}).frames, 0);
}

TEST(BenchStats, JsonLineKeepsFrameFieldsOverExtras) {
  const hg::BenchStats s = hg::compute_bench_stats({1.0, 2.0, 3.0});
  const nlohmann::json j = hg::bench_json(s, {{"snapshot_ms_p95", 4.5}, {"frames", -1}});
  EXPECT_EQ(j["frames"], 3);
  EXPECT_DOUBLE_EQ(j["frame_ms_median"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["snapshot_ms_p95"].get<double>(), 4.5);
  EXPECT_EQ(j.dump().find('\n'), std::string::npos);  // one line
}

TEST(AppState, ContractFieldsAndMergedViewState) {
  hg::AppStateInputs in;
  in.view = "Widgets demo";
  in.window_width = 1280;
  in.window_height = 800;
  in.frames = 5;
  in.heatmaps_drawn = 17;
  in.attention_lines_drawn = 230;
  in.views = {"Widgets demo", "About"};
  const nlohmann::json j = hg::build_app_state(in, {{{"model", {{"heads", 8}}}}, {{"view", "hijack"}}, nullptr});
  EXPECT_EQ(j["view"], "Widgets demo");  // views cannot override contract fields
  EXPECT_EQ(j["window"]["width"], 1280);
  EXPECT_EQ(j["window"]["height"], 800);
  EXPECT_EQ(j["frames"], 5);
  EXPECT_EQ(j["heatmaps_drawn"], 17);
  EXPECT_EQ(j["widgets"]["attention_lines"], 230);
  EXPECT_EQ(j["model"]["heads"], 8);
  EXPECT_FALSE(j.contains("screenshot"));
}

TEST(AppState, WriteFailureExplains) {
  std::string err;
  EXPECT_FALSE(hg::write_json_file("/nonexistent-dir/state.json", nlohmann::json::object(), &err));
  EXPECT_NE(err.find("/nonexistent-dir/state.json"), std::string::npos) << err;
}
