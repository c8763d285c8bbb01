// What Headroom's analysis says about each head of a real checkpoint on one text (issue 16): the
// numerical rank of every head's n x n logit matrix, its cap, the deficit, the top of its spectrum,
// a histogram of ranks per layer, and the papers' bottlenecks for the model's shape. Plain data
// (torch-free), filled by analyze_heads (hf_heads.cpp) from an HfModel's trace; what `headroom-worker
// inspect --model` prints and the lab draws.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/bottleneck_report.h"
#include "core/hf/hf_config.h"
#include "core/analysis/head_roles.h"
#include "core/model/model_spec.h"

namespace headroom::core {

struct HfHeadStats {
  int head = 0;
  int kv_group = 0;                         // the key/value head it reads (grouped-query attention); = head without GQA
  int rank = 0;                             // numerical rank of the head's n x n logits (numpy's float32 tolerance)
  int cap = 0;                              // min(n, d_k): no head can exceed it, whatever its weights
  int deficit = 0;                          // n - rank: how far below a full-rank n x n logit matrix it is
  std::vector<double> top_singular_values;  // descending, at most 8
  HeadRole role;                            // what its weights W mostly do on this input (head_role)
};

struct HfLayerStats {
  int layer = 0;
  int input_rank = 0;                 // numerical rank of the attention's n x d input
  std::vector<HfHeadStats> heads;     // in head order
  std::map<int, int> rank_histogram;  // rank -> number of heads
};

struct HfHeadReport {
  std::string family;  // "GPT-2", "BERT", "Llama"
  std::string model_type;
  int n = 0, d_model = 0, heads = 0, kv_heads = 0, d_k = 0, layers = 0;
  bool causal = false, rotary = false;
  // causal: floor(n/2), the rank from which causal heads reach almost every pattern; else n - 1
  // (LRB Thm 1). docs/causal_threshold.md.
  int threshold = 0;
  std::vector<HfLayerStats> layers_stats;
  std::vector<Bottleneck> bottlenecks;  // attention_bottlenecks for this shape at n
  std::vector<std::string> notes;       // what the analysis can and cannot claim (rotary heads)
};

class HfModel;
struct HfTrace;

// The checkpoint's shape as Headroom's multi-head ModelSpec (width, depth, context, heads of d_k,
// causal or not): what the bottleneck rules and the lab's panels read. Grouped key/value heads and
// rotary positions are not part of it (they do not change a head's logit rank cap).
ModelSpec model_spec_of(const hf::HfConfig& config);
// The papers' bottlenecks for the model's attention shape at n tokens (attention_bottlenecks of the
// equivalent multi-head spec: grouped key/value heads do not change a head's logit rank cap).
std::vector<Bottleneck> model_shape_bottlenecks(const HfModel& model, int n);
// What the analysis can and cannot claim for this model's heads (rotary heads, grouped heads, biases).
std::vector<std::string> head_analysis_notes(const HfModel& model);

// The report for batch element 0 of `trace`, a forward of `model` with a trace. Spectra come from
// the trace's factors (factored_spectra: exact, and cheap while d_k < n).
HfHeadReport analyze_heads(const HfModel& model, const HfTrace& trace);

}  // namespace headroom::core
