// Singular spectra and numerical rank (Eigen, no torch).
#pragma once

#include <Eigen/Core>

#include <vector>

namespace headroom::core {

// float32's machine epsilon: the matrices Headroom analyses come out of float32 forward passes.
inline constexpr double kFloat32Epsilon = 1.1920928955078125e-07;
inline constexpr double kFloat64Epsilon = 2.220446049250313e-16;

struct Spectrum {
  std::vector<double> singular_values;  // descending
  double tolerance = 0;                 // singular values <= tolerance count as zero
  int rank = 0;                         // numerical rank
  int rows = 0, cols = 0;
};

// Numerical rank with numpy.linalg.matrix_rank's tolerance: sigma_max * max(rows, cols) * eps,
// eps being the machine epsilon of the precision the matrix was computed in. A matrix of rank k
// built in float32 has its "zero" singular values near sigma_max * 1e-7, well under this.
Spectrum singular_spectrum(const Eigen::MatrixXd& a, double eps = kFloat32Epsilon);

// The same for a row-major float buffer (e.g. one head of a trace).
Spectrum singular_spectrum(const float* data, int rows, int cols, double eps = kFloat32Epsilon);

}  // namespace headroom::core
