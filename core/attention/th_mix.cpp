#include "core/attention/th_mix.h"

#include <limits>

#include "core/attention/th_mix_kernel.h"

namespace headroom::core {
namespace {

// Float64 stays float64 (the tests' references); everything else mixes in float32.
torch::ScalarType compute_type(const torch::Tensor& t) {
  return t.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
}

#ifdef HEADROOM_TH_MIX_KERNEL
th_mix_kernel::Shape kernel_shape(const torch::Tensor& J, int64_t heads, int64_t heads_v, bool causal) {
  th_mix_kernel::Shape s;
  s.batch = J.size(0);
  s.heads_k = J.size(1);
  s.heads = heads;
  s.heads_v = heads_v;
  s.n = J.size(2);
  s.m = J.size(3);
  s.causal = causal;
  return s;
}

th_mix_kernel::Storage storage_of(const torch::Tensor& t) {
  return t.scalar_type() == torch::kBFloat16 ? th_mix_kernel::Storage::BFloat16 : th_mix_kernel::Storage::Float32;
}
#endif

std::pair<torch::Tensor, torch::Tensor> kernel_forward(const torch::Tensor& J, const torch::Tensor& p_l,
                                                       const torch::Tensor& p_w, bool causal) {
  const int64_t B = J.size(0), n = J.size(2), m = J.size(3), h = p_l.size(1), hv = p_w.size(1);
  auto W = torch::empty({B, h, n, m}, J.options());
  auto U = torch::empty({B, hv, n, m}, J.options());
#ifdef HEADROOM_TH_MIX_KERNEL
  th_mix_kernel::forward(J.data_ptr(), p_l.data_ptr<float>(), p_w.data_ptr<float>(), W.data_ptr(), U.data_ptr(),
                         kernel_shape(J, h, hv, causal), storage_of(J), J.device().index());
#else
  (void)causal;
  TORCH_CHECK(false, "th_mix: this build has no CUDA kernels");
#endif
  return {W, U};
}

std::pair<torch::Tensor, torch::Tensor> kernel_backward(const torch::Tensor& W, const torch::Tensor& dU,
                                                        const torch::Tensor& p_l, const torch::Tensor& p_w,
                                                        bool causal) {
  const int64_t B = W.size(0), n = W.size(2), m = W.size(3), hk = p_l.size(0), h = W.size(1);
  auto dL = torch::empty({B, h, n, m}, W.options());
  auto dJ = torch::empty({B, hk, n, m}, W.options());
#ifdef HEADROOM_TH_MIX_KERNEL
  th_mix_kernel::Shape s = kernel_shape(dJ, h, p_w.size(1), causal);
  th_mix_kernel::backward(W.data_ptr(), dU.data_ptr(), p_l.data_ptr<float>(), p_w.data_ptr<float>(), dL.data_ptr(),
                          dJ.data_ptr(), s, storage_of(W), W.device().index());
#else
  (void)causal;
  TORCH_CHECK(false, "th_mix: this build has no CUDA kernels");
#endif
  return {dL, dJ};
}

// sum over b of A_b B_b^T for A [B, p, n, m], B [B, q, n, m]: [p, q] in float32 (or float64).
torch::Tensor position_sum(const torch::Tensor& a, const torch::Tensor& b) {
  const int64_t B = a.size(0), nm = a.size(2) * a.size(3);
  const auto prod = torch::bmm(a.reshape({B, a.size(1), nm}), b.reshape({B, b.size(1), nm}).transpose(1, 2));
  return prod.to(compute_type(a)).sum(0);
}

struct ThMixFn : public torch::autograd::Function<ThMixFn> {
  // p_l, p_w: empty placeholders when absent (autograd functions take defined tensors only).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& J, const torch::Tensor& p_l,
                               const torch::Tensor& p_w, bool causal, bool references) {
    const bool has_pl = p_l.numel() > 0, has_pw = p_w.numel() > 0;
    const int64_t hk = J.size(1);
    const int64_t h = has_pl ? p_l.size(1) : hk;
    const int64_t hv = has_pw ? p_w.size(1) : h;
    const auto mix_options = J.options().dtype(references ? compute_type(J) : torch::kFloat32);
    // An absent projection is the identity: the kernels always mix (h_k x h FMAs per key, cheap).
    const auto pl = (has_pl ? p_l : torch::eye(hk, h, mix_options)).to(mix_options).contiguous();
    const auto pw = (has_pw ? p_w : torch::eye(h, hv, mix_options)).to(mix_options).contiguous();
    const auto Jc = J.contiguous();
    const auto [W, U] = references ? th_mix_forward_reference(Jc, pl, pw, causal) : kernel_forward(Jc, pl, pw, causal);
    ctx->save_for_backward({has_pl ? Jc : torch::Tensor(), W, pl, pw});
    ctx->saved_data["has_pl"] = has_pl;
    ctx->saved_data["has_pw"] = has_pw;
    ctx->saved_data["causal"] = causal;
    ctx->saved_data["references"] = references;
    return U;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& J = saved[0];
    const auto& W = saved[1];
    const auto& pl = saved[2];
    const auto& pw = saved[3];
    const bool has_pl = ctx->saved_data["has_pl"].toBool(), has_pw = ctx->saved_data["has_pw"].toBool();
    const bool causal = ctx->saved_data["causal"].toBool();
    const bool references = ctx->saved_data["references"].toBool();
    const auto dU = grad_outputs[0].to(W.scalar_type()).contiguous();
    const auto [dL, dJ] =
        references ? th_mix_backward_reference(W, dU, pl, pw) : kernel_backward(W, dU, pl, pw, causal);
    torch::Tensor d_pl, d_pw;
    if (has_pl) d_pl = position_sum(J, dL);  // dP_l[k, h] = sum over positions of J_k dL_h
    if (has_pw) d_pw = position_sum(W, dU);  // dP_w[h, v] = sum over positions of W_h dU_v
    return {dJ, d_pl, d_pw, torch::Tensor(), torch::Tensor()};
  }
};

torch::Tensor apply(const torch::Tensor& J, const torch::Tensor& p_l, const torch::Tensor& p_w, bool causal,
                    bool references) {
  TORCH_CHECK(J.dim() == 4, "th_mix: J must be [B, h_k, n, m], got ", J.sizes());
  TORCH_CHECK(!p_l.defined() || (p_l.dim() == 2 && p_l.size(0) == J.size(1)), "th_mix: P_l must be [h_k, h]");
  const int64_t h = p_l.defined() ? p_l.size(1) : J.size(1);
  TORCH_CHECK(!p_w.defined() || (p_w.dim() == 2 && p_w.size(0) == h), "th_mix: P_w must be [h, h_v]");
  const auto none = torch::empty({0}, J.options().dtype(torch::kFloat32));
  return ThMixFn::apply(J, p_l.defined() ? p_l : none, p_w.defined() ? p_w : none, causal, references);
}

}  // namespace

bool th_mix_kernels_built() {
#ifdef HEADROOM_TH_MIX_KERNEL
  return true;
#else
  return false;
#endif
}

std::string th_mix_unavailable_reason(const torch::Tensor& J, int64_t heads_k, int64_t heads, int64_t heads_v) {
#ifndef HEADROOM_TH_MIX_KERNEL
  (void)J, (void)heads_k, (void)heads, (void)heads_v;
  return "this build has no talking-heads mixing kernel (it is built with a CUDA LibTorch when CMake finds nvcc)";
#else
  if (!J.is_cuda()) return "the logits are on " + J.device().str() + ", and the mixing kernel runs on CUDA";
  if (J.scalar_type() != torch::kFloat32 && J.scalar_type() != torch::kBFloat16) {
    return std::string("the mixing kernel takes float32 or bfloat16 logits, not ") + c10::toString(J.scalar_type());
  }
  if (J.dim() != 4 || J.size(1) != heads_k) return "the logits are not [B, h_k, n, m]";
  th_mix_kernel::Shape s = kernel_shape(J, heads, heads_v, false);
  const std::size_t need = th_mix_kernel::shared_bytes(s);
  const std::size_t have = th_mix_kernel::max_shared_bytes(J.device().index());
  if (need > have) {
    return "one query row's " + std::to_string(heads) + " x " + std::to_string(J.size(3)) +
           " weights, their gradient, P_l and P_w need " + std::to_string(need / 1024) +
           " KiB of shared memory, and a block on this GPU may have " + std::to_string(have / 1024) + " KiB";
  }
  return {};
#endif
}

torch::Tensor th_mix(const torch::Tensor& J, const torch::Tensor& p_l, const torch::Tensor& p_w, bool causal) {
  return apply(J, p_l, p_w, causal, false);
}

torch::Tensor th_mix_with_references(const torch::Tensor& J, const torch::Tensor& p_l, const torch::Tensor& p_w,
                                     bool causal) {
  return apply(J, p_l, p_w, causal, true);
}

std::pair<torch::Tensor, torch::Tensor> th_mix_forward_reference(const torch::Tensor& J, const torch::Tensor& p_l,
                                                                 const torch::Tensor& p_w, bool causal) {
  const auto type = compute_type(J);
  auto L = torch::einsum("bknm,kh->bhnm", {J.to(type), p_l.to(type)});
  if (causal) {
    const int64_t n = J.size(2), m = J.size(3);
    const auto future = torch::ones({n, m}, J.options().dtype(torch::kBool)).triu(1 + (m - n));
    L = L.masked_fill(future, -std::numeric_limits<double>::infinity());
  }
  const auto W = torch::softmax(L, -1);
  const auto U = torch::einsum("bhnm,hv->bvnm", {W, p_w.to(type)});
  return {W.to(J.scalar_type()), U.to(J.scalar_type())};
}

std::pair<torch::Tensor, torch::Tensor> th_mix_backward_reference(const torch::Tensor& W, const torch::Tensor& dU,
                                                                  const torch::Tensor& p_l, const torch::Tensor& p_w) {
  const auto type = compute_type(W);
  const auto w = W.to(type);
  const auto dW = torch::einsum("bvnm,hv->bhnm", {dU.to(type), p_w.to(type)});
  const auto dL = w * (dW - (w * dW).sum(-1, true));
  const auto dJ = torch::einsum("bhnm,kh->bknm", {dL, p_l.to(type)});
  return {dL.to(W.scalar_type()), dJ.to(W.scalar_type())};
}

}  // namespace headroom::core
