// The Unicode questions that need ICU's data (HEADROOM_ICU=ON); unicode_common.cpp has the rest and
// unicode_text_without_icu.cpp stands in for this file where ICU is off.
#include "core/text/unicode_text.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/regex.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utext.h>

#include <cstdio>
#include <stdexcept>

namespace headroom::core::text {

bool is_bert_whitespace(int32_t cp) {
  if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') return true;
  return u_charType(cp) == U_SPACE_SEPARATOR || u_isUWhiteSpace(cp);
}

bool is_bert_control(int32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  switch (u_charType(cp)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_UNASSIGNED:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE: return true;
    default: return false;
  }
}

bool is_bert_punctuation(int32_t cp) {
  // BERT counts every non-alphanumeric ASCII symbol ("$", "^", "`") as punctuation, not only P*.
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) {
    return true;
  }
  return (U_GET_GC_MASK(cp) & U_GC_P_MASK) != 0;
}

bool is_alphanumeric(int32_t cp) { return u_isalnum(cp) || cp == '_'; }

namespace {

// A pattern as an error message shows it: on one line, its control characters escaped ("\n").
std::string one_line(std::string_view pattern) {
  std::string out;
  for (const char c : pattern) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

icu::UnicodeString from_utf8(std::string_view utf8) {
  return icu::UnicodeString::fromUTF8(icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
}

std::string to_utf8(const icu::UnicodeString& s) {
  std::string out;
  s.toUTF8String(out);
  return out;
}

}  // namespace

std::string to_lower(std::string_view utf8) {
  icu::UnicodeString s = from_utf8(utf8);
  s.toLower(icu::Locale::getRoot());
  return to_utf8(s);
}

std::string strip_accents(std::string_view utf8) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU: no NFD normalizer: ") + u_errorName(status));
  const icu::UnicodeString decomposed = nfd->normalize(from_utf8(utf8), status);
  if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU: NFD failed: ") + u_errorName(status));
  std::string out;
  for (int32_t i = 0; i < decomposed.length();) {
    const UChar32 cp = decomposed.char32At(i);
    i += U16_LENGTH(cp);
    if (u_charType(cp) != U_NON_SPACING_MARK) append_code_point(out, cp);
  }
  return out;
}

struct RegexSplitter::Impl {
  std::unique_ptr<icu::RegexPattern> compiled;
};

RegexSplitter::RegexSplitter(const std::string& pattern) : pattern_(pattern), impl_(std::make_unique<Impl>()) {
  UParseError where{};
  UErrorCode status = U_ZERO_ERROR;
  impl_->compiled.reset(icu::RegexPattern::compile(from_utf8(pattern), 0, where, status));
  if (U_FAILURE(status)) {
    throw std::invalid_argument("the regular expression '" + one_line(pattern) + "' does not compile with ICU (" +
                                u_errorName(status) + " at offset " + std::to_string(where.offset) + ")");
  }
}

RegexSplitter::~RegexSplitter() = default;

std::vector<std::pair<size_t, size_t>> RegexSplitter::split(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> pieces;
  UErrorCode status = U_ZERO_ERROR;
  // A UTF-8 UText's native indexes are byte offsets: the matches come back as byte ranges.
  UText* utext = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  std::unique_ptr<icu::RegexMatcher> matcher(impl_->compiled->matcher(status));
  if (U_FAILURE(status)) {
    utext_close(utext);
    throw std::runtime_error(std::string("ICU: cannot run the pre-tokenizer regex: ") + u_errorName(status));
  }
  matcher->reset(utext);
  size_t covered = 0;
  while (matcher->find(status) && U_SUCCESS(status)) {
    const auto begin = static_cast<size_t>(matcher->start64(status));
    const auto end = static_cast<size_t>(matcher->end64(status));
    if (end == begin) continue;
    if (begin > covered) pieces.emplace_back(covered, begin);
    pieces.emplace_back(begin, end);
    covered = end;
  }
  matcher.reset();
  utext_close(utext);
  if (U_FAILURE(status))
    throw std::runtime_error(std::string("ICU: the pre-tokenizer regex failed: ") + u_errorName(status));
  if (covered < text.size()) pieces.emplace_back(covered, text.size());
  return pieces;
}

}  // namespace headroom::core::text
