// The header of a safetensors file alone (core/io/safetensors.h has the format), and one tensor's
// bytes read on demand: a checkpoint from the hub is 0.5-15 GB, so the importer reads what it
// needs, a tensor at a time, instead of the whole file as core::read_safetensors_file does.
//
// The header is validated as core::decode_safetensors validates it (JSON, offsets within the file,
// sizes that match shape x dtype, no overlaps). It also lists tensors in dtypes Headroom cannot
// convert (F8_E4M3, I64 buffers, ...): listing is harmless, converting them is refused later by
// name. The Headroom CRC-32 (core::kDataCrc32Key) covers the whole data section and is therefore
// not checked here; files from the hub have none.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headroom::core::hf {

struct StHeaderEntry {
  std::string name;
  std::string dtype;  // as stored: "F32", "F16", "BF16", "F64", "I64", "F8_E4M3", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // absolute byte offsets in the file (8 + header length + data_offsets)
  uint64_t end = 0;

  int64_t numel() const;
};

struct StHeader {
  std::string path;
  std::vector<StHeaderEntry> tensors;           // sorted by name
  std::map<std::string, std::string> metadata;  // "__metadata__"

  const StHeaderEntry* find(const std::string& name) const;
};

// Bytes per element of every dtype the safetensors format defines; 0 for an unknown one.
int st_dtype_size(const std::string& dtype);

// Reads and validates the header of `path`; throws core::SafetensorsError naming the file (and the
// tensor) on a missing file or a malformed header.
StHeader read_safetensors_header(const std::string& path);

// The raw little-endian bytes of one tensor of `header` (re-opens the file: safe from any thread).
std::vector<uint8_t> read_tensor_bytes(const StHeader& header, const StHeaderEntry& entry);

}  // namespace headroom::core::hf
