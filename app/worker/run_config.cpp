#include "app/worker/run_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <stdexcept>

#include "core/data/corpus.h"
#include "core/data/synthetic.h"
#include "core/data/tokenizer.h"
#include "core/io/spec_json.h"
#include "experiments_db/run_store.h"

namespace headroom::worker {
namespace {

// What a run can learn of a text-file corpus before it trains: whether it reads as a corpus
// (UTF-8, ...) and the sizes of its train and validation parts. Read once per path, size and
// modification time: a suite's runs share their file.
struct FileCorpus {
  std::string problem;  // load_corpus_text's message, without its "corpus PATH: "
  core::SplitBytes bytes;
};
FileCorpus read_file_corpus(const std::string& path, const struct stat& st) {
  static std::mutex mu;
  static std::map<std::string, std::pair<std::string, FileCorpus>> seen;  // path -> (version, what it held)
  const std::string version =
      std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  std::lock_guard<std::mutex> lock(mu);
  auto it = seen.find(path);
  if (it != seen.end() && it->second.first == version) return it->second.second;
  FileCorpus c;
  try {
    c.bytes = core::split_bytes(core::load_corpus_text(path));
  } catch (const std::invalid_argument& e) {
    c.problem = e.what();
    const std::string named = "corpus " + path + ": ";
    if (c.problem.rfind(named, 0) == 0) c.problem.erase(0, named.size());
  }
  seen[path] = {version, c};
  return c;
}

}  // namespace

int data_vocab_size(const std::string& corpus, const std::string& tokenizer) {
  // The tokenizer is checked whatever the corpus: a config stores it, and a synthetic task
  // (which has its own vocabulary) must not carry a tokenizer that no other corpus could take.
  int vocab = 256;
  if (tokenizer.rfind("bpe:", 0) == 0) {
    vocab = 0;
    try {
      size_t used = 0;
      const int v = std::stoi(tokenizer.substr(4), &used);
      if (used == tokenizer.size() - 4) vocab = v;
    } catch (const std::exception&) {}
    if (vocab < core::kMinBpeVocab || vocab > core::kMaxBpeVocab)
      throw std::invalid_argument("tokenizer '" + tokenizer + "': a BPE vocabulary must be " +
                                  std::to_string(core::kMinBpeVocab) + ".." + std::to_string(core::kMaxBpeVocab) +
                                  " (VB used 257, 500, 2000), e.g. bpe:2000");
  } else if (tokenizer != "bytes") {
    throw std::invalid_argument("unknown tokenizer '" + tokenizer + "': use bytes or bpe:<V> (e.g. bpe:2000)");
  }
  return core::is_synthetic_corpus(corpus) ? core::kSyntheticVocab : vocab;
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
  const bool text_file = !core::is_synthetic_corpus(c.train.corpus) && !core::is_builtin_corpus(c.train.corpus);
  core::SplitBytes file_bytes;  // a text file's parts, checked against the context below
  if (text_file) {
    // Checked here, before anything is enqueued, not when a worker first reads the file.
    struct stat st {};
    std::string problem;
    if (stat(c.train.corpus.c_str(), &st) != 0 || access(c.train.corpus.c_str(), R_OK) != 0)
      problem = "no such file, or it is not readable";
    else if (!S_ISREG(st.st_mode)) problem = "not a regular file (a folder?)";
    else if (st.st_size < 2) problem = "the file is empty";
    if (!problem.empty())
      throw std::invalid_argument(
          at("train.corpus: ") + c.train.corpus + ": " + problem +
          "; use kjv or linux-docs (built in), a UTF-8 text file, or one of copy, reverse, induction, recall");
    const FileCorpus file = read_file_corpus(c.train.corpus, st);
    if (!file.problem.empty())  // says what to do
      throw std::invalid_argument(at("train.corpus: ") + c.train.corpus + ": " + file.problem);
    file_bytes = file.bytes;
  }
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
  if (text_file) {
    // A batch takes windows of n + 1 tokens from each part, at n + 2 or more (core/data/data_source).
    const core::SplitBytes& bytes = file_bytes;
    const size_t n = static_cast<size_t>(c.train.seq_len > 0 ? c.train.seq_len : c.model.context);
    const bool is_bytes = c.train.tokenizer == "bytes";
    const size_t smallest = std::min(bytes.train, bytes.validation);
    const size_t most_tokens = smallest + (is_bytes ? 0 : 1);
    if (most_tokens < n + 2)
      throw std::invalid_argument(
          at("train.corpus: ") + c.train.corpus + ": its " +
          (bytes.validation <= bytes.train ? "validation" : "training") + " part holds " +
          (is_bytes ? "" : "at most ") + std::to_string(most_tokens) + (most_tokens == 1 ? " token (" : " tokens (") +
          std::to_string(smallest) + (smallest == 1 ? " byte)" : " bytes)") +
          ", too few for sequences of n = " + std::to_string(n) + ", which need n + 2 = " + std::to_string(n + 2) +
          "; give a longer text (validation is every 20th 8 KiB block, or the last tenth of a text under 160 KiB) "
          "or a shorter context");
  }
  return c;
}

std::optional<std::string> config_difference(const std::string& stored, const RunConfig& wanted) {
  nlohmann::json before;
  try {
    before = to_json(run_config_from_json(nlohmann::json::parse(stored), ""));
  } catch (const std::exception& e) {
    return std::string("the stored config does not read as a run config (") + e.what() + ")";
  }
  // Both read through RunConfig, so defaults the stored text left out compare as themselves.
  return db::run_config_difference(before.dump(), to_json(wanted).dump(), "in the DB", "here");
}

}  // namespace headroom::worker
