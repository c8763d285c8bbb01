#include "core/data/data_source.h"

#include <stdexcept>

namespace headroom::core {
namespace {

constexpr uint64_t kValidationSeed = 0x5eed0fba11ull;  // fixed: validation never depends on the run

class CorpusSource final : public DataSource {
 public:
  CorpusSource(Corpus corpus, std::unique_ptr<Tokenizer> tok) : corpus_name_(corpus.name), tok_(std::move(tok)) {
    const auto tr = tok_->encode(corpus.train);
    const auto va = tok_->encode(corpus.validation);
    train_.assign(tr.begin(), tr.end());
    validation_.assign(va.begin(), va.end());
  }
  int vocab_size() const override { return tok_->vocab_size(); }
  std::string describe() const override {
    return corpus_name_ + " (" + tok_->name() + ", " + std::to_string(train_.size()) + " train / " +
           std::to_string(validation_.size()) + " validation tokens)";
  }
  Batch train_batch(uint64_t seed, int64_t step, int batch, int n) const override {
    return windows(train_, mix_seed(seed, static_cast<uint64_t>(step)), batch, n);
  }
  Batch validation_batch(int index, int batch, int n) const override {
    return windows(validation_, mix_seed(kValidationSeed, static_cast<uint64_t>(index)), batch, n);
  }
  std::string token_label(int32_t id) const override { return tok_->token_label(id); }

 private:
  Batch windows(const std::vector<int64_t>& tokens, uint64_t seed, int batch, int n) const {
    if (tokens.size() < static_cast<size_t>(n) + 2)
      throw std::invalid_argument("corpus " + corpus_name_ + " has " + std::to_string(tokens.size()) +
                                  " tokens in a split, too few for sequences of n = " + std::to_string(n));
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<size_t> start(0, tokens.size() - static_cast<size_t>(n) - 1);
    auto buf = torch::empty({batch, n + 1}, torch::kInt64);
    auto* p = buf.data_ptr<int64_t>();
    for (int b = 0; b < batch; ++b) {
      const size_t s = start(rng);
      std::copy(tokens.begin() + s, tokens.begin() + s + n + 1, p + static_cast<size_t>(b) * (n + 1));
    }
    return {buf.narrow(1, 0, n).contiguous(), buf.narrow(1, 1, n).contiguous(), {}};
  }

  std::string corpus_name_;
  std::unique_ptr<Tokenizer> tok_;
  std::vector<int64_t> train_, validation_;
};

class SyntheticSource final : public DataSource {
 public:
  explicit SyntheticSource(SyntheticTask task) : task_(task) {}
  int vocab_size() const override { return kSyntheticVocab; }
  std::string describe() const override { return std::string("synthetic ") + to_string(task_); }
  Batch train_batch(uint64_t seed, int64_t step, int batch, int n) const override {
    return make(mix_seed(seed, static_cast<uint64_t>(step)), batch, n);
  }
  Batch validation_batch(int index, int batch, int n) const override {
    return make(mix_seed(kValidationSeed, static_cast<uint64_t>(index)), batch, n);
  }
  std::string token_label(int32_t id) const override { return synthetic_token_label(id); }

 private:
  Batch make(uint64_t seed, int batch, int n) const {
    if (n < 4) throw std::invalid_argument("synthetic tasks need sequences of n >= 4");
    std::mt19937_64 rng(seed);
    auto tokens = torch::empty({batch, n + 1}, torch::kInt64);
    auto mask = torch::empty({batch, n}, torch::kFloat32);
    auto* tp = tokens.data_ptr<int64_t>();
    auto* mp = mask.data_ptr<float>();
    for (int b = 0; b < batch; ++b) {
      const auto s = make_synthetic_sequence(task_, n, rng);
      for (int i = 0; i <= n; ++i) tp[b * (n + 1) + i] = s.tokens[i];
      for (int i = 0; i < n; ++i) mp[b * n + i] = s.mask[i];
    }
    return {tokens.narrow(1, 0, n).contiguous(), tokens.narrow(1, 1, n).contiguous(), mask};
  }
  SyntheticTask task_;
};

}  // namespace

uint64_t mix_seed(uint64_t seed, uint64_t step) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (step + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::unique_ptr<DataSource> make_data_source(const std::string& corpus, const std::string& tokenizer) {
  if (auto task = parse_synthetic_task(corpus)) return std::make_unique<SyntheticSource>(*task);
  Corpus c = load_corpus(corpus);
  auto tok = make_tokenizer(tokenizer, &c);
  return std::make_unique<CorpusSource>(std::move(c), std::move(tok));
}

}  // namespace headroom::core
