#include "app/gui/explorer/table_order.h"

#include <thread>

#include "app/gui/mailbox.h"
#include "app/gui/thread_priority.h"

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
  gui::Mailbox<OrderRequest, OrderedRows> box;
  std::thread thread;  // last: starts once the mailbox exists

  void loop() {
    // Below the UI thread like the explorer's reader: the table keeps its last order meanwhile.
    gui::lower_this_thread_priority(5);
    std::optional<decltype(box)::Taken> taken;
    while (box.wait(&taken)) {
      if (!taken) continue;
      auto answer = std::make_shared<OrderedRows>();
      answer->request = taken->id;
      answer->rows = std::move(taken->request.rows);
      if (answer->rows)
        answer->shown =
            order_rows(answer->rows->rows, taken->request.filter, taken->request.column, taken->request.ascending);
      box.publish(std::move(answer));
    }
  }
};

TableOrderer::TableOrderer() : state_(std::make_unique<State>()) {
  state_->thread = std::thread([s = state_.get()] { s->loop(); });
}

TableOrderer::~TableOrderer() {
  state_->box.close();
  state_->thread.join();
}

std::uint64_t TableOrderer::order(OrderRequest request) { return state_->box.post(std::move(request)); }

std::shared_ptr<const OrderedRows> TableOrderer::ordered() const { return state_->box.snapshot(); }

}  // namespace headroom::explorer
