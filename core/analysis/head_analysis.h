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

// Spectrum of any 2-D tensor (e.g. the V x d token embedding, or one layer's n x d input).
Spectrum tensor_spectrum(const torch::Tensor& matrix, double eps = kFloat32Epsilon);

}  // namespace headroom::core
