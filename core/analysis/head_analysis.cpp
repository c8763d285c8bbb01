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

namespace {

std::vector<Spectrum> spectra_from_values(const torch::Tensor& sv /* [H, k] descending, float64 */, int rows,
                                          int cols) {
  std::vector<Spectrum> out;
  auto c = sv.contiguous();
  const int k = std::min(rows, cols);
  for (int64_t h = 0; h < c.size(0); ++h) {
    Spectrum s;
    s.rows = rows;
    s.cols = cols;
    const double* p = c[h].data_ptr<double>();
    s.singular_values.assign(p, p + std::min<int64_t>(c.size(1), k));
    s.singular_values.resize(k, 0.0);
    const double smax = s.singular_values.empty() ? 0.0 : s.singular_values.front();
    s.tolerance = smax * std::max(rows, cols) * kFloat32Epsilon;
    for (double v : s.singular_values) s.rank += v > s.tolerance;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::vector<Spectrum> batched_spectra(const torch::Tensor& mats) {
  // Eigenvalues of the Gram matrices in float64: sigma_i^2 / sigma_max^2 stays accurate to
  // ~1e-16, far below the rank tolerance (~1e-5 sigma_max), and it is much cheaper than an SVD.
  auto d = torch::nan_to_num(mats.detach().to(torch::kFloat64), 0.0, 0.0, 0.0);
  auto g = mats.size(1) <= mats.size(2) ? torch::matmul(d, d.transpose(1, 2)) : torch::matmul(d.transpose(1, 2), d);
  auto sv = torch::linalg_eigvalsh(g, "L").clamp_min(0).sqrt().flip({1});
  return spectra_from_values(sv, static_cast<int>(mats.size(1)), static_cast<int>(mats.size(2)));
}

std::vector<Spectrum> factored_spectra(const torch::Tensor& A, const torch::Tensor& B) {
  const int rows = static_cast<int>(A.size(1)), cols = static_cast<int>(B.size(1));
  const int64_t r = A.size(2);
  if (r >= std::min(rows, cols)) return batched_spectra(torch::matmul(A, B.transpose(1, 2)));
  auto a = A.detach().to(torch::kFloat64), b = B.detach().to(torch::kFloat64);
  auto ra = std::get<1>(torch::linalg_qr(a, "r"));  // [H, r, r]
  auto rb = std::get<1>(torch::linalg_qr(b, "r"));
  auto sv = torch::linalg_svdvals(torch::matmul(ra, rb.transpose(1, 2)));
  return spectra_from_values(sv, rows, cols);
}

LogitFactors logit_factors(const AttentionLayerImpl& layer, const torch::Tensor& x_in) {
  torch::NoGradGuard g;
  const auto& s = layer.spec();
  const auto x = x_in.detach().to(torch::kFloat32);
  const int64_t n = x.size(0), d = s.d_model, hk = s.heads_k, h = s.heads, dk = s.d_k;
  if (s.kind == AttentionKind::GeneralBilinear) {
    // L_h = X P_h X^T: A_h = X P_h, B_h = X.
    auto A = torch::einsum("nx,xyh->hny", {x, layer.gb_p});
    return {A, x.unsqueeze(0).expand({h, n, d})};
  }
  const double scale = logit_scale(s);
  auto q = x.matmul(layer.w_qkv.narrow(1, 0, hk * dk)).view({n, hk, dk}) * scale;
  auto k = x.matmul(layer.w_qkv.narrow(1, hk * dk, hk * dk)).view({n, hk, dk});
  if (!layer.p_l.defined()) {  // one head's logits: Q_h K_h^T, inner size d_k
    return {q.permute({1, 0, 2}), k.permute({1, 0, 2})};
  }
  // L_h = sum_k c_k,h(i) Q_k K_k^T (+ sum_k Q_k K_k^T diag(R_Ml[:,k,h])): concatenate the key
  // heads, scaling the query rows by P_l[k,h] (+ R_Xl[i,k,h]).
  auto coef = layer.p_l.unsqueeze(0).expand({n, hk, h});  // [n, h_k, h]
  if (layer.p_xl.defined()) coef = coef + x.matmul(layer.p_xl).view({n, hk, h});
  auto A = torch::einsum("nkc,nkh->hnkc", {q, coef}).reshape({h, n, hk * dk});
  auto B = k.reshape({n, hk * dk}).unsqueeze(0).expand({h, n, hk * dk});
  if (layer.p_ml.defined()) {
    auto r_ml = x.matmul(layer.p_ml).view({n, hk, h});  // per key position m
    auto A2 = q.reshape({n, hk * dk}).unsqueeze(0).expand({h, n, hk * dk});
    auto B2 = torch::einsum("mkc,mkh->hmkc", {k, r_ml}).reshape({h, n, hk * dk});
    A = torch::cat({A, A2}, 2);
    B = torch::cat({B, B2}, 2);
  }
  return {A.contiguous(), B.contiguous()};
}

}  // namespace headroom::core
