// Talking-heads' head mixing, causal mask and softmax fused into one pass per query row. The
// arithmetic and the contract are in th_mix_kernel.h; th_mix_forward_reference and
// th_mix_backward_reference (th_mix.h) are the same functions in ATen ops, and the CUDA tests
// hold these kernels to them.
#include "core/attention/th_mix_kernel.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace headroom::core::th_mix_kernel {
namespace {

constexpr std::size_t kDefaultSharedLimit = 48 * 1024;  // above it a kernel must opt in

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store(float* p, float x) { *p = x; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float x) { *p = __float2bfloat16(x); }
__device__ __forceinline__ float hr_fmax(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ float hr_exp(float x) { return expf(x); }
__device__ __forceinline__ float4 hr_load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ float* shared_floats() {
  extern __shared__ __align__(16) float smem[];  // 16: hr_load4 reads float4 from it
  return smem;
}

#define HR_DEVICE __device__ __forceinline__
#define HR_GLOBAL __global__
#define HR_TID static_cast<int>(threadIdx.x)
#define HR_NTHREADS static_cast<int>(blockDim.x)
#define HR_BID static_cast<long long>(blockIdx.x)
#define HR_SYNC() __syncthreads()
#define HR_SHFL_XOR(x, o) __shfl_xor_sync(0xffffffffu, (x), (o))
#define HR_SHARED_FLOATS() shared_floats()
#define HR_UNROLL _Pragma("unroll")
// The backward at most 64 registers a thread: 4 blocks of 256 threads an SM, as many as its shared
// memory allows at the base model (h 12, m 512: 50 KB a block). Left to itself nvcc 13.0 took 70
// for sm_90a, which fits 3; at 64 it spills 4 bytes.
#define HR_LAUNCH_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
#include "core/attention/th_mix_kernel_body.h"

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("talking-heads mixing kernel: ") + what + ": " + cudaGetErrorString(e));
  }
}

// Makes `device` current for the launch and restores the caller's afterwards.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~DeviceGuard() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

template <typename Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes > kDefaultSharedLimit) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  }
}

// At most this many threads share one key column (th_mix_kernel_body.h's column_parts): no limit
// unless HEADROOM_TH_MIX_COLUMN_PARTS says one; 1 runs every column in one thread, as before the
// split, for side-by-side benchmarks.
int column_parts_limit() {
  static const int limit = [] {
    const char* text = std::getenv("HEADROOM_TH_MIX_COLUMN_PARTS");
    const int value = text != nullptr && *text != '\0' ? std::atoi(text) : 0;
    return value >= 1 ? value : 1 << 20;
  }();
  return limit;
}

template <typename T>
void launch_forward(const void* J, const float* p_l, const float* p_w, void* W, void* U, const Shape& s) {
  const std::size_t bytes = forward_shared_bytes(s);
  allow_shared(forward_kernel<T>, bytes);
  forward_kernel<T><<<static_cast<unsigned>(s.batch * s.n), threads_per_block(s), bytes, nullptr>>>(
      static_cast<const T*>(J), p_l, p_w, static_cast<T*>(W), static_cast<T*>(U), static_cast<int>(s.heads_k),
      static_cast<int>(s.heads), static_cast<int>(s.heads_v), static_cast<int>(s.n), static_cast<int>(s.m), s.causal,
      column_parts_limit());
  check(cudaGetLastError(), "forward launch");
}

template <typename T>
void launch_backward(const void* W, const void* dU, const float* p_l, const float* p_w, void* dL, void* dJ,
                     const Shape& s) {
  const std::size_t bytes = backward_shared_bytes(s);
  allow_shared(backward_kernel<T>, bytes);
  backward_kernel<T><<<static_cast<unsigned>(s.batch * s.n), threads_per_block(s), bytes, nullptr>>>(
      static_cast<const T*>(W), static_cast<const T*>(dU), p_l, p_w, static_cast<T*>(dL), static_cast<T*>(dJ),
      static_cast<int>(s.heads_k), static_cast<int>(s.heads), static_cast<int>(s.heads_v), static_cast<int>(s.n),
      static_cast<int>(s.m), s.causal, column_parts_limit());
  check(cudaGetLastError(), "backward launch");
}

}  // namespace

std::size_t max_shared_bytes(int device) {
  // Asked at every forward of every talking-heads layer: the answer per device is kept.
  // Stored plus one, so that the zero a static array starts with means "not asked yet".
  static std::array<std::atomic<long long>, 64> known{};
  const bool cached = device >= 0 && device < static_cast<int>(known.size());
  if (cached) {
    if (const long long k = known[static_cast<std::size_t>(device)].load(); k > 0)
      return static_cast<std::size_t>(k - 1);
  }
  int bytes = 0;
  if (cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    cudaGetLastError();  // clear it: a missing device is an answer here, not an error for later calls
    bytes = 0;
  }
  if (cached) known[static_cast<std::size_t>(device)] = static_cast<long long>(bytes) + 1;
  return static_cast<std::size_t>(bytes);
}

void forward(const void* J, const float* p_l, const float* p_w, void* W, void* U, const Shape& s, Storage storage,
             int device) {
  if (s.batch * s.n == 0) return;
  DeviceGuard guard(device);
  if (storage == Storage::BFloat16) launch_forward<__nv_bfloat16>(J, p_l, p_w, W, U, s);
  else launch_forward<float>(J, p_l, p_w, W, U, s);
}

void backward(const void* W, const void* dU, const float* p_l, const float* p_w, void* dL, void* dJ, const Shape& s,
              Storage storage, int device) {
  if (s.batch * s.n == 0) return;
  DeviceGuard guard(device);
  if (storage == Storage::BFloat16) launch_backward<__nv_bfloat16>(W, dU, p_l, p_w, dL, dJ, s);
  else launch_backward<float>(W, dU, p_l, p_w, dL, dJ, s);
}

}  // namespace headroom::core::th_mix_kernel
