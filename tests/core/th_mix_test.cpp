// th_mix: talking-heads' mix -> mask -> softmax -> mix as one autograd function (core/attention/th_mix.h).
// On the CPU: its autograd arithmetic (dP_l and dP_w as sums over positions, absent projections,
// the causal mask) with the ATen references in place of the kernels, against autograd through the
// formula in float64, and the reasons it gives for not running. On CUDA (skipped without a GPU or
// without the kernels): the kernels against the references, in float32 and bfloat16, and the
// attention layer's Kernel mixing path against its Batched one.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>
#include <string>
#include <vector>

#include "core/attention/attention_layer.h"
#include "core/attention/attention_spec.h"
#include "core/attention/fused_attention.h"
#include "core/attention/th_mix.h"
#include "core/train/device.h"

using namespace headroom::core;

namespace {

// U of TH §4 by autograd through ATen ops: the definition the function must meet.
torch::Tensor formula(const torch::Tensor& J, const torch::Tensor& p_l, const torch::Tensor& p_w, bool causal) {
  auto L = p_l.defined() ? torch::einsum("bknm,kh->bhnm", {J, p_l}) : J;
  if (causal) {
    const int64_t n = J.size(2), m = J.size(3);
    const auto future = torch::ones({n, m}, J.options().dtype(torch::kBool)).triu(1 + (m - n));
    L = L.masked_fill(future, -std::numeric_limits<double>::infinity());
  }
  const auto W = torch::softmax(L, -1);
  return p_w.defined() ? torch::einsum("bhnm,hv->bvnm", {W, p_w}) : W;
}

struct Case {
  int64_t batch, hk, h, hv, n, m;
  bool causal, has_pl, has_pw;
  std::string name() const {
    return "B" + std::to_string(batch) + " h_k" + std::to_string(hk) + " h" + std::to_string(h) + " h_v" +
           std::to_string(hv) + " n" + std::to_string(n) + " m" + std::to_string(m) + (causal ? " causal" : "") +
           (has_pl ? "" : " no P_l") + (has_pw ? "" : " no P_w");
  }
};

struct Grads {
  torch::Tensor U, dJ, dPl, dPw;
};

// U and the gradients of sum(U * G) through `mix`, in `type` on `device`; the inputs are drawn on
// the CPU in float64 from the case's seed, so every caller sees the same numbers.
template <typename Mix>
Grads run(const Case& c, Mix mix, torch::ScalarType type, const torch::Device& device) {
  torch::manual_seed(static_cast<uint64_t>(c.batch * 1000 + c.h * 10 + c.n));
  const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  const auto J0 = 2.0 * torch::randn({c.batch, c.hk, c.n, c.m}, opts);
  const auto pl0 = torch::eye(c.hk, c.h, opts) + 0.5 * torch::randn({c.hk, c.h}, opts);
  const auto pw0 = torch::eye(c.h, c.hv, opts) + 0.5 * torch::randn({c.h, c.hv}, opts);
  const auto G0 = torch::randn({c.batch, c.hv, c.n, c.m}, opts);
  auto J = J0.to(device, type).requires_grad_(true);
  // P_l and P_w stay float32 (or float64) as parameters do under autocast; J carries the storage type.
  const auto ptype = type == torch::kBFloat16 ? torch::kFloat32 : type;
  auto pl = c.has_pl ? pl0.to(device, ptype).requires_grad_(true) : torch::Tensor();
  auto pw = c.has_pw ? pw0.to(device, ptype).requires_grad_(true) : torch::Tensor();
  const auto U = mix(J, pl, pw, c.causal);
  (U.to(torch::kFloat64) * G0.to(device)).sum().backward();
  Grads g;
  g.U = U.detach().to(torch::kCPU, torch::kFloat64);
  g.dJ = J.grad().to(torch::kCPU, torch::kFloat64);
  if (c.has_pl) g.dPl = pl.grad().to(torch::kCPU, torch::kFloat64);
  if (c.has_pw) g.dPw = pw.grad().to(torch::kCPU, torch::kFloat64);
  return g;
}

double relative(const torch::Tensor& got, const torch::Tensor& want) {
  return (got - want).abs().max().item<double>() / std::max(1e-12, want.abs().max().item<double>());
}

void expect_close(const Grads& got, const Grads& want, double tolerance, const std::string& what) {
  EXPECT_LT(relative(got.U, want.U), tolerance) << what << ": U";
  EXPECT_LT(relative(got.dJ, want.dJ), tolerance) << what << ": dJ";
  if (want.dPl.defined()) {
    EXPECT_LT(relative(got.dPl, want.dPl), tolerance) << what << ": dP_l";
  }
  if (want.dPw.defined()) {
    EXPECT_LT(relative(got.dPw, want.dPw), tolerance) << what << ": dP_w";
  }
  EXPECT_GT(want.U.abs().max().item<double>(), 1e-3) << what;  // the comparison is not of zeros
}

std::vector<Case> cases() {
  return {
      {2, 3, 4, 5, 7, 7, true, true, true},      // h_k, h, h_v all different: a transposed P shows
      {2, 3, 4, 5, 7, 7, false, true, true},     // no mask
      {1, 4, 4, 4, 6, 9, true, true, true},      // m > n: the mask's offset (keys before the queries)
      {2, 3, 5, 5, 8, 8, true, true, false},     // logits-projection only (U = W)
      {2, 4, 4, 2, 8, 8, true, false, true},     // weights-projection only (L = J)
      {1, 2, 2, 2, 1, 1, true, true, true},      // one position
      {1, 12, 12, 12, 40, 40, true, true, true}  // more heads than a chunk of 8, m not a multiple of 32
  };
}

#define SKIP_WITHOUT_KERNELS()                                                                       \
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU (" << torch_build_summary() << ")"; \
  if (!th_mix_kernels_built()) GTEST_SKIP() << "this build has no CUDA kernels (no nvcc at configure time)"

}  // namespace

// The autograd function's own arithmetic, with the ATen references where the kernels go: the
// gradients of J, P_l and P_w (sums over positions of J dL^T and W dU^T) equal autograd through the
// formula in float64.
TEST(ThMix, AutogradFunctionEqualsTheFormulaInFloat64) {
  for (const Case& c : cases()) {
    const auto want = run(c, formula, torch::kFloat64, torch::kCPU);
    const auto got = run(c, th_mix_with_references, torch::kFloat64, torch::kCPU);
    expect_close(got, want, 1e-12, c.name());
  }
}

// The references hide the future: weights and their gradients are 0 where the causal mask is.
TEST(ThMix, ReferencesAreZeroWhereTheMaskHidesAKey) {
  torch::manual_seed(3);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  const auto J = torch::randn({1, 2, 5, 5}, opts), pl = torch::randn({2, 3}, opts), pw = torch::randn({3, 2}, opts);
  const auto [W, U] = th_mix_forward_reference(J, pl, pw, true);
  const auto future = torch::ones({5, 5}, torch::kBool).triu(1);
  EXPECT_EQ(W.masked_select(future.expand_as(W)).abs().max().item<double>(), 0.0);
  EXPECT_NEAR(W.sum(-1).min().item<double>(), 1.0, 1e-12);  // each row of each head sums to 1
  const auto [dL, dJ] = th_mix_backward_reference(W, torch::randn_like(U), pl, pw);
  EXPECT_EQ(dL.masked_select(future.expand_as(dL)).abs().max().item<double>(), 0.0);
  EXPECT_EQ(dJ.masked_select(future.expand_as(dJ)).abs().max().item<double>(), 0.0);
}

TEST(ThMix, SaysWhyItCannotRunOnTheCpu) {
  const auto J = torch::zeros({1, 2, 4, 4});
  const std::string why = th_mix_unavailable_reason(J, 2, 2, 2);
  ASSERT_FALSE(why.empty());
  if (th_mix_kernels_built()) EXPECT_NE(why.find("on cpu"), std::string::npos) << why;
  else EXPECT_NE(why.find("no talking-heads mixing kernel"), std::string::npos) << why;
}

// MixingPath::Kernel where th_mix cannot run (here: the CPU) is the Batched path, value for value.
// The fused CPU core is off, so both take the ATen path where the layer asks th_mix (were th_mix
// to claim it could run here, it would throw).
TEST(ThMix, KernelPathFallsBackToBatchedWhereItCannotRun) {
  struct Path {
    explicit Path(MixingPath p) { set_mixing_path(p); }
    ~Path() { set_mixing_path(MixingPath::Auto); }
  };
  struct FusedOff {
    FusedOff() { set_fused_attention_enabled(false); }
    ~FusedOff() { set_fused_attention_enabled(true); }
  } fused_off;
  AttentionRequest r{AttentionKind::TalkingHeads, 24, 4};
  r.causal = true;
  r.heads_k = 3;
  r.heads_v = 5;
  AttentionLayer layer(*make_attention_spec(r, nullptr));
  torch::manual_seed(1);
  const auto x = torch::randn({2, 9, 24});
  torch::Tensor batched, kernel;
  {
    const Path p(MixingPath::Batched);
    batched = layer->forward(x).detach();
  }
  {
    const Path p(MixingPath::Kernel);
    kernel = layer->forward(x).detach();
  }
  EXPECT_TRUE(torch::equal(batched, kernel));
  const auto automatic = layer->forward(x).detach();  // Auto prefers the kernel at 5 heads: batched here too
  EXPECT_TRUE(torch::equal(batched, automatic));
}

// Auto's rule, as measured on an H200 (attention_layer.h): the kernel up to 32 heads on every side
// of the mixing (a win at 8, 12 and 32), batched beyond (not measured there).
TEST(ThMix, AutoPrefersTheKernelUpToThirtyTwoHeads) {
  EXPECT_TRUE(auto_mixing_prefers_kernel(8, 8, 8));
  EXPECT_TRUE(auto_mixing_prefers_kernel(12, 12, 12));
  EXPECT_TRUE(auto_mixing_prefers_kernel(6, 24, 24));  // th_head_dims at paper scale
  EXPECT_TRUE(auto_mixing_prefers_kernel(32, 32, 32));
  EXPECT_FALSE(auto_mixing_prefers_kernel(8, 33, 8));
  EXPECT_FALSE(auto_mixing_prefers_kernel(64, 64, 64));
  EXPECT_FALSE(auto_mixing_prefers_kernel(8, 8, 128));
}

// ---- CUDA (skipped without a GPU or the kernels) ---------------------------------------------------

// The kernels against the references, through the same autograd function: float32 within 1e-5
// (float32 sums in a different order), bfloat16 storage within 2e-2 (8 bits of mantissa; the
// references also round W and dL to bfloat16).
TEST(ThMixCuda, KernelsEqualTheReferences) {
  SKIP_WITHOUT_KERNELS();
  const torch::Device cuda("cuda:0");
  std::vector<Case> all = cases();
  all.push_back({2, 24, 24, 24, 64, 64, true, true, true});     // th_head_dims' h at paper scale
  all.push_back({1, 128, 128, 128, 33, 33, true, true, true});  // ~200 KiB of shared memory (opt-in)
  all.push_back({2, 12, 12, 12, 300, 300, true, true, true});   // 256 threads a block, rows of 300
  for (const Case& c : all) {
    ASSERT_EQ(th_mix_unavailable_reason(torch::zeros({c.batch, c.hk, c.n, c.m}, cuda), c.hk, c.h, c.hv), "")
        << c.name();
    for (const auto type : {torch::kFloat32, torch::kBFloat16}) {
      const auto want = run(c, th_mix_with_references, type, cuda);
      const auto got = run(c, th_mix, type, cuda);
      expect_close(got, want, type == torch::kFloat32 ? 1e-5 : 2e-2,
                   c.name() + (type == torch::kFloat32 ? " float32" : " bfloat16"));
    }
  }
}

TEST(ThMixCuda, SaysWhenARowDoesNotFitInSharedMemory) {
  SKIP_WITHOUT_KERNELS();
  const auto J = torch::zeros({1, 512, 1, 512}, torch::Device("cuda:0"));
  const std::string why = th_mix_unavailable_reason(J, 512, 512, 512);
  EXPECT_NE(why.find("KiB of shared memory"), std::string::npos) << why;
}

// The layer's Kernel path is the Batched path's function: outputs and every gradient, float32.
TEST(ThMixCuda, AttentionLayerKernelPathEqualsBatched) {
  SKIP_WITHOUT_KERNELS();
  struct Path {
    explicit Path(MixingPath p) { set_mixing_path(p); }
    ~Path() { set_mixing_path(MixingPath::Auto); }
  };
  for (const auto kind : {AttentionKind::TalkingHeads, AttentionKind::LogitsProj, AttentionKind::WeightsProj}) {
    AttentionRequest r{kind, 24, 4};
    r.causal = true;
    if (kind == AttentionKind::TalkingHeads) {
      r.heads_k = 3;
      r.heads_v = 5;
    }
    AttentionLayer layer(*make_attention_spec(r, nullptr));
    layer->to(torch::Device("cuda:0"));
    {
      torch::NoGradGuard g;
      for (auto& p : layer->parameters()) p.add_(0.3 * torch::randn_like(p));
    }
    torch::manual_seed(2);
    const auto x0 = torch::randn({2, 70, 24}).to(torch::Device("cuda:0"));
    auto pass = [&](MixingPath path, std::vector<torch::Tensor>* grads) {
      const Path p(path);
      auto x = x0.clone().requires_grad_(true);
      layer->zero_grad();
      auto y = layer->forward(x);
      (y * torch::linspace(-1, 1, y.numel(), y.options()).view(y.sizes())).sum().backward();
      grads->push_back(x.grad().clone());
      for (const auto& p : layer->parameters()) grads->push_back(p.grad().clone());
      return y.detach();
    };
    std::vector<torch::Tensor> g_batched, g_kernel;
    const auto y_batched = pass(MixingPath::Batched, &g_batched);
    const auto y_kernel = pass(MixingPath::Kernel, &g_kernel);
    const std::string what = to_string(kind);
    EXPECT_LT(relative(y_kernel.cpu().to(torch::kFloat64), y_batched.cpu().to(torch::kFloat64)), 1e-5) << what;
    ASSERT_EQ(g_batched.size(), g_kernel.size());
    for (size_t i = 0; i < g_batched.size(); ++i) {
      EXPECT_LT(relative(g_kernel[i].cpu().to(torch::kFloat64), g_batched[i].cpu().to(torch::kFloat64)), 1e-4)
          << what << " gradient " << i;
    }
  }
}

// Auto on CUDA takes the kernel up to 32 heads and batched above (auto_mixing_prefers_kernel):
// its output equals the forced path's bit for bit (the same launches), one side of the bound each.
TEST(ThMixCuda, AutoTakesTheKernelUpToThirtyTwoHeadsAndBatchedAbove) {
  SKIP_WITHOUT_KERNELS();
  struct Path {
    explicit Path(MixingPath p) { set_mixing_path(p); }
    ~Path() { set_mixing_path(MixingPath::Auto); }
  };
  const torch::Device cuda("cuda:0");
  for (const int heads : {8, 32, 64}) {
    AttentionRequest r{AttentionKind::TalkingHeads, 64, heads};
    r.causal = true;
    AttentionLayer layer(*make_attention_spec(r, nullptr));
    layer->to(cuda);
    torch::NoGradGuard g;
    for (auto& p : layer->parameters()) p.add_(0.3 * torch::randn_like(p));
    torch::manual_seed(3);
    const auto x = torch::randn({2, 40, 64}).to(cuda);
    auto run = [&](MixingPath path) {
      const Path p(path);
      return layer->forward(x).cpu();
    };
    const auto automatic = run(MixingPath::Auto), kernel = run(MixingPath::Kernel), batched = run(MixingPath::Batched);
    if (torch::equal(kernel, batched))
      GTEST_SKIP() << "h " << heads << ": the paths agree bit for bit, so which ran is unknowable";
    EXPECT_TRUE(torch::equal(automatic, heads <= kAutoKernelMaxHeads ? kernel : batched)) << "h " << heads;
  }
}
