// LRB Theorem 1 (representation): for head size d_p >= n, any full-column-rank X (d x n, tokens
// are columns) and any positive column-stochastic P (n x n) there are W_q, W_k (d_p x d) with
//     Softmax_columns( (W_k X)^T (W_q X) / sqrt(d_p) ) = P.
// The proof is constructive (LRB eqs. 4-7); this file builds it in float64, one row smaller
// (d_p >= n - 1: softmax ignores a constant per query, so one row of the logits is free). For
// smaller heads (or a rank-deficient X) no such W_q, W_k need exist, and we fit the best attempt.
//
// Causal attention (every suite trains a causal LM) is a different question: query j sees keys
// 0..j only, so P is upper triangular in this orientation (column j supported on rows 0..j) and
// the logits below that support are free. docs/causal_threshold.md proves and measures:
//   - full attention: every positive P is reachable iff d_p >= n - 1; a random P needs n - 1.
//   - causal attention: every causal P is reachable exactly iff d_p >= n - 1 too (the pattern
//     "self against a uniform past" needs n - 1), but almost every causal P is reachable iff
//     d_p >= floor(n / 2), and every one to any precision from there (with growing weights).
//     So the causal bottleneck starts at n / 2. Both thresholds are constructive: this file
//     builds the weights at n - 1 (every P) and at floor(n/2) (causal P whose block of log-ratios
//     is invertible: almost every one).
//   - each pattern's own smallest head (minimal_head_size: ties move it both ways), constructive too.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <optional>
#include <string>

namespace headroom::core {

// Which keys a query sees: all of them, or keys 0..j for query j (LRB's P has queries as
// columns, so a causal P is upper triangular and its logits below the diagonal are masked).
enum class AttentionMask { Full, Causal };
const char* to_string(AttentionMask mask);

struct RepresentationResult {
  std::string method;         // "construction" (LRB eqs. 4-7; causal floor(n/2)), "least-rank construction",
                              // "perturbed construction" or "fit" (L-BFGS in float64, lbfgs.h)
  Eigen::MatrixXd W_q, W_k;   // d_p x d
  Eigen::MatrixXd reached;    // n x n: the (masked) column softmax the weights produce
  double max_abs_error = 0;   // max |reached - P| over the entries a query sees
  double max_log_error = 0;   // max |log reached - log P| over the same: relative, fair to small entries
  double max_logit = 0;       // max |logit| over all n x n entries, seen or masked: how far the weights went
  int iterations = 0;         // optimiser iterations (fit only)
  int construction_rank = 0;  // the constructed logits' rank: n - 1, floor(n/2) (causal) or P's least; 0 for a fit
  double perturbation = 0;    // "perturbed construction": the relative size of the noise P was mixed with
};

struct FitOptions {
  int max_iterations = 400;  // L-BFGS iterations per restart
  int restarts = 3;          // best of several random starts
  uint64_t seed = 0;
};

// The head sizes at which attention patterns become reachable for n tokens (X of rank n).
struct ReachabilityThresholds {
  int every_pattern = 0;  // d_p >= this reaches every positive (causal) P: n - 1 for both masks
  int generic = 0;        // d_p >= this reaches almost every P (exactly; causal: every P to any
                          // precision): n - 1 full, floor(n / 2) causal; below it almost none, even
                          // approximately
};
ReachabilityThresholds reachability_thresholds(int n, AttentionMask mask);

// The smallest head size whose logits make this P exactly (X of rank n, d >= n): the least rank of
// a logit matrix with P's masked column softmax. With D[i, j] = log P[i, j] - log P[0, j], the
// log-ratios of keys 1..n-1 (one free constant per query removes key 0):
//   full:   rank D (keys 1..n-1 x every query): n - 1 for almost every P;
//   causal: D is given only on the triangle 1 <= i <= j <= n - 1 and free elsewhere, and the least
//           rank of its completions is Woerdeman's formula (docs/causal_threshold.md, "The exact
//           smallest head of any pattern"): sum over k = 1..n-1 of rank D[1..k, k..n-1] minus sum over
//           k = 1..n-2 of rank D[1..k, k+1..n-1]. floor(n/2) for almost every P; n - 1 for a token
//           against a uniform past (identity mixed with uniform is one); n - 2 for the previous
//           token against a uniform rest; 1 for the first token against a uniform rest; 0 for
//           uniform.
// Ranks are numerical: singular values above rtol x max(1, max |D|). P must be positive where a
// query sees a key (check_representation_inputs); throws std::invalid_argument otherwise.
int minimal_head_size(const Eigen::MatrixXd& P, AttentionMask mask, double rtol = 1e-9);

// Column-wise softmax (LRB: each column is one query's distribution over keys). Causal: column j
// over rows 0..j, the rest exactly 0.
Eigen::MatrixXd column_softmax(const Eigen::MatrixXd& logits, AttentionMask mask = AttentionMask::Full);

// A clear message if X, P, d_p cannot be used (shapes, non-finite values, P not positive where a
// query sees a key, not 0 where it does not (causal), columns not summing to 1 within 1e-6,
// d_p < 1); std::nullopt when they are fine.
std::optional<std::string> check_representation_inputs(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                                       AttentionMask mask = AttentionMask::Full);

// Throws std::invalid_argument with check_representation_inputs' message on bad input.
// Uses a construction (construct_attention) when rank(X) = n and one applies: d_p >= n - 1, or
// (causal) d_p >= floor(n/2) with P generic, or d_p >= P's own least rank; for a causal P below its
// least rank but d_p >= floor(n/2), the better of approach_attention and the fit; else fits.
RepresentationResult represent_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         AttentionMask mask = AttentionMask::Full, const FitOptions& options = {});

// A construction alone; requires rank(X) = n. d_p >= n - 1: LRB eqs. 4-7 with the column
// constants chosen so that the first key's logits are 0 (D_0 = diag(1 / P[0, :])), which leaves a
// rank n - 1 logit matrix; every P. Causal, floor(n/2) <= d_p < n - 1: logits of rank floor(n/2)
// (docs/causal_threshold.md, "Enough, by construction"), for every causal P whose log-ratios
// log(P[i,j] / P[0,j]) on keys 1..floor(n/2) and the last floor(n/2) queries form an invertible
// block: almost every P. Otherwise, wherever d_p >= minimal_head_size(P): method "least-rank
// construction", logits of exactly that rank (Woerdeman's minimal-rank completion built key by
// key: docs/causal_threshold.md, "The exact smallest head of any pattern"), so a pattern whose ties
// lower its least rank (previous token, first token, full or causal) is made exactly below the
// thresholds. Throws std::invalid_argument saying which condition fails and the pattern's least rank.
RepresentationResult construct_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                         AttentionMask mask = AttentionMask::Full);

// Causal, floor(n/2) <= d_p < n - 1, any P (one with ties too): the construction for a nearby
// generic pattern, P's entries times exp(eps z) with z ~ N(0, 1) (a fixed seed), measured
// against P itself (method "perturbed construction"). Every causal P is reached to any precision
// this way (docs/causal_threshold.md), at the price of logits that grow as eps shrinks. perturbation
// > 0: that eps; 0: the best of 1e-2 .. 1e-7 (rounding grows with the logits). Throws
// std::invalid_argument when no eps gives an invertible block or d_p is out of that range.
RepresentationResult approach_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                        double perturbation = 0);

// The fit alone: minimises sum_j KL(P_:j || Softmax_:j) over W_q, W_k in float64.
RepresentationResult fit_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p,
                                   AttentionMask mask = AttentionMask::Full, const FitOptions& options = {});

}  // namespace headroom::core
