#include <gtest/gtest.h>
#include <torch/torch.h>

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
