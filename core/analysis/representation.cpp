#include "core/analysis/representation.h"

#include <Eigen/Dense>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace headroom::core {
namespace {

constexpr double kColumnSumTolerance = 1e-6;

torch::Tensor to_torch(const Eigen::MatrixXd& m) {
  // Eigen is column-major: copy into a row-major torch tensor.
  auto t = torch::empty({m.rows(), m.cols()}, torch::kFloat64);
  auto acc = t.accessor<double, 2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) acc[i][j] = m(i, j);
  return t;
}

Eigen::MatrixXd to_eigen(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kFloat64).contiguous();
  Eigen::MatrixXd m(c.size(0), c.size(1));
  auto acc = c.accessor<double, 2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = acc[i][j];
  return m;
}

RepresentationResult finish(RepresentationResult r, const Eigen::MatrixXd& X, const Eigen::MatrixXd& P) {
  const double dp = static_cast<double>(r.W_q.rows());
  r.reached = column_softmax((r.W_k * X).transpose() * (r.W_q * X) / std::sqrt(dp));
  r.max_abs_error = (r.reached - P).cwiseAbs().maxCoeff();
  return r;
}

}  // namespace

Eigen::MatrixXd column_softmax(const Eigen::MatrixXd& logits) {
  Eigen::MatrixXd out(logits.rows(), logits.cols());
  for (Eigen::Index j = 0; j < logits.cols(); ++j) {
    const double mx = logits.col(j).maxCoeff();
    out.col(j) = (logits.col(j).array() - mx).exp();
    out.col(j) /= out.col(j).sum();
  }
  return out;
}

std::optional<std::string> check_representation_inputs(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p) {
  std::ostringstream m;
  if (X.size() == 0) return std::string("X is empty: it must be d rows x n columns (tokens are columns)");
  if (P.rows() != P.cols()) {
    m << "P is " << P.rows() << " x " << P.cols() << ": it must be square, n x n";
    return m.str();
  }
  if (P.rows() != X.cols()) {
    m << "P is " << P.rows() << " x " << P.cols() << " but X has n = " << X.cols()
      << " columns (tokens): P must be n x n = " << X.cols() << " x " << X.cols();
    return m.str();
  }
  if (d_p < 1) {
    m << "head size d_p = " << d_p << " is impossible: it must be at least 1";
    return m.str();
  }
  if (!X.allFinite()) return std::string("X has a non-finite entry (NaN or infinity)");
  for (Eigen::Index j = 0; j < P.cols(); ++j) {
    for (Eigen::Index i = 0; i < P.rows(); ++i) {
      if (!std::isfinite(P(i, j)) || P(i, j) <= 0) {
        m << "P[" << i << "," << j << "] = " << P(i, j)
          << ": LRB Theorem 1 needs every entry positive (a softmax never outputs 0); "
             "smooth the target, e.g. 0.99*P + 0.01/n";
        return m.str();
      }
    }
    const double sum = P.col(j).sum();
    if (std::abs(sum - 1.0) > kColumnSumTolerance) {
      m.precision(10);
      m << "column " << j << " of P sums to " << sum
        << ": P must be column-stochastic (each column, one query's weights over the keys, sums to 1 within "
        << kColumnSumTolerance << ")";
      return m.str();
    }
  }
  return std::nullopt;
}

RepresentationResult construct_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p) {
  if (auto err = check_representation_inputs(X, P, d_p)) throw std::invalid_argument(*err);
  const Eigen::Index n = X.cols(), d = X.rows();
  if (d_p < n) throw std::invalid_argument("the construction needs d_p >= n (LRB Thm 1)");
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
  if (qr.rank() < n) throw std::invalid_argument("the construction needs X of full column rank n (LRB Thm 1)");

  // Left inverse X^+ = (X^T X)^{-1} X^T (n x d), so X^+ X = I_n.
  const Eigen::MatrixXd X_pinv = (X.transpose() * X).ldlt().solve(X.transpose());
  // Eq. 6 with D_0 = I: W~_kq = sqrt(d_p) log(P).
  const Eigen::MatrixXd W_kq = std::sqrt(double(d_p)) * P.array().log().matrix();
  // Factor W~_kq = W~_k^T W~_q with W~_k = [I_n; 0], W~_q = [W~_kq; 0] (d_p x n each).
  Eigen::MatrixXd Wk_t = Eigen::MatrixXd::Zero(d_p, n), Wq_t = Eigen::MatrixXd::Zero(d_p, n);
  Wk_t.topRows(n).setIdentity();
  Wq_t.topRows(n) = W_kq;
  RepresentationResult r;
  r.method = "construction";
  r.W_k = Wk_t * X_pinv;  // eq. 4: W_k = W~_k X^+
  r.W_q = Wq_t * X_pinv;  //        W_q = W~_q X^+
  (void)d;
  return finish(std::move(r), X, P);
}

RepresentationResult fit_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                   const FitOptions& options) {
  if (auto err = check_representation_inputs(X, P, d_p)) throw std::invalid_argument(*err);
  const int64_t d = X.rows();
  const auto x = to_torch(X), p = to_torch(P), log_p = p.log();
  const double scale = 1.0 / std::sqrt(double(d_p));

  torch::manual_seed(options.seed);
  RepresentationResult best;
  best.max_abs_error = std::numeric_limits<double>::infinity();
  for (int restart = 0; restart < std::max(1, options.restarts); ++restart) {
    auto wq = (torch::randn({d_p, d}, torch::kFloat64) / std::sqrt(double(d))).requires_grad_(true);
    auto wk = (torch::randn({d_p, d}, torch::kFloat64) / std::sqrt(double(d))).requires_grad_(true);
    torch::optim::LBFGS opt({wq, wk}, torch::optim::LBFGSOptions(1.0)
                                          .max_iter(options.max_iterations)
                                          .tolerance_grad(1e-12)
                                          .tolerance_change(1e-15)
                                          .history_size(20)
                                          .line_search_fn("strong_wolfe"));
    auto closure = [&]() {
      opt.zero_grad();
      // KL(P || S) summed over the columns (queries); S = column softmax of the logits.
      auto logits = torch::matmul(torch::matmul(wk, x).t(), torch::matmul(wq, x)) * scale;
      auto log_s = torch::log_softmax(logits, 0);
      auto loss = (p * (log_p - log_s)).sum();
      loss.backward();
      return loss;
    };
    opt.step(closure);
    RepresentationResult r;
    r.method = "fit";
    r.W_q = to_eigen(wq);
    r.W_k = to_eigen(wk);
    r.iterations = options.max_iterations;
    r = finish(std::move(r), X, P);
    if (r.max_abs_error < best.max_abs_error) best = std::move(r);
  }
  return best;
}

RepresentationResult represent_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         const FitOptions& options) {
  if (auto err = check_representation_inputs(X, P, d_p)) throw std::invalid_argument(*err);
  const Eigen::Index n = X.cols();
  if (d_p >= n) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
    if (qr.rank() == n) return construct_attention(X, P, d_p);
  }
  return fit_attention(X, P, d_p, options);
}

}  // namespace headroom::core
