// LRB Theorem 1, live: pick a target attention pattern, full or causal, a head size d_p and n; the
// demo builds W_q, W_k that reach it (construction when d_p >= n - 1, best fit below) and the
// error-vs-d_p curve with the two thresholds (docs/causal_threshold.md).
// Runs on its own thread (fits take tens of milliseconds each); the latest request wins.
#pragma once

#include <memory>

#include "app/gui/lab/lab_types.h"

namespace headroom::gui {

enum class TargetPattern { Identity, PreviousToken, Uniform, RandomStochastic, HeadMap, SelfVsPast, FirstToken };
const char* to_string(TargetPattern p);

struct TheoremRequest {
  TargetPattern pattern = TargetPattern::RandomStochastic;
  int n = 8;
  int d_p = 4;
  bool causal = false;  // query j sees keys 0..j (what the suites train)
  uint64_t seed = 0;
  Matrix head_map;  // for HeadMap: an n x n map, rows = queries (as the lab draws it)
};

// What the tab computes: constructions are instant at any such size; the error-vs-d_p curve fits
// every head size below the constructions' (about 0.5 s a fit at n = 128, in the background).
inline constexpr int kTheoremMaxN = 128;  // the lab's longest context
inline constexpr int kTheoremMaxHeadSize = 256;

struct TheoremSnapshot {
  uint64_t request_id = 0;
  bool ready = false;
  int n = 0, d_p = 0, d = 0;
  bool causal = false;
  int every_pattern_threshold = 0;  // d_p from which every target is reachable (n - 1)
  int generic_threshold = 0;        // d_p from which random targets are (n - 1 full, floor(n/2) causal)
  int minimal_head_size = -1;       // d_p from which this target is reached exactly (core::minimal_head_size);
                                    // -1 in the first answer, known in the next snapshot
  // All n x n, rows = queries (LRB's P transposed, so they read like the lab's maps).
  Matrix target, reached, difference;
  double max_abs_error = 0;
  std::string method;                        // "construction" or "fit"
  int construction_rank = 0;                 // the constructed logits' rank (n - 1, or floor(n/2) causal)
  double perturbation = 0;                   // "perturbed construction": the noise's relative size
  double max_logit = 0;                      // the largest |logit| the weights make
  std::vector<float> curve_dp, curve_error;  // error vs head size, filled in progressively
  bool curve_complete = false;
  std::string error;  // a bad request, explained
};

// Builds the LRB-convention target P (n x n, columns = queries, column-stochastic, positive on the
// keys each query sees; causal: column j on rows 0..j, 0 below).
Matrix make_target(const TheoremRequest& request);

class TheoremDemo {
 public:
  TheoremDemo();
  ~TheoremDemo();
  uint64_t post(const TheoremRequest& request);
  std::shared_ptr<const TheoremSnapshot> snapshot() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace headroom::gui
