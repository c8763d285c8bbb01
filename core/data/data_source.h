// Where training batches come from: a tokenized corpus or a synthetic task. A batch is a pure
// function of (seed, step), so a resumed run sees exactly the batches it would have seen: the
// "data cursor" of a checkpoint is its step.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/data/corpus.h"
#include "core/data/synthetic.h"
#include "core/data/tokenizer.h"

namespace headroom::core {

struct Batch {
  torch::Tensor inputs;   // [B, n] int64
  torch::Tensor targets;  // [B, n] int64
  torch::Tensor mask;     // [B, n] float, 1 where the target counts; undefined = every target counts
};

class DataSource {
 public:
  virtual ~DataSource() = default;
  virtual int vocab_size() const = 0;
  virtual std::string describe() const = 0;
  // Training batch for a step: deterministic in (seed, step).
  virtual Batch train_batch(uint64_t seed, int64_t step, int batch, int n) const = 0;
  // Validation batch i of the fixed validation set (same for every step and every run).
  virtual Batch validation_batch(int index, int batch, int n) const = 0;
  // Labels for the GUI's axes.
  virtual std::string token_label(int32_t id) const = 0;
};

// corpus: "kjv", a path, or a synthetic task name (copy, reverse, induction, recall).
// tokenizer: "bytes" or "bpe:<V>" (ignored for synthetic tasks).
// Throws std::invalid_argument with a clear message (missing corpus, text too short for n ...).
std::unique_ptr<DataSource> make_data_source(const std::string& corpus, const std::string& tokenizer);

// Mixes a seed and a step into one 64-bit seed (splitmix64).
uint64_t mix_seed(uint64_t seed, uint64_t step);

}  // namespace headroom::core
