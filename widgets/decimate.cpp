#include "widgets/decimate.h"

#include <algorithm>
#include <cmath>

namespace headroom::widgets {
namespace {

double x_at(const float* xs, int i) { return xs ? static_cast<double>(xs[i]) : static_cast<double>(i); }

// First index with x >= v (upper == false) or x > v (upper == true). NaN x compare false.
int search(const float* xs, int n, double v, bool upper) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    const double x = x_at(xs, mid);
    const bool before = upper ? (x <= v) : (x < v);
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

bool valid_value(double v, bool log) { return std::isfinite(v) && (!log || v > 0.0); }

// Maps x to a pixel column in [0, pixels-1]; the caller guarantees x is valid.
struct Columns {
  double u0 = 0.0, scale = 0.0;
  bool log = false;
  int pixels = 1;
  int of(double x) const {
    const double u = log ? std::log10(x) : x;
    const double c = std::floor((u - u0) * scale);
    if (!(c > 0.0)) return 0;
    return c >= pixels - 1 ? pixels - 1 : static_cast<int>(c);
  }
};

bool make_columns(double x_lo, double x_hi, int pixels, bool log_x, Columns* out) {
  if (pixels <= 0 || !(x_hi >= x_lo)) return false;
  if (log_x && !(x_lo > 0.0)) return false;
  const double u0 = log_x ? std::log10(x_lo) : x_lo;
  const double u1 = log_x ? std::log10(x_hi) : x_hi;
  out->u0 = u0;
  out->scale = u1 > u0 ? pixels / (u1 - u0) : 0.0;
  out->log = log_x;
  out->pixels = pixels;
  return true;
}

// Visible index range [i0, i1) plus the outside neighbours (or -1).
struct Span {
  int i0, i1, before, after;
};

Span visible_span(const float* xs, int n, double x_lo, double x_hi) {
  Span s{};
  s.i0 = search(xs, n, x_lo, false);
  s.i1 = search(xs, n, x_hi, true);
  s.before = s.i0 > 0 ? s.i0 - 1 : -1;
  s.after = s.i1 < n ? s.i1 : -1;
  return s;
}

}  // namespace

std::vector<DecimatedPoint> decimate_minmax(const float* xs, const float* ys, int n, double x_lo, double x_hi,
                                            int pixels, bool log_x, bool log_y) {
  std::vector<DecimatedPoint> out;
  Columns cols;
  if (n <= 0 || ys == nullptr || !make_columns(x_lo, x_hi, pixels, log_x, &cols)) return out;
  const Span span = visible_span(xs, n, x_lo, x_hi);
  out.reserve(static_cast<size_t>(std::min(n, 2 * pixels + 2)));

  bool pending_gap = false;
  auto emit = [&](int i) {
    out.push_back({x_at(xs, i), static_cast<double>(ys[i]), pending_gap && !out.empty()});
    pending_gap = false;
  };
  auto ok = [&](int i) { return valid_value(x_at(xs, i), log_x) && valid_value(ys[i], log_y); };

  if (span.before >= 0) {
    if (ok(span.before)) emit(span.before);
    else pending_gap = true;
  }

  int col = -1, imin = -1, imax = -1;
  bool trailing_gap = false;  // a gap after the bucket's last valid sample
  auto flush = [&]() {
    if (imin < 0) return;
    const int a = std::min(imin, imax), b = std::max(imin, imax);
    emit(a);
    if (b != a) emit(b);
    pending_gap = trailing_gap;
    imin = imax = -1;
    trailing_gap = false;
  };

  for (int i = span.i0; i < span.i1; ++i) {
    if (!ok(i)) {
      if (imin >= 0) trailing_gap = true;
      else pending_gap = true;
      continue;
    }
    const int c = cols.of(x_at(xs, i));
    if (c != col) {
      flush();
      col = c;
    }
    trailing_gap = false;  // a gap inside one pixel column is invisible; draw through it
    if (imin < 0) {
      imin = imax = i;
    } else {
      if (ys[i] < ys[imin]) imin = i;
      if (ys[i] > ys[imax]) imax = i;
    }
  }
  flush();

  if (span.after >= 0 && ok(span.after)) emit(span.after);
  return out;
}

std::vector<DecimatedBandPoint> decimate_band(const float* xs, const float* ylo, const float* yhi, int n, double x_lo,
                                              double x_hi, int pixels, bool log_x, bool log_y) {
  std::vector<DecimatedBandPoint> out;
  Columns cols;
  if (n <= 0 || ylo == nullptr || yhi == nullptr || !make_columns(x_lo, x_hi, pixels, log_x, &cols)) return out;
  const Span span = visible_span(xs, n, x_lo, x_hi);
  out.reserve(static_cast<size_t>(std::min(n, pixels + 2)));

  auto ok = [&](int i) {
    return valid_value(x_at(xs, i), log_x) && valid_value(ylo[i], log_y) && valid_value(yhi[i], log_y);
  };
  bool pending_gap = false;
  auto emit = [&](const DecimatedBandPoint& p) {
    out.push_back(p);
    out.back().gap_before = pending_gap && out.size() > 1;
    pending_gap = false;
  };

  if (span.before >= 0) {
    const int i = span.before;
    if (ok(i)) emit({x_at(xs, i), ylo[i], yhi[i], false});
    else pending_gap = true;
  }
  int col = -1;
  bool have = false, trailing_gap = false;
  DecimatedBandPoint cur;
  auto flush = [&]() {
    if (!have) return;
    emit(cur);
    pending_gap = trailing_gap;
    have = trailing_gap = false;
  };
  for (int i = span.i0; i < span.i1; ++i) {
    if (!ok(i)) {
      if (have) trailing_gap = true;
      else pending_gap = true;
      continue;
    }
    const int c = cols.of(x_at(xs, i));
    if (c != col) {
      flush();
      col = c;
    }
    trailing_gap = false;
    if (!have) {
      cur = {x_at(xs, i), ylo[i], yhi[i], false};
      have = true;
    } else {
      cur.lo = std::min(cur.lo, static_cast<double>(ylo[i]));
      cur.hi = std::max(cur.hi, static_cast<double>(yhi[i]));
    }
  }
  flush();
  if (span.after >= 0 && ok(span.after)) {
    const int i = span.after;
    emit({x_at(xs, i), ylo[i], yhi[i], false});
  }
  return out;
}

int nearest_index(const float* xs, int n, double x) {
  if (n <= 0) return -1;
  const int i = search(xs, n, x, false);
  if (i <= 0) return 0;
  if (i >= n) return n - 1;
  return (x - x_at(xs, i - 1) <= x_at(xs, i) - x) ? i - 1 : i;
}

bool x_extent(const float* xs, int n, bool log_x, double* lo, double* hi) {
  int a = 0, b = n - 1;
  while (a < n && !valid_value(x_at(xs, a), log_x)) ++a;
  while (b >= a && !valid_value(x_at(xs, b), log_x)) --b;
  if (a > b) return false;
  *lo = x_at(xs, a);
  *hi = x_at(xs, b);
  return true;
}

}  // namespace headroom::widgets
