// The run table's order, computed on the orderer's thread.
#include "app/gui/explorer/table_order.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

namespace headroom::explorer {
namespace {

std::shared_ptr<const RowsSnapshot> snapshot_of(int count) {
  auto s = std::make_shared<RowsSnapshot>();
  s->open = true;
  for (int i = 0; i < count; ++i) {
    RunRow r;
    r.id = i + 1;
    r.name = "run" + std::to_string(i);
    r.name_key = natural_sort_key(r.name);
    r.h = 1 << (i % 5);  // 1, 2, 4, 8, 16
    r.best_val_loss = (i % 7 == 3) ? kNaN : 3.0 - 0.01 * i;
    s->rows.push_back(r);
  }
  return s;
}

std::shared_ptr<const OrderedRows> answer_to(const TableOrderer& orderer, std::uint64_t request) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (orderer.ordered()->request < request && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return orderer.ordered();
}

TEST(TableOrder, OrderRowsFiltersThenSortsStably) {
  const auto s = snapshot_of(40);
  std::string error;
  const auto filter = parse_run_filter("h>=8", &error);
  ASSERT_TRUE(filter) << error;
  const auto shown = order_rows(s->rows, filter, RunColumn::BestVal, true);
  ASSERT_EQ(shown.size(), 16u);  // h is 8 or 16 for two ids in five
  for (std::size_t i = 1; i < shown.size(); ++i) {
    EXPECT_GE(shown[i]->h, 8);
    const double a = shown[i - 1]->best_val_loss, b = shown[i]->best_val_loss;
    EXPECT_TRUE(std::isnan(b) || a <= b) << i;  // ascending, NaN last
  }
  EXPECT_EQ(order_rows(s->rows, std::nullopt, RunColumn::Name, true).size(), 40u);
}

TEST(TableOrderer, AnswersTheLatestRequestWithTheRowsItPointsInto) {
  TableOrderer orderer;
  EXPECT_EQ(orderer.ordered()->request, 0u);
  std::string error;
  orderer.order({snapshot_of(10), std::nullopt, RunColumn::Name, true});
  orderer.order({snapshot_of(20), parse_run_filter("h=4", &error), RunColumn::Name, false});
  auto rows = snapshot_of(30);
  const auto* first_row = &rows->rows.front();
  const auto last = orderer.order({rows, parse_run_filter("h=16", &error), RunColumn::Name, false});
  rows.reset();  // the answer keeps the snapshot alive
  const auto answer = answer_to(orderer, last);
  ASSERT_EQ(answer->request, last);
  ASSERT_TRUE(answer->rows);
  ASSERT_EQ(answer->rows->rows.size(), 30u);
  EXPECT_EQ(&answer->rows->rows.front(), first_row);
  const auto want = order_rows(answer->rows->rows, parse_run_filter("h=16", &error), RunColumn::Name, false);
  ASSERT_EQ(answer->shown, want);
  ASSERT_EQ(answer->shown.size(), 6u);  // ids 5, 10, ..., 30
  for (const RunRow* r : answer->shown) {
    EXPECT_GE(r, &answer->rows->rows.front());
    EXPECT_LE(r, &answer->rows->rows.back());
  }
  EXPECT_EQ(answer->shown.front()->name, "run29");  // descending by name, naturally
}

}  // namespace
}  // namespace headroom::explorer
