#include "app/gui/views/explorer_session.h"

#include <algorithm>

#include "app/gui/gui_options.h"

namespace headroom::gui {

const explorer::RunRow* ExplorerSession::find_row(std::int64_t id) const {
  if (!rows) return nullptr;
  const auto& all = rows->rows;
  auto it =
      std::lower_bound(all.begin(), all.end(), id, [](const explorer::RunRow& r, std::int64_t v) { return r.id < v; });
  return it != all.end() && it->id == id ? &*it : nullptr;
}

std::string ExplorerSession::short_name(const explorer::RunRow& row) const {
  if (!row.suite.empty() && row.name.rfind(row.suite + "/", 0) == 0) return row.name.substr(row.suite.size() + 1);
  return row.name;
}

void ExplorerSession::open_in_lab(const explorer::RunRow& row, std::int64_t step) {
  context.open_in_lab = StoredCheckpoint{loader->db_path(), row.id, row.name, row.tokenizer, step};
  context.select_view = "Lab";
}

bool ExplorerSession::curves_ready() const {
  return curves && curves->complete && curves->curves.size() == curves_wanted.size();
}

bool ExplorerSession::benchmarking() const { return context.options && context.options->bench_frames > 0; }

}  // namespace headroom::gui
