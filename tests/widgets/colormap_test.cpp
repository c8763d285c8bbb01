#include "widgets/colormap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace hw = headroom::widgets;

namespace {
struct Rgb8 {
  int r, g, b, a;
};
Rgb8 unpack(ImU32 c) {
  return {static_cast<int>((c >> IM_COL32_R_SHIFT) & 0xFF), static_cast<int>((c >> IM_COL32_G_SHIFT) & 0xFF),
          static_cast<int>((c >> IM_COL32_B_SHIFT) & 0xFF), static_cast<int>((c >> IM_COL32_A_SHIFT) & 0xFF)};
}
double luminance(const Rgb8& c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }
}  // namespace

TEST(Colormap, ViridisEndpointsMatchMatplotlib) {
  const Rgb8 lo = unpack(hw::colormap_color(hw::Colormap::Viridis, 0.0f));
  EXPECT_EQ(lo.r, 68);
  EXPECT_EQ(lo.g, 1);
  EXPECT_EQ(lo.b, 84);
  EXPECT_EQ(lo.a, 255);
  const Rgb8 hi = unpack(hw::colormap_color(hw::Colormap::Viridis, 1.0f));
  EXPECT_EQ(hi.r, 253);
  EXPECT_EQ(hi.g, 231);
  EXPECT_EQ(hi.b, 37);
}

TEST(Colormap, ViridisMiddleIsTeal) {
  // matplotlib: viridis(0.5) = (0.127568, 0.566949, 0.550556) -> (33, 145, 140).
  const Rgb8 m = unpack(hw::colormap_color(hw::Colormap::Viridis, 0.5f));
  EXPECT_NEAR(m.r, 33, 1);
  EXPECT_NEAR(m.g, 145, 1);
  EXPECT_NEAR(m.b, 140, 1);
}

TEST(Colormap, ViridisLuminanceIsMonotonic) {
  double prev = -1.0;
  for (int i = 0; i <= 255; ++i) {
    const double l = luminance(unpack(hw::colormap_color(hw::Colormap::Viridis, i / 255.0f)));
    EXPECT_GE(l, prev - 0.5) << "at step " << i;
    prev = l;
  }
}

TEST(Colormap, DivergingIsBlueWhiteRed) {
  const Rgb8 neg = unpack(hw::colormap_color(hw::Colormap::Diverging, 0.0f));
  const Rgb8 mid = unpack(hw::colormap_color(hw::Colormap::Diverging, 0.5f));
  const Rgb8 pos = unpack(hw::colormap_color(hw::Colormap::Diverging, 1.0f));
  EXPECT_GT(neg.b, neg.r);
  EXPECT_EQ(mid.r, 247);
  EXPECT_EQ(mid.g, 247);
  EXPECT_EQ(mid.b, 247);
  EXPECT_GT(pos.r, pos.b);
}

TEST(Colormap, ClampsAndHandlesNan) {
  EXPECT_EQ(hw::colormap_color(hw::Colormap::Viridis, -3.0f), hw::colormap_color(hw::Colormap::Viridis, 0.0f));
  EXPECT_EQ(hw::colormap_color(hw::Colormap::Viridis, 7.0f), hw::colormap_color(hw::Colormap::Viridis, 1.0f));
  EXPECT_EQ(hw::colormap_color(hw::Colormap::Viridis, NAN), hw::kColormapNanColor);
  const Rgb8 black = unpack(hw::colormap_color(hw::Colormap::HighContrast, 0.0f));
  const Rgb8 white = unpack(hw::colormap_color(hw::Colormap::HighContrast, 1.0f));
  EXPECT_EQ(black.r + black.g + black.b, 0);
  EXPECT_EQ(white.r + white.g + white.b, 3 * 255);
}

TEST(Colormap, BulkMatchesScalarAtTableSteps) {
  std::vector<float> v;
  for (int i = 0; i <= 255; ++i) v.push_back(10.0f + 2.0f * i / 255.0f);  // range [10, 12]
  v.push_back(NAN);
  v.push_back(-100.0f);
  std::vector<uint8_t> rgba(v.size() * 4);
  for (int m = 0; m < hw::kColormapCount; ++m) {
    const auto map = static_cast<hw::Colormap>(m);
    hw::colormap_to_rgba(map, v.data(), static_cast<int>(v.size()), 10.0f, 12.0f, rgba.data());
    for (int i = 0; i <= 255; ++i) {
      const Rgb8 want = unpack(hw::colormap_color(map, i / 255.0f));
      EXPECT_NEAR(rgba[4 * i + 0], want.r, 1) << hw::colormap_name(map) << " step " << i;
      EXPECT_NEAR(rgba[4 * i + 1], want.g, 1);
      EXPECT_NEAR(rgba[4 * i + 2], want.b, 1);
      EXPECT_EQ(rgba[4 * i + 3], 255);
    }
    const Rgb8 nan = unpack(hw::kColormapNanColor);
    EXPECT_EQ(rgba[4 * 256 + 0], nan.r);
    const Rgb8 low = unpack(hw::colormap_color(map, 0.0f));
    EXPECT_EQ(rgba[4 * 257 + 0], low.r);  // clamped
  }
}

TEST(Colormap, FlatRangeMapsToMiddle) {
  const float v[3] = {1.0f, 1.0f, 1.0f};
  uint8_t rgba[12];
  hw::colormap_to_rgba(hw::Colormap::Diverging, v, 3, 1.0f, 1.0f, rgba);
  EXPECT_EQ(rgba[0], 247);
}

TEST(Colormap, NamesRoundTrip) {
  for (int m = 0; m < hw::kColormapCount; ++m) {
    hw::Colormap out = hw::Colormap::Viridis;
    ASSERT_TRUE(hw::colormap_from_name(hw::colormap_name(static_cast<hw::Colormap>(m)), &out));
    EXPECT_EQ(static_cast<int>(out), m);
  }
  hw::Colormap out = hw::Colormap::Diverging;
  EXPECT_FALSE(hw::colormap_from_name("jet", &out));
  EXPECT_EQ(out, hw::Colormap::Diverging);
}

TEST(Colormap, FiniteRangeSkipsNanAndInf) {
  const float v[5] = {NAN, 3.0f, INFINITY, -2.0f, 1.0f};
  float lo = 0, hi = 0;
  ASSERT_TRUE(hw::finite_range(v, 5, &lo, &hi));
  EXPECT_EQ(lo, -2.0f);
  EXPECT_EQ(hi, 3.0f);
  const float none[2] = {NAN, NAN};
  EXPECT_FALSE(hw::finite_range(none, 2, &lo, &hi));
}

TEST(Colormap, PercentileRangeIgnoresOutliers) {
  std::vector<float> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = static_cast<float>(i) / 1000.0f;  // 0 .. 0.999
  v[500] = 1e6f;                                                          // one outlier
  v[501] = NAN;
  float lo = 0, hi = 0;
  ASSERT_TRUE(hw::percentile_range(v.data(), 1000, 99.0f, &lo, &hi));
  EXPECT_LT(hi, 1.0f);
  EXPECT_GT(hi, 0.97f);
  EXPECT_LT(lo, 0.02f);
  ASSERT_TRUE(hw::percentile_range(v.data(), 1000, 100.0f, &lo, &hi));
  EXPECT_EQ(hi, 1e6f);
  const float none[1] = {NAN};
  EXPECT_FALSE(hw::percentile_range(none, 1, 99.0f, &lo, &hi));
}
