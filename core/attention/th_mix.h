// Talking-heads' head mixing (TH §4) from the raw logits to the mixed weights as one autograd
// function, for CUDA: U = P_w^T softmax(P_l^T J + causal mask), per sequence and query row:
//   J [B, h_k, n, m] -> L = P_l^T J [B, h, n, m] -> W = softmax(L) -> U = P_w^T W [B, h_v, n, m]
// The ATen version of that chain makes and reads the [B, heads, n, m] tensors about 21 times per
// training step (8 forward, 13 backward); th_mix's kernels (th_mix_kernel.h) make and read them 11
// times: forward reads J and writes W (kept for backward) and U; backward reads W and dU and writes
// dL and dJ, and dP_l = sum J dL^T, dP_w = sum W dU^T are two batched matmuls over the n m
// positions.
//
// Without P_l (weights-projection only) h = h_k and L = J; without P_w (logits-projection only)
// h_v = h and U = W. Storage float32 or bfloat16 (autocast's), arithmetic float32.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>

namespace headroom::core {

// "" when th_mix can run on J with these head counts: J a float32 or bfloat16 CUDA tensor, the
// kernels built (a LibTorch with CUDA and nvcc at configure time), and one query row's h x m
// weights, their gradient, P_l and P_w in a block's shared memory. Otherwise why not.
std::string th_mix_unavailable_reason(const torch::Tensor& J, int64_t heads_k, int64_t heads, int64_t heads_v);

// True when this build has the CUDA kernels.
bool th_mix_kernels_built();

// U [B, h_v, n, m], differentiable in J, p_l and p_w (either may be undefined). Needs
// th_mix_unavailable_reason(J, ...) to be "".
torch::Tensor th_mix(const torch::Tensor& J, const torch::Tensor& p_l, const torch::Tensor& p_w, bool causal);

// The kernels' contract in ATen ops, on any device and float dtype (p_l, p_w defined):
// forward -> (W, U); backward -> (dL, dJ), both 0 where the causal mask hides a key.
std::pair<torch::Tensor, torch::Tensor> th_mix_forward_reference(const torch::Tensor& J, const torch::Tensor& p_l,
                                                                 const torch::Tensor& p_w, bool causal);
std::pair<torch::Tensor, torch::Tensor> th_mix_backward_reference(const torch::Tensor& W, const torch::Tensor& dU,
                                                                  const torch::Tensor& p_l, const torch::Tensor& p_w);

// th_mix's autograd function with the references in place of the kernels, on any device: what the
// CPU tests check the function's own arithmetic (dP_l, dP_w, absent projections) with.
torch::Tensor th_mix_with_references(const torch::Tensor& J, const torch::Tensor& p_l, const torch::Tensor& p_w,
                                     bool causal);

}  // namespace headroom::core
