// Control change -> updated lab snapshot (forward, traces, every head's spectrum, projections),
// measured in-process on the lab engine's thread for the two configurations issue #4 names.
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/lab/lab_engine.h"

using namespace headroom;
using Clock = std::chrono::steady_clock;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

nlohmann::json measure(int L, int d, int h, int n, int samples) {
  gui::LabEngine engine;
  gui::LabRequest r;
  r.model.width = d;
  r.model.depth = L;
  r.model.context = std::max(128, n);
  core::AttentionRequest a{core::AttentionKind::MultiHead, d, h};
  a.causal = true;
  r.model.attention = *core::make_attention_spec(a, nullptr);
  r.input = gui::LabInput::Synthetic;
  r.task = core::SyntheticTask::Induction;
  r.synthetic_n = n;
  std::vector<double> latency, engine_ms;
  for (int i = 0; i < samples + 2; ++i) {
    r.synthetic_n = n;
    r.text = std::to_string(i);
    r.input = i % 2 ? gui::LabInput::Synthetic : gui::LabInput::Text;
    r.text = std::string(static_cast<size_t>(n), 'a' + i % 26);  // a new input of the same n
    const auto t0 = Clock::now();
    const auto id = engine.post(r);
    while (engine.snapshot()->request_id < id) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (i >= 2) {  // the first two build the model
      latency.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      engine_ms.push_back(engine.snapshot()->compute_ms);
    }
  }
  return {{"L", L},
          {"d", d},
          {"h", h},
          {"n", n},
          {"snapshot_ms_median", median(latency)},
          {"compute_ms_median", median(engine_ms)}};
}
}  // namespace

int main() {
  std::cout << measure(2, 64, 8, 32, 20).dump() << "\n" << measure(4, 256, 16, 128, 10).dump() << std::endl;
  return 0;
}
