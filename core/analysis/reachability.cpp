#include "core/analysis/reachability.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace headroom::core {

const char* to_string(ThresholdTarget t) { return t == ThresholdTarget::SelfVsPast ? "self-vs-past" : "random"; }

const char* to_string(ReachMethod m) {
  switch (m) {
    case ReachMethod::Fit: return "fit";
    case ReachMethod::Construction: return "construction";
    case ReachMethod::Auto: break;
  }
  return "auto";
}

Eigen::MatrixXd threshold_target(ThresholdTarget kind, int n, AttentionMask mask, uint64_t seed) {
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);  // column j: query j's distribution over keys
  std::mt19937_64 rng(seed * 1000003 + uint64_t(n) * 7 + (mask == AttentionMask::Causal ? 1 : 0));
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int j = 0; j < n; ++j) {
    const int seen = mask == AttentionMask::Causal ? j + 1 : n;
    for (int i = 0; i < seen; ++i) {
      if (kind == ThresholdTarget::Random) {
        P(i, j) = -std::log(1.0 - U(rng));  // exponential(1): P's columns uniform on the simplex
      } else {
        P(i, j) = i == j ? 2.0 * (seen - 1) : 1.0;  // 2/3 on itself, 1/3 spread over the others
      }
    }
    if (seen == 1) P(0, j) = 1;
    P.col(j) /= P.col(j).sum();
  }
  return P;
}

Eigen::MatrixXd threshold_input(int n, uint64_t seed) {
  std::mt19937_64 rng(seed * 7919 + 17);
  std::normal_distribution<double> N(0, 1);
  Eigen::MatrixXd X(2 * n, n);
  for (int i = 0; i < X.rows(); ++i)
    for (int j = 0; j < n; ++j) X(i, j) = N(rng);
  return X;
}

RepresentationResult reach_attention(const Eigen::MatrixXd& X, const Eigen::MatrixXd& P, int d_p, AttentionMask mask,
                                     ReachMethod method, const FitOptions& fit) {
  switch (method) {
    case ReachMethod::Fit: return fit_attention(X, P, d_p, mask, fit);
    case ReachMethod::Construction: return construct_attention(X, P, d_p, mask);
    case ReachMethod::Auto: break;
  }
  return represent_attention(X, P, d_p, mask, fit);
}

std::vector<ThresholdPoint> sweep_threshold(const ThresholdSweep& s,
                                            const std::function<void(const ThresholdPoint&)>& progress) {
  std::vector<ThresholdPoint> out;
  const int targets = s.target == ThresholdTarget::SelfVsPast ? 1 : std::max(1, s.targets);
  for (AttentionMask mask : s.masks) {
    for (int n = std::max(2, s.n_min); n <= s.n_max; n += std::max(1, s.n_step)) {
      const int first_dp =
          s.method == ReachMethod::Construction ? std::max(1, reachability_thresholds(n, mask).generic) : 1;
      const int last_dp = s.method == ReachMethod::Construction ? first_dp : n - 1 + s.d_p_max_extra;
      for (int dp = first_dp; dp <= last_dp; ++dp) {
        ThresholdPoint p;
        p.mask = mask;
        p.target = s.target;
        p.n = n;
        p.d_p = dp;
        std::vector<double> logits;
        for (int t = 0; t < targets; ++t) {
          const uint64_t seed = s.seed + uint64_t(t);
          FitOptions fit = s.fit;
          fit.seed = seed;
          const Eigen::MatrixXd X = threshold_input(n, seed), P = threshold_target(s.target, n, mask, seed);
          RepresentationResult r;
          try {
            r = reach_attention(X, P, dp, mask, s.method, fit);
          } catch (const std::invalid_argument&) {  // Construction, P not generic: not reached
            r.max_log_error = r.max_logit = std::numeric_limits<double>::infinity();
          }
          p.errors.push_back(r.max_log_error);
          logits.push_back(r.max_logit);
          if (r.max_log_error < kReachedTolerance) ++p.reached;
          if (r.method == "construction") ++p.constructed;
        }
        std::vector<double> sorted = p.errors;
        std::sort(sorted.begin(), sorted.end());
        p.median_error = sorted[sorted.size() / 2];
        p.worst_error = sorted.back();
        std::sort(logits.begin(), logits.end());
        p.median_max_logit = logits[logits.size() / 2];
        p.worst_max_logit = logits.back();
        if (progress) progress(p);
        out.push_back(std::move(p));
      }
    }
  }
  return out;
}

int measured_threshold(const std::vector<ThresholdPoint>& points, AttentionMask mask, int n) {
  // The smallest d_p from which every larger d_p in the sweep reached every target too.
  int best = -1;
  for (auto it = points.rbegin(); it != points.rend(); ++it) {
    if (it->mask != mask || it->n != n) continue;
    if (it->reached != int(it->errors.size())) break;
    best = it->d_p;
  }
  return best;
}

}  // namespace headroom::core
