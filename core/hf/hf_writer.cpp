#include "core/hf/hf_writer.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/io/float16.h"
#include "core/io/atomic_file.h"
#include "core/io/safetensors.h"

namespace headroom::core::hf {
namespace {

namespace fs = std::filesystem;

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

// splitmix64: fully specified, so the values are the same with every standard library.
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

float uniform(uint64_t& state) { return static_cast<float>((next(state) >> 40) * (2.0 / (1 << 24)) - 1.0); }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

float rounded(float v, const std::string& dtype) {
  if (dtype == "F16") return f16_to_f32(f32_to_f16(v));
  if (dtype == "BF16") return bf16_to_f32(f32_to_bf16(v));
  return v;
}

StTensor float_tensor(std::string name, std::vector<int64_t> shape, const std::vector<float>& values,
                      const std::string& dtype) {
  if (dtype == "F32") return make_f32(std::move(name), std::move(shape), values.data());
  StTensor t{std::move(name), dtype, std::move(shape), std::vector<uint8_t>(values.size() * 2)};
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t bits = dtype == "F16" ? f32_to_f16(values[i]) : f32_to_bf16(values[i]);
    std::memcpy(t.bytes.data() + 2 * i, &bits, 2);
  }
  return t;
}

// The name `e` is stored under: the usual prefix swapped for `prefix`, old LayerNorm spellings.
std::string stored_name(const ExpectedTensor& e, HfFamily family, const std::string& prefix, bool legacy) {
  std::string name = e.prefixed ? prefix + e.name.substr(name_prefixes(family).front().size()) : e.name;
  if (legacy && family == HfFamily::Bert) {
    if (ends_with(name, "LayerNorm.weight")) name.replace(name.size() - 6, 6, "gamma");
    if (ends_with(name, "LayerNorm.bias")) name.replace(name.size() - 4, 4, "beta");
  }
  return name;
}

void add_buffers(const HfConfig& c, const std::string& prefix, const std::string& dtype, std::vector<StTensor>& out) {
  if (c.family == HfFamily::Bert) {
    StTensor ids{prefix + "embeddings.position_ids", "I64", {1, c.max_positions}, {}};
    for (int64_t i = 0; i < c.max_positions; ++i)
      ids.bytes.insert(ids.bytes.end(), reinterpret_cast<const uint8_t*>(&i), reinterpret_cast<const uint8_t*>(&i) + 8);
    out.push_back(std::move(ids));
    return;
  }
  for (int64_t layer = 0; layer < c.num_layers; ++layer) {
    const std::string i = std::to_string(layer);
    if (c.family == HfFamily::Gpt2) {
      const int64_t n = c.max_positions;
      std::vector<float> mask(static_cast<size_t>(n * n));
      for (int64_t r = 0; r < n; ++r)
        for (int64_t col = 0; col <= r; ++col) mask[static_cast<size_t>(r * n + col)] = 1.0f;
      out.push_back(float_tensor(prefix + "h." + i + ".attn.bias", {1, 1, n, n}, mask, dtype));
      out.push_back(float_tensor(prefix + "h." + i + ".attn.masked_bias", {}, {-1e4f}, dtype));
    } else {
      std::vector<float> inv_freq(static_cast<size_t>(c.head_dim / 2));
      for (size_t j = 0; j < inv_freq.size(); ++j)
        inv_freq[j] = static_cast<float>(std::pow(c.rope_theta, -2.0 * double(j) / double(c.head_dim)));
      out.push_back(float_tensor(prefix + "layers." + i + ".self_attn.rotary_emb.inv_freq",
                                 {static_cast<int64_t>(inv_freq.size())}, inv_freq, "F32"));
    }
  }
}

std::string shard_name(int index, int count) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", index, count);
  return name;
}

void write_file(const std::string& path, const std::string& text) {
  std::string error;
  if (!write_file_atomically(path, text, &error)) throw HfError(error);
}

void write_shards(const std::string& dir, const std::vector<StTensor>& tensors, int shards) {
  const StFile empty{{}, {{"format", "pt"}}};  // what transformers' save_pretrained puts there
  if (shards == 1) {
    StFile file = empty;
    file.tensors = tensors;
    write_safetensors_file(dir + "/" + kSingleFileName, file);
    return;
  }
  nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
  uint64_t total = 0;
  for (int k = 0; k < shards; ++k) {
    StFile file = empty;
    const size_t begin = tensors.size() * k / shards, end = tensors.size() * (k + 1) / shards;
    file.tensors.assign(tensors.begin() + begin, tensors.begin() + end);
    const std::string name = shard_name(k + 1, shards);
    for (const auto& t : file.tensors) index["weight_map"][t.name] = name, total += t.bytes.size();
    write_safetensors_file(dir + "/" + name, file);
  }
  index["metadata"]["total_size"] = total;
  write_file(dir + "/" + kIndexFileName, index.dump(2));
}

}  // namespace

std::vector<float> tiny_tensor_values(const ExpectedTensor& tensor, const HfConfig& config, uint64_t seed,
                                      const std::string& dtype) {
  std::string key = tensor.prefixed ? tensor.name.substr(name_prefixes(config.family).front().size()) : tensor.name;
  // A tied head is the embedding itself.
  if (key == "lm_head.weight" && config.tie_word_embeddings)
    key = config.family == HfFamily::Gpt2 ? "wte.weight" : "embed_tokens.weight";
  uint64_t state = seed ^ fnv1a(key);
  int64_t numel = 1;
  for (auto s : tensor.shape) numel *= s;
  const bool norm_scale = tensor.shape.size() == 1 && ends_with(tensor.role, ".weight");
  std::vector<float> values(static_cast<size_t>(numel));
  for (auto& v : values) v = rounded(norm_scale ? 1.0f + 0.1f * uniform(state) : 0.2f * uniform(state), dtype);
  return values;
}

void write_tiny_checkpoint(const std::string& dir, const HfConfig& config, uint64_t seed, const WriteOptions& options) {
  if (options.dtype != "F32" && options.dtype != "F16" && options.dtype != "BF16")
    throw HfError("write_tiny_checkpoint: dtype " + options.dtype + " is not one of F32, F16, BF16");
  check_hf_config(config, dir + "/" + kConfigFileName);
  const std::string prefix = name_prefixes(config.family)[options.alternate_prefix ? 1 : 0];
  std::vector<StTensor> tensors;
  for (const auto& e : expected_tensors(config)) {
    if (e.optional && e.role == "lm_head.weight" && !options.write_tied_head) continue;
    tensors.push_back(float_tensor(stored_name(e, config.family, prefix, options.legacy_layer_norm_names), e.shape,
                                   tiny_tensor_values(e, config, seed, options.dtype), options.dtype));
  }
  if (options.buffers) add_buffers(config, prefix, options.dtype, tensors);
  if (options.shards < 1 || static_cast<size_t>(options.shards) > tensors.size())
    throw HfError("write_tiny_checkpoint: shards = " + std::to_string(options.shards) + ", expected 1 to " +
                  std::to_string(tensors.size()) + " (the number of tensors)");
  fs::create_directories(dir);
  // A file left from an earlier write would be read instead of (or beside) the new one.
  fs::remove(dir + "/" + kSingleFileName);
  fs::remove(dir + "/" + kIndexFileName);
  write_file(dir + "/" + kConfigFileName, hf_config_json(config).dump(2));
  write_shards(dir, tensors, options.shards);
}

}  // namespace headroom::core::hf
