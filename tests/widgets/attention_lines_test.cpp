// The head view (BertViz's lines between tokens): its geometry, which lines it draws, and whole
// headless frames that hover and click it.
#include "widgets/attention_lines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <algorithm>
#include <vector>

#include "tests/widgets/headless_imgui.h"
#include "widgets/frame_stats.h"

namespace hw = headroom::widgets;

namespace {

// A causal previous-token head: query q puts 0.8 on key q-1 and 0.2 on itself (query 0: 1 on itself).
std::vector<float> previous_token_head(int n) {
  std::vector<float> m(static_cast<size_t>(n) * n, 0.0f);
  m[0] = 1.0f;
  for (int q = 1; q < n; ++q) {
    m[static_cast<size_t>(q) * n + q - 1] = 0.8f;
    m[static_cast<size_t>(q) * n + q] = 0.2f;
  }
  return m;
}

// A head spreading each query's weight evenly over keys 0..q.
std::vector<float> uniform_causal_head(int n) {
  std::vector<float> m(static_cast<size_t>(n) * n, 0.0f);
  for (int q = 0; q < n; ++q)
    for (int k = 0; k <= q; ++k) m[static_cast<size_t>(q) * n + k] = 1.0f / static_cast<float>(q + 1);
  return m;
}

}  // namespace

TEST(AttentionLinesGeometry, RowsFitTheHeightUntilTheyReachTheirMinimum) {
  // 20 tokens in 200 px: rows of about 10 px (text is 13 px, so a full row would be ~15 px), and
  // half the text's excess above the first row and below the last, so their labels stay inside.
  auto g = hw::attention_lines_geometry(20, 800, 200, 50, 13);
  EXPECT_NEAR(g.row_h, 9.85f, 0.01f);
  EXPECT_NEAR(g.top, 0.5f * (13 - g.row_h), 1e-4);
  EXPECT_NEAR(g.size.y, 200.0f, 0.2f);
  EXPECT_EQ(g.label_stride, 2);  // 10 px rows under 13 px labels: two columns of labels, zig-zag
  EXPECT_EQ(g.label_columns, 2);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(g.label_drawn(i)) << i;
  EXPECT_NEAR(g.query_label_x(0, 50), g.line_x0 - 8 - 50, 1e-4);       // column 0 next to the lines
  EXPECT_NEAR(g.query_label_x(1, 50), g.line_x0 - 8 - 50 - 53, 1e-4);  // column 1 beyond it
  EXPECT_NEAR(g.key_label_x(1) - g.key_label_x(0), 53, 1e-4);
  EXPECT_GE(g.query_label_x(1, 50), 0.0f);  // inside the widget
  // Plenty of height: rows stop at the text's height, labels all drawn.
  g = hw::attention_lines_geometry(20, 800, 2000, 50, 13);
  EXPECT_NEAR(g.row_h, 13.0f * 1.15f, 1e-4);
  EXPECT_FLOAT_EQ(g.top, 0.0f);
  EXPECT_EQ(g.label_stride, 1);
  // 500 tokens in 200 px: rows stay at 4 px and the widget grows (the caller scrolls).
  g = hw::attention_lines_geometry(500, 800, 200, 50, 13);
  EXPECT_FLOAT_EQ(g.row_h, 4.0f);
  EXPECT_FLOAT_EQ(g.size.y, 2000.0f + 9.0f);
  // 4 px rows under 13 px labels: a label every 4 rows would need 4 columns; 3 are drawn.
  EXPECT_EQ(g.label_stride, 4);
  EXPECT_EQ(g.label_columns, 3);
  EXPECT_TRUE(g.label_drawn(2));
  EXPECT_FALSE(g.label_drawn(3));
  EXPECT_TRUE(g.label_drawn(4));
}

TEST(AttentionLinesGeometry, LinesSitBetweenTheLabelsAndNeverFlattenPastTheirMaximum) {
  auto g = hw::attention_lines_geometry(10, 300, 200, 50, 13);
  EXPECT_GT(g.line_x0, g.label_w);
  EXPECT_GT(g.line_x1, g.line_x0);
  EXPECT_NEAR(g.size.x, 300.0f, 1e-3);                 // fills a narrow width exactly
  EXPECT_NEAR(g.size.x - g.line_x1, g.line_x0, 1e-3);  // symmetric label columns
  const auto wide = hw::attention_lines_geometry(10, 3000, 200, 50, 13);
  EXPECT_LT(wide.size.x, 3000.0f);  // a very wide panel does not stretch the lines
  EXPECT_LE(wide.line_x1 - wide.line_x0, 420.0f);
  // Too narrow for the labels: the lines keep a minimum span and the widget is wider than asked.
  const auto narrow = hw::attention_lines_geometry(10, 60, 200, 50, 13);
  EXPECT_GE(narrow.line_x1 - narrow.line_x0, 40.0f);
}

TEST(AttentionLinesGeometry, TokenUnderTheMouseAndItsSide) {
  const auto g = hw::attention_lines_geometry(10, 300, 200, 50, 13);  // 15 px rows
  bool key = true;
  EXPECT_EQ(hw::attention_lines_token_at(g, 10, ImVec2(10, g.top + 0.5f * g.row_h), &key), 0);
  EXPECT_FALSE(key);
  EXPECT_EQ(hw::attention_lines_token_at(g, 10, ImVec2(g.size.x - 5, g.top + 3.5f * g.row_h), &key), 3);
  EXPECT_TRUE(key);
  EXPECT_EQ(hw::attention_lines_token_at(g, 10, ImVec2(10, g.size.y + 1), &key), -1);
  EXPECT_EQ(hw::attention_lines_token_at(g, 10, ImVec2(-1, 5), &key), -1);
  EXPECT_EQ(hw::attention_lines_token_at(g, 10, ImVec2(g.size.x, 5), &key), -1);
}

TEST(AttentionLinesSet, AQueryKeepsItsRowAKeyItsColumnAndWeakLinesGo) {
  const int n = 6;
  const auto prev = previous_token_head(n), uni = uniform_causal_head(n);
  const float* maps[] = {prev.data(), uni.data()};
  // Query 3: head 0 reads keys 2 (0.8) and 3 (0.2); head 1 reads 0..3 at 0.25 each.
  auto lines = hw::attention_lines(maps, 2, nullptr, n, 3, -1, 0.0f);
  ASSERT_EQ(lines.size(), 6u);
  for (const auto& l : lines) EXPECT_EQ(l.query, 3);
  EXPECT_EQ(lines.back().head, 0);  // the strongest last, drawn on top
  EXPECT_EQ(lines.back().key, 2);
  EXPECT_FLOAT_EQ(lines.back().weight, 0.8f);
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_LE(lines[i - 1].weight, lines[i].weight);
  // Key 2's readers: head 0's queries 2 and 3, head 1's queries 2..5.
  lines = hw::attention_lines(maps, 2, nullptr, n, -1, 2, 0.0f);
  std::set<std::pair<int, int>> got;
  for (const auto& l : lines) {
    got.insert({l.head, l.query});
    EXPECT_EQ(l.key, 2);
  }
  EXPECT_EQ(got, (std::set<std::pair<int, int>>{{0, 2}, {0, 3}, {1, 2}, {1, 3}, {1, 4}, {1, 5}}));
  // Everything from 0.4: head 0's previous-token lines and query 0's self line, head 1's first two rows.
  lines = hw::attention_lines(maps, 2, nullptr, n, -1, -1, 0.4f);
  int head0 = 0, head1 = 0;
  for (const auto& l : lines) (l.head == 0 ? head0 : head1)++;
  EXPECT_EQ(head0, n);  // (0,0) and (q, q-1) for q = 1..5
  EXPECT_EQ(head1, 3);  // (0,0) at 1, (1,0) and (1,1) at 0.5
}

TEST(AttentionLinesSet, HiddenHeadsAndBadValuesDrawNothing) {
  const int n = 4;
  auto prev = previous_token_head(n);
  prev[5] = std::numeric_limits<float>::quiet_NaN();  // query 1 -> key 1
  const auto uni = uniform_causal_head(n);
  const float* maps[] = {prev.data(), uni.data()};
  const bool shown[] = {true, false};
  const auto lines = hw::attention_lines(maps, 2, shown, n, 1, -1, 0.0f);
  ASSERT_EQ(lines.size(), 1u);  // head 1 hidden, the NaN dropped: only 1 -> 0 of head 0
  EXPECT_EQ(lines[0].key, 0);
  EXPECT_TRUE(hw::attention_lines(maps, 2, shown, n, 7, -1, 0.0f).size() > 0);  // a query past n: every row
  EXPECT_TRUE(hw::attention_lines(nullptr, 2, shown, n, 1, -1, 0.0f).empty());
}

TEST(AttentionLinesColor, HeadsHaveDistinctColours) {
  for (int heads : {4, 10, 16, 64}) {
    std::set<ImU32> colours;
    for (int h = 0; h < heads; ++h) colours.insert(hw::head_color(h, heads));
    EXPECT_EQ(static_cast<int>(colours.size()), heads) << heads << " heads";
  }
}

namespace {

class AttentionLinesFrame : public ::testing::Test {
 protected:
  void SetUp() override { headroom::widgets::testing::create_headless_imgui_context(); }
  void TearDown() override { ImGui::DestroyContext(); }

  // One frame with the widget at the window's origin (no padding), the mouse at `mouse`.
  hw::AttentionLinesResult frame(const float* const* maps, int heads, int n, int pinned, ImVec2 mouse, bool down,
                                 int max_lines = 4000) {
    headroom::widgets::testing::begin_frame(mouse, 0.0f, down, true);
    // The widget's own geometry: its labels are the indices 0..n-1.
    float label_w = 0.0f;
    for (int i = 0; i < n; ++i) label_w = std::max(label_w, ImGui::CalcTextSize(std::to_string(i).c_str()).x);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    geometry_ = hw::attention_lines_geometry(n, avail.x, avail.y, label_w, ImGui::GetTextLineHeight());
    hw::AttentionLinesStyle style;
    style.max_lines = max_lines;
    const auto r = hw::AttentionLines("##lines", maps, heads, nullptr, n, pinned, style);
    stats_ = headroom::widgets::testing::end_frame();
    return r;
  }
  hw::FrameStats stats_;
  hw::LinesGeometry geometry_;
};

}  // namespace

TEST_F(AttentionLinesFrame, HoverFocusesATokenAndAClickPinsAQuery) {
  const int n = 12;
  const auto prev = previous_token_head(n), uni = uniform_causal_head(n);
  const float* maps[] = {prev.data(), uni.data()};
  // Nothing hovered, nothing pinned: every line from the default 0.1 (head 0: query 0's self line,
  // 11 previous-token and 11 self lines; head 1: the rows of queries 0..9, whose 1 / (q + 1) >= 0.1).
  auto r = frame(maps, 2, n, -1, ImVec2(-100, -100), false);
  EXPECT_EQ(r.focus_query, -1);
  EXPECT_EQ(stats_.attention_lines_drawn, 1 + 11 + 11 + 55);
  // Pinned query 5: its row only (head 0: 2 lines, head 1: 6).
  r = frame(maps, 2, n, 5, ImVec2(-100, -100), false);
  EXPECT_EQ(r.focus_query, 5);
  EXPECT_EQ(stats_.attention_lines_drawn, 8);
  // The mouse over query 2's label, at the widget's left edge.
  const float row = geometry_.row_h;
  r = frame(maps, 2, n, 5, ImVec2(2, geometry_.top + 2.5f * row), false);
  EXPECT_EQ(r.hovered, 2);
  EXPECT_FALSE(r.hovered_key);
  EXPECT_EQ(r.focus_query, 2);  // hover wins over the pin
  EXPECT_EQ(stats_.attention_lines_drawn, 2 + 3);
  // Press and release there: query 2 is clicked.
  frame(maps, 2, n, 5, ImVec2(2, 2.5f * row), true);
  r = frame(maps, 2, n, 5, ImVec2(2, geometry_.top + 2.5f * row), false);
  EXPECT_EQ(r.clicked_query, 2);
}

TEST_F(AttentionLinesFrame, HoveringAKeyShowsItsReaders) {
  const int n = 12;
  const auto prev = previous_token_head(n);
  const float* maps[] = {prev.data()};
  frame(maps, 1, n, -1, ImVec2(-100, -100), false);  // learns the geometry
  // The right end of the widget: key 4's label. It is read by query 5 (0.8) and query 4 (0.2).
  const auto r = frame(maps, 1, n, -1, ImVec2(geometry_.size.x - 2, geometry_.top + 4.5f * geometry_.row_h), false);
  EXPECT_EQ(r.hovered, 4);
  EXPECT_TRUE(r.hovered_key);
  EXPECT_EQ(r.focus_key, 4);
  EXPECT_EQ(r.focus_query, -1);
  EXPECT_EQ(stats_.attention_lines_drawn, 2);
}

TEST_F(AttentionLinesFrame, TooManyLinesKeepTheStrongest) {
  const int n = 12;
  const auto prev = previous_token_head(n), uni = uniform_causal_head(n);
  const float* maps[] = {prev.data(), uni.data()};
  frame(maps, 2, n, -1, ImVec2(-100, -100), false, 12);
  EXPECT_EQ(stats_.attention_lines_drawn, 12);          // of 78 from 0.1
  frame(maps, 2, n, -1, ImVec2(-100, -100), false, 0);  // no limit
  EXPECT_EQ(stats_.attention_lines_drawn, 1 + 11 + 11 + 55);
}
