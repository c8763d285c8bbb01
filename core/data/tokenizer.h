// Tokenizers: raw bytes (V = 256) and BPE via sentencepiece, trained on a corpus's train split
// for a chosen V (VB used 257, 500 and 2000) and cached by (corpus fingerprint, V). No torch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/data/corpus.h"

namespace headroom::core {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::string name() const = 0;  // "bytes", "bpe-2000"
  virtual int vocab_size() const = 0;
  virtual std::vector<int32_t> encode(const std::string& text) const = 0;
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  // A short printable label for axis ticks ("the", "␣", "\n" shown as "⏎").
  virtual std::string token_label(int32_t id) const = 0;
};

std::unique_ptr<Tokenizer> make_byte_tokenizer();

// Trains (or loads from the cache) a BPE model with `vocab` pieces on corpus.train.
// Throws std::invalid_argument when V is impossible for the corpus (too small for its
// characters, or larger than sentencepiece can build from it).
std::unique_ptr<Tokenizer> make_bpe_tokenizer(const Corpus& corpus, int vocab);

// "bytes" or "bpe:<V>" (e.g. "bpe:2000"). The corpus is needed for BPE only.
std::unique_ptr<Tokenizer> make_tokenizer(const std::string& spec, const Corpus* corpus);

}  // namespace headroom::core
