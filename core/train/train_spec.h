// TrainSpec: how to train one run (plain data, no torch). Defaults follow VB appendix C scaled
// down: AdamW (b1 0.9, b2 0.999, wd 0.01), linear warm-up then cosine decay, clipping at 1.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/train/device.h"

namespace headroom::core {

enum class LrSchedule {
  Cosine,       // VB appendix C: linear warm-up, then cosine to min_lr_ratio * lr
  InverseSqrt,  // LRB appendix C: linear warm-up, then lr * sqrt(warmup / step)
  Constant,     // linear warm-up, then flat (the live lab)
};
const char* to_string(LrSchedule s);
std::optional<LrSchedule> parse_lr_schedule(const std::string& name);  // "cosine", "inverse-sqrt", "constant"

struct TrainSpec {
  std::string corpus = "kjv";       // "kjv", "linux-docs", a text file path, or a synthetic task (copy, ...)
  std::string tokenizer = "bytes";  // "bytes" or "bpe:<V>"; ignored for synthetic tasks
  int64_t steps = 1000;
  int batch = 16;
  int seq_len = 0;  // 0 = the model's context n
  double lr = 1e-3;
  int warmup = 100;
  LrSchedule schedule = LrSchedule::Cosine;
  double min_lr_ratio = 0.0;
  double weight_decay = 0.01;  // decoupled; matrices only (not biases, gains or embeddings' norms)
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double clip = 1.0;           // global gradient-norm clip; 0 = off
  int eval_every = 100;        // validation loss every k steps (and at the last step)
  int eval_batches = 4;        // fixed validation batches
  int log_every = 10;          // train metrics every k steps
  int checkpoint_every = 500;  // checkpoint every K steps (and at the last step)
  uint64_t seed = 0;           // the weights' draw, and the batches' order unless data_seed is set
  // The batches' order from another seed than the weights' (unset, or equal to seed: seed's). It
  // splits a spread over seeds into what the start and what the order of the batches contribute.
  std::optional<uint64_t> data_seed;
  uint64_t batch_seed() const { return data_seed.value_or(seed); }
  Precision precision = Precision::Fp32;  // part of what the run computes
  // Where the run trains: the worker that claims it writes the device it resolved here, so a
  // stored config says where the run last trained. Not part of what it computes: a run moves
  // between devices and resumes (same_computation below).
  std::string device = "auto";

  bool operator==(const TrainSpec& o) const;
};

// Equal in everything but the device: the test for "is this the same run" (resume, `train` again).
bool same_computation(const TrainSpec& a, const TrainSpec& b);

// The learning rate at a step (0-based), from the schedule.
double learning_rate(const TrainSpec& spec, int64_t step);

// Problems with the spec (field + message); empty when valid.
struct TrainSpecProblem {
  std::string field, message;
};
std::vector<TrainSpecProblem> validate(const TrainSpec& spec);

nlohmann::json to_json(const TrainSpec& spec);
// Strict: unknown keys and wrong types are errors naming `where.key`.
TrainSpec train_spec_from_json(const nlohmann::json& j, const std::string& where = "train");

}  // namespace headroom::core
