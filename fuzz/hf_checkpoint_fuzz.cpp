// The weights of a downloaded checkpoint (`inspect --model`, the lab's real models): any bytes as
// model.safetensors, or as model.safetensors.index.json and one shard, either open as a checkpoint
// or are refused with one HfError / SafetensorsError naming a file of the directory, never a crash.
// What opens lists each tensor once, sorted by name, and every tensor reads: a float one as exactly
// its shape's count of floats, any other dtype refused by name.
//
// Input: a first byte, even for a single model.safetensors (the rest of the input), odd for a
// sharded checkpoint: the index's text, a NUL, then the shard's bytes, written as
// model-00001-of-00001.safetensors (the name the seeds' index uses).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/hf/hf_checkpoint.h"
#include "core/io/safetensors.h"
#include "fuzz/fuzz_scratch.h"

namespace {

constexpr const char* kShard = "model-00001-of-00001.safetensors";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace hf = headroom::core::hf;
  const std::string& dir = headroom::fuzz::scratch_dir("hf-checkpoint");
  for (const char* file : {hf::kSingleFileName, hf::kIndexFileName, kShard}) std::remove((dir + "/" + file).c_str());
  const char* rest = reinterpret_cast<const char*>(data + 1);
  const std::size_t rest_size = size - 1;
  if (data[0] % 2 == 0) {
    headroom::fuzz::write_bytes(dir, hf::kSingleFileName, rest, rest_size);
  } else {
    const char* nul = static_cast<const char*>(std::memchr(rest, 0, rest_size));
    const std::size_t index_size = nul ? static_cast<std::size_t>(nul - rest) : rest_size;
    headroom::fuzz::write_bytes(dir, hf::kIndexFileName, rest, index_size);
    if (nul) headroom::fuzz::write_bytes(dir, kShard, nul + 1, rest_size - index_size - 1);
  }

  hf::HfCheckpoint ckpt;
  try {
    ckpt = hf::open_checkpoint(dir);
  } catch (const std::runtime_error& e) {                            // HfError and SafetensorsError both
    if (std::string(e.what()).rfind(dir, 0) != 0) __builtin_trap();  // names a file of the checkpoint first
    return 0;
  }
  const auto& tensors = ckpt.tensors();
  for (std::size_t i = 1; i < tensors.size(); ++i)
    if (!(tensors[i - 1].name < tensors[i].name)) __builtin_trap();  // sorted, each name once
  for (const auto& t : tensors) {
    if (ckpt.find(t.name) != &t) __builtin_trap();
    int64_t numel = 1;
    for (int64_t s : t.shape) numel *= s;
    try {
      const auto values = ckpt.load_f32(t.name);
      if (!hf::is_float_dtype(t.dtype) || static_cast<int64_t>(values.size()) != numel) __builtin_trap();
    } catch (const hf::HfError& e) {
      if (hf::is_float_dtype(t.dtype)) __builtin_trap();  // a float tensor the header accepted must read
      if (std::string(e.what()).find(t.name) == std::string::npos) __builtin_trap();
    }
  }
  return 0;
}
