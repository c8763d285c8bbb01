#include "core/analysis/separation_rank.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/model/model_spec.h"

namespace headroom::core {

double log_multichoose(double n, double k) {
  if (n <= 0) return k == 0 ? 0.0 : -INFINITY;  // no way to pick k > 0 items from nothing
  // C(n + k - 1, k) = Gamma(n + k) / (Gamma(k + 1) Gamma(n))
  return std::lgamma(n + k) - std::lgamma(k + 1) - std::lgamma(n);
}

double vb_log_separation_rank_bound(int depth, int embed_rank, int pos_rank, int d_x) {
  if (depth < 1 || embed_rank < 1 || pos_rank < 0)
    throw std::invalid_argument(
        "separation-rank bound needs depth >= 1, r >= 1, r_e >= 0 (got L = " + std::to_string(depth) +
        ", r = " + std::to_string(embed_rank) + ", r_e = " + std::to_string(pos_rank) + ")");
  const double r = d_x > 0 ? std::min(embed_rank, d_x) : embed_rank;
  const double three_l = std::pow(3.0, depth);
  const double rr = r + pos_rank;
  return log_multichoose(rr, three_l) + log_multichoose(4.0, three_l) + rr * std::log(three_l + 1.0);
}

double model_log_separation_rank_bound(const ModelSpec& spec, int d_x, int depth, int symbols) {
  ModelSpec at = spec;
  at.width = d_x;
  at.depth = depth;
  if (symbols > 0) at.vocab = std::min(at.vocab, symbols);
  return vb_log_separation_rank_bound(depth, std::max(1, effective_embed_rank(at)), effective_pos_rank(at));
}

}  // namespace headroom::core
