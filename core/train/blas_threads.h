#pragma once
// OpenBLAS keeps its own thread pool next to LibTorch's intra-op threads. Training wants it over
// all cores (torch 1 x BLAS n), batch-1 inference in the GUI on one. Torch-free header.

namespace headroom::core {

// Sets OpenBLAS's thread count if the process runs on OpenBLAS (looked up at run time, so a
// build against another BLAS still links); returns false where there is no OpenBLAS to set.
bool set_openblas_threads(int threads);

}  // namespace headroom::core
