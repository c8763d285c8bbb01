#include "widgets/png_export.h"

#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdio>
#include <string>
#include <vector>

namespace hw = headroom::widgets;

TEST(PngExport, WritesReadablePng) {
  const int w = 7, h = 3;
  std::vector<uint8_t> rgba(w * h * 4);
  for (int i = 0; i < w * h; ++i) {
    rgba[4 * i + 0] = static_cast<uint8_t>(i * 10);
    rgba[4 * i + 1] = 0;
    rgba[4 * i + 2] = 255;
    rgba[4 * i + 3] = 255;
  }
  const std::string path = ::testing::TempDir() + "headroom_png_export_test.png";
  std::string error;
  ASSERT_TRUE(hw::write_png_rgba(path, w, h, rgba.data(), &error)) << error;
  int rw = 0, rh = 0, ch = 0;
  unsigned char* img = stbi_load(path.c_str(), &rw, &rh, &ch, 4);
  ASSERT_NE(img, nullptr);
  EXPECT_EQ(rw, w);
  EXPECT_EQ(rh, h);
  EXPECT_EQ(img[4 * 5 + 0], 50);  // top row first
  stbi_image_free(img);
  std::remove(path.c_str());
}

namespace {

// The colour type in a PNG file's IHDR (byte 25): 2 RGB, 6 RGBA.
int png_colour_type(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return -1;
  unsigned char head[26] = {};
  const size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return n == sizeof head ? head[25] : -1;
}

}  // namespace

// An opaque image (every screenshot) is stored as RGB, one with any transparency as RGBA; both read
// back pixel for pixel.
TEST(PngExport, OpaqueImagesAreStoredAsRgbAndTransparentOnesKeepTheirAlpha) {
  const int w = 9, h = 4;
  std::vector<uint8_t> rgba(w * h * 4);
  for (int i = 0; i < w * h; ++i)
    for (int c = 0; c < 4; ++c) rgba[4 * i + c] = c == 3 ? 255 : static_cast<uint8_t>(i * 7 + c * 50);
  for (const bool transparent : {false, true}) {
    if (transparent) rgba[4 * 5 + 3] = 128;
    const std::string path = ::testing::TempDir() + "headroom_png_alpha_test.png";
    std::string error;
    ASSERT_TRUE(hw::write_png_rgba(path, w, h, rgba.data(), &error)) << error;
    EXPECT_EQ(png_colour_type(path), transparent ? 6 : 2);
    int rw = 0, rh = 0, ch = 0;
    unsigned char* img = stbi_load(path.c_str(), &rw, &rh, &ch, 4);
    ASSERT_NE(img, nullptr);
    ASSERT_EQ(rw * rh, w * h);
    EXPECT_EQ(std::vector<uint8_t>(img, img + w * h * 4), rgba) << (transparent ? "RGBA" : "RGB");
    stbi_image_free(img);
    std::remove(path.c_str());
  }
}

TEST(PngExport, MissingDirectoryIsAClearError) {
  const uint8_t px[4] = {1, 2, 3, 255};
  std::string error;
  EXPECT_FALSE(hw::write_png_rgba("/nonexistent-dir-headroom/x.png", 1, 1, px, &error));
  EXPECT_NE(error.find("/nonexistent-dir-headroom/x.png"), std::string::npos) << error;
  EXPECT_NE(error.find("directory"), std::string::npos) << error;
  EXPECT_FALSE(hw::write_png_rgba("/tmp/x.png", 0, 1, px, &error));
}

TEST(PngExport, TimestampedNameIsSanitized) {
  const std::string n = hw::timestamped_png_name("/tmp/out", "head 3: prev/token");
  EXPECT_EQ(n.rfind("/tmp/out/headroom-head_3_prev_token-", 0), 0u) << n;
  EXPECT_EQ(n.substr(n.size() - 4), ".png");
  EXPECT_EQ(hw::timestamped_png_name("", "x").rfind("headroom-x-", 0), 0u);
}
