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
  EXPECT_EQ(r.kind, HeadRoleKind::Offset);
  EXPECT_EQ(r.offset, 1);
  EXPECT_NEAR(r.share, 0.9, 1e-6);
  EXPECT_NEAR(r.previous, 0.9, 1e-6);
  EXPECT_EQ(r.queries, n - 2);  // queries 2 .. n-1
  EXPECT_EQ(role_label(r), "previous token");
  EXPECT_EQ(role_short_label(r), "prev");
}

TEST(HeadRoles, SelfFirstAndNextHeads) {
  const int n = 10;
  const auto self = map_of(n, true, 1.0, [](int i) { return i; });
  EXPECT_EQ(role_label(head_role(self.data(), n, true)), "self");
  EXPECT_NEAR(head_role(self.data(), n, true).entropy, 0.0, 1e-9);
  const auto first = map_of(n, true, 0.7, [](int) { return 0; });
  EXPECT_EQ(head_role(first.data(), n, true).kind, HeadRoleKind::First);
  EXPECT_EQ(role_label(head_role(first.data(), n, true)), "first token");
  EXPECT_NEAR(head_role(first.data(), n, true).first, 0.7, 1e-6);
  // Full attention only: the next token exists.
  const auto next = map_of(n, false, 0.8, [n](int i) { return i + 1 < n ? i + 1 : i; });
  const auto r = head_role(next.data(), n, false);
  EXPECT_EQ(role_label(r), "next token");
  EXPECT_EQ(role_short_label(r), "next");
  EXPECT_EQ(role_short_label(head_role(self.data(), n, true)), "self");
  EXPECT_EQ(role_short_label(head_role(first.data(), n, true)), "first");
  EXPECT_NEAR(r.next, 0.8, 1e-6);
  EXPECT_EQ(r.queries, n - 3);  // queries 2 .. n-2
}

// Induction-style heads: in a sequence repeated with period 12, the second half attends 12 back
// (the first half has no copy to read and spreads its weight).
TEST(HeadRoles, AFixedOffsetFurtherBackIsNamedWhereEnoughQueriesCanReadIt) {
  const int n = 24, period = 12;
  const auto w = map_of(n, true, 0.9, [](int i) { return i >= period ? i - period : -1; });
  std::vector<float> fixed = w;
  for (int i = 0; i < period; ++i)  // rows without a copy: even over their keys
    for (int j = 0; j <= i; ++j) fixed[static_cast<size_t>(i) * n + j] = 1.0f / static_cast<float>(i + 1);
  const auto r = head_role(fixed.data(), n, true);
  EXPECT_EQ(r.kind, HeadRoleKind::Offset);
  EXPECT_EQ(r.offset, period);
  EXPECT_NEAR(r.share, 0.9, 1e-6);  // over the queries 13..23, where the key 12 back is not key 0
  EXPECT_EQ(role_label(r), "12 back");
  EXPECT_EQ(role_short_label(r), "12 back");
  // Full attention: a head reading 3 ahead.
  const auto ahead = map_of(10, false, 0.8, [](int i) { return i + 3 < 10 ? i + 3 : i; });
  EXPECT_EQ(role_label(head_role(ahead.data(), 10, false)), "3 ahead");
  // An offset that too few queries can read does not name the head: one query (n - 1) reads 20 back.
  std::vector<float> late = fixed;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) late[static_cast<size_t>(i) * n + j] = 1.0f / static_cast<float>(i + 1);
  for (int j = 0; j < n; ++j) late[static_cast<size_t>(n - 1) * n + j] = j == 3 ? 1.0f : 0.0f;
  EXPECT_NE(head_role(late.data(), n, true).kind, HeadRoleKind::Offset);
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
  EXPECT_EQ(role_label(head_role(half.data(), n, true)), "previous token");
  const auto below = map_of(n, true, kRoleShare - 0.01, [](int i) { return i > 0 ? i - 1 : 0; });
  EXPECT_NE(head_role(below.data(), n, true).kind, HeadRoleKind::Offset);
  const std::vector<float> two = {1, 0, 0.5f, 0.5f};
  const auto r = head_role(two.data(), 2, true);
  EXPECT_EQ(r.kind, HeadRoleKind::Mixed);
  EXPECT_EQ(r.queries, 0);
}

}  // namespace
}  // namespace headroom::core

namespace headroom::core {
namespace {

TEST(HeadRoles, DescribeGroupsHeadsByRoleInTheOrderTheyFirstAppear) {
  std::vector<HeadRole> roles(6);
  roles[0].kind = HeadRoleKind::Broad;
  roles[1].kind = HeadRoleKind::Offset, roles[1].offset = 1;
  roles[3].kind = HeadRoleKind::Offset, roles[3].offset = 12;
  roles[4].kind = HeadRoleKind::Broad;
  roles[5].kind = HeadRoleKind::First;  // roles[2] stays mixed: left out
  EXPECT_EQ(describe_roles(roles), "broad: heads 0 4; previous token: head 1; 12 back: head 3; first token: head 5");
  EXPECT_EQ(describe_roles(std::vector<HeadRole>(3)), "");
}

}  // namespace
}  // namespace headroom::core
