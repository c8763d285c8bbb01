// Reading the tokenizer files that sit beside Hugging Face checkpoints. Every problem with a file
// throws std::runtime_error with one line naming the file (and line or JSON key), what is wrong
// and what would be right.
#pragma once

#include <memory>
#include <string>

#include "core/text/bpe_tokenizer.h"
#include "core/text/text_tokenizer.h"
#include "core/text/wordpiece_tokenizer.h"

namespace headroom::core::text {

// Picks by what the model directory holds, first found wins: tokenizer.json; vocab.json +
// merges.txt (Hugging Face's GPT-2 layout); encoder.json + vocab.bpe (OpenAI's); vocab.txt (BERT).
// tokenizer_config.json / special_tokens_map.json beside them name the special tokens and options
// (do_lower_case, add_bos_token) where present.
std::unique_ptr<TextTokenizer> load_tokenizer_dir(const std::string& dir);

// GPT-2's byte-level BPE from a vocabulary (token -> id JSON object) and its merges, one
// "left right" pair a line, lowest rank first, after an optional "#version" line. Like OpenAI's
// encoder.py it matches no special token inside the text; "<|endoftext|>" is the BOS and EOS id.
std::unique_ptr<ByteLevelBpeTokenizer> load_gpt2_bpe(const std::string& vocab_json, const std::string& merges_txt);

// BERT's WordPiece from vocab.txt (one token a line, id = line number - 1). tokenizer_config.json
// (may be empty: none) gives do_lower_case, strip_accents and tokenize_chinese_chars; without it a
// vocabulary with no upper-case letters is taken as uncased (lower-cased input), else cased.
std::unique_ptr<WordPieceTokenizer> load_bert_wordpiece(const std::string& vocab_txt,
                                                        const std::string& tokenizer_config);

// HF tokenizers' tokenizer.json: model BPE with a ByteLevel pre-tokenizer (GPT-2's regex), or a
// Sequence of Split (its own regex, behavior Isolated) + ByteLevel(use_regex = false) as Llama 3
// has; model WordPiece with BertPreTokenizer (and BertNormalizer). added_tokens are matched in the
// raw text before pre-tokenization. Anything else (Metaspace, Unigram, byte_fallback, other
// normalizers) is refused naming the key, its value and what is supported.
std::unique_ptr<TextTokenizer> load_tokenizer_json(const std::string& path);

}  // namespace headroom::core::text
