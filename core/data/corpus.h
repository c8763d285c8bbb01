// Text corpora: the built-in King James Bible (Debian's bible-kjv) and any UTF-8 text file,
// split deterministically into train and validation text. No torch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace headroom::core {

// The second built-in corpus: the English prose of the Linux kernel's Documentation/ tree
// (reStructuredText, ~21 MB, GPL-2.0 with some files also CC-BY-4.0 per their SPDX lines), read
// from Debian's linux-source-6.1 tarball: large enough that paper-scale models do not over-fit
// the way they do on KJV's ~4 MB. The text depends on the package's version (its fingerprint keys
// the caches built from it).
inline constexpr const char* kLinuxDocsCorpus = "linux-docs";
// Less than this from the tarball means it is not a kernel source tree (6.1 gives ~21 MB).
inline constexpr size_t kLinuxDocsMinBytes = 1000000;

struct Corpus {
  std::string name;          // "kjv", "linux-docs" or the file's path
  std::string train;         // ~95% of the text
  std::string validation;    // ~5%: every 20th block of ~8 KiB, cut at line ends (same for every run)
  uint64_t fingerprint = 0;  // FNV-1a of the whole text: keys caches (e.g. BPE models)
};

// The directory Headroom caches corpora and tokenizers in: $HEADROOM_CACHE_DIR, else
// $XDG_CACHE_HOME/headroom, else ~/.cache/headroom. Created if missing.
std::string cache_dir();

// "kjv" runs `bible gen1:1-rev22:21` (argv, no shell) once and caches one verse per line;
// "linux-docs" runs `tar` once on $HEADROOM_LINUX_SOURCE (default
// /usr/src/linux-source-6.1.tar.xz) for Documentation/*.rst but translations/, and caches the
// text; anything else is a path to a UTF-8 text file. Both built-ins are read from the cache
// (cache_dir()) after the first time. Throws std::invalid_argument with a message that says what
// to do (install bible-kjv / linux-source-6.1, fix the path, the file is not UTF-8 / empty ...).
Corpus load_corpus(const std::string& name_or_path);
// The whole text load_corpus splits (same names, caches and errors), unsplit and unhashed.
std::string load_corpus_text(const std::string& name_or_path);

// The linux-docs corpus's tarball: $HEADROOM_LINUX_SOURCE, else Debian's path.
std::string linux_source_tarball();

// True for the names load_corpus treats as built-in.
bool is_builtin_corpus(const std::string& name);

// Splits text as load_corpus does (exposed for tests).
void split_train_validation(const std::string& text, std::string* train, std::string* validation);
// How many distinct bytes occur in the training part of that split, without copying it (the lab's
// vocabulary badge: the symbols a byte-level model trained on).
int count_train_symbols(const std::string& text);
// The sizes in bytes of the two parts that split makes, without copying them: a byte tokenizer
// gives exactly that many tokens, sentencepiece's BPE at most one more (a line's dummy prefix
// takes the place of its newline, and the last line may have none).
struct SplitBytes {
  size_t train = 0, validation = 0;
};
SplitBytes split_bytes(const std::string& text);

// FNV-1a 64-bit hash.
uint64_t fnv1a64(const std::string& bytes);

// Byte offset of the first invalid UTF-8 sequence, or -1 when the text is valid UTF-8.
long long first_invalid_utf8(const std::string& text);

}  // namespace headroom::core
