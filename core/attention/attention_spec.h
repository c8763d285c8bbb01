// AttentionSpec: the shape of one attention layer, for every variant in the papers.
//
// Plain data, no torch: the GUI, the DB and the CLI pass specs around without LibTorch.
// Names follow the Talking-Heads paper's pseudo-code (TH §3-§6):
//   h_k  heads for queries and keys (the dot products J)
//   h    heads for logits and weights (the softmax)
//   h_v  heads for values
//   d_k  query/key size per head, d_v value size per head (LRB calls it the head size d_p)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::core {

enum class AttentionKind {
  MultiHead,        // LRB eq. 8 / TH §3.3: d_k = d_v = d_model / h, one head count
  FixedHead,        // LRB §3: head size d_p chosen freely, output projection d x (h*d_p)
  TalkingHeads,     // TH §4: P_l[h_k,h] on the logits, P_w[h,h_v] on the weights
  LogitsProj,       // TH §7.1.3: P_l only (h_v = h)
  WeightsProj,      // TH §7.1.3: P_w only (h_k = h)
  DynamicProj,      // TH appendix A: static P_l, P_w plus input-dependent terms
  GeneralBilinear,  // TH §6: P[d_X,d_M,h], Q[d_M,d_Y,h]
};

// Every kind, in the order the GUI lists them.
const std::vector<AttentionKind>& all_attention_kinds();
// The CLI / JSON name of a kind: "multi-head", "fixed-head", "talking-heads", "logits-proj",
// "weights-proj", "dynamic-proj", "general-bilinear".
const char* to_string(AttentionKind kind);
std::optional<AttentionKind> parse_attention_kind(std::string_view name);
// "multi-head, fixed-head, ..." for error messages.
std::string attention_kind_names();

// Which of the four dynamic projections of TH appendix A are on (a bit set).
enum DynamicTerm : unsigned {
  kDynamicXl = 1u << 0,  // P_Xl[d_X,h_k,h]: logits projection generated from the queries' inputs
  kDynamicMl = 1u << 1,  // P_Ml[d_M,h_k,h]: ... from the memory (keys' inputs)
  kDynamicXw = 1u << 2,  // P_Xw[d_X,h,h_v]: weights projection generated from the queries' inputs
  kDynamicMw = 1u << 3,  // P_Mw[d_M,h,h_v]
  kDynamicAll = 0xFu,
};

// Queries: what each kind has. Used by costs, the module and the GUI alike.
bool has_logits_projection(AttentionKind kind);    // P_l
bool has_weights_projection(AttentionKind kind);   // P_w
bool is_talking_heads_family(AttentionKind kind);  // separate h_k / h / h_v exist

// One self-attention layer: X = M, d_X = d_M = d_Y = d_model.
struct AttentionSpec {
  AttentionKind kind = AttentionKind::MultiHead;
  int d_model = 64;
  int heads_k = 4;  // h_k
  int heads = 4;    // h
  int heads_v = 4;  // h_v
  int d_k = 16;
  int d_v = 16;
  bool causal = false;
  unsigned dynamic_terms = kDynamicAll;  // only read for DynamicProj

  bool operator==(const AttentionSpec& o) const;
  bool operator!=(const AttentionSpec& o) const { return !(*this == o); }
};

// A field of a spec that is impossible, and what would work instead.
struct SpecProblem {
  std::string field;    // e.g. "heads", "d_k", "heads_v"
  std::string message;  // one sentence: what is wrong, which rule (paper section), what would work
};

// Every problem with the spec (empty = valid). Never throws.
std::vector<SpecProblem> validate(const AttentionSpec& spec);

// What a user may leave out; make_attention_spec fills the defaults each kind implies.
struct AttentionRequest {
  AttentionKind kind = AttentionKind::MultiHead;
  int d_model = 0;
  int heads = 0;
  std::optional<int> heads_k, heads_v, d_k, d_v;
  bool causal = false;
  unsigned dynamic_terms = kDynamicAll;
};

// Fills the defaults (h_k = h_v = h; d_k = d_v = d_model / h; general-bilinear: d_k = d_v =
// d_model) and validates. On failure returns std::nullopt and fills `problems`.
std::optional<AttentionSpec> make_attention_spec(const AttentionRequest& request, std::vector<SpecProblem>* problems);

// Throws std::invalid_argument with all problems joined, if the spec is invalid.
void require_valid(const AttentionSpec& spec);

// The scale multiplied into the raw dot products J before any head mixing. Headroom keeps it
// separate (TH folds it into P_q): 1/sqrt(d_k), and 1 for general-bilinear, whose P absorbs it.
double logit_scale(const AttentionSpec& spec);

// One-line human description, e.g. "talking-heads d=768 h_k=12 h=12 h_v=12 d_k=64 d_v=64".
std::string describe(const AttentionSpec& spec);

}  // namespace headroom::core
