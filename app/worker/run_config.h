// A run's full configuration: ModelSpec + TrainSpec, stored as JSON in the DB.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
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

// Whether a run stored with `stored` (its config_json) is the run `wanted` describes: nullopt when
// it is, else the first difference, "train.precision is fp32 in the DB, bf16 here". train.device is
// ignored (where a run trains is not part of what it computes: it moves between devices and
// resumes), and keys older versions did not write read as their defaults.
std::optional<std::string> config_difference(const std::string& stored, const RunConfig& wanted);

// The vocabulary a corpus + tokenizer pair yields, known without loading anything:
// 256 for bytes, V for bpe:V, the synthetic vocabulary for synthetic tasks.
int data_vocab_size(const std::string& corpus, const std::string& tokenizer);

}  // namespace headroom::worker
