// The explorer's Curves tab: the selected runs' curves overlaid (any metric, x axis, log axes,
// smoothing, seed or config-key groups with bands), zoom that refetches the window at full
// resolution, CSV / SVG / PNG export, and "open this step in the lab".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/gui/explorer/curves.h"
#include "app/gui/explorer/explorer_loader.h"
#include "app/gui/views/explorer_session.h"

namespace headroom::gui {

class ExplorerCurves {
 public:
  struct Settings {
    std::string metric = kDefaultMetric;
    explorer::XAxis x_axis = explorer::XAxis::Step;
    bool log_x = false, log_y = false;
    Smoothing smoothing = Smoothing::None;
    float ema_weight = 0.6f;
    int ma_window = 5;
    Grouping grouping = Grouping::None;
    char group_key[128] = "model.attention.heads";
    explorer::BandKind band = explorer::BandKind::MinMax;
    int buckets = 320;  // per curve; each bucket also draws its exact min..max, so spikes survive
  };
  Settings settings;
  std::string scene_export;  // a file stem from a scene: CSV + SVG of the curves once drawn

  // What this tab needs from the loader: each selected run's whole curve (also the map from x
  // back to steps) and, when zoomed, its zoomed window at full resolution.
  std::vector<explorer::CurveKey> wanted(const ExplorerSession& session) const;
  // `bench_pan`: --bench-frames pans and zooms through the runs, a new window every 4 frames.
  void draw(ExplorerSession& session, bool bench_pan);
  bool settled(const ExplorerSession& session) const;
  bool zoomed() const { return zoom_steps_.has_value(); }
  int curves_drawn() const { return curves_drawn_; }
  // Whether a control of the row above the plot ran past the window's edge in the last frame.
  bool controls_overflow() const { return controls_overflow_; }
  void reset() { zoom_steps_.reset(); }  // a new DB

 private:
  void draw_controls(float ui_scale);
  void export_csv(const ExplorerSession& session);
  void draw_export_bar(ExplorerSession& session, const ImVec2& plot_min, const ImVec2& plot_max);

  std::optional<db::StepRange> zoom_steps_;  // steps of the zoomed window (nullopt: everything)
  int curves_drawn_ = 0;
  bool controls_overflow_ = false;
  double marked_step_ = -1;  // the step clicked on the plot (opened in the lab)
  std::string svg_request_;  // path to write the next frame's plot SVG to
  std::string svg_buffer_;
  std::string export_message_;
  bool export_error_ = false;
  char export_path_[512] = "headroom-curves";
  int bench_frame_ = 0;
};

}  // namespace headroom::gui
