// The lab's controls as plain state, apart from drawing: what a scene file saves, what the
// sliders edit, and how they become a LabRequest. Testable without a window or torch.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/lab/lab_types.h"
#include "app/gui/lab/theorem_demo.h"

namespace headroom::gui {

enum class LabTab { Heads, Rank, Projections, Theorem, Separation };
enum class MapStage { J, L, W, U };  // TH §4's intermediates
// Attention maps tab: a map per head of one layer, lines between the tokens (BertViz's head view),
// or every layer's heads at once (BertViz's model view).
enum class MapView { Heatmaps, Lines, Model, Neurons };
const char* to_string(LabTab t);
const char* to_string(MapStage s);
const char* to_string(MapView v);

struct LabControls {
  // model
  core::AttentionKind kind = core::AttentionKind::MultiHead;
  int d = 64;
  int heads = 8;
  int heads_k = 8, heads_v = 8;                    // talking-heads kinds
  bool standard_head_size = true;                  // d_p = d/h (LRB eq. 8) vs a fixed head size (LRB §3)
  int head_size = 8;                               // d_p when not standard
  int embed_rank = 0;                              // 0 = full
  int pos_rank = 0;                                // positional embedding rank (VB C.4); 0 = full
  bool positions = true;                           // a learned positional embedding; false: none (the causal mask only)
  core::PosInit pos_init = core::PosInit::Random;  // Zero: the positional table (its n x r_pos factor) starts at 0
  float pos_init_scale = 1.0f;                     // Random: the start's scale (core::ModelSpec::pos_init_scale)
  std::string vocab = "bytes";  // "bytes" (V = 256) or "bpe:<V>" trained on KJV (VB used 257, 500, 2000)
  int layers = 2;
  int context = 128;
  bool causal = true;
  uint64_t seed = 0;
  // input
  LabInput input = LabInput::Text;
  std::string text = "In the beginning God created the heaven and the earth.";
  core::SyntheticTask task = core::SyntheticTask::Induction;
  int synthetic_n = 24;
  // training
  bool training = false;
  float lr = 3e-3f;
  // what is shown
  LabTab tab = LabTab::Heads;
  int layer = 0;
  MapStage stage = MapStage::W;
  int enlarged_head = -1;
  MapView map_view = MapView::Heatmaps;
  int lines_query = -1;           // lines and neurons views: the pinned query token (-1: none)
  std::vector<int> lines_hidden;  // lines view: heads not drawn
  int neuron_head = 0;            // neurons view: the head whose logits are taken apart
  // head ablation (Attention maps tab): (layer, head) pairs switched off; each head's importance
  std::vector<std::pair<int, int>> heads_off;
  bool importance = false;
  // Theorem 1 demo
  TargetPattern pattern = TargetPattern::RandomStochastic;
  int theorem_n = 8;
  int theorem_dp = 4;
  int theorem_head = 0;         // for TargetPattern::HeadMap
  bool theorem_causal = false;  // Theorem 1 tab: causal target (query j sees keys 0..j)
};

// The model the controls describe; on an impossible combination returns false and fills
// `problems` (field names are the controls', e.g. "heads", "head size").
bool model_spec_of(const LabControls& c, core::ModelSpec* spec, std::vector<core::SpecProblem>* problems);

// True when the model starts its positional table from a random draw, the one start that
// pos_init_scale scales (false with a zero start or no positions).
bool has_random_pos_start(const LabControls& c);

// Switches (layer, head) off, or back on when it is off.
void toggle_head(LabControls* c, int layer, int head);
bool head_is_off(const LabControls& c, int layer, int head);

// The engine request for the controls (model, input, training flags).
LabRequest lab_request_of(const LabControls& c, const core::ModelSpec& spec);

// True when two models have the same parameters (only the causal mask differs, or nothing):
// then trained or stored weights carry over.
bool same_shapes(const core::ModelSpec& a, const core::ModelSpec& b);

// V of a vocabulary choice: "bytes" -> 256, "bpe:<V>" -> V; 0 (and *error) when malformed.
int vocab_size_of(const std::string& vocab, std::string* error);

// The controls that describe a stored model (an experiments-DB run), so the sliders show it and
// the next request keeps its shapes. `tokenizer` is the run's train.tokenizer.
void controls_from_model_spec(const core::ModelSpec& spec, const std::string& tokenizer, LabControls* c);

// The Theorem 1 tab's request from the controls; a head's map (TargetPattern::HeadMap) comes
// from `snapshot` (the chosen layer and head, at its own n). *key changes exactly when the
// request does (a new snapshot counts for a head's map).
TheoremRequest theorem_request_of(const LabControls& c, const LabSnapshot* snapshot, std::string* key);

nlohmann::json to_json(const LabControls& c);
// Reads a scene's "lab" object; unknown keys or wrong types fail with *error naming the key.
bool controls_from_json(const nlohmann::json& j, LabControls* c, std::string* error);

// A stored run that a scene or a lesson step opens in the lab, so it shows trained weights:
//   "lab": {"stored_run": {"name": "th-head-dims/6-24-6/seed=0", "db": "@results", "step": 3000}}
// db: a database path, "@results" (the default: the results shipped with Headroom) or
// "@paper/<suite>"; step: the newest stored weights at or before it, else the first (default:
// the run's last; a results-only export keeps only the last).
// The run's weights set the model's shape; the scene's other lab keys set the rest.
struct StoredRunRef {
  std::string db = "@results";
  std::string name;
  std::int64_t step = std::numeric_limits<std::int64_t>::max();
};
// Reads lab.stored_run from a scene's "lab" object: *out stays empty when the key is absent;
// false (and *error naming the key and what would be right) when it is malformed.
// controls_from_json leaves the key to this function.
bool stored_run_from_json(const nlohmann::json& lab, std::optional<StoredRunRef>* out, std::string* error);

}  // namespace headroom::gui
