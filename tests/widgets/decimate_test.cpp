#include "widgets/decimate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace hw = headroom::widgets;

namespace {
std::vector<float> iota_x(int n, float start = 0.0f) {
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = start + i;
  return x;
}
}  // namespace

TEST(Decimate, OutputBoundedByTwicePixelsPlusTwo) {
  std::mt19937 rng(1);
  std::normal_distribution<float> g;
  const int n = 100000;
  std::vector<float> x = iota_x(n), y(n);
  for (float& v : y) v = g(rng);
  for (int pixels : {1, 7, 300, 1000}) {
    const auto out = hw::decimate_minmax(x.data(), y.data(), n, 0, n - 1, pixels);
    EXPECT_LE(static_cast<int>(out.size()), 2 * pixels + 2) << pixels;
    EXPECT_GE(static_cast<int>(out.size()), pixels) << pixels;
  }
  // Zoomed in the middle: neighbours outside the range are kept, still bounded.
  const auto out = hw::decimate_minmax(x.data(), y.data(), n, 5000.5, 6000.5, 100);
  EXPECT_LE(static_cast<int>(out.size()), 202);
  EXPECT_EQ(out.front().x, 5000.0);
  EXPECT_EQ(out.back().x, 6001.0);
}

TEST(Decimate, KeepsExtremes) {
  const int n = 50000;
  std::vector<float> x = iota_x(n), y(n, 1.0f);
  y[12345] = 99.0f;   // a spike
  y[40000] = -50.0f;  // a dip
  const auto out = hw::decimate_minmax(x.data(), y.data(), n, 0, n - 1, 200);
  double mx = -1e9, mn = 1e9;
  for (const auto& p : out) mx = std::max(mx, p.y), mn = std::min(mn, p.y);
  EXPECT_EQ(mx, 99.0);
  EXPECT_EQ(mn, -50.0);
  // And in x order.
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.x < b.x; }));
}

TEST(Decimate, SmallInputPassesThrough) {
  const float x[4] = {0, 1, 2, 3}, y[4] = {5, 6, 7, 8};
  const auto out = hw::decimate_minmax(x, y, 4, 0, 3, 800);
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out[i].x, x[i]);
    EXPECT_EQ(out[i].y, y[i]);
    EXPECT_FALSE(out[i].gap_before);
  }
}

TEST(Decimate, NullXsMeansIndex) {
  const float y[3] = {1, 2, 3};
  const auto out = hw::decimate_minmax(nullptr, y, 3, 0, 2, 100);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].x, 2.0);
}

TEST(Decimate, NanMakesGap) {
  const float x[6] = {0, 1, 2, 3, 4, 5};
  const float y[6] = {1, 2, NAN, NAN, 5, 6};
  const auto out = hw::decimate_minmax(x, y, 6, 0, 5, 100);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FALSE(out[1].gap_before);
  EXPECT_TRUE(out[2].gap_before);
  EXPECT_EQ(out[2].x, 4.0);
  for (const auto& p : out) EXPECT_TRUE(std::isfinite(p.y));
}

TEST(Decimate, LeadingNanIsNotAGapMarker) {
  const float y[3] = {NAN, 1, 2};
  const auto out = hw::decimate_minmax(nullptr, y, 3, 0, 2, 10);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[0].gap_before);
}

TEST(Decimate, LogAxesSkipNonPositive) {
  const float x[5] = {-1, 0, 1, 10, 100};
  const float y[5] = {1, 1, 1, 0, 2};
  // log x: x <= 0 skipped; log y: y <= 0 is a gap.
  const auto out = hw::decimate_minmax(x, y, 5, 1, 100, 50, true, true);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].x, 1.0);
  EXPECT_EQ(out[1].x, 100.0);
  EXPECT_TRUE(out[1].gap_before);
}

TEST(Decimate, LogXColumnsAreEvenInLogSpace) {
  // 1..10000: on a 4-pixel log axis each decade is one column -> at most 2 points each.
  std::vector<float> x, y;
  for (int i = 1; i <= 10000; ++i) x.push_back(static_cast<float>(i)), y.push_back(static_cast<float>(i % 7));
  const auto out = hw::decimate_minmax(x.data(), y.data(), static_cast<int>(x.size()), 1, 10000, 4, true, false);
  EXPECT_LE(out.size(), 10u);
  // First decade (1..9) has only 9 samples but its own column: its extremes are kept.
  EXPECT_LT(out[0].x, 10.0);
}

TEST(Decimate, InvalidArgumentsGiveEmpty) {
  const float y[2] = {1, 2};
  EXPECT_TRUE(hw::decimate_minmax(nullptr, y, 2, 0, 1, 0).empty());
  EXPECT_TRUE(hw::decimate_minmax(nullptr, y, 0, 0, 1, 10).empty());
  EXPECT_TRUE(hw::decimate_minmax(nullptr, nullptr, 2, 0, 1, 10).empty());
  EXPECT_TRUE(hw::decimate_minmax(nullptr, y, 2, 0, 1, 10, true).empty());  // log with lo <= 0
}

TEST(Decimate, BandKeepsEnvelope) {
  const int n = 10000;
  std::vector<float> x = iota_x(n), lo(n, -1.0f), hi(n, 1.0f);
  lo[777] = -9.0f;
  hi[4321] = 9.0f;
  const auto out = hw::decimate_band(x.data(), lo.data(), hi.data(), n, 0, n - 1, 100);
  EXPECT_LE(static_cast<int>(out.size()), 102);
  double mn = 0, mx = 0;
  for (const auto& p : out) mn = std::min(mn, p.lo), mx = std::max(mx, p.hi);
  EXPECT_EQ(mn, -9.0);
  EXPECT_EQ(mx, 9.0);
}

TEST(Decimate, BandGapsBounded) {
  // Alternating NaNs must not blow the size bound.
  const int n = 1000;
  std::vector<float> x = iota_x(n), lo(n), hi(n);
  for (int i = 0; i < n; ++i) lo[i] = (i % 2) ? NAN : 0.0f, hi[i] = 1.0f;
  const auto out = hw::decimate_band(x.data(), lo.data(), hi.data(), n, 0, n - 1, 10);
  EXPECT_LE(static_cast<int>(out.size()), 12);
}

TEST(Decimate, NearestIndexAndExtent) {
  const float x[4] = {0, 10, 20, 30};
  EXPECT_EQ(hw::nearest_index(x, 4, -5), 0);
  EXPECT_EQ(hw::nearest_index(x, 4, 14), 1);
  EXPECT_EQ(hw::nearest_index(x, 4, 16), 2);
  EXPECT_EQ(hw::nearest_index(x, 4, 99), 3);
  EXPECT_EQ(hw::nearest_index(nullptr, 5, 2.4), 2);
  EXPECT_EQ(hw::nearest_index(x, 0, 1), -1);
  double lo = 0, hi = 0;
  ASSERT_TRUE(hw::x_extent(x, 4, true, &lo, &hi));
  EXPECT_EQ(lo, 10.0);
  EXPECT_EQ(hi, 30.0);
}
