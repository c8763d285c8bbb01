// The training kernels that split work over torch's threads themselves: the fused attention core
// and the parallel matmul. Each must equal a plain ATen formula (values and gradients), for any
// block split and any thread count.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/Parallel.h>

#include <string>
#include <vector>

#include "core/attention/fused_attention.h"
#include "core/model/parallel_matmul.h"

using namespace headroom::core;

namespace {

// Restores torch's intra-op thread count when a test changes it.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : previous_(at::get_num_threads()) { at::set_num_threads(threads); }
  ~ThreadCount() { at::set_num_threads(previous_); }

 private:
  int previous_;
};

// TH §4 written out with ATen ops, heads before positions: the reference for fused_attention.
torch::Tensor reference_attention(const torch::Tensor& qkv, const torch::Tensor& p_l, const torch::Tensor& p_w,
                                  const FusedAttentionShape& s) {
  const int64_t B = qkv.size(0), n = qkv.size(1);
  const auto q = qkv.narrow(2, 0, s.heads_k * s.d_k).view({B, n, s.heads_k, s.d_k}).transpose(1, 2);
  const auto k = qkv.narrow(2, s.heads_k * s.d_k, s.heads_k * s.d_k).view({B, n, s.heads_k, s.d_k}).transpose(1, 2);
  const auto v = qkv.narrow(2, 2 * s.heads_k * s.d_k, s.heads_v * s.d_v).view({B, n, s.heads_v, s.d_v}).transpose(1, 2);
  auto L = torch::matmul(q, k.transpose(-2, -1)) * s.scale;
  if (p_l.defined()) L = torch::einsum("bknm,kh->bhnm", {L, p_l});
  if (s.causal) L = L.masked_fill(torch::ones({n, n}, torch::kBool).triu(1), -std::numeric_limits<double>::infinity());
  auto U = torch::softmax(L, -1);
  if (p_w.defined()) U = torch::einsum("bhnm,hv->bvnm", {U, p_w});
  return torch::matmul(U, v).transpose(1, 2).reshape({B, n, s.heads_v * s.d_v});
}

// The fused core needs a CBLAS in the process; without one (a PyTorch wheel's LibTorch) its tests
// say why and skip, and AttentionLayer's tests cover the ATen path every layer then takes.
#define SKIP_WITHOUT_FUSED_CORE() \
  if (const auto why = fused_attention_unavailable_reason(); !why.empty()) GTEST_SKIP() << why

struct Case {
  std::string name;
  bool logits, weights;
  int64_t hk, h, hv;
};

}  // namespace

TEST(FusedAttention, EqualsTheFormulaWithGradientsForEveryBlockSplitAndThreadCount) {
  SKIP_WITHOUT_FUSED_CORE();
  const std::vector<Case> cases = {{"multi-head", false, false, 3, 3, 3},
                                   {"talking-heads", true, true, 3, 4, 5},
                                   {"logits-proj", true, false, 2, 4, 4},
                                   {"weights-proj", false, true, 4, 4, 2}};
  for (const auto& c : cases)
    for (const bool causal : {false, true})
      for (const int64_t blocks : {1, 2, 3, 4})
        for (const int threads : {1, 2, 3}) {
          if (!causal && blocks > 1) continue;  // blocks only split causal attention
          ThreadCount tc(threads);
          FusedAttentionShape s;
          s.heads_k = c.hk, s.heads = c.h, s.heads_v = c.hv, s.d_k = 5, s.d_v = 6;
          s.scale = 0.7, s.causal = causal, s.query_blocks = blocks;
          const int64_t B = 3, n = 11;
          torch::manual_seed(7);
          auto qkv = torch::randn({B, n, 2 * s.heads_k * s.d_k + s.heads_v * s.d_v}, torch::kFloat64).requires_grad_();
          auto p_l = c.logits ? torch::randn({c.hk, c.h}, torch::kFloat64).requires_grad_() : torch::Tensor();
          auto p_w = c.weights ? torch::randn({c.h, c.hv}, torch::kFloat64).requires_grad_() : torch::Tensor();
          const auto weight = torch::randn({B, n, s.heads_v * s.d_v}, torch::kFloat64);
          auto grads = [&](const torch::Tensor& y) {
            for (auto* t : {&qkv, &p_l, &p_w})
              if (t->defined() && t->grad().defined()) t->mutable_grad().zero_();
            (y * weight).sum().backward();
            std::vector<torch::Tensor> g{qkv.grad().clone()};
            if (p_l.defined()) g.push_back(p_l.grad().clone());
            if (p_w.defined()) g.push_back(p_w.grad().clone());
            return g;
          };
          ASSERT_TRUE(fused_attention_available(qkv));
          const auto y_ref = reference_attention(qkv, p_l, p_w, s);
          const auto g_ref = grads(y_ref);
          const auto y = fused_attention(qkv, p_l, p_w, s);
          const auto g = grads(y);
          const std::string what = c.name + (causal ? " causal" : "") + " blocks=" + std::to_string(blocks) +
                                   " threads=" + std::to_string(threads);
          EXPECT_TRUE(torch::allclose(y, y_ref, 1e-10, 1e-12)) << what;
          ASSERT_EQ(g.size(), g_ref.size());
          for (size_t i = 0; i < g.size(); ++i)
            EXPECT_TRUE(torch::allclose(g[i], g_ref[i], 1e-10, 1e-12))
                << what << " gradient " << i << ": max |difference| " << (g[i] - g_ref[i]).abs().max().item<double>();
        }
}

TEST(FusedAttention, Float32ResultsDoNotDependOnTheThreadCount) {
  SKIP_WITHOUT_FUSED_CORE();
  FusedAttentionShape s;
  s.heads_k = s.heads = s.heads_v = 4, s.d_k = s.d_v = 8, s.scale = 0.35, s.causal = true, s.query_blocks = 2;
  torch::manual_seed(3);
  const auto qkv0 = torch::randn({5, 16, 96});
  const auto p_l0 = torch::randn({4, 4}), p_w0 = torch::randn({4, 4});
  auto run = [&](int threads) {
    ThreadCount tc(threads);
    auto qkv = qkv0.clone().requires_grad_();
    auto p_l = p_l0.clone().requires_grad_(), p_w = p_w0.clone().requires_grad_();
    auto y = fused_attention(qkv, p_l, p_w, s);
    y.pow(2).sum().backward();
    return std::vector<torch::Tensor>{y.detach(), qkv.grad(), p_l.grad(), p_w.grad()};
  };
  const auto one = run(1), two = run(2);
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(torch::equal(one[i], two[i])) << "tensor " << i;
}

TEST(FusedAttention, RefusesShapesThatDoNotMatch) {
  SKIP_WITHOUT_FUSED_CORE();
  FusedAttentionShape s;
  s.heads_k = s.heads = s.heads_v = 2, s.d_k = s.d_v = 4;
  EXPECT_THROW(fused_attention(torch::randn({1, 3, 23}), {}, {}, s), c10::Error);  // needs 24 columns
  s.heads = 3;  // h != h_k with no P_l to map between them
  EXPECT_THROW(fused_attention(torch::randn({1, 3, 24}), {}, {}, s), c10::Error);
}

TEST(ParallelMatmul, EqualsMatmulAndLinearWithGradientsForAnyThreadCount) {
  for (const int threads : {1, 2, 3})
    for (const bool out_in : {false, true})
      for (const bool with_bias : {false, true}) {
        ThreadCount tc(threads);
        torch::manual_seed(11);
        // Big enough to be split (the op keeps small products in one call).
        auto x = torch::randn({3, 70, 48}, torch::kFloat64).requires_grad_();
        auto w = torch::randn(out_in ? std::vector<int64_t>{90, 48} : std::vector<int64_t>{48, 90}, torch::kFloat64)
                     .requires_grad_();
        auto b = with_bias ? torch::randn({90}, torch::kFloat64).requires_grad_() : torch::Tensor();
        const auto weight = torch::randn({3, 70, 90}, torch::kFloat64);
        auto run = [&](bool parallel) {
          for (auto* t : {&x, &w, &b})
            if (t->defined() && t->grad().defined()) t->mutable_grad().zero_();
          auto y = parallel ? parallel_matmul(x, w, b, out_in)
                            : (out_in ? torch::nn::functional::linear(x, w, b)
                                      : (b.defined() ? x.matmul(w) + b : x.matmul(w)));
          (y * weight).sum().backward();
          std::vector<torch::Tensor> r{y.detach(), x.grad().clone(), w.grad().clone()};
          if (b.defined()) r.push_back(b.grad().clone());
          return r;
        };
        const auto want = run(false), got = run(true);
        const std::string what =
            "threads=" + std::to_string(threads) + (out_in ? " [out,in]" : " [in,out]") + (with_bias ? " bias" : "");
        ASSERT_EQ(got.size(), want.size()) << what;
        EXPECT_EQ(got[0].sizes(), want[0].sizes()) << what;
        for (size_t i = 0; i < got.size(); ++i)
          EXPECT_TRUE(torch::allclose(got[i], want[i], 1e-10, 1e-12)) << what << " tensor " << i;
      }
}
