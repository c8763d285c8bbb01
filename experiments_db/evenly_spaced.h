// Which of a run's logged steps a thinned export keeps: the one rule behind
// `export --snapshots-per-run` (P_l / P_w snapshots) and `--aux-series-points`
// (RunStore::thin_series), so the two thin alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

namespace headroom::db {

// The steps at indices i * (n - 1) / (keep - 1), i = 0 .. keep - 1, of the
// ascending `steps` (n of them): evenly spaced, the first and the last among
// them; only the last when keep is 1; every step when keep >= n; none when
// keep is 0.
inline std::set<std::int64_t> evenly_spaced(const std::vector<std::int64_t>& steps, std::size_t keep) {
  const std::size_t n = steps.size();
  if (keep >= n) return {steps.begin(), steps.end()};
  std::set<std::int64_t> kept;
  for (std::size_t i = 0; i < keep; ++i) kept.insert(steps[keep == 1 ? n - 1 : i * (n - 1) / (keep - 1)]);
  return kept;
}

}  // namespace headroom::db
