// Tiny checkpoints written with HF's names read back: every family x dtype x sharding, the prefix
// variants checkpoints come in, tied heads, buffers, and lazy reads equal to whole-file reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>

#include "core/hf/hf_checkpoint.h"
#include "core/hf/hf_names.h"
#include "core/hf/hf_writer.h"
#include "core/hf/st_header.h"
#include "tests/hf/hf_test_util.h"

namespace headroom::core::hf {
namespace {

using testing::config_of;
using testing::TempDir;

HfConfig family_config(const std::string& family) {
  if (family == "gpt2") return config_of(testing::gpt2_json());
  if (family == "bert") return config_of(testing::bert_json());
  return config_of(testing::llama_json());
}

class RoundTrip : public ::testing::TestWithParam<std::tuple<std::string, std::string, int>> {};

TEST_P(RoundTrip, EveryTensorReadsBackAsWritten) {
  const auto& [family, dtype, shards] = GetParam();
  const HfConfig config = family_config(family);
  TempDir dir;
  write_tiny_checkpoint(dir.path(), config, 7, {dtype, shards});
  EXPECT_EQ(read_hf_config(dir.file(kConfigFileName)), config);

  const HfCheckpoint ckpt = open_checkpoint(dir.path());
  EXPECT_EQ(ckpt.sharded(), shards > 1);
  EXPECT_EQ(ckpt.files().size(), static_cast<size_t>(shards));
  EXPECT_EQ(ckpt.source(), dir.file(shards > 1 ? kIndexFileName : kSingleFileName));
  EXPECT_TRUE(validate_checkpoint(ckpt, config).empty());
  size_t read = 0;
  for (const auto& e : expected_tensors(config)) {
    const HfTensorInfo* info = ckpt.find(e.name);
    if (e.optional && e.role == "lm_head.weight") {
      EXPECT_EQ(info, nullptr) << "a tied head is not written unless asked";
      continue;
    }
    ASSERT_NE(info, nullptr) << e.name;
    EXPECT_EQ(info->dtype, dtype);
    EXPECT_EQ(info->shape, e.shape) << e.name;
    EXPECT_EQ(ckpt.load_f32(e.name), tiny_tensor_values(e, config, 7, dtype)) << e.name;
    ++read;
  }
  EXPECT_EQ(read, ckpt.tensors().size());
}

INSTANTIATE_TEST_SUITE_P(Hf, RoundTrip,
                         ::testing::Combine(::testing::Values("gpt2", "bert", "llama"),
                                            ::testing::Values("F32", "F16", "BF16"), ::testing::Values(1, 3)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_" +
                                  std::to_string(std::get<2>(info.param)) + "shard";
                         });

TEST(HfCheckpoint, ValuesDependOnSeedAndDtypeOnly) {
  const HfConfig config = family_config("gpt2");
  const ExpectedTensor wte = expected_tensors(config).front();
  EXPECT_NE(tiny_tensor_values(wte, config, 1, "F32"), tiny_tensor_values(wte, config, 2, "F32"));
  EXPECT_NE(tiny_tensor_values(wte, config, 1, "F32"), tiny_tensor_values(wte, config, 1, "BF16"));
  TempDir a, b;
  write_tiny_checkpoint(a.path(), config, 3, {"F16", 1});
  write_tiny_checkpoint(b.path(), config, 3, {"F16", 4, true});
  const auto names = resolve_names(open_checkpoint(b.path()), config);
  EXPECT_EQ(open_checkpoint(a.path()).load_f32("h.1.mlp.c_fc.weight"),
            open_checkpoint(b.path()).load_f32(names.layer(1, "mlp.c_fc.weight")));
}

TEST(HfNames, Gpt2PrefixVariantsResolve) {
  const HfConfig config = family_config("gpt2");
  for (bool prefixed : {false, true}) {
    TempDir dir;
    write_tiny_checkpoint(dir.path(), config, 1, {"F32", 1, prefixed});
    const ResolvedNames names = resolve_names(open_checkpoint(dir.path()), config);
    const std::string p = prefixed ? "transformer." : "";
    EXPECT_EQ(names.prefix, p);
    EXPECT_EQ(names.global("wte.weight"), p + "wte.weight");
    EXPECT_EQ(names.global("ln_f.bias"), p + "ln_f.bias");
    EXPECT_EQ(names.layer(1, "attn.c_attn.weight"), p + "h.1.attn.c_attn.weight");
    EXPECT_FALSE(names.has("lm_head.weight"));
    EXPECT_TRUE(names.warnings.empty());
  }
}

TEST(HfNames, BertPrefixAndOldLayerNormSpellingResolve) {
  const HfConfig config = family_config("bert");
  TempDir dir;
  WriteOptions options;
  options.alternate_prefix = true;
  options.legacy_layer_norm_names = true;
  write_tiny_checkpoint(dir.path(), config, 1, options);
  const HfCheckpoint ckpt = open_checkpoint(dir.path());
  const ResolvedNames names = resolve_names(ckpt, config);
  EXPECT_EQ(names.prefix, "bert.");
  EXPECT_EQ(names.global("embeddings.LayerNorm.weight"), "bert.embeddings.LayerNorm.gamma");
  EXPECT_EQ(names.layer(0, "output.LayerNorm.bias"), "bert.encoder.layer.0.output.LayerNorm.beta");
  EXPECT_EQ(names.layer(1, "attention.self.key.weight"), "bert.encoder.layer.1.attention.self.key.weight");
  EXPECT_EQ(names.global("pooler.dense.weight"), "bert.pooler.dense.weight");
  const ExpectedTensor gamma = expected_tensors(config)[3];
  ASSERT_EQ(gamma.name, "embeddings.LayerNorm.weight");
  EXPECT_EQ(ckpt.load_f32(names.global(gamma.role)), tiny_tensor_values(gamma, config, 1, "F32"));
}

TEST(HfNames, LlamaWithAndWithoutModelPrefix) {
  const HfConfig config = family_config("llama");
  for (bool bare : {false, true}) {
    TempDir dir;
    write_tiny_checkpoint(dir.path(), config, 1, {"BF16", 2, bare});
    const ResolvedNames names = resolve_names(open_checkpoint(dir.path()), config);
    const std::string p = bare ? "" : "model.";
    EXPECT_EQ(names.prefix, p);
    EXPECT_EQ(names.global("embed_tokens.weight"), p + "embed_tokens.weight");
    EXPECT_EQ(names.global("lm_head.weight"), "lm_head.weight");  // never prefixed
    EXPECT_EQ(names.layer(0, "self_attn.k_proj.weight"), p + "layers.0.self_attn.k_proj.weight");
    EXPECT_EQ(names.layers.size(), 2u);
  }
}

TEST(HfNames, LlamaShapesFollowHeadsAndKvHeads) {
  auto j = testing::llama_json();
  j["hidden_size"] = 18;
  j["head_dim"] = 6;
  const HfConfig config = config_of(j);
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& e : expected_tensors(config)) shapes[e.name] = e.shape;
  EXPECT_EQ(shapes["model.layers.1.self_attn.q_proj.weight"], (std::vector<int64_t>{24, 18}));  // 4 heads x 6
  EXPECT_EQ(shapes["model.layers.1.self_attn.k_proj.weight"], (std::vector<int64_t>{12, 18}));  // 2 kv heads x 6
  EXPECT_EQ(shapes["model.layers.1.self_attn.o_proj.weight"], (std::vector<int64_t>{18, 24}));
  EXPECT_EQ(shapes["model.layers.1.mlp.down_proj.weight"], (std::vector<int64_t>{18, 24}));
  EXPECT_EQ(shapes["lm_head.weight"], (std::vector<int64_t>{33, 18}));
  TempDir dir;
  write_tiny_checkpoint(dir.path(), config, 5, {"F32", 1});
  EXPECT_TRUE(validate_checkpoint(open_checkpoint(dir.path()), read_hf_config(dir.file("config.json"))).empty());
}

TEST(HfNames, TiedHeadWhenPresentEqualsEmbedding) {
  auto j = testing::llama_json();
  j["tie_word_embeddings"] = true;
  for (const HfConfig& config : {family_config("gpt2"), config_of(j)}) {
    TempDir dir;
    WriteOptions options;
    options.write_tied_head = true;
    write_tiny_checkpoint(dir.path(), config, 9, options);
    const HfCheckpoint ckpt = open_checkpoint(dir.path());
    const ResolvedNames names = resolve_names(ckpt, config);
    ASSERT_TRUE(names.has("lm_head.weight"));
    const std::string embedding = config.family == HfFamily::Gpt2 ? "wte.weight" : "embed_tokens.weight";
    EXPECT_EQ(ckpt.load_f32("lm_head.weight"), ckpt.load_f32(names.global(embedding)));
  }
}

TEST(HfNames, BuffersIgnoredSilentlyOtherTensorsWarned) {
  for (const std::string family : {"gpt2", "bert", "llama"}) {
    const HfConfig config = family_config(family);
    TempDir dir;
    WriteOptions options;
    options.buffers = true;
    write_tiny_checkpoint(dir.path(), config, 1, options);
    EXPECT_TRUE(validate_checkpoint(open_checkpoint(dir.path()), config).empty()) << family;
    testing::edit_safetensors(dir.file(kSingleFileName), [](StFile& f) {
      const float bias[3] = {1, 2, 3};
      f.tensors.push_back(make_f32("cls.predictions.bias", {3}, bias));
    });
    const auto warnings = validate_checkpoint(open_checkpoint(dir.path()), config);
    ASSERT_EQ(warnings.size(), 1u) << family;
    EXPECT_NE(warnings[0].find(dir.file(kSingleFileName) + ": unexpected tensor cls.predictions.bias [3]"),
              std::string::npos)
        << warnings[0];
  }
}

TEST(StHeader, LazyReadsEqualWholeFileRead) {
  TempDir dir;
  write_tiny_checkpoint(dir.path(), family_config("bert"), 2, {"BF16", 1});
  const std::string path = dir.file(kSingleFileName);
  const StFile whole = read_safetensors_file(path);
  const StHeader header = read_safetensors_header(path);
  EXPECT_EQ(header.metadata.at("format"), "pt");
  ASSERT_EQ(header.tensors.size(), whole.tensors.size());
  for (const auto& t : whole.tensors) {
    const StHeaderEntry* e = header.find(t.name);
    ASSERT_NE(e, nullptr) << t.name;
    EXPECT_EQ(e->dtype, t.dtype);
    EXPECT_EQ(e->shape, t.shape);
    EXPECT_EQ(read_tensor_bytes(header, *e), t.bytes) << t.name;
  }
}

TEST(HfCheckpoint, SingleFileWinsOverIndexAsInTransformers) {
  const HfConfig config = family_config("gpt2");
  TempDir dir;
  write_tiny_checkpoint(dir.path(), config, 1, {"F32", 2});
  std::filesystem::copy_file(dir.file("model-00001-of-00002.safetensors"), dir.file(kSingleFileName));
  const HfCheckpoint ckpt = open_checkpoint(dir.path());
  EXPECT_FALSE(ckpt.sharded());
  EXPECT_EQ(ckpt.source(), dir.file(kSingleFileName));
}

}  // namespace
}  // namespace headroom::core::hf
