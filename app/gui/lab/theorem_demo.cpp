#include "app/gui/lab/theorem_demo.h"

#include <Eigen/Dense>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <thread>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "app/gui/lab/lab_profile.h"
#include "app/gui/mailbox.h"
#include "app/gui/thread_priority.h"
#include "core/analysis/reachability.h"
#include "core/analysis/representation.h"

namespace headroom::gui {
namespace {

// Hard patterns are smoothed towards uniform: Theorem 1 needs every entry positive. A head's map
// is a softmax already (positive but for float underflow), so it is barely touched.
constexpr double kSmoothing = 0.05;
constexpr double kHeadMapSmoothing = 1e-3;

Eigen::MatrixXd to_eigen(const Matrix& m) {
  Eigen::MatrixXd e(m.rows, m.cols);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) e(i, j) = m.v[size_t(i) * m.cols + j];
  return e;
}

Matrix to_matrix(const Eigen::MatrixXd& e) {
  Matrix m;
  m.rows = static_cast<int>(e.rows());
  m.cols = static_cast<int>(e.cols());
  m.v.resize(size_t(m.rows) * m.cols);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) m.v[size_t(i) * m.cols + j] = static_cast<float>(e(i, j));
  return m;
}

}  // namespace

Matrix make_target(const TheoremRequest& r) {
  const int n = r.n;
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);  // column j: query j's distribution over keys
  switch (r.pattern) {
    case TargetPattern::Identity: P.setIdentity(); break;
    case TargetPattern::PreviousToken:
      for (int j = 0; j < n; ++j) P(std::max(0, j - 1), j) = 1;
      break;
    case TargetPattern::Uniform: P.setConstant(1.0 / n); break;
    case TargetPattern::FirstToken: P.row(0).setOnes(); break;  // an "attention sink"
    case TargetPattern::RandomStochastic: {
      std::mt19937_64 rng(r.seed + 1);
      std::exponential_distribution<double> E(1.0);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) P(i, j) = std::pow(E(rng), 2.0) + 1e-3;  // peaky, all positive
      break;
    }
    case TargetPattern::SelfVsPast:
      // 2/3 on itself, 1/3 over the other keys (causal: the past): needs d_p = n - 1 either way.
      return to_matrix(core::threshold_target(core::ThresholdTarget::SelfVsPast, n,
                                              r.causal ? core::AttentionMask::Causal : core::AttentionMask::Full, 0));
    case TargetPattern::HeadMap:
      if (r.head_map.rows == n && r.head_map.cols == n)
        for (int q = 0; q < n; ++q)
          for (int k = 0; k < n; ++k) P(k, q) = std::max(0.0f, r.head_map.v[size_t(q) * n + k]);
      else P.setConstant(1.0 / n);
      break;
  }
  // Smoothed over the keys each query sees; causal: the future stays exactly 0.
  const double smoothing = r.pattern == TargetPattern::HeadMap ? kHeadMapSmoothing : kSmoothing;
  for (int j = 0; j < n; ++j) {
    const int seen = r.causal ? j + 1 : n;
    P.col(j).tail(n - seen).setZero();
    if (P.col(j).head(seen).sum() <= 0) P.col(j).head(seen).setConstant(1.0);
    P.col(j).head(seen) /= P.col(j).head(seen).sum();
    P.col(j).head(seen) = (1 - smoothing) * P.col(j).head(seen).array() + smoothing / seen;
  }
  return to_matrix(P);
}

struct TheoremDemo::Impl {
  Mailbox<TheoremRequest, TheoremSnapshot> box;
  // error vs d_p for the current (pattern, n, seed, map): reused while only d_p moves
  std::string curve_key;
  std::map<int, core::RepresentationResult> results;
  int minimal = -1;    // the current target's exact smallest head (core::minimal_head_size); -1: not yet
  std::thread thread;  // last: it starts once every member above exists

  Impl() : thread([this] { loop(); }) {}
  ~Impl() {
    box.close();
    thread.join();
  }

  bool superseded() const { return box.superseded(); }
  void publish(const TheoremSnapshot& s) { box.publish(std::make_shared<const TheoremSnapshot>(s)); }

  const core::RepresentationResult& result_for(int dp, const Eigen::MatrixXd& X, const Eigen::MatrixXd& P,
                                               core::AttentionMask mask) {
    auto it = results.find(dp);
    if (it != results.end()) return it->second;
    core::FitOptions fit;
    fit.max_iterations = 150;
    fit.restarts = 2;
    return results.emplace(dp, core::represent_attention(X, P, dp, mask, fit)).first->second;
  }

  void loop() {
    // Below the UI thread, like the lab engine: fits wait for frames, never the other way round.
    lower_this_thread_priority(10);
#ifdef _OPENMP
    // Eigen's products here are small (n <= 128): on one thread. An OpenMP team of its own spun at
    // its barriers beside the lab engine and the software renderer on 2 cores, and a 2 ms answer
    // (n = 54, d_p = 27) took 19-121 ms in the lesson bench.
    omp_set_num_threads(1);
#endif
    std::optional<Mailbox<TheoremRequest, TheoremSnapshot>::Taken> taken;
    while (box.wait(&taken)) {
      if (!taken) continue;
      const TheoremRequest& req = taken->request;
      const uint64_t id = taken->id;
      TheoremSnapshot s;
      s.request_id = id;
      s.n = req.n;
      s.d_p = req.d_p;
      s.d = 2 * req.n;
      s.causal = req.causal;
      const auto mask = req.causal ? core::AttentionMask::Causal : core::AttentionMask::Full;
      const auto thresholds = core::reachability_thresholds(req.n, mask);
      s.every_pattern_threshold = thresholds.every_pattern;
      s.generic_threshold = thresholds.generic;
      if (req.n < 2 || req.n > kTheoremMaxN || req.d_p < 1 || req.d_p > kTheoremMaxHeadSize) {
        s.error = "n = " + std::to_string(req.n) + " tokens and d_p = " + std::to_string(req.d_p) +
                  ": the Theorem 1 tab takes n from 2 to " + std::to_string(kTheoremMaxN) + " and d_p from 1 to " +
                  std::to_string(kTheoremMaxHeadSize) +
                  (req.pattern == TargetPattern::HeadMap ? " (a head's map has as many tokens as the input: shorten it)"
                                                         : "");
        publish(s);
        continue;
      }
      try {
        const Matrix target = make_target(req);
        // The target went through float: its columns sum to 1 within ~1e-7, which no softmax
        // follows. Normalised again in double, an exact construction shows errors of ~1e-16.
        Eigen::MatrixXd P = to_eigen(target);
        for (Eigen::Index j = 0; j < P.cols(); ++j) P.col(j) /= P.col(j).sum();
        const Eigen::MatrixXd X = core::threshold_input(req.n, req.seed);
        std::string key = std::to_string(int(req.pattern)) + "/" + std::to_string(req.n) + "/" +
                          std::to_string(req.seed) + (req.causal ? "/causal" : "/full");
        if (req.pattern == TargetPattern::HeadMap)
          for (float v : req.head_map.v) key += "," + std::to_string(v);
        if (key != curve_key) {
          curve_key = key;
          results.clear();
          minimal = -1;
        }
        s.minimal_head_size = minimal;
        const auto tp0 = std::chrono::steady_clock::now();
        const auto& r = result_for(req.d_p, X, P, mask);
        const auto tp1 = std::chrono::steady_clock::now();
        s.target = to_matrix(P.transpose());
        s.reached = to_matrix(r.reached.transpose());
        s.difference = to_matrix((r.reached - P).transpose());
        s.max_abs_error = r.max_abs_error;
        s.method = r.method;
        s.construction_rank = r.construction_rank;
        s.perturbation = r.perturbation;
        s.max_logit = r.max_logit;
        s.ready = true;
        const int top = req.n + 2;
        auto fill_curve = [&] {
          s.curve_dp.clear();
          s.curve_error.clear();
          for (const auto& [dp, res] : results)
            if (dp <= top) s.curve_dp.push_back(float(dp)), s.curve_error.push_back(float(res.max_abs_error));
        };
        fill_curve();
        publish(s);
        // The answer first (what a step or a slider waits for), then this pattern's least rank:
        // ~2n SVDs, 11 ms at n = 54, several times that on a loaded machine.
        if (minimal < 0) {
          minimal = core::minimal_head_size(P, mask);
          s.minimal_head_size = minimal;
          publish(s);
        }
        lab_profile("theorem n=%d: answer %.1f ms, least rank %.1f ms after it\n", req.n, ms_between(tp0, tp1),
                    ms_since(tp1));
        // Every head size up to n = 16; beyond, ~16 evenly spaced ones plus those where something
        // changes (each threshold, this pattern's least rank, one below each), so that a long
        // sentence's curve (n = 54: 26 fits below floor(n/2), ~15 s here) fills in within seconds.
        const int step = std::max(1, (top + 15) / 16);
        auto on_curve = [&](int dp) {
          for (int mark : {s.generic_threshold, s.every_pattern_threshold, minimal, req.d_p})
            if (dp == mark || dp == mark - 1) return true;
          return (dp - 1) % step == 0 || dp == top;
        };
        for (int dp = 1; dp <= top; ++dp) {
          if (superseded()) break;
          if (results.count(dp) || !on_curve(dp)) continue;
          result_for(dp, X, P, mask);
          fill_curve();
          publish(s);
        }
        s.curve_complete = !superseded();
        fill_curve();
        publish(s);
      } catch (const std::exception& e) {
        s.error = e.what();
        publish(s);
      }
    }
  }
};

TheoremDemo::TheoremDemo() : impl_(std::make_unique<Impl>()) {}
TheoremDemo::~TheoremDemo() = default;

uint64_t TheoremDemo::post(const TheoremRequest& r) { return impl_->box.post(r); }

std::shared_ptr<const TheoremSnapshot> TheoremDemo::snapshot() const { return impl_->box.snapshot(); }

}  // namespace headroom::gui
