// A run's full configuration: ModelSpec + TrainSpec, stored as JSON in the DB.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/model/model_spec.h"
#include "core/train/train_spec.h"

namespace headroom::worker {

struct RunConfig {
  core::ModelSpec model;
  core::TrainSpec train;
};

// {"model": {...}, "train": {...}}
nlohmann::json to_json(const RunConfig& config);
// Strict; `where` prefixes error messages (e.g. "suites/lrb.toml: run lrb/std/h=4").
// A model "vocab" of 0 means "the data's vocabulary" and is resolved here.
RunConfig run_config_from_json(const nlohmann::json& j, const std::string& where);

// The vocabulary a corpus + tokenizer pair yields, known without loading anything:
// 256 for bytes, V for bpe:V, the synthetic vocabulary for synthetic tasks.
int data_vocab_size(const std::string& corpus, const std::string& tokenizer);

}  // namespace headroom::worker
