// The run table's order (filter, then sort) computed off the UI thread: filtering 100,000 rows
// takes 10-40 ms and sorting them up to 30 ms, which a frame must not wait for.
//
// The UI posts the rows snapshot it wants shown with the filter and the sort; a background thread
// answers with the row pointers in table order, together with the snapshot they point into (the
// answer keeps it alive, so the pointers stay valid as long as the answer is held). Latest wins:
// typing a filter computes the last keystroke's order, not every one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "app/gui/explorer/explorer_loader.h"
#include "app/gui/explorer/run_filter.h"
#include "app/gui/explorer/run_rows.h"

namespace headroom::explorer {

struct OrderRequest {
  std::shared_ptr<const RowsSnapshot> rows;
  std::optional<RunFilter> filter;  // nullopt: every row
  RunColumn column = RunColumn::Suite;
  bool ascending = true;
  std::uint64_t filter_generation = 0;  // the asker's count of filter changes, handed back with the answer
};

struct OrderedRows {
  std::uint64_t request = 0;                 // the request this answers (0: none yet)
  std::shared_ptr<const RowsSnapshot> rows;  // the snapshot `shown` points into
  std::vector<const RunRow*> shown;          // filtered, in table order
  bool filtered = false;                     // a filter chose `shown` (else: every row)
  std::uint64_t filter_generation = 0;       // the request's
};

class TableOrderer {
 public:
  TableOrderer();
  ~TableOrderer();
  TableOrderer(const TableOrderer&) = delete;
  TableOrderer& operator=(const TableOrderer&) = delete;

  // Replaces any pending request; returns its id.
  std::uint64_t order(OrderRequest request);
  // The newest answer; never null (request 0 and no rows before the first).
  std::shared_ptr<const OrderedRows> ordered() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The order itself (what the thread runs): the rows the filter keeps, stably sorted.
std::vector<const RunRow*> order_rows(const std::vector<RunRow>& rows, const std::optional<RunFilter>& filter,
                                      RunColumn column, bool ascending);

}  // namespace headroom::explorer
