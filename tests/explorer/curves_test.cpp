#include "app/gui/explorer/curves.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "tests/explorer/explorer_test_util.h"

namespace headroom::explorer {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "index " << i << " is " << got[i];
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-12) << "index " << i;
    }
  }
}

// --- smoothing ---------------------------------------------------------------

TEST(EmaDebiased, MatchesHandComputedTensorBoardValues) {
  // w = 0.5: s = 0.5, 1.25, 2.125; divided by 1 - 0.5^k = 0.5, 0.75, 0.875.
  expect_values(ema_debiased({1, 2, 3}, 0.5), {1.0, 1.25 / 0.75, 2.125 / 0.875});
}

TEST(EmaDebiased, NaNStaysAndIsSkipped) {
  // The NaN neither enters s nor counts in k: the third value is the second finite one.
  expect_values(ema_debiased({1, kNan, 2}, 0.5), {1.0, kNan, 1.25 / 0.75});
}

TEST(EmaDebiased, ZeroWeightIsIdentityAndBadWeightsThrow) {
  expect_values(ema_debiased({4, 1, 7}, 0.0), {4, 1, 7});
  EXPECT_THROW(ema_debiased({1}, 1.0), std::invalid_argument);
  EXPECT_THROW(ema_debiased({1}, -0.1), std::invalid_argument);
  EXPECT_THROW(ema_debiased({1}, kNan), std::invalid_argument);
}

TEST(MovingAverage, TrailingWindow) {
  expect_values(moving_average({1, 2, 3, 4}, 2), {1, 1.5, 2.5, 3.5});
  expect_values(moving_average({1, 2, 3, 4}, 3), {1, 1.5, 2, 3});
  expect_values(moving_average({1, 2, 3}, 1), {1, 2, 3});
}

TEST(MovingAverage, NaNIsLeftOutOfTheMean) {
  expect_values(moving_average({1, kNan, 3, 5}, 2), {1, 1, 3, 4});
  expect_values(moving_average({kNan, kNan, 2}, 2), {kNan, kNan, 2});
  EXPECT_THROW(moving_average({1}, 0), std::invalid_argument);
}

// --- grouping ----------------------------------------------------------------

Curve curve(std::int64_t run, std::vector<double> x, std::vector<double> y) {
  Curve c;
  c.run_id = run;
  c.metric = "val_loss";
  for (double v : x) c.step.push_back(static_cast<std::int64_t>(v));
  c.x = std::move(x);
  c.y_min = y;
  c.y_max = y;
  c.y = std::move(y);
  return c;
}

TEST(GroupCurves, OffsetGridsMeetOnTheUnionInsideTheOverlap) {
  // A falls linearly 4 -> 0 over [0, 20]; B is flat 3 over [5, 25]. Overlap [5, 20].
  const std::vector<Curve> curves = {curve(1, {0, 10, 20}, {4, 2, 0}), curve(2, {5, 15, 25}, {3, 3, 3})};
  const auto groups = group_curves(curves, {"heads=8", "heads=8"}, BandKind::MinMax);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].key_value, "heads=8");
  EXPECT_EQ(groups[0].run_ids, (std::vector<std::int64_t>{1, 2}));
  expect_values(groups[0].x, {5, 10, 15, 20});
  // A at the grid: 3, 2, 1, 0 (interpolated at 5 and 15).
  expect_values(groups[0].mean, {3, 2.5, 2, 1.5});
  expect_values(groups[0].lo, {3, 2, 1, 0});
  expect_values(groups[0].hi, {3, 3, 3, 3});
}

TEST(GroupCurves, StdDevBandIsPopulationStandardDeviation) {
  // Three members at x = 5: 3 (A, interpolated), 3 (B), 1 (C): mean 7/3, variance
  // ((2/3)^2 + (2/3)^2 + (4/3)^2) / 3 = 8/9.
  const std::vector<Curve> curves = {curve(1, {0, 10, 20}, {4, 2, 0}), curve(2, {5, 15, 25}, {3, 3, 3}),
                                     curve(3, {0, 30}, {1, 1})};
  const auto groups = group_curves(curves, {"g", "g", "g"}, BandKind::StdDev);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].x.size(), 4u);
  const double sd = std::sqrt(8.0 / 9.0);
  EXPECT_NEAR(groups[0].mean[0], 7.0 / 3.0, 1e-12);
  EXPECT_NEAR(groups[0].lo[0], 7.0 / 3.0 - sd, 1e-12);
  EXPECT_NEAR(groups[0].hi[0], 7.0 / 3.0 + sd, 1e-12);
  // At x = 20: 0, 3, 1 -> mean 4/3, variance ((4/3)^2 + (5/3)^2 + (1/3)^2) / 3 = 42/27.
  EXPECT_NEAR(groups[0].mean[3], 4.0 / 3.0, 1e-12);
  EXPECT_NEAR(groups[0].hi[3] - groups[0].mean[3], std::sqrt(42.0 / 27.0), 1e-12);
}

TEST(GroupCurves, GroupsKeepFirstAppearanceOrderAndOneMemberHasNoSpread) {
  const std::vector<Curve> curves = {curve(1, {0, 10}, {2, 1}), curve(2, {0, 10}, {5, 5}), curve(3, {0, 10}, {4, 2})};
  const auto groups = group_curves(curves, {"b", "a", "b"}, BandKind::StdDev);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].key_value, "b");
  EXPECT_EQ(groups[0].run_ids, (std::vector<std::int64_t>{1, 3}));
  expect_values(groups[0].mean, {3, 1.5});
  EXPECT_EQ(groups[1].key_value, "a");
  expect_values(groups[1].lo, {5, 5});
  expect_values(groups[1].hi, {5, 5});
}

TEST(GroupCurves, DisjointMembersGiveAnEmptyGridAndMismatchThrows) {
  const std::vector<Curve> curves = {curve(1, {0, 10}, {2, 1}), curve(2, {20, 30}, {5, 5}), Curve{}};
  const auto groups = group_curves(curves, {"g", "g", "g"}, BandKind::MinMax);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].run_ids.size(), 3u);
  EXPECT_TRUE(groups[0].x.empty());
  EXPECT_THROW(group_curves(curves, {"g"}, BandKind::MinMax), std::invalid_argument);
}

TEST(GroupCurves, NonFiniteMemberValuesAreLeftOut) {
  const std::vector<Curve> curves = {curve(1, {0, 10}, {2, kNan}), curve(2, {0, 10}, {4, 6})};
  const auto groups = group_curves(curves, {"g", "g"}, BandKind::MinMax);
  expect_values(groups[0].mean, {3, 6});
}

// --- zoom ----------------------------------------------------------------------

TEST(StepsForXRange, PadsByOnePointEachSide) {
  Curve shown = curve(1, {1, 2, 3, 4, 5}, {0, 0, 0, 0, 0});
  shown.step = {10, 20, 30, 40, 50};
  auto r = steps_for_x_range(shown, 2.5, 3.5);  // x = 3 inside
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 20);
  EXPECT_EQ(r->last, 40);
  r = steps_for_x_range(shown, 3.5, 2.5);  // either order
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 20);
  EXPECT_EQ(r->last, 40);
  r = steps_for_x_range(shown, 2.2, 2.8);  // between two points: those two
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 20);
  EXPECT_EQ(r->last, 30);
  r = steps_for_x_range(shown, 0, 10);  // beyond both ends: the whole curve
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 10);
  EXPECT_EQ(r->last, 50);
  EXPECT_FALSE(steps_for_x_range(shown, 6, 7));
  EXPECT_FALSE(steps_for_x_range(Curve{}, 0, 1));
}

TEST(NextZoomWindow, ReusesTheWindowForSmallPansAndRefetchesOtherwise) {
  // Nothing fetched yet: the wanted steps padded by a quarter each side, clamped at 0.
  auto w = next_zoom_window(std::nullopt, {100, 200});
  EXPECT_EQ(w.first, 75);
  EXPECT_EQ(w.last, 225);
  EXPECT_EQ(next_zoom_window(std::nullopt, {10, 210}).first, 0);
  // A small pan inside the fetched window keeps it.
  w = next_zoom_window(db::StepRange{75, 225}, {90, 210});
  EXPECT_EQ(w.first, 75);
  EXPECT_EQ(w.last, 225);
  // Zoomed in to under a third of it: fetch the smaller window at full resolution.
  w = next_zoom_window(db::StepRange{75, 225}, {100, 140});
  EXPECT_EQ(w.first, 90);
  EXPECT_EQ(w.last, 150);
  // Panned out of it: refetch.
  w = next_zoom_window(db::StepRange{75, 225}, {200, 300});
  EXPECT_EQ(w.first, 175);
  EXPECT_EQ(w.last, 325);
}

TEST(EnvelopePolyline, VisitsEachBucketsExtremesNearerFirst) {
  Curve c = curve(1, {1, 2, 3}, {5, 5, 5});
  c.y_min = {5, 1, 5};
  c.y_max = {5, 9, 5};
  std::vector<float> xs, ys;
  envelope_polyline(c, &xs, &ys);
  // bucket 0 flat; bucket 1 from 5: min (distance 4) and max (distance 4) tie -> min first.
  EXPECT_EQ(xs, (std::vector<float>{1, 2, 2, 2, 3}));
  EXPECT_EQ(ys, (std::vector<float>{5, 1, 9, 5, 5}));
  // Coming from a high value, the max is nearer and drawn first.
  c.y = {8, 5, 5};
  c.y_min = {8, 1, 5};
  c.y_max = {8, 9, 5};
  envelope_polyline(c, &xs, &ys);
  EXPECT_EQ(ys, (std::vector<float>{8, 9, 1, 5, 5}));
  envelope_polyline(Curve{}, &xs, &ys);
  EXPECT_TRUE(xs.empty() && ys.empty());
}

TEST(SeedGroups, KeyIgnoresOnlyTheSeedAndLabelDropsIt) {
  const auto a = FlatConfig::parse(R"({"model": {"width": 32}, "train": {"seed": 0, "lr": 0.003}})");
  const auto b = FlatConfig::parse(R"({"train": {"lr": 0.003, "seed": 7}, "model": {"width": 32}})");
  const auto c = FlatConfig::parse(R"({"model": {"width": 24}, "train": {"seed": 0, "lr": 0.003}})");
  const auto d = FlatConfig::parse(R"({"model": {"width": 32}, "train": {"seed": 0, "lr": 0.003, "x": []}})");
  EXPECT_EQ(seedless_group_key("s", "ratio-1", a), seedless_group_key("s", "ratio-1", b));
  EXPECT_NE(seedless_group_key("s", "ratio-1", a), seedless_group_key("s", "ratio-1", c));
  EXPECT_NE(seedless_group_key("s", "ratio-1", a), seedless_group_key("t", "ratio-1", a));
  EXPECT_NE(seedless_group_key("s", "ratio-1", a), seedless_group_key("s", "ratio-1", d));
  EXPECT_EQ(seed_group_label("ratio-1/width=32,seed=0", 3), "ratio-1/width=32 (3 runs)");
  EXPECT_EQ(seed_group_label("heads=8/seed=2", 1), "heads=8 (1 run)");
  EXPECT_EQ(seed_group_label("multi-head/heads=8", 2), "multi-head/heads=8 (2 runs)");
}

TEST(SeedGroups, LabelsThatReadAlikeGetTheirSuites) {
  // A seed check's suite repeats a row of the suite it checks: the same name once per suite (a
  // group of 1 run and groups of 2 read alike before their counts), and an unrelated name stays.
  using Labels = std::vector<std::string>;
  const Labels names = {without_seed("fixed-head/heads=32"), without_seed("fixed-head/heads=32,seed=1"),
                        without_seed("fixed-head/heads=32,seed=3"), without_seed("talking-heads/seed=0")};
  EXPECT_EQ(with_suites_where_alike(names, {"lrb-heads", "lrb-heads-seeds", "wide-keys", "wide-keys"}),
            (Labels{"lrb-heads: fixed-head/heads=32", "lrb-heads-seeds: fixed-head/heads=32",
                    "wide-keys: fixed-head/heads=32", "talking-heads"}));
  EXPECT_EQ(runs_counted("lrb-heads: fixed-head/heads=32", 1), "lrb-heads: fixed-head/heads=32 (1 run)");
  // Unique labels, and groups with no suite (a config key's value), are left alone.
  EXPECT_EQ(with_suites_where_alike({"a", "b"}, {"s", "s"}), (Labels{"a", "b"}));
  EXPECT_EQ(with_suites_where_alike({"h=8", "h=8"}, {"", ""}), (Labels{"h=8", "h=8"}));
  EXPECT_THROW(with_suites_where_alike({"a"}, {}), std::invalid_argument);
}

// --- fetching --------------------------------------------------------------------

class FetchCurve : public ::testing::Test {
 protected:
  void SetUp() override {
    id_ = db_.add_run(std::nullopt, "adhoc", testing::ConfigSpec{});
    // val_loss = 100 - step at steps 0..99; 128 tokens per step; wall 100 s + 36 s per step.
    std::vector<db::MetricRow> rows;
    for (std::int64_t s = 0; s < 100; ++s) {
      rows.push_back(
          db::MetricRow{"val_loss", s, s * 128, 100.0 + 36.0 * static_cast<double>(s), 100.0 - static_cast<double>(s)});
    }
    db_.store().append_metrics(id_, rows);
  }
  testing::ScratchDb db_;
  std::int64_t id_ = 0;
};

TEST_F(FetchCurve, WholeRangeInBucketsWithMinMaxLast) {
  const Curve c = fetch_curve(db_.store(), id_, "val_loss", XAxis::Step, std::nullopt, 10);
  EXPECT_EQ(c.run_id, id_);
  EXPECT_EQ(c.metric, "val_loss");
  ASSERT_EQ(c.step.size(), 10u);
  EXPECT_EQ(c.step.front(), 9);
  EXPECT_EQ(c.step.back(), 99);
  expect_values(c.x, {9, 19, 29, 39, 49, 59, 69, 79, 89, 99});
  EXPECT_DOUBLE_EQ(c.y.front(), 91);
  EXPECT_DOUBLE_EQ(c.y_min.front(), 91);
  EXPECT_DOUBLE_EQ(c.y_max.front(), 100);
  EXPECT_DOUBLE_EQ(c.y.back(), 1);
  EXPECT_DOUBLE_EQ(c.y_max.back(), 10);
}

TEST_F(FetchCurve, XAxes) {
  EXPECT_DOUBLE_EQ(fetch_curve(db_.store(), id_, "val_loss", XAxis::Tokens, std::nullopt, 10).x.front(), 9 * 128);
  EXPECT_DOUBLE_EQ(fetch_curve(db_.store(), id_, "val_loss", XAxis::TrainSeconds, std::nullopt, 10).x.front(), 424);
  // Hours from the first logged point (wall 100 s): (424 - 100) / 3600.
  EXPECT_NEAR(fetch_curve(db_.store(), id_, "val_loss", XAxis::RelativeHours, std::nullopt, 10).x.front(), 0.09, 1e-12);
}

TEST_F(FetchCurve, AWindowOfSteps) {
  const Curve c = fetch_curve(db_.store(), id_, "val_loss", XAxis::RelativeHours, db::StepRange{20, 39}, 2);
  EXPECT_EQ(c.step, (std::vector<std::int64_t>{29, 39}));
  expect_values(c.y, {71, 61});
  expect_values(c.y_max, {80, 70});
  // The origin stays the metric's first point, not the window's.
  EXPECT_NEAR(c.x.front(), 29 * 36.0 / 3600.0, 1e-12);
}

TEST_F(FetchCurve, NothingLoggedGivesAnEmptyCurveAndZeroBucketsThrow) {
  EXPECT_TRUE(fetch_curve(db_.store(), id_, "train_loss", XAxis::Step, std::nullopt, 10).x.empty());
  EXPECT_THROW(fetch_curve(db_.store(), id_, "val_loss", XAxis::Step, std::nullopt, 0), std::invalid_argument);
}

// --- CSV ---------------------------------------------------------------------------

TEST(CurvesCsv, QuotesAndNumbersFollowRfc4180) {
  Curve a = curve(3, {10, 20}, {2.5, kNan});
  a.y_min = {2.25, kNan};
  a.y_max = {3, kNan};
  std::ostringstream out;
  write_curves_csv(out, {a}, {"th/a,\"b\""}, XAxis::Step);
  EXPECT_EQ(out.str(),
            "series,run,metric,step,x,y,y_min,y_max\r\n"
            "\"th/a,\"\"b\"\"\",3,val_loss,10,10,2.5,2.25,3\r\n"
            "\"th/a,\"\"b\"\"\",3,val_loss,20,20,,,\r\n");
}

TEST(CurvesCsv, FractionalAxesKeepTheirDigits) {
  Curve a = curve(1, {0.125}, {0.1});
  a.step = {5};
  std::ostringstream out;
  write_curves_csv(out, {a}, {"plain"}, XAxis::TrainSeconds);
  EXPECT_EQ(out.str(), "series,run,metric,step,x,y,y_min,y_max\r\nplain,1,val_loss,5,0.125,0.1,0.1,0.1\r\n");
  EXPECT_THROW(write_curves_csv(out, {a}, {}, XAxis::Step), std::invalid_argument);
}

TEST(CurvesCsv, FieldQuoting) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(XAxisLabel, NamesEveryAxis) {
  EXPECT_STREQ(x_axis_label(XAxis::Step), "step");
  EXPECT_STREQ(x_axis_label(XAxis::Tokens), "tokens");
  EXPECT_STREQ(x_axis_label(XAxis::TrainSeconds), "train time (s)");
  EXPECT_STREQ(x_axis_label(XAxis::RelativeHours), "hours since first point");
}

}  // namespace
}  // namespace headroom::explorer
