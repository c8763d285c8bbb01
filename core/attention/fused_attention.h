// The attention core of training as one autograd function: from the fused Q|K|V activations to the
// heads' outputs, for every kind whose head mixing is static (multi-head, talking-heads, logits- or
// weights-projection only). TH §4 in formulas, per sequence b:
//   J_k = s Q_k K_k^T   L = P_l^T J   W = softmax(L + causal mask)   U = P_w^T W   O_v = U_v V_v
// (P_l, P_w absent: L = J, U = W). Forwards and backwards work one sequence at a time, in
// query-row blocks that skip the masked future, on cache-sized buffers, with the sequences split
// across torch's intra-op threads (each BLAS call single-threaded: see parallel_matmul.h); every matmul is one BLAS
// call on strided pointers into Q|K|V, so heads are never permuted into copies and the output comes out as [B, n, h_v
// d_v], ready for the output projection.
#pragma once

#include <torch/torch.h>

#include <string>

namespace headroom::core {

struct FusedAttentionShape {
  int64_t heads_k = 1, heads = 1, heads_v = 1, d_k = 1, d_v = 1;
  double scale = 1.0;  // s: multiplies Q K^T
  bool causal = false;
  int64_t query_blocks = 1;  // causal only: rows split into this many blocks (block i sees keys < its end)
};

// True when fused_attention can run on `qkv`: CPU, float32 or float64, outside autocast, and a
// CBLAS (OpenBLAS) in the process. Otherwise callers use ATen ops.
bool fused_attention_available(const torch::Tensor& qkv);

// Why this process cannot run the fused core at all, or "" when it can. A LibTorch that brings no
// CBLAS (a PyTorch wheel's links MKL or its own BLAS statically) leaves no cblas_sgemm to call.
std::string fused_attention_unavailable_reason();

// Process-wide switch (default on) that AttentionLayer consults before taking the fused core, or
// on LibTorch 2.x scaled_dot_product_attention: off, every static kind takes the ATen matmul +
// softmax path, so tests and benchmarks can check and time it. fused_attention() ignores it.
void set_fused_attention_enabled(bool enabled);
bool fused_attention_enabled();

// qkv: [B, n, 2 h_k d_k + h_v d_v] (columns Q heads | K heads | V heads); p_l [h_k, h] and p_w
// [h, h_v] or undefined. Returns O [B, n, h_v d_v] (head v in columns v d_v ..), differentiable
// with respect to qkv, p_l and p_w. Results do not depend on the thread count.
torch::Tensor fused_attention(const torch::Tensor& qkv, const torch::Tensor& p_l, const torch::Tensor& p_w,
                              const FusedAttentionShape& shape);

}  // namespace headroom::core
