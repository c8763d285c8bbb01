#include "widgets/plot_math.h"

#include <algorithm>
#include <cmath>

namespace headroom::widgets {
namespace {

double fwd(double v, bool log) { return log ? std::log10(v) : v; }
double inv(double u, bool log) { return log ? std::pow(10.0, u) : u; }

}  // namespace

float AxisMap::to_pixel(double v) const {
  if (log && !(v > 0.0)) return p0 + (p1 > p0 ? -1e6f : 1e6f);  // far outside, clipped away
  const double u0 = fwd(lo, log), u1 = fwd(hi, log);
  const double t = u1 != u0 ? (fwd(v, log) - u0) / (u1 - u0) : 0.5;
  return static_cast<float>(p0 + t * (p1 - p0));
}

double AxisMap::from_pixel(float p) const {
  const double u0 = fwd(lo, log), u1 = fwd(hi, log);
  const double t = p1 != p0 ? (p - p0) / static_cast<double>(p1 - p0) : 0.0;
  return inv(u0 + t * (u1 - u0), log);
}

AxisRange zoom_range(AxisRange r, double anchor, double factor, bool log) {
  if (log && !(anchor > 0.0)) anchor = std::sqrt(r.lo * r.hi);
  const double a = fwd(anchor, log);
  const double u0 = fwd(r.lo, log), u1 = fwd(r.hi, log);
  AxisRange out{inv(a + (u0 - a) * factor, log), inv(a + (u1 - a) * factor, log)};
  // Refuse to zoom below float resolution: the axis would lose its ticks.
  const double span = fwd(out.hi, log) - fwd(out.lo, log);
  if (!(span > 1e-9 * std::max(1.0, std::fabs(a))) || !std::isfinite(span)) return r;
  return out;
}

AxisRange pan_range(AxisRange r, float delta_pixels, float pixels, bool log) {
  if (!(pixels > 0.0f)) return r;
  const double u0 = fwd(r.lo, log), u1 = fwd(r.hi, log);
  const double du = -(u1 - u0) * delta_pixels / pixels;
  return {inv(u0 + du, log), inv(u1 + du, log)};
}

AxisRange fit_range(double lo, double hi, bool log, double pad_frac) {
  if (log) {
    lo = std::max(lo, 1e-300);
    hi = std::max(hi, 1e-300);
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) return log ? AxisRange{1.0, 10.0} : AxisRange{0.0, 1.0};
  if (hi < lo) std::swap(lo, hi);
  double u0 = fwd(lo, log), u1 = fwd(hi, log);
  if (u1 - u0 <= 1e-12 * std::max(1.0, std::fabs(u0))) {
    const double w = log ? 0.5 : std::max(std::fabs(u0) * 0.1, 0.5);
    u0 -= w;
    u1 += w;
  } else {
    const double pad = (u1 - u0) * pad_frac;
    u0 -= pad;
    u1 += pad;
  }
  return {inv(u0, log), inv(u1, log)};
}

bool clip_segment(double ax, double ay, double bx, double by, double left, double top, double right, double bottom,
                  double* t0, double* t1) {
  double lo = 0.0, hi = 1.0;
  const double dx = bx - ax, dy = by - ay;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {ax - left, right - ax, ay - top, bottom - ay};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0.0) {
      if (q[i] < 0.0) return false;  // parallel to this edge and outside it
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0.0) lo = std::max(lo, t);
    else hi = std::min(hi, t);
    if (lo > hi) return false;
  }
  *t0 = lo;
  *t1 = hi;
  return true;
}

}  // namespace headroom::widgets
