#include "widgets/mipmap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace headroom::widgets {
namespace {

std::vector<std::uint8_t> gray(int width, int height, std::uint8_t (*value)(int x, int y)) {
  std::vector<std::uint8_t> rgba;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) rgba.insert(rgba.end(), {value(x, y), value(x, y), value(x, y), 255});
  return rgba;
}

int texel(const MipLevel& l, int x, int y, int channel = 0) {
  return l.rgba[(static_cast<std::size_t>(y) * l.width + x) * 4 + channel];
}

TEST(Mipmap, LevelsHalveToOneByOneAsOpenGLSizesThem) {
  const auto image = gray(12, 5, [](int, int) -> std::uint8_t { return 7; });
  const std::vector<MipLevel> chain = mip_chain(image.data(), 12, 5);
  const std::vector<std::pair<int, int>> want = {{6, 2}, {3, 1}, {1, 1}};
  ASSERT_EQ(chain.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(chain[i].width, want[i].first) << i;
    EXPECT_EQ(chain[i].height, want[i].second) << i;
    EXPECT_EQ(chain[i].rgba.size(), static_cast<std::size_t>(want[i].first * want[i].second * 4));
    for (std::size_t b = 0; b < chain[i].rgba.size(); ++b) EXPECT_EQ(chain[i].rgba[b], b % 4 == 3 ? 255 : 7);
  }
  EXPECT_TRUE(mip_chain(image.data(), 1, 1).empty());
}

TEST(Mipmap, EachTexelIsTheRoundedMeanOfTheTwoByTwoUnderIt) {
  // 4 x 2: the left 2 x 2 block holds 0, 10, 20, 31 (mean 15.25 -> 15), the right 1, 2, 3, 4 (2.5 -> 3).
  const std::vector<std::uint8_t> v = {0, 10, 1, 2, 20, 31, 3, 4};
  std::vector<std::uint8_t> rgba;
  for (std::uint8_t x : v) rgba.insert(rgba.end(), {x, static_cast<std::uint8_t>(255 - x), 0, 128});
  const MipLevel next = next_mip_level(rgba.data(), 4, 2);
  ASSERT_EQ(next.width, 2);
  ASSERT_EQ(next.height, 1);
  EXPECT_EQ(texel(next, 0, 0), 15);
  EXPECT_EQ(texel(next, 1, 0), 3);
  EXPECT_EQ(texel(next, 0, 0, 1), 240);  // 255 - 15.25 = 239.75
  EXPECT_EQ(texel(next, 1, 0, 1), 253);  // 255 - 2.5 = 252.5, rounded half up
  EXPECT_EQ(texel(next, 0, 0, 3), 128);
}

TEST(Mipmap, AnOddEdgeFoldsIntoTheLastTexelSoNoCellIsDropped) {
  // 3 x 3 with a single bright cell in the last row and column: a 2 x 2 box filter that skipped
  // the odd edge would lose it; here the one texel below takes in all nine.
  const auto image = gray(3, 3, [](int x, int y) -> std::uint8_t { return x == 2 && y == 2 ? 180 : 0; });
  const MipLevel next = next_mip_level(image.data(), 3, 3);
  ASSERT_EQ(next.width, 1);
  ASSERT_EQ(next.height, 1);
  EXPECT_EQ(texel(next, 0, 0), 20);  // 180 / 9
  // 5 x 1 -> 2 x 1: texels {0, 1} and {2, 3, 4}.
  const auto row = gray(5, 1, [](int x, int) -> std::uint8_t { return static_cast<std::uint8_t>(30 * x); });
  const MipLevel half = next_mip_level(row.data(), 5, 1);
  ASSERT_EQ(half.width, 2);
  EXPECT_EQ(texel(half, 0, 0), 15);  // (0 + 30) / 2
  EXPECT_EQ(texel(half, 1, 0), 90);  // (60 + 90 + 120) / 3
}

TEST(Mipmap, ATallImageKeepsHalvingItsLongSide) {
  const auto column = gray(1, 8, [](int, int y) -> std::uint8_t { return static_cast<std::uint8_t>(y * 10); });
  const std::vector<MipLevel> chain = mip_chain(column.data(), 1, 8);
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0].width, 1);
  EXPECT_EQ(chain[0].height, 4);
  EXPECT_EQ(texel(chain[0], 0, 3), 65);      // (60 + 70) / 2
  EXPECT_EQ(texel(chain.back(), 0, 0), 35);  // the mean of 0..70
}

}  // namespace
}  // namespace headroom::widgets
