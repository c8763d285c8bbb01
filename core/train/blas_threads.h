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

}  // namespace headroom::core
