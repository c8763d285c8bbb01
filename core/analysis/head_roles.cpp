#include "core/analysis/head_roles.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace headroom::core {

HeadRole head_role(const float* w, int n, bool causal) {
  HeadRole r;
  const int first_query = 2, last_query = causal ? n - 1 : n - 2;
  if (last_query < first_query) return r;
  r.queries = last_query - first_query + 1;
  // Offsets from -(n-1) (ahead) to n-1 (back): sum and count of W[i][i - offset] over the sampled
  // queries whose key i - offset exists and is not key 0.
  std::vector<double> sum(static_cast<size_t>(2 * n - 1), 0.0);
  std::vector<int> count(sum.size(), 0);
  for (int i = first_query; i <= last_query; ++i) {
    const float* row = w + static_cast<long>(i) * n;
    const int keys = causal ? i + 1 : n;
    for (int k = 1; k < keys; ++k) {
      const size_t slot = static_cast<size_t>(i - k + n - 1);
      sum[slot] += row[k];
      ++count[slot];
    }
    r.first += row[0];
    double h = 0;
    for (int k = 0; k < keys; ++k)
      if (row[k] > 0) h -= double(row[k]) * std::log(double(row[k]));
    r.entropy += h / std::log(double(keys));
  }
  r.first /= r.queries;
  r.entropy /= r.queries;
  const auto mean_at = [&](int offset) {
    const size_t slot = static_cast<size_t>(offset + n - 1);
    return count[slot] > 0 ? sum[slot] / count[slot] : 0.0;
  };
  r.previous = mean_at(1);
  r.self = mean_at(0);
  r.next = causal ? 0.0 : mean_at(-1);
  // The best offset that enough queries can read, against the first token.
  const int enough = std::max(2, (r.queries + 2) / 3);
  int best_offset = 0;
  double best = -1;
  for (int offset = -(n - 1); offset <= n - 1; ++offset) {
    const size_t slot = static_cast<size_t>(offset + n - 1);
    if (count[slot] < enough) continue;
    const double m = sum[slot] / count[slot];
    // Ties go to the nearer offset (self, then previous, ...).
    if (m > best || (m == best && std::abs(offset) < std::abs(best_offset))) best = m, best_offset = offset;
  }
  if (r.first >= kRoleShare && r.first > best) {
    r.kind = HeadRoleKind::First;
    r.share = r.first;
  } else if (best >= kRoleShare) {
    r.kind = HeadRoleKind::Offset;
    r.offset = best_offset;
    r.share = best;
  } else if (r.entropy >= kBroadEntropy) {
    r.kind = HeadRoleKind::Broad;
    r.share = r.entropy;
  }
  return r;
}

std::string role_label(const HeadRole& role) {
  switch (role.kind) {
    case HeadRoleKind::Offset:
      if (role.offset == 0) return "self";
      if (role.offset == 1) return "previous token";
      if (role.offset == -1) return "next token";
      return role.offset > 0 ? std::to_string(role.offset) + " back" : std::to_string(-role.offset) + " ahead";
    case HeadRoleKind::First: return "first token";
    case HeadRoleKind::Broad: return "broad";
    case HeadRoleKind::Mixed: return "mixed";
  }
  return "mixed";
}

std::string role_short_label(const HeadRole& role) {
  if (role.kind == HeadRoleKind::Offset && role.offset == 1) return "prev";
  if (role.kind == HeadRoleKind::Offset && role.offset == -1) return "next";
  if (role.kind == HeadRoleKind::First) return "first";
  return role_label(role);
}

std::string describe_roles(const std::vector<HeadRole>& roles) {
  std::vector<std::pair<std::string, std::vector<size_t>>> groups;
  for (size_t h = 0; h < roles.size(); ++h) {
    if (roles[h].kind == HeadRoleKind::Mixed) continue;
    const std::string label = role_label(roles[h]);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == label; });
    if (g == groups.end()) g = groups.insert(groups.end(), {label, {}});
    g->second.push_back(h);
  }
  std::string out;
  for (const auto& [label, heads] : groups) {
    out += (out.empty() ? "" : "; ") + label + (heads.size() == 1 ? ": head" : ": heads");
    for (size_t h : heads) out += " " + std::to_string(h);
  }
  return out;
}

}  // namespace headroom::core
