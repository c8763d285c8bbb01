// A guard for Debian's toml++ 3.3: it decides whether a non-ASCII code point is whitespace through a
// generated table whose default case is __builtin_unreachable(), and U+00A1..U+0499, U+2C5E..U+3057
// (less U+3000) and U+FB26..U+FEFE reach it outside strings (in table headers, after a line-ending
// backslash): undefined behaviour on a malformed file (marzer/tomlplusplus#190, #295; found by
// fuzz/lesson_fuzz.cpp). Every TOML file Headroom reads (lessons, suites) goes through
// shield_toml_text before toml++ sees it, and every string (keys included) taken from the parsed
// table through unshield_toml_string. One code point stands for one, so lines and columns stay right.
// Torch-free, in headroom_io.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::io {

// `text` with each such code point c replaced by U+F0000 + c (Supplementary Private Use Area-A,
// which toml++ classifies safely). False, with the line (1-based) and the code point, when the text
// already holds a code point of that area (it could not be told apart from a stand-in).
bool shield_toml_text(const std::string& text, std::string* out, int* bad_line, uint32_t* bad_cp);

// A string from the parsed table with its stand-ins mapped back.
std::string unshield_toml_string(std::string_view s);

}  // namespace headroom::io
