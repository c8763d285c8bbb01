// A stored checkpoint to open in the lab: what the explorer's "Open in lab" hands over and what
// the lab engine reads from the experiments DB (on its own thread).
#pragma once

#include <cstdint>
#include <string>

namespace headroom::gui {

struct StoredCheckpoint {
  std::string db_path;
  std::int64_t run_id = 0;
  std::string run_name;
  std::string tokenizer;  // the run's train.tokenizer ("bytes", "bpe:500")
  std::int64_t step = 0;  // wanted step: the newest stored weights at or before it (else the first)
};

}  // namespace headroom::gui
