// Talking-heads' head mixing, causal mask and softmax fused into one pass per query row. The
// arithmetic and the contract are in th_mix_kernel.h; th_mix_forward_reference and
// th_mix_backward_reference (th_mix.h) are the same functions in ATen ops, and the CUDA tests
// hold these kernels to them.
#include "core/attention/th_mix_kernel.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace headroom::core::th_mix_kernel {
namespace {

constexpr int kWarp = 32;
constexpr std::size_t kDefaultSharedLimit = 48 * 1024;  // above it a kernel must opt in

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store(float* p, float x) { *p = x; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float x) { *p = __float2bfloat16(x); }

__device__ __forceinline__ float warp_max(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}

__device__ __forceinline__ float warp_sum(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

// Keys visible to query i: j < i + (m - n) + 1 under the causal mask, all m without it.
__device__ __forceinline__ int visible_keys(int i, int n, int m, bool causal) {
  return causal ? max(0, min(m, i + (m - n) + 1)) : m;
}

// One key column through a head-mixing matrix: out(o) = sum_q in(q) P(q, o) for o < n_out, with
// P(q, o) = p[q * sq + o * so] in shared memory (the same address for every thread: a broadcast).
// Outputs are accumulated 8 at a time in registers, so each input is read n_out / 8 times and
// each output written once.
template <typename In, typename Out>
__device__ __forceinline__ void mix_column(int n_in, int n_out, const float* p, int sq, int so, In in, Out out) {
  constexpr int kChunk = 8;
  for (int o0 = 0; o0 < n_out; o0 += kChunk) {
    float acc[kChunk];
#pragma unroll
    for (int r = 0; r < kChunk; ++r) acc[r] = 0.0f;
    for (int q = 0; q < n_in; ++q) {
      const float x = in(q);
      const float* pq = p + q * sq + o0 * so;
#pragma unroll
      for (int r = 0; r < kChunk; ++r) {
        if (o0 + r < n_out) acc[r] += x * pq[r * so];
      }
    }
#pragma unroll
    for (int r = 0; r < kChunk; ++r) {
      if (o0 + r < n_out) out(o0 + r, acc[r]);
    }
  }
}

// Row c of a [h][m] block of logits becomes softmax over its first `visible` entries; one warp
// per row, so every thread of the block must call it.
__device__ void softmax_rows(float* a, int h, int m, int visible) {
  const int warp = static_cast<int>(threadIdx.x) / kWarp, lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warps = static_cast<int>(blockDim.x) / kWarp;
  for (int c = warp; c < h; c += warps) {
    float* r = a + static_cast<long long>(c) * m;
    float mx = -INFINITY;
    for (int j = lane; j < visible; j += kWarp) mx = fmaxf(mx, r[j]);
    mx = warp_max(mx);
    float sum = 0.0f;
    for (int j = lane; j < visible; j += kWarp) {
      const float e = expf(r[j] - mx);
      r[j] = e;
      sum += e;
    }
    sum = warp_sum(sum);
    const float inv = 1.0f / sum;
    for (int j = lane; j < visible; j += kWarp) r[j] *= inv;
  }
}

// dL = W (dW - <W, dW>) per row c, in place in g; one warp per row, every thread calls it.
__device__ void softmax_backward_rows(const float* w, float* g, int h, int m, int visible) {
  const int warp = static_cast<int>(threadIdx.x) / kWarp, lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warps = static_cast<int>(blockDim.x) / kWarp;
  for (int c = warp; c < h; c += warps) {
    const float* wr = w + static_cast<long long>(c) * m;
    float* gr = g + static_cast<long long>(c) * m;
    float dot = 0.0f;
    for (int j = lane; j < visible; j += kWarp) dot += wr[j] * gr[j];
    dot = warp_sum(dot);
    for (int j = lane; j < visible; j += kWarp) gr[j] = wr[j] * (gr[j] - dot);
  }
}

template <typename T>
__global__ void forward_kernel(const T* __restrict__ J, const float* __restrict__ p_l, const float* __restrict__ p_w,
                               T* __restrict__ W, T* __restrict__ U, int hk, int h, int hv, int n, int m, bool causal) {
  extern __shared__ float smem[];
  float* pl = smem;                  // [h_k][h]
  float* pw = pl + hk * h;           // [h][h_v]
  float* a = pw + h * hv;            // [h][m]: logits, then weights
  const long long row = blockIdx.x;  // b n + i
  const long long b = row / n;
  const int i = static_cast<int>(row % n);
  const int visible = visible_keys(i, n, m, causal);
  const long long plane = static_cast<long long>(n) * m;
  const T* j_row = J + (b * hk * n + i) * m;  // head k at + k plane
  T* w_row = W + (b * h * n + i) * m;
  T* u_row = U + (b * hv * n + i) * m;
  for (int t = static_cast<int>(threadIdx.x); t < hk * h; t += static_cast<int>(blockDim.x)) pl[t] = p_l[t];
  for (int t = static_cast<int>(threadIdx.x); t < h * hv; t += static_cast<int>(blockDim.x)) pw[t] = p_w[t];
  __syncthreads();
  // Each thread owns key columns j: L[:, j] = P_l^T J[:, j] (J's row is read from L1 after the
  // first 8 heads).
  for (int j = static_cast<int>(threadIdx.x); j < visible; j += static_cast<int>(blockDim.x)) {
    mix_column(
        hk, h, pl, h, 1, [&](int k) { return load(j_row + k * plane + j); }, [&](int c, float x) { a[c * m + j] = x; });
  }
  __syncthreads();
  softmax_rows(a, h, m, visible);
  __syncthreads();
  for (int j = static_cast<int>(threadIdx.x); j < m; j += static_cast<int>(blockDim.x)) {
    if (j < visible) {
      for (int c = 0; c < h; ++c) store(w_row + c * plane + j, a[c * m + j]);
      mix_column(
          h, hv, pw, hv, 1, [&](int c) { return a[c * m + j]; },
          [&](int v, float x) { store(u_row + v * plane + j, x); });
    } else {
      for (int c = 0; c < h; ++c) store(w_row + c * plane + j, 0.0f);
      for (int v = 0; v < hv; ++v) store(u_row + v * plane + j, 0.0f);
    }
  }
}

template <typename T>
__global__ void backward_kernel(const T* __restrict__ W, const T* __restrict__ dU, const float* __restrict__ p_l,
                                const float* __restrict__ p_w, T* __restrict__ dL, T* __restrict__ dJ, int hk, int h,
                                int hv, int n, int m, bool causal) {
  extern __shared__ float smem[];
  float* pl = smem;         // [h_k][h]
  float* pw = pl + hk * h;  // [h][h_v]
  float* w = pw + h * hv;   // [h][m]: the saved weights
  float* g = w + h * m;     // [h][m]: dW, then dL
  const long long row = blockIdx.x;
  const long long b = row / n;
  const int i = static_cast<int>(row % n);
  const int visible = visible_keys(i, n, m, causal);
  const long long plane = static_cast<long long>(n) * m;
  const T* w_row = W + (b * h * n + i) * m;
  const T* du_row = dU + (b * hv * n + i) * m;
  T* dl_row = dL + (b * h * n + i) * m;
  T* dj_row = dJ + (b * hk * n + i) * m;
  for (int t = static_cast<int>(threadIdx.x); t < hk * h; t += static_cast<int>(blockDim.x)) pl[t] = p_l[t];
  for (int t = static_cast<int>(threadIdx.x); t < h * hv; t += static_cast<int>(blockDim.x)) pw[t] = p_w[t];
  __syncthreads();
  // dW[:, j] = P_w dU[:, j].
  for (int j = static_cast<int>(threadIdx.x); j < visible; j += static_cast<int>(blockDim.x)) {
    for (int c = 0; c < h; ++c) w[c * m + j] = load(w_row + c * plane + j);
    mix_column(
        hv, h, pw, 1, hv, [&](int v) { return load(du_row + v * plane + j); },
        [&](int c, float x) { g[c * m + j] = x; });
  }
  __syncthreads();
  softmax_backward_rows(w, g, h, m, visible);
  __syncthreads();
  // dJ[:, j] = P_l dL[:, j].
  for (int j = static_cast<int>(threadIdx.x); j < m; j += static_cast<int>(blockDim.x)) {
    if (j < visible) {
      for (int c = 0; c < h; ++c) store(dl_row + c * plane + j, g[c * m + j]);
      mix_column(
          h, hk, pl, 1, h, [&](int c) { return g[c * m + j]; },
          [&](int k, float x) { store(dj_row + k * plane + j, x); });
    } else {
      for (int c = 0; c < h; ++c) store(dl_row + c * plane + j, 0.0f);
      for (int k = 0; k < hk; ++k) store(dj_row + k * plane + j, 0.0f);
    }
  }
}

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

// A warp per softmax row wants at least a few warps; rows shorter than 256 keys get 128 threads.
int threads_for(const Shape& s) { return s.m >= 256 ? 256 : 128; }

template <typename Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes > kDefaultSharedLimit) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  }
}

std::size_t forward_shared_bytes(const Shape& s) {
  return static_cast<std::size_t>(s.heads_k * s.heads + s.heads * s.heads_v + s.heads * s.m) * sizeof(float);
}

template <typename T>
void launch_forward(const void* J, const float* p_l, const float* p_w, void* W, void* U, const Shape& s) {
  const std::size_t bytes = forward_shared_bytes(s);
  allow_shared(forward_kernel<T>, bytes);
  forward_kernel<T><<<static_cast<unsigned>(s.batch * s.n), threads_for(s), bytes, nullptr>>>(
      static_cast<const T*>(J), p_l, p_w, static_cast<T*>(W), static_cast<T*>(U), static_cast<int>(s.heads_k),
      static_cast<int>(s.heads), static_cast<int>(s.heads_v), static_cast<int>(s.n), static_cast<int>(s.m), s.causal);
  check(cudaGetLastError(), "forward launch");
}

template <typename T>
void launch_backward(const void* W, const void* dU, const float* p_l, const float* p_w, void* dL, void* dJ,
                     const Shape& s) {
  const std::size_t bytes = shared_bytes(s);
  allow_shared(backward_kernel<T>, bytes);
  backward_kernel<T><<<static_cast<unsigned>(s.batch * s.n), threads_for(s), bytes, nullptr>>>(
      static_cast<const T*>(W), static_cast<const T*>(dU), p_l, p_w, static_cast<T*>(dL), static_cast<T*>(dJ),
      static_cast<int>(s.heads_k), static_cast<int>(s.heads), static_cast<int>(s.heads_v), static_cast<int>(s.n),
      static_cast<int>(s.m), s.causal);
  check(cudaGetLastError(), "backward launch");
}

}  // namespace

std::size_t shared_bytes(const Shape& s) {
  return static_cast<std::size_t>(s.heads_k * s.heads + s.heads * s.heads_v + 2 * s.heads * s.m) * sizeof(float);
}

std::size_t max_shared_bytes(int device) {
  int bytes = 0;
  if (cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    cudaGetLastError();  // clear it: a missing device is an answer here, not an error for later calls
    return 0;
  }
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
