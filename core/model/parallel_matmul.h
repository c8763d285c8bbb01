// The model's dense layers as one autograd function that splits every matmul across torch's
// intra-op threads itself, each part one single-threaded BLAS call.
//
// Why: training wants every core in one thread pool. OpenBLAS's own pool parallelises a GEMM but
// leaves everything between GEMMs (attention core, GELU, LayerNorm, the loss, AdamW) on one core,
// and its workers spin between calls, so a second pool on the same cores fights them. With
// OpenBLAS at one thread and torch's pool at all cores, the GEMMs split here, the elementwise
// kernels split by ATen, and the fused attention core splits by sequence, all in the same pool.
#pragma once

#include <torch/torch.h>

namespace headroom::core {

// y = x W + b for W stored [in, out] (weight_is_out_in = false), or y = x W^T + b for W stored
// [out, in] as torch::nn::Linear keeps it. x: [..., in]; bias [out] or undefined. Forward and both
// gradients split rows (of x, dx, dW) into one part per intra-op thread; with one thread it is a
// single matmul. The same values as torch::matmul / torch::nn::functional::linear up to rounding.
torch::Tensor parallel_matmul(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                              bool weight_is_out_in);

// torch::nn::Linear's forward through parallel_matmul.
inline torch::Tensor parallel_linear(const torch::Tensor& x, const torch::nn::Linear& layer) {
  return parallel_matmul(x, layer->weight, layer->bias, true);
}

}  // namespace headroom::core
