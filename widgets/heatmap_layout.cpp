#include "widgets/heatmap_layout.h"

#include <algorithm>
#include <cmath>

namespace headroom::widgets {

HeatmapLayout heatmap_layout(const HeatmapLayoutInput& in) {
  HeatmapLayout out;
  const int rows = std::max(1, in.rows), cols = std::max(1, in.cols);
  const float row_part = in.row_label_w > 0.0f ? in.row_label_w + in.gap : 0.0f;
  const float scale_part = in.scale_w > 0.0f ? in.scale_w + in.gap : 0.0f;
  const float col_part = in.col_label_h > 0.0f ? in.col_label_h + in.gap : 0.0f;
  const float title_part = in.title_h > 0.0f ? in.title_h + in.gap * 0.5f : 0.0f;

  float cw = std::max(0.0f, (in.width - row_part - scale_part) / cols);
  float ch = cw;
  if (in.height > 0.0f) {
    ch = std::max(0.0f, (in.height - title_part - col_part) / rows);
    if (in.square_cells) cw = ch = std::min(cw, ch);
  }
  out.cell_w = cw;
  out.cell_h = ch;
  const float cells_w = cw * cols, cells_h = ch * rows;

  const ImVec2 o = in.origin;
  out.title = ImRect(o, ImVec2(o.x + row_part + cells_w + scale_part, o.y + in.title_h));
  const float top = o.y + title_part;
  out.row_labels = ImRect(ImVec2(o.x, top), ImVec2(o.x + in.row_label_w, top + cells_h));
  out.cells = ImRect(ImVec2(o.x + row_part, top), ImVec2(o.x + row_part + cells_w, top + cells_h));
  out.col_labels = ImRect(ImVec2(out.cells.Min.x, out.cells.Max.y + (col_part > 0 ? in.gap : 0.0f)),
                          ImVec2(out.cells.Max.x, out.cells.Max.y + col_part));
  out.scale = ImRect(ImVec2(out.cells.Max.x + (scale_part > 0 ? in.gap : 0.0f), top),
                     ImVec2(out.cells.Max.x + scale_part, top + cells_h));
  out.size = ImVec2(row_part + cells_w + scale_part, title_part + cells_h + col_part);
  return out;
}

GridLayout grid_layout(int count, float avail_w, float avail_h, float spacing, float extra_h, float min_tile) {
  GridLayout best;
  if (count <= 0 || !(avail_w > 0.0f)) return best;
  for (int cols = 1; cols <= count; ++cols) {
    const int rows = (count + cols - 1) / cols;
    float w = (avail_w - spacing * (cols - 1)) / cols;
    if (avail_h > 0.0f) {
      const float h_fit = (avail_h - spacing * (rows - 1)) / rows - extra_h;
      w = std::min(w, h_fit);
    }
    w = std::floor(w);
    if (w > best.tile_w) best = {cols, rows, w, w + extra_h};
  }
  if (best.tile_w < min_tile) {
    // Too little room: keep min_tile and as many columns as the width allows.
    const int cols = std::clamp(static_cast<int>((avail_w + spacing) / (min_tile + spacing)), 1, count);
    best = {cols, (count + cols - 1) / cols, min_tile, min_tile + extra_h};
  }
  return best;
}

int label_stride(int n, float extent_px, float label_px) {
  if (n <= 0 || !(extent_px > 0.0f)) return std::max(1, n);
  const float per = extent_px / n;
  if (per >= label_px) return 1;
  return std::max(1, static_cast<int>(std::ceil(label_px / per)));
}

bool cell_at(const ImRect& cells, int rows, int cols, const ImVec2& p, int* row, int* col) {
  if (rows <= 0 || cols <= 0) return false;
  if (p.x < cells.Min.x || p.y < cells.Min.y || p.x >= cells.Max.x || p.y >= cells.Max.y) return false;
  const float w = cells.GetWidth(), h = cells.GetHeight();
  if (!(w > 0.0f) || !(h > 0.0f)) return false;
  *col = std::min(cols - 1, static_cast<int>((p.x - cells.Min.x) / w * cols));
  *row = std::min(rows - 1, static_cast<int>((p.y - cells.Min.y) / h * rows));
  return true;
}

}  // namespace headroom::widgets
