// "Nice" axis ticks (1-2-5 steps, decades on log axes) and their labels.
// Pure functions: the plots call them every frame, the tests call them directly.
#pragma once

#include <string>
#include <vector>

namespace headroom::widgets {

struct AxisTick {
  double value = 0.0;
  std::string label;  // empty for unlabeled minor ticks
  bool major = true;
};

// Step from {1, 2, 5} x 10^k giving at most about target_count intervals over `range`.
double nice_step(double range, int target_count);

// Ticks at multiples of nice_step() inside [lo, hi] (inclusive, with float slack).
// Degenerate ranges (lo == hi, NaN) return a single tick at lo when finite.
std::vector<AxisTick> nice_ticks(double lo, double hi, int target_count);

// Log axis (lo, hi > 0): majors at powers of ten (every k-th decade when there are
// many), unlabeled minors at 2..9 x 10^k when few decades are shown. When the range
// spans less than about a decade and a half, labels 1-2-5 (or every digit) multiples
// instead, and falls back to nice_ticks() so the axis is never bare; with only two powers of ten
// inside (under 2.5 decades), labels 1-2-5 multiples too where target_count allows.
std::vector<AxisTick> log_ticks(double lo, double hi, int target_count);

// Categorical axis: x = i stands for names[i]. A tick at every index inside [lo, hi]; when more
// than max_labels fall inside, only every k-th is labeled (the rest are unlabeled minors), so the
// names never overlap. Indices outside names, non-finite ranges and max_labels < 1 give none.
std::vector<AxisTick> category_ticks(double lo, double hi, const std::vector<std::string>& names, int max_labels);

// Label for a tick at v on an axis whose tick spacing is `step`: just enough
// decimals for the step, thousands as "k" and millions as "M" ("2.5k", "1M"),
// tiny/huge magnitudes in exponent form ("1e-05").
std::string format_tick(double v, double step);

// Label for a power of ten 10^exponent: "0.01", "1", "1000", "1e-05", "1e+06".
std::string format_decade(int exponent);

}  // namespace headroom::widgets
