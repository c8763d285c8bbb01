#include "core/analysis/representation.h"

#include <Eigen/Dense>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/analysis/lbfgs.h"

namespace headroom::core {
namespace {

constexpr double kColumnSumTolerance = 1e-6;

Eigen::MatrixXd to_eigen(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kFloat64).contiguous();
  Eigen::MatrixXd m(c.size(0), c.size(1));
  auto acc = c.accessor<double, 2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = acc[i][j];
  return m;
}

bool sees(AttentionMask mask, Eigen::Index key, Eigen::Index query) {
  return mask == AttentionMask::Full || key <= query;
}

RepresentationResult finish(RepresentationResult r, const Eigen::MatrixXd& X, const Eigen::MatrixXd& P,
                            AttentionMask mask) {
  const double dp = static_cast<double>(r.W_q.rows());
  const Eigen::MatrixXd logits = (r.W_k * X).transpose() * (r.W_q * X) / std::sqrt(dp);
  r.max_logit = logits.cwiseAbs().maxCoeff();
  r.reached = column_softmax(logits, mask);
  // Entries a query does not see are 0 in both P and reached (causal), so the max is over the rest.
  r.max_abs_error = (r.reached - P).cwiseAbs().maxCoeff();
  // The same in log space: a relative error, so small probabilities count as much as large ones.
  r.max_log_error = 0;
  for (Eigen::Index j = 0; j < P.cols(); ++j)
    for (Eigen::Index i = 0; i < P.rows(); ++i)
      if (sees(mask, i, j))
        r.max_log_error = std::max(r.max_log_error, std::abs(std::log(r.reached(i, j)) - std::log(P(i, j))));
  return r;
}

}  // namespace

const char* to_string(AttentionMask mask) { return mask == AttentionMask::Causal ? "causal" : "full"; }

ReachabilityThresholds reachability_thresholds(int n, AttentionMask mask) {
  ReachabilityThresholds t;
  t.every_pattern = std::max(0, n - 1);
  t.generic = mask == AttentionMask::Causal ? n / 2 : std::max(0, n - 1);
  return t;
}

Eigen::MatrixXd column_softmax(const Eigen::MatrixXd& logits, AttentionMask mask) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(logits.rows(), logits.cols());
  for (Eigen::Index j = 0; j < logits.cols(); ++j) {
    const Eigen::Index seen = mask == AttentionMask::Causal ? std::min(j + 1, logits.rows()) : logits.rows();
    auto col = logits.col(j).head(seen);
    const double mx = col.maxCoeff();
    out.col(j).head(seen) = (col.array() - mx).exp();
    out.col(j).head(seen) /= out.col(j).head(seen).sum();
  }
  return out;
}

std::optional<std::string> check_representation_inputs(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                                       AttentionMask mask) {
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
      if (!sees(mask, i, j)) {
        if (P(i, j) != 0) {
          m << "P[" << i << "," << j << "] = " << P(i, j) << ": with causal attention query " << j << " (column " << j
            << ") sees keys 0.." << j << " only, so P[i," << j << "] must be 0 for i > " << j
            << " (P is upper triangular in LRB's orientation: columns are queries)";
          return m.str();
        }
        continue;
      }
      if (!std::isfinite(P(i, j)) || P(i, j) <= 0) {
        m << "P[" << i << "," << j << "] = " << P(i, j)
          << ": LRB Theorem 1 needs every entry a query sees positive (a softmax never outputs 0); "
             "smooth the target, e.g. 0.99*P + 0.01/(keys the query sees)";
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

RepresentationResult construct_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         AttentionMask mask) {
  if (auto err = check_representation_inputs(X, P, d_p, mask)) throw std::invalid_argument(*err);
  const Eigen::Index n = X.cols();
  if (d_p < n - 1)
    throw std::invalid_argument("the construction needs d_p >= n - 1 (LRB Thm 1, with a constant per query)");
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
  if (qr.rank() < n) throw std::invalid_argument("the construction needs X of full column rank n (LRB Thm 1)");

  // Left inverse X^+ = (X^T X)^{-1} X^T (n x d), so X^+ X = I_n.
  const Eigen::MatrixXd X_pinv = (X.transpose() * X).ldlt().solve(X.transpose());
  // Eq. 6: W~_kq = sqrt(d_p) log(P D_0) with D_0 = diag(1 / P[0, :]): each query's logits are
  // shifted so that key 0's is 0 (softmax ignores the shift), and row 0 of W~_kq vanishes.
  // Causal: the logits of keys a query does not see are masked; set them to 0 too.
  Eigen::MatrixXd W_kq = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 1; i < n; ++i)
      if (sees(mask, i, j)) W_kq(i, j) = std::sqrt(double(d_p)) * (std::log(P(i, j)) - std::log(P(0, j)));
  // Factor W~_kq = W~_k^T W~_q with inner dimension n - 1: W~_k picks rows 1..n-1 (W~_k[r, r+1] = 1),
  // W~_q holds them; both zero-padded to d_p rows.
  Eigen::MatrixXd Wk_t = Eigen::MatrixXd::Zero(d_p, n), Wq_t = Eigen::MatrixXd::Zero(d_p, n);
  for (Eigen::Index r = 0; r + 1 < n; ++r) {
    Wk_t(r, r + 1) = 1;
    Wq_t.row(r) = W_kq.row(r + 1);
  }
  RepresentationResult r;
  r.method = "construction";
  r.W_k = Wk_t * X_pinv;  // eq. 4: W_k = W~_k X^+
  r.W_q = Wq_t * X_pinv;  //        W_q = W~_q X^+
  return finish(std::move(r), X, P, mask);
}

RepresentationResult fit_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p, AttentionMask mask,
                                   const FitOptions& options) {
  if (auto err = check_representation_inputs(X, P, d_p, mask)) throw std::invalid_argument(*err);
  const Eigen::Index d = X.rows(), n = X.cols(), dp = d_p, size = dp * d;
  const double scale = 1.0 / std::sqrt(double(d_p));
  const Eigen::MatrixXd Xt = X.transpose();
  // KL(P || S) summed over the columns (queries), S the column softmax of the logits
  // (W_k X)^T (W_q X) / sqrt(d_p) over the keys each query sees (causal: keys after the query are
  // masked; their P is 0, and so is their term). Its gradient in closed form: dKL/dlogits = S - P
  // on the seen entries (columns of P sum to 1), then through the two products.
  Eigen::MatrixXd log_p = Eigen::MatrixXd::Zero(n, n), G(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i)
      if (sees(mask, i, j)) log_p(i, j) = std::log(P(i, j));
  auto objective = [&](const Eigen::VectorXd& v, Eigen::VectorXd* grad) {
    const Eigen::Map<const Eigen::MatrixXd> wq(v.data(), dp, d), wk(v.data() + size, dp, d);
    const Eigen::MatrixXd A = wk * X, B = wq * X;  // d_p x n: keys and queries
    const Eigen::MatrixXd logits = A.transpose() * B * scale;
    double loss = 0;
    G.setZero();
    for (Eigen::Index j = 0; j < n; ++j) {
      const Eigen::Index seen = mask == AttentionMask::Causal ? j + 1 : n;
      const double top = logits.col(j).head(seen).maxCoeff();
      const double lse = top + std::log((logits.col(j).head(seen).array() - top).exp().sum());
      const double mass = P.col(j).head(seen).sum();
      for (Eigen::Index i = 0; i < seen; ++i) {
        const double log_s = logits(i, j) - lse;
        loss += P(i, j) * (log_p(i, j) - log_s);
        G(i, j) = std::exp(log_s) * mass - P(i, j);
      }
    }
    Eigen::Map<Eigen::MatrixXd> gq(grad->data(), dp, d), gk(grad->data() + size, dp, d);
    gk.noalias() = scale * (B * G.transpose()) * Xt;
    gq.noalias() = scale * (A * G) * Xt;
    return loss;
  };
  LbfgsOptions lbfgs;
  lbfgs.max_iterations = options.max_iterations;
  lbfgs.history = 20;
  lbfgs.tolerance_grad = 1e-12;
  lbfgs.tolerance_change = 1e-15;

  // The random starts come from LibTorch's generator, so a seed starts where it always has.
  torch::manual_seed(options.seed);
  RepresentationResult best;
  best.max_abs_error = best.max_log_error = std::numeric_limits<double>::infinity();
  for (int restart = 0; restart < std::max(1, options.restarts); ++restart) {
    const Eigen::MatrixXd wq0 = to_eigen(torch::randn({dp, d}, torch::kFloat64) / std::sqrt(double(d)));
    const Eigen::MatrixXd wk0 = to_eigen(torch::randn({dp, d}, torch::kFloat64) / std::sqrt(double(d)));
    Eigen::VectorXd v(2 * size);
    Eigen::Map<Eigen::MatrixXd>(v.data(), dp, d) = wq0;
    Eigen::Map<Eigen::MatrixXd>(v.data() + size, dp, d) = wk0;
    const LbfgsResult run = minimize_lbfgs(objective, &v, lbfgs);
    RepresentationResult r;
    r.method = "fit";
    r.W_q = Eigen::Map<const Eigen::MatrixXd>(v.data(), dp, d);
    r.W_k = Eigen::Map<const Eigen::MatrixXd>(v.data() + size, dp, d);
    r.iterations = run.iterations;
    r = finish(std::move(r), X, P, mask);
    if (r.max_log_error < best.max_log_error) best = std::move(r);
  }
  return best;
}

RepresentationResult represent_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         AttentionMask mask, const FitOptions& options) {
  if (auto err = check_representation_inputs(X, P, d_p, mask)) throw std::invalid_argument(*err);
  const Eigen::Index n = X.cols();
  if (d_p >= n - 1) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
    if (qr.rank() == n) return construct_attention(X, P, d_p, mask);
  }
  return fit_attention(X, P, d_p, mask, options);
}

}  // namespace headroom::core
