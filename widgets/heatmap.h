// Heatmaps of attention maps and matrices.
//
// A map is drawn as ONE OpenGL texture (one textured quad), not one rectangle per
// cell, so dozens of 256x256 maps stay smooth. Textures are cached per ImGui ID
// and re-uploaded only when the data pointer, HeatmapStyle::version, shape, range
// or colormap changes: callers that mutate a buffer in place must bump `version`.
#pragma once

#include <imgui.h>

#include <cstdint>

#include "widgets/colormap.h"

namespace headroom::widgets {

struct HeatmapStyle {
  const char* title = nullptr;  // drawn above the map (and in the tooltip)
  Colormap colormap = Colormap::Viridis;
  bool auto_range = true;                   // true: data min..max (symmetric +-max|v| for Diverging)
  float vmin = 0.0f, vmax = 1.0f;           // used when auto_range is false
  float auto_percentile = 100.0f;           // auto range up to this percentile (e.g. 99: robust to outliers)
  const char* const* row_labels = nullptr;  // `rows` strings, e.g. query tokens (optional)
  const char* const* col_labels = nullptr;  // `cols` strings, e.g. key tokens (optional)
  bool show_axis_labels = true;             // draw labels along the axes (thinned to fit)
  bool show_scale = true;                   // color scale bar on the right
  // Tooltip: printf format receiving (row label, column label, value as double).
  // Without labels the row/column indices are passed as strings.
  const char* tooltip_format = "query '%s' -> key '%s': %.3f";
  ImVec2 size = ImVec2(0, 0);  // total size; x <= 0: available width, y <= 0: from cells
  bool square_cells = true;
  int max_label_chars = 12;        // longer labels are cut with ".."
  float label_font_scale = 0.85f;  // labels slightly smaller than body text
  uint64_t version = 0;            // bump when the data behind the pointer changes
  bool selected = false;           // accent frame, e.g. the head currently enlarged
};

// Draws a rows x cols map (row-major floats). Returns true when it was clicked.
// Right-click offers "Export PNG" (written after the frame renders).
bool Heatmap(const char* id, const float* values, int rows, int cols, const HeatmapStyle& style = {});

// Draws `count` maps of the same shape as a grid filling the available width
// (and height when style.size.y > 0), e.g. every head of a layer. Tiles show
// titles[i] (or "head i"), and their axis labels where tiles are big enough for at least every
// other label; otherwise the labels are in the tooltips only. With a fixed range
// and show_scale, one shared color scale is drawn beside the grid.
// `selected` highlights one tile. Returns the index of the clicked tile, or -1.
int HeatmapGrid(const char* id, const float* const* maps, int count, int rows, int cols, const char* const* titles,
                const HeatmapStyle& style = {}, int selected = -1, float min_tile = 48.0f);

// A vertical color bar for [lo, hi] with ticks on its right. size.x covers bar and labels.
void ColorScale(const char* id, Colormap colormap, float lo, float hi, const ImVec2& size);

// Width ColorScale() needs for its bar and tick labels in the current font: room for labels like
// "-0.000", or, given the range, for the widest label its ticks can have ("-1e-06", "0.0005").
float ColorScaleWidth();
float ColorScaleWidth(float lo, float hi);

namespace detail {
void collect_heatmap_textures(int max_idle_frames);  // frees textures idle for that many frames
void release_heatmap_textures();
int heatmap_texture_count();
}  // namespace detail

}  // namespace headroom::widgets
