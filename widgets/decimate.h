// Min/max-per-pixel-column decimation of long series (training curves with
// 10^5 points) so that drawing costs O(pixels), not O(points), while keeping
// every spike visible: each pixel column keeps its smallest and largest sample.
#pragma once

#include <vector>

namespace headroom::widgets {

struct DecimatedPoint {
  double x = 0.0;
  double y = 0.0;
  bool gap_before = false;  // a NaN (or non-positive value on a log axis) separates it from the previous point
};

struct DecimatedBandPoint {
  double x = 0.0;
  double lo = 0.0;
  double hi = 0.0;
  bool gap_before = false;
};

// Decimates the samples with x in [x_lo, x_hi] into `pixels` columns.
//  - xs must be ascending; xs == nullptr means x = index.
//  - Output is in x order, size <= 2*pixels + 2: per column the min and the max
//    (in their original order), plus the nearest sample just outside each end
//    of the range so lines run to the plot border.
//  - NaN/Inf y (and y <= 0 when log_y, x <= 0 when log_x) are gaps: they are
//    never emitted; the next emitted point gets gap_before = true.
//  - With log_x, columns are spaced evenly in log10(x), as the axis draws them.
std::vector<DecimatedPoint> decimate_minmax(const float* xs, const float* ys, int n, double x_lo, double x_hi,
                                            int pixels, bool log_x = false, bool log_y = false);

// The same for a band (e.g. mean +- std): per column the smallest lo and the largest hi,
// at the x of the column's first sample. Size <= pixels + 2.
std::vector<DecimatedBandPoint> decimate_band(const float* xs, const float* ylo, const float* yhi, int n, double x_lo,
                                              double x_hi, int pixels, bool log_x = false, bool log_y = false);

// Index of the sample whose x is nearest to x (xs ascending, nullptr = index); -1 if n <= 0.
int nearest_index(const float* xs, int n, double x);

// First/last finite x (positive when log_x); false when there is none.
bool x_extent(const float* xs, int n, bool log_x, double* lo, double* hi);

}  // namespace headroom::widgets
