#include "core/attention/attention_spec.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace headroom::core {
namespace {

struct KindName {
  AttentionKind kind;
  const char* name;
};

constexpr KindName kKindNames[] = {
    {AttentionKind::MultiHead, "multi-head"},
    {AttentionKind::FixedHead, "fixed-head"},
    {AttentionKind::TalkingHeads, "talking-heads"},
    {AttentionKind::LogitsProj, "logits-proj"},
    {AttentionKind::WeightsProj, "weights-proj"},
    {AttentionKind::DynamicProj, "dynamic-proj"},
    {AttentionKind::GeneralBilinear, "general-bilinear"},
};

// Guards against specs that would only exhaust memory; far above anything the papers use.
constexpr int kMaxWidth = 1 << 16;
constexpr int kMaxHeads = 4096;

std::string str(int v) { return std::to_string(v); }

}  // namespace

const std::vector<AttentionKind>& all_attention_kinds() {
  static const std::vector<AttentionKind> kinds = [] {
    std::vector<AttentionKind> v;
    for (const auto& k : kKindNames) v.push_back(k.kind);
    return v;
  }();
  return kinds;
}

const char* to_string(AttentionKind kind) {
  for (const auto& k : kKindNames)
    if (k.kind == kind) return k.name;
  return "unknown";
}

std::optional<AttentionKind> parse_attention_kind(std::string_view name) {
  for (const auto& k : kKindNames)
    if (name == k.name) return k.kind;
  return std::nullopt;
}

std::string attention_kind_names() {
  std::string out;
  for (const auto& k : kKindNames) {
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

bool has_logits_projection(AttentionKind kind) {
  return kind == AttentionKind::TalkingHeads || kind == AttentionKind::LogitsProj || kind == AttentionKind::DynamicProj;
}

bool has_weights_projection(AttentionKind kind) {
  return kind == AttentionKind::TalkingHeads || kind == AttentionKind::WeightsProj ||
         kind == AttentionKind::DynamicProj;
}

bool is_talking_heads_family(AttentionKind kind) { return has_logits_projection(kind) || has_weights_projection(kind); }

bool AttentionSpec::operator==(const AttentionSpec& o) const {
  return kind == o.kind && d_model == o.d_model && heads_k == o.heads_k && heads == o.heads && heads_v == o.heads_v &&
         d_k == o.d_k && d_v == o.d_v && causal == o.causal &&
         (kind != AttentionKind::DynamicProj || dynamic_terms == o.dynamic_terms);
}

std::vector<SpecProblem> validate(const AttentionSpec& s) {
  std::vector<SpecProblem> problems;
  auto add = [&](const char* field, std::string message) { problems.push_back({field, std::move(message)}); };
  const char* kind = to_string(s.kind);

  auto positive = [&](const char* field, int v, int max) {
    if (v < 1) add(field, std::string(field) + " = " + str(v) + " is impossible: it must be at least 1");
    else if (v > max)
      add(field, std::string(field) + " = " + str(v) + " is beyond what Headroom runs (at most " + str(max) + ")");
  };
  positive("d_model", s.d_model, kMaxWidth);
  positive("heads", s.heads, kMaxHeads);
  positive("heads_k", s.heads_k, kMaxHeads);
  positive("heads_v", s.heads_v, kMaxHeads);
  positive("d_k", s.d_k, kMaxWidth);
  positive("d_v", s.d_v, kMaxWidth);
  if (!problems.empty()) return problems;

  auto one_head_count = [&](const char* why) {
    if (s.heads_k != s.heads)
      add("heads_k", std::string(kind) + " has one head count (" + why + "), but heads_k = " + str(s.heads_k) +
                         " differs from heads = " + str(s.heads) +
                         "; drop heads_k, or use talking-heads for separate h_k / h / h_v");
    if (s.heads_v != s.heads)
      add("heads_v", std::string(kind) + " has one head count (" + why + "), but heads_v = " + str(s.heads_v) +
                         " differs from heads = " + str(s.heads) +
                         "; drop heads_v, or use talking-heads for separate h_k / h / h_v");
  };

  switch (s.kind) {
    case AttentionKind::MultiHead: {
      one_head_count("LRB eq. 8");
      if (s.d_model % s.heads != 0) {
        add("heads", "multi-head splits d_model = " + str(s.d_model) + " into heads of d_model/h (LRB eq. 8), but " +
                         str(s.d_model) + " is not divisible by h = " + str(s.heads) +
                         "; pick h dividing d_model, or use fixed-head with a chosen head size");
      } else {
        const int dp = s.d_model / s.heads;
        if (s.d_k != dp)
          add("d_k", "multi-head fixes d_k = d_model/h = " + str(dp) + " (LRB eq. 8), but d_k = " + str(s.d_k) +
                         "; use fixed-head to choose the head size freely (LRB §3)");
        if (s.d_v != dp)
          add("d_v", "multi-head fixes d_v = d_model/h = " + str(dp) + " (LRB eq. 8), but d_v = " + str(s.d_v) +
                         "; use fixed-head to choose the head size freely (LRB §3)");
      }
      break;
    }
    case AttentionKind::FixedHead: one_head_count("LRB §3"); break;
    case AttentionKind::LogitsProj:
      if (s.heads_v != s.heads)
        add("heads_v",
            "logits-proj has no weights projection, so the softmax heads feed the values directly and "
            "heads_v must equal heads = " +
                str(s.heads) + " (TH §7.1.3), not " + str(s.heads_v) + "; use talking-heads for a separate h_v");
      break;
    case AttentionKind::WeightsProj:
      if (s.heads_k != s.heads)
        add("heads_k",
            "weights-proj has no logits projection, so the key heads are the softmax heads and "
            "heads_k must equal heads = " +
                str(s.heads) + " (TH §7.1.3), not " + str(s.heads_k) + "; use talking-heads for a separate h_k");
      break;
    case AttentionKind::TalkingHeads: break;
    case AttentionKind::DynamicProj:
      if ((s.dynamic_terms & kDynamicAll) == 0)
        add("dynamic_terms",
            "dynamic-proj needs at least one of the dynamic projections Xl, Ml, Xw, Mw "
            "(TH appendix A); with none it is talking-heads");
      break;
    case AttentionKind::GeneralBilinear:
      one_head_count("TH §6");
      if (s.d_k != s.d_model || s.d_v != s.d_model)
        add("d_k",
            "general-bilinear has no per-head projections: its P[d_X,d_M,h] and Q[d_M,d_Y,h] make "
            "d_k = d_v = d_model = " +
                str(s.d_model) + " (TH §6, Table 1), not d_k = " + str(s.d_k) + ", d_v = " + str(s.d_v));
      break;
  }
  return problems;
}

std::optional<AttentionSpec> make_attention_spec(const AttentionRequest& r, std::vector<SpecProblem>* problems) {
  std::vector<SpecProblem> local;
  std::vector<SpecProblem>& out = problems ? *problems : local;
  out.clear();

  AttentionSpec s;
  s.kind = r.kind;
  s.d_model = r.d_model;
  s.heads = r.heads;
  s.heads_k = r.heads_k.value_or(r.heads);
  s.heads_v = r.heads_v.value_or(r.heads);
  s.causal = r.causal;
  s.dynamic_terms = r.dynamic_terms;

  if (r.kind == AttentionKind::GeneralBilinear) {
    s.d_k = r.d_k.value_or(r.d_model);
    s.d_v = r.d_v.value_or(r.d_model);
  } else {
    const bool divisible = r.heads > 0 && r.d_model > 0 && r.d_model % r.heads == 0;
    // Placeholder 1 when not divisible: validate() then reports the real problem (the heads).
    const int dp = divisible ? r.d_model / r.heads : 1;
    if ((!r.d_k || !r.d_v) && !divisible && r.heads > 0 && r.d_model > 0 && r.kind != AttentionKind::MultiHead) {
      out.push_back({r.d_k ? "d_v" : "d_k", "d_k and d_v default to d_model/heads, but d_model = " + str(r.d_model) +
                                                " is not divisible by heads = " + str(r.heads) +
                                                "; give d_k and d_v explicitly"});
      return std::nullopt;
    }
    s.d_k = r.d_k.value_or(dp);
    s.d_v = r.d_v.value_or(dp);
  }

  out = validate(s);
  // heads_k and heads_v not asked for are copies of heads: its problem is theirs, said once.
  const bool heads_wrong = std::any_of(out.begin(), out.end(), [](const SpecProblem& p) { return p.field == "heads"; });
  if (heads_wrong)
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const SpecProblem& p) {
                               return (p.field == "heads_k" && !r.heads_k) || (p.field == "heads_v" && !r.heads_v);
                             }),
              out.end());
  if (!out.empty()) return std::nullopt;
  return s;
}

void require_valid(const AttentionSpec& spec) {
  auto problems = validate(spec);
  if (problems.empty()) return;
  std::ostringstream msg;
  for (size_t i = 0; i < problems.size(); ++i) {
    if (i) msg << "; ";
    msg << problems[i].field << ": " << problems[i].message;
  }
  throw std::invalid_argument(msg.str());
}

double logit_scale(const AttentionSpec& spec) {
  if (spec.kind == AttentionKind::GeneralBilinear) return 1.0;
  return 1.0 / std::sqrt(static_cast<double>(spec.d_k));
}

std::string describe(const AttentionSpec& s) {
  std::ostringstream o;
  o << to_string(s.kind) << " d=" << s.d_model;
  if (is_talking_heads_family(s.kind)) o << " h_k=" << s.heads_k << " h=" << s.heads << " h_v=" << s.heads_v;
  else o << " h=" << s.heads;
  o << " d_k=" << s.d_k << " d_v=" << s.d_v;
  if (s.causal) o << " causal";
  return o.str();
}

}  // namespace headroom::core
