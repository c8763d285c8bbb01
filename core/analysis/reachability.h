// Measuring LRB Theorem 1's threshold: which head sizes d_p reach which attention patterns, for
// full and causal attention (docs/causal_threshold.md). Targets are drawn here, fitted by
// representation.h, and summarised per (mask, n, d_p). Used by `headroom-worker represent
// --sweep`, the lab's Theorem 1 tab and the tests that pin the thresholds.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/analysis/representation.h"

namespace headroom::core {

enum class ThresholdTarget {
  Random,      // each query's weights uniform on the simplex of the keys it sees (Dirichlet(1))
  SelfVsPast,  // query j: weight 2/3 on itself, 1/3 spread evenly over keys 0..j-1 (causal's
               // hardest pattern: needs d_p = n - 1); full: 2/3 on itself, the rest uniform
};
const char* to_string(ThresholdTarget t);

// A positive (on the keys each query sees) column-stochastic n x n target.
Eigen::MatrixXd threshold_target(ThresholdTarget kind, int n, AttentionMask mask, uint64_t seed);
// X: d = 2n rows of N(0, 1): full column rank, so only the head size limits what is reachable.
Eigen::MatrixXd threshold_input(int n, uint64_t seed);

// How a target is reached (`represent --method`, and each target of a sweep). Auto:
// represent_attention (a construction where one applies, else the fit). Fit: the fit alone at
// every d_p, the measurement independent of the proofs. Construction: construct_attention alone,
// at the smallest d_p it allows (n - 1 full, floor(n/2) causal): the proof's construction checked
// on drawn targets, up to n = 256.
enum class ReachMethod { Auto, Fit, Construction };
const char* to_string(ReachMethod m);

// One target, reached the way `method` says (represent_attention, fit_attention or
// construct_attention; the last throws std::invalid_argument where no construction applies).
RepresentationResult reach_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p, AttentionMask mask,
                                     ReachMethod method, const FitOptions& fit = {});

struct ThresholdPoint {
  AttentionMask mask = AttentionMask::Full;
  ThresholdTarget target = ThresholdTarget::Random;
  int n = 0, d_p = 0;
  std::vector<double> errors;  // max |log reached - log P| per target (seed), in seed order
  int reached = 0;             // targets with error < kReachedTolerance
  double median_error = 0, worst_error = 0;
  double median_max_logit = 0;  // median over targets of the fit's largest |logit|
  double worst_max_logit = 0;   // and the largest
  int constructed = 0;          // targets reached by a construction, not a fit
};

// A target counts as reached when the best fit's max |log reached - log P| is below this (0.1%
// relative on every entry a query sees).
constexpr double kReachedTolerance = 1e-3;

struct ThresholdSweep {
  std::vector<AttentionMask> masks = {AttentionMask::Full, AttentionMask::Causal};
  ThresholdTarget target = ThresholdTarget::Random;
  int n_min = 4, n_max = 12;
  int targets = 10;       // random targets (seeds) per (mask, n); SelfVsPast has one target
  int n_step = 1;         // n = n_min, n_min + n_step, ... <= n_max
  int d_p_max_extra = 0;  // d_p runs 1 .. n - 1 + this (Construction: the one smallest d_p)
  ReachMethod method = ReachMethod::Auto;
  uint64_t seed = 0;
  FitOptions fit;
};

// One point per (mask, n, d_p), in that order. progress (optional) is called after each point.
// Construction: a target the construction refuses (not generic) counts as not reached, error +inf.
std::vector<ThresholdPoint> sweep_threshold(const ThresholdSweep& sweep,
                                            const std::function<void(const ThresholdPoint&)>& progress = {});

// The smallest d_p at which every target of (mask, n) was reached, or -1 if none in the sweep.
int measured_threshold(const std::vector<ThresholdPoint>& points, AttentionMask mask, int n);

}  // namespace headroom::core
