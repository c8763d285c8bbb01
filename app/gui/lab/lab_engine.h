// LabEngine: runs the lab's model on a background thread. The UI posts requests through a
// Mailbox (the latest wins: a slider dragged through ten values computes one or two of them) and
// picks up immutable snapshots; nothing here blocks a frame, stored weights included (read and
// decoded on the engine thread). Training runs on the same thread between requests and
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
  // Opens a stored run's weights from an experiments DB (after any request posted before),
  // reading the DB and decoding on the engine thread. The snapshots that follow carry
  // StoredRunState (its steps, the one loaded, or why it failed) and show that model, read with
  // the run's tokenizer; its train.corpus decides what the vocabulary badge counts. Returns the
  // request's id (StoredRunState::request_id answers it).
  uint64_t open_stored(const StoredCheckpoint& request);
  // Opens a Hugging Face model directory (config.json, *.safetensors and its tokenizer files) on
  // the engine thread; the snapshots that follow show it on the request's text (RealModelInfo says
  // what opened, or why it did not: the lab then keeps what it had). "" closes it: the lab's own
  // model comes back. Opening a stored run closes it too.
  uint64_t open_model(const std::string& dir);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace headroom::gui
