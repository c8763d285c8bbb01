// The LibTorch calls whose spelling differs between Debian's 1.13 and the 2.x of PyTorch wheels and
// official builds, in one place (issue 11: "one build, two LibTorch worlds"). Each is fenced on
// TORCH_VERSION_* with the version that changed it; everything else in Headroom is spelled the
// same in both.
#pragma once

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <vector>

namespace headroom::core::compat {

#define HEADROOM_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// Row softmax into `out` and its backward into `grad_input`: ATen's private kernels, which the fused
// attention core calls on its own buffers (the public torch::softmax allocates its result).
// 1.11 changed the backward's last argument from the input tensor to its dtype.
inline void softmax_out(at::Tensor& out, const at::Tensor& logits, int64_t dim) {
  at::_softmax_out(out, logits, dim, /*half_to_float=*/false);
}
inline void softmax_backward_out(at::Tensor& grad_input, const at::Tensor& grad_output, const at::Tensor& output,
                                 int64_t dim) {
#if HEADROOM_TORCH_AT_LEAST(1, 11)
  at::_softmax_backward_data_out(grad_input, grad_output, output, dim, output.scalar_type());
#else
  at::_softmax_backward_data_out(grad_input, grad_output, output, dim, output);
#endif
}

// Autocast per device type. 2.4 replaced the per-device functions (set_cpu_enabled,
// set_autocast_cpu_dtype, ...) with ones taking the device type.
inline bool autocast_enabled(at::DeviceType type) {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(type);
#else
  return type == at::kCUDA ? at::autocast::is_enabled() : type == at::kCPU && at::autocast::is_cpu_enabled();
#endif
}

inline void set_autocast(at::DeviceType type, bool enabled, at::ScalarType dtype) {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(type, enabled);
  at::autocast::set_autocast_dtype(type, dtype);
#else
  if (type == at::kCUDA) {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}

// bf16 autocast on `device` for one scope (a forward and its loss), restoring what was there. On
// leaving the outermost guard the cast-weight cache is dropped, as torch.autocast does.
class AutocastGuard {
 public:
  AutocastGuard(const at::Device& device, bool enabled)
      : type_(device.type()), was_enabled_(autocast_enabled(type_)), active_(enabled) {
    if (!active_) return;
    set_autocast(type_, true, at::kBFloat16);
    at::autocast::increment_nesting();
  }
  ~AutocastGuard() {
    if (!active_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    set_autocast(type_, was_enabled_, at::kBFloat16);
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  at::DeviceType type_;
  bool was_enabled_, active_;
};

// Scaled dot-product attention (2.0; its `scale` argument 2.1): flash / memory-efficient kernels on
// CUDA, a flash kernel on the CPU. q, k [B, H, n, d_k], v [B, H, m, d_v] -> [B, H, n, d_v]; `causal`
// masks key j > query i. Headroom calls it only where it computes the same function as its own
// path (every head reads its own logits: multi-head and fixed-head), and never on 1.13.
constexpr bool kHasSdpa = HEADROOM_TORCH_AT_LEAST(2, 1);
inline at::Tensor sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal, double scale) {
#if HEADROOM_TORCH_AT_LEAST(2, 1)
  return at::scaled_dot_product_attention(q, k, v, {}, 0.0, causal, scale);
#else
  (void)q, (void)k, (void)v, (void)causal, (void)scale;
  TORCH_CHECK(false, "scaled_dot_product_attention needs LibTorch 2.1 or later");
#endif
}

// Multi-tensor kernels (2.1): AdamW over every parameter in a few launches and the gradients'
// global norm and clipping without a host sync, as torch.optim.AdamW(fused=True) and
// clip_grad_norm_(foreach=True) do. On CUDA only; the CPU keeps its per-parameter loop, which the
// README's CPU figures measure.
constexpr bool kHasFusedAdamw = HEADROOM_TORCH_AT_LEAST(2, 1);
// One AdamW step over `params` (decoupled weight decay `weight_decay`), `step` a one-element
// float32 tensor on the device holding the step number counted from 1.
inline void fused_adamw(std::vector<at::Tensor>& params, std::vector<at::Tensor>& grads, std::vector<at::Tensor>& m,
                        std::vector<at::Tensor>& v, const at::Tensor& step, double lr, double beta1, double beta2,
                        double weight_decay, double eps) {
#if HEADROOM_TORCH_AT_LEAST(2, 1)
  if (params.empty()) return;
  const std::vector<at::Tensor> steps(params.size(), step);
  at::_fused_adamw_(params, grads, m, v, {}, steps, lr, beta1, beta2, weight_decay, eps, /*amsgrad=*/false,
                    /*maximize=*/false);
#else
  (void)params, (void)grads, (void)m, (void)v, (void)step, (void)lr, (void)beta1, (void)beta2, (void)weight_decay,
      (void)eps;
  TORCH_CHECK(false, "fused AdamW needs LibTorch 2.1 or later");
#endif
}
// The global L2 norm of `grads` (a 0-dim tensor on their device), and, when max_norm > 0, every
// gradient scaled by min(1, max_norm / (norm + 1e-6)) as clip_grad_norm_ does, with no host sync.
inline at::Tensor clip_grad_norm_foreach(std::vector<at::Tensor>& grads, double max_norm) {
#if HEADROOM_TORCH_AT_LEAST(2, 1)
  const auto norms = at::_foreach_norm(grads, 2);
  const auto total = at::linalg_vector_norm(at::stack(norms), 2);
  if (max_norm > 0) at::_foreach_mul_(grads, (max_norm / (total + 1e-6)).clamp_max(1.0));
  return total;
#else
  (void)max_norm;
  TORCH_CHECK(false, "foreach clipping needs LibTorch 2.1 or later");
  return grads.front();
#endif
}

// True inside a bf16 autocast scope on the device of `t`: the model's own CPU kernels (parallel
// matmul, fused attention) compute in float32 and step aside for ATen's autocast-aware ops.
inline bool autocasting(const at::Tensor& t) { return autocast_enabled(t.device().type()); }

}  // namespace headroom::core::compat
