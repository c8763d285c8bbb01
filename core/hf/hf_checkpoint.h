// The tensors of a Hugging Face checkpoint directory, torch-free (issue 16): model.safetensors, or
// the shards model.safetensors.index.json names ({"metadata": {...}, "weight_map": {tensor: file}}).
// Opening reads the headers only; a tensor's bytes are read when asked for and converted to float,
// so a 500 MB GPT-2 costs its header to open and one tensor's bytes at a time to import.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/hf/hf_config.h"
#include "core/hf/st_header.h"

namespace headroom::core::hf {

inline constexpr const char* kSingleFileName = "model.safetensors";
inline constexpr const char* kIndexFileName = "model.safetensors.index.json";
inline constexpr const char* kConfigFileName = "config.json";

struct HfTensorInfo {
  std::string name;
  std::string dtype;  // as stored
  std::vector<int64_t> shape;
  std::string file;  // the path of the safetensors file that holds it
};

// "[768, 2304]"
std::string shape_text(const std::vector<int64_t>& shape);

// Whether to_f32 converts this dtype: F32, F16, BF16, F64.
bool is_float_dtype(const std::string& dtype);

// Converts little-endian F32 / F16 / BF16 / F64 bytes to float (F64 is narrowed); any other dtype
// is refused with an HfError naming `what` (the file and tensor) and the dtype.
std::vector<float> to_f32(const std::vector<uint8_t>& bytes, const std::string& dtype, const std::string& what);

class HfCheckpoint {
 public:
  const std::string& dir() const { return dir_; }
  // model.safetensors, or the index: what messages about the checkpoint as a whole name.
  const std::string& source() const { return source_; }
  bool sharded() const { return sharded_; }  // read through the index
  std::vector<std::string> files() const;    // the safetensors files, in name order

  // Every tensor, sorted by name.
  const std::vector<HfTensorInfo>& tensors() const { return tensors_; }
  std::vector<std::string> names() const;
  const HfTensorInfo* find(const std::string& name) const;
  const HfTensorInfo& at(const std::string& name) const;  // HfError naming source() and the tensor

  // One tensor as float, row-major in its stored shape; reads only its bytes (thread-safe: each call
  // opens the file). HfError for an absent tensor or a dtype other than F32 / F16 / BF16 / F64.
  std::vector<float> load_f32(const std::string& name) const;

 private:
  friend HfCheckpoint open_checkpoint(const std::string& dir);
  void add_file(StHeader header);
  void index_tensors();  // sorts tensors_ and refuses a name stored twice

  std::string dir_, source_;
  bool sharded_ = false;
  std::vector<StHeader> headers_;
  std::vector<HfTensorInfo> tensors_;
  std::vector<size_t> header_of_;  // per tensor, its index in headers_
};

// Opens `dir`: model.safetensors when present (as transformers prefers it), else the index and its
// shards. Errors (HfError / core::SafetensorsError, one line, naming the file and tensor): no
// checkpoint file, a malformed header or index, an index entry whose shard is missing or lacks the
// tensor, and a tensor stored in two files.
HfCheckpoint open_checkpoint(const std::string& dir);

}  // namespace headroom::core::hf
