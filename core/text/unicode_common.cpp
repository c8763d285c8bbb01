// The parts of unicode_text.h built with and without HEADROOM_ICU: UTF-8 code points, through ICU's
// header-only macros (no ICU library), so byte-level vocabularies read the same either way, GPT-2's
// pattern and the CJK blocks (code point ranges).
#include <unicode/utf8.h>

#include "core/text/unicode_text.h"

namespace headroom::core::text {

const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

size_t next_code_point(std::string_view s, size_t i, int32_t* cp) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(s.data());
  const int32_t length = static_cast<int32_t>(s.size());
  int32_t at = static_cast<int32_t>(i);
  UChar32 c = 0;
  U8_NEXT_OR_FFFD(bytes, at, length, c);
  *cp = c;
  return static_cast<size_t>(at);
}

void append_code_point(std::string& out, int32_t cp) {
  uint8_t buf[U8_MAX_LENGTH];
  int32_t n = 0;
  UBool error = false;
  U8_APPEND(buf, n, U8_MAX_LENGTH, cp, error);
  if (error) return;
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

bool is_cjk_ideograph(int32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

}  // namespace headroom::core::text
