#include "widgets/heatmap_layout.h"

#include <gtest/gtest.h>

namespace hw = headroom::widgets;

TEST(GridLayout, SixteenSquareMapsInASquareAreaMakeFourByFour) {
  const hw::GridLayout g = hw::grid_layout(16, 400, 400, 8, 0, 16);
  EXPECT_EQ(g.cols, 4);
  EXPECT_EQ(g.rows, 4);
  EXPECT_FLOAT_EQ(g.tile_w, 94.0f);  // (400 - 3*8) / 4
}

TEST(GridLayout, WideAreaUsesMoreColumns) {
  const hw::GridLayout g = hw::grid_layout(16, 1600, 200, 8, 20, 16);
  EXPECT_GE(g.cols, 8);
  EXPECT_LE(g.rows * (g.tile_h + 8) - 8, 200.0f + 1e-3f);
  EXPECT_LE(g.cols * (g.tile_w + 8) - 8, 1600.0f + 1e-3f);
}

TEST(GridLayout, UnboundedHeightFillsWidth) {
  const hw::GridLayout g = hw::grid_layout(32, 800, 0, 8, 20, 16);
  EXPECT_EQ(g.cols, 1);  // one column of 800-px maps is the largest tile
  EXPECT_FLOAT_EQ(g.tile_w, 800.0f);
}

TEST(GridLayout, NeverBelowMinTile) {
  const hw::GridLayout g = hw::grid_layout(64, 300, 100, 4, 10, 48);
  EXPECT_FLOAT_EQ(g.tile_w, 48.0f);
  EXPECT_EQ(g.cols, 5);  // (300 + 4) / 52
  EXPECT_EQ(g.rows, 13);
  EXPECT_EQ(hw::grid_layout(0, 100, 100, 4, 0, 8).cols, 0);
}

TEST(LabelStride, ThinsWhenLabelsDoNotFit) {
  EXPECT_EQ(hw::label_stride(10, 200, 14), 1);
  EXPECT_EQ(hw::label_stride(64, 256, 14), 4);  // 4 px per row -> every 4th label (16 px)
  EXPECT_EQ(hw::label_stride(256, 256, 14), 14);
  EXPECT_GE(hw::label_stride(5, 0, 14), 1);
}

TEST(CellAt, MapsPointsToCells) {
  const ImRect cells(ImVec2(10, 20), ImVec2(110, 70));  // 100 x 50
  int r = -1, c = -1;
  ASSERT_TRUE(hw::cell_at(cells, 5, 10, ImVec2(10, 20), &r, &c));
  EXPECT_EQ(r, 0);
  EXPECT_EQ(c, 0);
  ASSERT_TRUE(hw::cell_at(cells, 5, 10, ImVec2(109.9f, 69.9f), &r, &c));
  EXPECT_EQ(r, 4);
  EXPECT_EQ(c, 9);
  ASSERT_TRUE(hw::cell_at(cells, 5, 10, ImVec2(35, 41), &r, &c));
  EXPECT_EQ(r, 2);
  EXPECT_EQ(c, 2);
  EXPECT_FALSE(hw::cell_at(cells, 5, 10, ImVec2(110, 30), &r, &c));
  EXPECT_FALSE(hw::cell_at(cells, 5, 10, ImVec2(9, 30), &r, &c));
}

TEST(HeatmapLayout, PartsDoNotOverlapAndCellsAreSquare) {
  hw::HeatmapLayoutInput in;
  in.origin = ImVec2(5, 7);
  in.width = 500;
  in.height = 400;
  in.rows = 64;
  in.cols = 32;
  in.title_h = 16;
  in.row_label_w = 60;
  in.col_label_h = 50;
  in.scale_w = 40;
  in.gap = 4;
  const hw::HeatmapLayout L = hw::heatmap_layout(in);
  EXPECT_FLOAT_EQ(L.cell_w, L.cell_h);
  EXPECT_LE(L.size.x, in.width + 1e-3f);
  EXPECT_LE(L.size.y, in.height + 1e-3f);
  EXPECT_LE(L.row_labels.Max.x, L.cells.Min.x);
  EXPECT_LE(L.cells.Max.x, L.scale.Min.x);
  EXPECT_LE(L.title.Max.y, L.cells.Min.y);
  EXPECT_LE(L.cells.Max.y, L.col_labels.Min.y);
  EXPECT_FLOAT_EQ(L.cells.GetWidth(), L.cell_w * 32);
  EXPECT_FLOAT_EQ(L.scale.GetHeight(), L.cells.GetHeight());
}

TEST(HeatmapLayout, WidthOnlyDerivesHeight) {
  hw::HeatmapLayoutInput in;
  in.width = 256;
  in.rows = in.cols = 16;
  in.gap = 0;
  const hw::HeatmapLayout L = hw::heatmap_layout(in);
  EXPECT_FLOAT_EQ(L.cell_w, 16.0f);
  EXPECT_FLOAT_EQ(L.size.y, 256.0f);
}
