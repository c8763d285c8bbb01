// Geometry of heatmaps: where the cells, labels and color scale of one map go,
// how a grid of maps (one per attention head) tiles the available space, which
// token labels to keep when they do not all fit, and which cell is under the mouse.
// Pure functions, so the layout is tested without a window.
#pragma once

#include <imgui.h>
#include <imgui_internal.h>  // ImRect

namespace headroom::widgets {

struct HeatmapLayoutInput {
  ImVec2 origin{0, 0};
  float width = 0.0f;   // total width available to the widget
  float height = 0.0f;  // total height; <= 0 derives it from the cell size
  int rows = 1, cols = 1;
  bool square_cells = true;  // attention maps read best with square cells
  float title_h = 0.0f;      // 0 when there is no title
  float row_label_w = 0.0f;  // widest row label, 0 when row labels are hidden
  float col_label_h = 0.0f;  // widest (rotated) column label, 0 when hidden
  float scale_w = 0.0f;      // color scale bar plus its tick labels, 0 when hidden
  float gap = 4.0f;          // spacing between the parts
};

struct HeatmapLayout {
  ImVec2 size{0, 0};  // what the widget occupies (for ItemSize)
  ImRect title, cells, row_labels, col_labels, scale;
  float cell_w = 0.0f, cell_h = 0.0f;
};

HeatmapLayout heatmap_layout(const HeatmapLayoutInput& in);

struct GridLayout {
  int cols = 0, rows = 0;
  float tile_w = 0.0f;  // the map's width (and height: maps are square)
  float tile_h = 0.0f;  // tile_w + extra_h (the title line)
};

// Tiles `count` square maps (each plus extra_h for its title) into avail_w x avail_h
// with `spacing` between tiles, choosing the column count that makes tiles largest.
// avail_h <= 0 means unbounded (the caller scrolls). Tiles never shrink below
// min_tile: then the grid is as wide as fits and grows downwards.
GridLayout grid_layout(int count, float avail_w, float avail_h, float spacing, float extra_h, float min_tile);

// Show every k-th of n labels along extent_px so that labels label_px tall do not overlap.
int label_stride(int n, float extent_px, float label_px);

// Cell (row, col) under point p inside `cells`; false when p is outside.
bool cell_at(const ImRect& cells, int rows, int cols, const ImVec2& p, int* row, int* col);

}  // namespace headroom::widgets
