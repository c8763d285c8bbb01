// Training throughput of the worker's training step (core::Trainer), for bench/run_train_bench.sh.
// Prints one JSON line: tokens/s, step time, model FLOPs/token, measured sgemm peak and MFU.
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <unistd.h>
#ifdef HEADROOM_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <chrono>
#include <functional>
#include <set>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/worker/run_executor.h"
#include "core/io/safetensors.h"
#include "core/io/tensor_bridge.h"
#include "core/model/parallel_matmul.h"
#include "core/attention/attention_layer.h"
#include "core/attention/fused_attention.h"
#include "core/attention/th_mix.h"
#include "core/train/blas_threads.h"
#include "core/train/device.h"
#include "core/train/trainer.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"

using namespace headroom;

namespace {

// Uniform random tokens: the data costs nothing, so the step is what is measured.
class RandomTokens final : public core::DataSource {
 public:
  explicit RandomTokens(int vocab) : vocab_(vocab) {}
  int vocab_size() const override { return vocab_; }
  std::string describe() const override { return "random tokens"; }
  core::Batch train_batch(uint64_t seed, int64_t step, int batch, int n) const override {
    auto g = at::make_generator<at::CPUGeneratorImpl>(core::mix_seed(seed, static_cast<uint64_t>(step)));
    auto t = torch::randint(0, vocab_, {batch, n + 1}, g, torch::kLong);
    return {t.narrow(1, 0, n).contiguous(), t.narrow(1, 1, n).contiguous(), {}};
  }
  core::Batch validation_batch(int index, int batch, int n) const override { return train_batch(99, index, batch, n); }
  std::string token_label(int32_t id) const override { return std::to_string(id); }

 private:
  int vocab_;
};

// The machine's sgemm peak on every core, 1024^3 products, the better of two ways of using the
// cores: OpenBLAS's own pool on one call, and one single-threaded call per core on row halves
// (how parallel_matmul runs training's matmuls). Leaves OpenBLAS at one thread, as training runs.
double sgemm_peak_gflops() {
  const int64_t n = 1024;
  const int cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  auto a = torch::randn({n, n}), b = torch::randn({n, n});
  auto c = torch::empty({n, n});
  auto measure = [&](const std::function<void()>& mm) {
    for (int i = 0; i < 3; ++i) mm();
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      const int iters = 10;
      for (int i = 0; i < iters; ++i) mm();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, 2.0 * n * n * n * iters / s / 1e9);
    }
    return best;
  };
  core::set_openblas_threads(cores);
  const double pool = measure([&] { at::mm_out(c, a, b); });
  core::set_openblas_threads(1);
  const double split = measure([&] { (void)core::parallel_matmul(a, b, {}, false); });
  return std::max(pool, split);
}

template <typename F>
double best_ms(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// What the worker adds to training at TrainSpec's default intervals, measured piece by piece on
// this model and amortised: a checkpoint (model + AdamW state, and the model-only weights for the
// GUI, encoded and committed with SQLite, older ones pruned) every checkpoint_every steps, a
// metrics commit at most every 2 s (after every step when a step is slower), and validation.
nlohmann::json measure_overhead(core::Trainer& tr, double step_ms) {
  const std::string path = "/tmp/headroom_bench_overhead_" + std::to_string(getpid()) + ".sqlite";
  std::remove(path.c_str());
  nlohmann::json out;
  {
    auto conn = db::Connection::open(path, db::OpenMode::Create);
    db::RunStore store(conn);
    db::NewRun run;
    run.name = "overhead";
    run.config_json = "{}";
    const auto id = store.enqueue_run(run);
    store.claim_next("bench", 0, 1, 0);
    int64_t step = tr.current_step();
    const double ckpt_ms = best_ms(3, [&] {
      auto state = tr.save_state();
      core::StFile weights;
      for (const auto& p : tr.model()->named_parameters())
        weights.tensors.push_back(core::to_st_tensor(p.key(), p.value()));
      const auto a = core::encode_safetensors(state), b = core::encode_safetensors(weights);
      db::Progress pr{id, "bench", ++step, {{"train_loss", step, 0, 0, 1.0}}, {}};
      pr.artifacts.push_back({"checkpoint", step, db::BlobView(a.data(), a.size())});
      pr.artifacts.push_back({"weights", step, db::BlobView(b.data(), b.size())});
      store.commit_progress(pr);
      store.prune_artifacts(id, "checkpoint", 1);
    });
    const double commit_ms = best_ms(5, [&] {
      ++step;
      store.commit_progress({id,
                             "bench",
                             step,
                             {{"train_loss", step, 0, 0, 1.0},
                              {"lr", step, 0, 0, 1.0},
                              {"grad_norm", step, 0, 0, 1.0},
                              {"tokens_per_s", step, 0, 0, 1.0}},
                             {}});
    });
    const double eval_ms = best_ms(2, [&] { tr.evaluate(); });
    const core::TrainSpec defaults;
    const double steps_per_commit = std::max(1.0, 2000.0 / step_ms);
    const double ckpt_frac = ckpt_ms / (defaults.checkpoint_every * step_ms);
    const double commit_frac = commit_ms / (steps_per_commit * step_ms);
    out = {{"checkpoint_ms", ckpt_ms},
           {"metrics_commit_ms", commit_ms},
           {"eval_ms", eval_ms},
           {"checkpoint_every", defaults.checkpoint_every},
           {"eval_every", defaults.eval_every},
           {"logging_and_checkpoint_fraction", ckpt_frac + commit_frac},
           {"eval_fraction", eval_ms / (defaults.eval_every * step_ms)}};
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_train"};
  std::string kind = "multi-head";
  int heads = 8, steps = 20, warmup = 3, d = 256, layers = 4, n = 128, batch = 32, threads = 0, vocab = 256;
  bool peak = false, overhead = false, no_fused = false;
  std::string device = "auto", precision = "fp32";
  std::string profile;
  app.add_option("--attention", kind);
  app.add_option("--heads", heads);
  app.add_option("--d-model", d);
  app.add_option("--layers", layers);
  app.add_option("--n", n);
  app.add_option("--batch", batch);
  app.add_option("--vocab", vocab, "vocabulary V (default 256)");
  app.add_option("--device", device, "auto (CUDA when present), cpu, cuda or cuda:N");
  app.add_option("--precision", precision, "fp32, tf32 or bf16")->check(CLI::IsMember({"fp32", "tf32", "bf16"}));
  app.add_flag("--no-fused", no_fused,
               "the ATen matmul + softmax attention path even where the fused CPU core or SDPA could run");
  std::string mixing = "auto";
  app.add_option("--mixing", mixing, "talking-heads mixing: auto, batched, folded or kernel (core::MixingPath)")
      ->check(CLI::IsMember({"auto", "batched", "folded", "kernel"}));
  app.add_option("--steps", steps);
  app.add_option("--warmup", warmup);
  app.add_option("--threads", threads, "torch intra-op threads (default: the worker's choice, every core)");
  int blas_threads = 0;
  app.add_option("--blas-threads", blas_threads, "OpenBLAS threads (default: the worker's choice)");
  app.add_flag("--peak", peak, "also measure the sgemm peak");
  app.add_option("--profile", profile,
                 "also write a Chrome trace of one more step to this file (LibTorch's profiler; Kineto with the GPU "
                 "kernels on CUDA)");
  app.add_flag("--overhead", overhead,
               "also measure what logging, checkpoints and validation add at the default intervals");
  CLI11_PARSE(app, argc, argv);

  std::string resolved;
  try {
    resolved = core::resolve_device(device);
  } catch (const std::invalid_argument& e) {
    std::cerr << "bench_train: --" << e.what() << "\n";
    return 2;
  }
  core::set_fused_attention_enabled(!no_fused);
  core::set_mixing_path(mixing == "folded"    ? core::MixingPath::Folded
                        : mixing == "kernel"  ? core::MixingPath::Kernel
                        : mixing == "batched" ? core::MixingPath::Batched
                                              : core::MixingPath::Auto);
  worker::configure_training_process(threads);
  if (blas_threads > 0) core::set_openblas_threads(blas_threads);
  core::ModelSpec m;
  m.vocab = vocab;
  m.width = d;
  m.depth = layers;
  m.context = n;
  core::AttentionRequest r{*core::parse_attention_kind(kind), d, heads};
  r.causal = true;
  m.attention = *core::make_attention_spec(r, nullptr);
  core::TrainSpec t;
  t.steps = warmup + steps + 1;
  t.batch = batch;
  t.warmup = 1;
  t.device = resolved;
  t.precision = *core::parse_precision(precision);
  core::Trainer tr(m, t, std::make_shared<RandomTokens>(vocab));
  for (int i = 0; i < warmup; ++i) tr.step();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) tr.step();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Model FLOPs per token (fwd + bwd = 3x fwd): 6 x non-embedding weights, plus the attention
  // matmuls (QK^T and WV: 2 x 2 x n x h x d_k per layer forward, causal half not subtracted).
  int64_t weights = 0;
  for (const auto& p : tr.model()->named_parameters())
    if (p.key().find("tok.") != 0 && p.key().find("pos.") != 0 && p.value().dim() >= 2) weights += p.value().numel();
  const double attn =
      2.0 * 2.0 * n * (m.attention.heads_k * m.attention.d_k + m.attention.heads_v * m.attention.d_v) / 2 * layers;
  const double flops_per_token = 6.0 * weights + 3.0 * attn;
  const double tok_s = double(steps) * batch * n / secs;
  nlohmann::json out = {{"impl", "headroom"},
                        {"attention", kind},
                        {"heads", heads},
                        {"device", resolved},
                        {"precision", precision},
                        {"mixing", mixing},
                        {"fused_core", !no_fused && core::fused_attention_unavailable_reason().empty()},
                        {"torch", core::torch_build_summary()},
                        {"openblas_core", core::openblas_core_name()},
                        {"tokens_per_s", tok_s},
                        {"step_ms", secs / steps * 1e3},
                        {"flops_per_token", flops_per_token},
                        {"gflops", tok_s * flops_per_token / 1e9}};
#ifdef HEADROOM_TORCH_CUDA
  if (tr.device().is_cuda()) {
    // Peak bytes the caching allocator handed out (torch.cuda.max_memory_allocated in Python).
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(tr.device().index());
    out["peak_gpu_gib"] = double(stats.allocated_bytes[0].peak) / double(1ull << 30);
  }
#endif
  if (mixing == "kernel") {
    // MixingPath::Kernel falls back to Batched where th_mix cannot run (no kernels in this build,
    // not CUDA, a row too big for shared memory): say so, so a fallback never reads as the kernel.
    const auto dtype = tr.device().is_cuda() && precision == "bf16" ? torch::kBFloat16 : torch::kFloat32;
    const auto J =
        torch::empty({1, m.attention.heads_k, 1, n}, torch::TensorOptions().dtype(dtype).device(tr.device()));
    const std::string why =
        core::th_mix_unavailable_reason(J, m.attention.heads_k, m.attention.heads, m.attention.heads_v);
    out["kernel_unavailable"] = why;
    if (!why.empty()) std::cerr << "bench_train: --mixing kernel ran as batched: " << why << "\n";
  }
  if (peak) {
    const double p = sgemm_peak_gflops();
    out["sgemm_peak_gflops"] = p;
    out["mfu"] = tok_s * flops_per_token / 1e9 / p;
  }
  if (!profile.empty() && !tr.finished()) {
    if (tr.device().is_cuda()) {
      // Kineto: every CUDA kernel with its time on the GPU, beside the CPU ops that launched it
      // (bench/profile_summary.py sums them by kernel).
      namespace prof = torch::profiler::impl;
      const prof::ProfilerConfig config(prof::ProfilerState::KINETO);
      const std::set<prof::ActivityType> activities{prof::ActivityType::CPU, prof::ActivityType::CUDA};
      torch::autograd::profiler::prepareProfiler(config, activities);
      torch::autograd::profiler::enableProfiler(config, activities);
      tr.step();
      torch::cuda::synchronize();
      torch::autograd::profiler::disableProfiler()->save(profile);
    } else {
      torch::autograd::profiler::RecordProfile guard(profile);
      tr.step();
    }
  }
  if (overhead) out["overhead"] = measure_overhead(tr, secs / steps * 1e3);
  std::cout << out.dump() << std::endl;
  return 0;
}
