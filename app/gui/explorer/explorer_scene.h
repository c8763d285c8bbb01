// What a scene file (--scene, a lesson step) can set in the explorer: its "explorer" object,
// read and checked without a window (a lesson checks every step's scene when it opens; the step
// loads it later; the scene fuzz target runs it on arbitrary JSON).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/explorer/curves.h"
#include "app/gui/explorer/figures.h"

namespace headroom::gui {

enum class ExplorerTab { Curves, Figures, Run, Compare };
enum class Smoothing { None, Ema, MovingAverage };
enum class Grouping { None, SeedsOnly, ConfigKey };

inline constexpr const char* kDefaultMetric = "val_loss";

struct ExplorerScene {
  std::string db, open_in_lab, export_stem, metric = kDefaultMetric, filter, figure;
  explorer::XAxis x = explorer::XAxis::Step;
  ExplorerTab tab = ExplorerTab::Curves;
  Smoothing smoothing = Smoothing::None;
  Grouping grouping = Grouping::None;
  explorer::FigureAxis figure_x = explorer::FigureAxis::Default;
  std::optional<bool> log_y;
  std::optional<std::vector<std::string>> select;
  std::vector<std::array<std::string, 2>> pins;  // "pin": the Compare tab's pinned [A run, B run] pairs
  int bench_select = 0;
};

// Reads `j` (the scene's "explorer" value) into *out; false with one message in *error naming the
// key ("explorer.<key>: ...") and what would be right. Never throws.
bool parse_explorer_scene(const nlohmann::json& j, ExplorerScene* out, std::string* error);

}  // namespace headroom::gui
