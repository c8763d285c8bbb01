#include "app/gui/explorer/paired.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "tests/explorer/explorer_test_util.h"

namespace headroom::explorer {
namespace {

RunRow row(std::int64_t id, const std::string& suite, const std::string& kind, std::int64_t seed, double final_val,
           db::RunStatus status = db::RunStatus::Done) {
  testing::ConfigSpec c;
  c.kind = kind;
  c.seed = seed;
  db::RunRecord rec;
  rec.id = id;
  rec.suite_name = suite;
  rec.name = suite + "/" + kind + "/seed=" + std::to_string(seed);
  rec.config_json = testing::config_json(c);
  rec.seed = seed;
  rec.status = status;
  std::map<std::string, double> latest;
  if (!std::isnan(final_val)) latest["val_loss"] = final_val;
  return make_run_row(rec, latest, final_val);
}

std::vector<const RunRow*> pointers(const std::vector<RunRow>& rows) {
  std::vector<const RunRow*> out;
  for (const auto& r : rows) out.push_back(&r);
  return out;
}

TEST(SeedPools, PoolEveryRunOfAChosenConfigAcrossSuitesInSeedOrder) {
  // A suite and its seed check: seeds 0-1 in "s", 3 and 2 in "s-seeds" (stored out of seed order).
  const std::vector<RunRow> all = {
      row(1, "s", "logits-proj", 0, 1.10),       row(2, "s", "multi-head", 0, 1.20),
      row(3, "s", "logits-proj", 1, 1.11),       row(4, "s", "multi-head", 1, 1.19),
      row(5, "s-seeds", "logits-proj", 3, 1.13), row(6, "s-seeds", "logits-proj", 2, 1.12)};
  const auto pools = seed_pools({&all[3], &all[0], &all[2]}, all);  // two chosen runs of one config
  ASSERT_EQ(pools.size(), 2u);
  ASSERT_EQ(pools[0].runs.size(), 2u);  // multi-head first: chosen first
  EXPECT_EQ(pools[0].runs[0]->id, 2);
  EXPECT_EQ(pools[0].runs[1]->id, 4);
  ASSERT_EQ(pools[1].runs.size(), 4u);
  EXPECT_EQ(pools[1].runs[0]->seed, 0);
  EXPECT_EQ(pools[1].runs[2]->seed, 2);
  EXPECT_EQ(pools[1].runs[2]->id, 6);
  EXPECT_EQ(pools[1].runs[3]->seed, 3);
  EXPECT_EQ(pools[1].suites, (std::vector<std::string>{"s", "s-seeds"}));
  EXPECT_EQ(pools[0].chosen->id, 4);
  EXPECT_EQ(pools[1].chosen->id, 1);
  EXPECT_TRUE(seed_pools({}, all).empty());
}

TEST(SeedPools, OnlyTheSeedAndTheDeviceAreIgnored) {
  RunRow a = row(1, "s", "multi-head", 0, 1.0);
  RunRow b = row(2, "s", "multi-head", 1, 1.0);
  EXPECT_EQ(seed_pool_key(a.config), seed_pool_key(b.config));
  auto with_train = [](const std::string& key, const std::string& value) {
    nlohmann::json j = nlohmann::json::parse(testing::config_json({}));
    j["train"][key] = value;
    return FlatConfig::parse(j.dump());
  };
  EXPECT_EQ(seed_pool_key(with_train("device", "cuda:0")), seed_pool_key(with_train("device", "cpu")));
  EXPECT_NE(seed_pool_key(with_train("precision", "bf16")), seed_pool_key(with_train("precision", "fp32")));
  EXPECT_NE(seed_pool_key(with_train("corpus", "linux-docs")), seed_pool_key(with_train("corpus", "kjv")));
  testing::ConfigSpec c;
  c.lr = 0.001;  // another learning rate: another experiment
  db::RunRecord rec;
  rec.id = 3;
  rec.name = "s/multi-head/lr";
  rec.config_json = testing::config_json(c);
  const RunRow other = make_run_row(rec, {}, kNaN);
  EXPECT_NE(seed_pool_key(other.config), seed_pool_key(a.config));
  const std::vector<RunRow> all = {a, b, other};
  const auto pools = seed_pools(pointers(all), all);
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].runs.size(), 2u);
  EXPECT_EQ(pools[1].runs.size(), 1u);
}

TEST(PairedComparison, DifferencesPerSeedWithMeanRangeSpreadAndCount) {
  // The write-up's n = 8 rows (docs/results/th_projections_full.md): logits-proj - multi-head.
  const std::vector<RunRow> all = {row(1, "c", "logits-proj", 0, 1.5264), row(2, "c", "logits-proj", 1, 1.5247),
                                   row(3, "c", "logits-proj", 2, 1.5410), row(4, "c", "multi-head", 0, 1.5358),
                                   row(5, "c", "multi-head", 1, 1.5346),  row(6, "c", "multi-head", 2, 1.5519)};
  const auto pools = seed_pools({&all[0], &all[3]}, all);
  const PairedComparison p = compare_final_val_loss(pools[0], pools[1]);
  ASSERT_EQ(p.pairs.size(), 3u);
  EXPECT_NEAR(p.pairs[0].difference, -0.0094, 1e-12);
  EXPECT_NEAR(p.pairs[1].difference, -0.0099, 1e-12);
  EXPECT_NEAR(p.pairs[2].difference, -0.0109, 1e-12);
  EXPECT_EQ(p.pairs[2].a->id, 3);
  EXPECT_EQ(p.pairs[2].b->id, 6);
  EXPECT_NEAR(p.mean, (-0.0094 - 0.0099 - 0.0109) / 3, 1e-12);
  EXPECT_NEAR(p.min, -0.0109, 1e-12);
  EXPECT_NEAR(p.max, -0.0094, 1e-12);
  const double m = p.mean;
  const double sd =
      std::sqrt(((-0.0094 - m) * (-0.0094 - m) + (-0.0099 - m) * (-0.0099 - m) + (-0.0109 - m) * (-0.0109 - m)) / 2);
  EXPECT_NEAR(p.sd, sd, 1e-12);
  EXPECT_EQ(p.a_lower, 3u);
  EXPECT_EQ(signed_loss(p.mean), "-0.0101");
  // B - A: the same differences, negated; A lower in none.
  const PairedComparison q = compare_final_val_loss(pools[1], pools[0]);
  EXPECT_NEAR(q.mean, -p.mean, 1e-12);
  EXPECT_EQ(q.a_lower, 0u);
}

TEST(PairedComparison, UnpairedUnfinishedAndRepeatedSeedsAreCountedNotPaired) {
  const std::vector<RunRow> all = {row(1, "s", "logits-proj", 0, 1.0),
                                   row(2, "s", "logits-proj", 1, 2.0),
                                   row(3, "s", "logits-proj", 4, 3.0),                           // B has no seed 4
                                   row(4, "s", "logits-proj", 2, kNaN, db::RunStatus::Running),  // still training
                                   row(5, "s", "multi-head", 0, 1.5),
                                   row(6, "s", "multi-head", 1, 1.0),
                                   row(7, "s", "multi-head", 2, 1.0),  // A's seed 2 is not done
                                   row(8, "s", "multi-head", 3, 1.0, db::RunStatus::Failed),
                                   row(9, "s2", "multi-head", 0, 9.0),    // seed 0 again, another suite
                                   row(10, "s", "multi-head", 5, kNaN)};  // done, no val_loss logged
  const auto pools = seed_pools({&all[0], &all[4]}, all);
  const PairedComparison p = compare_final_val_loss(pools[0], pools[1]);
  ASSERT_EQ(p.pairs.size(), 2u);
  EXPECT_EQ(p.pairs[0].seed, 0);
  EXPECT_EQ(p.pairs[0].b->id, 5);  // the lowest id of a repeated seed pairs
  EXPECT_DOUBLE_EQ(p.pairs[0].difference, -0.5);
  EXPECT_DOUBLE_EQ(p.pairs[1].difference, 1.0);
  EXPECT_EQ(p.only_a, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(p.only_b, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(p.unfinished, 3u);  // running, failed, done without a val_loss
  EXPECT_EQ(p.repeated, 1u);
  EXPECT_EQ(p.a_lower, 1u);
  EXPECT_DOUBLE_EQ(p.mean, 0.25);
  EXPECT_NEAR(p.sd, std::sqrt((0.75 * 0.75 * 2) / 1), 1e-12);
}

TEST(PairedComparison, NothingPairedLeavesTheStatisticsUnset) {
  const std::vector<RunRow> all = {row(1, "s", "logits-proj", 0, 1.0), row(2, "s", "multi-head", 1, 1.0)};
  const auto pools = seed_pools({&all[0], &all[1]}, all);
  const PairedComparison p = compare_final_val_loss(pools[0], pools[1]);
  EXPECT_TRUE(p.pairs.empty());
  EXPECT_TRUE(std::isnan(p.mean));
  EXPECT_TRUE(std::isnan(p.sd));
  EXPECT_EQ(signed_loss(p.mean), "-");
  // One pair: a mean, no spread.
  const std::vector<RunRow> one = {row(1, "s", "logits-proj", 0, 1.0), row(2, "s", "multi-head", 0, 1.25)};
  const auto pools1 = seed_pools({&one[0], &one[1]}, one);
  const PairedComparison p1 = compare_final_val_loss(pools1[0], pools1[1]);
  EXPECT_DOUBLE_EQ(p1.mean, -0.25);
  EXPECT_TRUE(std::isnan(p1.sd));
  EXPECT_EQ(signed_loss(0.0125), "+0.0125");
}

TEST(PairedComparison, PairsAsCsv) {
  std::vector<RunRow> all = {row(1, "s", "logits-proj", 0, 1.25), row(2, "s", "multi-head", 0, 1.5),
                             row(3, "s", "logits-proj", 1, 0.1), row(4, "s", "multi-head", 1, 0.2)};
  all[0].name = "s/logits-proj/a,\"b\"";  // a name that needs quoting
  const auto pools = seed_pools({&all[0], &all[1]}, all);
  std::ostringstream csv;
  write_pairs_csv(csv, compare_final_val_loss(pools[0], pools[1]));
  EXPECT_EQ(csv.str(),
            "seed,a_run,b_run,a_final_val_loss,b_final_val_loss,difference\r\n"
            "0,\"s/logits-proj/a,\"\"b\"\"\",s/multi-head/seed=0,1.25,1.5,-0.25\r\n"
            "1,s/logits-proj/seed=1,s/multi-head/seed=1,0.1,0.2,-0.1\r\n");
}

TEST(PairedComparison, ParameterDifference) {
  std::vector<RunRow> all = {row(1, "s", "logits-proj", 0, 1.0), row(2, "s", "multi-head", 0, 1.0),
                             row(3, "s", "logits-proj", 1, 1.0)};
  all[0].params = all[2].params = 471808;
  all[1].params = 469760;
  auto pools = seed_pools({&all[0], &all[1]}, all);
  EXPECT_EQ(parameter_difference(pools[0], pools[1]), "A: 471,808 parameters, B: 469,760 (A +2,048, +0.44%)");
  EXPECT_EQ(parameter_difference(pools[1], pools[0]), "A: 469,760 parameters, B: 471,808 (A -2,048, -0.43%)");
  all[1].params = 471808;
  EXPECT_EQ(parameter_difference(pools[0], pools[1]), "A and B: 471,808 parameters each");
  all[2].params = 1000;  // a pool whose runs differ in size: its range, no difference
  EXPECT_EQ(parameter_difference(pools[0], pools[1]), "A: 1,000-471,808 parameters, B: 471,808");
  all[1].params = 0;  // no count stored
  EXPECT_EQ(parameter_difference(pools[0], pools[1]), "");
}

PairedComparison cell(std::size_t seeds, double mean, double se) {
  PairedComparison c;
  c.pairs.resize(seeds);
  c.mean = mean;
  c.se = se;
  return c;
}

TEST(PooledComparisons, InverseVarianceMeanAndCochransQ) {
  // The three causal-threshold cells of docs/results/th_projections_full.md (n = 8, 16, 64); the
  // expected values computed apart, in Python, from the cells' per-seed differences.
  const PooledComparisons pooled =
      pool_comparisons({cell(16, -0.00339375, 0.001838397598226963), cell(8, -0.0072375, 0.0015786451582652402),
                        cell(5, -0.00068, 0.004730475663186525)});
  ASSERT_TRUE(pooled.problem.empty()) << pooled.problem;
  EXPECT_EQ(pooled.seeds, 29u);
  EXPECT_NEAR(pooled.mean, -0.0053093870558547675, 1e-12);
  EXPECT_NEAR(pooled.se, 0.0011610366587935105, 1e-12);
  EXPECT_NEAR(pooled.q, 3.5352611811456853, 1e-9);
  EXPECT_EQ(pooled.df, 2);
  EXPECT_NEAR(pooled.p, 0.17073705592604752, 1e-9);
  ASSERT_EQ(pooled.weights.size(), 3u);
  EXPECT_NEAR(pooled.weights[0] + pooled.weights[1] + pooled.weights[2], 1.0, 1e-12);
  EXPECT_GT(pooled.weights[1], pooled.weights[0]);  // the smallest standard error weighs most
  EXPECT_LT(pooled.weights[2], 0.1);
}

TEST(PooledComparisons, EveryTwoCellsDifferenceAndTheFarthestCell) {
  // Four cells as the write-up rounds the threshold cells (n = 8, 16, 64, 32): every two cells'
  // difference and its standard error, in suite_report's "between cells" order.
  const PooledComparisons pooled = pool_comparisons(
      {cell(16, -0.0034, 0.0018), cell(8, -0.0072, 0.0016), cell(5, -0.0007, 0.0047), cell(8, +0.0010, 0.0023)});
  ASSERT_EQ(pooled.between.size(), 6u);  // (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
  EXPECT_EQ(pooled.between[0].i, 0u);
  EXPECT_EQ(pooled.between[0].j, 1u);
  EXPECT_NEAR(pooled.between[0].difference, 0.0038, 1e-15);
  EXPECT_NEAR(pooled.between[0].se, std::sqrt(0.0018 * 0.0018 + 0.0016 * 0.0016), 1e-15);
  EXPECT_EQ(pooled.between[5].i, 2u);
  EXPECT_EQ(pooled.between[5].j, 3u);
  // Cell 1 (the gain) lies farthest from cell 3 (the tie): -0.0082 over 0.0028 = -2.9 se.
  const CellDifference* far = farthest_from(pooled, 1);
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(far->i, 1u);
  EXPECT_EQ(far->j, 3u);
  EXPECT_NEAR(far->difference / far->se, -0.0082 / std::hypot(0.0016, 0.0023), 1e-12);
  // Cell 3's farthest is cell 1 too, the pair read from cell 3's side by the caller.
  EXPECT_EQ(farthest_from(pooled, 3), far);
  EXPECT_EQ(farthest_from(pool_comparisons({cell(8, -0.01, 0.002)}), 0), nullptr);
}

TEST(PooledComparisons, EqualCellsGiveQZeroAndPOne) {
  const PooledComparisons pooled = pool_comparisons({cell(4, -0.01, 0.002), cell(4, -0.01, 0.002)});
  EXPECT_DOUBLE_EQ(pooled.mean, -0.01);
  EXPECT_NEAR(pooled.se, 0.002 / std::sqrt(2.0), 1e-15);
  EXPECT_DOUBLE_EQ(pooled.q, 0.0);
  EXPECT_DOUBLE_EQ(pooled.p, 1.0);
  EXPECT_DOUBLE_EQ(pooled.weights[0], 0.5);
}

TEST(PooledComparisons, NothingPooledWithoutTwoCellsThatHaveASpread) {
  const PooledComparisons one = pool_comparisons({cell(8, -0.01, 0.002)});
  EXPECT_TRUE(std::isnan(one.mean));
  EXPECT_NE(one.problem.find("two comparisons"), std::string::npos) << one.problem;
  const PooledComparisons single_seed = pool_comparisons({cell(8, -0.01, 0.002), cell(1, -0.02, kNaN)});
  EXPECT_TRUE(std::isnan(single_seed.mean));
  EXPECT_TRUE(single_seed.weights.empty());
  EXPECT_NE(single_seed.problem.find("comparison 2 has 1 seed:"), std::string::npos) << single_seed.problem;
  const PooledComparisons no_spread = pool_comparisons({cell(3, -0.01, 0.0), cell(8, -0.01, 0.002)});
  EXPECT_NE(no_spread.problem.find("comparison 1 has 3 seeds that differ by the same amount"), std::string::npos)
      << no_spread.problem;
}

TEST(PooledComparisons, PinnedAsCsv) {
  PairedComparison a = cell(2, -0.01, 0.002), b = cell(3, 0.005, 0.004);
  a.sd = 0.002 * std::sqrt(2.0);
  b.sd = 0.004 * std::sqrt(3.0);
  const PooledComparisons pooled = pool_comparisons({a, b});
  std::ostringstream csv;
  write_pinned_csv(csv, {"s: x - y", "t: \"z\", w - v"}, {a, b}, pooled);
  // Weights 1/se^2: 250,000 and 62,500, so 0.8 and 0.2; the pooled mean -0.007, its se 1/sqrt(312,500).
  std::ostringstream want;
  want << "row,comparison,seeds,mean,sd,standard_error,weight,q,df,p\r\n"
       << "1,s: x - y,2,-0.01," << csv_number(a.sd) << ",0.002,0.8,,,\r\n"
       << "2,\"t: \"\"z\"\", w - v\",3,0.005," << csv_number(b.sd) << ",0.004,0.2,,,\r\n"
       << "pooled,pooled (inverse-variance),5," << csv_number(pooled.mean) << ",," << csv_number(pooled.se) << ",1,"
       << csv_number(pooled.q) << ",1," << csv_number(pooled.p) << "\r\n";
  EXPECT_EQ(csv.str(), want.str());
  EXPECT_NEAR(pooled.mean, -0.007, 1e-15);
  EXPECT_NEAR(pooled.weights[0], 0.8, 1e-15);
  // Nothing pooled (one comparison): the pooled line keeps its seeds and leaves the rest empty.
  std::ostringstream one;
  write_pinned_csv(one, {"s: x - y"}, {a}, pool_comparisons({a}));
  EXPECT_EQ(one.str(),
            "row,comparison,seeds,mean,sd,standard_error,weight,q,df,p\r\n"
            "1,s: x - y,2,-0.01," +
                csv_number(a.sd) +
                ",0.002,,,,\r\n"
                "pooled,pooled (inverse-variance),0,,,,,,,\r\n");
  EXPECT_THROW(write_pinned_csv(one, {}, {a}, pooled), std::invalid_argument);
}

TEST(ChiSquareSurvival, MatchesNumericIntegration) {
  // Against the density integrated numerically (trapezoid, 200,000 steps), computed apart.
  EXPECT_NEAR(chi_square_survival(3.5, 1), 0.061369, 1e-6);
  EXPECT_NEAR(chi_square_survival(3.5, 2), 0.173774, 1e-6);
  EXPECT_NEAR(chi_square_survival(9.0, 3), 0.029291, 1e-6);
  EXPECT_NEAR(chi_square_survival(3.5, 4), 0.477878, 1e-6);
  EXPECT_NEAR(chi_square_survival(0.5, 5), 0.992123, 1e-6);
  EXPECT_NEAR(chi_square_survival(9.0, 7), 0.252656, 1e-6);
  EXPECT_DOUBLE_EQ(chi_square_survival(0.0, 3), 1.0);
  EXPECT_TRUE(std::isnan(chi_square_survival(1.0, 0)));
  EXPECT_TRUE(std::isnan(chi_square_survival(-1.0, 2)));
}

TEST(PValueText, TwoDecimalsFromOnePercentFourBelowThenABound) {
  EXPECT_EQ(p_value_text(0.173774), "0.17");
  EXPECT_EQ(p_value_text(0.01), "0.01");
  EXPECT_EQ(p_value_text(0.0099), "0.0099");
  EXPECT_EQ(p_value_text(chi_square_survival(13.69, 3)), "0.0034");  // would read 0.00 at two decimals
  EXPECT_EQ(p_value_text(0.0001), "0.0001");
  EXPECT_EQ(p_value_text(0.00009), "< 0.0001");
  EXPECT_EQ(p_value_text(1.0), "1.00");
  EXPECT_EQ(p_value_text(kNaN), "-");
}

TEST(DifferenceCurve, InterpolatesBOnAsPointsInsideItsRange) {
  Curve a, b;
  a.run_id = 7;
  a.step = {0, 10, 20, 30, 40};
  a.x = {0, 10, 20, 30, 40};
  a.y = {5, 4, 3, std::nan(""), 1};
  b.step = {5, 15, 25, 35};
  b.x = {5, 15, 25, 35};
  b.y = {4.5, 3.5, 2.5, 1.5};
  const Curve d = difference_curve(a, b);
  EXPECT_EQ(d.run_id, 7);
  // x = 0 and 40 lie outside b's 5..35; x = 30 has no value in a.
  ASSERT_EQ(d.x, (std::vector<double>{10, 20}));
  EXPECT_EQ(d.step, (std::vector<std::int64_t>{10, 20}));
  EXPECT_DOUBLE_EQ(d.y[0], 4 - 4.0);  // b at 10: halfway between 4.5 and 3.5
  EXPECT_DOUBLE_EQ(d.y[1], 3 - 3.0);
  EXPECT_EQ(d.y_min, d.y);
  EXPECT_EQ(d.y_max, d.y);
  // Same steps: the plain difference; disjoint ranges: nothing.
  const Curve same = difference_curve(b, b);
  EXPECT_EQ(same.y, (std::vector<double>{0, 0, 0, 0}));
  Curve far = b;
  far.x = {100, 200, 300, 400};
  EXPECT_TRUE(difference_curve(a, far).x.empty());
  EXPECT_TRUE(difference_curve(a, Curve{}).x.empty());
}

TEST(DifferenceCurve, BsNonFinitePointsAreSkipped) {
  Curve a, b;
  a.x = {10, 20, 30};
  a.y = {1, 1, 1};
  b.x = {10, 20, 30};
  b.y = {0.5, std::nan(""), 0.25};
  const Curve d = difference_curve(a, b);
  ASSERT_EQ(d.x, (std::vector<double>{10, 20, 30}));
  EXPECT_DOUBLE_EQ(d.y[0], 0.5);
  EXPECT_DOUBLE_EQ(d.y[1], 1 - 0.375);  // between b's finite neighbours 10 and 30
  EXPECT_DOUBLE_EQ(d.y[2], 0.75);
}

}  // namespace
}  // namespace headroom::explorer
