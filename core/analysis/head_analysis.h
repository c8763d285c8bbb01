// Spectra of what a model actually computed: per-head logit matrices from a trace, per-head
// W_q W_k^T, the embedding matrix, a layer's input. Bridges LibTorch tensors to spectrum.h.
#pragma once

#include <vector>

#include "core/analysis/spectrum.h"
#include "core/attention/attention_layer.h"

namespace headroom::core {

// Which logit tensor of a trace: the raw per-key-head dot products J or the mixed logits L.
enum class LogitStage { J, L };

// One spectrum per head of trace.J or trace.L for batch element b (both are before the causal
// mask; non-finite entries, should any appear, are read as 0).
std::vector<Spectrum> logit_spectra(const AttentionTrace& trace, LogitStage stage, int64_t b = 0);

// One spectrum per head of W_q^(i) W_k^(i)T (d x d): rank <= d_k by construction.
// Empty for general-bilinear (its P_h is d x d, see query_key_spectra_bilinear below).
std::vector<Spectrum> query_key_spectra(const AttentionLayerImpl& layer);

// Every head's logit matrix as an exact product L_h = A_h B_h^T, rebuilt from the layer's
// weights and its input x [n, d] (batch element 0 of the trace's attention input). The inner
// size r is the theory's rank cap made concrete: d_k for a head (LRB §2.3), h_k d_k for mixed
// talking-heads logits (TH §4), 2 h_k d_k with the Ml dynamic term (TH app. A), d for
// general-bilinear (TH §6). A: [h, n, r], B: [h, n, r].
struct LogitFactors {
  torch::Tensor A, B;
};
LogitFactors logit_factors(const AttentionLayerImpl& layer, const torch::Tensor& x);

// Spectra of many matrices given as factors (M_h = A_h B_h^T): the singular values of the
// r x r matrix R_A R_B^T (A = Q_A R_A, B = Q_B R_B), padded with zeros to min(n, m); exact and
// far cheaper than an n x n SVD when r < n. Falls back to the Gram matrix of M when r >= n.
// Tolerances are numpy's for float32 data, as singular_spectrum().
std::vector<Spectrum> factored_spectra(const torch::Tensor& A, const torch::Tensor& B);

// Spectra of a batch [H, n, m] from the eigenvalues of the float64 Gram matrices.
std::vector<Spectrum> batched_spectra(const torch::Tensor& mats);

// Spectrum of any 2-D tensor (e.g. the V x d token embedding, or one layer's n x d input).
Spectrum tensor_spectrum(const torch::Tensor& matrix, double eps = kFloat32Epsilon);

}  // namespace headroom::core
