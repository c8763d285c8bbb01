#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <random>

#include "core/analysis/reachability.h"
#include "core/analysis/representation.h"

using namespace headroom::core;

namespace {

Eigen::MatrixXd random_matrix(int rows, int cols, std::mt19937& rng) {
  std::normal_distribution<double> N(0, 1);
  Eigen::MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = N(rng);
  return m;
}

// A random positive column-stochastic matrix, with some columns far from uniform.
Eigen::MatrixXd random_stochastic(int n, std::mt19937& rng) {
  std::exponential_distribution<double> E(1.0);
  Eigen::MatrixXd p(n, n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) p(i, j) = E(rng) * (i == j ? 20.0 : 1.0) + 1e-3;
    p.col(j) /= p.col(j).sum();
  }
  return p;
}

}  // namespace

TEST(Representation, TheoremOneIsExactWhenHeadSizeReachesN) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + trial % 9, d = n + trial % 5, dp = n + trial % 3;
    const auto X = random_matrix(d, n, rng);  // full column rank with probability 1
    const auto P = random_stochastic(n, rng);
    const auto r = represent_attention(X, P, dp);
    EXPECT_EQ(r.method, "construction");
    EXPECT_LT(r.max_abs_error, 1e-6) << "n=" << n << " d=" << d << " d_p=" << dp;
    EXPECT_EQ(r.W_q.rows(), dp);
    EXPECT_EQ(r.W_q.cols(), d);
    // The reached matrix is recomputed from W_q, W_k, not copied from P.
    const Eigen::MatrixXd logits = (r.W_k * X).transpose() * (r.W_q * X) / std::sqrt(double(dp));
    EXPECT_LT((column_softmax(logits) - P).cwiseAbs().maxCoeff(), 1e-6);
  }
}

TEST(Representation, PapersCounterExampleCannotBeReached) {
  // LRB Thm 1, d < n case: d = 1, n = 2, X = [1, 0], P = [[.5, .75], [.5, .25]].
  Eigen::MatrixXd X(1, 2);
  X << 1, 0;
  Eigen::MatrixXd P(2, 2);
  P << 0.5, 0.75, 0.5, 0.25;
  const auto r = represent_attention(X, P, 1);
  EXPECT_EQ(r.method, "fit");
  // Column 2's logits are always [0, 0], so its softmax is [.5, .5]: error >= 0.25.
  EXPECT_GE(r.max_abs_error, 0.25 - 1e-9);
  EXPECT_NEAR(r.reached(0, 1), 0.5, 1e-9);
}

TEST(Representation, SmallHeadSizeLeavesAnErrorThatShrinksAsDpGrows) {
  std::mt19937 rng(3);
  const int n = 6, d = 8;
  const auto X = random_matrix(d, n, rng);
  const auto P = random_stochastic(n, rng);
  FitOptions fit;
  fit.seed = 1;
  const double e1 = represent_attention(X, P, 1, AttentionMask::Full, fit).max_abs_error;
  const double e_n = represent_attention(X, P, n, AttentionMask::Full, fit).max_abs_error;
  EXPECT_GT(e1, 1e-3);
  EXPECT_LT(e_n, 1e-6);
  EXPECT_GT(e1, e_n);
}

TEST(Representation, FitConvergesWhereAnExactAnswerExists) {
  // The fit (not the construction) on a reachable target: checks the optimiser, not the theorem.
  std::mt19937 rng(5);
  const int n = 4, d = 6;
  const auto X = random_matrix(d, n, rng);
  const auto P = random_stochastic(n, rng);
  EXPECT_LT(fit_attention(X, P, n).max_abs_error, 1e-4);
}

TEST(Representation, RejectsBadInputsWithClearMessages) {
  Eigen::MatrixXd X = Eigen::MatrixXd::Identity(3, 3);
  Eigen::MatrixXd P = Eigen::MatrixXd::Constant(3, 3, 1.0 / 3);
  EXPECT_FALSE(check_representation_inputs(X, P, 3).has_value());
  Eigen::MatrixXd bad = P;
  bad(0, 1) = 0.5;  // column 1 sums to 1.1667
  auto msg = check_representation_inputs(X, bad, 3);
  ASSERT_TRUE(msg);
  EXPECT_NE(msg->find("column 1"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("column-stochastic"), std::string::npos);
  Eigen::MatrixXd rect = Eigen::MatrixXd::Constant(3, 2, 0.5);
  EXPECT_TRUE(check_representation_inputs(X, rect, 3));
  Eigen::MatrixXd zero = Eigen::MatrixXd::Identity(3, 3);
  auto zmsg = check_representation_inputs(X, zero, 3);
  ASSERT_TRUE(zmsg);
  EXPECT_NE(zmsg->find("positive"), std::string::npos);
  Eigen::MatrixXd wrong_n = Eigen::MatrixXd::Constant(4, 4, 0.25);
  EXPECT_TRUE(check_representation_inputs(X, wrong_n, 3));
  EXPECT_TRUE(check_representation_inputs(X, P, 0));
  EXPECT_THROW(represent_attention(X, bad, 3), std::invalid_argument);
}

// ---- One constant per query is free: the construction needs only d_p = n - 1 ----

TEST(Representation, ConstructionIsExactFromNMinusOneForFullAndCausal) {
  std::mt19937 rng(11);
  for (AttentionMask mask : {AttentionMask::Full, AttentionMask::Causal}) {
    for (int n = 2; n <= 10; ++n) {
      const auto X = random_matrix(n + 1 + n % 3, n, rng);
      const auto P = threshold_target(ThresholdTarget::Random, n, mask, 100 + n);
      const auto r = construct_attention(X, P, n - 1, mask);
      EXPECT_LT(r.max_abs_error, 1e-9) << to_string(mask) << " n=" << n;
      EXPECT_EQ(r.W_q.rows(), n - 1);
      // Recomputed from the weights: the first key's logit is 0 for every query (D_0 = diag(1/P[0,:])).
      const Eigen::MatrixXd logits = (r.W_k * X).transpose() * (r.W_q * X) / std::sqrt(double(n - 1));
      EXPECT_LT(logits.row(0).cwiseAbs().maxCoeff(), 1e-9);
      EXPECT_LT((column_softmax(logits, mask) - P).cwiseAbs().maxCoeff(), 1e-9);
    }
  }
  const auto X = random_matrix(8, 5, rng);
  EXPECT_THROW(construct_attention(X, threshold_target(ThresholdTarget::Random, 5, AttentionMask::Full, 1), 3),
               std::invalid_argument);
}

// ---- Causal heads: a construction at floor(n/2) (docs/causal_threshold.md) ----

TEST(Representation, CausalConstructionIsExactFromHalfNWithLogitsOfThatRank) {
  for (int n = 2; n <= 64; ++n) {
    for (uint64_t seed : {3u, 4u}) {
      const auto X = threshold_input(n, seed);
      const auto P = threshold_target(ThresholdTarget::Random, n, AttentionMask::Causal, seed);
      const int dp = n / 2;
      const auto r = construct_attention(X, P, dp, AttentionMask::Causal);
      EXPECT_EQ(r.method, "construction");
      EXPECT_EQ(r.construction_rank, n >= 3 ? n / 2 : 1) << "n=" << n;
      EXPECT_LT(r.max_log_error, 1e-9) << "n=" << n << " seed=" << seed;
      // Recomputed from the weights: the causal softmax is P, and the logits have rank floor(n/2)
      // (the singular values past it are rounding).
      const Eigen::MatrixXd logits = (r.W_k * X).transpose() * (r.W_q * X) / std::sqrt(double(dp));
      EXPECT_LT((column_softmax(logits, AttentionMask::Causal) - P).cwiseAbs().maxCoeff(), 1e-9) << "n=" << n;
      const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(logits).singularValues();
      if (n >= 4) {
        EXPECT_LT(sv(n / 2) / sv(0), 1e-12) << "n=" << n;
      }
      // A wider head holds the same logits (zero rows).
      if (dp + 3 < n - 1) {
        const auto wide = construct_attention(X, P, dp + 3, AttentionMask::Causal);
        EXPECT_EQ(wide.construction_rank, n / 2);
        EXPECT_LT(wide.max_log_error, 1e-9) << "n=" << n;
      }
    }
  }
}

TEST(Representation, CausalConstructionRefusesBelowHalfNAndPatternsThatAreNotGeneric) {
  const int n = 8;
  const auto X = threshold_input(n, 1);
  const auto P = threshold_target(ThresholdTarget::Random, n, AttentionMask::Causal, 1);
  try {
    construct_attention(X, P, n / 2 - 1, AttentionMask::Causal);
    ADD_FAILURE() << "constructed below floor(n/2)";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("floor(n/2)"), std::string::npos) << e.what();
  }
  // Full attention has no such construction below n - 1.
  EXPECT_THROW(construct_attention(X, threshold_target(ThresholdTarget::Random, n, AttentionMask::Full, 1), n / 2),
               std::invalid_argument);
  // Self against a uniform past ties every past key: its block of log-ratios is 0 off the
  // diagonal, singular, and the pattern needs n - 1 exactly.
  const auto self = threshold_target(ThresholdTarget::SelfVsPast, n, AttentionMask::Causal, 0);
  try {
    construct_attention(X, self, n / 2, AttentionMask::Causal);
    ADD_FAILURE() << "constructed self-vs-past below n - 1";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not generic"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("keys 1..4 and queries 4..7"), std::string::npos) << e.what();
  }
  // represent_attention constructs the random target and fits the other.
  FitOptions fit;
  fit.restarts = 1;
  fit.max_iterations = 50;
  const auto generic = represent_attention(X, P, n / 2, AttentionMask::Causal, fit);
  EXPECT_EQ(generic.method, "construction");
  EXPECT_EQ(generic.construction_rank, n / 2);
  EXPECT_LT(generic.max_log_error, 1e-9);
  // The other is approached: the construction for a nearby pattern beats the fit.
  const auto near = represent_attention(X, self, n / 2, AttentionMask::Causal, fit);
  EXPECT_EQ(near.method, "perturbed construction");
  EXPECT_EQ(near.construction_rank, n / 2);
  EXPECT_LT(near.max_log_error, fit_attention(X, self, n / 2, AttentionMask::Causal, fit).max_log_error);
}

TEST(Representation, EveryCausalPatternIsApproachedFromHalfNWithGrowingLogits) {
  // Self against a uniform past needs n - 1 exactly, but from floor(n/2) the construction for a
  // pattern within eps of it reaches it to ~eps, with logits ~1/eps (docs/causal_threshold.md).
  for (int n : {6, 8, 9}) {
    const auto X = threshold_input(n, 2);
    const auto P = threshold_target(ThresholdTarget::SelfVsPast, n, AttentionMask::Causal, 0);
    double previous_error = 1e9, previous_logit = 0;
    for (double eps : {1e-2, 1e-4, 1e-6}) {
      const auto r = approach_attention(X, P, n / 2, eps);
      EXPECT_EQ(r.method, "perturbed construction");
      EXPECT_EQ(r.perturbation, eps);
      EXPECT_LT(r.max_log_error, 10 * eps) << "n=" << n << " eps=" << eps;
      EXPECT_LT(r.max_log_error, previous_error / 10) << "n=" << n << " eps=" << eps;
      EXPECT_GT(r.max_logit, previous_logit) << "n=" << n << " eps=" << eps;
      previous_error = r.max_log_error;
      previous_logit = r.max_logit;
    }
    EXPECT_GT(previous_logit, 1e3) << "n=" << n << ": the price is large logits";
    EXPECT_LT(approach_attention(X, P, n / 2).max_log_error, 1e-5) << "n=" << n << ": the best eps";
  }
  EXPECT_THROW(approach_attention(threshold_input(8, 2),
                                  threshold_target(ThresholdTarget::SelfVsPast, 8, AttentionMask::Causal, 0), 3),
               std::invalid_argument);
}

TEST(Representation, ConstructionSweepChecksTheProofAtTheSmallestHead) {
  ThresholdSweep s;
  s.method = ReachMethod::Construction;
  s.n_min = 8;
  s.n_max = 64;
  s.n_step = 28;  // n = 8, 36, 64
  s.targets = 3;
  s.seed = 70;
  const auto points = sweep_threshold(s);
  ASSERT_EQ(points.size(), 6u);  // one d_p per (mask, n)
  for (const auto& p : points) {
    EXPECT_EQ(p.d_p, p.mask == AttentionMask::Causal ? p.n / 2 : p.n - 1);
    EXPECT_EQ(p.reached, 3) << to_string(p.mask) << " n=" << p.n;
    EXPECT_EQ(p.constructed, 3);
    EXPECT_LT(p.worst_error, 1e-8) << to_string(p.mask) << " n=" << p.n;
    EXPECT_GE(p.worst_max_logit, p.median_max_logit);
  }
  s.target = ThresholdTarget::SelfVsPast;  // not generic: the causal construction refuses it
  s.masks = {AttentionMask::Causal};
  for (const auto& p : sweep_threshold(s)) {
    EXPECT_EQ(p.reached, 0) << "n=" << p.n;
    EXPECT_EQ(p.constructed, 0);
  }
}

TEST(Representation, CausalSoftmaxSeesOnlyThePast) {
  Eigen::MatrixXd logits = Eigen::MatrixXd::Constant(3, 3, 2.0);
  const auto s = column_softmax(logits, AttentionMask::Causal);
  EXPECT_DOUBLE_EQ(s(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(s(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(s(0, 1), 0.5);
  EXPECT_DOUBLE_EQ(s(2, 1), 0.0);
  EXPECT_NEAR(s(2, 2), 1.0 / 3, 1e-15);
}

TEST(Representation, CausalTargetsAreCheckedAgainstTheirSupport) {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Identity(3, 3);
  Eigen::MatrixXd P = threshold_target(ThresholdTarget::Random, 3, AttentionMask::Causal, 0);
  EXPECT_FALSE(check_representation_inputs(X, P, 2, AttentionMask::Causal).has_value());
  // A full-attention check refuses the zeros a causal target has.
  EXPECT_TRUE(check_representation_inputs(X, P, 2, AttentionMask::Full).has_value());
  Eigen::MatrixXd leak = P;
  leak(2, 1) = 0.1;  // query 1 cannot see key 2
  leak.col(1) /= leak.col(1).sum();
  auto msg = check_representation_inputs(X, leak, 2, AttentionMask::Causal);
  ASSERT_TRUE(msg);
  EXPECT_NE(msg->find("P[2,1]"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("keys 0..1"), std::string::npos) << *msg;
}

TEST(Representation, ThresholdsFullNeedsNMinusOneCausalGenericHalf) {
  for (int n = 2; n <= 64; ++n) {
    EXPECT_EQ(reachability_thresholds(n, AttentionMask::Full).every_pattern, n - 1);
    EXPECT_EQ(reachability_thresholds(n, AttentionMask::Full).generic, n - 1);
    EXPECT_EQ(reachability_thresholds(n, AttentionMask::Causal).every_pattern, n - 1);
    EXPECT_EQ(reachability_thresholds(n, AttentionMask::Causal).generic, n / 2);
  }
}

// ---- The thresholds, measured by fits (docs/causal_threshold.md has the full sweep) ----

TEST(Representation, RandomCausalTargetsAreReachedFromHalfNAndNotBelow) {
  ThresholdSweep s;
  s.method = ReachMethod::Fit;  // the fit alone: evidence independent of the construction
  s.masks = {AttentionMask::Causal};
  s.n_min = 6;
  s.n_max = 8;
  s.targets = 3;
  s.seed = 40;
  s.fit.restarts = 8;  // odd n at floor(n/2) has local minima: one start in a few finds the exact answer
                       // (n = 5 with these seeds needs 12; docs/causal_threshold.md)
  const auto points = sweep_threshold(s);
  for (int n = s.n_min; n <= s.n_max; ++n) {
    EXPECT_EQ(measured_threshold(points, AttentionMask::Causal, n), n / 2) << "n=" << n;
    // Below floor(n/2) no weights come close (the proof's fully seen block): a large relative error.
    for (const auto& p : points)
      if (p.n == n && p.d_p == n / 2 - 1) {
        EXPECT_GT(p.median_error, 0.05) << "n=" << n << " d_p=" << p.d_p;
      }
  }
}

TEST(Representation, RandomFullTargetsNeedNMinusOne) {
  ThresholdSweep s;
  s.masks = {AttentionMask::Full};
  s.n_min = 5;
  s.n_max = 7;
  s.targets = 2;
  s.seed = 50;
  const auto points = sweep_threshold(s);
  for (int n = s.n_min; n <= s.n_max; ++n) {
    EXPECT_EQ(measured_threshold(points, AttentionMask::Full, n), n - 1) << n;
    for (const auto& p : points)
      if (p.n == n && p.d_p == n - 2) {
        EXPECT_GT(p.median_error, 0.05) << "n=" << n;
      }
  }
}

TEST(Representation, SelfAgainstUniformPastIsExactOnlyFromNMinusOneButApproachedWithGrowingLogits) {
  // Query j: 2/3 on itself, 1/3 spread over keys 0..j-1. Exactly, it needs the n key vectors
  // affinely independent, so d_p >= n - 1 (docs/causal_threshold.md). But a single dimension
  // comes arbitrarily close: key scores u_i = t^i and query scales v_j = delta_j / (t^j - 1) make
  // query j's logits delta_j * (t^i - 1) / (t^j - 1), which tend to 0 on the past and equal
  // delta_j on itself as t grows, at the price of logits of size ~t.
  const int n = 6;
  const auto P = threshold_target(ThresholdTarget::SelfVsPast, n, AttentionMask::Causal, 0);
  const auto exact = construct_attention(threshold_input(n, 0), P, n - 1, AttentionMask::Causal);
  EXPECT_LT(exact.max_log_error, 1e-9);
  double previous_error = 1e9;
  for (double t : {10.0, 100.0, 1000.0}) {
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);  // rank 1: A = u v^T
    for (int j = 1; j < n; ++j) {
      const double delta = std::log(P(j, j) / P(0, j));
      for (int i = 0; i < n; ++i) A(i, j) = delta * (std::pow(t, i) - 1) / (std::pow(t, j) - 1);
    }
    const auto reached = column_softmax(A, AttentionMask::Causal);
    double err = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= j; ++i) err = std::max(err, std::abs(std::log(reached(i, j) / P(i, j))));
    EXPECT_LT(err, previous_error / 5) << "t=" << t;
    previous_error = err;
  }
  EXPECT_LT(previous_error, 0.01);
}

namespace {

// Query j's weights: `top` on one key (key_of(j), among those it sees), the rest equal.
Eigen::MatrixXd one_key_against_uniform(int n, AttentionMask mask, int (*key_of)(int), double top = 0.7) {
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);
  for (int j = 0; j < n; ++j) {
    const int seen = mask == AttentionMask::Causal ? j + 1 : n;
    if (seen == 1) {
      P(0, j) = 1;
      continue;
    }
    for (int i = 0; i < seen; ++i) P(i, j) = (1 - top) / (seen - 1);
    P(key_of(j), j) = top;
  }
  return P;
}

int self_key(int j) { return j; }
int previous_key(int j) { return std::max(0, j - 1); }
int first_key(int) { return 0; }

}  // namespace

TEST(Representation, TheExactSmallestHeadIsWoerdemansMinimalRankForEveryPattern) {
  std::mt19937 rng(7);
  for (int n = 2; n <= 12; ++n) {
    Eigen::MatrixXd P = random_stochastic(n, rng);
    EXPECT_EQ(minimal_head_size(P, AttentionMask::Full), n - 1) << "random full, n=" << n;
    for (int j = 0; j < n; ++j) {  // the same weights, causal: each query's past renormalised
      P.col(j).tail(n - j - 1).setZero();
      P.col(j) /= P.col(j).sum();
    }
    EXPECT_EQ(minimal_head_size(P, AttentionMask::Causal), n / 2) << "random causal, n=" << n;
  }
  for (int n = 3; n <= 12; ++n) {
    for (AttentionMask mask : {AttentionMask::Full, AttentionMask::Causal}) {
      const char* m = to_string(mask);
      EXPECT_EQ(minimal_head_size(one_key_against_uniform(n, mask, self_key), mask), n - 1) << m << " n=" << n;
      EXPECT_EQ(minimal_head_size(one_key_against_uniform(n, mask, first_key), mask), 1) << m << " n=" << n;
    }
    EXPECT_EQ(minimal_head_size(Eigen::MatrixXd::Constant(n, n, 1.0 / n), AttentionMask::Full), 0);
    EXPECT_EQ(minimal_head_size(threshold_target(ThresholdTarget::SelfVsPast, n, AttentionMask::Causal, 0),
                                AttentionMask::Causal),
              n - 1);
    // Previous token against a uniform rest: causal n - 2 (the sum telescopes to m - 1), full n - 1.
    EXPECT_EQ(minimal_head_size(one_key_against_uniform(n, AttentionMask::Causal, previous_key), AttentionMask::Causal),
              n - 2)
        << "n=" << n;
    EXPECT_EQ(minimal_head_size(one_key_against_uniform(n, AttentionMask::Full, previous_key), AttentionMask::Full),
              n - 1)
        << "n=" << n;
  }
  EXPECT_THROW(minimal_head_size(Eigen::MatrixXd::Identity(3, 3), AttentionMask::Full), std::invalid_argument);
}

TEST(Representation, TheExactSmallestHeadIsWhereTheFitReachesStructuredCausalPatterns) {
  // The number is a theorem applied to P (Woerdeman's formula); the fit, which knows nothing of it,
  // reaches each pattern exactly at that head size with small logits. One size below it only
  // approaches it (every causal P is approached from floor(n/2)), with logits that grow: measured
  // here, previous token at n = 7: 1.8e-7 with logits of 2.4 at d_p = 5, 7.8e-4 with 131 at d_p = 4.
  const int n = 7;
  const auto X = threshold_input(n, 3);
  FitOptions fit;
  fit.restarts = 6;
  fit.max_iterations = 2000;
  for (int (*key_of)(int) : {previous_key, first_key}) {
    const auto P = one_key_against_uniform(n, AttentionMask::Causal, key_of);
    const int r = minimal_head_size(P, AttentionMask::Causal);
    const auto at = fit_attention(X, P, r, AttentionMask::Causal, fit);
    EXPECT_LT(at.max_log_error, 1e-5) << "at d_p = " << r;
    EXPECT_LT(at.max_logit, 10) << "at d_p = " << r;
    if (r > 1) {
      const auto below = fit_attention(X, P, r - 1, AttentionMask::Causal, fit);
      EXPECT_GT(below.max_log_error, 100 * at.max_log_error) << "d_p = " << r - 1;
      EXPECT_GT(below.max_logit, 10 * at.max_logit) << "d_p = " << r - 1;
    }
  }
}

TEST(Representation, PatternsWithRandomTiesAreReachedExactlyAtTheirLeastRank) {
  // Each query's weights drawn from a few values, so ties fall anywhere: the least rank ranges
  // widely, and wherever it lands the fit (which knows nothing of the formula) reaches P there.
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> two(1, 2), three(1, 3);
  FitOptions fit;
  fit.restarts = 6;
  fit.max_iterations = 3000;
  std::vector<int> seen_ranks;
  for (int trial = 0; trial < 24; ++trial) {
    const int n = 6 + trial % 3;
    auto& level = trial < 12 ? three : two;
    Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i <= j; ++i) P(i, j) = level(rng);
      P.col(j) /= P.col(j).sum();
    }
    const int r = minimal_head_size(P, AttentionMask::Causal);
    seen_ranks.push_back(r);
    ASSERT_GE(r, 0);
    ASSERT_LE(r, n - 1);
    if (r == 0) continue;  // uniform: any head with zero weights
    const auto at = fit_attention(threshold_input(n, trial), P, r, AttentionMask::Causal, fit);
    EXPECT_LT(at.max_log_error, 1e-5) << "trial " << trial << ", n = " << n << ", least rank " << r;
    EXPECT_LT(at.max_logit, 50) << "trial " << trial << ", n = " << n << ", least rank " << r;
  }
  // The draws include patterns whose ties lower the rank below floor(n/2) (measured: 2 2 3 ... 4).
  EXPECT_LT(*std::min_element(seen_ranks.begin(), seen_ranks.end()), 3);
}

namespace {

// The rank of the logits a construction's weights make, recomputed from the weights (singular
// values past the rank are rounding).
int logit_rank(const RepresentationResult& r, const Eigen::MatrixXd& X) {
  const Eigen::MatrixXd logits = (r.W_k * X).transpose() * (r.W_q * X) / std::sqrt(double(r.W_q.rows()));
  const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(logits).singularValues();
  if (sv.size() == 0 || sv(0) < 1e-12) return 0;
  return static_cast<int>((sv.array() > 1e-10 * sv(0)).count());
}

}  // namespace

TEST(Representation, EveryPatternIsConstructedExactlyAtItsLeastRankAndRefusedBelow) {
  // Woerdeman's proof is constructive (docs/causal_threshold.md): completing the log-ratios key by
  // key reaches the least rank. Patterns with random ties (full and causal, least ranks anywhere
  // from 1 to n - 1) are made at exactly minimal_head_size, with logits of that rank, and refused
  // one below, naming it.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> two(1, 2), three(1, 3);
  std::vector<int> below_threshold;  // least ranks below the thresholds' constructions
  for (int trial = 0; trial < 40; ++trial) {
    const AttentionMask mask = trial % 2 ? AttentionMask::Causal : AttentionMask::Full;
    const int n = 5 + trial % 7;
    Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);
    if (mask == AttentionMask::Causal) {  // each query's weights drawn from a few values
      auto& level = trial < 20 ? three : two;
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i <= j; ++i) P(i, j) = level(rng);
        P.col(j) /= P.col(j).sum();
      }
    } else {  // full: queries that share one of a few random columns
      const Eigen::MatrixXd kinds = random_stochastic(n, rng);
      std::uniform_int_distribution<int> kind(0, trial % 5);
      for (int j = 0; j < n; ++j) P.col(j) = kinds.col(kind(rng));
    }
    const int r = minimal_head_size(P, mask);
    const auto X = threshold_input(n, trial);
    const std::string where = std::string(to_string(mask)) + " trial " + std::to_string(trial) +
                              ", n = " + std::to_string(n) + ", least rank " + std::to_string(r);
    const auto at = construct_attention(X, P, std::max(r, 1), mask);
    EXPECT_LT(at.max_log_error, 1e-9) << where;
    EXPECT_EQ(logit_rank(at, X), r) << where;
    if (r < (mask == AttentionMask::Causal ? n / 2 : n - 1)) {
      below_threshold.push_back(r);
      EXPECT_EQ(at.method, "least-rank construction") << where;
      EXPECT_EQ(at.construction_rank, r) << where;
    }
    if (r > 1) {
      try {
        construct_attention(X, P, r - 1, mask);
        ADD_FAILURE() << "constructed below the least rank: " << where;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("own smallest head is d_p = " + std::to_string(r)), std::string::npos)
            << e.what();
      }
    }
  }
  ASSERT_GE(below_threshold.size(), 20u) << "the draws should include ties that lower the rank";
  // Structured patterns below the thresholds, and through represent_attention (what the lab and
  // `represent` call): the first token (an attention sink) at d_p = 1, the previous token at n - 2.
  for (int n : {8, 16, 33}) {
    const auto X = threshold_input(n, 9);
    for (AttentionMask mask : {AttentionMask::Full, AttentionMask::Causal}) {
      const auto sink = represent_attention(X, one_key_against_uniform(n, mask, first_key), 1, mask);
      EXPECT_EQ(sink.method, "least-rank construction") << to_string(mask) << " n=" << n;
      EXPECT_LT(sink.max_log_error, 1e-9) << to_string(mask) << " n=" << n;
      EXPECT_LT(sink.max_logit, 10) << to_string(mask) << " n=" << n;
    }
    const auto previous = one_key_against_uniform(n, AttentionMask::Causal, previous_key);
    const auto prev = represent_attention(X, previous, n - 2, AttentionMask::Causal);
    EXPECT_LT(prev.max_log_error, 1e-9) << "n=" << n;
    EXPECT_EQ(logit_rank(prev, X), n - 2) << "n=" << n;
  }
  // Uniform attention is rank 0: a head with zero weights.
  const auto uniform = construct_attention(threshold_input(6, 1), Eigen::MatrixXd::Constant(6, 6, 1.0 / 6), 1);
  EXPECT_EQ(uniform.construction_rank, 0);
  EXPECT_EQ(uniform.max_logit, 0.0);
  EXPECT_LT(uniform.max_abs_error, 1e-15);
}
