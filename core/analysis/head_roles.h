// What a head's attention weights mostly do, read off its n x n weights W (rows: queries, each a
// distribution over keys): attend to the previous token, to itself, to the next token (full
// attention only), to the first token, or spread evenly (broad). Torch-free: the lab computes it
// on its engine thread for every map it draws.
#pragma once

namespace headroom::core {

enum class HeadRoleKind { Previous, Self, Next, First, Broad, Mixed };

// Means over the queries i = 2 .. n-1 (causal) or 2 .. n-2 (full), where the previous key (i-1),
// the query's own (i), the next (i+1) and the first (0) are four different keys.
struct HeadRole {
  HeadRoleKind kind = HeadRoleKind::Mixed;
  double share = 0;     // the mean weight on the key that names the role; for Broad, `entropy`
  double previous = 0;  // mean W[i][i-1]
  double self = 0;      // mean W[i][i]
  double next = 0;      // mean W[i][i+1] (0 for causal maps)
  double first = 0;     // mean W[i][0]
  double entropy = 0;   // mean of H(W_i) / log(keys query i may read): 1 = uniform, 0 = one key
  int queries = 0;      // how many queries the means are over (0: n too small to tell, kind Mixed)
};

// A key that takes at least this mean weight names the head's role; a head with no such key whose
// rows' entropy is at least kBroadEntropy of the uniform's is Broad; any other is Mixed.
inline constexpr double kRoleShare = 0.5;
inline constexpr double kBroadEntropy = 0.9;

// `w`: row-major n x n, rows summing to 1 (a causal map is 0 above the diagonal).
HeadRole head_role(const float* w, int n, bool causal);

// "previous token", "self", "next token", "first token", "broad", "mixed".
const char* to_string(HeadRoleKind kind);

}  // namespace headroom::core
