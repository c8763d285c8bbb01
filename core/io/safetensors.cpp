#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/io/atomic_file.h"
#include "core/io/blocking_io.h"
#include "core/io/crc32.h"
#include "core/io/float16.h"

namespace headroom::core {
namespace {

// A header larger than this is not a real checkpoint; refuse rather than allocate it.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw SafetensorsError(source + ": not a valid safetensors file: " + what);
}

std::string hex32(uint32_t v) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", v);
  return text;
}

}  // namespace

int dtype_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "U8" || dtype == "I8" || dtype == "BOOL") return 1;
  return 0;
}

int64_t StTensor::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

std::vector<float> StTensor::as_f32() const {
  if (dtype == "F16") {  // widened exactly: every half is a float
    std::vector<float> out(bytes.size() / 2);
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = f16_to_f32(static_cast<uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
    return out;
  }
  if (dtype != "F32") throw SafetensorsError("tensor " + name + " is " + dtype + ", expected F32 or F16");
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

std::vector<double> StTensor::as_f64() const {
  if (dtype != "F64") throw SafetensorsError("tensor " + name + " is " + dtype + ", expected F64");
  std::vector<double> out(bytes.size() / 8);
  std::memcpy(out.data(), bytes.data(), out.size() * 8);
  return out;
}

const StTensor* StFile::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const StTensor& StFile::at(const std::string& name) const {
  if (const auto* t = find(name)) return *t;
  throw SafetensorsError("no tensor named " + name + " in the safetensors file");
}

StTensor make_f32(std::string name, std::vector<int64_t> shape, const float* data) {
  StTensor t{std::move(name), "F32", std::move(shape), {}};
  t.bytes.resize(static_cast<size_t>(t.numel()) * 4);
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), data, t.bytes.size());
  return t;
}

std::vector<uint8_t> encode_safetensors(const StFile& file) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  uint32_t crc = 0;
  for (const auto& t : file.tensors) crc = io::crc32(t.bytes.data(), t.bytes.size(), crc);
  auto metadata = file.metadata;
  metadata[kDataCrc32Key] = hex32(crc);
  header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& t : file.tensors) {
    if (dtype_size(t.dtype) == 0) throw SafetensorsError("tensor " + t.name + ": unknown dtype " + t.dtype);
    if (static_cast<int64_t>(t.bytes.size()) != t.numel() * dtype_size(t.dtype))
      throw SafetensorsError("tensor " + t.name + ": " + std::to_string(t.bytes.size()) +
                             " bytes do not match its shape and dtype");
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string h = header.dump();
  while ((8 + h.size()) % 8) h.push_back(' ');  // the format pads the header with spaces to 8 bytes
  std::vector<uint8_t> out(8 + h.size() + offset);
  const uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, h.data(), h.size());
  uint8_t* p = out.data() + 8 + h.size();
  for (const auto& t : file.tensors) {
    if (!t.bytes.empty()) std::memcpy(p, t.bytes.data(), t.bytes.size());
    p += t.bytes.size();
  }
  return out;
}

StFile decode_safetensors(const uint8_t* data, size_t size, const std::string& source) {
  io::note_blocking_io("safetensors decode");
  if (size < 8) fail(source, "shorter than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(data[i]) << (8 * i);
  if (n > kMaxHeaderBytes || n > size - 8)
    fail(source, "header length " + std::to_string(n) + " exceeds the file (" + std::to_string(size) + " bytes)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(data + 8, data + 8 + n);
  } catch (const std::exception& e) {
    fail(source, std::string("header is not JSON (") + e.what() + ")");
  }
  if (!header.is_object()) fail(source, "header is not a JSON object");

  const uint64_t data_size = size - 8 - n;
  const uint8_t* base = data + 8 + n;
  StFile file;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it.value().is_object()) fail(source, "__metadata__ is not an object");
      for (auto m = it.value().begin(); m != it.value().end(); ++m) {
        if (!m.value().is_string()) fail(source, "metadata entry " + m.key() + " is not a string");
        file.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const auto& e = it.value();
    const std::string where = "tensor " + it.key() + ": ";
    if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
      fail(source, where + "needs dtype, shape and data_offsets");
    if (!e["dtype"].is_string() || dtype_size(e["dtype"].get<std::string>()) == 0)
      fail(source, where + "unknown dtype " + e["dtype"].dump());
    StTensor t;
    t.name = it.key();
    t.dtype = e["dtype"].get<std::string>();
    if (!e["shape"].is_array()) fail(source, where + "shape is not a list");
    int64_t numel = 1;
    for (const auto& s : e["shape"]) {
      if (!s.is_number_integer() || s.get<int64_t>() < 0 || s.get<int64_t>() > (int64_t(1) << 40))
        fail(source, where + "bad dimension " + s.dump());
      t.shape.push_back(s.get<int64_t>());
      numel *= t.shape.back();
      if (numel > (int64_t(1) << 40)) fail(source, where + "too many elements");
    }
    const auto& off = e["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      fail(source, where + "data_offsets must be two non-negative integers");
    const uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
    if (b > en || en > data_size) fail(source, where + "data_offsets out of the data section");
    if (en - b != uint64_t(numel) * dtype_size(t.dtype))
      fail(source, where + std::to_string(en - b) + " bytes do not match shape x dtype");
    t.bytes.assign(base + b, base + en);
    ranges.emplace_back(b, en);
    file.tensors.push_back(std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) fail(source, "two tensors overlap in the data section");
  if (auto stored = file.metadata.find(kDataCrc32Key); stored != file.metadata.end()) {
    // Over the whole data section, as written: a flipped bit anywhere in it is damage.
    const std::string computed = hex32(io::crc32(base, data_size));
    if (computed != stored->second)
      throw SafetensorsError(source + ": the tensor data is damaged (its CRC-32 is " + computed + ", the file says " +
                             stored->second + ")");
    file.metadata.erase(stored);
  }
  // Keep file order (the JSON object is sorted by name; order by offset instead).
  std::stable_sort(file.tensors.begin(), file.tensors.end(), [&](const StTensor& a, const StTensor& b) {
    return header[a.name]["data_offsets"][0].get<uint64_t>() < header[b.name]["data_offsets"][0].get<uint64_t>();
  });
  return file;
}

void write_safetensors_file(const std::string& path, const StFile& file) {
  const auto bytes = encode_safetensors(file);
  std::string error;
  if (!write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), &error))
    throw SafetensorsError(error);
}

StFile read_safetensors_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SafetensorsError(path + ": cannot open the file (missing or unreadable)");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode_safetensors(bytes.data(), bytes.size(), path);
}

}  // namespace headroom::core
