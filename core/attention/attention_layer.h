// AttentionLayer: one self-attention layer of any kind in AttentionSpec, as a LibTorch module.
//
// Storage is laid out for speed (one fused Q|K|V matrix, heads contiguous); th_parameters()
// returns the same numbers under the TH pseudo-code's names and shapes, which is what dumps,
// tests and the GUI show. Forward can record every intermediate (TH §4: J, L, W, U).
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "core/attention/attention_spec.h"

namespace headroom::core {

// Every intermediate of one forward pass, heads before positions ([B, heads, n, m]):
//   J  raw dot products Q·K times logit_scale(spec)  (h_k heads; general-bilinear: X P M^T)
//   L  logits after the talking-heads projection P_l (h heads; the same tensor as J without P_l)
//   W  softmax weights over the memory positions      (h heads)
//   U  weights after P_w                               (h_v heads; the same tensor as W without P_w)
// Tensors are detached copies of the forward's values. J and L are before the causal mask (their
// rank is what LRB §2.3 bounds); the mask shows as exact zeros in W and U.
struct AttentionTrace {
  torch::Tensor J, L, W, U;
};

// How the static head-mixing kinds (talking-heads, logits-proj, weights-proj) run without a trace:
//   Batched  the [B, h, n, m] logits and weights made and mixed with batched matmuls (or the
//            fused CPU core where it runs);
//   Folded   the mixing folded into one attention call: L_h = sum_k P_l[k,h] Q_k K_k^T is
//            (Q scaled by P_l's column h, all heads side by side) times all keys, and
//            O_v = sum_h P_w[h,v] W_h V_v comes from W_h times all values, mixed after. No
//            [B, h, n, m] tensor is stored (scaled_dot_product_attention on LibTorch 2.x), at h
//            times the attention matmuls' arithmetic;
//   Kernel   on CUDA, the logits made with one batched matmul and mixed, masked, softmaxed and
//            mixed again by th_mix's fused kernels (th_mix.h): 11 passes over [B, heads, n, m]
//            tensors a step instead of 21; Batched where th_mix_unavailable_reason says why not;
//   Auto     (the default) Kernel where th_mix runs (CUDA, the kernels built, a row in shared
//            memory) and no side of the mixing has more than kAutoKernelMaxHeads heads; Batched
//            otherwise. Measured on one H200 (2026-11-26, docs/results/gpu_h200_2026-11-26/, bf16
//            unless said): Kernel against Batched 1.49x at the base model (h 12, n 512) and, at
//            d 512, L 6, n 128 (launch-bound steps of 10-18 ms, so single rounds are noisy),
//            1.17-1.38x at h 8 (3 rounds), 0.90x and 1.19x at h 16, 1.00-1.60x at h 32 (5 rounds,
//            kernel_bench.md); 1.00x at ref, h 32, fp32. Before the kernel's 16-byte P loads and
//            shared short rows it lost at h 32 (0.87x) and the bound was 16. Above 32 heads it is
//            not measured, so Batched. Folded ran 0.63x of Batched at the base model in bf16 and 0.85x at
//            ref, h = 32, fp32 on one H100 (2026-11-24): the extra arithmetic costs more than the
//            [B, h, n, m] passes it saves; Auto never picks it.
// Process-wide, for tests and benchmarks.
enum class MixingPath { Auto, Batched, Folded, Kernel };
void set_mixing_path(MixingPath path);
MixingPath mixing_path();
inline constexpr int64_t kAutoKernelMaxHeads = 32;
// Whether MixingPath::Auto takes the kernel for these head counts (where th_mix can run at all).
bool auto_mixing_prefers_kernel(int64_t heads_k, int64_t heads, int64_t heads_v);

class AttentionLayerImpl : public torch::nn::Module {
 public:
  explicit AttentionLayerImpl(const AttentionSpec& spec);

  // x: [B, n, d_model] -> [B, n, d_model]. Fills `trace` when given.
  torch::Tensor forward(const torch::Tensor& x, AttentionTrace* trace = nullptr);

  const AttentionSpec& spec() const { return spec_; }

  // Re-draws every parameter with the kind's initialisation (uses torch's global RNG).
  void reset_parameters();

  // The parameters under TH's names and shapes (contiguous copies):
  //   P_q[d_X,d_k,h_k] P_k[d_M,d_k,h_k] P_v[d_M,d_v,h_v] P_o[d_Y,d_v,h_v] P_l[h_k,h] P_w[h,h_v]
  //   P_Xl[d_X,h_k,h] P_Ml[d_M,h_k,h] P_Xw[d_X,h,h_v] P_Mw[d_M,h,h_v]; general-bilinear:
  //   P[d_X,d_M,h] Q[d_M,d_Y,h]. Only those the kind has.
  std::vector<std::pair<std::string, torch::Tensor>> th_parameters() const;

  // Sets one parameter from its TH-named, TH-shaped value. Throws std::invalid_argument on an
  // unknown name or a wrong shape.
  void set_th_parameter(const std::string& name, const torch::Tensor& value);

  // Stored parameters (storage layout, see attention_layer.cpp). Undefined where the kind has none.
  torch::Tensor w_qkv;       // [d, 2*h_k*d_k + h_v*d_v]  columns: Q heads | K heads | V heads
  torch::Tensor w_o;         // [h_v*d_v, d]
  torch::Tensor p_l;         // [h_k, h]
  torch::Tensor p_w;         // [h, h_v]
  torch::Tensor p_xl, p_ml;  // [d, h_k*h]
  torch::Tensor p_xw, p_mw;  // [d, h*h_v]
  torch::Tensor gb_p;        // [d, d, h]   (d_X, d_M, h)
  torch::Tensor gb_q;        // [d, d, h]   (d_M, d_Y, h)

 private:
  torch::Tensor forward_bilinear(const torch::Tensor& x, AttentionTrace* trace);
  torch::Tensor forward_fast(const torch::Tensor& x, const torch::Tensor& qkv);  // no trace: training
  torch::Tensor forward_folded(const std::vector<torch::Tensor>& qkv_parts, int64_t B, int64_t n);
  static int64_t causal_query_blocks(int64_t n);
  torch::Tensor causal_mask(int64_t n, int64_t m, const torch::Device& device) const;

  AttentionSpec spec_;
};
TORCH_MODULE(AttentionLayer);

}  // namespace headroom::core
