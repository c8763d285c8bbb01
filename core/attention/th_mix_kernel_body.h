// The bodies of th_mix's kernels (th_mix_kernel.h has the arithmetic), written once for two
// compilers: nvcc builds them as CUDA kernels (th_mix_kernel.cu), and tests/core/th_mix_emulated_test.cpp
// builds them as plain C++ and runs each block's threads as std::threads with a real barrier and
// warp shuffles through memory, so the CPU tests run this code, indexing, masks, reductions and
// all. The includer defines, before including it:
//   HR_DEVICE, HR_GLOBAL          function qualifiers (__device__ __forceinline__, __global__)
//   HR_TID, HR_NTHREADS, HR_BID   threadIdx.x, blockDim.x, blockIdx.x (as int / long long)
//   HR_SYNC()                     __syncthreads()
//   HR_SHFL_XOR(x, o)             __shfl_xor_sync over the whole warp
//   HR_SHARED_FLOATS()            the block's dynamic shared memory as float*
//   HR_UNROLL                     #pragma unroll (or nothing)
//   HR_LAUNCH_BOUNDS(t, b)        __launch_bounds__(t, b) (or nothing)
//   hr_fmax, hr_exp               fmaxf, expf
//   hr_load4                      four floats from a 16-byte aligned shared address (.x .y .z .w)
//   load / store                  a storage element (float, bfloat16) to and from float
// and includes it inside its own namespace.
// No include guard: meant to be included once per translation unit, inside a namespace.
// NOLINTBEGIN

constexpr int kWarp = 32;

HR_DEVICE float warp_max(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2) x = hr_fmax(x, HR_SHFL_XOR(x, o));
  return x;
}

HR_DEVICE float warp_sum(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2) x += HR_SHFL_XOR(x, o);
  return x;
}

// Keys visible to query i: j < i + (m - n) + 1 under the causal mask, all m without it.
HR_DEVICE int visible_keys(int i, int n, int m, bool causal) {
  const int v = i + (m - n) + 1;
  return !causal ? m : v < 0 ? 0 : v > m ? m : v;
}

// Floats per row of a head-mixing matrix in shared memory: its columns rounded up to 4, so every
// row starts 16-byte aligned and is read four columns a load. th_mix_kernel.h's padded_row is
// the host's copy (the emulated tests hold the two equal).
HR_DEVICE int mix_ld(int columns) { return (columns + 3) / 4 * 4; }

// The row-major matrix src [rows][cols] (global memory) into shared memory as itself or, with
// `transposed`, as its transpose, each row mix_ld floats apart and its padding 0. Every thread of
// the block calls it.
HR_DEVICE void stage_matrix(float* dst, const float* src, int rows, int cols, bool transposed) {
  const int out_rows = transposed ? cols : rows, out_cols = transposed ? rows : cols, ld = mix_ld(out_cols);
  for (int t = HR_TID; t < out_rows * ld; t += HR_NTHREADS) {
    const int r = t / ld, c = t % ld;
    dst[t] = c >= out_cols ? 0.0f : transposed ? src[c * cols + r] : src[r * cols + c];
  }
}

// How many threads share one key column whose outputs number n_out, where `columns` columns have
// work (causal rows near the start have few): one when every thread has a column of its own, else
// as many as the threads allow, at most one per quad of 4 outputs, at most `max_parts`. Each takes
// a part of the column's outputs (mix_column), so the block's threads stay busy on short rows.
HR_DEVICE int column_parts(int columns, int n_out, int max_parts) {
  if (columns <= 0) return 1;
  int parts = HR_NTHREADS / columns;
  const int quads = mix_ld(n_out) / 4;
  if (parts > quads) parts = quads;
  if (parts > max_parts) parts = max_parts;
  return parts < 1 ? 1 : parts;
}

// The first of part `part`'s share of `count` items split into `parts` runs, in whole `unit`s.
HR_DEVICE int part_begin(int count, int unit, int part, int parts) {
  const int units = (count + unit - 1) / unit;
  const int begin = unit * (part * units / parts);
  return begin < count ? begin : count;
}

// fn(j, part, parts) for every visible key column j (j < visible) and each part of it
// (column_parts), one (column, part) a thread; consecutive threads take consecutive columns, so
// their global loads and stores coalesce.
template <typename Fn>
HR_DEVICE void for_column_parts(int visible, int n_out, int max_parts, Fn fn) {
  const int parts = column_parts(visible, n_out, max_parts);
  for (int t = HR_TID; t < visible * parts; t += HR_NTHREADS) fn(t % visible, t / visible, parts);
}

// fn(c) for part `part`'s share of a column's h heads (those it loads or stores besides mixing).
template <typename Fn>
HR_DEVICE void for_head_share(int h, int part, int parts, Fn fn) {
  for (int c = part_begin(h, 1, part, parts); c < part_begin(h, 1, part + 1, parts); ++c) fn(c);
}

// One key column through a head-mixing matrix: out(o) = sum_q in(q) P[q][o], for part `part` of
// `parts` of the outputs o < n_out (whole quads of 4 outputs each), with P in shared memory as
// stage_matrix left it (rows mix_ld(n_out) floats apart). Every thread reads the same P address
// at once (a broadcast), four outputs a 16-byte load: at one 4-byte load per multiply-add the
// shared-memory pipe, not the FP32 units, would set the pace. Outputs are accumulated 8 at a time
// in registers, so each input is read once per 8 outputs and each output written once.
template <typename In, typename Out>
HR_DEVICE void mix_column(int n_in, int n_out, const float* p, int part, int parts, In in, Out out) {
  constexpr int kChunk = 8;
  const int ld = mix_ld(n_out);
  const int o_begin = part_begin(n_out, 4, part, parts), o_end = part_begin(n_out, 4, part + 1, parts);
  for (int o0 = o_begin; o0 < o_end; o0 += kChunk) {
    const bool upper = o0 + 4 < o_end;  // the chunk's second four outputs are this part's too
    float acc[kChunk];
    HR_UNROLL
    for (int r = 0; r < kChunk; ++r) acc[r] = 0.0f;
    for (int q = 0; q < n_in; ++q) {
      const float x = in(q);
      const float* pq = p + q * ld + o0;
      const auto lo = hr_load4(pq);
      acc[0] += x * lo.x;
      acc[1] += x * lo.y;
      acc[2] += x * lo.z;
      acc[3] += x * lo.w;
      if (upper) {
        const auto hi = hr_load4(pq + 4);
        acc[4] += x * hi.x;
        acc[5] += x * hi.y;
        acc[6] += x * hi.z;
        acc[7] += x * hi.w;
      }
    }
    HR_UNROLL
    for (int r = 0; r < kChunk; ++r) {
      if (o0 + r < o_end) out(o0 + r, acc[r]);
    }
  }
}

// Row c of a [h][m] block of logits becomes softmax over its first `visible` entries; one warp
// per row, so every thread of the block must call it.
HR_DEVICE void softmax_rows(float* a, int h, int m, int visible) {
  const int warp = HR_TID / kWarp, lane = HR_TID % kWarp;
  const int warps = HR_NTHREADS / kWarp;
  for (int c = warp; c < h; c += warps) {
    float* r = a + static_cast<long long>(c) * m;
    float mx = -HUGE_VALF;
    for (int j = lane; j < visible; j += kWarp) mx = hr_fmax(mx, r[j]);
    mx = warp_max(mx);
    float sum = 0.0f;
    for (int j = lane; j < visible; j += kWarp) {
      const float e = hr_exp(r[j] - mx);
      r[j] = e;
      sum += e;
    }
    sum = warp_sum(sum);
    const float inv = 1.0f / sum;
    for (int j = lane; j < visible; j += kWarp) r[j] *= inv;
  }
}

// dL = W (dW - <W, dW>) per row c, in place in g; one warp per row, every thread calls it.
HR_DEVICE void softmax_backward_rows(const float* w, float* g, int h, int m, int visible) {
  const int warp = HR_TID / kWarp, lane = HR_TID % kWarp;
  const int warps = HR_NTHREADS / kWarp;
  for (int c = warp; c < h; c += warps) {
    const float* wr = w + static_cast<long long>(c) * m;
    float* gr = g + static_cast<long long>(c) * m;
    float dot = 0.0f;
    for (int j = lane; j < visible; j += kWarp) dot += wr[j] * gr[j];
    dot = warp_sum(dot);
    for (int j = lane; j < visible; j += kWarp) gr[j] = wr[j] * (gr[j] - dot);
  }
}

// Both directions end alike: the staged rows `a` [h][m] go out to `a_out` as they are, and mixed
// by `p` (h x n_out, rows padded) to `b_out`, each thread a column or a part of one (a part writes
// its share of `a` too); the masked columns past `visible` get zeros in both.
template <typename T>
HR_DEVICE void store_and_mix(const float* a, int h, int n_out, const float* p, int m, int visible, long long plane,
                             int max_parts, T* a_out, T* b_out) {
  for_column_parts(visible, n_out, max_parts, [&](int j, int part, int parts) {
    for_head_share(h, part, parts, [&](int c) { store(a_out + c * plane + j, a[c * m + j]); });
    mix_column(
        h, n_out, p, part, parts, [&](int c) { return a[c * m + j]; },
        [&](int o, float x) { store(b_out + o * plane + j, x); });
  });
  for (int j = visible + HR_TID; j < m; j += HR_NTHREADS) {  // masked: 0
    for (int c = 0; c < h; ++c) store(a_out + c * plane + j, 0.0f);
    for (int o = 0; o < n_out; ++o) store(b_out + o * plane + j, 0.0f);
  }
}

template <typename T>
HR_GLOBAL void forward_kernel(const T* __restrict__ J, const float* __restrict__ p_l, const float* __restrict__ p_w,
                              T* __restrict__ W, T* __restrict__ U, int hk, int h, int hv, int n, int m, bool causal,
                              int max_parts) {
  float* smem = HR_SHARED_FLOATS();
  float* pl = smem;                 // P_l [h_k][h]
  float* pw = pl + hk * mix_ld(h);  // P_w [h][h_v]
  float* a = pw + h * mix_ld(hv);   // [h][m]: logits, then weights
  const long long row = HR_BID;     // b n + i
  const long long b = row / n;
  const int i = static_cast<int>(row % n);
  const int visible = visible_keys(i, n, m, causal);
  const long long plane = static_cast<long long>(n) * m;
  const T* j_row = J + (b * hk * n + i) * m;  // head k at + k plane
  T* w_row = W + (b * h * n + i) * m;
  T* u_row = U + (b * hv * n + i) * m;
  stage_matrix(pl, p_l, hk, h, false);
  stage_matrix(pw, p_w, h, hv, false);
  HR_SYNC();
  // L[:, j] = P_l^T J[:, j] for the visible columns j, each thread a column or a part of one (J's
  // row is read from L1 after the first 8 heads).
  for_column_parts(visible, h, max_parts, [&](int j, int part, int parts) {
    mix_column(
        hk, h, pl, part, parts, [&](int k) { return load(j_row + k * plane + j); },
        [&](int c, float x) { a[c * m + j] = x; });
  });
  HR_SYNC();
  softmax_rows(a, h, m, visible);
  HR_SYNC();
  // W[:, j] out, U[:, j] = P_w^T W[:, j].
  store_and_mix(a, h, hv, pw, m, visible, plane, max_parts, w_row, u_row);
}

template <typename T>
HR_GLOBAL void HR_LAUNCH_BOUNDS(256, 4)
    backward_kernel(const T* __restrict__ W, const T* __restrict__ dU, const float* __restrict__ p_l,
                    const float* __restrict__ p_w, T* __restrict__ dL, T* __restrict__ dJ, int hk, int h, int hv, int n,
                    int m, bool causal, int max_parts) {
  float* smem = HR_SHARED_FLOATS();
  float* pl_t = smem;                   // P_l^T [h][h_k]
  float* pw_t = pl_t + h * mix_ld(hk);  // P_w^T [h_v][h]
  float* w = pw_t + hv * mix_ld(h);     // [h][m]: the saved weights
  float* g = w + h * m;                 // [h][m]: dW, then dL
  const long long row = HR_BID;
  const long long b = row / n;
  const int i = static_cast<int>(row % n);
  const int visible = visible_keys(i, n, m, causal);
  const long long plane = static_cast<long long>(n) * m;
  const T* w_row = W + (b * h * n + i) * m;
  const T* du_row = dU + (b * hv * n + i) * m;
  T* dl_row = dL + (b * h * n + i) * m;
  T* dj_row = dJ + (b * hk * n + i) * m;
  // Backward multiplies by P_l and P_w, not their transposes: staged transposed, their rows run
  // over the outputs as mix_column reads them.
  stage_matrix(pl_t, p_l, hk, h, true);
  stage_matrix(pw_t, p_w, h, hv, true);
  HR_SYNC();
  // dW[:, j] = P_w dU[:, j] for the visible columns, each thread a column or a part of one; a part
  // reads its share of the saved weights too.
  for_column_parts(visible, h, max_parts, [&](int j, int part, int parts) {
    for_head_share(h, part, parts, [&](int c) { w[c * m + j] = load(w_row + c * plane + j); });
    mix_column(
        hv, h, pw_t, part, parts, [&](int v) { return load(du_row + v * plane + j); },
        [&](int c, float x) { g[c * m + j] = x; });
  });
  HR_SYNC();
  softmax_backward_rows(w, g, h, m, visible);
  HR_SYNC();
  // dL[:, j] out, dJ[:, j] = P_l dL[:, j].
  store_and_mix(g, h, hk, pl_t, m, visible, plane, max_parts, dl_row, dj_row);
}

// NOLINTEND
