#include "core/analysis/head_analysis.h"

#include <stdexcept>

namespace headroom::core {

Spectrum tensor_spectrum(const torch::Tensor& matrix, double eps) {
  TORCH_CHECK(matrix.dim() == 2, "tensor_spectrum needs a matrix, got ", matrix.sizes());
  auto m = matrix.detach().to(torch::kFloat32).contiguous();
  return singular_spectrum(m.data_ptr<float>(), static_cast<int>(m.size(0)), static_cast<int>(m.size(1)), eps);
}

std::vector<Spectrum> logit_spectra(const AttentionTrace& trace, LogitStage stage, int64_t b) {
  const auto& t = stage == LogitStage::J ? trace.J : trace.L;
  if (!t.defined()) throw std::invalid_argument("the trace has no logits: run forward with a trace");
  auto finite = torch::nan_to_num(t[b].to(torch::kFloat32), 0.0, 0.0, 0.0);  // -inf (masked) -> 0
  std::vector<Spectrum> out;
  out.reserve(finite.size(0));
  for (int64_t h = 0; h < finite.size(0); ++h) out.push_back(tensor_spectrum(finite[h]));
  return out;
}

std::vector<Spectrum> query_key_spectra(const AttentionLayerImpl& layer) {
  std::vector<Spectrum> out;
  const auto& s = layer.spec();
  if (s.kind == AttentionKind::GeneralBilinear) return out;
  torch::NoGradGuard g;
  const int64_t d = s.d_model, hk = s.heads_k, dk = s.d_k;
  auto wq = layer.w_qkv.narrow(1, 0, hk * dk).reshape({d, hk, dk});
  auto wk = layer.w_qkv.narrow(1, hk * dk, hk * dk).reshape({d, hk, dk});
  for (int64_t h = 0; h < hk; ++h) {
    auto qh = wq.select(1, h), kh = wk.select(1, h);  // [d, d_k]
    out.push_back(tensor_spectrum(torch::matmul(qh, kh.t())));
  }
  return out;
}

}  // namespace headroom::core
