// Devices and precision (issue 11): how runs name them, how this process resolves them, bf16
// autocast on the CPU, checkpoints across precisions and devices. The CUDA tests build everywhere
// and skip, saying why, on a machine without a GPU (CI has none).
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "core/train/blas_threads.h"
#include "core/attention/attention_layer.h"
#include "core/train/device.h"
#include "core/train/trainer.h"
#include "tests/core/train_test_util.h"

using namespace headroom::core;
using headroom::core::test::quick;
using headroom::core::test::tiny;

namespace {

std::shared_ptr<const DataSource> copy_task() {
  return std::shared_ptr<const DataSource>(make_data_source("copy", "bytes"));
}

std::string thrown_by(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

#define SKIP_WITHOUT_CUDA() \
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU in this process (" << torch_build_summary() << ")"

}  // namespace

TEST(Device, RequestsAreSpelledAutoCpuCudaOrCudaN) {
  for (const char* ok : {"auto", "cpu", "cuda", "cuda:0", "cuda:7", "cuda:123"})
    EXPECT_TRUE(is_device_request(ok)) << ok;
  for (const char* bad : {"", "gpu", "CPU", "cuda:", "cuda:-1", "cuda:x", "cuda:1234", "cuda0", "mps"})
    EXPECT_FALSE(is_device_request(bad)) << bad;
  EXPECT_NE(thrown_by([] { resolve_device("gpu"); }).find("not one of auto, cpu, cuda, cuda:N"), std::string::npos);
}

TEST(Device, CpuIsAlwaysThereAndAutoMeansCudaOnlyWhenAGpuIs) {
  EXPECT_EQ(resolve_device("cpu"), "cpu");
  EXPECT_EQ(resolve_device("auto"), torch::cuda::is_available() ? "cuda:0" : "cpu");
  EXPECT_NE(torch_build_summary().find("LibTorch "), std::string::npos);
}

TEST(Device, CudaWithoutAGpuIsOneLineSayingWhatIsMissingAndWhatWorks) {
  if (torch::cuda::is_available()) {
    EXPECT_EQ(resolve_device("cuda"), "cuda:0");
    const auto past = "cuda:" + std::to_string(torch::cuda::device_count());
    EXPECT_NE(thrown_by([&] { resolve_device(past); }).find("this machine shows"), std::string::npos);
    return;
  }
  for (const char* request : {"cuda", "cuda:1"}) {
    const std::string message = thrown_by([&] { resolve_device(request); });
    EXPECT_NE(message.find(std::string("device ") + request), std::string::npos) << message;
    EXPECT_TRUE(message.find("without CUDA") != std::string::npos || message.find("no CUDA GPU") != std::string::npos)
        << message;
    EXPECT_NE(message.find("--device cpu"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(TrainSpecDevice, PrecisionAndDeviceRoundTripAndOlderConfigsReadAsFp32Auto) {
  TrainSpec t = quick(3, Precision::Bf16, "cuda:1");
  const auto j = to_json(t);
  EXPECT_EQ(j["precision"], "bf16");
  EXPECT_EQ(j["device"], "cuda:1");
  EXPECT_EQ(train_spec_from_json(j), t);

  auto older = j;  // written before devices existed
  older.erase("precision");
  older.erase("device");
  const TrainSpec read = train_spec_from_json(older);
  EXPECT_EQ(read.precision, Precision::Fp32);
  EXPECT_EQ(read.device, "auto");

  auto bad = j;
  bad["precision"] = "fp16";
  EXPECT_NE(thrown_by([&] { train_spec_from_json(bad, "suite.toml: run a"); }).find("suite.toml: run a.precision"),
            std::string::npos);
  bad = j;
  bad["device"] = "gpu0";
  EXPECT_NE(thrown_by([&] { train_spec_from_json(bad); }).find("train.device"), std::string::npos);
}

TEST(TrainSpecDevice, TheSameRunOnAnotherDeviceIsTheSameComputationButNotInAnotherPrecision) {
  const TrainSpec a = quick(3, Precision::Fp32, "cpu");
  EXPECT_TRUE(same_computation(a, quick(3, Precision::Fp32, "cuda:0")));
  EXPECT_FALSE(same_computation(a, quick(3, Precision::Bf16, "cpu")));
  EXPECT_FALSE(same_computation(a, quick(4, Precision::Fp32, "cpu")));
  EXPECT_FALSE(a == quick(3, Precision::Fp32, "cuda:0"));  // equality still sees the device
}

// On the CPU there is no TF32: a tf32 run computes exactly what an fp32 run does.
TEST(TrainerPrecision, Tf32OnTheCpuIsExactlyFp32) {
  Trainer fp32(tiny(), quick(6), copy_task()), tf32(tiny(), quick(6, Precision::Tf32), copy_task());
  while (!fp32.finished()) EXPECT_EQ(fp32.step().train_loss, tf32.step().train_loss);
}

// bf16 autocast: the forward in bfloat16 (its logits differ from fp32's by bf16 rounding), the
// weights and AdamW's moments in float32, and it learns like fp32 does.
TEST(TrainerPrecision, Bf16AutocastKeepsFloat32MasterWeightsAndLearns) {
  for (const auto kind : {AttentionKind::MultiHead, AttentionKind::TalkingHeads, AttentionKind::DynamicProj}) {
    const std::string what = to_string(kind);
    Trainer fp32(tiny(kind), quick(60), copy_task()), bf16(tiny(kind), quick(60, Precision::Bf16), copy_task());
    const double start32 = fp32.evaluate(), start16 = bf16.evaluate();
    EXPECT_NEAR(start16, start32, 0.05 * start32) << what;  // same weights, bf16 rounding
    EXPECT_NE(start16, start32) << what << ": bf16 computed exactly fp32, so autocast did not engage";
    std::vector<double> l32, l16;
    while (!fp32.finished()) {
      l32.push_back(fp32.step().train_loss);
      l16.push_back(bf16.step().train_loss);
    }
    for (const auto& p : bf16.model()->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat32) << what;
    const StFile state = bf16.save_state();
    for (const auto& t : state.tensors) EXPECT_EQ(t.dtype, "F32") << what << " " << t.name;
    EXPECT_LT(bf16.evaluate(), start16 - 0.3) << what;
    EXPECT_NEAR(l16.back(), l32.back(), 0.25) << what;
  }
}

TEST(TrainerPrecision, ACheckpointResumesOnlyInItsOwnPrecision) {
  Trainer bf16(tiny(), quick(4, Precision::Bf16), copy_task());
  bf16.step();
  const StFile state = bf16.save_state();
  Trainer fp32(tiny(), quick(4), copy_task());
  const std::string message = thrown_by([&] { fp32.load_state(state); });
  EXPECT_NE(message.find("trained in bf16, this run is fp32"), std::string::npos) << message;
  Trainer again(tiny(), quick(4, Precision::Bf16), copy_task());
  again.load_state(state);
  EXPECT_EQ(again.current_step(), 1);
}

TEST(TrainerDevice, ADeviceThisProcessLacksIsRefusedBeforeAnythingIsBuilt) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU";
  const std::string message = thrown_by([] { Trainer tr(tiny(), quick(2, Precision::Fp32, "cuda"), copy_task()); });
  EXPECT_NE(message.find("device cuda"), std::string::npos) << message;
}

// Every kind in float32 on `device` against the same layer in float64 on the CPU, forward and
// gradients (of the input and every parameter), by relative error ||x32 - x64|| / ||x64||. TF32
// off: float32 arithmetic at these sizes lands near 1e-7..1e-6; the bound leaves room for the
// dynamic projections, whose logits are products of two learned terms (their gradients are the
// least well conditioned). Returns the worst error seen, for the log.
static double worst_float32_error_against_float64(const torch::Device& device) {
  at::globalContext().setFloat32MatmulPrecision("highest");
  double worst = 0;
  for (const auto kind : all_attention_kinds()) {
    AttentionRequest r{kind, 24, 4};
    r.causal = true;
    torch::manual_seed(5);
    AttentionLayer ref(*make_attention_spec(r, nullptr)), dut(*make_attention_spec(r, nullptr));
    {
      torch::NoGradGuard g;
      for (auto& p : ref->parameters()) p.add_(0.3 * torch::randn_like(p));
      const auto from = ref->parameters();
      auto to = dut->parameters();
      for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
    }
    ref->to(torch::kFloat64);
    dut->to(device);
    const auto x = torch::randn({3, 20, 24}, torch::kFloat64);
    auto run = [&](AttentionLayer& layer, const torch::Tensor& input, std::vector<torch::Tensor>* grads) {
      auto xi = input.clone().requires_grad_(true);
      layer->zero_grad();
      auto y = layer->forward(xi);
      (y * y).sum().backward();
      grads->push_back(xi.grad().to(torch::kCPU, torch::kFloat64));
      for (const auto& p : layer->parameters()) grads->push_back(p.grad().to(torch::kCPU, torch::kFloat64));
      return y.detach().to(torch::kCPU, torch::kFloat64);
    };
    auto relative = [](const torch::Tensor& a, const torch::Tensor& b) {
      return ((a - b).norm() / b.norm().clamp_min(1e-30)).item<double>();
    };
    std::vector<torch::Tensor> g64, g32;
    const auto y64 = run(ref, x, &g64);
    const auto y32 = run(dut, x.to(device, torch::kFloat32), &g32);
    const std::string what = std::string(to_string(kind)) + " on " + device.str();
    const double out_error = relative(y32, y64);
    EXPECT_LT(out_error, 1e-5) << what << " output";
    worst = std::max(worst, out_error);
    for (size_t i = 0; i < g64.size(); ++i) {
      const double e = relative(g32[i], g64[i]);
      EXPECT_LT(e, 1e-4) << what << " gradient " << i;
      worst = std::max(worst, e);
    }
  }
  return worst;
}

TEST(Float32, EveryKindsForwardAndGradientsEqualFloat64OnTheCpu) {
  std::cout << "worst relative error, CPU float32: " << worst_float32_error_against_float64(torch::kCPU) << "\n";
}

// ---- CUDA (skipped without a GPU) ----------------------------------------------------------------

// The same on CUDA in float32 (SDPA for multi-head and fixed-head on LibTorch 2.x).
TEST(Cuda, EveryKindsForwardAndGradientsEqualTheCpuInFloat64) {
  SKIP_WITHOUT_CUDA();
  std::cout << "worst relative error, CUDA float32: " << worst_float32_error_against_float64(torch::Device("cuda:0"))
            << "\n";
}

// A run moves: a checkpoint written on CUDA resumes on the CPU and one written on the CPU resumes
// on CUDA, and the moved run's losses follow the unmoved run's within float32 rounding.
TEST(Cuda, ACheckpointMovesBetweenTheGpuAndTheCpu) {
  SKIP_WITHOUT_CUDA();
  for (const std::string from : {"cuda:0", "cpu"}) {
    const std::string to = from == "cpu" ? "cuda:0" : "cpu";
    Trainer straight(tiny(), quick(12, Precision::Fp32, from), copy_task());
    std::vector<double> losses;
    while (!straight.finished()) losses.push_back(straight.step().train_loss);
    Trainer first(tiny(), quick(12, Precision::Fp32, from), copy_task());
    for (int i = 0; i < 6; ++i) first.step();
    Trainer moved(tiny(), quick(12, Precision::Fp32, to), copy_task());
    moved.load_state(first.save_state());
    EXPECT_EQ(moved.current_step(), 6);
    for (size_t i = 6; i < losses.size(); ++i)
      EXPECT_NEAR(moved.step().train_loss, losses[i], 1e-3) << from << " -> " << to;
  }
}

TEST(Cuda, Bf16TrainsOnTheGpuWithFloat32MasterWeights) {
  SKIP_WITHOUT_CUDA();
  Trainer bf16(tiny(), quick(60, Precision::Bf16, "cuda:0"), copy_task());
  const double before = bf16.evaluate();
  while (!bf16.finished()) bf16.step();
  EXPECT_LT(bf16.evaluate(), before - 0.3);
  for (const auto& p : bf16.model()->parameters()) {
    EXPECT_EQ(p.scalar_type(), torch::kFloat32);
    EXPECT_TRUE(p.device().is_cuda());
  }
}

TEST(OpenBlas, WhereItIsLoadedItNamesTheKernelsItChose) {
  // The benchmarks print the name beside their figures (OpenBLAS's oldest kernels, "Prescott", on
  // a CPU it does not recognise, run several times slower than its AVX-512 ones).
  const bool loaded = headroom::core::set_openblas_threads(1);
  const std::string name = headroom::core::openblas_core_name();
  if (loaded) {
    EXPECT_FALSE(name.empty()) << "OpenBLAS is loaded but names no kernels";
  } else {
    EXPECT_TRUE(name.empty()) << name;
  }
}

TEST(OpenBlas, AdviceNamesTheKernelsACpuSupportsWhenOpenBlasRunsOlderOnes) {
  using headroom::core::openblas_kernel_advice;
  const headroom::core::CpuVectorUnits avx512{true, true}, avx2{true, false}, sse{false, false};
  const std::string on_avx512 = openblas_kernel_advice("Prescott", avx512, false);
  EXPECT_NE(on_avx512.find("\"Prescott\""), std::string::npos) << on_avx512;
  EXPECT_NE(on_avx512.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << on_avx512;
  const std::string on_avx2 = openblas_kernel_advice("Sandybridge", avx2, false);
  EXPECT_NE(on_avx2.find("OPENBLAS_CORETYPE=Haswell"), std::string::npos) << on_avx2;
  EXPECT_EQ(on_avx2.find("SkylakeX"), std::string::npos) << on_avx2;
  // Nothing to say: kernels that use AVX2 already, a CPU without it, the user's own choice, no OpenBLAS.
  EXPECT_EQ(openblas_kernel_advice("Haswell", avx512, false), "");
  EXPECT_EQ(openblas_kernel_advice("SkylakeX", avx512, false), "");
  EXPECT_EQ(openblas_kernel_advice("Zen", avx2, false), "");
  EXPECT_EQ(openblas_kernel_advice("Prescott", sse, false), "");
  EXPECT_EQ(openblas_kernel_advice("Prescott", avx512, true), "");
  EXPECT_EQ(openblas_kernel_advice("", avx512, false), "");
}

TEST(OpenBlas, NoAdviceWhereTheUserChoseTheKernels) {
  // A user who set OPENBLAS_CORETYPE has decided; the advice is for those who have not.
  const char* before = std::getenv("OPENBLAS_CORETYPE");
  const std::string kept = before ? before : "";
  setenv("OPENBLAS_CORETYPE", "Prescott", 1);
  EXPECT_EQ(headroom::core::openblas_kernel_advice(), "");
  if (before) {
    setenv("OPENBLAS_CORETYPE", kept.c_str(), 1);
  } else {
    unsetenv("OPENBLAS_CORETYPE");
  }
  if (headroom::core::openblas_core_name().empty()) {
    EXPECT_EQ(headroom::core::openblas_kernel_advice(), "");
  }
}
