// Control change -> updated lab snapshot (forward, traces, every head's spectrum, projections),
// measured in-process on the lab engine's thread for the two configurations issue #4 names.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/lab/lab_engine.h"
#include "core/train/blas_threads.h"

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
  std::vector<double> latency, first_answer, engine_ms;
  for (int i = 0; i < samples + 2; ++i) {
    r.synthetic_n = n;
    r.text = std::to_string(i);
    r.input = i % 2 ? gui::LabInput::Synthetic : gui::LabInput::Text;
    r.text = std::string(static_cast<size_t>(n), 'a' + i % 26);  // a new input of the same n
    const auto t0 = Clock::now();
    const auto id = engine.post(r);
    while (engine.snapshot()->request_id < id) std::this_thread::sleep_for(std::chrono::microseconds(100));
    const auto t_first = Clock::now();  // the maps (a partial snapshot, its spectra to follow)
    while (engine.snapshot()->partial) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (i >= 2) {  // the first two build the model
      latency.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      first_answer.push_back(std::chrono::duration<double, std::milli>(t_first - t0).count());
      engine_ms.push_back(engine.snapshot()->compute_ms);
    }
  }
  return {{"L", L},
          {"openblas_core", core::openblas_core_name()},
          {"d", d},
          {"h", h},
          {"n", n},
          {"snapshot_ms_median", median(latency)},
          {"first_answer_ms_median", median(first_answer)},
          {"compute_ms_median", median(engine_ms)}};
}
double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// A real checkpoint (issue 16): opening it on the engine thread, then a sentence -> every map,
// spectrum and rank, for `samples` sentences that differ in their last word (the same length).
nlohmann::json measure_model(const std::string& dir, const std::string& text, int samples) {
  gui::LabEngine engine;
  gui::LabRequest r;
  r.text = text;
  const auto t0 = Clock::now();
  const auto open_id = engine.open_model(dir);
  engine.post(r);
  while (engine.snapshot()->real.request_id < open_id || engine.snapshot()->version == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto first = engine.snapshot();
  if (first->real.dir.empty()) return {{"error", first->real.error}};
  const double open_and_first_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::vector<double> latency, engine_ms;
  for (int i = 0; i < samples; ++i) {
    r.text = text + (i % 2 ? " light" : " earth");
    const auto t1 = Clock::now();
    const auto id = engine.post(r);
    while (engine.snapshot()->request_id < id) std::this_thread::sleep_for(std::chrono::microseconds(200));
    latency.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t1).count());
    engine_ms.push_back(engine.snapshot()->compute_ms);
  }
  return {{"model", dir},
          {"family", first->real.family},
          {"parameters", first->real.parameters},
          {"tokens", engine.snapshot()->n},
          {"open_ms", first->real.open_ms},
          {"open_and_first_snapshot_ms", open_and_first_ms},
          {"snapshot_ms_median", median(latency)},
          {"snapshot_ms_p95", percentile(latency, 0.95)},
          {"compute_ms_median", median(engine_ms)}};
}
}  // namespace

// bench_lab                       the lab's own models (issue 4's two configurations)
// bench_lab --model DIR --text T  a real checkpoint on the sentence T (bench/run_model_bench.sh)
int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--model" && std::string(argv[3]) == "--text") {
    std::cout << measure_model(argv[2], argv[4], 20).dump() << std::endl;
    return 0;
  }
  if (argc != 1) {
    std::cerr << "usage: bench_lab [--model DIR --text SENTENCE]\n";
    return 2;
  }
  std::cout << measure(2, 64, 8, 32, 20).dump() << "\n" << measure(4, 256, 16, 128, 10).dump() << std::endl;
  return 0;
}
