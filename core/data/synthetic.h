// Synthetic sequence tasks for fast tests and live demos (no torch). Each sequence has n + 1
// tokens (inputs are the first n, targets the last n) and a mask saying which targets count.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace headroom::core {

enum class SyntheticTask {
  Copy,               // a_1..a_k SEP a_1..a_k: predict the copy
  Reverse,            // a_1..a_k SEP a_k..a_1: predict the reversal
  Induction,          // a random prefix repeated: predict the repeat (induction heads)
  AssociativeRecall,  // k_1 v_1 ... k_j v_j QUERY k_i -> v_i: predict the value
};

const char* to_string(SyntheticTask task);
std::optional<SyntheticTask> parse_synthetic_task(const std::string& name);  // "copy", "reverse", "induction", "recall"
std::string synthetic_task_names();
// The corpus name is a synthetic task's ("copy", ...), not a text corpus.
inline bool is_synthetic_corpus(const std::string& name) { return parse_synthetic_task(name).has_value(); }

// Token ids: 0..kSyntheticSymbols-1 are content symbols, then SEP, QUERY, PAD.
inline constexpr int kSyntheticSymbols = 26;
inline constexpr int kSyntheticSep = 26;
inline constexpr int kSyntheticQuery = 27;
inline constexpr int kSyntheticPad = 28;
inline constexpr int kSyntheticVocab = 29;

struct SyntheticSequence {
  std::vector<int32_t> tokens;  // n + 1
  std::vector<uint8_t> mask;    // n: 1 where target tokens[i + 1] is scored
};

// One sequence of n + 1 tokens; n >= 4.
SyntheticSequence make_synthetic_sequence(SyntheticTask task, int n, std::mt19937_64& rng);

// A label for a synthetic token id ("a".."z", "SEP", "?", "·").
std::string synthetic_token_label(int32_t id);

}  // namespace headroom::core
