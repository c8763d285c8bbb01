// GPT-2's byte-level alphabet: each of the 256 bytes is spelled as a printable code point
// (encoder.py's bytes_to_unicode: printable Latin-1 bytes as themselves, the rest from U+0100 on, so
// a space is "Ġ" and a newline "Ċ"). Vocabularies and merges are written in that alphabet.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace headroom::core::text {

// The UTF-8 spelling of each byte.
const std::array<std::string, 256>& byte_level_alphabet();

// The raw bytes a byte-level spelling stands for ("Ġthe" -> " the"); false when `spelled` has a
// code point outside the alphabet (e.g. an added token such as "<|endoftext|>" spelled in plain
// ASCII is inside it; "<｜fim▁hole｜>" is not).
bool byte_level_to_bytes(std::string_view spelled, std::string* bytes);
std::string bytes_to_byte_level(std::string_view bytes);

// A short printable label for raw token bytes: a space is "␣", a newline "⏎", a tab "\t", other
// control and ill-formed bytes "\xhh"; at most 16 characters, then "…". Always valid UTF-8.
std::string printable_label(std::string_view bytes);

}  // namespace headroom::core::text
