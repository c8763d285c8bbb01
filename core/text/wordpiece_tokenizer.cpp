#include "core/text/wordpiece_tokenizer.h"

#include <stdexcept>

#include "core/text/byte_level.h"
#include "core/text/unicode_text.h"

namespace headroom::core::text {
namespace {

using Char = WordPieceTokenizer::Char;

std::string utf8_of(const std::vector<Char>& chars, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) append_code_point(out, chars[i].cp);
  return out;
}

std::vector<int32_t> code_points(const std::string& utf8) {
  std::vector<int32_t> cps;
  for (size_t i = 0; i < utf8.size();) {
    int32_t cp = 0;
    i = next_code_point(utf8, i, &cp);
    cps.push_back(cp);
  }
  return cps;
}

// HF's WordPiece decoder cleanup (transformers' clean_up_tokenization) on one token with its space.
std::string clean_up(std::string token) {
  static const char* const kGlued[] = {" .", " ?", " !", " ,", " n't", " 'm", " 's", " 've", " 're"};
  for (const char* glued : kGlued) {
    const std::string g(glued);
    if (token == g) return g.substr(1);
  }
  return token;
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(const std::string& source, std::vector<std::string> vocab,
                                       WordPieceOptions options)
    : options_(std::move(options)), vocab_(std::move(vocab)) {
  // A token listed twice keeps its last line, as tokenization.py's load_vocab does.
  for (size_t id = 0; id < vocab_.size(); ++id) ids_[vocab_[id]] = static_cast<int32_t>(id);
  const auto unk = ids_.find(options_.unk_token);
  if (unk == ids_.end()) {
    throw std::runtime_error(source + ": WordPiece needs the unknown token '" + options_.unk_token +
                             "' in its vocabulary for words it cannot split, but it is not there");
  }
  unk_id_ = unk->second;
  added_ = AddedTokenMatcher(options_.added_tokens);
}

std::vector<std::vector<Char>> WordPieceTokenizer::basic_tokenize(const std::string& text, size_t begin,
                                                                  size_t end) const {
  std::vector<std::vector<Char>> words, out;
  std::vector<Char> word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (size_t at = begin; at < end;) {
    int32_t cp = 0;
    const size_t next = next_code_point(text, at, &cp);
    const Char c{cp, at, next};
    at = next;
    if (options_.clean_text && (cp == 0 || cp == 0xFFFD || is_bert_control(cp))) continue;
    if (is_bert_whitespace(cp)) {
      flush();
    } else if (options_.handle_chinese_chars && is_cjk_ideograph(cp)) {
      flush();
      words.push_back({c});
    } else {
      word.push_back(c);
    }
  }
  flush();
  for (const auto& w : words) {
    // Punctuation splits after normalization, as in BasicTokenizer.tokenize.
    std::vector<Char> run;
    for (const Char& c : normalize_word(w)) {
      if (!is_bert_punctuation(c.cp)) {
        run.push_back(c);
        continue;
      }
      if (!run.empty()) out.push_back(std::move(run));
      run.clear();
      out.push_back({c});
    }
    if (!run.empty()) out.push_back(std::move(run));
  }
  return out;
}

std::vector<Char> WordPieceTokenizer::normalize_word(const std::vector<Char>& word) const {
  if (!options_.lowercase && !options_.strip_accents) return word;
  auto normalize = [&](const std::string& s) {
    std::string t = options_.lowercase ? to_lower(s) : s;
    return options_.strip_accents ? strip_accents(t) : t;
  };
  // The word as a whole is what BERT normalizes (final sigma, NFD reordering); character by
  // character gives each result its source bytes, and is used when the two agree.
  const std::string whole = normalize(utf8_of(word, 0, word.size()));
  std::vector<Char> out;
  std::string joined;
  for (const Char& c : word) {
    const std::string piece = normalize(utf8_of(word, &c - word.data(), &c - word.data() + 1));
    joined += piece;
    for (int32_t cp : code_points(piece)) out.push_back({cp, c.begin, c.end});
  }
  if (joined == whole) return out;
  out.clear();
  for (int32_t cp : code_points(whole)) out.push_back({cp, word.front().begin, word.back().end});
  return out;
}

void WordPieceTokenizer::wordpiece(const std::vector<Char>& word, std::vector<TokenSpan>* out) const {
  if (word.size() > options_.max_input_chars_per_word) {
    out->push_back({unk_id_, word.front().begin, word.back().end});
    return;
  }
  std::vector<TokenSpan> pieces;
  for (size_t start = 0; start < word.size();) {
    int32_t found = -1;
    size_t stop = word.size();
    for (; stop > start; --stop) {
      const std::string candidate = (start > 0 ? options_.continuing_prefix : "") + utf8_of(word, start, stop);
      const auto it = ids_.find(candidate);
      if (it != ids_.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {  // one piece that cannot be matched makes the whole word unknown
      out->push_back({unk_id_, word.front().begin, word.back().end});
      return;
    }
    pieces.push_back({found, word[start].begin, word[stop - 1].end});
    start = stop;
  }
  out->insert(out->end(), pieces.begin(), pieces.end());
}

std::vector<TokenSpan> WordPieceTokenizer::encode_with_offsets(const std::string& text, bool add_special_tokens) const {
  std::vector<TokenSpan> out;
  if (add_special_tokens && special_ids().cls >= 0) out.push_back({special_ids().cls, 0, 0});
  for (const TextSegment& segment : added_.split(text)) {
    if (segment.id >= 0) {
      out.push_back({segment.id, segment.begin, segment.end});
      continue;
    }
    for (const auto& word : basic_tokenize(text, segment.begin, segment.end)) wordpiece(word, &out);
  }
  if (add_special_tokens && special_ids().sep >= 0) out.push_back({special_ids().sep, text.size(), text.size()});
  return out;
}

std::string WordPieceTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  const std::string& prefix = options_.continuing_prefix;
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (id < 0 || id >= vocab_size()) {
      throw std::out_of_range("token id " + std::to_string(id) + " is outside " + options_.name + "'s vocabulary (0.." +
                              std::to_string(vocab_size() - 1) + ")");
    }
    const std::string& token = vocab_[id];
    if (i == 0) out += token;
    else if (!prefix.empty() && token.compare(0, prefix.size(), prefix) == 0) out += token.substr(prefix.size());
    else out += clean_up(" " + token);
  }
  return out;
}

std::string WordPieceTokenizer::token_label(int32_t id) const {
  if (id < 0 || id >= vocab_size()) return "?";
  return printable_label(vocab_[id]);
}

std::string WordPieceTokenizer::id_to_token(int32_t id) const {
  return id < 0 || id >= vocab_size() ? std::string() : vocab_[id];
}

std::optional<int32_t> WordPieceTokenizer::token_to_id(const std::string& token) const {
  const auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

}  // namespace headroom::core::text
