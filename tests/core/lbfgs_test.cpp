// The Eigen L-BFGS behind LRB Theorem 1's fits: it minimises what it should, obeys its budgets and
// stops at a stationary start.
#include "core/analysis/lbfgs.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace headroom::core;

namespace {

double rosenbrock(const Eigen::VectorXd& x, Eigen::VectorXd* g) {
  double f = 0;
  g->setZero();
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
    const double a = x(i + 1) - x(i) * x(i), b = 1 - x(i);
    f += 100 * a * a + b * b;
    (*g)(i) += -400 * a * x(i) - 2 * b;
    (*g)(i + 1) += 200 * a;
  }
  return f;
}

}  // namespace

TEST(Lbfgs, FindsRosenbrocksMinimum) {
  Eigen::VectorXd x = Eigen::VectorXd::Constant(10, -1.2);
  LbfgsOptions o;
  o.max_iterations = 1000;
  const LbfgsResult r = minimize_lbfgs(rosenbrock, &x, o);
  EXPECT_LT(r.loss, 1e-12);
  EXPECT_LT((x - Eigen::VectorXd::Ones(10)).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_GT(r.iterations, 10);
  EXPECT_LE(r.evaluations, o.max_iterations * 5 / 4);
}

TEST(Lbfgs, AQuadraticIsSolvedInAboutItsDimensionOfIterations) {
  // f = 1/2 x^T A x - b^T x with A symmetric positive definite: the minimum is A^-1 b.
  const int n = 12;
  Eigen::MatrixXd M = Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd A = M * M.transpose() + n * Eigen::MatrixXd::Identity(n, n);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1, 1);
  auto f = [&](const Eigen::VectorXd& x, Eigen::VectorXd* g) {
    *g = A * x - b;
    return 0.5 * x.dot(A * x) - b.dot(x);
  };
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  const LbfgsResult r = minimize_lbfgs(f, &x);
  EXPECT_LT((x - A.ldlt().solve(b)).cwiseAbs().maxCoeff(), 1e-7);  // it stops once the loss stops changing
  EXPECT_LE(r.iterations, 3 * n);
}

TEST(Lbfgs, BudgetsAndAStationaryStartAreRespected) {
  Eigen::VectorXd x = Eigen::VectorXd::Constant(6, -1.2);
  LbfgsOptions o;
  o.max_iterations = 5;
  const LbfgsResult r = minimize_lbfgs(rosenbrock, &x, o);
  EXPECT_EQ(r.iterations, 5);
  EXPECT_GT(r.loss, 1e-3);  // five iterations do not get there
  o.max_iterations = 1000;
  o.max_evaluations = 7;
  Eigen::VectorXd y = Eigen::VectorXd::Constant(6, -1.2);
  EXPECT_LE(minimize_lbfgs(rosenbrock, &y, o).evaluations, 7 + 25);  // stops after the line search that passes it
  Eigen::VectorXd at_min = Eigen::VectorXd::Ones(6);
  const LbfgsResult still = minimize_lbfgs(rosenbrock, &at_min);
  EXPECT_EQ(still.iterations, 0);
  EXPECT_EQ(still.evaluations, 1);
  EXPECT_EQ(at_min, Eigen::VectorXd::Ones(6));
}
