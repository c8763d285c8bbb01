// The explorer's Run tab: one run's numbers and config, its stored weights to open in the lab,
// and a replay of its talking-heads projections P_l / P_w over training (TH §7.4, Fig. 1). The
// loader reads and decodes; this only draws what arrived.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "app/gui/explorer/explorer_loader.h"
#include "app/gui/views/explorer_session.h"

namespace headroom::gui {

class ExplorerRun {
 public:
  void draw(ExplorerSession& session);
  // The frame drawn last showed the focused run's details (and the replayed step, if one was picked).
  bool settled(const ExplorerSession& session) const;
  // A lesson's replay: the run's whole page, or only its P_l / P_w replay, large.
  void draw_replay_panel(ExplorerSession& session);
  // A lesson's replay animation: the stored snapshot at this fraction of the run's training (0..1);
  // -1 hands the slider back.
  void set_replay_fraction(double f) { replay_fraction_ = f; }
  std::int64_t replay_step() const { return replay_step_; }
  // The run's one-line summary as last drawn ("step 0 of 30; train loss -, ..."), for --state-out.
  const std::string& summary() const { return summary_; }
  void reset() { wanted_ = {}, replay_step_ = -1, weights_index_ = -1, drawn_.reset(), config_run_ = -1; }  // a new DB

 private:
  // The focused run's row, or null with a line saying why; asks the loader for its details.
  const explorer::RunRow* request(ExplorerSession& session);
  void draw_projection_replay(const explorer::RunDetail& detail, float ui_scale, bool large = false);

  explorer::RunDetailRequest wanted_;                 // what the loader was asked for
  std::int64_t replay_step_ = -1;                     // -1: the newest snapshot
  double replay_fraction_ = -1;                       // a lesson's animation; -1: the slider's
  int weights_index_ = -1;                            // -1: the newest stored weights
  std::shared_ptr<const explorer::RunDetail> drawn_;  // what the last frame showed
  std::int64_t config_run_ = -1;                      // whose config config_text_ shows
  std::uint64_t config_version_ = 0;                  // from which RunDetail
  std::string config_text_;                           // pretty-printed once per run, not per frame
  std::string summary_;
};

}  // namespace headroom::gui
