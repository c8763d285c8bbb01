#include "core/attention/attention_layer.h"

#include "core/attention/fused_attention.h"
#include "core/attention/th_mix.h"
#include "core/model/parallel_matmul.h"
#include "core/model/torch_compat.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace headroom::core {
namespace {

// A rectangular identity plus a little noise: talking-heads starts as multi-head (each softmax
// head reads its own key head, each value head its own weights) and learns to mix from there.
// TH gives no initialiser for the static projections; this is Headroom's choice.
torch::Tensor identity_start(int64_t rows, int64_t cols) {
  return torch::eye(rows, cols) + 0.02 * torch::randn({rows, cols});
}

void require_shape(const std::string& name, const torch::Tensor& t, std::vector<int64_t> shape) {
  if (t.sizes().vec() != shape) {
    std::string want = "[", got = "[";
    for (size_t i = 0; i < shape.size(); ++i) want += (i ? "," : "") + std::to_string(shape[i]);
    for (int64_t i = 0; i < t.dim(); ++i) got += (i ? "," : "") + std::to_string(t.size(i));
    throw std::invalid_argument("parameter " + name + " has shape " + got + "], expected " + want + "]");
  }
}

std::atomic<MixingPath> g_mixing_path{MixingPath::Auto};

// True where key j lies in query i's future (j > i + (m - n)); m == n for self-attention.
torch::Tensor future_mask(int64_t n, int64_t m, const torch::Device& device) {
  return torch::ones({n, m}, torch::TensorOptions().dtype(torch::kBool).device(device)).triu(1 + (m - n));
}

// softmax(q k^T scale, causal) v over the last two dims, broadcasting k and v over q's heads when
// they have one: LibTorch 2.x's fused kernel, or the same arithmetic in ATen ops on 1.13.
torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, bool causal,
                     double scale) {
  if (compat::kHasSdpa)
    return compat::sdpa(q, k.expand({q.size(0), q.size(1), k.size(2), k.size(3)}),
                        v.expand({q.size(0), q.size(1), v.size(2), v.size(3)}), causal, scale);
  auto logits = torch::matmul(q * scale, k.transpose(-2, -1));
  if (causal)
    logits = logits.masked_fill(future_mask(q.size(2), k.size(2), q.device()), -std::numeric_limits<float>::infinity());
  return torch::matmul(torch::softmax(logits, -1), v);
}

}  // namespace

void set_mixing_path(MixingPath path) { g_mixing_path = path; }
MixingPath mixing_path() { return g_mixing_path; }

bool auto_mixing_prefers_kernel(int64_t heads_k, int64_t heads, int64_t heads_v) {
  return std::max({heads_k, heads, heads_v}) <= kAutoKernelMaxHeads;
}

AttentionLayerImpl::AttentionLayerImpl(const AttentionSpec& spec) : spec_(spec) {
  require_valid(spec_);
  const int64_t d = spec_.d_model, hk = spec_.heads_k, h = spec_.heads, hv = spec_.heads_v;
  const int64_t dk = spec_.d_k, dv = spec_.d_v;
  if (spec_.kind == AttentionKind::GeneralBilinear) {
    gb_p = register_parameter("gb_p", torch::empty({d, d, h}));
    gb_q = register_parameter("gb_q", torch::empty({d, d, h}));
  } else {
    w_qkv = register_parameter("w_qkv", torch::empty({d, 2 * hk * dk + hv * dv}));
    w_o = register_parameter("w_o", torch::empty({hv * dv, d}));
    if (has_logits_projection(spec_.kind)) p_l = register_parameter("p_l", torch::empty({hk, h}));
    if (has_weights_projection(spec_.kind)) p_w = register_parameter("p_w", torch::empty({h, hv}));
    if (spec_.kind == AttentionKind::DynamicProj) {
      if (spec_.dynamic_terms & kDynamicXl) p_xl = register_parameter("p_xl", torch::empty({d, hk * h}));
      if (spec_.dynamic_terms & kDynamicMl) p_ml = register_parameter("p_ml", torch::empty({d, hk * h}));
      if (spec_.dynamic_terms & kDynamicXw) p_xw = register_parameter("p_xw", torch::empty({d, h * hv}));
      if (spec_.dynamic_terms & kDynamicMw) p_mw = register_parameter("p_mw", torch::empty({d, h * hv}));
    }
  }
  reset_parameters();
}

void AttentionLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double d = spec_.d_model, hk = spec_.heads_k, h = spec_.heads, hv = spec_.heads_v;
  if (spec_.kind == AttentionKind::GeneralBilinear) {
    // Unit-variance inputs give logits x^T P_h m of variance ~1 when std(P) = 1/d.
    gb_p.normal_(0.0, 1.0 / d);
    gb_q.normal_(0.0, 1.0 / std::sqrt(d * h));
    return;
  }
  w_qkv.normal_(0.0, 1.0 / std::sqrt(d));
  w_o.normal_(0.0, 1.0 / std::sqrt(hv * spec_.d_v));
  if (p_l.defined()) p_l.copy_(identity_start(spec_.heads_k, spec_.heads));
  if (p_w.defined()) p_w.copy_(identity_start(spec_.heads, spec_.heads_v));
  // TH appendix A: "normal initializers with standard deviations of 0.1/sqrt(d_X*h_k),
  // 0.1/sqrt(d_M*h_k), 0.1/sqrt(d_X*h), and 0.1/sqrt(d_M*h)" — small, or it does not train.
  if (p_xl.defined()) p_xl.normal_(0.0, 0.1 / std::sqrt(d * hk));
  if (p_ml.defined()) p_ml.normal_(0.0, 0.1 / std::sqrt(d * hk));
  if (p_xw.defined()) p_xw.normal_(0.0, 0.1 / std::sqrt(d * h));
  if (p_mw.defined()) p_mw.normal_(0.0, 0.1 / std::sqrt(d * h));
}

torch::Tensor AttentionLayerImpl::causal_mask(int64_t n, int64_t m, const torch::Device& device) const {
  return future_mask(n, m, device);
}

torch::Tensor AttentionLayerImpl::forward(const torch::Tensor& x, AttentionTrace* trace) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == spec_.d_model, "attention input must be [B, n, ", spec_.d_model, "], got ",
              x.sizes());
  if (spec_.kind == AttentionKind::GeneralBilinear) return forward_bilinear(x, trace);

  const int64_t B = x.size(0), n = x.size(1), m = n;
  const int64_t hk = spec_.heads_k, h = spec_.heads, hv = spec_.heads_v, dk = spec_.d_k, dv = spec_.d_v;

  // TH §4: Q, K, V in one matmul (P_q | P_k | P_v side by side), heads moved before positions.
  const auto qkv = parallel_matmul(x, w_qkv, {}, false);
  if (!trace) return forward_fast(x, qkv);
  const auto q = qkv.narrow(2, 0, hk * dk).view({B, n, hk, dk}).transpose(1, 2);
  const auto k = qkv.narrow(2, hk * dk, hk * dk).view({B, m, hk, dk}).transpose(1, 2);
  const auto v = qkv.narrow(2, 2 * hk * dk, hv * dv).view({B, m, hv, dv}).transpose(1, 2);

  // J[n,m,h_k] = einsum(Q, K), scaled by 1/sqrt(d_k) here rather than folded into P_q.
  const auto J = torch::matmul(q, k.transpose(-2, -1)) * logit_scale(spec_);

  // L[n,m,h] = einsum(J, P_l) (+ dynamic terms, TH appendix A). TH §4: P_l mixes logits across heads.
  torch::Tensor L = J;
  if (p_l.defined()) L = torch::einsum("bknm,kh->bhnm", {J, p_l});
  if (p_xl.defined()) {
    const auto r_xl = x.matmul(p_xl).view({B, n, hk, h});
    L = L + torch::einsum("bknm,bnkh->bhnm", {J, r_xl});
  }
  if (p_ml.defined()) {
    const auto r_ml = x.matmul(p_ml).view({B, m, hk, h});
    L = L + torch::einsum("bknm,bmkh->bhnm", {J, r_ml});
  }
  // The mask applies to the logits the softmax sees, after any mixing across heads. The trace
  // keeps L unmasked: its rank is what LRB §2.3 bounds (a masked matrix is triangular, not low rank).
  const auto L_seen =
      spec_.causal ? L.masked_fill(causal_mask(n, m, x.device()), -std::numeric_limits<float>::infinity()) : L;
  const auto W = torch::softmax(L_seen, -1);

  // U[n,m,h_v] = einsum(W, P_w) (+ dynamic terms). Masked weights are 0, so U keeps the mask.
  torch::Tensor U = W;
  if (p_w.defined()) U = torch::einsum("bhnm,hv->bvnm", {W, p_w});
  if (p_xw.defined()) {
    const auto r_xw = x.matmul(p_xw).view({B, n, h, hv});
    U = U + torch::einsum("bhnm,bnhv->bvnm", {W, r_xw});
  }
  if (p_mw.defined()) {
    const auto r_mw = x.matmul(p_mw).view({B, m, h, hv});
    U = U + torch::einsum("bhnm,bmhv->bvnm", {W, r_mw});
  }

  const auto O = torch::matmul(U, v);                                     // [B, h_v, n, d_v]
  const auto Y = O.transpose(1, 2).reshape({B, n, hv * dv}).matmul(w_o);  // [B, n, d]

  if (trace) {
    trace->J = J.detach().clone();
    trace->L = (L.is_same(J) ? trace->J : L.detach().clone());
    trace->W = W.detach().clone();
    trace->U = (U.is_same(W) ? trace->W : U.detach().clone());
  }
  return Y;
}

// How many query blocks the fused causal core splits n into: none below 64 positions, where the
// extra small matmuls cost more than the skipped future part saves. At n = 128 (bench_train,
// interleaved) four blocks against two: h = 8 the same, h = 32 multi-head 5-8% and talking-heads
// ~8% faster per step.
int64_t AttentionLayerImpl::causal_query_blocks(int64_t n) { return n >= 128 ? 4 : n >= 64 ? 2 : 1; }

torch::Tensor AttentionLayerImpl::forward_fast(const torch::Tensor& x, const torch::Tensor& qkv) {
  // The same function as the traced path above, arranged for training speed (tested equal, values
  // and gradients, in attention_layer_test).
  const int64_t B = x.size(0), n = x.size(1), m = n;
  const int64_t hk = spec_.heads_k, h = spec_.heads, hv = spec_.heads_v, dk = spec_.d_k, dv = spec_.d_v;
  const bool dynamic = p_xl.defined() || p_ml.defined() || p_xw.defined() || p_mw.defined();
  const bool mixing = p_l.defined() || p_w.defined();
  const auto path = mixing_path();
  const bool folded = !dynamic && mixing && path == MixingPath::Folded;
  if (!dynamic && !folded && fused_attention_enabled() && fused_attention_available(qkv)) {
    // Static head mixing (every kind but dynamic projections): Q|K|V to O in one function that
    // works sequence by sequence, skips the masked future and never permutes heads into copies.
    FusedAttentionShape shape;
    shape.heads_k = hk;
    shape.heads = h;
    shape.heads_v = hv;
    shape.d_k = dk;
    shape.d_v = dv;
    shape.scale = logit_scale(spec_);
    shape.causal = spec_.causal;
    shape.query_blocks = causal_query_blocks(n);
    return parallel_matmul(fused_attention(qkv, p_l, p_w, shape), w_o, {}, false);
  }

  const auto parts = qkv.split_with_sizes({hk * dk, hk * dk, hv * dv}, 2);
  if (compat::kHasSdpa && fused_attention_enabled() && !dynamic && !p_l.defined() && !p_w.defined()) {
    // Every head reads its own logits (multi-head, fixed-head): LibTorch 2.x's fused
    // scaled_dot_product_attention (flash / memory-efficient on CUDA) computes the same function
    // without ever storing the [B, h, n, m] weights.
    const auto q = parts[0].view({B, n, hk, dk}).transpose(1, 2);
    const auto k = parts[1].view({B, m, hk, dk}).transpose(1, 2);
    const auto v = parts[2].view({B, m, hv, dv}).transpose(1, 2);
    const auto O = compat::sdpa(q, k, v, spec_.causal, logit_scale(spec_));
    return parallel_matmul(O.transpose(1, 2).reshape({B, n, hv * dv}), w_o, {}, false);
  }

  if (folded) return forward_folded(parts, B, n);

  // Dynamic projections (TH appendix A), whose mixing depends on the positions, or no CBLAS to
  // call: ATen ops, written so that each [B, heads, n, m] tensor is made as few times as possible.
  // - 1/sqrt(d_k) scales Q ([B, n, h_k d_k]) instead of J (h_k n / d_k times larger);
  // - P_l and P_w mix heads as one batched matmul over the flattened [n m] positions, with no
  //   permute copies (einsum moved the head axis last and back);
  // - split, not three narrows: its backward is one cat, where narrows cost three zero-filled
  //   [B, n, 3d] gradients, three copies and two adds.
  const auto q = (parts[0] * logit_scale(spec_)).view({B, n, hk, dk}).transpose(1, 2).reshape({B * hk, n, dk});
  const auto kT = parts[1].view({B, m, hk, dk}).permute({0, 2, 3, 1}).reshape({B * hk, dk, m});
  const auto v = parts[2].view({B, m, hv, dv}).transpose(1, 2).reshape({B * hv, m, dv});
  const auto J = torch::bmm(q, kT).view({B, hk, n, m});
  const bool kernel = path == MixingPath::Kernel || (path == MixingPath::Auto && auto_mixing_prefers_kernel(hk, h, hv));
  if (!dynamic && mixing && kernel && th_mix_unavailable_reason(J, hk, h, hv).empty()) {
    const auto U = th_mix(J, p_l, p_w, spec_.causal);
    const auto O =
        torch::bmm(U.reshape({B * hv, n, m}), v).view({B, hv, n, dv}).transpose(1, 2).reshape({B, n, hv * dv});
    return parallel_matmul(O, w_o, {}, false);
  }
  torch::Tensor L =
      p_l.defined() ? torch::bmm(p_l.t().expand({B, h, hk}), J.view({B, hk, n * m})).view({B, h, n, m}) : J;
  if (p_xl.defined()) L = L + torch::einsum("bknm,bnkh->bhnm", {J, x.matmul(p_xl).view({B, n, hk, h})});
  if (p_ml.defined()) L = L + torch::einsum("bknm,bmkh->bhnm", {J, x.matmul(p_ml).view({B, m, hk, h})});
  if (spec_.causal) L = L.masked_fill(causal_mask(n, m, x.device()), -std::numeric_limits<float>::infinity());
  const auto W = torch::softmax(L, -1);

  torch::Tensor U = W;  // [B, h_v, n, m]
  if (p_w.defined()) U = torch::bmm(p_w.t().expand({B, hv, h}), W.reshape({B, h, n * m})).view({B, hv, n, m});
  if (p_xw.defined()) U = U + torch::einsum("bhnm,bnhv->bvnm", {W, x.matmul(p_xw).view({B, n, h, hv})});
  if (p_mw.defined()) U = U + torch::einsum("bhnm,bmhv->bvnm", {W, x.matmul(p_mw).view({B, m, h, hv})});
  const auto O = torch::bmm(U.reshape({B * hv, n, m}), v).view({B, hv, n, dv}).transpose(1, 2).reshape({B, n, hv * dv});
  return parallel_matmul(O, w_o, {}, false);
}

torch::Tensor AttentionLayerImpl::forward_folded(const std::vector<torch::Tensor>& parts, int64_t B, int64_t n) {
  // See MixingPath::Folded. Shapes: q [B, n, h_k d_k], k [B, m, h_k d_k], v [B, m, h_v d_v].
  const int64_t m = n;
  const int64_t hk = spec_.heads_k, h = spec_.heads, hv = spec_.heads_v, dk = spec_.d_k, dv = spec_.d_v;
  torch::Tensor q, k, v;
  if (p_l.defined()) {
    // q_h = [P_l[0,h] Q_0 | .. | P_l[h_k-1,h] Q_{h_k-1}]: [B, h, n, h_k d_k]; every head reads all keys.
    q = (parts[0].reshape({B, 1, n, hk, dk}) * p_l.t().reshape({1, h, 1, hk, 1}).to(parts[0].scalar_type()))
            .reshape({B, h, n, hk * dk});
    k = parts[1].unsqueeze(1);  // [B, 1, m, h_k d_k]
  } else {
    q = parts[0].reshape({B, n, hk, dk}).transpose(1, 2);
    k = parts[1].reshape({B, m, hk, dk}).transpose(1, 2);
  }
  const auto values = p_w.defined() ? parts[2].unsqueeze(1)                              // [B, 1, m, h_v d_v]
                                    : parts[2].reshape({B, m, hv, dv}).transpose(1, 2);  // [B, h, m, d_v]
  const auto A = attend(q, k, values, spec_.causal, logit_scale(spec_));                 // [B, h, n, .]
  torch::Tensor O;
  if (p_w.defined()) {
    // O_v = sum_h P_w[h,v] (W_h V)_v: [B, h, n, h_v, d_v] weighted and summed over h.
    O = (A.reshape({B, h, n, hv, dv}) * p_w.reshape({1, h, 1, hv, 1}).to(A.scalar_type()))
            .sum(1)
            .reshape({B, n, hv * dv});
  } else {
    O = A.transpose(1, 2).reshape({B, n, hv * dv});
  }
  return parallel_matmul(O, w_o, {}, false);
}

torch::Tensor AttentionLayerImpl::forward_bilinear(const torch::Tensor& x, AttentionTrace* trace) {
  // TH §6: L[n,m,h] = einsum(X, M, P); Y[n,d_Y] = einsum(W, M, Q). Self-attention: M = X.
  const int64_t n = x.size(1), m = n;
  const auto xp = torch::einsum("bnx,xyh->bhny", {x, gb_p});         // [B, h, n, d_M]
  const auto L = torch::matmul(xp, x.transpose(1, 2).unsqueeze(1));  // [B, h, n, m]
  const auto L_seen =
      spec_.causal ? L.masked_fill(causal_mask(n, m, x.device()), -std::numeric_limits<float>::infinity()) : L;
  const auto W = torch::softmax(L_seen, -1);
  const auto wm = torch::matmul(W, x.unsqueeze(1));  // [B, h, n, d_M]
  const auto Y = torch::einsum("bhny,yzh->bnz", {wm, gb_q});
  if (trace) {
    trace->J = L.detach().clone();
    trace->L = trace->J;
    trace->W = W.detach().clone();
    trace->U = trace->W;
  }
  return Y;
}

std::vector<std::pair<std::string, torch::Tensor>> AttentionLayerImpl::th_parameters() const {
  torch::NoGradGuard no_grad;
  std::vector<std::pair<std::string, torch::Tensor>> out;
  const int64_t d = spec_.d_model, hk = spec_.heads_k, h = spec_.heads, hv = spec_.heads_v;
  const int64_t dk = spec_.d_k, dv = spec_.d_v;
  if (spec_.kind == AttentionKind::GeneralBilinear) {
    out.emplace_back("P", gb_p.detach().clone());
    out.emplace_back("Q", gb_q.detach().clone());
    return out;
  }
  // Copies, never views: callers may modify them without touching (or tracking) the layer.
  auto own = [](const torch::Tensor& t) { return t.detach().clone(at::MemoryFormat::Contiguous); };
  // Storage column hk*dk + c of w_qkv is head hk, component c: view [d, h_k, d_k] -> [d, d_k, h_k].
  auto heads_last = [&](const torch::Tensor& cols, int64_t heads, int64_t size) {
    return own(cols.detach().reshape({d, heads, size}).permute({0, 2, 1}));
  };
  out.emplace_back("P_q", heads_last(w_qkv.narrow(1, 0, hk * dk), hk, dk));
  out.emplace_back("P_k", heads_last(w_qkv.narrow(1, hk * dk, hk * dk), hk, dk));
  out.emplace_back("P_v", heads_last(w_qkv.narrow(1, 2 * hk * dk, hv * dv), hv, dv));
  // w_o [h_v*d_v, d] -> [h_v, d_v, d] -> P_o[d_Y, d_v, h_v].
  out.emplace_back("P_o", own(w_o.detach().reshape({hv, dv, d}).permute({2, 1, 0})));
  if (p_l.defined()) out.emplace_back("P_l", own(p_l));
  if (p_w.defined()) out.emplace_back("P_w", own(p_w));
  if (p_xl.defined()) out.emplace_back("P_Xl", own(p_xl.detach().reshape({d, hk, h})));
  if (p_ml.defined()) out.emplace_back("P_Ml", own(p_ml.detach().reshape({d, hk, h})));
  if (p_xw.defined()) out.emplace_back("P_Xw", own(p_xw.detach().reshape({d, h, hv})));
  if (p_mw.defined()) out.emplace_back("P_Mw", own(p_mw.detach().reshape({d, h, hv})));
  return out;
}

void AttentionLayerImpl::set_th_parameter(const std::string& name, const torch::Tensor& value) {
  torch::NoGradGuard no_grad;
  const int64_t d = spec_.d_model, hk = spec_.heads_k, h = spec_.heads, hv = spec_.heads_v;
  const int64_t dk = spec_.d_k, dv = spec_.d_v;
  const auto v = value.to(torch::kFloat32);
  auto heads_first = [&](const torch::Tensor& t, int64_t heads, int64_t size) {
    return t.permute({0, 2, 1}).reshape({d, heads * size});
  };
  auto need = [&](const torch::Tensor& target) {
    if (!target.defined())
      throw std::invalid_argument(std::string(to_string(spec_.kind)) + " attention has no parameter " + name);
  };
  if (name == "P" || name == "Q") {
    torch::Tensor& target = name == "P" ? gb_p : gb_q;
    need(target);
    require_shape(name, v, {d, d, h});
    target.copy_(v);
  } else if (name == "P_q" || name == "P_k") {
    need(w_qkv);
    require_shape(name, v, {d, dk, hk});
    w_qkv.narrow(1, name == "P_q" ? 0 : hk * dk, hk * dk).copy_(heads_first(v, hk, dk));
  } else if (name == "P_v") {
    need(w_qkv);
    require_shape(name, v, {d, dv, hv});
    w_qkv.narrow(1, 2 * hk * dk, hv * dv).copy_(heads_first(v, hv, dv));
  } else if (name == "P_o") {
    need(w_o);
    require_shape(name, v, {d, dv, hv});
    w_o.copy_(v.permute({2, 1, 0}).reshape({hv * dv, d}));
  } else if (name == "P_l") {
    need(p_l);
    require_shape(name, v, {hk, h});
    p_l.copy_(v);
  } else if (name == "P_w") {
    need(p_w);
    require_shape(name, v, {h, hv});
    p_w.copy_(v);
  } else if (name == "P_Xl" || name == "P_Ml") {
    torch::Tensor& target = name == "P_Xl" ? p_xl : p_ml;
    need(target);
    require_shape(name, v, {d, hk, h});
    target.copy_(v.reshape({d, hk * h}));
  } else if (name == "P_Xw" || name == "P_Mw") {
    torch::Tensor& target = name == "P_Xw" ? p_xw : p_mw;
    need(target);
    require_shape(name, v, {d, h, hv});
    target.copy_(v.reshape({d, h * hv}));
  } else {
    throw std::invalid_argument("unknown attention parameter " + name +
                                " (TH names: P_q P_k P_v P_o P_l P_w P_Xl P_Ml P_Xw P_Mw P Q)");
  }
}

}  // namespace headroom::core
