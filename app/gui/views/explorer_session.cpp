#include "app/gui/views/explorer_session.h"

#include <algorithm>
#include <cmath>

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

void ExplorerSession::check_workers(double now) {
  const explorer::RowsSnapshot* current = rows ? rows.get() : nullptr;
  if (current == checked_rows_ && std::abs(now - checked_at_) < 1.0) return;
  checked_rows_ = current;
  checked_at_ = now;
  stranded.clear();
  if (current == nullptr || current->running == 0) return;
  for (const explorer::RunRow& row : current->rows) {
    if (row.status != db::RunStatus::Running) continue;
    const db::WorkerCheck check = db::check_worker(row.worker, row.heartbeat_at, now);
    if (check.state != db::WorkerState::Alive) stranded.emplace(row.id, check);
  }
}

bool ExplorerSession::benchmarking() const { return context.options && context.options->bench_frames > 0; }

}  // namespace headroom::gui
