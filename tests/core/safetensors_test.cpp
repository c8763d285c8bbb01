#include <gtest/gtest.h>

#include <cmath>
#include <torch/torch.h>

#include <cstdio>

#include "core/io/crc32.h"
#include "core/io/safetensors.h"
#include "core/io/tensor_bridge.h"

using namespace headroom::core;

namespace {
StFile sample() {
  StFile f;
  f.tensors.push_back(to_st_tensor("b", torch::arange(6, torch::kFloat32).reshape({2, 3})));
  f.tensors.push_back(to_st_tensor("a", torch::tensor({1.5, -2.0}, torch::kFloat64)));
  f.tensors.push_back(to_st_tensor("steps", torch::tensor({int64_t(7)})));
  f.metadata["logit_scale"] = "0.125";
  return f;
}
}  // namespace

TEST(Safetensors, RoundTripKeepsOrderShapesValuesAndMetadata) {
  auto bytes = encode_safetensors(sample());
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= uint64_t(bytes[i]) << (8 * i);
  EXPECT_EQ((8 + header_len) % 8, 0u);  // the header is padded so the data starts 8-aligned
  auto back = decode_safetensors(bytes.data(), bytes.size(), "memory");
  ASSERT_EQ(back.tensors.size(), 3u);
  EXPECT_EQ(back.tensors[0].name, "b");
  EXPECT_EQ(back.tensors[1].name, "a");
  EXPECT_EQ(back.metadata.at("logit_scale"), "0.125");
  EXPECT_TRUE(torch::equal(from_st_tensor(back.at("b")), torch::arange(6, torch::kFloat32).reshape({2, 3})));
  EXPECT_EQ(back.at("a").as_f64()[1], -2.0);
  EXPECT_THROW(back.at("a").as_f32(), SafetensorsError);
  EXPECT_THROW(back.at("missing"), SafetensorsError);
}

TEST(Safetensors, F16IsWidenedExactlyToF32) {
  // 1, -2, 0.5, the largest half, the smallest subnormal, -0, +inf, a NaN.
  const uint16_t halves[] = {0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0x7E00};
  StTensor t;
  t.name = "h";
  t.dtype = "F16";
  t.shape = {8};
  for (uint16_t h : halves)
    t.bytes.insert(t.bytes.end(), {static_cast<uint8_t>(h & 0xff), static_cast<uint8_t>(h >> 8)});
  const std::vector<float> v = t.as_f32();
  ASSERT_EQ(v.size(), 8u);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.0f);
  EXPECT_EQ(v[2], 0.5f);
  EXPECT_EQ(v[3], 65504.0f);
  EXPECT_EQ(v[4], 0x1p-24f);
  EXPECT_EQ(v[5], 0.0f);
  EXPECT_TRUE(std::signbit(v[5]));
  EXPECT_TRUE(std::isinf(v[6]) && v[6] > 0);
  EXPECT_TRUE(std::isnan(v[7]));
  t.dtype = "I16";
  EXPECT_THROW(t.as_f32(), SafetensorsError);
}

TEST(Safetensors, FileRoundTrip) {
  const std::string path = ::testing::TempDir() + "/rt.safetensors";
  write_safetensors_file(path, sample());
  EXPECT_EQ(read_safetensors_file(path).tensors.size(), 3u);
  std::remove(path.c_str());
  EXPECT_THROW(read_safetensors_file(path), SafetensorsError);
}

TEST(Safetensors, RejectsCorruptBytesWithAReason) {
  auto good = encode_safetensors(sample());
  auto expect_reject = [](std::vector<uint8_t> b, const char* why) {
    try {
      decode_safetensors(b.data(), b.size(), "blob");
      ADD_FAILURE() << "accepted: " << why;
    } catch (const SafetensorsError& e) {
      EXPECT_NE(std::string(e.what()).find("blob"), std::string::npos);
    }
  };
  expect_reject({1, 2, 3}, "too short");
  auto huge = good;
  huge[7] = 0x7f;
  expect_reject(huge, "header length beyond the file");
  auto truncated = good;
  truncated.resize(good.size() - 4);
  expect_reject(truncated, "data cut off");
  auto garbage = good;
  garbage[8] = '[';
  expect_reject(garbage, "header not an object");
  // Random bytes never crash the reader.
  std::vector<uint8_t> noise(200);
  for (int trial = 0; trial < 200; ++trial) {
    for (auto& c : noise) c = static_cast<uint8_t>(std::rand());
    noise[0] = static_cast<uint8_t>(trial);
    for (int i = 1; i < 8; ++i) noise[i] = 0;
    try {
      decode_safetensors(noise.data(), noise.size(), "noise");
    } catch (const SafetensorsError&) {}
  }
}

TEST(Crc32, MatchesTheStandardCheckValueAndContinuesAcrossPieces) {
  const std::string text = "123456789";
  EXPECT_EQ(headroom::io::crc32(text.data(), text.size()), 0xCBF43926u);  // the CRC-32 check value
  EXPECT_EQ(headroom::io::crc32("", 0), 0u);
  std::vector<uint8_t> bytes(1000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 37 + 11);
  const uint32_t whole = headroom::io::crc32(bytes.data(), bytes.size());
  for (size_t cut : {0, 1, 7, 8, 9, 500, 999, 1000})
    EXPECT_EQ(headroom::io::crc32(bytes.data() + cut, bytes.size() - cut, headroom::io::crc32(bytes.data(), cut)),
              whole)
        << "cut at " << cut;
}

TEST(Safetensors, AFlippedByteInTheDataIsCaughtByItsChecksum) {
  const auto good = encode_safetensors(sample());
  const auto back = decode_safetensors(good.data(), good.size(), "blob");
  EXPECT_EQ(back.metadata.count(kDataCrc32Key), 0u) << "the checksum is the codec's, not the caller's";
  EXPECT_EQ(back.metadata.size(), 1u);
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= uint64_t(good[i]) << (8 * i);
  // Every byte of the data section: a flip anywhere in it is reported, naming the source.
  for (size_t at = 8 + header_len; at < good.size(); ++at) {
    auto bad = good;
    bad[at] ^= 0x01;
    try {
      decode_safetensors(bad.data(), bad.size(), "run 3 checkpoint");
      ADD_FAILURE() << "a flipped bit at byte " << at << " went unnoticed";
    } catch (const SafetensorsError& e) {
      EXPECT_NE(std::string(e.what()).find("run 3 checkpoint: the tensor data is damaged"), std::string::npos)
          << e.what();
    }
  }
  // Files from other tools carry no checksum and still load.
  StFile plain = sample();
  const std::string header = R"({"x":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  std::vector<uint8_t> foreign(8 + header.size() + 2, 0);
  foreign[0] = static_cast<uint8_t>(header.size());
  std::copy(header.begin(), header.end(), foreign.begin() + 8);
  foreign[8 + header.size()] = 5;
  EXPECT_EQ(decode_safetensors(foreign.data(), foreign.size(), "foreign").at("x").bytes[0], 5);
}
