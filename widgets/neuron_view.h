// BertViz's neuron view for one head and one query: how each logit is made. A head's logit for
// query i and key j is a dot product L[i][j] = sum_c a_c b_c of two factor rows of r numbers (a from
// the query, b from the key: the scaled q and k of a head, r = d_k; core::logit_factors gives them
// for every attention kind). The widget draws, one row per key, the r products a_c b_c as cells
// (red positive, blue negative), their sum (the logit) and the softmax weight as a bar; the query's
// own row a stands above. Few components (small r) visibly build every logit of the row: LRB
// §2.3's bottleneck, component by component. Hover a cell for its numbers; right-click: Export PNG.
//
// The layout and the hit test are pure functions, tested without a window; the widget draws with
// ImGui's draw list only, so it also runs in a headless ImGui frame.
#pragma once

#include <imgui.h>

#include <vector>

namespace headroom::widgets {

struct NeuronViewInput {
  const float* a = nullptr;        // r: the query's factor row
  const float* b = nullptr;        // keys x r, row-major: each key's factor row
  const float* logits = nullptr;   // keys: the head's logit for each key (the products' sum)
  const float* weights = nullptr;  // keys: the softmax weight of each key, or null
  int keys = 0, r = 0;
  int group = 0;  // > 0: a rule between every `group` components (talking-heads: one key head's d_k)
  const char* const* key_labels = nullptr;  // keys strings, or null (indices)
  const char* query_label = "query";
};

struct NeuronGeometry {
  ImVec2 size{0, 0};     // what the widget occupies
  float label_w = 0.0f;  // the key labels' column (left)
  float cell_w = 0.0f, cell_h = 0.0f;
  float header_h = 0.0f;                                     // the column titles' line
  float products_x = 0.0f, logit_x = 0.0f, weight_x = 0.0f;  // left edges, relative to the origin
  float logit_w = 0.0f, weight_w = 0.0f;
  float query_y = 0.0f;  // the query row's top (a), relative to the origin
  float keys_y = 0.0f;   // the first key row's top
};
// Cells as wide as fit between min_cell and max_cell (the widget scrolls beyond), rows as tall as
// fit between min_row and the text's height. The products' block is at least title_w wide (its
// title), so that a few wide cells do not run their title into the logit column's.
NeuronGeometry neuron_view_geometry(int keys, int r, float avail_w, float avail_h, float label_w, float text_h,
                                    float title_w = 0.0f, float min_cell = 3.0f, float max_cell = 28.0f,
                                    float min_row = 4.0f);

// What is under p (relative to the widget's origin): a key row (0..keys-1), or -2 for the query's
// row, and a component (0..r-1), or -1 outside the products (then *column says which column:
// 0 products, 1 logit, 2 weight, -1 none). -1 for the row outside the rows.
struct NeuronHit {
  int row = -1;        // key index, -2: the query row
  int component = -1;  // products column
  int column = -1;     // 0 products, 1 logit, 2 weight
};
NeuronHit neuron_view_hit(const NeuronGeometry& g, int keys, int r, ImVec2 p);

// The largest |a_c b_c| over every key and component (the products' colour scale), and the worst
// |sum_c a_c b_c - logit| over the keys: how exactly the cells add up to the logits shown.
float neuron_products_max(const NeuronViewInput& in);
float neuron_sum_error(const NeuronViewInput& in);

struct NeuronViewResult {
  NeuronHit hovered;
  ImVec2 origin{0, 0};
  NeuronGeometry geometry;
};
NeuronViewResult NeuronView(const char* id, const NeuronViewInput& in);

}  // namespace headroom::widgets
