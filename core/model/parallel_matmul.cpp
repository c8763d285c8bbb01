#include "core/model/parallel_matmul.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include "core/model/torch_compat.h"

namespace headroom::core {
namespace {

// Below this many multiply-adds a matmul is one call: splitting costs more than it saves.
constexpr int64_t kSplitMinWork = int64_t{1} << 18;

// Runs fn(r0, r1) over [0, rows) in one contiguous part per intra-op thread (the caller's thread
// takes part of the work). One part when there is one thread, little work, or already inside a
// parallel region.
template <typename Fn>
void split_rows(int64_t rows, int64_t work, const Fn& fn) {
  const int64_t parts = std::min<int64_t>(at::get_num_threads(), rows);
  if (parts <= 1 || work < kSplitMinWork || at::in_parallel_region()) {
    fn(int64_t{0}, rows);
    return;
  }
  at::parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    at::NoGradGuard no_grad;  // grad mode is per thread: the pool's threads do not inherit the caller's
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t r0 = rows * p / parts, r1 = rows * (p + 1) / parts;
      if (r1 > r0) fn(r0, r1);
    }
  });
}

struct ParallelMatmulFn : public torch::autograd::Function<ParallelMatmulFn> {
  // x2 [M, in]; w as stored; bias [out] or empty. Returns [M, out].
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x2, const torch::Tensor& w,
                               const torch::Tensor& bias, bool out_in) {
    const auto w_in_out = out_in ? w.t() : w;  // a view: BLAS reads the transpose in place
    const int64_t M = x2.size(0), in = x2.size(1), out = w_in_out.size(1);
    auto y = torch::empty({M, out}, x2.options());
    const bool has_bias = bias.numel() > 0;
    split_rows(M, M * in * out, [&](int64_t r0, int64_t r1) {
      auto ys = y.narrow(0, r0, r1 - r0);
      if (has_bias) at::addmm_out(ys, bias, x2.narrow(0, r0, r1 - r0), w_in_out);
      else at::mm_out(ys, x2.narrow(0, r0, r1 - r0), w_in_out);
    });
    ctx->save_for_backward({x2, w});
    ctx->saved_data["out_in"] = out_in;
    ctx->saved_data["has_bias"] = has_bias;
    return y;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& x2 = saved[0];
    const auto& w = saved[1];
    const bool out_in = ctx->saved_data["out_in"].toBool();
    const auto g = grad_outputs[0].contiguous();  // [M, out]
    const int64_t M = x2.size(0), in = x2.size(1), out = g.size(1);
    torch::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) {
      // dx = g W^T (in-out terms), rows of M.
      const auto w_out_in = out_in ? w : w.t();
      dx = torch::empty({M, in}, x2.options());
      split_rows(M, M * in * out, [&](int64_t r0, int64_t r1) {
        auto part = dx.narrow(0, r0, r1 - r0);
        at::mm_out(part, g.narrow(0, r0, r1 - r0), w_out_in);
      });
    }
    if (ctx->needs_input_grad(1)) {
      // [out, in] storage: dW = g^T x, rows of out. [in, out] storage: dW = x^T g, rows of in.
      const auto& left = out_in ? g : x2;
      const auto& right = out_in ? x2 : g;
      dw = torch::empty_like(w);
      split_rows(dw.size(0), M * in * out, [&](int64_t r0, int64_t r1) {
        auto part = dw.narrow(0, r0, r1 - r0);
        at::mm_out(part, left.narrow(1, r0, r1 - r0).t(), right);
      });
    }
    if (ctx->saved_data["has_bias"].toBool() && ctx->needs_input_grad(2)) db = g.sum(0);
    return {dx, dw, db, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor parallel_matmul(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                              bool weight_is_out_in) {
  const int64_t in = weight.size(weight_is_out_in ? 1 : 0), out = weight.size(weight_is_out_in ? 0 : 1);
  TORCH_CHECK(x.size(-1) == in, "parallel_matmul: input has ", x.size(-1), " features, the weight takes ", in);
  // Off the CPU, or inside autocast (which only ATen's own ops take part in): the plain op.
  if (!x.device().is_cpu() || compat::autocasting(x))
    return torch::nn::functional::linear(x, weight_is_out_in ? weight : weight.t(), bias);
  auto out_shape = x.sizes().vec();
  out_shape.back() = out;
  // Autograd's custom functions take defined tensors only: no bias travels as an empty tensor.
  const auto b = bias.defined() ? bias : torch::empty({0}, x.options());
  return ParallelMatmulFn::apply(x.reshape({-1, in}).contiguous(), weight, b, weight_is_out_in).view(out_shape);
}

}  // namespace headroom::core
