// LRB Theorem 1 (representation): for head size d_p >= n, any full-column-rank X (d x n, tokens
// are columns) and any positive column-stochastic P (n x n) there are W_q, W_k (d_p x d) with
//     Softmax_columns( (W_k X)^T (W_q X) / sqrt(d_p) ) = P.
// The proof is constructive (LRB eqs. 4-7); this file builds it in float64. For d_p < n (or a
// rank-deficient X) no such W_q, W_k need exist, and we fit the best attempt instead.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <optional>
#include <string>

namespace headroom::core {

struct RepresentationResult {
  std::string method;       // "construction" (LRB eqs. 4-7) or "fit" (LibTorch, float64)
  Eigen::MatrixXd W_q, W_k; // d_p x d
  Eigen::MatrixXd reached;  // n x n: the column softmax the weights produce
  double max_abs_error = 0; // max |reached - P|
  int iterations = 0;       // optimiser iterations (fit only)
};

struct FitOptions {
  int max_iterations = 400;   // L-BFGS iterations per restart
  int restarts = 3;           // best of several random starts
  uint64_t seed = 0;
};

// Column-wise softmax (LRB: each column is one query's distribution over keys).
Eigen::MatrixXd column_softmax(const Eigen::MatrixXd& logits);

// A clear message if X, P, d_p cannot be used (shapes, non-finite values, P not positive or its
// columns not summing to 1 within 1e-6, d_p < 1); std::nullopt when they are fine.
std::optional<std::string> check_representation_inputs(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p);

// Throws std::invalid_argument with check_representation_inputs' message on bad input.
// Uses the construction when d_p >= n and rank(X) = n, else fits.
RepresentationResult represent_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         const FitOptions& options = {});

// The construction alone (LRB eqs. 4-7 with D_0 = I). Requires d_p >= n and rank(X) = n.
RepresentationResult construct_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p);

// The fit alone: minimises sum_j KL(P_:j || Softmax_:j) over W_q, W_k in float64.
RepresentationResult fit_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                   const FitOptions& options = {});

}  // namespace headroom::core
