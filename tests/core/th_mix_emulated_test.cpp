// th_mix's CUDA kernels, run on the CPU: the kernel bodies (core/attention/th_mix_kernel_body.h,
// the very code nvcc compiles) built as plain C++, each block's threads run as std::threads with a
// real block barrier for __syncthreads and warp shuffles through memory, shared memory poisoned
// with NaN so that a read of something never written shows. Their outputs must equal the ATen
// references (th_mix_forward_reference / th_mix_backward_reference) that the GPU tests also hold
// them to. What this cannot see: the CUDA launch itself (shared-memory opt-in, streams, devices),
// which tests/core/th_mix_test.cpp's ThMixCuda tests cover on a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstddef>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/attention/th_mix.h"
#include "core/attention/th_mix_kernel.h"

namespace {

// ---- a CUDA block on std::threads ------------------------------------------------------------------

class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mu_);
    const int generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_, arrived_ = 0, generation_ = 0;
};

struct Block {
  Block(int threads, std::size_t shared_bytes)
      : shared(shared_bytes / sizeof(float), std::numeric_limits<float>::quiet_NaN()),
        barrier(threads),
        exchange(static_cast<std::size_t>(threads)) {
    for (int w = 0; w < threads / 32; ++w) warps.push_back(std::make_unique<Barrier>(32));
  }
  std::vector<float> shared;
  Barrier barrier;
  std::vector<std::unique_ptr<Barrier>> warps;
  std::vector<float> exchange;  // one slot per thread, for shuffles
};

thread_local Block* tl_block = nullptr;
thread_local int tl_tid = 0, tl_threads = 0;
thread_local long long tl_bid = 0;

float shuffle_xor(float x, int mask) {
  Block& b = *tl_block;
  const int warp = tl_tid / 32, lane = tl_tid % 32;
  b.exchange[static_cast<std::size_t>(tl_tid)] = x;
  b.warps[static_cast<std::size_t>(warp)]->arrive_and_wait();
  const float y = b.exchange[static_cast<std::size_t>(warp * 32 + (lane ^ mask))];
  b.warps[static_cast<std::size_t>(warp)]->arrive_and_wait();  // nobody overwrites a slot still being read
  return y;
}

template <typename Kernel>
void launch(long long blocks, int threads, std::size_t shared_bytes, Kernel kernel) {
  for (long long bid = 0; bid < blocks; ++bid) {
    Block block(threads, shared_bytes);
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        tl_block = &block;
        tl_tid = t;
        tl_threads = threads;
        tl_bid = bid;
        kernel();
      });
    }
    for (auto& th : pool) th.join();
  }
}

// bfloat16 as the GPU stores it: the high half of a float32, rounded to nearest even.
struct Bf16 {
  std::uint16_t bits;
};

}  // namespace

namespace emulated {

inline float load(const float* p) { return *p; }
inline float load(const Bf16* p) {
  const std::uint32_t u = static_cast<std::uint32_t>(p->bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline void store(float* p, float x) { *p = x; }
inline void store(Bf16* p, float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if (std::isnan(x)) {
    p->bits = 0x7fc0;
    return;
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  p->bits = static_cast<std::uint16_t>(u >> 16);
}
inline float hr_fmax(float a, float b) { return std::fmax(a, b); }
inline float hr_exp(float x) { return std::exp(x); }

// float4 from shared memory: on the GPU the address must be 16-byte aligned, and nothing past the
// block's shared memory may be read. Dynamic shared memory starts aligned, so an offset from its
// start that is not a multiple of 4 floats, or a read past its end, is a bug here too: counted,
// and each test case checks the count is 0.
struct Float4 {
  float x, y, z, w;
};
std::atomic<long long> bad_vector_loads{0};
inline Float4 hr_load4(const float* p) {
  const std::vector<float>& shared = tl_block->shared;
  const std::ptrdiff_t at = p - shared.data();
  if (at < 0 || at % 4 != 0 || static_cast<std::size_t>(at) + 4 > shared.size()) {
    ++bad_vector_loads;
    return {0, 0, 0, 0};
  }
  return {p[0], p[1], p[2], p[3]};
}

#define HR_DEVICE inline
#define HR_GLOBAL
#define HR_TID tl_tid
#define HR_NTHREADS tl_threads
#define HR_BID tl_bid
#define HR_SYNC() tl_block->barrier.arrive_and_wait()
#define HR_SHFL_XOR(x, o) shuffle_xor((x), (o))
#define HR_SHARED_FLOATS() tl_block->shared.data()
#define HR_UNROLL
#define HR_LAUNCH_BOUNDS(threads, blocks)
#include "core/attention/th_mix_kernel_body.h"

}  // namespace emulated

namespace {

using headroom::core::th_mix_backward_reference;
using headroom::core::th_mix_forward_reference;
namespace k = headroom::core::th_mix_kernel;

struct Case {
  int64_t batch, hk, h, hv, n, m;
  bool causal;
  std::string name() const {
    return "B" + std::to_string(batch) + " h_k" + std::to_string(hk) + " h" + std::to_string(h) + " h_v" +
           std::to_string(hv) + " n" + std::to_string(n) + " m" + std::to_string(m) + (causal ? " causal" : "");
  }
};

double relative(const torch::Tensor& got, const torch::Tensor& want) {
  const auto g = got.to(torch::kFloat64), w = want.to(torch::kFloat64);
  return (g - w).abs().max().item<double>() / std::max(1e-12, w.abs().max().item<double>());
}

// max_parts: how many threads may share a key column (th_mix_kernel_body.h's column_parts); 1 is
// one thread a column, HEADROOM_TH_MIX_COLUMN_PARTS=1's path on a GPU.
template <typename T>
void check_case(const Case& c, torch::ScalarType type, double tolerance, int max_parts) {
  SCOPED_TRACE("threads a column at most: " + std::to_string(max_parts));
  torch::manual_seed(static_cast<uint64_t>(c.hk * 100 + c.h * 10 + c.n));
  const auto J = (2.0 * torch::randn({c.batch, c.hk, c.n, c.m})).to(type).contiguous();
  const auto pl = (torch::eye(c.hk, c.h) + 0.5 * torch::randn({c.hk, c.h})).contiguous();
  const auto pw = (torch::eye(c.h, c.hv) + 0.5 * torch::randn({c.h, c.hv})).contiguous();
  k::Shape s;
  s.batch = c.batch;
  s.heads_k = c.hk;
  s.heads = c.h;
  s.heads_v = c.hv;
  s.n = c.n;
  s.m = c.m;
  s.causal = c.causal;
  const auto int_of = [](int64_t v) { return static_cast<int>(v); };

  // The outputs start as NaN: an entry the kernel forgets to write shows.
  auto W = torch::full({c.batch, c.h, c.n, c.m}, std::numeric_limits<float>::quiet_NaN()).to(type);
  auto U = torch::full({c.batch, c.hv, c.n, c.m}, std::numeric_limits<float>::quiet_NaN()).to(type);
  launch(c.batch * c.n, k::threads_per_block(s), k::forward_shared_bytes(s), [&] {
    emulated::forward_kernel<T>(static_cast<const T*>(J.data_ptr()), pl.data_ptr<float>(), pw.data_ptr<float>(),
                                static_cast<T*>(W.data_ptr()), static_cast<T*>(U.data_ptr()), int_of(c.hk), int_of(c.h),
                                int_of(c.hv), int_of(c.n), int_of(c.m), c.causal, max_parts);
  });
  const auto [W_ref, U_ref] = th_mix_forward_reference(J, pl, pw, c.causal);
  EXPECT_FALSE(W.isnan().any().item<bool>()) << c.name() << ": W";
  EXPECT_FALSE(U.isnan().any().item<bool>()) << c.name() << ": U";
  EXPECT_LT(relative(W, W_ref), tolerance) << c.name() << ": W";
  EXPECT_LT(relative(U, U_ref), tolerance) << c.name() << ": U";

  const auto dU = torch::randn({c.batch, c.hv, c.n, c.m}).to(type).contiguous();
  auto dL = torch::full({c.batch, c.h, c.n, c.m}, std::numeric_limits<float>::quiet_NaN()).to(type);
  auto dJ = torch::full({c.batch, c.hk, c.n, c.m}, std::numeric_limits<float>::quiet_NaN()).to(type);
  launch(c.batch * c.n, k::threads_per_block(s), k::backward_shared_bytes(s), [&] {
    emulated::backward_kernel<T>(static_cast<const T*>(W.data_ptr()), static_cast<const T*>(dU.data_ptr()),
                                 pl.data_ptr<float>(), pw.data_ptr<float>(), static_cast<T*>(dL.data_ptr()),
                                 static_cast<T*>(dJ.data_ptr()), int_of(c.hk), int_of(c.h), int_of(c.hv), int_of(c.n),
                                 int_of(c.m), c.causal, max_parts);
  });
  const auto [dL_ref, dJ_ref] = th_mix_backward_reference(W, dU, pl, pw);
  EXPECT_FALSE(dL.isnan().any().item<bool>()) << c.name() << ": dL";
  EXPECT_FALSE(dJ.isnan().any().item<bool>()) << c.name() << ": dJ";
  EXPECT_LT(relative(dL, dL_ref), tolerance) << c.name() << ": dL";
  EXPECT_LT(relative(dJ, dJ_ref), tolerance) << c.name() << ": dJ";
  EXPECT_EQ(emulated::bad_vector_loads.exchange(0), 0) << c.name() << ": float4 loads misaligned or out of bounds";
}

std::vector<Case> cases() {
  return {
      {2, 3, 4, 5, 7, 7, true},      // h_k, h, h_v all different: a transposed P shows
      {2, 3, 4, 5, 7, 7, false},     // no mask
      {1, 4, 4, 4, 6, 9, true},      // m > n: keys before the first query
      {1, 2, 2, 2, 1, 1, true},      // one position
      {1, 12, 10, 9, 37, 37, true},  // more heads than a chunk of 8, rows not a multiple of 32
      {1, 5, 6, 7, 4, 260, false},   // 256 threads a block, more keys than threads
      {1, 17, 13, 16, 5, 9, true},   // padded P rows (13 -> 16, 17 -> 20), a chunk's upper half used
      {1, 1, 1, 1, 3, 3, true},      // one head: a row of 4 floats, one of them real
      {1, 33, 64, 40, 5, 5, true},   // past Auto's bound of 32 heads (the kernel is forced there)
  };
}

}  // namespace

// The kernels lay P out with mix_ld; the launches size shared memory with padded_row.
TEST(ThMixEmulated, TheHostAndTheKernelsPadMixingRowsAlike) {
  for (int columns = 1; columns <= 130; ++columns) {
    EXPECT_EQ(emulated::mix_ld(columns), k::padded_row(columns)) << columns;
    EXPECT_EQ(k::padded_row(columns) % 4, 0) << columns;
    EXPECT_GE(k::padded_row(columns), columns);
    EXPECT_LT(k::padded_row(columns), columns + 4);
  }
}

TEST(ThMixEmulated, Float32KernelsEqualTheReferences) {
  for (const int max_parts : {1, 64})
    for (const Case& c : cases()) check_case<float>(c, torch::kFloat32, 1e-5, max_parts);
}

// bfloat16 storage: both sides round W, U, dL, dJ to 8 bits of mantissa, from float32 sums taken
// in a different order, so they may differ by one rounding step.
TEST(ThMixEmulated, BFloat16KernelsEqualTheReferences) {
  static_assert(sizeof(Bf16) == sizeof(at::BFloat16), "bfloat16 is 16 bits on both sides");
  for (const int max_parts : {1, 64})
    for (const Case& c : cases()) check_case<Bf16>(c, torch::kBFloat16, 1e-2, max_parts);
}
