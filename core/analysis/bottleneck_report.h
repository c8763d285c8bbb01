// The papers' bottlenecks for a spec and a sequence length n, each with the section it comes
// from and one sentence a person can act on. Computed from the spec alone (no weights).
#pragma once

#include <string>
#include <vector>

#include "core/attention/attention_spec.h"
#include "core/model/model_spec.h"

namespace headroom::core {

struct Bottleneck {
  std::string id;       // stable key: "lrb-head-rank", "th-mixed-rank", "vb-attention-width", ...
  std::string paper;    // "LRB", "VB", "TH"
  std::string section;  // e.g. "§2.3, Thm 1"
  std::string message;  // one sentence with the numbers
};

// LRB §2.3 / Thm 1 (per-head logit rank below what reaches every pattern: n - 1 for full
// attention; for causal heads random patterns need floor(n/2) and every pattern n - 1, see
// docs/causal_threshold.md), TH (mixed logits reach rank min(d, h_k·d_k)), VB §4.2.3 (h·d_a > d).
std::vector<Bottleneck> attention_bottlenecks(const AttentionSpec& spec, int n);

// What the training data makes of the vocabulary: how many token ids occur in it (0 = unknown:
// all V) and what the data is ("KJV", "the synthetic tasks").
struct VocabularyUse {
  int symbols = 0;
  std::string data;
};

// The attention's, plus VB §2.1 / Thm 1 (embedding rank r < d), VB §5.2 (the tokens that occur
// < d), VB C.4 (positional rank).
std::vector<Bottleneck> model_bottlenecks(const ModelSpec& spec, int n, const VocabularyUse& use = {});

// The theoretical cap on the rank of one head's n x m logit matrix L in any layer:
// min(n, m, d, d_k) for per-head kinds, min(n, m, d, h_k·d_k) for mixed logits,
// min(n, m, 2 min(d, h_k·d_k)) for dynamic projections with the Ml term, min(n, m, d) for
// general-bilinear. (In the first layer the input's own rank caps it too: see head_analysis.h.)
int logit_rank_cap(const AttentionSpec& spec, int n, int m);

}  // namespace headroom::core
