// The fused CUDA kernels behind th_mix (th_mix.h): talking-heads' head mixing, causal mask and
// softmax in one pass over the [B, heads, n, m] attention tensors. Plain C++: no torch, no CUDA
// headers, so th_mix.cpp builds everywhere; th_mix_kernel.cu defines these only in a build with
// CUDA (HEADROOM_TH_MIX_KERNEL), and th_mix.cpp calls them only then.
//
// One thread block per query row (b, i). Per row, with j over the m keys and v(i) = i + (m - n) + 1
// keys visible under the causal mask (all m without it):
//   forward   L[h, j] = sum_k P_l[k, h] J[k, j]       (j < v(i))
//             W[h, :] = softmax(L[h, :v(i)]), 0 after
//             U[v, j] = sum_h P_w[h, v] W[h, j]
//   backward  dW[h, j] = sum_v P_w[h, v] dU[v, j]
//             dL[h, j] = W[h, j] (dW[h, j] - sum_j' W[h, j'] dW[h, j'])
//             dJ[k, j] = sum_h P_l[k, h] dL[h, j]
// Reads J (h_k planes) and writes W (h) and U (h_v) forward; reads W and dU and writes dL and dJ
// backward, against the 8 and 13 plane passes of the same arithmetic as separate ATen ops. The
// row's h x m logits, P_l and P_w sit in shared memory; arithmetic in float32 whatever the storage.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace headroom::core::th_mix_kernel {

enum class Storage { Float32, BFloat16 };

struct Shape {
  int64_t batch = 0, heads_k = 0, heads = 0, heads_v = 0, n = 0, m = 0;
  bool causal = false;
};

// Threads per block (one block per query row): 256, or 128 for rows shorter than 256 keys; a
// warp per softmax row wants a few warps either way.
inline int threads_per_block(const Shape& s) { return s.m >= 256 ? 256 : 128; }

// Floats per row of a head-mixing matrix in shared memory: `columns` rounded up to 4, so rows start
// 16-byte aligned (the kernels read P four columns at a time; th_mix_kernel_body.h's mix_ld).
inline int64_t padded_row(int64_t columns) { return (columns + 3) / 4 * 4; }

// Shared memory one forward block needs (bytes): P_l, P_w and the row's h x m logits.
inline std::size_t forward_shared_bytes(const Shape& s) {
  return static_cast<std::size_t>(s.heads_k * padded_row(s.heads) + s.heads * padded_row(s.heads_v) + s.heads * s.m) *
         sizeof(float);
}

// Shared memory one backward block needs (bytes): P_l and P_w transposed, the row's weights and
// their gradient.
inline std::size_t backward_shared_bytes(const Shape& s) {
  return static_cast<std::size_t>(s.heads * padded_row(s.heads_k) + s.heads_v * padded_row(s.heads) +
                                  2 * s.heads * s.m) *
         sizeof(float);
}

// What must fit for both kernels to run.
inline std::size_t shared_bytes(const Shape& s) { return std::max(forward_shared_bytes(s), backward_shared_bytes(s)); }

// The most shared memory a block may have on `device` (the opt-in maximum), or 0 without a
// usable CUDA device.
std::size_t max_shared_bytes(int device);

// J [B, h_k, n, m], W [B, h, n, m], U [B, h_v, n, m] contiguous in `storage`; p_l [h_k, h] and
// p_w [h, h_v] float32, contiguous, on the same device. Runs on the legacy default stream (the
// one LibTorch uses unless told otherwise). Throws std::runtime_error naming the CUDA error.
void forward(const void* J, const float* p_l, const float* p_w, void* W, void* U, const Shape& s, Storage storage,
             int device);

// W and dU as above; writes dL [B, h, n, m] and dJ [B, h_k, n, m] (0 where masked).
void backward(const void* W, const void* dU, const float* p_l, const float* p_w, void* dL, void* dJ, const Shape& s,
              Storage storage, int device);

}  // namespace headroom::core::th_mix_kernel
