// Text corpora: the built-in King James Bible (Debian's bible-kjv) and any UTF-8 text file,
// split deterministically into train and validation text. No torch.
#pragma once

#include <string>

namespace headroom::core {

struct Corpus {
  std::string name;          // "kjv" or the file's path
  std::string train;         // ~95% of the text
  std::string validation;    // ~5%: every 20th block of ~8 KiB, cut at line ends (same for every run)
  uint64_t fingerprint = 0;  // FNV-1a of the whole text: keys caches (e.g. BPE models)
};

// The directory Headroom caches corpora and tokenizers in: $HEADROOM_CACHE_DIR, else
// $XDG_CACHE_HOME/headroom, else ~/.cache/headroom. Created if missing.
std::string cache_dir();

// "kjv" runs `bible gen1:1-rev22:21` (argv, no shell) once and caches one verse per line;
// anything else is a path to a UTF-8 text file. Throws std::invalid_argument with a message that
// says what to do (install bible-kjv, fix the path, the file is not UTF-8 / empty ...).
Corpus load_corpus(const std::string& name_or_path);

// True for the names load_corpus treats as built-in.
bool is_builtin_corpus(const std::string& name);

// Splits text as load_corpus does (exposed for tests).
void split_train_validation(const std::string& text, std::string* train, std::string* validation);

// FNV-1a 64-bit hash.
uint64_t fnv1a64(const std::string& bytes);

// Byte offset of the first invalid UTF-8 sequence, or -1 when the text is valid UTF-8.
long long first_invalid_utf8(const std::string& text);

}  // namespace headroom::core
