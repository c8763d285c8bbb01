#pragma once
// OpenBLAS keeps its own thread pool next to LibTorch's intra-op threads. Headroom keeps it at one
// thread: training splits its matmuls over torch's pool itself (parallel_matmul.h), and batch-1
// inference in the GUI runs on one core. Benchmarks set it otherwise to compare. Torch-free header.

#include <string>

namespace headroom::core {

// Sets OpenBLAS's thread count if the process runs on OpenBLAS (looked up at run time, so a
// build against another BLAS still links); returns false where there is no OpenBLAS to set.
bool set_openblas_threads(int threads);

// The kernels OpenBLAS chose for this CPU ("Haswell", "SkylakeX", ... or "Prescott", its oldest,
// on a CPU it does not recognise: several times slower), "" where there is no OpenBLAS. The
// benchmarks print it: their figures depend on it.
std::string openblas_core_name();

// What a CPU offers the matrix kernels, for the advice below.
struct CpuVectorUnits {
  bool avx2_fma = false;  // AVX2 and FMA: OpenBLAS's "Haswell" kernels
  bool avx512 = false;    // AVX-512 F, BW, DQ and VL: its "SkylakeX" kernels
};
CpuVectorUnits cpu_vector_units();

// One line telling a user that OpenBLAS runs kernels older than their CPU supports (Debian's
// OpenBLAS 0.3.21 falls back to "Prescott" on a model it does not know, several times slower) and
// the OPENBLAS_CORETYPE that would use what the CPU has; "" where nothing is to be said: the
// kernels suit the CPU, there is no OpenBLAS, or the user set OPENBLAS_CORETYPE themselves.
// Headroom never sets it: the user decides (README, Performance). Pure, for tests:
std::string openblas_kernel_advice(const std::string& core_name, const CpuVectorUnits& cpu, bool coretype_set);
// ... and for this process.
std::string openblas_kernel_advice();

}  // namespace headroom::core
