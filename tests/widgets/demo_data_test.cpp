#include "widgets/demo_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace hw = headroom::widgets;

TEST(DemoData, AttentionMapsAreCausalDistributions) {
  const hw::DemoData d = hw::make_demo_data(64, 16, 100);
  ASSERT_EQ(d.tokens, 64);
  ASSERT_EQ(d.heads, 16);
  ASSERT_EQ(d.token_labels.size(), 64u);
  for (int h = 0; h < d.heads; ++h) {
    const float* m = d.head_ptrs[h];
    for (int q = 0; q < d.tokens; ++q) {
      double sum = 0;
      for (int k = 0; k < d.tokens; ++k) {
        const float p = m[q * d.tokens + k];
        ASSERT_GE(p, 0.0f);
        if (k > q) {
          ASSERT_EQ(p, 0.0f) << "head " << h << " looks ahead at " << q << "," << k;
        }
        sum += p;
      }
      ASSERT_NEAR(sum, 1.0, 1e-4) << "head " << h << " row " << q;
    }
  }
}

TEST(DemoData, CurvesSpectrumAndMixing) {
  const hw::DemoData d = hw::make_demo_data();
  EXPECT_EQ(d.points, 20000);
  EXPECT_EQ(d.steps.front(), 1.0f);
  EXPECT_TRUE(std::is_sorted(d.steps.begin(), d.steps.end()));
  for (int i = 0; i < d.points; i += 997) EXPECT_LE(d.band_lo[i], d.band_hi[i]);
  EXPECT_TRUE(std::is_sorted(d.spectrum.rbegin(), d.spectrum.rend()));
  EXPECT_LT(d.rank, d.cap);
  EXPECT_GT(d.spectrum[d.rank - 1] / d.spectrum[d.rank], 1e3f);  // a clear numerical-rank cliff
  for (float v : d.mixing) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
  }
}

TEST(DemoData, DeterministicForASeed) {
  const hw::DemoData a = hw::make_demo_data(32, 4, 50, 3), b = hw::make_demo_data(32, 4, 50, 3);
  EXPECT_EQ(a.head_maps, b.head_maps);
  EXPECT_EQ(a.train, b.train);
}
