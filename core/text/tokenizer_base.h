// The interface every Headroom tokenizer implements: the built-in ones (bytes, sentencepiece BPE in
// core/data/tokenizer.h) and the readers of real models' tokenizer files (core/text/). It lives here,
// free of LibTorch and ICU, so that torch-free libraries (headroom_text) can implement it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace headroom::core
