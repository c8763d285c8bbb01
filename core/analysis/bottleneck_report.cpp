#include "core/analysis/bottleneck_report.h"

#include <algorithm>

namespace headroom::core {
namespace {
std::string s(int64_t v) { return std::to_string(v); }
}  // namespace

int logit_rank_cap(const AttentionSpec& spec, int n, int m) {
  const int nm = std::min(n, m);
  switch (spec.kind) {
    case AttentionKind::GeneralBilinear:
      return std::min(nm, spec.d_model);
    case AttentionKind::TalkingHeads:
    case AttentionKind::LogitsProj:
      // L_h = sum_k P_l[k,h] J_k: a sum of h_k matrices of rank <= d_k.
      return std::min<int64_t>(nm, int64_t(spec.heads_k) * spec.d_k);
    case AttentionKind::DynamicProj:
      // TH app. A: L_h = sum_k diag(P_l[k,h] + R_Xl[:,k,h]) J_k + J_k diag(R_Ml[:,k,h]), so each
      // key head contributes rank <= 2*d_k (only the Ml term adds the second d_k).
      return std::min<int64_t>(nm, int64_t(spec.heads_k) * spec.d_k * ((spec.dynamic_terms & kDynamicMl) ? 2 : 1));
    default:
      return std::min(nm, spec.d_k);
  }
}

std::vector<Bottleneck> attention_bottlenecks(const AttentionSpec& a, int n) {
  std::vector<Bottleneck> out;
  if (validate(a).size() || n < 1) return out;

  if (a.kind == AttentionKind::GeneralBilinear) {
    if (a.d_model < n)
      out.push_back({"lrb-head-rank", "LRB", "§2.3, Thm 1",
                     "each head's logit matrix X^T P_h X has rank <= d = " + s(a.d_model) + " < n = " + s(n) +
                         ": a rank deficit of " + s(n - a.d_model) + " per head; some attention patterns are unreachable"});
    return out;
  }

  if (a.d_k < n) {
    const bool mixed = has_logits_projection(a.kind);
    std::string msg = "each head's n x n dot products Q K^T have rank <= d_k = " + s(a.d_k) + " < n = " + s(n) +
                      ": a rank deficit of " + s(n - a.d_k) + " per head, so not every attention pattern is reachable";
    if (a.kind == AttentionKind::MultiHead)
      msg += "; h = " + s(a.heads) + " > d/n = " + s(a.d_model) + "/" + s(n) +
             " causes it. A fixed head size d_p >= n (fixed-head) removes it";
    else if (!mixed)
      msg += "; a head size d_p >= n removes it";
    out.push_back({"lrb-head-rank", "LRB", "§2.3, Thm 1", msg});
    if (mixed) {
      const int64_t cap = std::min<int64_t>(n, int64_t(a.heads_k) * a.d_k);
      out.push_back({"th-mixed-rank", "TH", "§4",
                     "P_l mixes the " + s(a.heads_k) + " key heads before the softmax, so each mixed logit matrix can "
                     "reach rank min(n, h_k*d_k) = " + s(cap) +
                         (cap >= n ? ": this rank cap no longer binds (TH proves no reachability theorem for it)" : ": still a deficit of " + s(n - cap))});
    }
  }

  const int64_t width_k = int64_t(a.heads_k) * a.d_k, width_v = int64_t(a.heads_v) * a.d_v;
  const int64_t width = std::max(width_k, width_v);
  if (width > a.d_model)
    out.push_back({"vb-attention-width", "VB", "§4.2.3",
                   "attention width h*d_a = " + s(width) + " exceeds d = " + s(a.d_model) + " (ratio " +
                       s(width / a.d_model) + (width % a.d_model ? "+" : "") +
                       "): the heads read a d-dimensional input, so width beyond d is largely wasted"});
  return out;
}

std::vector<Bottleneck> model_bottlenecks(const ModelSpec& m, int n) {
  if (!validate(m).empty()) return {};
  auto out = attention_bottlenecks(m.attention, n);
  const int r = effective_embed_rank(m);
  if (m.vocab < m.width)
    out.push_back({"vb-vocab", "VB", "§5.2, Thm 1",
                   "vocabulary V = " + s(m.vocab) + " < width d = " + s(m.width) +
                       ": the token embedding has rank <= V, so width beyond " + s(m.vocab) +
                       " adds little and depth helps more"});
  if (m.embed_rank > 0 && m.embed_rank < m.width && m.embed_rank < m.vocab)
    out.push_back({"vb-embed-rank", "VB", "§2.1, Thm 1",
                   "embedding rank r = " + s(m.embed_rank) + " < width d = " + s(m.width) +
                       ": log separation rank grows like L*min(r, d), so width beyond r = " + s(r) +
                       " adds little; depth L = " + s(m.depth) + " still multiplies it"});
  if (m.pos_rank > 0 && m.pos_rank < std::min(m.width, m.context))
    out.push_back({"vb-pos-rank", "VB", "App. C.4",
                   "positional embedding rank " + s(m.pos_rank) + " < min(d, n) = " + s(std::min(m.width, m.context)) +
                       ": positions enter the bound as r + r_e; VB found a low positional rank costs little"});
  return out;
}

}  // namespace headroom::core
