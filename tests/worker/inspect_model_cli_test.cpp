// `headroom-worker inspect --model DIR` from outside (issue 16): tiny checkpoints in Hugging Face's
// exact layout (the project's writer), every head's rank against its cap, bad directories and inputs.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/analysis/head_roles.h"
#include "core/hf/hf_writer.h"
#include "core/io/safetensors.h"
#include "tests/hf/hf_test_util.h"

namespace hf = headroom::core::hf;
using headroom::testing::ScratchDir;
using nlohmann::json;

namespace {

std::string tiny_model(const ScratchDir& dir, const json& config) {
  const std::string path = dir.file("model");
  hf::write_tiny_checkpoint(path, hf::parse_hf_config(config, "config.json"), 3);
  return path;
}

json inspect_json(const std::vector<std::string>& args) {
  auto r = run_worker(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

// Every head: rank <= cap = min(n, d_k), deficit = n - rank, spectra descending, histogram = heads.
void expect_consistent_heads(const json& j) {
  const int n = j["n"], d_k = j["d_k"];
  ASSERT_EQ(j["per_layer"].size(), j["layers"].get<size_t>());
  for (const auto& layer : j["per_layer"]) {
    ASSERT_EQ(layer["heads"].size(), j["heads"].get<size_t>());
    int counted = 0;
    for (const auto& [rank, count] : layer["rank_histogram"].items()) counted += count.get<int>();
    EXPECT_EQ(counted, j["heads"].get<int>());
    for (const auto& h : layer["heads"]) {
      EXPECT_EQ(h["cap"], std::min(n, d_k));
      EXPECT_GE(h["rank"].get<int>(), 1);
      EXPECT_LE(h["rank"].get<int>(), h["cap"].get<int>());
      EXPECT_EQ(h["deficit"].get<int>(), n - h["rank"].get<int>());
      const auto sv = h["top_singular_values"].get<std::vector<double>>();
      ASSERT_FALSE(sv.empty());
      EXPECT_TRUE(std::is_sorted(sv.rbegin(), sv.rend()));
    }
  }
}

}  // namespace

// GPT-2 (d 16, 4 heads of d_k 4) on 12 tokens: every head's logits have rank 4 at most, below
// floor(12/2) = 6, so LRB's bottleneck is reported; random weights reach the cap.
TEST(InspectModelCli, Gpt2HeadsReachTheirCapAndTheBottleneckIsNamed) {
  ScratchDir dir("inspect-model");
  const auto model = tiny_model(dir, hf::testing::gpt2_json());
  const json j = inspect_json({"inspect", "--model", model, "--ids", "1,2,3,4,5,6,7,8,9,10,11,12", "--json"});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["family"], "GPT-2");
  EXPECT_EQ(j["n"], 12);
  EXPECT_EQ(j["d_k"], 4);
  EXPECT_TRUE(j["causal"].get<bool>());
  EXPECT_EQ(j["threshold"], 6);
  EXPECT_EQ(j["tokens"], json({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}));  // no tokenizer files
  expect_consistent_heads(j);
  for (const auto& layer : j["per_layer"])
    for (const auto& h : layer["heads"]) EXPECT_EQ(h["rank"], 4) << layer["layer"] << "/" << h["head"];
  ASSERT_FALSE(j["bottlenecks"].empty());
  EXPECT_EQ(j["bottlenecks"][0]["id"], "lrb-head-rank");
}

TEST(InspectModelCli, LlamaShowsGroupedHeadsAndWhatRotaryHeadsAllowToClaim) {
  ScratchDir dir("inspect-model");
  const auto model = tiny_model(dir, hf::testing::llama_json());
  const json j = inspect_json({"inspect", "--model", model, "--ids", "5,4,3,2,1,0", "--json"});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["family"], "Llama");
  EXPECT_EQ(j["kv_heads"], 2);
  EXPECT_TRUE(j["rotary"].get<bool>());
  expect_consistent_heads(j);
  std::vector<int> groups;
  for (const auto& h : j["per_layer"][0]["heads"]) groups.push_back(h["kv_group"]);
  EXPECT_EQ(groups, std::vector<int>({0, 0, 1, 1}));
  const std::string notes = j["notes"].dump();
  EXPECT_NE(notes.find("RoPE"), std::string::npos) << notes;
  EXPECT_NE(notes.find("not a fixed bilinear form"), std::string::npos) << notes;
  EXPECT_NE(notes.find("grouped-query"), std::string::npos) << notes;
}

// BERT through its own WordPiece vocabulary: [CLS] ... [SEP] around the words, no causal mask;
// --dump writes one layer's trace.
TEST(InspectModelCli, BertTokenizesTheTextItselfAndDumpsALayer) {
  ScratchDir dir("inspect-model");
  const auto model = tiny_model(dir, hf::testing::bert_json());  // vocabulary of 41
  std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nin\nthe\nbeginning\ngod\ncreated\nheaven\nand\nearth\n";
  for (int i = 13; i < 41; ++i) vocab += "w" + std::to_string(i) + "\n";
  std::ofstream(model + "/vocab.txt") << vocab;
#ifdef HEADROOM_NO_ICU
  // Built without ICU (-DHEADROOM_ICU=OFF): the tokenizer cannot class the text's characters and
  // says so, naming the build option (unicode_text_without_icu.cpp).
  const auto refused = run_worker({"inspect", "--model", model, "--text", "In the beginning"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("this Headroom was built without it (-DHEADROOM_ICU=OFF)"), std::string::npos)
      << refused.err;
  GTEST_SKIP() << "built without ICU: BERT's tokenizer refuses the text, as checked; the rest needs it";
#endif
  const std::string dump = dir.file("layer1.safetensors");
  const json j = inspect_json({"inspect", "--model", model, "--text", "In the beginning God created the heaven",
                               "--json", "--dump", dump, "--layer", "1"});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["tokens"], json({"[CLS]", "in", "the", "beginning", "god", "created", "the", "heaven", "[SEP]"}));
  EXPECT_FALSE(j["causal"].get<bool>());
  EXPECT_EQ(j["threshold"], 8);  // n - 1: full attention
  expect_consistent_heads(j);
  const auto file = headroom::core::read_safetensors_file(dump);
  EXPECT_EQ(file.metadata.at("layer"), "1");
  EXPECT_EQ(file.at("W").shape, std::vector<int64_t>({9, 9, 3}));
  EXPECT_EQ(file.at("X").shape, std::vector<int64_t>({9, 12}));
  EXPECT_EQ(file.at("A").shape, std::vector<int64_t>({3, 9, 4}));  // the scaled q and the k, d_k = 4
  const auto a = file.at("A").as_f32(), b = file.at("B").as_f32(), jm = file.at("J").as_f32();
  double worst = 0;  // J[q, k, h] = A[h, q] . B[h, k]
  for (int h = 0; h < 3; ++h)
    for (int q = 0; q < 9; ++q)
      for (int k = 0; k < 9; ++k) {
        double s = 0;
        for (int c = 0; c < 4; ++c) s += double(a[(h * 9 + q) * 4 + c]) * b[(h * 9 + k) * 4 + c];
        worst = std::max(worst, std::abs(s - jm[(q * 9 + k) * 3 + h]));
      }
  EXPECT_LT(worst, 1e-4);
  // Each head's role is read off the weights the dump holds ([n, m, heads]), as full attention.
  const auto w = file.at("W").as_f32();
  for (const auto& h : j["per_layer"][1]["heads"]) {
    const int head = h["head"];
    std::vector<float> map(81);
    for (int q = 0; q < 9; ++q)
      for (int k = 0; k < 9; ++k) map[q * 9 + k] = w[(q * 9 + k) * 3 + head];
    const auto want = headroom::core::head_role(map.data(), 9, false);
    EXPECT_EQ(h["role"], headroom::core::role_label(want)) << h.dump();
    EXPECT_NEAR(h["mean_weights"]["previous"].get<double>(), want.previous, 1e-6) << h.dump();
    EXPECT_NEAR(h["mean_weights"]["next"].get<double>(), want.next, 1e-6) << h.dump();
    EXPECT_NEAR(h["mean_weights"]["entropy"].get<double>(), want.entropy, 1e-6) << h.dump();
  }

  auto r = run_worker({"inspect", "--model", model, "--text", "In the beginning"});  // the text report
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("BERT (bert)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("layer 1:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("what heads do"), std::string::npos) << r.out;
}

TEST(InspectModelCli, BadDirectoriesAndInputsAreOneLineNamingTheProblem) {
  ScratchDir dir("inspect-model");
  const auto model = tiny_model(dir, hf::testing::gpt2_json());
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {{"--model", dir.file("nowhere"), "--ids", "1"}, dir.file("nowhere")},
      {{"--model", model}, "--text"},
      {{"--model", model, "--ids", "1,x"}, "\"x\" is not a token id"},
      {{"--model", model, "--ids", "1,2,3,4,5,6,7,8,9,10,11,12,13"}, "13 tokens"},
      {{"--model", model, "--ids", "37"}, "token id 37"},
      {{"--model", model, "--text", "no tokenizer here"}, model},
      {{"--model", model, "--ids", "1,2", "--dump", dir.file("d.st"), "--layer", "2"}, "--layer 2"},
      {{"--d-model", "16"}, "give a layer"},
      // Flags of the other mode are refused, not ignored.
      {{"--model", model, "--ids", "1,2", "--heads", "3"}, "--heads describes a layer drawn at random; --model DIR"},
      {{"--model", model, "--ids", "1,2", "--causal"}, "--causal describes a layer"},
      {{"--attention", "multi-head", "--d-model", "16", "--heads", "2", "--text", "hi"},
       "--text reads a real model: give --model DIR with it"},
      // heads_k and heads_v copied from an impossible heads are not reported again.
      {{"--attention", "talking-heads", "--d-model", "64", "--heads", "-2"},
       "--heads: heads = -2 is impossible: it must be at least 1"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"inspect"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_worker(args);
    EXPECT_EQ(r.exit_code, 2) << c.expect << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("d.st")));
  std::filesystem::remove(model + "/model.safetensors");
  auto r = run_worker({"inspect", "--model", model, "--ids", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(model), std::string::npos) << r.err;
}
