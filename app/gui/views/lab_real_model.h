// The lab's real-model panel (issue 16): a Hugging Face model directory to open (File > Open model,
// `headroom --model DIR`), and while one is open, its shape, what the analysis can claim for its
// heads, the sentence it reads through its own tokenizer, and the way back to the lab's own model.
#pragma once

#include <string>

#include "app/gui/lab/lab_types.h"

namespace headroom::gui {

class LabRealModelPanel {
 public:
  // What the user asked for this frame.
  struct Action {
    bool open = false;   // open `dir`
    bool close = false;  // back to the lab's own model
    std::string dir;
  };
  // `snapshot` may be null; `text_buffer` is the lab's sentence, edited in place.
  Action draw(const LabSnapshot* snapshot, char* text_buffer, size_t text_size);
  void focus_path() { focus_path_ = expanded_ = true; }  // File > Open model
  void set_path(const std::string& dir);
  void set_opening(const std::string& dir) { opening_ = dir; }
  void opened() { opening_.clear(); }

 private:
  char path_[1024] = {};
  bool focus_path_ = false, expanded_ = false;
  std::string opening_;     // being read on the engine thread
  std::string last_error_;  // the open error shown last
};

}  // namespace headroom::gui
