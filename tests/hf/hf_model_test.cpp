// The LibTorch import of Hugging Face checkpoints (core/model/hf_model.h) against
// scripts/hf_reference.py, a float64 pure-Python forward written from transformers' modeling code:
// tiny GPT-2, BERT, Llama and Mistral checkpoints from write_tiny_checkpoint, in every dtype,
// sharding, prefix and spelling the writer makes, compared output by output and layer by layer
// (logits before the mask and weights after it) within 1e-4. The peer needs python3: without it
// those tests skip, unless HEADROOM_REQUIRE_PEERS=1 makes that a failure. The properties below
// them (causality, rows summing to 1, exact logit factors, grouped k/v heads, refusals) need no peer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "core/data/subprocess.h"
#include "core/hf/hf_checkpoint.h"
#include "core/hf/hf_names.h"
#include "core/hf/hf_writer.h"
#include "core/model/hf_model.h"
#include "tests/hf/hf_test_util.h"

namespace headroom::core {
namespace {

using hf::HfConfig;
using hf::WriteOptions;
using nlohmann::json;

constexpr double kPeerTolerance = 1e-4;
const std::vector<int64_t> kIds = {3, 1, 4, 1, 5, 9, 2, 6};

HfConfig gpt2_config() { return hf::testing::config_of(hf::testing::gpt2_json()); }
HfConfig bert_config() { return hf::testing::config_of(hf::testing::bert_json()); }
HfConfig llama_config() { return hf::testing::config_of(hf::testing::llama_json()); }
HfConfig mistral_config(int64_t window) {
  json j = hf::testing::llama_json();
  j["model_type"] = "mistral";
  j["sliding_window"] = window;
  return hf::testing::config_of(j);
}

torch::Tensor ids_tensor(const std::vector<int64_t>& ids) {
  return torch::tensor(ids, torch::kLong).unsqueeze(0);  // [1, n]
}

// A scratch checkpoint directory with a tiny model in it, and the model loaded from it.
struct Checkpoint {
  Checkpoint(const HfConfig& config, const WriteOptions& options = {}, uint64_t seed = 1) {
    hf::write_tiny_checkpoint(dir.path(), config, seed, options);
  }
  HfModel load() const { return load_hf_model(dir.path()); }
  hf::testing::TempDir dir;
};

// ---------------------------------------------------------------- the Python peer

bool peers_required() {
  const char* v = std::getenv("HEADROOM_REQUIRE_PEERS");
  return v != nullptr && std::string(v) == "1";
}

// $HEADROOM_PYTHON3, else the python3 CMake found, else python3 from PATH.
std::string python() {
  const char* env = std::getenv("HEADROOM_PYTHON3");
  if (env && *env) return env;
  const std::string configured = HEADROOM_PYTHON3;
  return configured.empty() ? "python3" : configured;
}

struct PeerRun {
  int code = 0;
  std::string out, err;
};

PeerRun run_peer(const std::string& dir, const std::vector<int64_t>& ids) {
  std::string list;
  for (int64_t id : ids) list += (list.empty() ? "" : ",") + std::to_string(id);
  PeerRun run;
  run.out = run_program({python(), HEADROOM_HF_REFERENCE, dir, "--ids", list}, &run.code, &run.err);
  return run;
}

void flatten(const json& j, std::vector<double>& out) {
  if (!j.is_array()) return out.push_back(j.get<double>());
  for (const auto& e : j) flatten(e, out);
}

// A nested JSON array of numbers as a float64 tensor of its shape.
torch::Tensor nested_tensor(const json& j) {
  std::vector<int64_t> shape;
  for (const json* e = &j; e->is_array() && !e->empty(); e = &(*e)[0]) shape.push_back(static_cast<int64_t>(e->size()));
  std::vector<double> flat;
  flatten(j, flat);
  return torch::tensor(flat, torch::kFloat64).reshape(shape);
}

// The peer's answer for one sequence: output [n, V or d]; attentions and scores [L, h, n, n].
struct Reference {
  torch::Tensor output, attentions, scores;
};

Reference reference(const std::string& dir, const std::vector<int64_t>& ids) {
  const PeerRun run = run_peer(dir, ids);
  if (run.code != 0)
    throw std::runtime_error("hf_reference.py exited with " + std::to_string(run.code) + ": " + run.err);
  const json j = json::parse(run.out);
  return {nested_tensor(j.at("output")), nested_tensor(j.at("attentions")), nested_tensor(j.at("scores"))};
}

double max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.sizes() != b.sizes()) {
    ADD_FAILURE() << "shapes differ: " << a.sizes() << " vs " << b.sizes();
    return INFINITY;
  }
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

// The model's output and every layer's logits (J) and weights (W) equal the peer's on `dir`.
void expect_matches_peer(const HfModel& model, const std::string& dir, const std::vector<int64_t>& ids = kIds) {
  HfTrace trace;
  const torch::Tensor out = model.forward(ids_tensor(ids), &trace);
  const Reference ref = reference(dir, ids);
  EXPECT_LT(max_diff(out[0], ref.output), kPeerTolerance) << "output";
  ASSERT_EQ(static_cast<int64_t>(trace.attention.size()), model.config().num_layers);
  ASSERT_EQ(ref.attentions.size(0), model.config().num_layers);
  for (int64_t l = 0; l < model.config().num_layers; ++l) {
    const auto& layer = trace.attention[static_cast<size_t>(l)];
    EXPECT_LT(max_diff(layer.J[0], ref.scores[l]), kPeerTolerance) << "layer " << l << " logits J";
    EXPECT_LT(max_diff(layer.W[0], ref.attentions[l]), kPeerTolerance) << "layer " << l << " weights W";
  }
}

class HfModelPeer : public ::testing::Test {
 protected:
  void SetUp() override {
    int code = 0;
    run_program({python(), "--version"}, &code);
    if (code == 0) return;
    const std::string missing = python() + " cannot be run, so scripts/hf_reference.py cannot either";
    if (peers_required()) FAIL() << "HEADROOM_REQUIRE_PEERS=1 but " << missing;
    GTEST_SKIP() << missing << "; install python3 (stdlib only) for the peer checks";
  }
};

TEST_F(HfModelPeer, Gpt2MatchesThePeer) {
  const Checkpoint ckpt(gpt2_config());
  const HfModel model = ckpt.load();
  EXPECT_EQ(model.forward(ids_tensor(kIds)).sizes(), (std::vector<int64_t>{1, 8, 37}));
  expect_matches_peer(model, ckpt.dir.path());
  // Every learned position (n = n_positions = 12).
  expect_matches_peer(model, ckpt.dir.path(), {0, 36, 5, 5, 7, 1, 2, 3, 30, 11, 12, 20});
}

TEST_F(HfModelPeer, BertMatchesThePeer) {
  const Checkpoint ckpt(bert_config());
  const HfModel model = ckpt.load();
  EXPECT_EQ(model.forward(ids_tensor(kIds)).sizes(), (std::vector<int64_t>{1, 8, 12})) << "BertModel: hidden states";
  expect_matches_peer(model, ckpt.dir.path());
}

TEST_F(HfModelPeer, LlamaWithGroupedKvHeadsMatchesThePeer) {
  const Checkpoint ckpt(llama_config());
  const HfModel model = ckpt.load();
  EXPECT_EQ(model.config().num_kv_heads, 2);
  EXPECT_EQ(model.forward(ids_tensor(kIds)).sizes(), (std::vector<int64_t>{1, 8, 33}));
  expect_matches_peer(model, ckpt.dir.path());
  // Longer than the tiny GPT-2 and BERT: the rotary angles at later positions.
  std::vector<int64_t> ids(20);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((7 * i + 3) % 33);
  expect_matches_peer(model, ckpt.dir.path(), ids);
}

TEST_F(HfModelPeer, MistralSlidingWindowMatchesThePeer) {
  const Checkpoint ckpt(mistral_config(3));
  const HfModel model = ckpt.load();
  expect_matches_peer(model, ckpt.dir.path());
  HfTrace trace;
  model.forward(ids_tensor(kIds), &trace);
  const auto W = trace.attention[0].W[0];  // [h, n, n]
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      const bool visible = j <= i && j > i - 3;  // the last 3 tokens, itself included
      EXPECT_EQ(W.index({0, i, j}).item<float>() > 0, visible) << "query " << i << ", key " << j;
    }
}

TEST_F(HfModelPeer, ActivationsAndHeadsMatchThePeer) {
  struct Case {
    const char* name;
    HfConfig config;
  };
  std::vector<Case> cases;
  for (const char* act : {"gelu", "relu", "gelu_new"}) {
    HfConfig c = act == std::string("gelu_new") ? bert_config() : gpt2_config();
    c.activation = act;
    cases.push_back({act, c});
  }
  HfConfig untied_gpt2 = gpt2_config();  // lm_head.weight with values of its own
  untied_gpt2.tie_word_embeddings = false;
  cases.push_back({"untied GPT-2", untied_gpt2});
  HfConfig tied_llama = llama_config();  // no lm_head.weight: embed_tokens is the head
  tied_llama.tie_word_embeddings = true;
  cases.push_back({"tied Llama", tied_llama});
  HfConfig mha_llama = llama_config();
  mha_llama.num_kv_heads = mha_llama.num_heads;
  cases.push_back({"Llama without GQA", mha_llama});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Checkpoint ckpt(c.config);
    expect_matches_peer(ckpt.load(), ckpt.dir.path());
  }
}

// Each way a checkpoint is stored loads numbers the peer agrees with; the lossless ones load
// exactly the plain F32 file's model.
TEST_F(HfModelPeer, EveryStoredVariantMatchesThePeer) {
  struct Variant {
    const char* name;
    WriteOptions options;
    bool lossless;
  };
  WriteOptions f16, bf16, sharded, prefix, tied_head, buffers, legacy;
  f16.dtype = "F16";
  bf16.dtype = "BF16";
  sharded.shards = 3;
  prefix.alternate_prefix = true;
  tied_head.write_tied_head = true;
  buffers.buffers = true;
  legacy.legacy_layer_norm_names = true;
  const std::vector<Variant> variants = {{"F16", f16, false},
                                         {"BF16", bf16, false},
                                         {"3 shards", sharded, true},
                                         {"alternate prefix", prefix, true},
                                         {"tied head written", tied_head, true},
                                         {"buffers", buffers, true},
                                         {"legacy LayerNorm names", legacy, true}};
  for (const HfConfig& config : {gpt2_config(), bert_config(), llama_config()}) {
    const Checkpoint plain(config);
    const torch::Tensor expected = plain.load().forward(ids_tensor(kIds));
    for (const auto& v : variants) {
      if (v.options.legacy_layer_norm_names && config.family != hf::HfFamily::Bert) continue;
      SCOPED_TRACE(std::string(hf::family_name(config.family)) + ", " + v.name);
      const Checkpoint ckpt(config, v.options);
      const HfModel model = ckpt.load();
      EXPECT_TRUE(model.warnings().empty()) << model.warnings().front();
      expect_matches_peer(model, ckpt.dir.path());
      if (v.lossless) {
        EXPECT_TRUE(torch::equal(model.forward(ids_tensor(kIds)), expected)) << "the same numbers as the plain file";
      }
    }
  }
}

// The comparison is not vacuous: another seed's weights are far outside the tolerance.
TEST_F(HfModelPeer, ADifferentModelIsFarFromThePeer) {
  for (const HfConfig& config : {gpt2_config(), bert_config(), llama_config()}) {
    const Checkpoint ours(config, {}, 1), other(config, {}, 2);
    const Reference ref = reference(other.dir.path(), kIds);
    EXPECT_GT(max_diff(ours.load().forward(ids_tensor(kIds))[0], ref.output), 100 * kPeerTolerance);
  }
}

// The peer refuses a directory it cannot read, loudly and without output, so an empty answer can
// never compare as a match.
TEST_F(HfModelPeer, ThePeerFailsLoudlyOnABadDirectory) {
  const hf::testing::TempDir empty;
  PeerRun run = run_peer(empty.path(), kIds);
  EXPECT_NE(run.code, 0);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("hf_reference.py:"), std::string::npos) << run.err;

  const Checkpoint ckpt(gpt2_config());
  hf::testing::edit_safetensors(ckpt.dir.file(hf::kSingleFileName),
                                [](StFile& f) { hf::testing::remove_tensor(f, "h.1.mlp.c_fc.weight"); });
  run = run_peer(ckpt.dir.path(), kIds);
  EXPECT_NE(run.code, 0);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("h.1.mlp.c_fc.weight"), std::string::npos) << run.err;

  const Checkpoint fine(gpt2_config());
  run = run_peer(fine.dir.path(), {3, 37});
  EXPECT_NE(run.code, 0);
  EXPECT_NE(run.err.find("id 37"), std::string::npos) << run.err;
}

// ---------------------------------------------------------------- properties, no peer

TEST(HfModel, CausalFamiliesIgnoreLaterTokensAndBertDoesNot) {
  for (const HfConfig& config : {gpt2_config(), llama_config(), mistral_config(3), bert_config()}) {
    SCOPED_TRACE(config.model_type);
    const Checkpoint ckpt(config);
    const HfModel model = ckpt.load();
    std::vector<int64_t> changed = kIds;
    changed.back() = 7;
    const auto a = model.forward(ids_tensor(kIds))[0], b = model.forward(ids_tensor(changed))[0];
    const double earlier = max_diff(a.narrow(0, 0, 7), b.narrow(0, 0, 7));
    EXPECT_GT(max_diff(a[7], b[7]), 1e-4) << "the changed position itself";
    if (config.family == hf::HfFamily::Bert) {
      EXPECT_GT(earlier, 1e-4) << "BERT attends both ways";
    } else {
      EXPECT_LT(earlier, 1e-6) << "a causal model's earlier positions";
    }
  }
}

TEST(HfModel, TraceRowsSumToOneAndLogitsAreTheirFactorsProduct) {
  for (const HfConfig& config : {gpt2_config(), bert_config(), llama_config()}) {
    SCOPED_TRACE(config.model_type);
    const Checkpoint ckpt(config);
    const HfModel model = ckpt.load();
    HfTrace trace;
    const auto ids = torch::stack({ids_tensor(kIds)[0], ids_tensor({5, 6, 7, 8, 9, 10, 11, 12})[0]});  // B = 2
    model.forward(ids, &trace);
    const int64_t L = config.num_layers, h = config.num_heads, n = 8;
    ASSERT_EQ(static_cast<int64_t>(trace.attention_in.size()), L);
    ASSERT_EQ(static_cast<int64_t>(trace.factors.size()), L);
    EXPECT_EQ(trace.embedded.sizes(), (std::vector<int64_t>{2, n, config.hidden_size}));
    for (int64_t l = 0; l < L; ++l) {
      const auto& t = trace.attention[static_cast<size_t>(l)];
      const auto& f = trace.factors[static_cast<size_t>(l)];
      EXPECT_EQ(trace.attention_in[static_cast<size_t>(l)].sizes(), (std::vector<int64_t>{2, n, config.hidden_size}));
      EXPECT_EQ(t.J.sizes(), (std::vector<int64_t>{2, h, n, n}));
      EXPECT_TRUE(t.L.is_same(t.J) && t.U.is_same(t.W)) << "no talking-heads mixing";
      EXPECT_LT(max_diff(t.W.sum(-1), torch::ones({2, h, n})), 1e-6);
      EXPECT_EQ(f.A.sizes(), (std::vector<int64_t>{h, n, config.head_dim}));
      EXPECT_EQ(f.B.sizes(), (std::vector<int64_t>{h, n, config.head_dim}));
      EXPECT_LT(max_diff(torch::matmul(f.A, f.B.transpose(1, 2)), t.J[0]), 1e-5) << "layer " << l;
      // J is before the mask: the future is there in J, zero in W, for the causal families.
      const auto future = torch::triu(torch::ones({n, n}, torch::kBool), 1);
      const double future_weight = t.W.masked_select(future).abs().max().item<double>();
      EXPECT_EQ(future_weight > 0.0, config.family == hf::HfFamily::Bert) << "weight on later keys";
      EXPECT_GT(t.J.masked_select(future).abs().max().item<double>(), 0.0);
    }
  }
}

TEST(HfModel, GroupedHeadsShareTheirKeysAndMatchDuplicatedKvWeights) {
  const HfConfig gqa = llama_config();  // 4 query heads, 2 kv heads
  HfConfig mha = gqa;
  mha.num_kv_heads = 4;
  const Checkpoint grouped(gqa), duplicated(mha);
  // k_proj / v_proj of the 4-kv-head model: kv head j is the grouped model's kv head j / 2, the head
  // repeat_kv gives query head j. Every other tensor already agrees (same seed, names and shapes).
  const hf::HfCheckpoint source = hf::open_checkpoint(grouped.dir.path());
  const int64_t hd = gqa.head_dim, d = gqa.hidden_size;
  hf::testing::edit_safetensors(duplicated.dir.file(hf::kSingleFileName), [&](StFile& file) {
    for (auto& t : file.tensors) {
      if (t.name.find("k_proj") == std::string::npos && t.name.find("v_proj") == std::string::npos) continue;
      const std::vector<float> rows = source.load_f32(t.name);  // [2 * hd, d]
      std::vector<float> repeated;
      for (int64_t j = 0; j < 4; ++j)
        repeated.insert(repeated.end(), rows.begin() + (j / 2) * hd * d, rows.begin() + (j / 2 + 1) * hd * d);
      t = make_f32(t.name, t.shape, repeated.data());
    }
  });
  const HfModel a = grouped.load(), b = duplicated.load();
  EXPECT_EQ(a.kv_group(0), 0);
  EXPECT_EQ(a.kv_group(1), 0);
  EXPECT_EQ(a.kv_group(2), 1);
  EXPECT_EQ(a.kv_group(3), 1);
  EXPECT_EQ(b.kv_group(3), 3);
  EXPECT_THROW(a.kv_group(4), std::invalid_argument);
  HfTrace ta, tb;
  const auto la = a.forward(ids_tensor(kIds), &ta), lb = b.forward(ids_tensor(kIds), &tb);
  EXPECT_LT(max_diff(la, lb), 1e-5);
  EXPECT_EQ(a.num_parameters() + 2 * 2 * (2 * hd * d), b.num_parameters()) << "two layers, k and v, 2 more heads";
  for (size_t l = 0; l < ta.factors.size(); ++l) {
    const auto& B = ta.factors[l].B;
    EXPECT_TRUE(torch::equal(B[0], B[1]) && torch::equal(B[2], B[3])) << "a group reads one k";
    EXPECT_FALSE(torch::equal(B[1], B[2])) << "the groups' k differ";
    EXPECT_LT(max_diff(B, tb.factors[l].B), 1e-6);
  }
}

TEST(HfModel, CountsEveryLoadedTensorOnce) {
  for (const HfConfig& config : {gpt2_config(), bert_config(), llama_config()}) {
    const Checkpoint ckpt(config);
    int64_t expected = 0;
    for (const auto& e : hf::expected_tensors(config)) {
      if (e.optional && e.role == "lm_head.weight") continue;  // tied: the embedding is the head
      int64_t numel = 1;
      for (int64_t s : e.shape) numel *= s;
      expected += numel;
    }
    EXPECT_EQ(ckpt.load().num_parameters(), expected) << config.model_type;
  }
}

void expect_invalid_argument(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no std::invalid_argument; expected one mentioning '" << parts.front() << "'";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const auto& part : parts) EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
  }
}

TEST(HfModel, RefusesTooManyTokensAndIdsOutsideTheVocabulary) {
  const Checkpoint ckpt(gpt2_config());  // 12 positions, 37 ids
  const HfModel model = ckpt.load();
  expect_invalid_argument([&] { model.forward(torch::zeros({1, 13}, torch::kLong)); }, {"13 tokens", "1 to 12"});
  expect_invalid_argument([&] { model.forward(ids_tensor({1, 37, 2})); }, {"token id 37", "0 to 36"});
  expect_invalid_argument([&] { model.forward(ids_tensor({1, -2})); }, {"token id -2"});
  expect_invalid_argument([&] { model.forward(torch::zeros({4}, torch::kLong)); }, {"int64 [B, n]"});
  expect_invalid_argument([&] { model.forward(torch::zeros({1, 4}, torch::kInt)); }, {"int64 [B, n]"});
  EXPECT_NO_THROW(model.forward(torch::zeros({1, 12}, torch::kLong)));
}

TEST(HfModel, RefusesWhatItCannotComputeAtLoad) {
  HfConfig quick = gpt2_config();
  quick.activation = "quick_gelu";
  const Checkpoint a(quick);
  hf::testing::expect_error([&] { a.load(); },
                            {a.dir.file("config.json"), "activation_function", "quick_gelu", "gelu_new"});
  HfConfig tanh_bert = bert_config();
  tanh_bert.activation = "tanh";
  const Checkpoint b(tanh_bert);
  hf::testing::expect_error([&] { b.load(); }, {"hidden_act", "\"tanh\""});
  json odd = hf::testing::llama_json();
  odd["head_dim"] = 5;  // q_proj [20, 16]: a valid checkpoint, but RoPE needs pairs
  const Checkpoint c(hf::testing::config_of(odd));
  hf::testing::expect_error([&] { c.load(); }, {"head_dim = 5", "odd"});
}

TEST(HfModel, CheckpointErrorsAndWarningsPassThrough) {
  const Checkpoint missing(llama_config());
  hf::testing::edit_safetensors(missing.dir.file(hf::kSingleFileName),
                                [](StFile& f) { hf::testing::remove_tensor(f, "model.layers.1.mlp.up_proj.weight"); });
  hf::testing::expect_error([&] { missing.load(); }, {missing.dir.file(hf::kSingleFileName),
                                                      "missing tensor model.layers.1.mlp.up_proj.weight"});

  const Checkpoint extra(gpt2_config());
  hf::testing::edit_safetensors(extra.dir.file(hf::kSingleFileName), [](StFile& f) {
    const float one = 1.0f;
    f.tensors.push_back(make_f32("score.weight", {1}, &one));
  });
  const HfModel model = extra.load();
  ASSERT_EQ(model.warnings().size(), 1u);
  EXPECT_NE(model.warnings()[0].find("unexpected tensor score.weight"), std::string::npos) << model.warnings()[0];
}

}  // namespace
}  // namespace headroom::core
