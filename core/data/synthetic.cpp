#include "core/data/synthetic.h"

#include <algorithm>

namespace headroom::core {

const char* to_string(SyntheticTask t) {
  switch (t) {
    case SyntheticTask::Copy: return "copy";
    case SyntheticTask::Reverse: return "reverse";
    case SyntheticTask::Induction: return "induction";
    case SyntheticTask::AssociativeRecall: return "recall";
  }
  return "?";
}

std::optional<SyntheticTask> parse_synthetic_task(const std::string& name) {
  for (auto t :
       {SyntheticTask::Copy, SyntheticTask::Reverse, SyntheticTask::Induction, SyntheticTask::AssociativeRecall})
    if (name == to_string(t)) return t;
  return std::nullopt;
}

std::string synthetic_task_names() { return "copy, reverse, induction, recall"; }

std::string synthetic_token_label(int32_t id) {
  if (id >= 0 && id < kSyntheticSymbols) return std::string(1, static_cast<char>('a' + id));
  if (id == kSyntheticSep) return "SEP";
  if (id == kSyntheticQuery) return "?";
  return "\xC2\xB7";  // ·
}

SyntheticSequence make_synthetic_sequence(SyntheticTask task, int n, std::mt19937_64& rng) {
  n = std::max(n, 4);
  std::uniform_int_distribution<int> sym(0, kSyntheticSymbols - 1);
  SyntheticSequence s;
  s.tokens.assign(n + 1, kSyntheticPad);
  s.mask.assign(n, 0);
  switch (task) {
    case SyntheticTask::Copy:
    case SyntheticTask::Reverse: {
      const int k = n / 2;  // k symbols, SEP, k (or k-1) answers
      for (int i = 0; i < k; ++i) s.tokens[i] = sym(rng);
      s.tokens[k] = kSyntheticSep;
      for (int i = 0; k + 1 + i <= n && i < k; ++i) {
        s.tokens[k + 1 + i] = task == SyntheticTask::Copy ? s.tokens[i] : s.tokens[k - 1 - i];
        s.mask[k + i] = 1;  // target index t predicts tokens[t + 1]
      }
      break;
    }
    case SyntheticTask::Induction: {
      const int k = (n + 1) / 2;
      for (int i = 0; i < k; ++i) s.tokens[i] = sym(rng);
      for (int i = k; i <= n; ++i) {
        s.tokens[i] = s.tokens[i - k];
        s.mask[i - 1] = 1;
      }
      break;
    }
    case SyntheticTask::AssociativeRecall: {
      // Distinct keys so the answer is unique.
      const int pairs = std::min((n - 2) / 2, kSyntheticSymbols);  // 2 * pairs <= n - 2: QUERY key fit after
      std::vector<int> keys(kSyntheticSymbols);
      for (int i = 0; i < kSyntheticSymbols; ++i) keys[i] = i;
      std::shuffle(keys.begin(), keys.end(), rng);
      int pos = 0;
      for (int p = 0; p < pairs; ++p) {
        s.tokens[pos++] = keys[p];
        s.tokens[pos++] = sym(rng);
      }
      const int asked = std::uniform_int_distribution<int>(0, pairs - 1)(rng);
      // Fill the gap (if any) with PAD, then QUERY key -> value at the very end.
      s.tokens[n - 2] = kSyntheticQuery;
      s.tokens[n - 1] = keys[asked];
      s.tokens[n] = s.tokens[2 * asked + 1];
      s.mask[n - 1] = 1;
      break;
    }
  }
  return s;
}

}  // namespace headroom::core
