#include "core/analysis/spectrum.h"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>

namespace headroom::core {

Spectrum singular_spectrum(const Eigen::MatrixXd& a, double eps) {
  Spectrum s;
  s.rows = static_cast<int>(a.rows());
  s.cols = static_cast<int>(a.cols());
  if (a.size() == 0) return s;
  Eigen::BDCSVD<Eigen::MatrixXd> svd(a);  // values only; BDCSVD falls back to Jacobi when small
  const auto& sv = svd.singularValues();
  s.singular_values.assign(sv.data(), sv.data() + sv.size());
  const double smax = s.singular_values.empty() ? 0.0 : s.singular_values.front();
  s.tolerance = smax * std::max(s.rows, s.cols) * eps;
  s.rank = static_cast<int>(
      std::count_if(s.singular_values.begin(), s.singular_values.end(), [&](double v) { return v > s.tolerance; }));
  return s;
}

Spectrum singular_spectrum(const float* data, int rows, int cols, double eps) {
  Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(data, rows, cols);
  return singular_spectrum(Eigen::MatrixXd(m.cast<double>()), eps);
}

}  // namespace headroom::core
