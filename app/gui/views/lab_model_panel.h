// The lab's left column: the model's controls (kind, d, h, h_k, h_v, d_p, r, V, L, causal, seed),
// the input (typed sentence or synthetic task) and saving / loading scene files.
#pragma once

#include <string>

#include "app/gui/lab/lab_controls.h"
#include "app/gui/lab/lab_types.h"
#include "app/gui/views/view.h"

namespace headroom::gui {

class LabModelPanel {
 public:
  LabModelPanel();
  // `snapshot`: the latest (for the token count of the typed input); may be null.
  void draw(LabControls& c, const LabSnapshot* snapshot, const ViewContext& ctx);
  void set_text(const std::string& text);  // the typed input (a scene or a loaded file)

  // The checkboxes and radio buttons whose label ran past the column's edge in the last frame
  // (--state-out: a test that the column leaves their labels room).
  int labels_clipped() const { return labels_clipped_; }
  // The column's least width for its checkbox labels to show whole, in the current font.
  static float least_width();

  char text_buffer[1024] = {};  // the typed input, edited in place
  int loaded_tab = -1;          // a scene file was loaded: select this tab (then set back to -1)

 private:
  void save_scene(LabControls& c);
  bool load_scene_file(LabControls* into);  // replaces the controls only when the whole file reads

  // The label of a control: beside it (ImGui's way), or on its own line above a full-width widget
  // when the column is too narrow for both (a lesson's large type on a 4:3 projector). Returns the
  // widget's label argument.
  std::string field(const char* label) const;
  void count_if_clipped();  // after a checkbox or radio button
  bool stacked_ = false;
  int labels_clipped_ = 0;
  char scene_path_[512] = {};
  std::string scene_message_;
  bool scene_error_ = false;
};

}  // namespace headroom::gui
