#include <gtest/gtest.h>

#include <cmath>
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

// A word-valued key set to `bad` is refused with a message naming the key and the choice `named`;
// a non-string value is refused the same way.
void expect_word_refused(const ModelSpec& spec, const char* key, const char* bad, const char* named) {
  for (const nlohmann::json& value : {nlohmann::json(bad), nlohmann::json(3)}) {
    auto j = to_json(spec);
    j[key] = value;
    try {
      model_spec_from_json(j, "s.toml:model");
      ADD_FAILURE() << key << " = " << value.dump() << " accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("s.toml:model.") + key), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("\"") + named + "\""), std::string::npos) << what;
      EXPECT_NE(what.find(value.dump()), std::string::npos) << what;
    }
  }
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

TEST(TransformerLM, WithoutPositionsOnlyTheCausalMaskTellsPositionsApart) {
  auto spec = small_model();
  spec.attention.causal = true;
  spec.positions = Positions::None;
  torch::manual_seed(0);
  TransformerLM lm(spec);
  EXPECT_EQ(parameter_count(spec), lm->num_parameters());
  for (const auto& p : lm->named_parameters()) EXPECT_NE(p.key().rfind("pos", 0), 0u) << p.key();
  auto learned = spec;
  learned.positions = Positions::Learned;
  EXPECT_EQ(parameter_count(learned) - parameter_count(spec), int64_t(spec.context) * spec.width);  // the n x d table
  EXPECT_EQ(effective_pos_rank(spec), 0);
  EXPECT_TRUE(lm->position_embedding_matrix().eq(0).all().item<bool>());

  // One token repeated: every key is the same, so without positions query i spreads its weight
  // evenly over the i + 1 positions the mask lets it see; learned positions break that evenness.
  const auto same = torch::full({1, 8}, 5, torch::kLong);
  ModelTrace trace;
  lm(same, &trace);
  const auto W = trace.attention[0].W[0];  // [h, n, n]
  for (int64_t i = 0; i < 8; ++i) {
    const auto row = W.select(1, i).narrow(1, 0, i + 1);  // [h, i + 1]
    EXPECT_TRUE(torch::allclose(row, torch::full_like(row, 1.0 / double(i + 1)), 1e-5, 1e-6)) << "query " << i;
  }
  torch::manual_seed(0);
  TransformerLM with(learned);
  ModelTrace trace_with;
  with(same, &trace_with);
  const auto last = trace_with.attention[0].W[0].select(1, 7);  // [h, n]
  EXPECT_GT((last - 1.0 / 8).abs().max().item<double>(), 1e-4);
}

TEST(TransformerLM, PosInitZeroStartsOnlyThePositionalTableAtZero) {
  // The plain table and the factorised one (whose n x r table is zeroed, its projection kept).
  for (int pos_rank : {0, 4}) {
    auto spec = small_model();
    spec.pos_rank = pos_rank;
    auto zero = spec;
    zero.pos_init = PosInit::Zero;
    torch::manual_seed(3);
    TransformerLM random_start(spec);
    torch::manual_seed(3);
    TransformerLM zero_start(zero);
    EXPECT_GT(random_start->position_embedding_matrix().abs().max().item<double>(), 1e-3) << "r_pos " << pos_rank;
    EXPECT_TRUE(zero_start->position_embedding_matrix().eq(0).all().item<bool>()) << "r_pos " << pos_rank;
    // Everything else starts as the random start's does for the same seed.
    const auto random_params = random_start->named_parameters();
    for (const auto& p : zero_start->named_parameters()) {
      if (p.key() == "pos.weight") continue;
      EXPECT_TRUE(torch::equal(p.value(), random_params[p.key()])) << p.key() << " r_pos " << pos_rank;
    }
    // And the zero table still learns: the loss reaches it through the (random) projection.
    const auto tokens = torch::randint(spec.vocab, {2, 8}, torch::kLong);
    auto logits = zero_start(tokens);
    torch::nn::functional::cross_entropy(logits.reshape({-1, spec.vocab}), tokens.reshape({-1})).backward();
    const auto grad = zero_start->named_parameters()["pos.weight"].grad();
    ASSERT_TRUE(grad.defined());
    EXPECT_GT(grad.abs().max().item<double>(), 0.0) << "r_pos " << pos_rank;
  }
}

TEST(TransformerLM, PosInitScaleScalesOnlyThePositionalStartAndKeepsItsDirection) {
  for (int pos_rank : {0, 4}) {
    auto spec = small_model();
    spec.pos_rank = pos_rank;
    auto small = spec;
    small.pos_init_scale = 0.25;
    torch::manual_seed(5);
    TransformerLM full_start(spec);
    torch::manual_seed(5);
    TransformerLM small_start(small);
    const auto full_params = full_start->named_parameters();
    for (const auto& p : small_start->named_parameters()) {
      const auto& want = full_params[p.key()];
      if (p.key() == "pos.weight")  // the same draws, a quarter the size (up to float rounding)
        EXPECT_TRUE(torch::allclose(p.value(), 0.25 * want, 1e-6, 1e-9)) << "r_pos " << pos_rank;
      else EXPECT_TRUE(torch::equal(p.value(), want)) << p.key() << " r_pos " << pos_rank;
    }
    EXPECT_GT(full_params["pos.weight"].abs().max().item<double>(), 1e-3);
  }
}

TEST(ModelSpec, PosInitScaleIsStoredOnlyWhenSetAndChecked) {
  auto spec = small_model();
  EXPECT_FALSE(to_json(spec).contains("pos_init_scale"));  // stored configs stay byte-equal
  spec.pos_init_scale = 0.25;
  EXPECT_EQ(to_json(spec)["pos_init_scale"], 0.25);
  EXPECT_EQ(model_spec_from_json(to_json(spec)), spec);
  EXPECT_NE(spec, small_model());
  EXPECT_NE(describe(spec).find("pos*0.25"), std::string::npos) << describe(spec);

  auto not_a_number = to_json(spec);
  not_a_number["pos_init_scale"] = "small";
  try {
    model_spec_from_json(not_a_number, "s.toml:model");
    ADD_FAILURE() << "pos_init_scale = \"small\" accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("s.toml:model.pos_init_scale: expected a number"), std::string::npos)
        << e.what();
  }
  for (double bad : {0.0, -1.0, 101.0, std::nan("")}) {
    auto impossible = spec;
    impossible.pos_init_scale = bad;
    ASSERT_EQ(validate(impossible).size(), 1u) << bad;
    EXPECT_EQ(validate(impossible)[0].field, "pos_init_scale");
    EXPECT_NE(validate(impossible)[0].message.find("(0, 100]"), std::string::npos) << validate(impossible)[0].message;
  }
  auto zero = spec;
  zero.pos_init = PosInit::Zero;
  ASSERT_EQ(validate(zero).size(), 1u);
  EXPECT_NE(validate(zero)[0].message.find("pos_init = \"zero\" starts it at zero"), std::string::npos);
  auto none = spec;
  none.attention.causal = true;
  none.positions = Positions::None;
  ASSERT_EQ(validate(none).size(), 1u);
  EXPECT_EQ(validate(none)[0].field, "pos_init_scale");
}

TEST(ModelSpec, PosInitZeroIsStoredOnlyWhenSetAndChecked) {
  auto spec = small_model();
  EXPECT_FALSE(to_json(spec).contains("pos_init"));  // configs stored before the key existed stay equal
  spec.pos_init = PosInit::Zero;
  EXPECT_EQ(to_json(spec)["pos_init"], "zero");
  EXPECT_EQ(model_spec_from_json(to_json(spec)), spec);
  EXPECT_NE(spec, small_model());
  EXPECT_NE(describe(spec).find("pos0"), std::string::npos) << describe(spec);
  EXPECT_EQ(parameter_count(spec), parameter_count(small_model()));

  expect_word_refused(spec, "pos_init", "orthogonal", "zero");
  auto nothing_to_start = spec;
  nothing_to_start.attention.causal = true;
  nothing_to_start.positions = Positions::None;
  ASSERT_EQ(validate(nothing_to_start).size(), 1u);
  EXPECT_EQ(validate(nothing_to_start)[0].field, "pos_init");
}

TEST(ModelSpec, PositionsNoneIsStoredOnlyWhenSetAndChecked) {
  auto spec = small_model();
  EXPECT_FALSE(to_json(spec).contains("positions"));  // configs stored before the key existed stay equal
  spec.attention.causal = true;
  spec.positions = Positions::None;
  EXPECT_EQ(to_json(spec)["positions"], "none");
  EXPECT_EQ(model_spec_from_json(to_json(spec)), spec);
  EXPECT_NE(describe(spec).find("no-pos"), std::string::npos) << describe(spec);

  expect_word_refused(spec, "positions", "sinusoidal", "none");
  auto bidirectional = spec;
  bidirectional.attention.causal = false;
  ASSERT_EQ(validate(bidirectional).size(), 1u);
  EXPECT_EQ(validate(bidirectional)[0].field, "positions");
  auto factorised = spec;
  factorised.pos_rank = 4;
  ASSERT_EQ(validate(factorised).size(), 1u);
  EXPECT_EQ(validate(factorised)[0].field, "pos_rank");
}
