// The small model and short training run that the trainer and device tests share: a 2-layer,
// d = 32 model on the synthetic copy task, trained a few steps from a fixed seed.
#pragma once

#include <string>

#include "core/train/trainer.h"

namespace headroom::core::test {

inline ModelSpec tiny(AttentionKind kind = AttentionKind::TalkingHeads) {
  ModelSpec m;
  m.vocab = kSyntheticVocab;
  m.width = 32;
  m.depth = 2;
  m.context = 16;
  AttentionRequest r{kind, 32, 4};
  r.causal = true;
  m.attention = *make_attention_spec(r, nullptr);
  return m;
}

inline TrainSpec quick(int steps, Precision precision = Precision::Fp32, const std::string& device = "cpu") {
  TrainSpec t;
  t.corpus = "copy";
  t.steps = steps;
  t.batch = 8;
  t.lr = 3e-3;
  t.warmup = 5;
  t.eval_batches = 2;
  t.seed = 11;
  t.precision = precision;
  t.device = device;
  return t;
}

}  // namespace headroom::core::test
