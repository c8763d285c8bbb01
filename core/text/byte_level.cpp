#include "core/text/byte_level.h"

#include <cstdio>
#include <unordered_map>

#include "core/text/unicode_text.h"

namespace headroom::core::text {
namespace {

std::array<int32_t, 256> byte_code_points() {
  std::array<int32_t, 256> cps{};
  std::array<bool, 256> printable{};
  for (int b = '!'; b <= '~'; ++b) printable[b] = true;
  for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
  for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
  int next = 0;
  for (int b = 0; b < 256; ++b) cps[b] = printable[b] ? b : 256 + next++;
  return cps;
}

const std::unordered_map<int32_t, char>& code_point_to_byte() {
  static const std::unordered_map<int32_t, char> table = [] {
    std::unordered_map<int32_t, char> t;
    const auto cps = byte_code_points();
    for (int b = 0; b < 256; ++b) t[cps[b]] = static_cast<char>(b);
    return t;
  }();
  return table;
}

}  // namespace

const std::array<std::string, 256>& byte_level_alphabet() {
  static const std::array<std::string, 256> alphabet = [] {
    std::array<std::string, 256> a;
    const auto cps = byte_code_points();
    for (int b = 0; b < 256; ++b) append_code_point(a[b], cps[b]);
    return a;
  }();
  return alphabet;
}

bool byte_level_to_bytes(std::string_view spelled, std::string* bytes) {
  const auto& table = code_point_to_byte();
  bytes->clear();
  for (size_t i = 0; i < spelled.size();) {
    int32_t cp = 0;
    const size_t next = next_code_point(spelled, i, &cp);
    const auto it = table.find(cp);
    if (it == table.end()) return false;  // U+FFFD (ill-formed input) is not in the alphabet either
    bytes->push_back(it->second);
    i = next;
  }
  return true;
}

std::string bytes_to_byte_level(std::string_view bytes) {
  const auto& alphabet = byte_level_alphabet();
  std::string out;
  for (unsigned char b : bytes) out += alphabet[b];
  return out;
}

std::string printable_label(std::string_view bytes) {
  constexpr int kMaxChars = 16;
  std::string out;
  int shown = 0;
  for (size_t i = 0; i < bytes.size(); ++shown) {
    if (shown == kMaxChars) return out + "\xE2\x80\xA6";  // …
    int32_t cp = 0;
    const size_t next = next_code_point(bytes, i, &cp);
    const bool ill_formed = cp == 0xFFFD && bytes.compare(i, next - i, "\xEF\xBF\xBD") != 0;
    if (cp == '\n') {
      out += "\xE2\x8F\x8E";  // ⏎
    } else if (cp == ' ') {
      out += "\xE2\x90\xA3";  // ␣
    } else if (cp == '\t') {
      out += "\\t";
    } else if (ill_formed || cp < 0x20 || cp == 0x7F) {
      for (size_t k = i; k < next; ++k) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(bytes[k]));
        out += buf;
      }
    } else {
      out.append(bytes.substr(i, next - i));
    }
    i = next;
  }
  return out;
}

}  // namespace headroom::core::text
