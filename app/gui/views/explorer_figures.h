// The explorer's Paper figures tab: each stored suite's figure re-made from its runs, beside the
// paper's reference numbers (assets/reference), with the numbers behind both in a table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/gui/explorer/figures.h"
#include "app/gui/views/explorer_session.h"

namespace headroom::gui {

class ExplorerFigures {
 public:
  // Rebuilds the figures when the rows changed (reference CSVs are read from `reference_dir`).
  void draw(const ExplorerSession& session, const std::string& reference_dir);
  bool settled(const ExplorerSession& session) const { return session.rows && version_ == session.rows->version; }
  std::size_t count() const { return figures_.size(); }
  // The suite of the figure shown ("" before any).
  std::string current_suite() const {
    return figures_.empty() ? "" : figures_[static_cast<size_t>(std::clamp(index_, 0, int(figures_.size()) - 1))].suite;
  }
  void reset() { figures_.clear(), version_ = 0; }  // a new DB

  std::string scene_figure;  // the suite whose figure a scene asked for (applied once it exists)
  std::string scene_export;  // a scene's "export" on this tab: the figure's table to this stem + ".csv"
  explorer::FigureAxis scene_axis = explorer::FigureAxis::Default;

 private:
  std::vector<explorer::Figure> figures_;
  std::uint64_t version_ = 0;
  std::string warnings_;
  int index_ = 0;
  // x of each figure, by suite name (absent: the figure's default; VB figures plot parameters).
  std::map<std::string, explorer::FigureAxis> axes_;
  bool stale_ = false;
  std::string export_message_;
  bool export_error_ = false;
  // Writes fig's table as CSV to `path`; the outcome shows beside the button.
  void export_csv(const explorer::Figure& fig, const std::string& path);
};

}  // namespace headroom::gui
