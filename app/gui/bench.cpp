#include "app/gui/bench.h"

#include <algorithm>
#include <cmath>

namespace headroom::gui {

BenchStats compute_bench_stats(std::vector<double> ms) {
  BenchStats s;
  s.frames = static_cast<int>(ms.size());
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  s.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  const auto nearest_rank = [&](double p) {  // 1-based rank ceil(p n)
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
    return ms[std::clamp<size_t>(rank, 1, n) - 1];
  };
  s.p95_ms = nearest_rank(0.95);
  s.p99_ms = nearest_rank(0.99);
  s.max_ms = ms.back();
  return s;
}

nlohmann::json bench_json(const BenchStats& stats, const nlohmann::json& extra) {
  const auto round3 = [](double v) { return std::round(v * 1000.0) / 1000.0; };
  nlohmann::json j = nlohmann::json::object();
  if (extra.is_object()) j.update(extra);
  j["frames"] = stats.frames;
  j["frame_ms_median"] = round3(stats.median_ms);
  j["frame_ms_p95"] = round3(stats.p95_ms);
  j["frame_ms_p99"] = round3(stats.p99_ms);
  j["frame_ms_max"] = round3(stats.max_ms);
  return j;
}

}  // namespace headroom::gui
