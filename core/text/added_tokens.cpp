#include "core/text/added_tokens.h"

#include <algorithm>

#include "core/text/unicode_text.h"

namespace headroom::core::text {
namespace {

bool is_space_byte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The code point that ends right before `at`: back over at most three continuation bytes.
int32_t code_point_before(std::string_view text, size_t at) {
  size_t start = at - 1;
  while (start > 0 && at - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  int32_t cp = 0;
  next_code_point(text, start, &cp);
  return cp;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
  by_first_byte_.assign(256, {});
  for (size_t i = 0; i < tokens_.size(); ++i) {
    if (tokens_[i].content.empty()) continue;
    by_first_byte_[static_cast<unsigned char>(tokens_[i].content[0])].push_back(i);
  }
  for (auto& list : by_first_byte_) {
    std::stable_sort(list.begin(), list.end(),
                     [&](size_t a, size_t b) { return tokens_[a].content.size() > tokens_[b].content.size(); });
  }
}

bool AddedTokenMatcher::matches_at(std::string_view text, size_t at, const AddedToken& token) const {
  if (text.compare(at, token.content.size(), token.content) != 0) return false;
  if (!token.single_word) return true;
  const size_t end = at + token.content.size();
  if (at > 0 && is_alphanumeric(code_point_before(text, at))) return false;
  int32_t after = 0;
  if (end < text.size()) next_code_point(text, end, &after);
  return end == text.size() || !is_alphanumeric(after);
}

std::vector<TextSegment> AddedTokenMatcher::split(std::string_view text) const {
  std::vector<TextSegment> segments;
  if (tokens_.empty()) {
    if (!text.empty()) segments.push_back({0, text.size(), -1});
    return segments;
  }
  size_t plain_from = 0;
  for (size_t at = 0; at < text.size();) {
    const AddedToken* found = nullptr;
    for (size_t index : by_first_byte_[static_cast<unsigned char>(text[at])]) {
      if (matches_at(text, at, tokens_[index])) {
        found = &tokens_[index];
        break;
      }
    }
    if (found == nullptr) {
      ++at;
      continue;
    }
    size_t begin = at, end = at + found->content.size();
    if (found->lstrip) {
      while (begin > plain_from && is_space_byte(text[begin - 1])) --begin;
    }
    if (found->rstrip) {
      while (end < text.size() && is_space_byte(text[end])) ++end;
    }
    if (begin > plain_from) segments.push_back({plain_from, begin, -1});
    segments.push_back({begin, end, found->id});
    plain_from = at = end;
  }
  if (plain_from < text.size()) segments.push_back({plain_from, text.size(), -1});
  return segments;
}

}  // namespace headroom::core::text
