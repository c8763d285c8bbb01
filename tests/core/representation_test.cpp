#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

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
  const double e1 = represent_attention(X, P, 1, fit).max_abs_error;
  const double e_n = represent_attention(X, P, n, fit).max_abs_error;
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
