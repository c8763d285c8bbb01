// What a head's attention weights mostly do, read off its n x n weights W (rows: queries, each a
// distribution over keys): attend to a fixed offset (itself, the previous token, k tokens back;
// with full attention also the next token or k ahead), to the first token, or spread evenly
// (broad). Torch-free: the lab computes it on its engine thread for every map it draws.
#pragma once

#include <string>
#include <vector>

namespace headroom::core {

enum class HeadRoleKind { Offset, First, Broad, Mixed };

// Means over the sampled queries i = 2 .. n-1 (causal) or 2 .. n-2 (full).
struct HeadRole {
  HeadRoleKind kind = HeadRoleKind::Mixed;
  int offset = 0;       // Offset: how far back the key is (0: the query itself, 1: the previous token, -1: the next)
  double share = 0;     // the mean weight that names the role; for Broad, `entropy`
  double previous = 0;  // mean W[i][i-1]
  double self = 0;      // mean W[i][i]
  double next = 0;      // mean W[i][i+1] (0 for causal maps)
  double first = 0;     // mean W[i][0]
  double entropy = 0;   // mean of H(W_i) / log(keys query i may read): 1 = uniform, 0 = one key
  int queries = 0;      // how many queries were sampled (0: n too small to tell, kind Mixed)
};

// The mean weight at an offset is taken over the sampled queries whose key at that offset exists
// and is not the first token (so "k back" and "first token" never share a cell), and counts only
// where at least a third of the sampled queries (and 2) have that key. The offset or the first
// token with the largest such mean names the head if it is at least kRoleShare; a head with no such
// key whose rows' entropy is at least kBroadEntropy of the uniform's is Broad; any other is Mixed.
inline constexpr double kRoleShare = 0.5;
inline constexpr double kBroadEntropy = 0.9;

// `w`: row-major n x n, rows summing to 1 (a causal map is 0 above the diagonal).
HeadRole head_role(const float* w, int n, bool causal);

// The role in words: "self", "previous token", "3 back", "next token", "2 ahead", "first token",
// "broad", "mixed".
std::string role_label(const HeadRole& role);
// The same in at most 7 characters, for a label over a small map: "self", "prev", "3 back",
// "next", "2 ahead", "first", "broad", "mixed".
std::string role_short_label(const HeadRole& role);

// Heads (by index) grouped by role, in the order of each role's first head, mixed heads left out:
// "previous token: head 3; self: head 2; broad: heads 4 7". "" when every head is mixed.
std::string describe_roles(const std::vector<HeadRole>& roles);

}  // namespace headroom::core
