// A Hugging Face checkpoint's config.json as plain data (issue 16): the fields the importer needs
// to build a GPT-2, BERT or Llama-style model, with transformers' key names and the defaults of
// its config classes (GPT2Config, BertConfig, LlamaConfig) where config.json may omit a key. The
// structural sizes (vocabulary, width, depth, heads, positions, MLP width) are required: a default
// width would silently build the wrong model. Every error is one line naming the file, the key and
// what was expected.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace headroom::core::hf {

struct HfError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Llama also covers model_type "mistral": the same tensors and blocks (RMSNorm, rotary q/k,
// grouped k/v heads, SwiGLU MLP); what differs is its sliding window, kept in HfConfig below.
enum class HfFamily { Gpt2, Bert, Llama };

const char* family_name(HfFamily family);  // "GPT-2", "BERT", "Llama"

struct HfConfig {
  HfFamily family = HfFamily::Gpt2;
  std::string model_type;  // as written: "gpt2", "bert", "llama", "mistral"

  int64_t vocab_size = 0;
  int64_t hidden_size = 0;          // gpt2: n_embd; others: hidden_size
  int64_t num_layers = 0;           // n_layer / num_hidden_layers
  int64_t num_heads = 0;            // n_head / num_attention_heads
  int64_t num_kv_heads = 0;         // Llama: num_key_value_heads (default num_heads); others = num_heads
  int64_t head_dim = 0;             // Llama: head_dim when given; else hidden_size / num_heads
  int64_t intermediate_size = 0;    // gpt2: n_inner or 4 * n_embd; others: intermediate_size
  int64_t max_positions = 0;        // n_positions / max_position_embeddings
  double layer_norm_eps = 0;        // layer_norm_epsilon / layer_norm_eps / rms_norm_eps
  std::string activation;           // activation_function / hidden_act
  bool tie_word_embeddings = true;  // GPT-2 and BERT default true, Llama false
  std::string torch_dtype;          // "float32", "float16", "bfloat16", ... ("" when absent)

  // Llama-style only.
  double rope_theta = 10000.0;
  int64_t sliding_window = 0;  // mistral: attention sees the last sliding_window tokens; 0 = none

  // BERT only.
  int64_t type_vocab_size = 2;

  bool head_dim_given = false;  // head_dim came from config.json (it need not be hidden / heads)

  // What the family's attention is: GPT-2 and Llama-style decoders are causal, BERT sees both ways;
  // Llama-style heads rotate queries and keys by position (RoPE).
  bool causal() const { return family != HfFamily::Bert; }
  bool rotary() const { return family == HfFamily::Llama; }

  friend bool operator==(const HfConfig& a, const HfConfig& b);
  friend bool operator!=(const HfConfig& a, const HfConfig& b) { return !(a == b); }
};

// Parses a config.json document; `path` names it in messages. Throws HfError.
HfConfig parse_hf_config(const nlohmann::json& config, const std::string& path);
// Reads and parses `path` (a config.json file). Throws HfError.
HfConfig read_hf_config(const std::string& path);

// config.json for `config` with transformers' keys for its family (what write_tiny_checkpoint
// writes); parse_hf_config of it gives `config` back.
nlohmann::json hf_config_json(const HfConfig& config);

// Checks the sizes agree (hidden % heads, heads % kv heads, all positive); throws HfError naming
// `path` and the keys. parse_hf_config calls it; a hand-built config can too.
void check_hf_config(const HfConfig& config, const std::string& path);

}  // namespace headroom::core::hf
