// BertViz's head view, native: a layer's tokens twice, queries on the left and keys on the
// right, and a line from query i to key j for each shown head, as opaque as that head's weight
// W[i][j]. Hovering a token keeps only its lines (a query's reads, or a key's readers); a click
// on a query pins it. Heads have one colour each (head_color), so several heads read side by side.
// Right-click: Export PNG.
//
// The geometry and the set of lines are pure functions, tested without a window; the widget
// draws with ImGui's draw list only (no GL), so it also runs in a headless ImGui frame.
#pragma once

#include <imgui.h>

#include <vector>

namespace headroom::widgets {

// Where the two token columns and the lines between them go, for n tokens in `width` x
// `avail_h` pixels. Rows shrink to fit the height down to min_row_h; below that the widget grows
// taller than avail_h (the caller scrolls). Where rows are lower than the text, the labels
// zig-zag over label_columns side by side (token i in column i % label_stride, column 0 next to
// the lines), so that every token still reads; past kMaxLabelColumns the rest are left out.
struct LinesGeometry {
  static constexpr int kMaxLabelColumns = 3;
  ImVec2 size{0, 0};      // what the widget occupies
  float row_h = 0.0f;     // one token's row
  float top = 0.0f;       // the first row's top: room for a label taller than its row
  float label_w = 0.0f;   // one label column's width (the widest label)
  float line_x0 = 0.0f;   // lines start here (right of the query labels), relative to origin
  float line_x1 = 0.0f;   // and end here (left of the key labels)
  int label_stride = 1;   // rows between two labels of one column
  int label_columns = 1;  // min(label_stride, kMaxLabelColumns)

  // Whether token i's label is drawn, and the x (relative to the origin) where it starts on the
  // query side (right-aligned: pass the label's width) and on the key side.
  bool label_drawn(int i) const { return i % label_stride < label_columns; }
  float query_label_x(int i, float w) const;
  float key_label_x(int i) const;
};
LinesGeometry attention_lines_geometry(int n, float width, float avail_h, float label_w, float text_h,
                                       float min_row_h = 4.0f);

// The token under p (relative to the widget's origin): its index, and whether it is on the key
// side (right half) or the query side. -1 outside the rows.
int attention_lines_token_at(const LinesGeometry& g, int n, ImVec2 p, bool* key_side);

struct AttentionLine {
  int head = 0, query = 0, key = 0;
  float weight = 0.0f;
};

// The lines to draw. maps[h] is head h's n x n weights, row-major (row = query); shown[h] false
// hides a head (shown == nullptr: every head). query >= 0 keeps only that query's row, key >= 0
// only that key's column (query wins when both are given); otherwise every query's lines.
// Weights below min_weight are dropped (and non-finite ones). Sorted weakest first, so that the
// strong lines are drawn on top.
std::vector<AttentionLine> attention_lines(const float* const* maps, int heads, const bool* shown, int n, int query,
                                           int key, float min_weight);

// One colour per head: matplotlib's tab10 up to 10 heads, evenly spaced hues beyond.
ImU32 head_color(int head, int heads);

struct AttentionLinesStyle {
  const char* const* tokens = nullptr;  // n labels (nullptr: the token indices)
  float height = 0.0f;                  // <= 0: the available height
  // Lighter lines are not drawn when no token is in focus (every query's lines at once: at 0.02,
  // 16 heads of 54 tokens drew ~8,000 lines and a software renderer took 260 ms a frame; at 0.1,
  // 760 lines in 14 ms). A focused token's lines are drawn from 0.01.
  float min_weight = 0.1f;
  int max_lines = 4000;  // at most this many lines, the strongest (<= 0: no limit)
  int max_label_chars = 12;
};

struct AttentionLinesResult {
  int hovered = -1;          // the token under the mouse, or -1
  bool hovered_key = false;  // on the key side
  int clicked_query = -1;    // a query token clicked this frame
  int focus_query = -1;      // the query whose lines are drawn (hovered, else pinned), or -1
  int focus_key = -1;        // the key whose lines are drawn (hovered on the key side), or -1
  ImVec2 origin{0, 0};       // where the widget was drawn (screen pixels), with its geometry
  LinesGeometry geometry;
};

// Draws the view; pinned_query (-1: none) is drawn while no token is hovered.
AttentionLinesResult AttentionLines(const char* id, const float* const* maps, int heads, const bool* shown, int n,
                                    int pinned_query, const AttentionLinesStyle& style = {});

}  // namespace headroom::widgets
