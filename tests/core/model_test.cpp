#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/analysis/head_analysis.h"
#include "core/io/spec_json.h"
#include "core/model/transformer_lm.h"

using namespace headroom::core;

namespace {
ModelSpec small_model(AttentionKind kind = AttentionKind::MultiHead) {
  ModelSpec m;
  m.vocab = 40;
  m.width = 32;
  m.depth = 2;
  m.context = 12;
  m.embed_rank = 6;
  m.attention = *make_attention_spec({kind, 32, 4}, nullptr);
  return m;
}
}  // namespace

TEST(TransformerLM, ForwardShapesAndTraces) {
  torch::manual_seed(0);
  TransformerLM lm(small_model());
  auto tokens = torch::randint(0, 40, {3, 10}, torch::kLong);
  ModelTrace trace;
  auto logits = lm(tokens, &trace);
  EXPECT_EQ(logits.sizes().vec(), (std::vector<int64_t>{3, 10, 40}));
  ASSERT_EQ(trace.attention.size(), 2u);
  EXPECT_EQ(trace.attention[1].W.sizes().vec(), (std::vector<int64_t>{3, 4, 10, 10}));
  EXPECT_EQ(trace.attention_in[0].sizes().vec(), (std::vector<int64_t>{3, 10, 32}));
  EXPECT_THROW(lm(torch::zeros({1, 13}, torch::kLong)), c10::Error);  // beyond the context
}

TEST(TransformerLM, FactorisedEmbeddingHasRankR) {
  torch::manual_seed(0);
  TransformerLM lm(small_model());
  EXPECT_EQ(tensor_spectrum(lm->token_embedding_matrix()).rank, 6);  // VB §5.1: V x r · r x d
  auto full = small_model();
  full.embed_rank = 0;
  TransformerLM lm_full(full);
  EXPECT_EQ(tensor_spectrum(lm_full->token_embedding_matrix()).rank, 32);
}

TEST(TransformerLM, ParameterCountFromTheSpecMatchesTheModule) {
  for (auto kind : all_attention_kinds()) {
    auto spec = small_model(kind);
    spec.pos_rank = 3;
    TransformerLM lm(spec);
    EXPECT_EQ(parameter_count(spec), lm->num_parameters()) << to_string(kind);
  }
}

TEST(TransformerLM, TrainsDownOnACopyTask) {
  // A few Adam steps on a repeated sequence must lower the loss: the model is wired end to end.
  torch::manual_seed(1);
  auto spec = small_model(AttentionKind::TalkingHeads);
  spec.attention.causal = true;
  TransformerLM lm(spec);
  torch::optim::Adam opt(lm->parameters(), 3e-3);
  auto tokens = torch::randint(0, 40, {8, 12}, torch::kLong);
  double first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    auto logits = lm(tokens.narrow(1, 0, 11));
    auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, 40}), tokens.narrow(1, 1, 11).reshape(-1));
    opt.zero_grad();
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 0.7);
}

TEST(ModelSpec, JsonRoundTripAndValidation) {
  auto spec = small_model(AttentionKind::TalkingHeads);
  EXPECT_EQ(model_spec_from_json(to_json(spec)), spec);
  auto j = to_json(spec);
  j["width"] = 48;  // attention.d_model stays 32
  EXPECT_THROW(model_spec_from_json(j), std::invalid_argument);
  auto k = to_json(spec);
  k["depth"] = 0;
  try {
    model_spec_from_json(k, "lrb.toml:model");
    FAIL() << "depth 0 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lrb.toml:model.depth"), std::string::npos) << e.what();
  }
}
