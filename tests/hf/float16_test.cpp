// F16 / BF16 <-> float against bit patterns computed by hand (IEEE 754 binary16: 1 sign, 5 exponent
// bits biased by 15, 10 mantissa bits; bfloat16: a float's upper 16 bits), and through a file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/io/float16.h"
#include "core/hf/hf_checkpoint.h"
#include "tests/hf/hf_test_util.h"

namespace headroom::core::hf {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(Float16, WidensHandComputedPatterns) {
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);                      // 0 01111 0000000000
  EXPECT_EQ(f16_to_f32(0xc100), -2.5f);                     // 1 10000 0100000000: -1.25 * 2
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);                  // 0 11110 1111111111: the largest finite
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal: 2^-14 * 2^-10
  EXPECT_EQ(f16_to_f32(0x03ff), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(f16_to_f32(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f16_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f16_to_f32(0x7e00)));
  EXPECT_TRUE(std::isnan(f16_to_f32(0x7c01)));       // signalling payload stays NaN, not inf
  EXPECT_EQ(bits(f16_to_f32(0x8000)), 0x80000000u);  // -0 keeps its sign
}

TEST(Float16, BFloat16WidensHandComputedPatterns) {
  EXPECT_EQ(bf16_to_f32(0x4049), 3.140625f);  // 0 10000000 1001001: 2 * (1 + 73/128)
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_f32(0xc020), -2.5f);
  EXPECT_EQ(bf16_to_f32(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal: 2^-126 * 2^-7
  EXPECT_EQ(bf16_to_f32(0x7f80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(bf16_to_f32(0xff80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bf16_to_f32(0x7fc0)));
}

TEST(Float16, NarrowsToNearestEven) {
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16(-2.5f), 0xc100);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);  // below the midpoint to 65536
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // the midpoint: ties to even overflow to inf
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);         // half the smallest subnormal: ties to even 0
  EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -24)), 0x0002);         // 1.5 units: tie to even 2
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie between 1 and 1 + 2^-10: even
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // tie between odd and even: up
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(f32_to_f16(-1e10f), 0xfc00);
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(std::nanf("")))));
  EXPECT_EQ(f32_to_bf16(3.14159265f), 0x4049);                  // 3.140625, the nearest bfloat16
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie: even
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::nanf("")))));
}

TEST(Float16, EveryHalfRoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = f16_to_f32(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_f16(f), h) << std::hex << b;
    ASSERT_EQ(f32_to_bf16(bf16_to_f32(h)), h) << std::hex << b;
  }
}

// The patterns stored in a file and read through a checkpoint: F16, BF16 and F64 (narrowed).
TEST(Float16, CheckpointConvertsStoredPatterns) {
  testing::TempDir dir;
  auto halves = [](std::string name, std::string dtype, std::vector<uint16_t> v) {
    StTensor t{std::move(name), std::move(dtype), {static_cast<int64_t>(v.size())}, std::vector<uint8_t>(v.size() * 2)};
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
    return t;
  };
  StFile file;
  file.tensors.push_back(halves("f16", "F16", {0x3c00, 0xc100, 0x7bff, 0x0001, 0x7c00, 0x7e00}));
  file.tensors.push_back(halves("bf16", "BF16", {0x4049, 0x0001, 0xff80}));
  const double doubles[] = {0.1, -1e300};
  file.tensors.push_back({"f64", "F64", {2}, std::vector<uint8_t>(16)});
  std::memcpy(file.tensors.back().bytes.data(), doubles, 16);
  write_safetensors_file(dir.file(kSingleFileName), file);

  const HfCheckpoint ckpt = open_checkpoint(dir.path());
  const auto f16 = ckpt.load_f32("f16");
  ASSERT_EQ(f16.size(), 6u);
  EXPECT_EQ(f16[0], 1.0f);
  EXPECT_EQ(f16[1], -2.5f);
  EXPECT_EQ(f16[2], 65504.0f);
  EXPECT_EQ(f16[3], std::ldexp(1.0f, -24));
  EXPECT_EQ(f16[4], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f16[5]));
  EXPECT_EQ(ckpt.load_f32("bf16"),
            (std::vector<float>{3.140625f, std::ldexp(1.0f, -133), -std::numeric_limits<float>::infinity()}));
  EXPECT_EQ(ckpt.load_f32("f64"), (std::vector<float>{0.1f, -std::numeric_limits<float>::infinity()}));
}

}  // namespace
}  // namespace headroom::core::hf
