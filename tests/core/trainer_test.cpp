#include <gtest/gtest.h>
#include <torch/torch.h>
#include <functional>
#include <limits>

#include "core/train/trainer.h"
#include "tests/core/train_test_util.h"

using namespace headroom::core;

using headroom::core::test::quick;
using headroom::core::test::tiny;

TEST(Trainer, LearningRateSchedules) {
  TrainSpec t;
  t.lr = 1.0;
  t.warmup = 10;
  t.steps = 110;
  EXPECT_DOUBLE_EQ(learning_rate(t, 0), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate(t, 9), 1.0);
  EXPECT_NEAR(learning_rate(t, 60), 0.5, 1e-12);  // cosine halfway
  EXPECT_NEAR(learning_rate(t, 110), 0.0, 1e-12);
  t.schedule = LrSchedule::InverseSqrt;
  EXPECT_NEAR(learning_rate(t, 40), 0.5, 1e-12);  // sqrt(10/40)
}

TEST(Trainer, LossFallsOnCopy) {
  auto data = std::shared_ptr<const DataSource>(make_data_source("copy", "bytes"));
  Trainer tr(tiny(), quick(80), data);
  const double before = tr.evaluate();
  while (!tr.finished()) tr.step();
  EXPECT_LT(tr.evaluate(), before - 0.3);
}

TEST(Trainer, ResumeFromACheckpointRepeatsTheSameSteps) {
  auto data = std::shared_ptr<const DataSource>(make_data_source("copy", "bytes"));
  for (auto kind : {AttentionKind::MultiHead, AttentionKind::DynamicProj}) {
    Trainer straight(tiny(kind), quick(12), data);
    std::vector<double> losses;
    while (!straight.finished()) losses.push_back(straight.step().train_loss);

    Trainer first(tiny(kind), quick(12), data);
    for (int i = 0; i < 5; ++i) first.step();
    const auto bytes = encode_safetensors(first.save_state());
    Trainer resumed(tiny(kind), quick(12), data);
    resumed.load_state(decode_safetensors(bytes.data(), bytes.size(), "checkpoint"));
    EXPECT_EQ(resumed.current_step(), 5);
    for (int i = 5; i < 12; ++i) EXPECT_EQ(resumed.step().train_loss, losses[i]) << to_string(kind) << " step " << i;
    EXPECT_EQ(resumed.evaluate(), straight.evaluate());
  }
}

TEST(Trainer, RefusesMismatchedCheckpointsAndVocabularies) {
  auto data = std::shared_ptr<const DataSource>(make_data_source("copy", "bytes"));
  Trainer a(tiny(), quick(4), data);
  auto other = tiny();
  other.depth = 1;
  Trainer b(other, quick(4), data);
  EXPECT_THROW(b.load_state(a.save_state()), std::invalid_argument);
  auto small_vocab = tiny();
  small_vocab.vocab = 10;
  EXPECT_THROW(Trainer(small_vocab, quick(4), data), std::invalid_argument);
}

TEST(Trainer, ADataSeedMovesTheBatchesAndKeepsTheStart) {
  auto data = std::shared_ptr<const DataSource>(make_data_source("copy", "bytes"));
  const auto plain = quick(6);  // seed 11
  auto other_order = plain;
  other_order.data_seed = 12;
  auto same_order = plain;
  same_order.data_seed = plain.seed;  // equal to the seed: the same run
  EXPECT_EQ(other_order.batch_seed(), 12u);
  EXPECT_EQ(same_order.batch_seed(), plain.seed);
  Trainer a(tiny(), plain, data), b(tiny(), other_order, data), c(tiny(), same_order, data);
  // The same start: the validation batches are fixed, so equal weights give equal losses.
  EXPECT_EQ(a.evaluate(), b.evaluate());
  std::vector<double> la, lb, lc;
  while (!a.finished()) {
    la.push_back(a.step().train_loss);
    lb.push_back(b.step().train_loss);
    lc.push_back(c.step().train_loss);
  }
  EXPECT_EQ(la, lc);
  EXPECT_NE(la[0], lb[0]);  // other batches from the first step on
  EXPECT_NE(a.evaluate(), b.evaluate());
}

TEST(TrainSpecDataSeed, StoredOnlyWhereItDiffersFromTheSeedAndChecked) {
  TrainSpec t;
  t.seed = 2;
  EXPECT_FALSE(to_json(t).contains("data_seed"));  // configs stored before the key existed stay equal
  auto same = t;
  same.data_seed = 2;
  EXPECT_FALSE(to_json(same).contains("data_seed"));
  EXPECT_EQ(same, t);
  auto other = t;
  other.data_seed = 7;
  EXPECT_EQ(to_json(other)["data_seed"], 7);
  EXPECT_FALSE(other == t);
  const auto back = train_spec_from_json(to_json(other));
  EXPECT_EQ(back, other);
  EXPECT_EQ(back.batch_seed(), 7u);
  EXPECT_EQ(back.seed, 2u);

  for (const char* bad : {R"(-1)", R"("seven")", R"(1.5)"}) {
    auto j = to_json(t);
    j["data_seed"] = nlohmann::json::parse(bad);
    try {
      train_spec_from_json(j, "s.toml:train");
      ADD_FAILURE() << "data_seed = " << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("s.toml:train.data_seed: expected an integer >= 0"), std::string::npos)
          << e.what();
    }
  }
  auto unknown = to_json(t);
  unknown["data_sead"] = 1;
  try {
    train_spec_from_json(unknown);
    ADD_FAILURE() << "data_sead accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("data_seed)"), std::string::npos) << e.what();  // listed among the known
  }
}

// Each impossible setting is named by its own field (beta2 = 1 was reported as beta1), NaN included.
TEST(TrainSpecValidate, EachImpossibleSettingIsNamedByItsOwnField) {
  EXPECT_TRUE(validate(TrainSpec{}).empty());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<std::string, std::function<void(TrainSpec&)>>> cases = {
      {"beta1", [](TrainSpec& t) { t.beta1 = 1.0; }},
      {"beta2", [](TrainSpec& t) { t.beta2 = 1.0; }},
      {"beta2", [&](TrainSpec& t) { t.beta2 = nan; }},
      {"lr", [&](TrainSpec& t) { t.lr = nan; }},
      {"eps", [&](TrainSpec& t) { t.eps = nan; }},
      {"clip", [&](TrainSpec& t) { t.clip = nan; }},
      {"min_lr_ratio", [&](TrainSpec& t) { t.min_lr_ratio = nan; }},
      {"weight_decay", [&](TrainSpec& t) { t.weight_decay = nan; }},
  };
  for (const auto& [field, spoil] : cases) {
    TrainSpec t;
    spoil(t);
    const auto problems = validate(t);
    ASSERT_EQ(problems.size(), 1u) << field;
    EXPECT_EQ(problems[0].field, field);
    EXPECT_NE(problems[0].message.find(field), std::string::npos) << problems[0].message;
  }
}
