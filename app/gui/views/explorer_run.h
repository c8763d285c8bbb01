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
  void reset() { wanted_ = {}, replay_step_ = -1, weights_index_ = -1, drawn_.reset(), config_run_ = -1; }  // a new DB

 private:
  void draw_projection_replay(const explorer::RunDetail& detail, float ui_scale);

  explorer::RunDetailRequest wanted_;                 // what the loader was asked for
  std::int64_t replay_step_ = -1;                     // -1: the newest snapshot
  int weights_index_ = -1;                            // -1: the newest stored weights
  std::shared_ptr<const explorer::RunDetail> drawn_;  // what the last frame showed
  std::int64_t config_run_ = -1;                      // whose config config_text_ shows
  std::uint64_t config_version_ = 0;                  // from which RunDetail
  std::string config_text_;                           // pretty-printed once per run, not per frame
};

}  // namespace headroom::gui
