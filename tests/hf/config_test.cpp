// config.json: each family's keys and transformers' defaults, mistral as Llama-style, and every
// error one line naming the file and the key.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/hf/hf_config.h"
#include "tests/hf/hf_test_util.h"

namespace headroom::core::hf {
namespace {

using nlohmann::json;
using testing::config_of;
using testing::expect_error;

TEST(HfConfig, Gpt2KeysAndDefaults) {
  const HfConfig c = config_of(testing::gpt2_json());
  EXPECT_EQ(c.family, HfFamily::Gpt2);
  EXPECT_EQ(c.vocab_size, 37);
  EXPECT_EQ(c.hidden_size, 16);
  EXPECT_EQ(c.num_layers, 2);
  EXPECT_EQ(c.num_heads, 4);
  EXPECT_EQ(c.num_kv_heads, 4);
  EXPECT_EQ(c.head_dim, 4);
  EXPECT_EQ(c.intermediate_size, 64);  // n_inner null: 4 * n_embd
  EXPECT_EQ(c.max_positions, 12);
  EXPECT_EQ(c.layer_norm_eps, 1e-5);
  EXPECT_EQ(c.activation, "gelu_new");
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_EQ(c.torch_dtype, "");
  json j = testing::gpt2_json();
  j["n_inner"] = 40;
  j["layer_norm_epsilon"] = 1e-6;
  j["activation_function"] = "relu";
  j["torch_dtype"] = "float32";
  const HfConfig d = config_of(j);
  EXPECT_EQ(d.intermediate_size, 40);
  EXPECT_EQ(d.layer_norm_eps, 1e-6);
  EXPECT_EQ(d.activation, "relu");
  EXPECT_EQ(d.torch_dtype, "float32");
}

TEST(HfConfig, BertKeysAndDefaults) {
  const HfConfig c = config_of(testing::bert_json());
  EXPECT_EQ(c.family, HfFamily::Bert);
  EXPECT_EQ(c.hidden_size, 12);
  EXPECT_EQ(c.intermediate_size, 20);
  EXPECT_EQ(c.max_positions, 10);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.activation, "gelu");
  EXPECT_TRUE(c.tie_word_embeddings);
}

TEST(HfConfig, LlamaKeysAndDefaults) {
  const HfConfig c = config_of(testing::llama_json());
  EXPECT_EQ(c.family, HfFamily::Llama);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 4);
  EXPECT_FALSE(c.head_dim_given);
  EXPECT_EQ(c.rope_theta, 10000.0);
  EXPECT_EQ(c.layer_norm_eps, 1e-6);
  EXPECT_EQ(c.activation, "silu");
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_EQ(c.torch_dtype, "bfloat16");
  json j = testing::llama_json();
  j.erase("num_key_value_heads");
  j.erase("max_position_embeddings");
  j.erase("torch_dtype");
  j["dtype"] = "float16";  // transformers >= 4.56
  j["rope_theta"] = 500000.0;
  j["tie_word_embeddings"] = true;
  j["rms_norm_eps"] = 1e-5;
  const HfConfig d = config_of(j);
  EXPECT_EQ(d.num_kv_heads, 4);  // default: one k/v head per query head
  EXPECT_EQ(d.max_positions, 2048);
  EXPECT_EQ(d.torch_dtype, "float16");
  EXPECT_EQ(d.rope_theta, 500000.0);
  EXPECT_TRUE(d.tie_word_embeddings);
  EXPECT_EQ(d.layer_norm_eps, 1e-5);
}

TEST(HfConfig, HeadDimNeedNotDivideHidden) {
  json j = testing::llama_json();
  j["hidden_size"] = 18;  // 18 / 4 heads is not whole, but head_dim is given
  j["head_dim"] = 6;
  const HfConfig c = config_of(j);
  EXPECT_TRUE(c.head_dim_given);
  EXPECT_EQ(c.head_dim, 6);
}

TEST(HfConfig, MistralIsLlamaStyle) {
  json j = testing::llama_json();
  j["model_type"] = "mistral";
  j["sliding_window"] = 4096;
  const HfConfig c = config_of(j);
  EXPECT_EQ(c.family, HfFamily::Llama);
  EXPECT_EQ(c.model_type, "mistral");
  EXPECT_EQ(c.sliding_window, 4096);
  j["sliding_window"] = nullptr;  // null: no window
  EXPECT_EQ(config_of(j).sliding_window, 0);
  j.erase("sliding_window");  // absent: MistralConfig's default
  EXPECT_EQ(config_of(j).sliding_window, 4096);
}

TEST(HfConfig, JsonRoundTripsEveryFamily) {
  json mistral = testing::llama_json();
  mistral["model_type"] = "mistral";
  mistral["sliding_window"] = 32;
  mistral["head_dim"] = 8;
  json gpt2 = testing::gpt2_json();
  gpt2["n_inner"] = 40;
  for (const json& j : {testing::gpt2_json(), gpt2, testing::bert_json(), testing::llama_json(), mistral}) {
    const HfConfig c = config_of(j);
    EXPECT_EQ(config_of(hf_config_json(c)), c) << j.dump();
  }
}

TEST(HfConfigErrors, ModelType) {
  json j = testing::gpt2_json();
  j.erase("model_type");
  expect_error([&] { config_of(j); }, {"config.json", "'model_type' is missing", "\"gpt2\", \"bert\", \"llama\""});
  j["model_type"] = "t5";
  expect_error([&] { config_of(j); }, {"config.json", "model_type \"t5\" is not supported", "\"mistral\""});
  j["model_type"] = 2;
  expect_error([&] { config_of(j); }, {"config.json", "'model_type' must be one of", "got 2"});
}

TEST(HfConfigErrors, MissingRequiredKeyNamesIt) {
  const std::vector<std::pair<json, std::string>> cases = {{testing::gpt2_json(), "n_embd"},
                                                           {testing::gpt2_json(), "vocab_size"},
                                                           {testing::gpt2_json(), "n_positions"},
                                                           {testing::gpt2_json(), "n_layer"},
                                                           {testing::bert_json(), "intermediate_size"},
                                                           {testing::bert_json(), "num_attention_heads"},
                                                           {testing::llama_json(), "hidden_size"},
                                                           {testing::llama_json(), "num_hidden_layers"}};
  for (auto [j, key] : cases) {
    j.erase(key);
    expect_error([&] { config_of(j); }, {"config.json: key '" + key + "' is missing", "expected a positive integer"});
  }
}

TEST(HfConfigErrors, WrongTypeNamesKeyAndValue) {
  json j = testing::gpt2_json();
  j["n_head"] = "12";
  expect_error([&] { config_of(j); }, {"config.json: key 'n_head' must be a positive integer", "got \"12\""});
  j = testing::gpt2_json();
  j["n_embd"] = 0;
  expect_error([&] { config_of(j); }, {"'n_embd' must be a positive integer", "got 0"});
  j = testing::bert_json();
  j["layer_norm_eps"] = "1e-12";
  expect_error([&] { config_of(j); }, {"'layer_norm_eps' must be a positive number", "got \"1e-12\""});
  j = testing::llama_json();
  j["tie_word_embeddings"] = 1;
  expect_error([&] { config_of(j); }, {"'tie_word_embeddings' must be true or false", "got 1"});
  j = testing::llama_json();
  j["hidden_act"] = 3;
  expect_error([&] { config_of(j); }, {"'hidden_act' must be a string"});
  j = testing::llama_json();
  j["num_key_value_heads"] = 2.5;
  expect_error([&] { config_of(j); }, {"'num_key_value_heads' must be a positive integer", "got 2.5"});
}

TEST(HfConfigErrors, SizesPastAnyModelAreRefusedNotWrapped) {
  // GPT-2's MLP width defaults to 4 x n_embd: with n_embd = 2^62 that product overflowed int64
  // (undefined behaviour, found reading the fuzz target's code), and 2^64 - 1 read as int64 is -1.
  json j = testing::gpt2_json();
  j["n_embd"] = int64_t{1} << 62;
  expect_error([&] { config_of(j); },
               {"config.json: key 'n_embd' = 4611686018427387904 is too large for GPT-2's hidden size",
                "expected a positive integer up to 2147483647"});
  j = testing::gpt2_json();
  j["vocab_size"] = std::numeric_limits<uint64_t>::max();
  expect_error([&] { config_of(j); }, {"key 'vocab_size' = 18446744073709551615 is too large"});
  j = testing::llama_json();
  j["num_key_value_heads"] = int64_t{2147483648};
  expect_error([&] { config_of(j); }, {"key 'num_key_value_heads' = 2147483648 is too large for grouped k/v heads"});
  j = testing::gpt2_json();
  j["n_positions"] = int64_t{2147483647};  // the largest accepted
  EXPECT_EQ(config_of(j).max_positions, 2147483647);
  j["n_positions"] = -5;
  expect_error([&] { config_of(j); }, {"'n_positions' must be a positive integer", "got -5"});
}

TEST(HfConfigErrors, RopeScalingRefused) {
  json j = testing::llama_json();
  j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}};
  expect_error([&] { config_of(j); }, {"config.json: rope_scaling = ", "llama3", "not supported yet"});
}

TEST(HfConfigErrors, UnsupportedSwitchesRefused) {
  json j = testing::llama_json();
  j["attention_bias"] = true;
  expect_error([&] { config_of(j); }, {"config.json: attention_bias = true is not supported yet"});
  j = testing::gpt2_json();
  j["scale_attn_by_inverse_layer_idx"] = true;
  expect_error([&] { config_of(j); }, {"scale_attn_by_inverse_layer_idx = true is not supported yet"});
  j = testing::bert_json();
  j["position_embedding_type"] = "relative_key";
  expect_error([&] { config_of(j); }, {"position_embedding_type = \"relative_key\" is not supported yet"});
}

TEST(HfConfigErrors, KvHeadsMustDivideHeads) {
  json j = testing::llama_json();
  j["num_key_value_heads"] = 3;
  expect_error([&] { config_of(j); },
               {"config.json: num_attention_heads = 4 is not a multiple of num_key_value_heads = 3"});
}

TEST(HfConfigErrors, HeadsMustDivideHidden) {
  json j = testing::gpt2_json();
  j["n_head"] = 3;
  expect_error([&] { config_of(j); }, {"config.json: n_embd = 16 is not divisible by n_head = 3"});
  j = testing::bert_json();
  j["num_attention_heads"] = 5;
  expect_error([&] { config_of(j); }, {"hidden_size = 12 is not divisible by num_attention_heads = 5"});
}

TEST(HfConfigErrors, FileNotJsonOrNotAnObject) {
  testing::TempDir dir;
  expect_error([&] { read_hf_config(dir.file("config.json")); }, {dir.file("config.json"), "cannot be read"});
  dir.write("config.json", "{\"model_type\": ");
  expect_error([&] { read_hf_config(dir.file("config.json")); }, {dir.file("config.json"), "not valid JSON"});
  dir.write("config.json", "[1, 2]");
  expect_error([&] { read_hf_config(dir.file("config.json")); }, {dir.file("config.json"), "expected a JSON object"});
  dir.write("config.json", testing::bert_json().dump());
  EXPECT_EQ(read_hf_config(dir.file("config.json")).family, HfFamily::Bert);
}

}  // namespace
}  // namespace headroom::core::hf
