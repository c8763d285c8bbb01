// Tokenizer files beside a downloaded checkpoint (`inspect --model`, the lab's real models): any
// bytes in them either load a tokenizer or are refused with one message naming the file, never a
// crash; and a loaded tokenizer encodes any text without throwing, into spans that lie inside the
// text, ids inside its vocabulary, and (GPT-2's vocab.json + merges.txt, which add nothing to the
// text) tokens that tile the text and decode back to it byte for byte.
//
// Input: a first byte picking the layout, then NUL-separated parts written as the files of a model
// directory, the last part the text to encode:
//   layout 0: tokenizer.json, tokenizer_config.json, text
//   layout 1: vocab.json, merges.txt, tokenizer_config.json, text
//   layout 2: vocab.txt, tokenizer_config.json, text
// A part left out leaves its file out (tokenizer_config.json is optional in every layout).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/text/load_tokenizer.h"
#include "fuzz/fuzz_scratch.h"

namespace {

const std::string& model_dir() { return headroom::fuzz::scratch_dir("tokenizer"); }

const char* const kFiles[] = {"tokenizer.json",
                              "vocab.json",
                              "merges.txt",
                              "encoder.json",
                              "vocab.bpe",
                              "vocab.txt",
                              "tokenizer_config.json",
                              "special_tokens_map.json"};

std::vector<std::string> split_parts(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> parts(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) parts.emplace_back();
    else parts.back() += static_cast<char>(data[i]);
  }
  return parts;
}

bool names_a_file(const std::string& message) {
  for (const char* file : kFiles)
    if (message.find(file) != std::string::npos) return true;
  return false;
}

void check_encoding(const headroom::core::text::TextTokenizer& tok, const std::string& text, bool round_trips) {
  for (const bool special : {false, true}) {
    const auto spans = tok.encode_with_offsets(text, special);  // must not throw
    std::vector<std::int32_t> ids;
    std::size_t last_begin = 0, tiled = 0;
    for (const auto& span : spans) {
      if (span.id < 0 || span.id >= tok.vocab_size()) __builtin_trap();       // an id outside the vocabulary
      if (span.begin > span.end || span.end > text.size()) __builtin_trap();  // a span outside the text
      if (span.begin < last_begin) __builtin_trap();                          // spans out of order
      last_begin = span.begin;
      if (round_trips && !special) {
        if (span.begin != tiled) __builtin_trap();  // a gap or an overlap between tokens
        tiled = span.end;
        if (tok.decode({span.id}) != text.substr(span.begin, span.end - span.begin)) __builtin_trap();
      }
      (void)tok.token_label(span.id);
      (void)tok.id_to_token(span.id);
      ids.push_back(span.id);
    }
    const std::string decoded = tok.decode(ids);  // every id is in range: must not throw
    if (round_trips && !special && (tiled != text.size() || decoded != text)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int layout = data[0] % 3;
  std::vector<std::string> parts = split_parts(data + 1, size - 1);
  const std::string text = parts.size() > 1 ? parts.back() : std::string("Hello world, don't 123 日本語 e\u0301");
  if (parts.size() > 1) parts.pop_back();
  for (const char* file : kFiles) std::remove((model_dir() + "/" + file).c_str());
  const std::vector<const char*> layouts[] = {{"tokenizer.json", "tokenizer_config.json"},
                                              {"vocab.json", "merges.txt", "tokenizer_config.json"},
                                              {"vocab.txt", "tokenizer_config.json"}};
  for (std::size_t i = 0; i < parts.size() && i < layouts[layout].size(); ++i)
    headroom::fuzz::write_bytes(model_dir(), layouts[layout][i], parts[i].data(), parts[i].size());

  std::unique_ptr<headroom::core::text::TextTokenizer> tok;
  try {
    tok = headroom::core::text::load_tokenizer_dir(model_dir());
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    // A refusal is one line naming the file.
    if (message.empty() || message.find('\n') != std::string::npos || !names_a_file(message)) __builtin_trap();
    return 0;
  }
  if (!tok || tok->vocab_size() <= 0) __builtin_trap();
  // GPT-2's own layout adds no tokens and no prefix space: its tokens are the text's bytes.
  const bool round_trips = layout == 1;
  check_encoding(*tok, text, round_trips);
  return 0;
}
