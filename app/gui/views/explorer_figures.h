// The explorer's Paper figures tab: each stored suite's figure re-made from its runs, beside the
// paper's reference numbers (assets/reference), with the numbers behind both in a table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/gui/explorer/figure_builder.h"
#include "app/gui/explorer/figures.h"
#include "app/gui/views/explorer_session.h"

namespace headroom::gui {

class ExplorerFigures {
 public:
  // Asks for the figures again when the rows changed or an x axis was picked (built on the
  // builder's thread; reference CSVs are read from `reference_dir`), and draws the newest built.
  void draw(const ExplorerSession& session, const std::string& reference_dir);
  // The figures shown were built from the rows shown, on the axes picked.
  bool settled(const ExplorerSession& session) const {
    return session.rows && current() && version_ == session.rows->version;
  }
  std::size_t count() const { return figures_.size(); }
  // The suite of the figure shown ("" before any).
  std::string current_suite() const {
    return figures_.empty() ? "" : figures_[static_cast<size_t>(std::clamp(index_, 0, int(figures_.size()) - 1))].suite;
  }
  // The suites of the runs the person looks at (the selection, else the filtered rows) when none
  // of those runs is in a figure, comma-separated ("" when one is, or nothing is looked at): the
  // figure shown is then another suite's, and the tab says so.
  const std::string& unplaced() const { return unplaced_; }
  // A new DB: the figures of the old one go, and an answer still on its way for it is ignored.
  void reset() {
    unplaced_.clear();
    figures_.clear();
    warnings_.clear();
    version_ = 0;
    have_figures_ = false;
    want_request_ = true;
    adopted_request_ = last_request_;
    followed_ = false;
    pinned_ = false;
  }

  std::string scene_figure;  // the suite whose figure a scene asked for (applied once it exists)
  std::string scene_export;  // a scene's "export" on this tab: the figure's table to this stem + ".csv"
  explorer::FigureAxis scene_axis = explorer::FigureAxis::Default;

 private:
  explorer::FigureBuilder builder_;
  std::uint64_t last_request_ = 0;     // the newest request posted to builder_
  std::uint64_t adopted_request_ = 0;  // the request whose answer figures_ holds (or reset's cut)
  std::uint64_t requested_version_ = 0;
  bool want_request_ = true;   // post one on the next draw (first draw, a new DB)
  bool have_figures_ = false;  // figures_ holds an answer for this DB (else: building the first)
  bool current() const { return have_figures_ && adopted_request_ == last_request_ && !stale_; }
  std::vector<explorer::Figure> figures_;
  std::uint64_t version_ = 0;  // the rows version figures_ were built from
  std::string warnings_;
  int index_ = 0;
  // Until a figure is chosen (in the combo, or by a scene), the figure shown follows what the
  // person looks at (explorer::figure_for_runs): the selection, else the table's filtered rows,
  // asked again whenever either changes. A chosen figure stays until another DB is opened.
  bool pinned_ = false;
  bool followed_ = false;
  std::set<std::int64_t> followed_selection_;
  std::uint64_t followed_filter_generation_ = 0;
  std::string unplaced_;
  void follow(const ExplorerSession& session);
  // x of each figure, by suite name (absent: the figure's default; VB figures plot parameters).
  std::map<std::string, explorer::FigureAxis> axes_;
  bool stale_ = false;
  std::string export_message_;
  bool export_error_ = false;
  // Writes fig's table as CSV to `path`; the outcome shows beside the button.
  void export_csv(const explorer::Figure& fig, const std::string& path);
};

}  // namespace headroom::gui
