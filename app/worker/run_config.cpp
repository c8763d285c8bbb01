#include "app/worker/run_config.h"

#include <unistd.h>

#include <map>
#include <stdexcept>

#include "core/data/corpus.h"
#include "core/data/synthetic.h"
#include "core/io/spec_json.h"

namespace headroom::worker {

int data_vocab_size(const std::string& corpus, const std::string& tokenizer) {
  if (core::is_synthetic_corpus(corpus)) return core::kSyntheticVocab;
  if (tokenizer == "bytes") return 256;
  if (tokenizer.rfind("bpe:", 0) == 0) {
    try {
      size_t used = 0;
      const int v = std::stoi(tokenizer.substr(4), &used);
      if (used == tokenizer.size() - 4 && v > 0) return v;
    } catch (const std::exception&) {}
  }
  throw std::invalid_argument("unknown tokenizer '" + tokenizer + "': use bytes or bpe:<V> (e.g. bpe:2000)");
}

nlohmann::json to_json(const RunConfig& c) {
  return {{"model", core::to_json(c.model)}, {"train", core::to_json(c.train)}};
}

RunConfig run_config_from_json(const nlohmann::json& j, const std::string& where_in) {
  // Field paths read "model.attention.heads"; a non-empty prefix goes in front with ": ".
  const std::string where = where_in;
  auto at = [&](const std::string& path) { return where.empty() ? path : where + ": " + path; };
  if (!j.is_object()) throw std::invalid_argument(at("a run config must be a table with model and train"));
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "model" && it.key() != "train")
      throw std::invalid_argument(at(it.key() + ": unknown key (a run has model and train)"));
  if (!j.contains("model")) throw std::invalid_argument(at("model: missing"));
  RunConfig c;
  c.train = core::train_spec_from_json(j.value("train", nlohmann::json::object()), at("train"));
  if (!core::is_synthetic_corpus(c.train.corpus) && !core::is_builtin_corpus(c.train.corpus) &&
      access(c.train.corpus.c_str(), R_OK) != 0)
    throw std::invalid_argument(
        at("train.corpus: no such file ") + c.train.corpus +
        "; use kjv or linux-docs (built in), a readable UTF-8 text file, or one of copy, reverse, induction, recall");
  int vocab = 0;
  try {
    vocab = data_vocab_size(c.train.corpus, c.train.tokenizer);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(at("train.tokenizer: ") + e.what());
  }
  nlohmann::json model = j["model"];
  if (model.is_object() && (!model.contains("vocab") || model["vocab"] == 0)) model["vocab"] = vocab;
  // The attention's width defaults to the model's.
  if (model.is_object() && model.contains("attention") && model["attention"].is_object() &&
      !model["attention"].contains("d_model") && model.contains("width"))
    model["attention"]["d_model"] = model["width"];
  c.model = core::model_spec_from_json(model, at("model"));
  if (c.model.vocab < vocab)
    throw std::invalid_argument(at("model.vocab: ") + std::to_string(c.model.vocab) + " is smaller than the " +
                                std::to_string(vocab) + " tokens of " + c.train.corpus + " with " + c.train.tokenizer);
  if (c.train.seq_len > c.model.context)
    throw std::invalid_argument(at("train.seq_len: ") + std::to_string(c.train.seq_len) +
                                " exceeds model.context = " + std::to_string(c.model.context));
  return c;
}

namespace {

// "a.b.c" -> value for every leaf of `j`.
void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, nlohmann::json>* out) {
  if (!j.is_object()) {
    (*out)[prefix] = j;
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
}

}  // namespace

std::optional<std::string> config_difference(const std::string& stored, const RunConfig& wanted) {
  nlohmann::json before;
  try {
    before = to_json(run_config_from_json(nlohmann::json::parse(stored), ""));
  } catch (const std::exception& e) {
    return std::string("the stored config does not read as a run config (") + e.what() + ")";
  }
  nlohmann::json now = to_json(wanted);
  before["train"].erase("device");
  now["train"].erase("device");
  std::map<std::string, nlohmann::json> a, b;
  flatten(before, "", &a);
  flatten(now, "", &b);
  for (const auto& [key, value] : b) {
    const auto it = a.find(key);
    if (it == a.end()) return key + " is absent in the DB, " + value.dump() + " here";
    if (it->second != value) return key + " is " + it->second.dump() + " in the DB, " + value.dump() + " here";
  }
  for (const auto& [key, value] : a)
    if (!b.count(key)) return key + " is " + value.dump() + " in the DB, absent here";
  return std::nullopt;
}

}  // namespace headroom::worker
