// LabEngine: runs the lab's model on a background thread. The UI posts requests (the latest
// wins: a slider dragged through ten values computes one or two of them) and picks up immutable
// snapshots; nothing here blocks a frame. Training runs on the same thread between requests and
// publishes a few snapshots per second. A control that keeps the model's shapes (input, causal,
// task) keeps the trained weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/gui/lab/lab_types.h"

namespace headroom::gui {

class LabEngine {
 public:
  LabEngine();
  ~LabEngine();
  LabEngine(const LabEngine&) = delete;
  LabEngine& operator=(const LabEngine&) = delete;

  // Returns the request's id; the snapshot answering it carries the same request_id.
  uint64_t post(const LabRequest& request);
  // The newest snapshot (never null after construction; invalid until the first one).
  std::shared_ptr<const LabSnapshot> snapshot() const;
  // Loads weights (a "weights" artifact from the experiments DB, safetensors bytes, whose
  // metadata carries the model spec) into the lab, after any request posted before. The next
  // snapshot shows that model, read with `tokenizer` (the run's, e.g. "bpe:500"); `corpus` is the
  // run's train.corpus (the vocabulary badge counts the bytes that occur in it). False with
  // *error when the bytes are not such weights; a mismatch found later (the tokenizer's V is
  // not the model's) comes back as an invalid snapshot saying so.
  bool load_weights(const std::vector<uint8_t>& safetensors, const std::string& tokenizer, const std::string& corpus,
                    std::string* error);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace headroom::gui
