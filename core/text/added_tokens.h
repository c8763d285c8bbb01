// Added tokens (special tokens such as "<|endoftext|>", "[CLS]", "<|begin_of_text|>"): found in the
// raw text before pre-tokenization and emitted whole, as HF's tokenizers library does, so a user who
// types "[MASK]" gets the mask token and not "[", "mask", "]".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::core::text {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool lstrip = false;       // the match swallows the whitespace before it
  bool rstrip = false;       // ... and after it
  bool single_word = false;  // only where it is not part of a longer word
  bool special = true;
};

// A stretch of the text: an added token (id >= 0) or ordinary text to tokenize (id == -1).
struct TextSegment {
  size_t begin = 0;
  size_t end = 0;
  int32_t id = -1;
};

class AddedTokenMatcher {
 public:
  AddedTokenMatcher() = default;
  explicit AddedTokenMatcher(std::vector<AddedToken> tokens);

  // The segments of text in order, covering it; the leftmost match wins, the longest at a position.
  std::vector<TextSegment> split(std::string_view text) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }
  bool empty() const { return tokens_.empty(); }

 private:
  bool matches_at(std::string_view text, size_t at, const AddedToken& token) const;

  std::vector<AddedToken> tokens_;
  std::vector<std::vector<size_t>> by_first_byte_;  // indexes into tokens_, longest first
};

}  // namespace headroom::core::text
