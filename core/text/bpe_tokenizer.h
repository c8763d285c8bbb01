// Byte-level BPE (GPT-2, RoBERTa, Llama 3, ...): split the text with a regex, spell each piece's
// UTF-8 bytes in GPT-2's byte alphabet, then apply the learned merges lowest rank first, every
// occurrence of the best pair left to right (encoder.py's bpe()). Every byte has a token, so any
// byte string encodes and decode(encode(x)) == x.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/added_tokens.h"
#include "core/text/text_tokenizer.h"
#include "core/text/unicode_text.h"

namespace headroom::core::text {

// A vocabulary as read from a file: spellings by id (ids may have holes: empty spellings).
struct BpeMerge {
  int32_t left = 0;
  int32_t right = 0;
  int32_t merged = 0;
};

struct BpeModel {
  std::string source;                  // the file(s) it came from, for messages
  std::vector<std::string> spellings;  // by id, in the byte-level alphabet ("Ġthe")
  std::vector<BpeMerge> merges;        // rank order: merges[0] is applied first
};

struct BpeOptions {
  std::string name;                      // what name() answers
  std::string pattern = kGpt2Pattern;    // pre-tokenization; empty: the whole text is one piece
  bool add_prefix_space = false;         // HF ByteLevel: " " before text not starting with one
  bool ignore_merges = false;            // HF BPE (Llama 3): a piece that is a token is taken whole
  bool add_bos = false;                  // encode(text, true) puts special_ids().bos first
  std::vector<AddedToken> added_tokens;  // matched in the raw text first
};

class ByteLevelBpeTokenizer final : public TextTokenizer {
 public:
  // Throws std::runtime_error naming model.source when a byte has no token.
  ByteLevelBpeTokenizer(BpeModel model, BpeOptions options);

  std::string name() const override { return options_.name; }
  int vocab_size() const override { return static_cast<int>(spellings_.size()); }
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string token_label(int32_t id) const override;
  std::vector<TokenSpan> encode_with_offsets(const std::string& text, bool add_special_tokens) const override;
  using TextTokenizer::encode;
  std::string id_to_token(int32_t id) const override;
  std::optional<int32_t> token_to_id(const std::string& token) const override;

 private:
  void encode_segment(const std::string& text, size_t begin, size_t end, std::vector<TokenSpan>* out) const;
  std::vector<int32_t> bpe(const std::string& piece) const;
  std::vector<int32_t> merge_bytes(const std::string& piece) const;

  BpeOptions options_;
  std::vector<std::string> spellings_;
  std::vector<std::string> bytes_;     // by id: the raw bytes the token stands for (what decode gives)
  std::vector<size_t> piece_lengths_;  // by id: how many input bytes the token covers when BPE makes it
  std::vector<bool> is_added_;
  std::unordered_map<std::string, int32_t> by_spelling_;
  std::unordered_map<std::string, int32_t> by_bytes_;
  int32_t byte_ids_[256] = {};
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merge_rank_;  // (left, right) -> (rank, merged)
  std::unique_ptr<RegexSplitter> splitter_;
  AddedTokenMatcher added_;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

}  // namespace headroom::core::text
