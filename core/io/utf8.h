// UTF-8 by hand, for the torch-free readers (TOML shield, lesson formulas) and the name shorteners
// (the GUI's tables, the worker's `status`): encode one code point, decode one well-formed sequence,
// cut the middle out of a string. Header-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::io {

inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The well-formed UTF-8 sequence at s[i] (its code point and length), or length 0.
inline size_t decode_utf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = b(0);
  const size_t len = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead < 0xE0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t c = lead & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b(k) & 0x3F);
  }
  const uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return len;
}

// `text` with its middle replaced by "...": about `keep` bytes kept, the start getting the odd
// one, each cut moved onto a character boundary so no UTF-8 sequence is split (so a cut may keep
// a few bytes fewer). The callers decide whether a cut is needed and how much fits.
inline std::string elide_middle_bytes(std::string_view text, size_t keep) {
  const auto boundary = [&](size_t i) {
    return i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  };
  keep = keep < text.size() ? keep : text.size();
  size_t head = (keep + 1) / 2;
  size_t tail_start = text.size() - keep / 2;
  while (head > 0 && !boundary(head)) --head;
  while (tail_start < text.size() && !boundary(tail_start)) ++tail_start;
  std::string out(text.substr(0, head));
  out += "...";
  out += text.substr(tail_start);
  return out;
}

}  // namespace headroom::io
