#include "core/attention/fused_attention.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <vector>

#include <ATen/Parallel.h>

#include "core/model/torch_compat.h"

namespace headroom::core {
namespace {

// ---- BLAS: the process's CBLAS (OpenBLAS under LibTorch), looked up at run time --------------

enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };
template <typename T>
using CblasGemm = void (*)(int, int, int, int, int, int, T, const T*, int, const T*, int, T, T*, int);

template <typename T>
CblasGemm<T> cblas_gemm() {
  static const auto fn =
      reinterpret_cast<CblasGemm<T>>(dlsym(RTLD_DEFAULT, std::is_same_v<T, float> ? "cblas_sgemm" : "cblas_dgemm"));
  return fn;
}

// Row-major C[M, N] = alpha op(A) op(B) + beta C.
template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* Bm,
          int64_t ldb, T beta, T* C, int64_t ldc) {
  cblas_gemm<T>()(kRowMajor, trans_a ? kTrans : kNoTrans, trans_b ? kTrans : kNoTrans, static_cast<int>(M),
                  static_cast<int>(N), static_cast<int>(K), alpha, A, static_cast<int>(lda), Bm, static_cast<int>(ldb),
                  beta, C, static_cast<int>(ldc));
}

// Runs fn(b) for every sequence b in [0, B), split over torch's intra-op threads (one contiguous
// range each). Buffers are per thread, gradients per sequence: results do not depend on the split.
template <typename Fn>
void for_each_sequence(int64_t B, const Fn& fn) {
  at::parallel_for(0, B, 1, [&](int64_t b0, int64_t b1) {
    at::NoGradGuard no_grad;  // grad mode is per thread: the pool's threads do not inherit the caller's
    for (int64_t b = b0; b < b1; ++b) fn(b);
  });
}

// Query-row blocks: block i holds rows [r0, r1) and sees keys [0, cols) (cols = r1 when causal).
// Per sequence a buffer of H heads stores block i's [H, rows, cols] matrices one after another.
struct Block {
  int64_t r0, r1, cols, offset;  // offset: sum of rows * cols of the blocks before, per head
  int64_t rows() const { return r1 - r0; }
  int64_t area() const { return rows() * cols; }
};

struct Layout {
  std::vector<Block> blocks;
  int64_t area = 0;      // sum of the blocks' areas: one head's share of a sequence's buffer
  int64_t max_area = 0;  // the largest block
};

Layout make_layout(int64_t n, const FusedAttentionShape& s) {
  Layout l;
  const int64_t count = s.causal ? std::clamp<int64_t>(s.query_blocks, 1, n) : 1;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t r0 = n * i / count, r1 = n * (i + 1) / count;
    l.blocks.push_back({r0, r1, s.causal ? r1 : n, l.area});
    l.area += l.blocks.back().area();
    l.max_area = std::max(l.max_area, l.blocks.back().area());
  }
  return l;
}

// Pointers to one sequence's Q, K and V in a [B, n, 2 h_k d_k + h_v d_v] buffer (row stride ld):
// the activations (E = const T) or their gradient (E = T).
template <typename E>
struct Sequence {
  E* q;  // row i, head k: q + i * ld + k * d_k
  E* k;
  E* v;
  int64_t ld;
};

template <typename E>
Sequence<E> sequence(E* qkv, int64_t b, int64_t n, const FusedAttentionShape& s) {
  const int64_t ld = 2 * s.heads_k * s.d_k + s.heads_v * s.d_v;
  E* base = qkv + b * n * ld;
  return {base, base + s.heads_k * s.d_k, base + 2 * s.heads_k * s.d_k, ld};
}

template <typename T>
void mask_future(T* logits, int64_t heads, const Block& blk) {
  // Row i (query r0 + i) sees keys <= r0 + i; the rest of its cols are in its future.
  for (int64_t hd = 0; hd < heads; ++hd)
    for (int64_t i = 0; i < blk.rows(); ++i) {
      T* row = logits + (hd * blk.rows() + i) * blk.cols;
      std::fill(row + blk.r0 + i + 1, row + blk.cols, -std::numeric_limits<T>::infinity());
    }
}

template <typename T>
torch::Tensor wrap(T* data, int64_t heads, const Block& blk) {
  return torch::from_blob(data, {heads, blk.rows(), blk.cols},
                          torch::TensorOptions().dtype(c10::CppTypeToScalarType<T>::value));
}

struct Saved {
  torch::Tensor J, W, U;  // [B, heads * area]; J only with P_l, U only with P_w
};

template <typename T>
torch::Tensor forward_impl(const torch::Tensor& qkv, const torch::Tensor& p_l, const torch::Tensor& p_w,
                           const FusedAttentionShape& s, Saved* saved) {
  const int64_t B = qkv.size(0), n = qkv.size(1);
  const int64_t hk = s.heads_k, h = s.heads, hv = s.heads_v, dk = s.d_k, dv = s.d_v;
  const Layout layout = make_layout(n, s);
  const auto opts = qkv.options();
  auto out = torch::empty({B, n, hv * dv}, opts);
  if (p_l.defined()) saved->J = torch::empty({B, hk * layout.area}, opts);
  saved->W = torch::empty({B, h * layout.area}, opts);
  if (p_w.defined()) saved->U = torch::empty({B, hv * layout.area}, opts);

  const T* qkv_p = qkv.data_ptr<T>();
  const T* pl = p_l.defined() ? p_l.data_ptr<T>() : nullptr;
  const T* pw = p_w.defined() ? p_w.data_ptr<T>() : nullptr;
  T* J_all = pl ? saved->J.data_ptr<T>() : nullptr;
  T* W_all = saved->W.data_ptr<T>();
  T* U_all = pw ? saved->U.data_ptr<T>() : nullptr;
  T* out_p = out.data_ptr<T>();
  const T scale = static_cast<T>(s.scale);

  for_each_sequence(B, [&](int64_t b) {
    thread_local std::vector<T> logits;  // L of one block, masked: softmax's input
    logits.resize(static_cast<size_t>(h * layout.max_area));
    const Sequence<const T> x = sequence(qkv_p, b, n, s);
    for (const Block& blk : layout.blocks) {
      const int64_t R = blk.rows(), C = blk.cols, A = blk.area();
      // J (into L's buffer when there is no P_l): s Q_k[r0:r1] K_k[0:C]^T per key head.
      T* J = pl ? J_all + b * hk * layout.area + hk * blk.offset : logits.data();
      for (int64_t k = 0; k < hk; ++k)
        gemm<T>(false, true, R, C, dk, scale, x.q + blk.r0 * x.ld + k * dk, x.ld, x.k + k * dk, x.ld, 0, J + k * A, C);
      if (pl) gemm<T>(true, false, h, A, hk, 1, pl, h, J, A, 0, logits.data(), A);  // L = P_l^T J
      if (s.causal) mask_future(logits.data(), h, blk);
      T* W = W_all + b * h * layout.area + h * blk.offset;
      auto W_t = wrap(W, h, blk);
      compat::softmax_out(W_t, wrap(logits.data(), h, blk), 2);
      const T* U = W;
      if (pw) {
        T* U_w = U_all + b * hv * layout.area + hv * blk.offset;
        gemm<T>(true, false, hv, A, h, 1, pw, hv, W, A, 0, U_w, A);  // U = P_w^T W
        U = U_w;
      }
      T* O = out_p + (b * n + blk.r0) * hv * dv;
      for (int64_t v = 0; v < hv; ++v)
        gemm<T>(false, false, R, dv, C, 1, U + v * A, C, x.v + v * dv, x.ld, 0, O + v * dv, hv * dv);
    }
  });
  return out;
}

template <typename T>
void backward_impl(const torch::Tensor& qkv, const torch::Tensor& p_l, const torch::Tensor& p_w,
                   const FusedAttentionShape& s, const Saved& saved, const torch::Tensor& grad_out,
                   torch::Tensor* d_qkv, torch::Tensor* d_pl, torch::Tensor* d_pw) {
  const int64_t B = qkv.size(0), n = qkv.size(1);
  const int64_t hk = s.heads_k, h = s.heads, hv = s.heads_v, dk = s.d_k, dv = s.d_v;
  const Layout layout = make_layout(n, s);
  *d_qkv = torch::empty_like(qkv);
  // Per-sequence P_l / P_w gradients, summed in sequence order: the same for any thread count.
  torch::Tensor d_pl_b, d_pw_b;
  if (p_l.defined()) d_pl_b = torch::zeros({B, hk, h}, qkv.options());
  if (p_w.defined()) d_pw_b = torch::zeros({B, h, hv}, qkv.options());

  const T* qkv_p = qkv.data_ptr<T>();
  T* dqkv_p = d_qkv->data_ptr<T>();
  const T* dout_p = grad_out.data_ptr<T>();
  const T* pl = p_l.defined() ? p_l.data_ptr<T>() : nullptr;
  const T* pw = p_w.defined() ? p_w.data_ptr<T>() : nullptr;
  const T* J_all = pl ? saved.J.data_ptr<T>() : nullptr;
  const T* W_all = saved.W.data_ptr<T>();
  const T* U_all = pw ? saved.U.data_ptr<T>() : nullptr;
  T* dpl_all = pl ? d_pl_b.data_ptr<T>() : nullptr;
  T* dpw_all = pw ? d_pw_b.data_ptr<T>() : nullptr;
  const T scale = static_cast<T>(s.scale);
  const int64_t heads_max = std::max({hk, h, hv});

  for_each_sequence(B, [&](int64_t b) {
    thread_local std::vector<T> buf_a, buf_b;
    buf_a.resize(static_cast<size_t>(heads_max * layout.max_area));
    buf_b.resize(static_cast<size_t>(heads_max * layout.max_area));
    const Sequence<const T> x = sequence(qkv_p, b, n, s);
    const Sequence<T> dx = sequence(dqkv_p, b, n, s);
    // The last block sees every key, so it writes all of dK and dV first (beta 0); the others add.
    bool first = true;
    for (auto it = layout.blocks.rbegin(); it != layout.blocks.rend(); ++it, first = false) {
      const Block& blk = *it;
      const int64_t R = blk.rows(), C = blk.cols, A = blk.area();
      const T beta = first ? T(0) : T(1);
      const T* W = W_all + b * h * layout.area + h * blk.offset;
      const T* U = pw ? U_all + b * hv * layout.area + hv * blk.offset : W;
      const T* dO = dout_p + (b * n + blk.r0) * hv * dv;
      // Two scratch buffers take turns: each step reads one and writes the other.
      auto other = [&](const T* p) { return p == buf_a.data() ? buf_b.data() : buf_a.data(); };
      // dU_v = dO_v V_v^T; dV_v += U_v^T dO_v.
      T* dU = buf_a.data();
      for (int64_t v = 0; v < hv; ++v) {
        gemm<T>(false, true, R, C, dv, 1, dO + v * dv, hv * dv, x.v + v * dv, x.ld, 0, dU + v * A, C);
        gemm<T>(true, false, C, dv, R, 1, U + v * A, C, dO + v * dv, hv * dv, beta, dx.v + v * dv, x.ld);
      }
      // dW = P_w dU; dP_w += W dU^T.
      T* dW = dU;
      if (pw) {
        dW = other(dU);
        gemm<T>(false, false, h, A, hv, 1, pw, hv, dU, A, 0, dW, A);
        gemm<T>(false, true, h, hv, A, 1, W, A, dU, A, 1, dpw_all + b * h * hv, hv);
      }
      // dL = W (dW - rowsum(dW W)): softmax's backward; masked entries have W = 0, so dL = 0.
      T* dL = other(dW);
      auto dL_t = wrap(dL, h, blk);
      compat::softmax_backward_out(dL_t, wrap(dW, h, blk), wrap(const_cast<T*>(W), h, blk), 2);
      // dJ = P_l dL; dP_l += J dL^T.
      T* dJ = dL;
      if (pl) {
        dJ = other(dL);
        const T* J = J_all + b * hk * layout.area + hk * blk.offset;
        gemm<T>(false, false, hk, A, h, 1, pl, h, dL, A, 0, dJ, A);
        gemm<T>(false, true, hk, h, A, 1, J, A, dL, A, 1, dpl_all + b * hk * h, h);
      }
      // dQ_k[r0:r1] = s dJ_k K_k; dK_k[0:C] += s dJ_k^T Q_k[r0:r1].
      for (int64_t k = 0; k < hk; ++k) {
        gemm<T>(false, false, R, dk, C, scale, dJ + k * A, C, x.k + k * dk, x.ld, 0, dx.q + blk.r0 * x.ld + k * dk,
                x.ld);
        gemm<T>(true, false, C, dk, R, scale, dJ + k * A, C, x.q + blk.r0 * x.ld + k * dk, x.ld, beta, dx.k + k * dk,
                x.ld);
      }
    }
  });
  if (pl) *d_pl = d_pl_b.sum(0);
  if (pw) *d_pw = d_pw_b.sum(0);
}

struct FusedAttentionFn : public torch::autograd::Function<FusedAttentionFn> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& qkv,
                               const torch::Tensor& p_l, const torch::Tensor& p_w, const FusedAttentionShape& s) {
    Saved saved;
    const auto c_qkv = qkv.contiguous();
    const auto c_pl = p_l.numel() ? p_l.contiguous() : torch::Tensor();
    const auto c_pw = p_w.numel() ? p_w.contiguous() : torch::Tensor();
    auto out = qkv.scalar_type() == torch::kFloat64 ? forward_impl<double>(c_qkv, c_pl, c_pw, s, &saved)
                                                    : forward_impl<float>(c_qkv, c_pl, c_pw, s, &saved);
    ctx->save_for_backward({c_qkv, c_pl, c_pw, saved.J, saved.W, saved.U});
    ctx->saved_data["heads_k"] = s.heads_k;
    ctx->saved_data["heads"] = s.heads;
    ctx->saved_data["heads_v"] = s.heads_v;
    ctx->saved_data["d_k"] = s.d_k;
    ctx->saved_data["d_v"] = s.d_v;
    ctx->saved_data["scale"] = s.scale;
    ctx->saved_data["causal"] = s.causal;
    ctx->saved_data["query_blocks"] = s.query_blocks;
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto v = ctx->get_saved_variables();
    FusedAttentionShape s;
    s.heads_k = ctx->saved_data["heads_k"].toInt();
    s.heads = ctx->saved_data["heads"].toInt();
    s.heads_v = ctx->saved_data["heads_v"].toInt();
    s.d_k = ctx->saved_data["d_k"].toInt();
    s.d_v = ctx->saved_data["d_v"].toInt();
    s.scale = ctx->saved_data["scale"].toDouble();
    s.causal = ctx->saved_data["causal"].toBool();
    s.query_blocks = ctx->saved_data["query_blocks"].toInt();
    const Saved saved{v[3], v[4], v[5]};
    const auto grad = grad_outputs[0].contiguous();
    torch::Tensor d_qkv, d_pl, d_pw;
    if (v[0].scalar_type() == torch::kFloat64)
      backward_impl<double>(v[0], v[1], v[2], s, saved, grad, &d_qkv, &d_pl, &d_pw);
    else backward_impl<float>(v[0], v[1], v[2], s, saved, grad, &d_qkv, &d_pl, &d_pw);
    return {d_qkv, d_pl, d_pw, torch::Tensor()};
  }
};

}  // namespace

namespace {
std::atomic<bool> g_fused_enabled{true};
}  // namespace

std::string fused_attention_unavailable_reason() {
  if (cblas_gemm<float>() && cblas_gemm<double>()) return {};
  return "this process's LibTorch brings no CBLAS (cblas_sgemm is not among its symbols), so the fused CPU "
         "attention core is off and attention runs through ATen ops; Debian's libtorch-dev with "
         "libopenblas0-pthread has one";
}

void set_fused_attention_enabled(bool enabled) { g_fused_enabled = enabled; }
bool fused_attention_enabled() { return g_fused_enabled; }

bool fused_attention_available(const torch::Tensor& qkv) {
  if (!qkv.device().is_cpu() || compat::autocasting(qkv)) return false;
  if (qkv.scalar_type() == torch::kFloat32) return cblas_gemm<float>() != nullptr;
  if (qkv.scalar_type() == torch::kFloat64) return cblas_gemm<double>() != nullptr;
  return false;
}

torch::Tensor fused_attention(const torch::Tensor& qkv, const torch::Tensor& p_l, const torch::Tensor& p_w,
                              const FusedAttentionShape& shape) {
  TORCH_CHECK(fused_attention_available(qkv), "fused attention needs a CPU float tensor and a CBLAS");
  TORCH_CHECK(qkv.dim() == 3 && qkv.size(2) == 2 * shape.heads_k * shape.d_k + shape.heads_v * shape.d_v,
              "fused attention: qkv must be [B, n, 2 h_k d_k + h_v d_v], got ", qkv.sizes());
  TORCH_CHECK(!p_l.defined() || (p_l.size(0) == shape.heads_k && p_l.size(1) == shape.heads), "P_l shape");
  TORCH_CHECK(!p_w.defined() || (p_w.size(0) == shape.heads && p_w.size(1) == shape.heads_v), "P_w shape");
  TORCH_CHECK(p_l.defined() || shape.heads_k == shape.heads, "without P_l, h_k must equal h");
  TORCH_CHECK(p_w.defined() || shape.heads == shape.heads_v, "without P_w, h must equal h_v");
  // Autograd's custom functions take defined tensors only: an absent projection travels as an
  // empty placeholder and is undefined again inside.
  const auto none = torch::empty({0}, qkv.options());
  return FusedAttentionFn::apply(qkv, p_l.defined() ? p_l : none, p_w.defined() ? p_w : none, shape);
}

}  // namespace headroom::core
