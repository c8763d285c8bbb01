#include "core/analysis/head_roles.h"

#include <cmath>
#include <utility>

namespace headroom::core {

HeadRole head_role(const float* w, int n, bool causal) {
  HeadRole r;
  const int first_query = 2, last_query = causal ? n - 1 : n - 2;
  if (last_query < first_query) return r;
  for (int i = first_query; i <= last_query; ++i) {
    const float* row = w + static_cast<long>(i) * n;
    r.previous += row[i - 1];
    r.self += row[i];
    if (!causal) r.next += row[i + 1];
    r.first += row[0];
    const int keys = causal ? i + 1 : n;
    double h = 0;
    for (int k = 0; k < keys; ++k)
      if (row[k] > 0) h -= double(row[k]) * std::log(double(row[k]));
    r.entropy += h / std::log(double(keys));
  }
  r.queries = last_query - first_query + 1;
  for (double* m : {&r.previous, &r.self, &r.next, &r.first, &r.entropy}) *m /= r.queries;
  // The key with the largest mean weight names the role if it takes at least kRoleShare.
  const std::pair<HeadRoleKind, double> candidates[] = {{HeadRoleKind::Previous, r.previous},
                                                        {HeadRoleKind::Self, r.self},
                                                        {HeadRoleKind::Next, r.next},
                                                        {HeadRoleKind::First, r.first}};
  std::pair<HeadRoleKind, double> best = candidates[0];
  for (const auto& c : candidates)
    if (c.second > best.second) best = c;
  if (best.second >= kRoleShare) {
    r.kind = best.first;
    r.share = best.second;
  } else if (r.entropy >= kBroadEntropy) {
    r.kind = HeadRoleKind::Broad;
    r.share = r.entropy;
  }
  return r;
}

const char* to_string(HeadRoleKind kind) {
  switch (kind) {
    case HeadRoleKind::Previous: return "previous token";
    case HeadRoleKind::Self: return "self";
    case HeadRoleKind::Next: return "next token";
    case HeadRoleKind::First: return "first token";
    case HeadRoleKind::Broad: return "broad";
    case HeadRoleKind::Mixed: return "mixed";
  }
  return "mixed";
}

}  // namespace headroom::core
