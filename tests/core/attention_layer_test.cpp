#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/attention/attention_layer.h"
#include "core/attention/fused_attention.h"

using namespace headroom::core;

namespace {

AttentionSpec spec(AttentionKind kind, int d, int h, bool causal = false) {
  AttentionRequest r{kind, d, h};
  r.causal = causal;
  auto s = make_attention_spec(r, nullptr);
  EXPECT_TRUE(s.has_value());
  return *s;
}

// Copies the Q/K/V/O weights of `from` into `to` through the TH-named views.
void copy_qkvo(const AttentionLayer& from, AttentionLayer& to) {
  for (const auto& [name, value] : from->th_parameters())
    if (name == "P_q" || name == "P_k" || name == "P_v" || name == "P_o") to->set_th_parameter(name, value);
}

torch::Tensor input(int n, int d, uint64_t seed = 1) {
  torch::manual_seed(seed);
  return torch::randn({2, n, d});
}

}  // namespace

TEST(AttentionLayer, TalkingHeadsWithIdentityProjectionsEqualsMultiHead) {
  torch::NoGradGuard g;
  for (bool causal : {false, true}) {
    AttentionLayer mh(spec(AttentionKind::MultiHead, 32, 4, causal));
    AttentionLayer th(spec(AttentionKind::TalkingHeads, 32, 4, causal));
    copy_qkvo(mh, th);
    th->set_th_parameter("P_l", torch::eye(4));
    th->set_th_parameter("P_w", torch::eye(4));
    const auto x = input(9, 32);
    EXPECT_TRUE(torch::allclose(mh(x), th(x), 1e-5, 1e-6)) << "causal=" << causal;
  }
}

TEST(AttentionLayer, IdentityProjectionsAlsoReduceTheHybridsToMultiHead) {
  torch::NoGradGuard g;
  AttentionLayer mh(spec(AttentionKind::MultiHead, 24, 3));
  AttentionLayer lp(spec(AttentionKind::LogitsProj, 24, 3));
  AttentionLayer wp(spec(AttentionKind::WeightsProj, 24, 3));
  copy_qkvo(mh, lp);
  copy_qkvo(mh, wp);
  lp->set_th_parameter("P_l", torch::eye(3));
  wp->set_th_parameter("P_w", torch::eye(3));
  const auto x = input(7, 24);
  EXPECT_TRUE(torch::allclose(mh(x), lp(x), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(mh(x), wp(x), 1e-5, 1e-6));
}

TEST(AttentionLayer, NonIdentityProjectionChangesTheOutput) {
  // Guards the test above against a layer that ignores P_l / P_w.
  torch::NoGradGuard g;
  AttentionLayer mh(spec(AttentionKind::MultiHead, 32, 4));
  AttentionLayer th(spec(AttentionKind::TalkingHeads, 32, 4));
  copy_qkvo(mh, th);
  th->set_th_parameter("P_l", torch::eye(4).flip({0}));
  th->set_th_parameter("P_w", torch::eye(4));
  const auto x = input(9, 32);
  EXPECT_FALSE(torch::allclose(mh(x), th(x), 1e-4, 1e-5));
}

TEST(AttentionLayer, FixedHeadAtDOverHEqualsMultiHead) {
  torch::NoGradGuard g;
  AttentionLayer mh(spec(AttentionKind::MultiHead, 48, 6));
  AttentionRequest r{AttentionKind::FixedHead, 48, 6};
  r.d_k = 8;
  r.d_v = 8;
  AttentionLayer fh(*make_attention_spec(r, nullptr));
  copy_qkvo(mh, fh);
  const auto x = input(11, 48);
  EXPECT_TRUE(torch::allclose(mh(x), fh(x), 1e-5, 1e-6));
}

TEST(AttentionLayer, GeneralBilinearFromFactoredMultiHeadEqualsMultiHead) {
  // TH §6 MultiHeadAttentionInefficient: P = einsum(P_q, P_k), Q = einsum(P_v, P_o).
  torch::NoGradGuard g;
  for (bool causal : {false, true}) {
    const auto mh_spec = spec(AttentionKind::MultiHead, 16, 4, causal);
    AttentionLayer mh(mh_spec);
    AttentionLayer gb(spec(AttentionKind::GeneralBilinear, 16, 4, causal));
    std::map<std::string, torch::Tensor> p;
    for (const auto& [name, value] : mh->th_parameters()) p[name] = value;
    // Headroom scales J by 1/sqrt(d_k); general-bilinear has logit scale 1, so P absorbs it.
    gb->set_th_parameter("P", torch::einsum("xkh,ykh->xyh", {p["P_q"], p["P_k"]}) * logit_scale(mh_spec));
    gb->set_th_parameter("Q", torch::einsum("yvh,zvh->yzh", {p["P_v"], p["P_o"]}));
    const auto x = input(6, 16);
    EXPECT_TRUE(torch::allclose(mh(x), gb(x), 1e-4, 1e-5)) << "causal=" << causal;
  }
}

TEST(AttentionLayer, CausalMaskHoldsForEveryKind) {
  torch::NoGradGuard g;
  for (auto kind : all_attention_kinds()) {
    AttentionLayer layer(spec(kind, 16, 4, /*causal=*/true));
    const int n = 8;
    auto x = input(n, 16);
    AttentionTrace t;
    auto y = layer(x, &t);
    // No weight on a future key.
    auto future = torch::ones({n, n}, torch::kBool).triu(1);
    EXPECT_EQ(t.W.masked_select(future.expand_as(t.W)).abs().max().item<float>(), 0.f) << to_string(kind);
    EXPECT_EQ(t.U.masked_select(future.expand_as(t.U)).abs().max().item<float>(), 0.f) << to_string(kind);
    // Changing the last token must not change any earlier output.
    auto x2 = x.clone();
    x2.select(1, n - 1).add_(1.0);
    auto y2 = layer(x2);
    EXPECT_TRUE(torch::allclose(y.narrow(1, 0, n - 1), y2.narrow(1, 0, n - 1), 1e-5, 1e-6)) << to_string(kind);
    EXPECT_FALSE(torch::allclose(y.narrow(1, n - 1, 1), y2.narrow(1, n - 1, 1))) << to_string(kind);
  }
}

TEST(AttentionLayer, GradientsAreFiniteForEveryKind) {
  for (auto kind : all_attention_kinds()) {
    for (bool causal : {false, true}) {
      AttentionLayer layer(spec(kind, 16, 4, causal));
      auto x = input(5, 16).requires_grad_(true);
      layer(x).pow(2).sum().backward();
      ASSERT_TRUE(x.grad().defined());
      EXPECT_TRUE(torch::isfinite(x.grad()).all().item<bool>()) << to_string(kind);
      for (const auto& p : layer->parameters()) {
        ASSERT_TRUE(p.grad().defined()) << to_string(kind);
        EXPECT_TRUE(torch::isfinite(p.grad()).all().item<bool>()) << to_string(kind);
        EXPECT_GT(p.grad().abs().sum().item<float>(), 0.f) << to_string(kind) << " has a parameter with no gradient";
      }
    }
  }
}

TEST(AttentionLayer, TraceHasEveryIntermediateWithTheRightShapes) {
  torch::NoGradGuard g;
  AttentionRequest r{AttentionKind::TalkingHeads, 24, 6};
  r.heads_k = 2;
  r.heads_v = 3;
  r.d_k = 4;
  r.d_v = 5;
  AttentionLayer layer(*make_attention_spec(r, nullptr));
  AttentionTrace t;
  layer(input(7, 24), &t);
  EXPECT_EQ(t.J.sizes().vec(), (std::vector<int64_t>{2, 2, 7, 7}));
  EXPECT_EQ(t.L.sizes().vec(), (std::vector<int64_t>{2, 6, 7, 7}));
  EXPECT_EQ(t.W.sizes().vec(), (std::vector<int64_t>{2, 6, 7, 7}));
  EXPECT_EQ(t.U.sizes().vec(), (std::vector<int64_t>{2, 3, 7, 7}));
  EXPECT_TRUE(torch::allclose(t.W.sum(-1), torch::ones({2, 6, 7})));
  // L = einsum(J, P_l)
  auto p_l = layer->th_parameters()[4].second;
  ASSERT_EQ(layer->th_parameters()[4].first, "P_l");
  EXPECT_TRUE(torch::allclose(t.L, torch::einsum("bknm,kh->bhnm", {t.J, p_l}), 1e-5, 1e-6));
}

TEST(AttentionLayer, DynamicProjectionsStartSmallAndMatter) {
  torch::NoGradGuard g;
  auto s = spec(AttentionKind::DynamicProj, 32, 4);
  AttentionLayer dyn(s);
  // TH appendix A init: std 0.1/sqrt(d_X*h_k) for P_Xl.
  EXPECT_NEAR(dyn->p_xl.std().item<float>(), 0.1 / std::sqrt(32.0 * 4), 0.01);
  AttentionLayer th(spec(AttentionKind::TalkingHeads, 32, 4));
  for (const auto& [name, value] : dyn->th_parameters())
    if (name == "P_q" || name == "P_k" || name == "P_v" || name == "P_o" || name == "P_l" || name == "P_w")
      th->set_th_parameter(name, value);
  const auto x = input(5, 32);
  EXPECT_FALSE(torch::allclose(dyn(x), th(x), 1e-6, 1e-7));
  for (auto* t : {&dyn->p_xl, &dyn->p_ml, &dyn->p_xw, &dyn->p_mw}) t->zero_();
  EXPECT_TRUE(torch::allclose(dyn(x), th(x), 1e-5, 1e-6));
}

TEST(AttentionLayer, ThParameterShapesFollowThePseudoCode) {
  AttentionRequest r{AttentionKind::DynamicProj, 20, 5};
  r.heads_k = 2;
  r.heads_v = 3;
  r.d_k = 6;
  r.d_v = 7;
  AttentionLayer layer(*make_attention_spec(r, nullptr));
  std::map<std::string, std::vector<int64_t>> want = {
      {"P_q", {20, 6, 2}}, {"P_k", {20, 6, 2}},  {"P_v", {20, 7, 3}},  {"P_o", {20, 7, 3}},  {"P_l", {2, 5}},
      {"P_w", {5, 3}},     {"P_Xl", {20, 2, 5}}, {"P_Ml", {20, 2, 5}}, {"P_Xw", {20, 5, 3}}, {"P_Mw", {20, 5, 3}}};
  auto params = layer->th_parameters();
  ASSERT_EQ(params.size(), want.size());
  for (const auto& [name, value] : params) EXPECT_EQ(value.sizes().vec(), want.at(name)) << name;
  // Round trip: set what we read, read it again.
  for (const auto& [name, value] : params) layer->set_th_parameter(name, value * 2);
  for (const auto& [name, value] : layer->th_parameters()) {
    for (const auto& [n0, v0] : params) {
      if (n0 == name) {
        EXPECT_TRUE(torch::allclose(value, v0 * 2)) << name;
      }
    }
  }
  EXPECT_THROW(layer->set_th_parameter("P_q", torch::zeros({20, 2, 6})), std::invalid_argument);
  EXPECT_THROW(layer->set_th_parameter("P", torch::zeros({20, 20, 5})), std::invalid_argument);
}

// Sets fused_attention_enabled for one scope.
class FusedCore {
 public:
  explicit FusedCore(bool enabled) : previous_(fused_attention_enabled()) { set_fused_attention_enabled(enabled); }
  ~FusedCore() { set_fused_attention_enabled(previous_); }

 private:
  bool previous_;
};

// Training runs the layer without a trace, on a path arranged for speed: the fused core for the
// static kinds where the process has a CBLAS, else ATen ops (scale folded into Q, additive causal
// mask, head mixing as batched matmuls). Both must be the same function as the traced path that
// the pseudo-code tests check: equal outputs and equal gradients, every kind, fused core on and
// forced off (what a LibTorch without CBLAS runs), and the head mixing folded into one attention
// call (MixingPath::Folded, what CUDA runs on LibTorch 2.x).
TEST(AttentionLayer, UntracedTrainingPathEqualsTracedPathWithGradients) {
  struct Mixing {  // the process-wide mixing path for one scope
    explicit Mixing(MixingPath p) { set_mixing_path(p); }
    ~Mixing() { set_mixing_path(MixingPath::Auto); }
  };
  // n = 70 and 130: long enough that the causal path splits queries into two and four blocks.
  for (const int mode : {0, 1, 2})
    for (const int n : {9, 70, 130})
      for (const auto kind : all_attention_kinds()) {
        const bool fused = mode != 1;
        const FusedCore core(fused);
        const Mixing mixing(mode == 2 ? MixingPath::Folded : MixingPath::Batched);
        for (bool causal : {false, true}) {
          AttentionRequest r{kind, 24, 4};
          r.causal = causal;
          if (kind == AttentionKind::TalkingHeads || kind == AttentionKind::DynamicProj) {
            r.heads_k = 3;  // h_k, h, h_v all different: catches a transposed mixing matrix
            r.heads_v = 5;
          }
          AttentionLayer layer(*make_attention_spec(r, nullptr));
          layer->to(torch::kFloat64);  // float64: the two paths may differ only by rounding
          {
            torch::NoGradGuard g;  // away from the identity start, so mixing really mixes
            for (auto& p : layer->parameters()) p.add_(0.3 * torch::randn_like(p));
          }
          auto run = [&](bool traced, std::vector<torch::Tensor>* grads) {
            auto x = input(n, 24, 5).to(torch::kFloat64).requires_grad_(true);
            layer->zero_grad();
            AttentionTrace trace;
            auto y = layer->forward(x, traced ? &trace : nullptr);
            (y * torch::linspace(-1, 1, y.numel(), torch::kFloat64).view(y.sizes())).sum().backward();
            grads->push_back(x.grad().clone());
            for (const auto& p : layer->parameters()) grads->push_back(p.grad().clone());
            return y.detach();
          };
          std::vector<torch::Tensor> g_traced, g_fast;
          const auto y_traced = run(true, &g_traced);
          const auto y_fast = run(false, &g_fast);
          const std::string what = std::string(to_string(kind)) + (causal ? " causal" : "") +
                                   " n=" + std::to_string(n) +
                                   (mode == 1   ? " (fused core off)"
                                    : mode == 2 ? " (mixing folded)"
                                                : "");
          EXPECT_GT(y_fast.abs().max().item<double>(), 1e-3) << what;
          EXPECT_TRUE(torch::allclose(y_traced, y_fast, 1e-10, 1e-12)) << what;
          ASSERT_EQ(g_traced.size(), g_fast.size()) << what;
          for (size_t i = 0; i < g_fast.size(); ++i)
            EXPECT_TRUE(torch::allclose(g_traced[i], g_fast[i], 1e-10, 1e-12))
                << what << " gradient " << i << ": max |difference| "
                << (g_traced[i] - g_fast[i]).abs().max().item<double>() << " of max "
                << g_traced[i].abs().max().item<double>();
        }
      }
}
