#include "core/analysis/representation.h"

#include <Eigen/Dense>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/analysis/lbfgs.h"

namespace headroom::core {
namespace {

constexpr double kColumnSumTolerance = 1e-6;
// A construction below n - 1 is kept when it reaches P this closely (max |log reached - log P|):
// exact to rounding unless its block is nearly singular; a column of P may sum to 1 within
// kColumnSumTolerance only (a target that went through float), which the softmax cannot follow.
constexpr double kConstructionTolerance = 1e-5;
// Singular values above this x max(1, max |log-ratio|) count towards a pattern's least rank
// (minimal_head_size's default).
constexpr double kLeastRankRtol = 1e-9;

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

namespace {

// The least-rank logits of P (keys x queries, key 0's logits at 0), Woerdeman's minimal-rank
// completion built row by row (docs/causal_threshold.md, "The exact smallest head of any
// pattern"). D holds the log-ratios of keys 1..n-1; key i is given on the queries G_i (full: all of
// them; causal: i..n-1), and G_i only shrinks as i grows, so every earlier key is given wherever key
// i is. Key i either adds a dimension (its given log-ratios are no combination of the earlier keys'
// on G_i) or is completed as that combination on every query, which keeps the rank. The dimensions
// added are sum_i rank D[1..i, G_i] - rank D[1..i-1, G_i]: causal, exactly the blocks of Woerdeman's
// formula (the maximal given rectangles and their overlaps), full, a telescoping sum = rank D. So
// greedy completion reaches the least rank whatever combination it takes, and the rank it counts is
// the formula's, block for block. Full attention has nothing to complete and takes D's truncated
// SVD instead (one SVD rather than two per key).
struct LeastRankLogits {
  int rank = 0;          // the least rank; with stop_above, stop_above + 1 means "more than stop_above"
  Eigen::MatrixXd U, V;  // n x rank (factor only): logits U V^T, rows of U keys, rows of V queries
};

// factor: also build the logits (else count only). stop_above >= 0: stop as soon as the rank
// exceeds it (a head of that size cannot make P; the rest of the count is not needed).
LeastRankLogits least_rank_logits(const Eigen::MatrixXd& P, AttentionMask mask, double rtol, bool factor,
                                  int stop_above = -1) {
  const Eigen::Index n = P.rows();
  if (P.cols() != n) throw std::invalid_argument("minimal_head_size: P must be n x n");
  LeastRankLogits out;
  if (n < 2) {
    out.U = out.V = Eigen::MatrixXd::Zero(n, 0);
    return out;
  }
  const bool causal = mask == AttentionMask::Causal;
  // D: rows = keys 1..n-1, columns = queries; for causal P only j >= i is given (the rest stays 0
  // and is never read as data).
  const Eigen::Index m = n - 1;
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(m, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 1; i < (causal ? j + 1 : n); ++i) {
      if (!(P(i, j) > 0) || !(P(0, j) > 0) || !std::isfinite(P(i, j)) || !std::isfinite(P(0, j)))
        throw std::invalid_argument("minimal_head_size: P must be positive and finite where a query sees a key");
      D(i - 1, j) = std::log(P(i, j)) - std::log(P(0, j));
    }
  const double tol = rtol * std::max(1.0, D.cwiseAbs().maxCoeff());
  auto rank = [tol](const Eigen::MatrixXd& block) -> int {
    if (block.size() == 0) return 0;
    const Eigen::VectorXd sv = Eigen::BDCSVD<Eigen::MatrixXd>(block).singularValues();
    return static_cast<int>((sv.array() > tol).count());
  };
  if (!causal) {  // D is given everywhere: its rank, and its SVD truncated there (one SVD, not 2n)
    const Eigen::BDCSVD<Eigen::MatrixXd> svd(D, factor ? Eigen::ComputeThinU | Eigen::ComputeThinV : 0);
    const Eigen::VectorXd sv = svd.singularValues();
    out.rank = static_cast<int>((sv.array() > tol).count());
    if (factor) {
      out.U = Eigen::MatrixXd::Zero(n, out.rank);  // key 0's logits are 0
      out.U.bottomRows(m) = svd.matrixU().leftCols(out.rank) * sv.head(out.rank).asDiagonal();
      out.V = svd.matrixV().leftCols(out.rank);
    }
    return out;
  }
  // Factors: completed rows = C * B, the basis rows B (one per added dimension) and every key's
  // coefficients on them.
  Eigen::MatrixXd done, B, C;
  if (factor) {
    done = Eigen::MatrixXd::Zero(m, n);
    B = Eigen::MatrixXd::Zero(m, n);
    C = Eigen::MatrixXd::Zero(m, m);
  }
  for (Eigen::Index i = 1; i <= m; ++i) {
    const Eigen::Index q0 = i, w = n - q0;  // G_i = queries i..n-1
    // The earlier keys on G_i (all given there), as columns: their SVD gives both their rank and,
    // when key i adds nothing, the combination of them that makes it.
    Eigen::BDCSVD<Eigen::MatrixXd> earlier;
    int earlier_rank = 0;
    if (i > 1) {
      earlier.compute(D.block(0, q0, i - 1, w).transpose(), factor ? Eigen::ComputeThinU | Eigen::ComputeThinV : 0);
      earlier_rank = static_cast<int>((earlier.singularValues().array() > tol).count());
    }
    const bool adds = rank(D.block(0, q0, i, w)) > earlier_rank;
    if (adds && stop_above >= 0 && out.rank + 1 > stop_above) {
      out.rank = stop_above + 1;
      factor = false;  // no logits to build
      break;
    }
    if (!factor) {
      out.rank += adds;
      continue;
    }
    if (adds) {  // a new basis row: the given log-ratios, 0 on the queries that do not see key i
      B.row(out.rank).tail(w) = D.row(i - 1).tail(w);
      C(i - 1, out.rank) = 1;
      ++out.rank;
      done.row(i - 1) = B.row(out.rank - 1);
      continue;
    }
    if (i == 1) continue;  // key 1's log-ratios are 0 (to rounding): its row of zeros adds nothing
    // The least-norm combination of the earlier keys that gives key i on G_i, singular values at
    // or below tol dropped, as the rank test does.
    const auto& svd = earlier;
    const Eigen::VectorXd s = svd.singularValues();
    Eigen::VectorXd inv = Eigen::VectorXd::Zero(s.size());
    for (Eigen::Index k = 0; k < s.size(); ++k)
      if (s(k) > tol) inv(k) = 1 / s(k);
    const Eigen::VectorXd alpha =
        svd.matrixV() * inv.asDiagonal() * (svd.matrixU().transpose() * D.row(i - 1).tail(w).transpose());
    C.row(i - 1) = alpha.transpose() * C.topRows(i - 1);
    done.row(i - 1) = alpha.transpose() * done.topRows(i - 1);
  }
  if (factor) {
    out.U = Eigen::MatrixXd::Zero(n, out.rank);  // key 0's logits are 0
    out.U.bottomRows(m) = C.leftCols(out.rank);
    out.V = B.topRows(out.rank).transpose();
  }
  return out;
}

}  // namespace

int minimal_head_size(const Eigen::MatrixXd& P, AttentionMask mask, double rtol) {
  return least_rank_logits(P, mask, rtol, false).rank;
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
        << kColumnSumTolerance << "); divide each column by its sum (a CSV of 3 decimals rarely sums to 1 exactly)";
      return m.str();
    }
  }
  return std::nullopt;
}

namespace {

// X^+ = (X^T X)^{-1} X^T (n x d), so X^+ X = I_n; throws unless X has full column rank n.
Eigen::MatrixXd left_inverse(const Eigen::MatrixXd& X) {
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
  if (qr.rank() < X.cols()) throw std::invalid_argument("the construction needs X of full column rank n (LRB Thm 1)");
  return (X.transpose() * X).ldlt().solve(X.transpose());
}

// The logits' log-ratios D[i, j] = log P[i, j] - log P[0, j] on the keys query j sees, 0 elsewhere:
// the logits of P once each query's constant is chosen so that key 0's logit is 0 (LRB's
// D_0 = diag(1 / P[0, :])).
Eigen::MatrixXd log_ratios(const Eigen::MatrixXd& P, AttentionMask mask) {
  const Eigen::Index n = P.rows();
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 1; i < n; ++i)
      if (sees(mask, i, j)) D(i, j) = std::log(P(i, j)) - std::log(P(0, j));
  return D;
}

// Weights whose logits are A = U V^T (U: n x k, one row per key; V: n x k, one per query), k <= d_p:
// W~_k = [U^T; 0], W~_q = sqrt(d_p) [V^T; 0] (d_p x n), then W = W~ X^+ (LRB eq. 4), so that
// (W_k X)^T (W_q X) / sqrt(d_p) = W~_k^T W~_q / sqrt(d_p) = U V^T.
RepresentationResult weights_for_logits(const Eigen::MatrixXd& U, const Eigen::MatrixXd& V, int d_p,
                                        const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, AttentionMask mask) {
  const Eigen::MatrixXd X_pinv = left_inverse(X);
  const Eigen::Index n = X.cols(), k = U.cols();
  Eigen::MatrixXd Wk_t = Eigen::MatrixXd::Zero(d_p, n), Wq_t = Eigen::MatrixXd::Zero(d_p, n);
  Wk_t.topRows(k) = U.transpose();
  Wq_t.topRows(k) = std::sqrt(double(d_p)) * V.transpose();
  RepresentationResult r;
  r.method = "construction";
  r.construction_rank = static_cast<int>(k);
  r.W_k = Wk_t * X_pinv;
  r.W_q = Wq_t * X_pinv;
  return finish(std::move(r), X, P, mask);
}

// Any P at d_p >= n - 1: with key 0's logits at 0, the rest is D itself, of rank <= n - 1:
// U picks keys 1..n-1 (u_0 = 0, u_i = e_i), V holds their log-ratios.
RepresentationResult construct_rank_n_minus_1(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                              AttentionMask mask) {
  const Eigen::Index n = X.cols();
  const Eigen::MatrixXd D = log_ratios(P, mask);
  Eigen::MatrixXd U = Eigen::MatrixXd::Zero(n, n - 1);
  U.bottomRows(n - 1).setIdentity();
  const Eigen::MatrixXd V = D.bottomRows(n - 1).transpose();
  return weights_for_logits(U, V, d_p, X, P, mask);
}

// Below this reciprocal condition number (smallest / largest singular value) the block counts as
// singular: P is not generic.
constexpr double kGenericBlockRcond = 1e-12;

// Causal P at d_p >= r = floor(n/2), docs/causal_threshold.md ("Enough, by construction").
// With u_0 = 0, query j needs u_i . v_j = D[i, j] for the keys 1 <= i <= j. Keys 1..r get the unit
// vectors u_i = e_i, so each query's vector holds its own log-ratios: v_j[i] = D[i, j] for
// i <= min(j, r), 0 beyond (those keys are masked for it). A later key i > r is seen only by the
// queries i..n-1, all among the last r, C = n-r..n-1, whose vectors are the columns of the block
// B = D[1..r, C] (every query in C sees every key in 1..r); when B is invertible they are
// independent and u_i solves the at most r equations u_i . v_j = D[i, j], j = i..n-1 (r for odd n,
// r - 1 for even n: least-norm).
std::optional<RepresentationResult> construct_causal_half(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                                          std::string* refused) {
  const Eigen::Index n = X.cols(), r = n / 2;
  const Eigen::MatrixXd D = log_ratios(P, AttentionMask::Causal);
  const Eigen::MatrixXd B = D.block(1, n - r, r, r);
  const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(B).singularValues();
  const double rcond = sv(0) > 0 ? sv(r - 1) / sv(0) : 0;  // 1 / its condition number
  if (!(rcond > kGenericBlockRcond)) {
    std::ostringstream m;
    m << "this causal P is not generic: its log-ratios log(P[i,j] / P[0,j]) on keys 1.." << r << " and queries "
      << n - r << ".." << n - 1 << " (floor(n/2) = " << r << " of each) form a singular block (reciprocal condition "
      << rcond << "), so the construction at d_p = " << d_p << " < n - 1 = " << n - 1
      << " does not apply; patterns with ties, such as 'self against a uniform past', are like that. "
         "d_p >= n - 1 constructs every causal P";
    *refused = m.str();
    return std::nullopt;
  }
  Eigen::MatrixXd U = Eigen::MatrixXd::Zero(n, r), V = Eigen::MatrixXd::Zero(n, r);
  for (Eigen::Index i = 1; i <= r; ++i) U(i, i - 1) = 1;
  for (Eigen::Index j = 1; j < n; ++j)
    for (Eigen::Index i = 1; i <= std::min(j, r); ++i) V(j, i - 1) = D(i, j);
  for (Eigen::Index i = r + 1; i < n; ++i) {
    const Eigen::MatrixXd seen_by = V.middleRows(i, n - i);  // v_j^T, j = i..n-1: rows of B^T
    const Eigen::VectorXd wanted = D.row(i).segment(i, n - i).transpose();
    U.row(i) = seen_by.completeOrthogonalDecomposition().solve(wanted).transpose();
  }
  return weights_for_logits(U, V, d_p, X, P, AttentionMask::Causal);
}

}  // namespace

namespace {

// construct_attention without its input check; explain = false skips the work that only the
// refusal's message needs (the exact least rank of a pattern out of reach).
RepresentationResult construct_checked(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p, AttentionMask mask,
                                       bool explain) {
  const Eigen::Index n = X.cols();
  if (d_p >= n - 1) return construct_rank_n_minus_1(X, P, d_p, mask);
  const bool causal = mask == AttentionMask::Causal;
  std::string not_generic;
  if (causal && d_p >= n / 2)
    if (auto r = construct_causal_half(X, P, d_p, &not_generic)) return *r;
  // Below the thresholds, or a pattern with ties: its own least rank may still fit in d_p.
  const LeastRankLogits least = least_rank_logits(P, mask, kLeastRankRtol, true, d_p);
  if (least.rank <= d_p) {
    RepresentationResult r = weights_for_logits(least.U, least.V, d_p, X, P, mask);
    r.method = "least-rank construction";
    return r;
  }
  if (!explain) throw std::invalid_argument("below this pattern's least rank");
  std::ostringstream m;
  if (!not_generic.empty()) m << not_generic;
  else if (causal)
    m << "the construction needs d_p >= floor(n/2) for causal attention (almost every P; n - 1 for every P)";
  else m << "the construction needs d_p >= n - 1 (LRB Thm 1, with a constant per query)";
  m << "; this pattern's own smallest head is d_p = " << minimal_head_size(P, mask, kLeastRankRtol)
    << " (the least rank of its logits, minimal_head_size), above d_p = " << d_p
    << "; below it, fit (represent_attention)";
  throw std::invalid_argument(m.str());
}

}  // namespace

RepresentationResult construct_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         AttentionMask mask) {
  if (auto err = check_representation_inputs(X, P, d_p, mask)) throw std::invalid_argument(*err);
  return construct_checked(X, P, d_p, mask, true);
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

RepresentationResult approach_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                        double perturbation) {
  if (auto err = check_representation_inputs(X, P, d_p, AttentionMask::Causal)) throw std::invalid_argument(*err);
  const Eigen::Index n = X.cols();
  std::vector<double> sizes;
  if (perturbation > 0) sizes = {perturbation};
  else
    for (double e = 1e-2; e >= 1e-7; e /= 10) sizes.push_back(e);
  // One direction of noise for every size, from a fixed seed: the same P is approached the same
  // way every time.
  std::mt19937_64 rng(0x5eedULL + static_cast<std::uint64_t>(n));
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd noise = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i <= j; ++i) noise(i, j) = normal(rng);
  RepresentationResult best;
  best.max_log_error = std::numeric_limits<double>::infinity();
  std::string refused;
  for (const double eps : sizes) {
    // P mixed with noise of relative size eps on every entry a query sees, columns normalised
    // again: a generic pattern (with probability 1) within ~eps of P.
    Eigen::MatrixXd near = P.array() * (eps * noise).array().exp();
    for (Eigen::Index j = 0; j < n; ++j) near.col(j) /= near.col(j).sum();
    try {
      RepresentationResult r = construct_attention(X, near, d_p, AttentionMask::Causal);
      r = finish(std::move(r), X, P, AttentionMask::Causal);  // measured against P itself
      r.method = "perturbed construction";
      r.perturbation = eps;
      if (r.max_log_error < best.max_log_error) best = std::move(r);
    } catch (const std::invalid_argument& e) {
      refused = e.what();  // eps too small for the block to count as invertible
    }
  }
  if (!std::isfinite(best.max_log_error)) throw std::invalid_argument(refused);
  return best;
}

RepresentationResult represent_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         AttentionMask mask, const FitOptions& options) {
  if (auto err = check_representation_inputs(X, P, d_p, mask)) throw std::invalid_argument(*err);
  const Eigen::Index n = X.cols();
  if (Eigen::ColPivHouseholderQR<Eigen::MatrixXd>(X).rank() < n) return fit_attention(X, P, d_p, mask, options);
  try {
    // Exact to rounding; below n - 1 a nearly singular block or an ill-conditioned completion could
    // lose digits.
    RepresentationResult r = construct_checked(X, P, d_p, mask, false);
    if (d_p >= n - 1 || r.max_log_error < kConstructionTolerance) return r;
  } catch (const std::invalid_argument&) {
    // below this pattern's least rank
  }
  RepresentationResult fit = fit_attention(X, P, d_p, mask, options);
  if (mask != AttentionMask::Causal || d_p < n / 2) return fit;
  // Causal, floor(n/2) <= d_p below this P's least rank: the better of a nearby generic pattern's
  // construction and the fit.
  try {
    RepresentationResult near = approach_attention(X, P, d_p);
    if (near.max_log_error < fit.max_log_error) return near;
  } catch (const std::invalid_argument&) {}
  return fit;
}

}  // namespace headroom::core
