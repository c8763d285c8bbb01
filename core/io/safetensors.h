// safetensors files (https://github.com/huggingface/safetensors): an 8-byte little-endian header
// length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {str: str}}, then the
// raw little-endian data. No torch here: the DB, the GUI and the worker all read these.
//
// The reader validates everything before trusting it (the bytes may come from a foreign DB):
// header length within the buffer, JSON well-formed, known dtypes, offsets in range, sizes that
// match shape x dtype, no overlaps. Errors name the source and what is wrong.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom::core {

struct SafetensorsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct StTensor {
  std::string name;
  std::string dtype;  // "F32", "F64", "I64", "I32", "U8", "BOOL", "F16", "BF16"
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  // little-endian, row-major

  int64_t numel() const;
  // Typed views; throw SafetensorsError when the dtype differs. as_f32 also widens F16 (exactly):
  // results-only exports store P_l / P_w snapshots and weights in 16 bits.
  std::vector<float> as_f32() const;
  std::vector<double> as_f64() const;
};

struct StFile {
  std::vector<StTensor> tensors;                // in file order
  std::map<std::string, std::string> metadata;  // "__metadata__"

  const StTensor* find(const std::string& name) const;
  const StTensor& at(const std::string& name) const;  // throws SafetensorsError naming the tensor
};

// Bytes per element of a dtype; 0 for an unknown dtype.
int dtype_size(const std::string& dtype);

StTensor make_f32(std::string name, std::vector<int64_t> shape, const float* data);

// Writers add a CRC-32 of the data section to "__metadata__" under this key; readers check it when
// it is there (files from other tools have none) and drop it from StFile::metadata, so damage in a
// stored checkpoint is an error instead of silently wrong weights.
inline constexpr const char* kDataCrc32Key = "headroom.data_crc32";

std::vector<uint8_t> encode_safetensors(const StFile& file);
// `source` names the bytes in error messages (a path, "run 3 checkpoint at step 200", ...).
StFile decode_safetensors(const uint8_t* data, size_t size, const std::string& source);

void write_safetensors_file(const std::string& path, const StFile& file);  // atomic (temp + rename)
StFile read_safetensors_file(const std::string& path);

}  // namespace headroom::core
