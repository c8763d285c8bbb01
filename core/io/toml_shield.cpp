#include "core/io/toml_shield.h"

#include <cstddef>

namespace headroom::io {
namespace {

// The stand-ins: U+F0000 + c (see toml_shield.h).
constexpr uint32_t kShieldBase = 0xF0000, kShieldEnd = 0xFFFFF;

bool trips_toml_whitespace_table(uint32_t c) {
  return (c >= 0xA1 && c <= 0x499) || (c >= 0x2C5E && c <= 0x3057 && c != 0x3000) || (c >= 0xFB26 && c <= 0xFEFE);
}

void append_utf8(std::string& out, uint32_t cp) {
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
size_t decode_utf8(std::string_view s, size_t i, uint32_t* cp) {
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

}  // namespace

// The text as the parser gets it; false (with the line) when it already holds a code point of the stand-ins' range.
bool shield_toml_text(const std::string& text, std::string* out, int* bad_line, uint32_t* bad_cp) {
  out->clear();
  out->reserve(text.size());
  int line = 1;
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t len = static_cast<unsigned char>(text[i]) < 0x80 ? 0 : decode_utf8(text, i, &cp);
    if (len == 0) {  // ASCII, or bytes toml++ refuses as UTF-8 itself
      if (text[i] == '\n') ++line;
      *out += text[i++];
      continue;
    }
    if (cp >= kShieldBase && cp <= kShieldEnd) {
      *bad_line = line;
      *bad_cp = cp;
      return false;
    }
    if (trips_toml_whitespace_table(cp)) {
      append_utf8(*out, kShieldBase + cp);
    } else {
      out->append(text, i, len);
    }
    i += len;
  }
  return true;
}

// A string from the parser with its stand-ins mapped back.
std::string unshield_toml_string(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t len = static_cast<unsigned char>(s[i]) == 0xF3 ? decode_utf8(s, i, &cp) : 0;
    if (len == 4 && cp >= kShieldBase && cp <= kShieldEnd && trips_toml_whitespace_table(cp - kShieldBase)) {
      append_utf8(out, cp - kShieldBase);
      i += len;
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace headroom::io
