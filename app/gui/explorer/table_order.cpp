#include "app/gui/explorer/table_order.h"

#include "app/gui/mailbox_thread.h"

namespace headroom::explorer {

std::vector<const RunRow*> order_rows(const std::vector<RunRow>& rows, const std::optional<RunFilter>& filter,
                                      RunColumn column, bool ascending) {
  std::vector<const RunRow*> shown;
  shown.reserve(rows.size());
  for (const auto& r : rows)
    if (!filter || matches(*filter, r)) shown.push_back(&r);
  sort_rows(shown, column, ascending);
  return shown;
}

struct TableOrderer::State {
  gui::MailboxThread<OrderRequest, OrderedRows> thread{[](std::uint64_t id, OrderRequest& request) {
    auto answer = std::make_shared<OrderedRows>();
    answer->request = id;
    answer->rows = std::move(request.rows);
    answer->filtered = request.filter && !request.filter->terms.empty();
    answer->filter_generation = request.filter_generation;
    if (answer->rows) answer->shown = order_rows(answer->rows->rows, request.filter, request.column, request.ascending);
    return std::shared_ptr<const OrderedRows>(std::move(answer));
  }};
};

TableOrderer::TableOrderer() : state_(std::make_unique<State>()) {}

TableOrderer::~TableOrderer() = default;

std::uint64_t TableOrderer::order(OrderRequest request) { return state_->thread.post(std::move(request)); }

std::shared_ptr<const OrderedRows> TableOrderer::ordered() const { return state_->thread.snapshot(); }

}  // namespace headroom::explorer
