#include "widgets/plot_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hw = headroom::widgets;

TEST(PlotMath, LinearMapping) {
  const hw::AxisMap m{0.0, 10.0, false, 100.0f, 200.0f};
  EXPECT_FLOAT_EQ(m.to_pixel(0.0), 100.0f);
  EXPECT_FLOAT_EQ(m.to_pixel(5.0), 150.0f);
  EXPECT_NEAR(m.from_pixel(175.0f), 7.5, 1e-9);
}

TEST(PlotMath, FlippedYAndLog) {
  const hw::AxisMap y{1.0, 1000.0, true, 300.0f, 0.0f};  // bottom at 300
  EXPECT_FLOAT_EQ(y.to_pixel(1.0), 300.0f);
  EXPECT_FLOAT_EQ(y.to_pixel(1000.0), 0.0f);
  EXPECT_NEAR(y.to_pixel(10.0), 200.0f, 1e-3);
  EXPECT_NEAR(y.from_pixel(100.0f), 100.0, 1e-6);
}

TEST(PlotMath, ZoomKeepsAnchor) {
  const hw::AxisRange r{0.0, 100.0};
  const hw::AxisRange z = hw::zoom_range(r, 25.0, 0.5, false);
  EXPECT_DOUBLE_EQ(z.lo, 12.5);
  EXPECT_DOUBLE_EQ(z.hi, 62.5);
  const hw::AxisRange zl = hw::zoom_range({1.0, 10000.0}, 100.0, 0.5, true);
  EXPECT_NEAR(zl.lo, 10.0, 1e-9);
  EXPECT_NEAR(zl.hi, 1000.0, 1e-6);
}

TEST(PlotMath, ZoomRefusesToCollapse) {
  const hw::AxisRange r{0.0, 1e-12};
  const hw::AxisRange z = hw::zoom_range(r, 0.0, 1e-6, false);
  EXPECT_DOUBLE_EQ(z.lo, r.lo);
  EXPECT_DOUBLE_EQ(z.hi, r.hi);
}

TEST(PlotMath, PanFollowsDrag) {
  const hw::AxisRange r = hw::pan_range({0.0, 100.0}, 50.0f, 500.0f, false);  // drag right by 10%
  EXPECT_DOUBLE_EQ(r.lo, -10.0);
  EXPECT_DOUBLE_EQ(r.hi, 90.0);
  const hw::AxisRange l = hw::pan_range({1.0, 100.0}, -100.0f, 200.0f, true);  // left by half
  EXPECT_NEAR(l.lo, 10.0, 1e-9);
  EXPECT_NEAR(l.hi, 1000.0, 1e-6);
}

TEST(PlotMath, FitRange) {
  const hw::AxisRange a = hw::fit_range(0.0, 10.0, false, 0.1);
  EXPECT_DOUBLE_EQ(a.lo, -1.0);
  EXPECT_DOUBLE_EQ(a.hi, 11.0);
  const hw::AxisRange flat = hw::fit_range(3.0, 3.0, false, 0.1);
  EXPECT_LT(flat.lo, 3.0);
  EXPECT_GT(flat.hi, 3.0);
  const hw::AxisRange lg = hw::fit_range(1.0, 100.0, true, 0.0);
  EXPECT_NEAR(lg.lo, 1.0, 1e-12);
  EXPECT_NEAR(lg.hi, 100.0, 1e-9);
  const hw::AxisRange bad = hw::fit_range(NAN, 1.0, false, 0.1);
  EXPECT_DOUBLE_EQ(bad.lo, 0.0);
  EXPECT_DOUBLE_EQ(bad.hi, 1.0);
  const hw::AxisRange neg_log = hw::fit_range(-5.0, 10.0, true, 0.0);
  EXPECT_GT(neg_log.lo, 0.0);
}

TEST(ClipSegment, KeepsThePartInsideTheRectangle) {
  double t0 = -1, t1 = -1;
  // Crossing the rectangle [0, 10] x [0, 10] from left to right at y = 5.
  ASSERT_TRUE(headroom::widgets::clip_segment(-10, 5, 20, 5, 0, 0, 10, 10, &t0, &t1));
  EXPECT_DOUBLE_EQ(t0, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(t1, 2.0 / 3.0);
  // Wholly inside: all of it.
  ASSERT_TRUE(headroom::widgets::clip_segment(1, 1, 2, 2, 0, 0, 10, 10, &t0, &t1));
  EXPECT_DOUBLE_EQ(t0, 0.0);
  EXPECT_DOUBLE_EQ(t1, 1.0);
  // Passing by a corner, and parallel outside an edge: nothing.
  EXPECT_FALSE(headroom::widgets::clip_segment(-5, 4, 4, -5, 0, 0, 10, 10, &t0, &t1));
  EXPECT_FALSE(headroom::widgets::clip_segment(-5, 11, 15, 11, 0, 0, 10, 10, &t0, &t1));
}
