// The LibTorch calls whose spelling differs between Debian's 1.13 and the 2.x of PyTorch wheels and
// official builds, in one place (issue 11: "one build, two LibTorch worlds"). Each is fenced on
// TORCH_VERSION_* with the version that changed it; everything else in Headroom is spelled the
// same in both.
#pragma once

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

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

// True inside a bf16 autocast scope on the device of `t`: the model's own CPU kernels (parallel
// matmul, fused attention) compute in float32 and step aside for ATen's autocast-aware ops.
inline bool autocasting(const at::Tensor& t) { return autocast_enabled(t.device().type()); }

}  // namespace headroom::core::compat
