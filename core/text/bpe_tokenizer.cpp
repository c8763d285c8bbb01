#include "core/text/bpe_tokenizer.h"

#include <limits>
#include <stdexcept>

#include "core/text/byte_level.h"

namespace headroom::core::text {
namespace {

constexpr size_t kMaxCachedPieces = 1 << 16;

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

std::string hex_byte(int b) {
  static const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

}  // namespace

ByteLevelBpeTokenizer::ByteLevelBpeTokenizer(BpeModel model, BpeOptions options)
    : options_(std::move(options)), spellings_(std::move(model.spellings)) {
  bytes_.resize(spellings_.size());
  piece_lengths_.resize(spellings_.size());
  is_added_.assign(spellings_.size(), false);
  for (const AddedToken& token : options_.added_tokens) {
    if (token.id >= 0 && token.id < vocab_size()) is_added_[token.id] = true;
  }
  for (int32_t id = 0; id < vocab_size(); ++id) {
    const std::string& spelled = spellings_[id];
    if (spelled.empty()) continue;
    by_spelling_.emplace(spelled, id);
    // Added tokens stand for their text as written (decode gives it back, as HF tokenizers do since
    // huggingface/tokenizers#1513); the rest for the bytes their spelling encodes. The merges see every token by its
    // spelling, so where they reach an added token, the input bytes it covers are its spelling's.
    std::string spelled_bytes;
    const bool byte_level = byte_level_to_bytes(spelled, &spelled_bytes);
    piece_lengths_[id] = byte_level ? spelled_bytes.size() : spelled.size();
    if (is_added_[id] || !byte_level) {
      bytes_[id] = spelled;
      continue;
    }
    bytes_[id] = std::move(spelled_bytes);
    by_bytes_.emplace(bytes_[id], id);
  }
  const auto& alphabet = byte_level_alphabet();
  for (int b = 0; b < 256; ++b) {
    const auto it = by_spelling_.find(alphabet[b]);
    if (it == by_spelling_.end()) {
      throw std::runtime_error(model.source + ": byte-level BPE needs a token for each of the 256 bytes, but byte " +
                               hex_byte(b) + " (spelled '" + alphabet[b] + "') has none");
    }
    byte_ids_[b] = it->second;
  }
  for (size_t rank = 0; rank < model.merges.size(); ++rank) {
    const BpeMerge& m = model.merges[rank];
    // A repeated merge takes its last rank, as encoder.py's dict(zip(bpe_merges, range(...))) does.
    merge_rank_[pair_key(m.left, m.right)] = std::make_pair(static_cast<int32_t>(rank), m.merged);
  }
  if (!options_.pattern.empty()) splitter_ = std::make_unique<RegexSplitter>(options_.pattern);
  added_ = AddedTokenMatcher(options_.added_tokens);
}

std::vector<int32_t> ByteLevelBpeTokenizer::merge_bytes(const std::string& piece) const {
  std::vector<int32_t> word;
  word.reserve(piece.size());
  for (unsigned char b : piece) word.push_back(byte_ids_[b]);
  while (word.size() > 1) {
    int32_t best_rank = std::numeric_limits<int32_t>::max(), left = -1, right = -1, merged = -1;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      const auto it = merge_rank_.find(pair_key(word[i], word[i + 1]));
      if (it != merge_rank_.end() && it->second.first < best_rank) {
        best_rank = it->second.first;
        left = word[i];
        right = word[i + 1];
        merged = it->second.second;
      }
    }
    if (merged < 0) break;
    // Every occurrence of the best pair, left to right, before looking for the next pair.
    std::vector<int32_t> next;
    next.reserve(word.size());
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == left && word[i + 1] == right) {
        next.push_back(merged);
        i += 2;
      } else {
        next.push_back(word[i++]);
      }
    }
    word.swap(next);
  }
  return word;
}

std::vector<int32_t> ByteLevelBpeTokenizer::bpe(const std::string& piece) const {
  if (options_.ignore_merges) {
    const auto whole = by_bytes_.find(piece);
    if (whole != by_bytes_.end()) return {whole->second};
  }
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const auto it = cache_.find(piece);
    if (it != cache_.end()) return it->second;
  }
  std::vector<int32_t> ids = merge_bytes(piece);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= kMaxCachedPieces) cache_.clear();
  cache_.emplace(piece, ids);
  return ids;
}

void ByteLevelBpeTokenizer::encode_segment(const std::string& text, size_t begin, size_t end,
                                           std::vector<TokenSpan>* out) const {
  std::string segment = text.substr(begin, end - begin);
  // HF ByteLevel's add_prefix_space: the added space belongs to no byte of the input.
  size_t shift = 0;
  if (options_.add_prefix_space && (segment.empty() || segment[0] != ' ')) {
    segment.insert(segment.begin(), ' ');
    shift = 1;
  }
  std::vector<std::pair<size_t, size_t>> pieces;
  if (splitter_) pieces = splitter_->split(segment);
  else if (!segment.empty()) pieces.emplace_back(0, segment.size());
  for (const auto& [piece_begin, piece_end] : pieces) {
    size_t at = piece_begin;
    for (int32_t id : bpe(segment.substr(piece_begin, piece_end - piece_begin))) {
      const size_t next = at + piece_lengths_[id];
      const size_t from = at < shift ? 0 : at - shift, to = next < shift ? 0 : next - shift;
      out->push_back({id, begin + from, begin + to});
      at = next;
    }
  }
}

std::vector<TokenSpan> ByteLevelBpeTokenizer::encode_with_offsets(const std::string& text,
                                                                  bool add_special_tokens) const {
  std::vector<TokenSpan> out;
  if (add_special_tokens && options_.add_bos && special_ids().bos >= 0) out.push_back({special_ids().bos, 0, 0});
  for (const TextSegment& segment : added_.split(text)) {
    if (segment.id >= 0) out.push_back({segment.id, segment.begin, segment.end});
    else encode_segment(text, segment.begin, segment.end, &out);
  }
  return out;
}

std::string ByteLevelBpeTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  for (int32_t id : ids) {
    if (id < 0 || id >= vocab_size()) {
      throw std::out_of_range("token id " + std::to_string(id) + " is outside " + options_.name + "'s vocabulary (0.." +
                              std::to_string(vocab_size() - 1) + ")");
    }
    out += bytes_[id];
  }
  return out;
}

std::string ByteLevelBpeTokenizer::token_label(int32_t id) const {
  if (id < 0 || id >= vocab_size()) return "?";
  return printable_label(bytes_[id]);
}

std::string ByteLevelBpeTokenizer::id_to_token(int32_t id) const {
  return id < 0 || id >= vocab_size() ? std::string() : spellings_[id];
}

std::optional<int32_t> ByteLevelBpeTokenizer::token_to_id(const std::string& token) const {
  const auto it = by_spelling_.find(token);
  if (it == by_spelling_.end()) return std::nullopt;
  return it->second;
}

}  // namespace headroom::core::text
