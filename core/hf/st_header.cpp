#include "core/hf/st_header.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "core/io/blocking_io.h"
#include "core/io/safetensors.h"

namespace headroom::core::hf {
namespace {

// As core/io/safetensors.cpp: a header larger than this is not a real checkpoint.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;
constexpr int64_t kMaxElements = int64_t(1) << 40;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw SafetensorsError(path + ": not a valid safetensors file: " + what);
}

std::vector<int64_t> parse_shape(const nlohmann::json& shape, const std::string& path, const std::string& where) {
  if (!shape.is_array()) fail(path, where + "shape is not a list");
  std::vector<int64_t> dims;
  int64_t numel = 1;
  for (const auto& s : shape) {
    if (!s.is_number_integer() || s.get<int64_t>() < 0 || s.get<int64_t>() > kMaxElements)
      fail(path, where + "bad dimension " + s.dump());
    dims.push_back(s.get<int64_t>());
    numel *= dims.back();
    if (numel > kMaxElements) fail(path, where + "too many elements");
  }
  return dims;
}

StHeaderEntry parse_entry(const std::string& name, const nlohmann::json& e, const std::string& path,
                          uint64_t data_start, uint64_t data_size) {
  const std::string where = "tensor " + name + ": ";
  if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
    fail(path, where + "needs dtype, shape and data_offsets");
  if (!e["dtype"].is_string() || st_dtype_size(e["dtype"].get<std::string>()) == 0)
    fail(path, where + "unknown dtype " + e["dtype"].dump());
  StHeaderEntry t;
  t.name = name;
  t.dtype = e["dtype"].get<std::string>();
  t.shape = parse_shape(e["shape"], path, where);
  const auto& off = e["data_offsets"];
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
    fail(path, where + "data_offsets must be two non-negative integers");
  const uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
  if (b > en || en > data_size)
    fail(path, where + "data_offsets [" + std::to_string(b) + ", " + std::to_string(en) +
                   "] out of the data section (" + std::to_string(data_size) + " bytes; is the file truncated?)");
  if (en - b != uint64_t(t.numel()) * st_dtype_size(t.dtype))
    fail(path, where + std::to_string(en - b) + " bytes do not match shape x dtype");
  t.begin = data_start + b;
  t.end = data_start + en;
  return t;
}

void check_no_overlap(std::vector<StHeaderEntry> entries, const std::string& path) {
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < entries.size(); ++i)
    if (entries[i].begin < entries[i - 1].end)
      fail(path, "tensors " + entries[i - 1].name + " and " + entries[i].name + " overlap in the data section");
}

}  // namespace

int64_t StHeaderEntry::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

const StHeaderEntry* StHeader::find(const std::string& name) const {
  auto it = std::lower_bound(tensors.begin(), tensors.end(), name,
                             [](const StHeaderEntry& e, const std::string& n) { return e.name < n; });
  return it != tensors.end() && it->name == name ? &*it : nullptr;
}

int st_dtype_size(const std::string& dtype) {
  if (dtype == "F8_E4M3" || dtype == "F8_E5M2") return 1;  // the float8 types torch saves
  return dtype_size(dtype);
}

StHeader read_safetensors_header(const std::string& path) {
  io::note_blocking_io("safetensors header read");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw SafetensorsError(path + ": cannot open the file (missing or unreadable)");
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  if (size < 8) fail(path, "shorter than the 8-byte header length");
  in.seekg(0);
  uint8_t length_bytes[8];
  in.read(reinterpret_cast<char*>(length_bytes), 8);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(length_bytes[i]) << (8 * i);
  if (n > kMaxHeaderBytes || n > size - 8)
    fail(path, "header length " + std::to_string(n) + " exceeds the file (" + std::to_string(size) + " bytes)");
  std::string text(n, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(n))) fail(path, "cannot read the header");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    fail(path, std::string("header is not JSON (") + e.what() + ")");
  }
  if (!header.is_object()) fail(path, "header is not a JSON object");

  StHeader out;
  out.path = path;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() != "__metadata__") {
      out.tensors.push_back(parse_entry(it.key(), it.value(), path, 8 + n, size - 8 - n));
      continue;
    }
    if (!it.value().is_object()) fail(path, "__metadata__ is not an object");
    for (auto m = it.value().begin(); m != it.value().end(); ++m) {
      if (!m.value().is_string()) fail(path, "metadata entry " + m.key() + " is not a string");
      out.metadata[m.key()] = m.value().get<std::string>();
    }
  }
  check_no_overlap(out.tensors, path);
  // nlohmann::json iterates an object in key order, so out.tensors is already sorted by name.
  return out;
}

std::vector<uint8_t> read_tensor_bytes(const StHeader& header, const StHeaderEntry& entry) {
  io::note_blocking_io("safetensors tensor read");
  std::ifstream in(header.path, std::ios::binary);
  if (!in) throw SafetensorsError(header.path + ": cannot open the file (missing or unreadable)");
  std::vector<uint8_t> bytes(entry.end - entry.begin);
  in.seekg(static_cast<std::streamoff>(entry.begin));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    throw SafetensorsError(header.path + ": cannot read tensor " + entry.name + " (the file changed or was truncated)");
  return bytes;
}

}  // namespace headroom::core::hf
