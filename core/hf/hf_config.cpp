#include "core/hf/hf_config.h"

#include <fstream>
#include <iterator>
#include <tuple>

namespace headroom::core::hf {
namespace {

using nlohmann::json;

// transformers' key for each size, per family: messages name the key the file actually uses.
struct Keys {
  const char* hidden;
  const char* layers;
  const char* heads;
  const char* intermediate;
  const char* positions;
  const char* eps;
  const char* activation;
};

const Keys& keys_of(HfFamily family) {
  static const Keys gpt2{
      "n_embd", "n_layer", "n_head", "n_inner", "n_positions", "layer_norm_epsilon", "activation_function"};
  static const Keys bert{"hidden_size",       "num_hidden_layers",       "num_attention_heads",
                         "intermediate_size", "max_position_embeddings", "layer_norm_eps",
                         "hidden_act"};
  static const Keys llama{"hidden_size",       "num_hidden_layers",       "num_attention_heads",
                          "intermediate_size", "max_position_embeddings", "rms_norm_eps",
                          "hidden_act"};
  return family == HfFamily::Gpt2 ? gpt2 : family == HfFamily::Bert ? bert : llama;
}

std::string show(const json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

[[noreturn]] void fail_key(const std::string& path, const std::string& key, const std::string& expected,
                           const json* got) {
  if (!got) throw HfError(path + ": key '" + key + "' is missing; expected " + expected);
  throw HfError(path + ": key '" + key + "' must be " + expected + ", got " + show(*got));
}

const json* value_of(const json& config, const std::string& key) {
  auto it = config.find(key);
  return it == config.end() || it->is_null() ? nullptr : &*it;
}

// The largest size a key may give: token ids are 32-bit, and every size below it keeps the
// products the importer forms (4 x n_embd, hidden x intermediate) inside 64 bits.
constexpr int64_t kMaxSize = 2147483647;

int64_t positive_int(const json& config, const std::string& path, const std::string& key, const std::string& what) {
  const json* v = value_of(config, key);
  const std::string expected = "a positive integer (" + what + ")";
  if (!v || !v->is_number_integer()) fail_key(path, key, expected, v);
  // Parsed JSON holds non-negative integers unsigned (up to 2^64 - 1): compared so, never wrapped.
  const bool too_large =
      v->is_number_unsigned() ? v->get<uint64_t>() > uint64_t(kMaxSize) : v->get<int64_t>() > kMaxSize;
  if (too_large)
    throw HfError(path + ": key '" + key + "' = " + show(*v) + " is too large for " + what +
                  "; expected a positive integer up to " + std::to_string(kMaxSize));
  if (v->get<int64_t>() <= 0) fail_key(path, key, expected, v);
  return v->get<int64_t>();
}

int64_t optional_int(const json& config, const std::string& path, const std::string& key, const std::string& what,
                     int64_t fallback) {
  return value_of(config, key) ? positive_int(config, path, key, what) : fallback;
}

double optional_positive(const json& config, const std::string& path, const std::string& key, double fallback) {
  const json* v = value_of(config, key);
  if (!v) return fallback;
  if (!v->is_number() || v->get<double>() <= 0) fail_key(path, key, "a positive number", v);
  return v->get<double>();
}

std::string optional_string(const json& config, const std::string& path, const std::string& key,
                            const std::string& fallback) {
  const json* v = value_of(config, key);
  if (!v) return fallback;
  if (!v->is_string()) fail_key(path, key, "a string", v);
  return v->get<std::string>();
}

bool optional_bool(const json& config, const std::string& path, const std::string& key, bool fallback) {
  const json* v = value_of(config, key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail_key(path, key, "true or false", v);
  return v->get<bool>();
}

HfFamily family_of(const json& config, const std::string& path) {
  const std::string supported = "\"gpt2\", \"bert\", \"llama\" or \"mistral\" (read as Llama-style)";
  const json* v = value_of(config, "model_type");
  if (!v || !v->is_string()) fail_key(path, "model_type", "one of " + supported, v);
  const std::string type = v->get<std::string>();
  if (type == "gpt2") return HfFamily::Gpt2;
  if (type == "bert") return HfFamily::Bert;
  if (type == "llama" || type == "mistral") return HfFamily::Llama;
  throw HfError(path + ": model_type \"" + type + "\" is not supported; Headroom reads " + supported);
}

// Switches that change the model's arithmetic or add tensors the importer does not build yet: a
// clear refusal instead of a model that silently computes something else.
void refuse_unsupported(const json& config, const std::string& path, HfFamily family) {
  auto refuse_if = [&](bool bad, const std::string& key, const std::string& why) {
    if (bad)
      throw HfError(path + ": " + key + " = " + show(config.at(key)) + " is not supported yet (" + why +
                    "); Headroom reads checkpoints without it");
  };
  if (family == HfFamily::Llama) {
    refuse_if(value_of(config, "rope_scaling") != nullptr, "rope_scaling", "scaled rotary positions");
    refuse_if(optional_bool(config, path, "attention_bias", false), "attention_bias", "biases on q/k/v/o");
    refuse_if(optional_bool(config, path, "mlp_bias", false), "mlp_bias", "biases on the MLP projections");
  } else if (family == HfFamily::Gpt2) {
    refuse_if(optional_bool(config, path, "scale_attn_by_inverse_layer_idx", false), "scale_attn_by_inverse_layer_idx",
              "logits scaled by 1 / layer index");
    refuse_if(!optional_bool(config, path, "scale_attn_weights", true), "scale_attn_weights",
              "logits without the 1 / sqrt(head size) scale");
  } else {
    refuse_if(optional_string(config, path, "position_embedding_type", "absolute") != "absolute",
              "position_embedding_type", "relative position embeddings");
  }
}

void parse_sizes(const json& c, const std::string& path, HfConfig& out) {
  const Keys& k = keys_of(out.family);
  const std::string family = family_name(out.family);
  out.vocab_size = positive_int(c, path, "vocab_size", family + "'s vocabulary size");
  out.hidden_size = positive_int(c, path, k.hidden, family + "'s hidden size");
  out.num_layers = positive_int(c, path, k.layers, "the number of layers");
  out.num_heads = positive_int(c, path, k.heads, "the number of attention heads");
  out.num_kv_heads = out.num_heads;
  if (out.family == HfFamily::Gpt2) {
    out.intermediate_size = optional_int(c, path, k.intermediate, "the MLP width", 4 * out.hidden_size);
    out.max_positions = positive_int(c, path, k.positions, "the number of learned positions");
    return;
  }
  out.intermediate_size = positive_int(c, path, k.intermediate, "the MLP width");
  if (out.family == HfFamily::Bert) {
    out.max_positions = positive_int(c, path, k.positions, "the number of learned positions");
    out.type_vocab_size = optional_int(c, path, "type_vocab_size", "the number of token types", 2);
    return;
  }
  const bool mistral = out.model_type == "mistral";  // LlamaConfig / MistralConfig defaults
  out.max_positions = optional_int(c, path, k.positions, "the longest sequence", mistral ? 4096 * 32 : 2048);
  out.num_kv_heads = optional_int(c, path, "num_key_value_heads", "grouped k/v heads", out.num_heads);
  out.head_dim_given = value_of(c, "head_dim") != nullptr;
  out.head_dim = optional_int(c, path, "head_dim", "the size of one head", 0);
  out.rope_theta = optional_positive(c, path, "rope_theta", 10000.0);
  // MistralConfig's default window is 4096 tokens; only an explicit null means none.
  if (mistral)
    out.sliding_window =
        c.contains("sliding_window") ? optional_int(c, path, "sliding_window", "the attention window", 0) : 4096;
}

void parse_options(const json& c, const std::string& path, HfConfig& out) {
  const Keys& k = keys_of(out.family);
  const double eps = out.family == HfFamily::Gpt2 ? 1e-5 : out.family == HfFamily::Bert ? 1e-12 : 1e-6;
  out.layer_norm_eps = optional_positive(c, path, k.eps, eps);
  const char* act = out.family == HfFamily::Gpt2 ? "gelu_new" : out.family == HfFamily::Bert ? "gelu" : "silu";
  out.activation = optional_string(c, path, k.activation, act);
  out.tie_word_embeddings = optional_bool(c, path, "tie_word_embeddings", out.family != HfFamily::Llama);
  // transformers >= 4.56 writes "dtype" where older versions wrote "torch_dtype".
  out.torch_dtype = optional_string(c, path, "torch_dtype", optional_string(c, path, "dtype", ""));
}

}  // namespace

const char* family_name(HfFamily family) {
  switch (family) {
    case HfFamily::Gpt2: return "GPT-2";
    case HfFamily::Bert: return "BERT";
    case HfFamily::Llama: return "Llama";
  }
  return "?";
}

bool operator==(const HfConfig& a, const HfConfig& b) {
  auto tie = [](const HfConfig& c) {
    return std::tie(c.family, c.model_type, c.vocab_size, c.hidden_size, c.num_layers, c.num_heads, c.num_kv_heads,
                    c.head_dim, c.intermediate_size, c.max_positions, c.layer_norm_eps, c.activation,
                    c.tie_word_embeddings, c.torch_dtype, c.rope_theta, c.sliding_window, c.type_vocab_size,
                    c.head_dim_given);
  };
  return tie(a) == tie(b);
}

void check_hf_config(const HfConfig& c, const std::string& path) {
  const Keys& k = keys_of(c.family);
  const std::string kv_key = c.family == HfFamily::Llama ? "num_key_value_heads" : k.heads;
  if (c.num_heads <= 0 || c.num_kv_heads <= 0 || c.hidden_size <= 0)
    throw HfError(path + ": " + k.hidden + ", " + k.heads + " and " + kv_key + " must be positive");
  if (!c.head_dim_given && c.hidden_size % c.num_heads != 0)
    throw HfError(path + ": " + k.hidden + " = " + std::to_string(c.hidden_size) + " is not divisible by " + k.heads +
                  " = " + std::to_string(c.num_heads) + "; each head gets " + k.hidden + " / " + k.heads +
                  " dimensions (or give head_dim)");
  if (c.num_heads % c.num_kv_heads != 0)
    throw HfError(path + ": " + k.heads + " = " + std::to_string(c.num_heads) + " is not a multiple of " + kv_key +
                  " = " + std::to_string(c.num_kv_heads) + "; grouped-query attention shares each k/v head among " +
                  k.heads + " / " + kv_key + " query heads");
}

HfConfig parse_hf_config(const json& config, const std::string& path) {
  if (!config.is_object()) throw HfError(path + ": expected a JSON object of settings, got " + show(config));
  HfConfig out;
  out.family = family_of(config, path);
  out.model_type = config["model_type"].get<std::string>();
  refuse_unsupported(config, path, out.family);
  parse_sizes(config, path, out);
  parse_options(config, path, out);
  if (!out.head_dim_given) out.head_dim = out.hidden_size / out.num_heads;
  check_hf_config(out, path);
  return out;
}

HfConfig read_hf_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw HfError(path + ": cannot be read (missing or unreadable); a Hugging Face checkpoint has one");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json config;
  try {
    config = json::parse(text);
  } catch (const std::exception& e) {
    throw HfError(path + ": not valid JSON (" + e.what() + ")");
  }
  return parse_hf_config(config, path);
}

json hf_config_json(const HfConfig& c) {
  const Keys& k = keys_of(c.family);
  json j = {{"model_type", c.model_type}, {"vocab_size", c.vocab_size}, {k.hidden, c.hidden_size},
            {k.layers, c.num_layers},     {k.heads, c.num_heads},       {k.positions, c.max_positions},
            {k.eps, c.layer_norm_eps},    {k.activation, c.activation}, {"tie_word_embeddings", c.tie_word_embeddings}};
  if (!c.torch_dtype.empty()) j["torch_dtype"] = c.torch_dtype;
  if (c.family == HfFamily::Gpt2) {
    j["architectures"] = {"GPT2LMHeadModel"};
    j["n_ctx"] = c.max_positions;  // older GPT-2 configs carry both
    j[k.intermediate] = c.intermediate_size == 4 * c.hidden_size ? json(nullptr) : json(c.intermediate_size);
  } else if (c.family == HfFamily::Bert) {
    j["architectures"] = {"BertModel"};
    j[k.intermediate] = c.intermediate_size;
    j["type_vocab_size"] = c.type_vocab_size;
    j["position_embedding_type"] = "absolute";
  } else {
    j["architectures"] = {c.model_type == "mistral" ? "MistralForCausalLM" : "LlamaForCausalLM"};
    j[k.intermediate] = c.intermediate_size;
    j["num_key_value_heads"] = c.num_kv_heads;
    j["rope_theta"] = c.rope_theta;
    j["rope_scaling"] = nullptr;
    if (c.head_dim_given) j["head_dim"] = c.head_dim;
    if (c.model_type == "mistral") j["sliding_window"] = c.sliding_window ? json(c.sliding_window) : json(nullptr);
  }
  return j;
}

}  // namespace headroom::core::hf
