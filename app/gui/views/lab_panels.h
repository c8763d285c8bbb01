// The lab's panels that keep no state of their own: each draws from the engine's latest snapshot
// and the lab's controls (LabControls, which a scene saves). The panels with state of their own
// are LabModelPanel (lab_model_panel.h) and LabTheoremPanel (lab_theorem_panel.h).
#pragma once

#include <array>
#include <functional>
#include <vector>

#include "app/gui/lab/lab_controls.h"
#include "app/gui/lab/lab_types.h"
#include "app/gui/views/view.h"

namespace headroom::gui {

// The model, its costs (as TH's tables and §5 count them) and the papers' bottleneck badges (lab_summary.cpp).
// `max_badge_lines` > 0: each bottleneck badge's text in at most that many lines, the whole in its
// tooltip (a projector's large type would push the maps below the fold).
void draw_lab_summary(const LabSnapshot& s, int max_badge_lines = 0);
// Which layer a panel shows: a radio button per layer up to 8 (a slider's grab would hide the value
// of a two-layer model), a slider beyond; `id` tells the panels' pickers apart (lab_maps.cpp).
void layer_picker(const char* id, int* layer, int layers, float ui_scale);
// Where the lines view was drawn last (screen pixels), for --state-out and the tests that click it.
struct LinesViewDrawn {
  bool drawn = false;
  float x = 0, y = 0, width = 0, height = 0;
  float top = 0, row_h = 0;  // token i's row is centred at y + top + (i + 0.5) row_h
  int tokens = 0, focus_query = -1, focus_key = -1;
  struct HeadLink {
    int head = 0;
    float x = 0, y = 0;  // the centre of the head's name in the focus panel
  };
  std::vector<HeadLink> head_links;  // names that open the neurons view (with a query pinned)
};
// How the model view ("all layers") laid out its heads in the last frame.
struct ModelViewDrawn {
  bool drawn = false;
  int rows = 0, cols = 0;  // each layer's grid of heads
  float tile = 0;          // a map's side, pixels
  int roles_shown = 0;     // heads labelled with their role (at W, where the tile is wide enough)
  // Each tile's centre (screen pixels) as {layer, head, x, y}: where a click opens that head.
  std::vector<std::array<float, 4>> tile_centres;
};
// What the neurons view showed in the last frame.
struct NeuronsViewDrawn {
  bool drawn = false;
  int head = -1, query = -1, keys = 0, r = 0;
  float sum_error = 0;  // worst |sum of the products - the logit shown| over its keys
  float x = 0, y = 0;   // the widget's origin (screen pixels)
  float keys_y = 0, cell_h = 0, products_x = 0, cell_w = 0;  // key j's products row from y + keys_y + j cell_h
  float head_button_x = 0, head_button_y = 0;                // the centre of the picked head's button (screen pixels)
};
struct MapsDrawn {
  LinesViewDrawn lines;
  ModelViewDrawn model;
  NeuronsViewDrawn neurons;
};
// Every head's map at the chosen stage, one enlarged on click, the lines between the tokens
// (BertViz's head view), or every layer at once (its model view); *drawn says how (lab_maps.cpp).
void draw_lab_maps(const LabSnapshot& s, LabControls& c, const ViewContext& ctx, MapsDrawn* drawn = nullptr);
// Each head's singular spectrum against the rank cap (lab_rank.cpp).
void draw_lab_rank(const LabSnapshot& s, LabControls& c, const ViewContext& ctx);
// VB eq. 9's separation-rank bound against the width, for this embedding rank (lab_separation.cpp).
void draw_lab_separation(const LabSnapshot& s, const ViewContext& ctx);
// P_l, P_w and P_l x P_w with their conditioning (lab_projections.cpp). Returns how many of them
// ended below the panel's visible bottom (0 when each map and its measures are in view).
int draw_lab_projections(const LabSnapshot& s, LabControls& c, const ViewContext& ctx);

// Train / Step / Reset and the loss curve (lab_training.cpp). `post(single_steps, reset)` asks
// the engine for steps now or a re-initialisation.
using PostSteps = std::function<void(int single_steps, bool reset)>;
// `plot_height` > 0 sizes the loss curve (a lesson step about training gives it the screen).
void draw_lab_training(const LabSnapshot& s, LabControls& c, const ViewContext& ctx, const PostSteps& post,
                       float plot_height = 0);

}  // namespace headroom::gui
