// BERT's tokenizer (google-research/bert tokenization.py, HF BertTokenizer): BasicTokenizer (clean
// the text, put CJK ideographs on their own, optionally lower-case and strip accents, split on
// whitespace and punctuation), then WordPiece: greedy longest-match-first with "##" continuations,
// [UNK] for a word it cannot split or one longer than 100 characters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/added_tokens.h"
#include "core/text/text_tokenizer.h"

namespace headroom::core::text {

struct WordPieceOptions {
  std::string name;                  // what name() answers
  bool clean_text = true;            // drop NUL, U+FFFD and control characters; whitespace -> space
  bool handle_chinese_chars = true;  // each CJK ideograph is a word
  bool lowercase = true;             // do_lower_case
  bool strip_accents = true;         // BERT: the same as lowercase unless a config says otherwise
  std::string unk_token = "[UNK]";
  std::string continuing_prefix = "##";
  size_t max_input_chars_per_word = 100;
  std::vector<AddedToken> added_tokens;  // [CLS], [SEP], [MASK], ... matched in the raw text first
};

class WordPieceTokenizer final : public TextTokenizer {
 public:
  // vocab: tokens by id (vocab.txt's line order). Throws std::runtime_error naming `source` when the
  // unknown token is not in it.
  WordPieceTokenizer(const std::string& source, std::vector<std::string> vocab, WordPieceOptions options);

  std::string name() const override { return options_.name; }
  int vocab_size() const override { return static_cast<int>(vocab_.size()); }
  // Tokens joined by spaces, "##" pieces glued to the one before, " ." -> "." and the like (HF's
  // WordPiece decoder with cleanup): lower-casing and accents are not undone.
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string token_label(int32_t id) const override;
  std::vector<TokenSpan> encode_with_offsets(const std::string& text, bool add_special_tokens) const override;
  using TextTokenizer::encode;
  std::string id_to_token(int32_t id) const override;
  std::optional<int32_t> token_to_id(const std::string& token) const override;

  // One character of normalized text and the input bytes it came from.
  struct Char {
    int32_t cp = 0;
    size_t begin = 0;
    size_t end = 0;
  };
  // BasicTokenizer alone: the words WordPiece sees, each as its characters.
  std::vector<std::vector<Char>> basic_tokenize(const std::string& text, size_t begin, size_t end) const;

 private:
  std::vector<Char> normalize_word(const std::vector<Char>& word) const;
  void wordpiece(const std::vector<Char>& word, std::vector<TokenSpan>* out) const;

  WordPieceOptions options_;
  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int32_t> ids_;
  int32_t unk_id_ = -1;
  AddedTokenMatcher added_;
};

}  // namespace headroom::core::text
