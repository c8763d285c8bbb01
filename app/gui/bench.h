// Frame-time statistics for --bench-frames, printed as one JSON line so scripts
// can track GUI performance: {"frames":N,"frame_ms_median":..,"frame_ms_p95":..}.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

namespace headroom::gui {

struct BenchStats {
  int frames = 0;
  double median_ms = 0.0;
  double p95_ms = 0.0;  // nearest-rank 95th percentile
  double p99_ms = 0.0;  // nearest-rank 99th percentile
  double max_ms = 0.0;
};

BenchStats compute_bench_stats(std::vector<double> frame_ms);

// The JSON object printed on stdout; `extra` (views' bench_metrics(), e.g. snapshot
// latency) is merged in without overriding the frame fields.
nlohmann::json bench_json(const BenchStats& stats, const nlohmann::json& extra);

}  // namespace headroom::gui
