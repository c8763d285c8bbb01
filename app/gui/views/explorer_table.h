// The explorer's run table: a filter line, sortable columns, multi-selection (ctrl / shift).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <imgui.h>

#include "app/gui/explorer/run_filter.h"
#include "app/gui/explorer/table_order.h"
#include "app/gui/views/explorer_session.h"
#include "experiments_db/run_status.h"

namespace headroom::gui {

ImVec4 status_color(db::RunStatus s);

class ExplorerTable {
 public:
  // Asks for the order of `latest` (the loader's newest rows) when they, the filter or the sort
  // changed; when an order arrives, session.rows and session.shown become that snapshot and its
  // order (computed off the UI thread: explorer::TableOrderer).
  void update(ExplorerSession& session, std::shared_ptr<const explorer::RowsSnapshot> latest);
  // The order shown is the one last asked for (the rows, filter and sort of now).
  bool current() const { return applied_ == posted_; }
  std::uint64_t orders_asked() const { return posted_; }
  // `bench_scroll`: --bench-frames scrolls the table through its rows, a page jump per frame.
  void draw(ExplorerSession& session, float ui_scale, bool bench_scroll = false);
  void set_filter(const std::string& text);  // a scene's "filter"
  // The filter as typed now (nullopt when it is empty or does not parse: the table then shows
  // every run), before the next update() reads it.
  std::optional<explorer::RunFilter> filter_now() const;
  // Scrolls the table once to the first of these runs in its order when one is shown, and focuses
  // that run (a scene's, a lesson's or the default selection may lie below the rows in view).
  void scroll_to(std::set<std::int64_t> ids) { scroll_to_ = std::move(ids); }
  // A scroll asked for has not reached its row yet, in a table drawn in the last frame (automation
  // waits for it: at most a few frames; a lesson panel without the table does not).
  bool scrolling() const;
  void reset();  // a new DB
  // Columns a narrow window left out in the last frame (tok/s first, then device, L, V, r, suite).
  int columns_dropped() const { return columns_dropped_; }
  // Run names drawn in the last frame that their column cut short (shown whole in a tooltip).
  int names_clipped() const { return names_clipped_; }
  // Suite names drawn in the last frame that their column cut short (0 while the column is left out).
  int suites_clipped() const { return suites_clipped_; }
  // Whether the focused run's row was in view in the last frame.
  bool focused_row_visible() const { return focused_row_visible_; }

 private:
  char filter_buffer_[256] = {};
  std::string filter_text_, filter_error_;
  std::optional<explorer::RunFilter> filter_;
  explorer::TableOrderer orderer_;
  std::shared_ptr<const explorer::RowsSnapshot> posted_rows_;
  std::uint64_t posted_ = 0, applied_ = 0, first_request_ = 1;
  std::uint64_t filter_generation_ = 0;  // counts the filter's changes (ExplorerSession::shown_filter_generation)
  explorer::RunColumn sort_column_ = explorer::RunColumn::Suite;
  bool sort_ascending_ = true;
  bool sort_dirty_ = true;
  std::int64_t anchor_ = -1;  // shift-click extends the selection from here
  int bench_frame_ = 0;
  int columns_dropped_ = 0;
  int names_clipped_ = 0;
  int suites_clipped_ = 0;
  std::set<std::int64_t> scroll_to_;
  std::int64_t scroll_id_ = -1;  // the row being brought into view, for scroll_frames_left_ more frames
  int scroll_frames_left_ = 0;
  int drawn_frame_ = -10;  // ImGui's frame count when the table was last drawn
  bool focused_row_visible_ = false;
  std::uint64_t names_measured_for_ = ~std::uint64_t{0};  // the order whose names names_width_ measured
  float names_scale_ = 0.0f, names_width_ = 0.0f;
  // The suite column's width: the DB's widest suite name (measured when its rows change), applied
  // when it changes (ImGui keeps a fixed column's first width otherwise); 0 before the first table.
  const void* suites_measured_for_ = nullptr;
  float suites_scale_ = 0.0f, suite_width_ = 0.0f, suite_width_applied_ = 0.0f;
};

}  // namespace headroom::gui
