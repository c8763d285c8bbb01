#include "core/hf/hf_checkpoint.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <system_error>

#include "core/io/float16.h"

namespace headroom::core::hf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

template <typename T>
std::vector<T> as_array(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

json read_index(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw HfError(path + ": cannot be read (missing or unreadable)");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return json::parse(text);
  } catch (const std::exception& e) {
    throw HfError(path + ": not valid JSON (" + e.what() + ")");
  }
}

// weight_map: tensor name -> shard file name (a plain name inside the checkpoint directory).
std::map<std::string, std::string> weight_map_of(const json& index, const std::string& path) {
  const std::string expected = "expected {\"metadata\": {...}, \"weight_map\": {tensor name: shard file name}}";
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    throw HfError(path + ": key 'weight_map' is missing or not an object; " + expected);
  std::map<std::string, std::string> map;
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    const json& file = it.value();
    if (!file.is_string() || file.get<std::string>().empty() || file.get<std::string>().find('/') != std::string::npos)
      throw HfError(path + ": weight_map entry for tensor " + it.key() +
                    " must be the file name of a shard in the same directory, got " + file.dump());
    map[it.key()] = file.get<std::string>();
  }
  if (map.empty()) throw HfError(path + ": weight_map is empty; " + expected);
  return map;
}

// double -> float as IEEE rounds it (to nearest even, past the largest float to inf): a plain cast of
// an out-of-range double is undefined behaviour by the standard ([conv.double]).
float narrow(double d) {
  const double largest = std::numeric_limits<float>::max();
  const double overflow = largest + std::ldexp(1.0, 103);  // FLT_MAX + half its ulp: the tie goes to inf
  if (std::isfinite(d) && std::fabs(d) >= overflow) return std::copysign(std::numeric_limits<float>::infinity(), d);
  if (std::isfinite(d) && std::fabs(d) > largest) return std::copysign(std::numeric_limits<float>::max(), d);
  return static_cast<float>(d);
}

// Whether `path` exists. std::filesystem throws its own error, naming neither the checkpoint's
// file nor the tensor, when the lookup itself fails (a name past NAME_MAX, a directory without search
// permission): that is an HfError here, `context` first, then what the file system said.
bool exists(const std::string& path, const std::string& context) {
  std::error_code error;
  const bool found = fs::exists(path, error);  // a missing file clears `error`
  if (error) throw HfError(context + " (" + error.message() + ")");
  return found;
}
bool exists(const std::string& path) { return exists(path, path + ": cannot be looked up"); }

[[noreturn]] void no_checkpoint(const std::string& dir) {
  std::string hint;
  if (exists(dir + "/pytorch_model.bin") || exists(dir + "/pytorch_model.bin.index.json"))
    hint =
        " (pytorch_model.bin is a torch pickle Headroom does not read: save the model again with "
        "save_pretrained(dir, safe_serialization=True))";
  throw HfError(dir + ": no " + kSingleFileName + " or " + kIndexFileName + hint);
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

bool is_float_dtype(const std::string& dtype) {
  return dtype == "F32" || dtype == "F16" || dtype == "BF16" || dtype == "F64";
}

std::vector<float> to_f32(const std::vector<uint8_t>& bytes, const std::string& dtype, const std::string& what) {
  if (dtype == "F32") return as_array<float>(bytes);
  std::vector<float> out;
  if (dtype == "F16" || dtype == "BF16") {
    const auto halves = as_array<uint16_t>(bytes);
    out.resize(halves.size());
    auto convert = dtype == "F16" ? f16_to_f32 : bf16_to_f32;
    std::transform(halves.begin(), halves.end(), out.begin(), convert);
    return out;
  }
  if (dtype == "F64") {
    const auto doubles = as_array<double>(bytes);
    out.resize(doubles.size());
    std::transform(doubles.begin(), doubles.end(), out.begin(), narrow);  // the importer computes in float
    return out;
  }
  throw HfError(what + " is " + dtype + "; Headroom converts F32, F16, BF16 and F64 tensors to float");
}

std::vector<std::string> HfCheckpoint::files() const {
  std::vector<std::string> out;
  for (const auto& h : headers_) out.push_back(h.path);
  return out;
}

std::vector<std::string> HfCheckpoint::names() const {
  std::vector<std::string> out;
  for (const auto& t : tensors_) out.push_back(t.name);
  return out;
}

const HfTensorInfo* HfCheckpoint::find(const std::string& name) const {
  auto it = std::lower_bound(tensors_.begin(), tensors_.end(), name,
                             [](const HfTensorInfo& t, const std::string& n) { return t.name < n; });
  return it != tensors_.end() && it->name == name ? &*it : nullptr;
}

const HfTensorInfo& HfCheckpoint::at(const std::string& name) const {
  if (const auto* t = find(name)) return *t;
  throw HfError(source_ + ": no tensor named " + name);
}

std::vector<float> HfCheckpoint::load_f32(const std::string& name) const {
  const HfTensorInfo& info = at(name);
  const size_t i = static_cast<size_t>(&info - tensors_.data());
  const StHeader& header = headers_[header_of_[i]];
  const std::string what = info.file + ": tensor " + name;
  if (!is_float_dtype(info.dtype)) return to_f32({}, info.dtype, what);  // throws naming file, tensor, dtype
  return to_f32(read_tensor_bytes(header, *header.find(name)), info.dtype, what);
}

void HfCheckpoint::add_file(StHeader header) {
  for (const auto& e : header.tensors) {
    tensors_.push_back({e.name, e.dtype, e.shape, header.path});
    header_of_.push_back(headers_.size());
  }
  headers_.push_back(std::move(header));
}

void HfCheckpoint::index_tensors() {
  std::vector<size_t> order(tensors_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tensors_[a].name < tensors_[b].name; });
  std::vector<HfTensorInfo> tensors;
  std::vector<size_t> header_of;
  for (size_t i : order) {
    if (!tensors.empty() && tensors.back().name == tensors_[i].name)
      throw HfError(source_ + ": tensor " + tensors_[i].name + " is stored twice, in " + tensors.back().file +
                    " and in " + tensors_[i].file + "; a checkpoint holds each tensor once");
    tensors.push_back(std::move(tensors_[i]));
    header_of.push_back(header_of_[i]);
  }
  tensors_ = std::move(tensors);
  header_of_ = std::move(header_of);
}

HfCheckpoint open_checkpoint(const std::string& dir) {
  std::error_code ignored;  // exists() has already refused a lookup the file system failed
  if (!exists(dir) || !fs::is_directory(dir, ignored))
    throw HfError(dir + ": not a directory; a Hugging Face checkpoint is a directory with " + kConfigFileName +
                  " and " + kSingleFileName + " (or " + kIndexFileName + " and its shards)");
  HfCheckpoint ckpt;
  ckpt.dir_ = dir;
  const std::string single = dir + "/" + kSingleFileName, index_path = dir + "/" + kIndexFileName;
  if (exists(single)) {
    ckpt.source_ = single;
    ckpt.add_file(read_safetensors_header(single));
    ckpt.index_tensors();
    return ckpt;
  }
  if (!exists(index_path)) no_checkpoint(dir);
  ckpt.source_ = index_path;
  ckpt.sharded_ = true;
  const auto weight_map = weight_map_of(read_index(index_path), index_path);
  std::map<std::string, std::string> first_tensor_of;  // shard -> a tensor the index puts there
  for (const auto& [tensor, file] : weight_map) first_tensor_of.emplace(file, tensor);
  for (const auto& [file, tensor] : first_tensor_of)
    if (!exists(dir + "/" + file,
                index_path + ": tensor " + tensor + " is in shard " + file + ", which cannot be looked up in " + dir))
      throw HfError(index_path + ": tensor " + tensor + " is in shard " + file + ", which is missing from " + dir);
  for (const auto& [file, tensor] : first_tensor_of) ckpt.add_file(read_safetensors_header(dir + "/" + file));
  ckpt.index_tensors();  // a tensor in two shards is an error before the index is checked against them
  for (const auto& [tensor, file] : weight_map) {
    const HfTensorInfo* t = ckpt.find(tensor);
    if (!t || t->file != dir + "/" + file)
      throw HfError(dir + "/" + file + ": has no tensor " + tensor + ", which " + kIndexFileName + " places there");
  }
  return ckpt;
}

}  // namespace headroom::core::hf
