#include "core/io/toml_shield.h"

#include "core/io/utf8.h"

#include <cstddef>

namespace headroom::io {
namespace {

// The stand-ins: U+F0000 + c (see toml_shield.h).
constexpr uint32_t kShieldBase = 0xF0000, kShieldEnd = 0xFFFFF;

bool trips_toml_whitespace_table(uint32_t c) {
  return (c >= 0xA1 && c <= 0x499) || (c >= 0x2C5E && c <= 0x3057 && c != 0x3000) || (c >= 0xFB26 && c <= 0xFEFE);
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
