// The explorer's run table: a filter line, sortable columns, multi-selection (ctrl / shift).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <imgui.h>

#include "app/gui/explorer/run_filter.h"
#include "app/gui/views/explorer_session.h"
#include "experiments_db/run_status.h"

namespace headroom::gui {

ImVec4 status_color(db::RunStatus s);

class ExplorerTable {
 public:
  // Re-filters and re-sorts session.shown when the rows, the filter or the sort changed.
  void update(ExplorerSession& session);
  // `bench_scroll`: --bench-frames scrolls the table through its rows, a page jump per frame.
  void draw(ExplorerSession& session, float ui_scale, bool bench_scroll = false);
  void set_filter(const std::string& text);  // a scene's "filter"
  void reset() { filtered_version_ = 0; }    // a new DB

 private:
  char filter_buffer_[256] = {};
  std::string filter_text_, filter_error_;
  std::optional<explorer::RunFilter> filter_;
  std::uint64_t filtered_version_ = 0;
  explorer::RunColumn sort_column_ = explorer::RunColumn::Suite;
  bool sort_ascending_ = true;
  bool sort_dirty_ = true;
  std::int64_t anchor_ = -1;  // shift-click extends the selection from here
  int bench_frame_ = 0;
};

}  // namespace headroom::gui
