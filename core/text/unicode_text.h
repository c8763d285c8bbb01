// The Unicode questions tokenizers ask (categories, lower case, accents, regex pre-tokenization),
// answered by ICU on UTF-8 text so that byte offsets stay byte offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::core::text {

// The code point at s[i] and the index after it; ill-formed UTF-8 reads as U+FFFD, one byte at a time.
size_t next_code_point(std::string_view s, size_t i, int32_t* cp);
void append_code_point(std::string& out, int32_t cp);

// BERT's character classes (tokenization.py: _is_whitespace, _is_control, _is_punctuation,
// _is_chinese_char). Whitespace also takes every White_Space code point, since Python's str.split()
// and HF's Rust tokenizer split there too.
bool is_bert_whitespace(int32_t cp);
bool is_bert_control(int32_t cp);
bool is_bert_punctuation(int32_t cp);
bool is_cjk_ideograph(int32_t cp);
bool is_alphanumeric(int32_t cp);

// Full Unicode lower-casing in the root locale (final sigma included), as Python's str.lower().
std::string to_lower(std::string_view utf8);
// NFD with the non-spacing marks (Mn) removed: BERT's _run_strip_accents ("Héllo" -> "Hello").
std::string strip_accents(std::string_view utf8);

// A compiled ICU regular expression that cuts text into pieces the way HF's Split(behavior =
// "Isolated") does: every match is a piece and so is every stretch between matches, so the pieces
// always cover the text (which is what makes byte-level decode(encode(x)) == x).
class RegexSplitter {
 public:
  // Throws std::invalid_argument naming the ICU error and its offset in the pattern.
  explicit RegexSplitter(const std::string& pattern);
  ~RegexSplitter();
  RegexSplitter(const RegexSplitter&) = delete;
  RegexSplitter& operator=(const RegexSplitter&) = delete;

  // Byte ranges [begin, end) of text, in order, covering it.
  std::vector<std::pair<size_t, size_t>> split(std::string_view text) const;
  const std::string& pattern() const { return pattern_; }

 private:
  struct Impl;
  std::string pattern_;
  std::unique_ptr<Impl> impl_;
};

// GPT-2's pre-tokenization pattern (encoder.py), also HF ByteLevel's use_regex = true.
extern const char* const kGpt2Pattern;

}  // namespace headroom::core::text
