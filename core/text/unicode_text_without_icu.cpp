// unicode_text.h where Headroom is built without ICU (-DHEADROOM_ICU=OFF: a worker that trains, as on
// a borrowed GPU machine that carries no ICU): every question that needs ICU's Unicode data throws
// one message naming what is missing, so a real model's tokenizer fails where it is loaded, and
// `inspect --model DIR --ids ...` still works (its labels are then the ids).
#include <stdexcept>

#include "core/text/unicode_text.h"

namespace headroom::core::text {
namespace {

[[noreturn]] void no_icu(const char* what) {
  throw std::runtime_error(std::string(what) +
                           " needs ICU, and this Headroom was built without it (-DHEADROOM_ICU=OFF); "
                           "build with ICU (libicu-dev) for real models' tokenizers");
}

}  // namespace

bool is_bert_whitespace(int32_t) { no_icu("a Unicode whitespace class"); }
bool is_bert_control(int32_t) { no_icu("a Unicode control class"); }
bool is_bert_punctuation(int32_t) { no_icu("a Unicode punctuation class"); }
bool is_alphanumeric(int32_t) { no_icu("a Unicode letter class"); }
std::string to_lower(std::string_view) { no_icu("Unicode lower-casing"); }
std::string strip_accents(std::string_view) { no_icu("Unicode accent stripping"); }

struct RegexSplitter::Impl {};

RegexSplitter::RegexSplitter(const std::string& pattern) : pattern_(pattern) {
  no_icu("a tokenizer's pre-tokenization pattern (a Unicode regular expression)");
}
RegexSplitter::~RegexSplitter() = default;

std::vector<std::pair<size_t, size_t>> RegexSplitter::split(std::string_view) const {
  no_icu("a tokenizer's pre-tokenization pattern (a Unicode regular expression)");
}

}  // namespace headroom::core::text
