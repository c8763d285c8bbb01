#include "core/analysis/bottleneck_report.h"

#include <algorithm>
#include <optional>

namespace headroom::core {
namespace {
std::string s(int64_t v) { return std::to_string(v); }
}  // namespace

int logit_rank_cap(const AttentionSpec& spec, int n, int m) {
  // Every head's logits are X_q M X_k^T with X the layer's d-wide input, so d caps them all.
  const int64_t nm = std::min(n, m), d = spec.d_model;
  const int64_t mixed = std::min<int64_t>(d, int64_t(spec.heads_k) * spec.d_k);
  switch (spec.kind) {
    case AttentionKind::GeneralBilinear: return static_cast<int>(std::min(nm, d));
    case AttentionKind::TalkingHeads:
    case AttentionKind::LogitsProj:
      // L_h = sum_k P_l[k,h] J_k = X (sum_k P_l[k,h] W_q,k W_k,k^T) X^T: a d x d middle of rank <= h_k·d_k.
      return static_cast<int>(std::min(nm, mixed));
    case AttentionKind::DynamicProj:
      // TH app. A: L_h = sum_k diag(P_l[k,h] + R_Xl[:,k,h]) J_k + J_k diag(R_Ml[:,k,h]). The first sum is
      // (n x d)·X^T and the second X·(d x n), each of rank <= min(d, h_k·d_k); only the Ml term adds the second.
      return static_cast<int>(std::min<int64_t>(nm, mixed * ((spec.dynamic_terms & kDynamicMl) ? 2 : 1)));
    default: return static_cast<int>(std::min<int64_t>({nm, d, spec.d_k}));
  }
}

namespace {

// What a logit rank cap of `cap` means for the attention patterns one head can reach over n
// tokens (docs/causal_threshold.md). Full attention reaches every pattern from n - 1 and almost
// none below. Causal heads reach almost every pattern exactly from floor(n/2), and every one to
// any precision, so only a cap below floor(n/2) is a bottleneck. "what" names the cap, e.g. "d_k = 8".
std::optional<Bottleneck> reachability(int64_t cap, int n, bool causal, const std::string& what, const std::string& id,
                                       const std::string& paper, const std::string& section,
                                       const std::string& remedy) {
  const int threshold = causal ? n / 2 : n - 1;
  if (cap >= threshold) return std::nullopt;
  std::string msg = std::string("each ") + (causal ? "causal " : "") + "head's n x n logits have rank <= " + what +
                    " < n = " + s(n) + ": a rank deficit of " + s(n - cap) + " per head; ";
  msg += causal ? "causal heads need rank floor(n/2) = " + s(threshold) +
                      " to reach almost every pattern, so most patterns are out of reach, even approximately"
                : "full attention reaches every pattern from n - 1 = " + s(threshold) +
                      " (LRB Thm 1 with a constant per query) and almost none below, so most patterns are out of reach";
  if (!remedy.empty()) msg += "; " + remedy;
  return Bottleneck{id, paper, section, msg};
}

}  // namespace

std::vector<Bottleneck> attention_bottlenecks(const AttentionSpec& a, int n) {
  std::vector<Bottleneck> out;
  if (validate(a).size() || n < 1) return out;
  const int64_t d = a.d_model;

  if (a.kind == AttentionKind::GeneralBilinear) {
    if (auto b = reachability(std::min<int64_t>(d, n), n, a.causal, "d = " + s(d), "lrb-head-rank", "LRB",
                              "§2.3, Thm 1", ""))
      out.push_back(*b);
    return out;
  }

  const bool mixed = has_logits_projection(a.kind);
  const int64_t head_cap = std::min<int64_t>(a.d_k, d);
  const std::string head_what = a.d_k <= d ? "d_k = " + s(a.d_k) : "d = " + s(d) + " (d_k = " + s(a.d_k) + " > d)";
  std::string remedy;
  if (a.kind == AttentionKind::MultiHead)
    remedy = "the standard head size d/h = " + s(a.d_k) +
             " shrinks as h grows (LRB eq. 8); a fixed head size d_p >= " + s(a.causal ? n / 2 : n - 1) +
             " (fixed-head) removes it";
  else if (!mixed) remedy = "a head size d_p >= " + s(a.causal ? n / 2 : n - 1) + " removes it";
  if (auto b = reachability(head_cap, n, a.causal, head_what, "lrb-head-rank", "LRB", "§2.3, Thm 1", remedy)) {
    // With P_l the softmax sees mixed logits, not a head's own J: LRB's cap is on J, and whether
    // patterns are out of reach is the mixed rank's question (the th-mixed-rank badge below).
    if (mixed) {
      const int threshold = a.causal ? n / 2 : n - 1;
      b->message = std::string("each ") + (a.causal ? "causal " : "") +
                   "key head's raw logits J (before P_l) have rank <= " + head_what + " < n = " + s(n) +
                   "; unmixed, a head this size would leave most patterns out of reach (" +
                   (a.causal ? "causal heads need rank floor(n/2) = " : "full attention needs rank n - 1 = ") +
                   s(threshold) + "), but the softmax sees the mixed logits (TH §4)";
    }
    out.push_back(*b);
  }
  if (mixed && head_cap < (a.causal ? n / 2 : n - 1)) {
    const int cap = logit_rank_cap(a, n, n);
    std::string msg =
        "P_l mixes the " + s(a.heads_k) + " key heads before the softmax, so each mixed logit matrix can reach rank " +
        (a.kind == AttentionKind::DynamicProj ? std::string("min(n, 2 min(d, h_k*d_k))") : "min(n, d, h_k*d_k)") +
        " = " + s(cap);
    if (auto b = reachability(cap, n, a.causal, "its cap " + s(cap), "th-mixed-rank", "TH", "§4", ""))
      msg += ": " + b->message.substr(b->message.find("a rank deficit"));
    else
      msg += std::string(" >= ") + (a.causal ? "floor(n/2)" : "n - 1") +
             ": one mixed head alone reaches what a head of that size reaches (LRB Thm 1), though the h heads share "
             "W_q, W_k and TH proves no joint theorem";
    out.push_back({"th-mixed-rank", "TH", "§4", msg});
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

std::vector<Bottleneck> model_bottlenecks(const ModelSpec& m, int n, const VocabularyUse& use) {
  if (!validate(m).empty()) return {};
  auto out = attention_bottlenecks(m.attention, n);
  const int r = effective_embed_rank(m);
  // VB's vocabulary bound counts the tokens that occur: embedding rows never trained add no rank
  // that the data can use (KJV in bytes: 63 of 256 ids occur).
  const int used = use.symbols > 0 ? std::min(use.symbols, m.vocab) : m.vocab;
  if (used < m.width) {
    std::string msg = used < m.vocab ? "only " + s(used) + " of the V = " + s(m.vocab) + " tokens occur in " +
                                           (use.data.empty() ? std::string("the data") : use.data) +
                                           ": the embeddings that matter span rank <= " + s(used)
                                     : "vocabulary V = " + s(m.vocab) + ": the token embedding has rank <= V";
    // VB's theorem bounds separation rank (expressivity), not loss: say that, not "depth helps more"
    // (this project's vb_depth_width runs did not find the deeper model better: docs/results/).
    // Kept to the badge's two lines at 1280 px (the lab's window tests hover below it).
    msg += " < width d = " + s(m.width) + ", so width beyond " + s(used) +
           " adds little to VB's bound on log separation rank, L*min(r, d)";
    out.push_back({"vb-vocab", "VB", "§5.2, Thm 1", msg});
  }
  if (m.embed_rank > 0 && m.embed_rank < m.width && m.embed_rank < used)
    out.push_back(
        {"vb-embed-rank", "VB", "§2.1, Thm 1",
         "embedding rank r = " + s(m.embed_rank) + " < width d = " + s(m.width) +
             ": log separation rank grows like L*min(r, d), so width beyond r = " + s(r) +
             " adds little; depth L = " + s(m.depth) +
             " still multiplies it (VB's bound assumes a rank-1 "
             "positional embedding, app. A.2; with positional rank r_e it is L*min(r + r_e, d), and this model's "
             "positional rank is " +
             s(effective_pos_rank(m)) + ")"});
  if (m.pos_rank > 0 && m.pos_rank < std::min(m.width, m.context))
    out.push_back({"vb-pos-rank", "VB", "App. C.4",
                   "positional embedding rank " + s(m.pos_rank) + " < min(d, n) = " + s(std::min(m.width, m.context)) +
                       ": positions enter the bound as r + r_e; VB found a low positional rank costs little"});
  if (m.positions == Positions::None)
    out.push_back({"no-positions", "VB", "App. A.2",
                   "no positional embedding (r_e = 0): only the causal mask tells positions apart (query i sees "
                   "i + 1 keys), and the bound's r + r_e is r alone"});
  return out;
}

}  // namespace headroom::core
