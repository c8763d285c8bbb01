// Helpers for the headroom_text tests: a temporary model directory, hand-written vocabularies in
// GPT-2's byte-level layout, the awkward strings every tokenizer must survive, and error checks.
#pragma once

#include <gtest/gtest.h>

#include "tests/common/scratch.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/text/byte_level.h"

namespace headroom::core::text::testing {

// A scratch model directory, removed with the object.
class TempDir : public headroom::testing::ScratchDir {
 public:
  TempDir() : ScratchDir("text") {}
};

// vocab.json with byte b at id b (spelled in the byte alphabet), then `extra` tokens from id 256.
inline std::string byte_level_vocab_json(const std::vector<std::string>& extra) {
  std::string json = "{";
  const auto& alphabet = byte_level_alphabet();
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    return q + "\"";
  };
  for (int b = 0; b < 256; ++b) json += (b ? "," : "") + quoted(alphabet[b]) + ":" + std::to_string(b);
  for (size_t i = 0; i < extra.size(); ++i) json += "," + quoted(extra[i]) + ":" + std::to_string(256 + i);
  return json + "}";
}

inline std::string merges_txt(const std::vector<std::string>& merges) {
  std::string text = "#version: 0.2\n";
  for (const auto& m : merges) text += m + "\n";
  return text;
}

// Strings that trip tokenizers: whitespace runs, contractions, digits, emoji, combining marks, CJK.
inline const std::vector<std::string>& awkward_strings() {
  static const std::vector<std::string> strings = {
      "Hello world",
      "  multiple   spaces",
      "\n\n",
      "tabs\tand\t\ttabs",
      "don't I'll we've they're she's I'm he'd",
      "2024 12345 3.14159",
      "emoji: 🦀 ❤️ 👩‍👩‍👧",
      "combining: e\u0301 cafe\u0301 n\u0303",
      "CJK: 日本語の文 中文",
      "Héllo Ünïcödé",
      "  leading and trailing  ",
      " ",
      "a\r\nb\r\n",
      "'s'S 'LL '",
      "$100.00!!! ??? ...",
      "Привет мир",
      "no\u00a0break and\u3000ideographic space",
      "x\n \n  y",
      "a\vb \v x",
      "a\u0085b \u0085 x",
      "a\ufeffb \ufeff x",
      "a\u2028b \u2028 x",
      "a\u00a0b \u00a0 x",
      "a\x1c"
      "b \x1c x",
  };
  return strings;
}

inline void expect_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  headroom::testing::expect_one_line_error(f, parts);
}

}  // namespace headroom::core::text::testing
