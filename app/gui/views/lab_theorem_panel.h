// The lab's Theorem 1 tab: LRB Theorem 1 live. Owns the TheoremDemo thread and what it was asked.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "app/gui/lab/lab_controls.h"
#include "app/gui/lab/theorem_demo.h"
#include "app/gui/views/view.h"

namespace headroom::gui {

class LabTheoremPanel {
 public:
  // Posts a new request when the tab is shown and its inputs changed (a head's map comes from
  // `snapshot`).
  void update(const LabControls& c, const LabSnapshot* snapshot);
  void draw(LabControls& c, const ViewContext& ctx);
  // The frame drawn last showed the answer to the last request with its whole error curve (a
  // screenshot shows that frame, so a newer snapshot that was not drawn yet does not count).
  bool settled() const;
  // The frame drawn last showed the answer to the last request: the target, the reached pattern
  // and their difference (the error curve may still be filling in).
  bool answer_drawn() const;
  // What the last frame showed, for --state-out and lesson handouts: n, d_p, causal, method,
  // construction_rank, max_abs_error, max_logit (null before an answer was drawn).
  nlohmann::json state() const;

 private:
  TheoremDemo demo_;
  std::string key_;
  std::uint64_t posted_ = 0;
  std::shared_ptr<const TheoremSnapshot> drawn_;  // the snapshot the last frame showed
};

}  // namespace headroom::gui
