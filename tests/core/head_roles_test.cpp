#include "core/analysis/head_roles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

namespace headroom::core {
namespace {

// A causal (or full) map whose row i puts `main` on key pick(i) and spreads the rest evenly over
// the other keys the row may read.
std::vector<float> map_of(int n, bool causal, double main, const std::function<int(int)>& pick) {
  std::vector<float> w(static_cast<size_t>(n) * n, 0.0f);
  for (int i = 0; i < n; ++i) {
    const int keys = causal ? i + 1 : n;
    const int k = pick(i);
    for (int j = 0; j < keys; ++j)
      w[static_cast<size_t>(i) * n + j] =
          keys == 1 ? 1.0f : static_cast<float>(j == k ? main : (1.0 - main) / (keys - 1));
  }
  return w;
}

TEST(HeadRoles, APreviousTokenHeadIsNamedWithItsShare) {
  const int n = 12;
  const auto w = map_of(n, true, 0.9, [](int i) { return i > 0 ? i - 1 : 0; });
  const auto r = head_role(w.data(), n, true);
  EXPECT_EQ(r.kind, HeadRoleKind::Previous);
  EXPECT_NEAR(r.share, 0.9, 1e-6);
  EXPECT_NEAR(r.previous, 0.9, 1e-6);
  EXPECT_EQ(r.queries, n - 2);  // queries 2 .. n-1
  EXPECT_STREQ(to_string(r.kind), "previous token");
}

TEST(HeadRoles, SelfFirstAndNextHeads) {
  const int n = 10;
  const auto self = map_of(n, true, 1.0, [](int i) { return i; });
  EXPECT_EQ(head_role(self.data(), n, true).kind, HeadRoleKind::Self);
  EXPECT_NEAR(head_role(self.data(), n, true).entropy, 0.0, 1e-9);
  const auto first = map_of(n, true, 0.7, [](int) { return 0; });
  EXPECT_EQ(head_role(first.data(), n, true).kind, HeadRoleKind::First);
  EXPECT_NEAR(head_role(first.data(), n, true).first, 0.7, 1e-6);
  // Full attention only: the next token exists.
  const auto next = map_of(n, false, 0.8, [n](int i) { return i + 1 < n ? i + 1 : i; });
  const auto r = head_role(next.data(), n, false);
  EXPECT_EQ(r.kind, HeadRoleKind::Next);
  EXPECT_NEAR(r.next, 0.8, 1e-6);
  EXPECT_EQ(r.queries, n - 3);  // queries 2 .. n-2
}

TEST(HeadRoles, AnEvenSpreadIsBroadAndASplitHeadIsMixed) {
  const int n = 16;
  std::vector<float> uniform(static_cast<size_t>(n) * n, 0.0f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) uniform[static_cast<size_t>(i) * n + j] = 1.0f / static_cast<float>(i + 1);
  const auto u = head_role(uniform.data(), n, true);
  EXPECT_EQ(u.kind, HeadRoleKind::Broad);
  EXPECT_NEAR(u.entropy, 1.0, 1e-6);
  // 45% on the previous token and 45% on itself: no key takes half, and it is far from uniform.
  std::vector<float> split(static_cast<size_t>(n) * n, 0.0f);
  for (int i = 0; i < n; ++i) {
    if (i == 0) {
      split[0] = 1.0f;
      continue;
    }
    const int keys = i + 1;
    for (int j = 0; j < keys; ++j) split[static_cast<size_t>(i) * n + j] = keys > 2 ? 0.1f / (keys - 2) : 0.05f;
    split[static_cast<size_t>(i) * n + i] = keys > 2 ? 0.45f : 0.5f;
    split[static_cast<size_t>(i) * n + i - 1] = keys > 2 ? 0.45f : 0.5f;
  }
  const auto m = head_role(split.data(), n, true);
  EXPECT_EQ(m.kind, HeadRoleKind::Mixed);
  EXPECT_NEAR(m.previous, 0.45, 1e-6);
  EXPECT_NEAR(m.self, 0.45, 1e-6);
  EXPECT_LT(m.entropy, kBroadEntropy);
}

TEST(HeadRoles, TheThresholdIsInclusiveAndTooShortASequenceSaysNothing) {
  const int n = 8;
  const auto half = map_of(n, true, kRoleShare, [](int i) { return i > 0 ? i - 1 : 0; });
  EXPECT_EQ(head_role(half.data(), n, true).kind, HeadRoleKind::Previous);
  const auto below = map_of(n, true, kRoleShare - 0.01, [](int i) { return i > 0 ? i - 1 : 0; });
  EXPECT_NE(head_role(below.data(), n, true).kind, HeadRoleKind::Previous);
  const std::vector<float> two = {1, 0, 0.5f, 0.5f};
  const auto r = head_role(two.data(), 2, true);
  EXPECT_EQ(r.kind, HeadRoleKind::Mixed);
  EXPECT_EQ(r.queries, 0);
}

}  // namespace
}  // namespace headroom::core
