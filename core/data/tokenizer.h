// Tokenizers: raw bytes (V = 256) and BPE via sentencepiece, trained on a corpus's train split
// for a chosen V (VB used 257, 500 and 2000) and cached by (corpus fingerprint, V). No torch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/data/corpus.h"
#include "core/text/tokenizer_base.h"  // the interface, torch-free

namespace headroom::core {

std::unique_ptr<Tokenizer> make_byte_tokenizer();

// Trains (or loads from the cache) a BPE model with `vocab` pieces on corpus.train.
// Throws std::invalid_argument when V is impossible for the corpus (too small for its
// characters, or larger than sentencepiece can build from it).
// BPE vocabularies sentencepiece can train here (VB used 257, 500, 2000).
constexpr int kMinBpeVocab = 16, kMaxBpeVocab = 65536;
std::unique_ptr<Tokenizer> make_bpe_tokenizer(const Corpus& corpus, int vocab);

// "bytes" or "bpe:<V>" (e.g. "bpe:2000"). The corpus is needed for BPE only.
std::unique_ptr<Tokenizer> make_tokenizer(const std::string& spec, const Corpus* corpus);

}  // namespace headroom::core
