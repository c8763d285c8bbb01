#include "widgets/axis_ticks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace hw = headroom::widgets;

TEST(AxisTicks, NiceStepIsOneTwoFive) {
  EXPECT_DOUBLE_EQ(hw::nice_step(10.0, 5), 2.0);
  EXPECT_DOUBLE_EQ(hw::nice_step(1.0, 5), 0.2);
  EXPECT_DOUBLE_EQ(hw::nice_step(20000.0, 5), 5000.0);
  EXPECT_DOUBLE_EQ(hw::nice_step(7.0, 7), 1.0);
  EXPECT_DOUBLE_EQ(hw::nice_step(0.0, 5), 1.0);  // degenerate
}

TEST(AxisTicks, LinearTicksCoverRangeWithReadableLabels) {
  const auto t = hw::nice_ticks(0.0, 1.0, 5);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t.front().label, "0.0");
  EXPECT_EQ(t[1].label, "0.2");
  EXPECT_EQ(t.back().label, "1.0");
  for (const auto& k : t) {
    EXPECT_GE(k.value, -1e-9);
    EXPECT_LE(k.value, 1.0 + 1e-9);
    EXPECT_TRUE(k.major);
  }
}

TEST(AxisTicks, NegativeAndOddRanges) {
  const auto t = hw::nice_ticks(-1.0, 1.0, 4);
  ASSERT_FALSE(t.empty());
  bool has_zero = false;
  for (const auto& k : t) has_zero |= (k.label == "0.0" || k.label == "0");
  EXPECT_TRUE(has_zero);  // no "-0.0"
  for (const auto& k : t) EXPECT_NE(k.label, "-0.0");
  const auto u = hw::nice_ticks(3.7, 4.1, 4);
  ASSERT_GE(u.size(), 2u);
  EXPECT_GE(u.front().value, 3.7 - 1e-9);
  EXPECT_LE(u.back().value, 4.1 + 1e-9);
}

TEST(AxisTicks, ANarrowRangeStillGetsTwoLabelsForAScale) {
  // The th-heads figure's losses, 1.129 .. 1.170 on a short plot (2 ticks wanted): a step of 0.05
  // left "1.15" alone; finer steps give at least two labels, all inside the range.
  const auto t = hw::nice_ticks(1.129, 1.170, 2);
  ASSERT_GE(t.size(), 2u);
  for (const auto& k : t) {
    EXPECT_GE(k.value, 1.129 - 1e-12);
    EXPECT_LE(k.value, 1.170 + 1e-12);
    EXPECT_FALSE(k.label.empty());
  }
  EXPECT_NE(t[0].label, t[1].label);  // enough digits to tell them apart
  EXPECT_EQ(hw::log_ticks(1.129, 1.170, 2).size(), t.size()) << "a log axis this narrow falls back to the same";
}

TEST(AxisTicks, TinyRangesLabelZeroAsZero) {
  // A difference map of +-1e-6: the ticks read "-1e-06" .. "1e-06", and zero plainly "0".
  const auto t = hw::nice_ticks(-1e-6, 1e-6, 4);
  bool zero = false;
  for (const auto& k : t) {
    EXPECT_LE(k.label.size(), 7u) << k.label;
    zero |= k.value == 0.0 && k.label == "0";
  }
  EXPECT_TRUE(zero);
}

TEST(AxisTicks, ThousandsUseK) {
  const auto t = hw::nice_ticks(0.0, 20000.0, 4);
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(t.back().label, "20k");
  EXPECT_EQ(hw::format_tick(2500.0, 2500.0), "2500");  // below 10k stays plain
  EXPECT_EQ(hw::format_tick(12500.0, 2500.0), "12.5k");
  EXPECT_EQ(hw::format_tick(3e6, 1e6), "3M");
  // Millions read in millions even when the step is finer (a parameter-count axis): 39.2M, not 39200k.
  EXPECT_EQ(hw::format_tick(39.2e6, 2e5), "39.2M");
  EXPECT_EQ(hw::format_tick(39.25e6, 5e4), "39.25M");
  EXPECT_EQ(hw::format_tick(500e3, 5e5), "500k");
}

TEST(AxisTicks, DegenerateRange) {
  const auto t = hw::nice_ticks(2.0, 2.0, 5);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_DOUBLE_EQ(t[0].value, 2.0);
  EXPECT_TRUE(hw::nice_ticks(NAN, 1.0, 5).empty());
}

TEST(AxisTicks, LogTicksAtDecades) {
  const auto t = hw::log_ticks(1e-3, 1e2, 10);
  int majors = 0;
  for (const auto& k : t) {
    if (!k.major) {
      EXPECT_TRUE(k.label.empty());
      continue;
    }
    ++majors;
    const double e = std::log10(k.value);
    EXPECT_NEAR(e, std::round(e), 1e-9);
  }
  EXPECT_EQ(majors, 6);
  EXPECT_EQ(hw::format_decade(-2), "0.01");
  EXPECT_EQ(hw::format_decade(0), "1");
  EXPECT_EQ(hw::format_decade(3), "1000");
  EXPECT_EQ(hw::format_decade(-7), "1e-07");
}

TEST(AxisTicks, LogTicksThinManyDecades) {
  const auto t = hw::log_ticks(1e-12, 1e12, 5);
  int majors = 0;
  for (const auto& k : t) majors += k.major;
  EXPECT_LE(majors, 7);
  EXPECT_GE(majors, 3);
}

TEST(AxisTicks, NarrowLogRangeFallsBackToLinear) {
  const auto t = hw::log_ticks(2.0, 5.0, 4);
  EXPECT_GE(t.size(), 2u);
  for (const auto& k : t) EXPECT_FALSE(k.label.empty());
  EXPECT_TRUE(hw::log_ticks(-1.0, 5.0, 4).empty());
}

TEST(AxisTicks, UnderTwoDecadesLabelsOneTwoFive) {
  // A loss curve from 0.75 to 6.6: 1, 2, 5 labeled, the other digits as minor ticks.
  const auto t = hw::log_ticks(0.75, 6.6, 5);
  std::vector<std::string> labels;
  for (const auto& k : t)
    if (k.major) labels.push_back(k.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"1", "2", "5"}));
  // Zoomed in to 0.75..1.45: too narrow for digits, linear steps instead.
  const auto z = hw::log_ticks(0.75, 1.45, 5);
  ASSERT_GE(z.size(), 3u);
  for (const auto& k : z) EXPECT_FALSE(k.label.empty());
}

TEST(AxisTicks, TwoDecadesAloneGainOneTwoFiveLabels) {
  // VB's bound from 8 to 120 (the lab's depth-vs-width plot) read "10" and "100" and nothing else.
  const auto t = hw::log_ticks(8.0, 120.0, 5);
  std::vector<std::string> labels;
  for (const auto& k : t)
    if (k.major) labels.push_back(k.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"10", "20", "50", "100"}));
  // Where they would crowd a short axis, the powers of ten alone.
  labels.clear();
  for (const auto& k : hw::log_ticks(1.5, 400.0, 2))
    if (k.major) labels.push_back(k.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"10", "100"}));
}

TEST(AxisTicks, CategoryTicksNameEveryIndexInsideTheRange) {
  const std::vector<std::string> names{"6-6-6", "6-24-6", "24-6-24", "6-24-24", "24-24-6", "24-24-24"};
  // A padded range (-0.4 .. 5.4) keeps exactly the six indices.
  const auto t = hw::category_ticks(-0.4, 5.4, names, 10);
  ASSERT_EQ(t.size(), 6u);
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_DOUBLE_EQ(t[i].value, static_cast<double>(i));
    EXPECT_EQ(t[i].label, names[i]);
    EXPECT_TRUE(t[i].major);
  }
  // Zoomed in: only the indices shown; reversed bounds are the same range.
  const auto z = hw::category_ticks(3.5, 1.5, names, 10);
  ASSERT_EQ(z.size(), 2u);
  EXPECT_EQ(z[0].label, "24-6-24");
  EXPECT_EQ(z[1].label, "6-24-24");
}

TEST(AxisTicks, CategoryTicksThinTheirLabelsWhenTheyWouldCrowd) {
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) names.push_back("c" + std::to_string(i));
  const auto t = hw::category_ticks(0, 9, names, 4);  // 10 names, room for 4: every 3rd labeled
  ASSERT_EQ(t.size(), 10u);
  int labeled = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].label.empty(), i % 3 != 0) << i;
    labeled += !t[i].label.empty();
  }
  EXPECT_EQ(labeled, 4);
  EXPECT_TRUE(hw::category_ticks(0, 9, {}, 4).empty());
  EXPECT_TRUE(hw::category_ticks(0, 9, names, 0).empty());
  EXPECT_TRUE(hw::category_ticks(std::nan(""), 9, names, 4).empty());
  EXPECT_TRUE(hw::category_ticks(10.5, 20, names, 4).empty());  // past the last name
}
