#include "widgets/axis_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::widgets {

double nice_step(double range, int target_count) {
  if (!(range > 0.0) || !std::isfinite(range)) return 1.0;
  target_count = std::max(1, target_count);
  const double raw = range / target_count;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  double nice;
  if (norm <= 1.0 + 1e-9) nice = 1.0;
  else if (norm <= 2.0 + 1e-9) nice = 2.0;
  else if (norm <= 5.0 + 1e-9) nice = 5.0;
  else nice = 10.0;
  return nice * mag;
}

std::string format_tick(double v, double step) {
  char buf[48];
  if (std::fabs(v) < step * 1e-6) v = 0.0;  // kill "-0" and 1e-17 residue
  const double av = std::fabs(v);
  if (v != 0.0 && (av >= 1e9 || (av < 1e-4 && step < 1e-4))) {
    std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
  }
  if (v == 0.0 && step < 1e-4) return "0";  // beside "1e-06" ticks, not "0.000000"
  const char* suffix = "";
  double scaled = v, scaled_step = step;
  if (step >= 1e3 && av >= 1e6) {  // "39.2M", not "39200k", at most three decimals
    suffix = "M";
    scaled = v / 1e6;
    scaled_step = step / 1e6;
  } else if (step >= 1e3 && av >= 1e4) {
    suffix = "k";
    scaled = v / 1e3;
    scaled_step = step / 1e3;
  }
  int decimals = 0;
  if (scaled_step < 1.0) decimals = static_cast<int>(std::ceil(-std::log10(scaled_step) - 1e-9));
  // A 2.5-style step needs one more digit than its magnitude suggests.
  const double probe = scaled_step * std::pow(10.0, decimals);
  if (std::fabs(probe - std::round(probe)) > 1e-6) ++decimals;
  decimals = std::clamp(decimals, 0, 8);
  std::snprintf(buf, sizeof buf, "%.*f%s", decimals, scaled, suffix);
  return buf;
}

std::string format_decade(int exponent) {
  char buf[32];
  if (exponent >= -3 && exponent <= 4) {
    const int decimals = exponent < 0 ? -exponent : 0;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, std::pow(10.0, exponent));
  } else {
    std::snprintf(buf, sizeof buf, "1e%+03d", exponent);
  }
  return buf;
}

std::vector<AxisTick> nice_ticks(double lo, double hi, int target_count) {
  std::vector<AxisTick> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo <= std::fabs(lo) * 1e-12 || hi == lo) {
    ticks.push_back({lo, format_tick(lo, std::max(std::fabs(lo) * 0.1, 1e-12)), true});
    return ticks;
  }
  // A rounded-up step can leave one tick in the range (0.041 wide at 2 ticks: step 0.05), and one
  // label gives no scale: ask for finer steps until two fit.
  for (int target = std::max(1, target_count); target <= 64; target *= 2) {
    ticks.clear();
    const double step = nice_step(hi - lo, target);
    const double slack = step * 1e-6;
    const double first = std::ceil((lo - slack) / step);
    for (int k = 0; k < 1000; ++k) {
      const double v = (first + k) * step;
      if (v > hi + slack) break;
      ticks.push_back({v, format_tick(v, step), true});
    }
    if (ticks.size() >= 2) break;
  }
  return ticks;
}

std::vector<AxisTick> category_ticks(double lo, double hi, const std::vector<std::string>& names, int max_labels) {
  std::vector<AxisTick> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || names.empty() || max_labels < 1) return ticks;
  if (hi < lo) std::swap(lo, hi);
  const long first = std::max(0L, static_cast<long>(std::ceil(lo - 1e-9)));
  const long last = std::min(static_cast<long>(names.size()) - 1, static_cast<long>(std::floor(hi + 1e-9)));
  if (last < first) return ticks;
  const long count = last - first + 1;
  const long every = (count + max_labels - 1) / max_labels;
  for (long i = first; i <= last; ++i) {
    const bool labeled = (i - first) % every == 0;
    ticks.push_back(AxisTick{static_cast<double>(i), labeled ? names[static_cast<size_t>(i)] : std::string(), labeled});
  }
  return ticks;
}

namespace {

constexpr int kOneTwoFive[] = {1, 2, 5, 0};
constexpr int kAllDigits[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 0};

// Ticks at m x 10^k inside [lo, hi] for m in 1..9: labeled (major) when m is in
// `labeled` (zero-terminated), unlabeled minors otherwise.
std::vector<AxisTick> mantissa_ticks(double lo, double hi, const int* labeled) {
  std::vector<AxisTick> ticks;
  const int d0 = static_cast<int>(std::floor(std::log10(lo))) - 1;
  const int d1 = static_cast<int>(std::ceil(std::log10(hi)));
  for (int d = d0; d <= d1; ++d) {
    const double base = std::pow(10.0, d);
    for (int m = 1; m <= 9; ++m) {
      const double v = m * base;
      if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
      bool major = false;
      for (const int* p = labeled; *p; ++p) major |= (*p == m);
      ticks.push_back({v, major ? format_tick(v, base) : std::string(), major});
    }
  }
  return ticks;
}

}  // namespace

std::vector<AxisTick> log_ticks(double lo, double hi, int target_count) {
  std::vector<AxisTick> ticks;
  if (!(lo > 0.0) || !(hi > 0.0) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  if (hi < lo) std::swap(lo, hi);
  const double l0 = std::log10(lo), l1 = std::log10(hi);
  const int d0 = static_cast<int>(std::ceil(l0 - 1e-9));
  const int d1 = static_cast<int>(std::floor(l1 + 1e-9));
  const int decades = d1 - d0 + 1;  // powers of ten inside the range
  if (decades < 2 && (l1 - l0) < 1.5) {
    // Less than ~a decade and a half: label 1-2-5 (or every digit) multiples, which
    // spread evenly on a log axis, with the remaining digits as minor ticks.
    for (const int* set : {kOneTwoFive, kAllDigits}) {
      std::vector<AxisTick> t = mantissa_ticks(lo, hi, set);
      int labeled = 0;
      for (const AxisTick& k : t) labeled += k.major;
      // Every digit labeled only spreads evenly over half a decade or more.
      if (labeled >= 3 && (set == kOneTwoFive || l1 - l0 >= 0.5)) return t;
    }
    return nice_ticks(lo, hi, target_count);
  }
  if (decades == 2 && (l1 - l0) < 2.5) {
    // Two powers of ten alone (10 and 100 on a plot of 9 .. 95) leave a tall axis nearly bare:
    // 1-2-5 multiples too, where there is room for them.
    std::vector<AxisTick> t = mantissa_ticks(lo, hi, kOneTwoFive);
    int labeled = 0;
    for (const AxisTick& k : t) labeled += k.major;
    if (labeled <= std::max(target_count, 4) + 1) return t;
  }

  target_count = std::max(1, target_count);
  const int stride = std::max(1, static_cast<int>(std::ceil(static_cast<double>(decades) / target_count)));
  const bool minors = stride == 1 && (l1 - l0) <= 6.0;
  for (int d = d0 - 1; d <= d1; ++d) {
    const double base = std::pow(10.0, d);
    if (d >= d0 && ((d % stride) + stride) % stride == 0) ticks.push_back({base, format_decade(d), true});
    if (!minors) continue;
    for (int m = 2; m <= 9; ++m) {
      const double v = m * base;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back({v, std::string(), false});
    }
  }
  std::sort(ticks.begin(), ticks.end(), [](const AxisTick& a, const AxisTick& b) { return a.value < b.value; });
  return ticks;
}

}  // namespace headroom::widgets
