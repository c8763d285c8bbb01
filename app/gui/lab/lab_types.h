// What the lab view asks for and what the lab engine publishes. Plain data, no torch, no ImGui:
// the view draws a snapshot; the engine (lab_engine.cpp) computes it on its own thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/stored_checkpoint.h"
#include "core/analysis/bottleneck_report.h"
#include "core/analysis/head_roles.h"
#include "core/analysis/spectrum.h"
#include "core/attention/attention_costs.h"
#include "core/data/synthetic.h"
#include "core/model/model_spec.h"

namespace headroom::gui {

// A row-major float matrix.
struct Matrix {
  int rows = 0, cols = 0;
  std::vector<float> v;
  const float* data() const { return v.data(); }
};

enum class LabInput { Text, Synthetic };

struct LabRequest {
  core::ModelSpec model;            // model.vocab must be the tokenizer's V
  std::string tokenizer = "bytes";  // "bytes" or "bpe:<V>" trained on KJV (cached; the first use trains it)
  LabInput input = LabInput::Text;
  std::string text = "In the beginning God created the heaven and the earth.";
  core::SyntheticTask task = core::SyntheticTask::Induction;  // the synthetic input and the training task
  int synthetic_n = 24;
  uint64_t seed = 0;
  bool training = false;  // train in the background on `task`
  int single_steps = 0;   // > 0: take this many steps now (paused training)
  bool reset_training = false;
  // Set by LabEngine::post, not by callers: the steps of a request this one replaced before the
  // engine took it. They are owed to the same weights, so a reset or a new model drops them.
  int carried_steps = 0;
  double lr = 3e-3;
  int batch = 16;
  // Head ablation: these (layer, value head) pairs are switched off (their output rows of w_o read
  // as zero) in every map, spectrum and loss of the snapshot; the weights themselves are kept.
  std::vector<std::pair<int, int>> heads_off;
  int importance_layer = -1;  // >= 0: also measure each head of this layer switched off alone
};

// Losses with heads switched off, beside the whole model's (MHA tutorial: pruning heads).
struct Ablation {
  std::vector<std::pair<int, int>> heads_off;       // what the snapshot switched off
  double sentence_loss = 0, sentence_loss_all = 0;  // next-token loss on the input, with and without
  double val_loss = 0, val_loss_all = 0;            // on a fixed validation batch of what the model learned
  std::string val_source;                           // "the induction task", "KJV", ...
  int layer = -1;                                   // the layer `importance` is for (-1: not measured)
  std::vector<double> importance;                   // per value head: val loss with it off too, minus val_loss
};

// A talking-heads projection as TH §7.4 / Fig. 1 shows it: normalised to [-1, 1], with its
// conditioning (|det|, the smallest |eigenvalue| TH Fig. 1 reports, and the smallest singular
// value; square matrices only for the first two).
struct Projection {
  Matrix raw, normalised;
  double det = 0;  // NaN when not square
  double smallest_sv = 0;
  double smallest_abs_eigenvalue = 0;  // TH Fig. 1's "smallest eigenvalue" (its modulus); NaN when not square
};

struct LayerView {
  std::vector<Matrix> J, L, W, U;       // per head, n x n (rows: queries, cols: keys)
  std::vector<core::HeadRole> roles;    // per head of W: what it mostly attends to (core::head_role)
  std::vector<core::Spectrum> spectra;  // per softmax head: singular spectrum of L (masked -> 0)
  // Per head of L, its logits as factors L_h = A_h B_h^T (core::logit_factors; real models: the
  // trace's): A_h, B_h are n x r with r = d_k for a head's own logits, h_k d_k for mixed ones, d for
  // general-bilinear. Row i of A_h against row j of B_h, component by component, is what the
  // neurons view draws (BertViz's neuron view).
  std::vector<Matrix> A, B;
  int rank_cap = 0;    // theory: min(n, d_k) (mixed: min(n, h_k d_k))
  int input_rank = 0;  // measured rank of this layer's attention input (n x d)
  bool has_P_l = false, has_P_w = false;
  Projection P_l, P_w, P_lw;  // P_lw = P_l x P_w (when both exist)
};

struct TrainingCurve {
  std::vector<float> steps, loss;
  int64_t step = 0;
  bool running = false;
  int pending_steps = 0;  // > 0: a snapshot in the middle of steps asked for (a lesson's "train 400"); more follow
  std::string task;
};

// What the engine opened for the newest LabEngine::open_stored request.
struct StoredRunState {
  uint64_t request_id = 0;  // the request it answers (0: none yet)
  StoredCheckpoint run;
  std::vector<int64_t> steps;  // steps with stored weights, ascending
  int index = -1;              // the one loaded (-1: none)
  std::string error;           // why nothing was loaded (the lab keeps its model)
};

// A real checkpoint the lab shows instead of its own model (issue 16): a Hugging Face GPT-2, BERT
// or Llama-style directory, run on the sentence with its own tokenizer. No training; the maps and
// spectra are the model's, and `spec` of the snapshot is its shape as a multi-head ModelSpec.
struct RealModelInfo {
  uint64_t request_id = 0;  // the open_model request it answers (0: none yet)
  std::string dir;          // the model open now; "" = the lab's own model
  std::string error;        // why the last open failed (the lab keeps what it had)
  std::string family, model_type;
  int layers = 0, d_model = 0, heads = 0, kv_heads = 0, d_k = 0, vocab = 0, max_positions = 0;
  int max_tokens = 0;  // the sentence is cut to this many tokens (max_positions, at most kRealMaxTokens)
  int64_t parameters = 0;
  bool causal = false, rotary = false;
  std::vector<int> kv_group;          // per query head: the key/value head it reads
  std::vector<std::string> notes;     // what the analysis can and cannot claim for these heads
  std::vector<std::string> warnings;  // tensors in the files no part of the model reads
  double open_ms = 0;                 // reading and checking the checkpoint and its tokenizer
};

// The longest sentence the lab runs a real model on: every head's n x n map is drawn.
constexpr int kRealMaxTokens = 256;

struct LabSnapshot {
  uint64_t version = 0;     // increases with every publish
  uint64_t request_id = 0;  // the request this snapshot answers
  bool valid = false;
  std::vector<core::SpecProblem> problems;  // why the request's model is impossible (valid == false)
  core::ModelSpec spec;
  int n = 0;
  std::vector<std::string> tokens;  // one label per position
  std::vector<LayerView> layers;
  std::vector<core::Bottleneck> bottlenecks;
  // The token ids that occur in what the model learns from (VB §5.2; the bottleneck report's and
  // the Depth vs width tab's vocabulary), 0 where all V may (BPE) or before the full snapshot, and
  // what that is ("the synthetic tasks", "KJV").
  int vocabulary_symbols = 0;
  std::string vocabulary_data;
  core::AttentionCosts costs;  // per attention layer at this n
  int64_t parameters = 0;      // whole model
  int embedding_rank = 0;      // measured rank of the V x d token embedding
  int input_rank_cap = 0;      // token rank + positional rank (+1 for LayerNorm)
  TrainingCurve training;
  Ablation ablation;
  StoredRunState stored;  // the stored run opened last, if any
  RealModelInfo real;     // the real model open, if any (real.dir non-empty: this snapshot is its)
  double compute_ms = 0;  // request -> snapshot on the engine thread
  // A request's first answer: maps, factors, P_l / P_w, costs; the spectra, measured ranks and the
  // bottleneck report are empty until the full snapshot that follows it.
  bool partial = false;
};

}  // namespace headroom::gui
