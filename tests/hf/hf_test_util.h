// Helpers for the headroom_hf tests: a temporary directory, tiny configs of each family, safetensors
// files edited in place, and error checks.
#pragma once

#include <gtest/gtest.h>

#include "tests/common/scratch.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/hf/hf_config.h"
#include "core/io/safetensors.h"

namespace headroom::core::hf::testing {

// A scratch model directory, removed with the object.
class TempDir : public headroom::testing::ScratchDir {
 public:
  TempDir() : ScratchDir("hf") {}
};

// config.json documents of tiny models, one per family (HF's keys; the rest left to defaults).
inline nlohmann::json gpt2_json() {
  return {{"model_type", "gpt2"}, {"vocab_size", 37},  {"n_embd", 16},      {"n_layer", 2},
          {"n_head", 4},          {"n_positions", 12}, {"n_inner", nullptr}};
}
inline nlohmann::json bert_json() {
  return {{"model_type", "bert"},         {"vocab_size", 41},         {"hidden_size", 12},
          {"num_hidden_layers", 2},       {"num_attention_heads", 3}, {"intermediate_size", 20},
          {"max_position_embeddings", 10}};
}
inline nlohmann::json llama_json() {
  return {{"model_type", "llama"},    {"vocab_size", 33},
          {"hidden_size", 16},        {"num_hidden_layers", 2},
          {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"intermediate_size", 24},  {"max_position_embeddings", 64},
          {"rope_scaling", nullptr},  {"torch_dtype", "bfloat16"}};
}

inline HfConfig config_of(const nlohmann::json& j) { return parse_hf_config(j, "config.json"); }

// Reads a safetensors file, lets `edit` change it, and writes it back.
inline void edit_safetensors(const std::string& path, const std::function<void(StFile&)>& edit) {
  StFile file = read_safetensors_file(path);
  edit(file);
  write_safetensors_file(path, file);
}

inline void remove_tensor(StFile& file, const std::string& name) {
  auto& t = file.tensors;
  t.erase(std::remove_if(t.begin(), t.end(), [&](const StTensor& x) { return x.name == name; }), t.end());
}

inline void expect_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  headroom::testing::expect_one_line_error(f, parts);
}

}  // namespace headroom::core::hf::testing
