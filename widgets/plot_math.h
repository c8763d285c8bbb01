// Coordinate math shared by the plots: data <-> pixel mapping on linear and log
// axes, zoom around an anchor, pan by pixels, fit with padding. Pure functions.
#pragma once

namespace headroom::widgets {

struct AxisRange {
  double lo = 0.0;
  double hi = 1.0;
};

// Maps data values to pixels along one axis. p0 is the pixel of `lo`, p1 of `hi`
// (for a y axis p0 is the bottom, so p1 < p0 and the mapping flips naturally).
struct AxisMap {
  double lo = 0.0, hi = 1.0;
  bool log = false;
  float p0 = 0.0f, p1 = 1.0f;

  float to_pixel(double v) const;
  double from_pixel(float p) const;
};

// Zooms by `factor` (< 1 zooms in) keeping `anchor` (a data value) at the same pixel.
AxisRange zoom_range(AxisRange r, double anchor, double factor, bool log);

// Shifts the range by `delta_pixels` of a `pixels`-long axis (positive = content moves right,
// i.e. the range moves left, as when dragging).
AxisRange pan_range(AxisRange r, float delta_pixels, float pixels, bool log);

// A display range around data [lo, hi]: padded by pad_frac of the span on each side
// (in log space for log axes), widened when lo == hi, clamped to positive values on log
// axes. Returns {0, 1} (or {1, 10} for log) when the input is not finite.
AxisRange fit_range(double lo, double hi, bool log, double pad_frac);

// Liang-Barsky: the part of segment (ax, ay)-(bx, by) inside the rectangle [left, right] x
// [top, bottom], as the parameter range [*t0, *t1] of a + t (b - a). False when no part is inside.
bool clip_segment(double ax, double ay, double bx, double by, double left, double top, double right, double bottom,
                  double* t0, double* t1);

}  // namespace headroom::widgets
