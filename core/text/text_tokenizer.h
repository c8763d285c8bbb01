// The tokenizers of real checkpoints (issue 16: GPT-2, BERT and Llama-style models), read from the
// files users keep beside Hugging Face weights. Torch-free; ICU does the Unicode work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/text/tokenizer_base.h"

namespace headroom::core::text {

// One token and the bytes [begin, end) of the encoded text it came from (hover tooltips). Tokens a
// tokenizer adds itself ([CLS], a BOS) have an empty span at the position they stand for.
struct TokenSpan {
  int32_t id = 0;
  size_t begin = 0;
  size_t end = 0;
};

// Ids of the special tokens a model import needs; -1 where the tokenizer has none.
struct SpecialTokenIds {
  int32_t bos = -1;
  int32_t eos = -1;
  int32_t cls = -1;
  int32_t sep = -1;
  int32_t unk = -1;
  int32_t pad = -1;
  int32_t mask = -1;
};

class TextTokenizer : public headroom::core::Tokenizer {
 public:
  // add_special_tokens: BERT-style tokenizers wrap the text in [CLS] ... [SEP]; BPE ones put the
  // BOS token first where their config says so (Llama), GPT-2 adds nothing.
  virtual std::vector<TokenSpan> encode_with_offsets(const std::string& text, bool add_special_tokens) const = 0;
  // The vocabulary's own spelling of a token ("Ġthe", "##ing"); empty for an id out of range.
  virtual std::string id_to_token(int32_t id) const = 0;
  virtual std::optional<int32_t> token_to_id(const std::string& token) const = 0;

  std::vector<int32_t> encode(const std::string& text) const override { return encode(text, false); }
  std::vector<int32_t> encode(const std::string& text, bool add_special_tokens) const {
    std::vector<int32_t> ids;
    for (const TokenSpan& span : encode_with_offsets(text, add_special_tokens)) ids.push_back(span.id);
    return ids;
  }

  const SpecialTokenIds& special_ids() const { return special_; }
  void set_special_ids(const SpecialTokenIds& ids) { special_ = ids; }

 private:
  SpecialTokenIds special_;
};

}  // namespace headroom::core::text
