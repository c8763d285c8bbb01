#include "app/gui/lab/lab_engine.h"
#include "app/gui/lab/lab_controls.h"
#include "app/gui/lab/lab_profile.h"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include <unistd.h>

#include "core/analysis/head_analysis.h"
#include "core/data/data_source.h"
#include "core/data/corpus.h"
#include "core/data/tokenizer.h"
#include "core/model/hf_heads.h"
#include "core/model/hf_model.h"
#include "core/text/load_tokenizer.h"
#include "core/io/safetensors.h"
#include "core/io/spec_json.h"
#include "core/io/tensor_bridge.h"
#include "app/gui/mailbox.h"
#include "app/gui/thread_priority.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"
#include "core/train/blas_threads.h"
#include "core/train/trainer.h"

namespace headroom::gui {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kTrainSliceSeconds = 0.15;  // train this long between snapshots
constexpr size_t kMaxCurvePoints = 4000;
constexpr int kEngineNice = 10;

Matrix to_matrix(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kFloat32).contiguous();
  Matrix m;
  m.rows = static_cast<int>(c.size(0));
  m.cols = static_cast<int>(c.size(1));
  m.v.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  return m;
}

// Each head's role, read off its weights (rows: queries over keys).
std::vector<core::HeadRole> roles_of(const std::vector<Matrix>& W, bool causal) {
  std::vector<core::HeadRole> roles;
  for (const auto& w : W) roles.push_back(core::head_role(w.data(), w.rows, causal));
  return roles;
}

std::vector<Matrix> per_head(const torch::Tensor& t) {  // [B, H, n, m] -> H matrices of batch 0
  std::vector<Matrix> out;
  auto b0 = t[0].to(torch::kFloat32).contiguous();
  out.reserve(b0.size(0));
  for (int64_t h = 0; h < b0.size(0); ++h) out.push_back(to_matrix(b0[h]));
  return out;
}

Projection projection(const torch::Tensor& p) {
  Projection out;
  auto d = p.detach().to(torch::kFloat64);
  out.raw = to_matrix(d);
  const double mx = d.abs().max().item<double>();
  out.normalised = to_matrix(mx > 0 ? d / mx : d);  // TH Fig. 1: entries normalised to [-1, 1]
  out.det = d.size(0) == d.size(1) ? torch::linalg_det(d).item<double>() : NAN;
  out.smallest_sv = torch::linalg_svdvals(d).min().item<double>();
  // TH §7.4 reports eigenvalues; a non-symmetric P_l has complex ones, so their modulus.
  out.smallest_abs_eigenvalue = d.size(0) == d.size(1) ? torch::linalg_eigvals(d).abs().min().item<double>() : NAN;
  return out;
}

// Switches value heads off until destroyed: their rows of w_o (general-bilinear: their slice of Q)
// read as zero, so the head adds nothing to the residual stream; the old values come back after.
class HeadsOff {
 public:
  HeadsOff(core::TransformerLM& model, const std::vector<std::pair<int, int>>& heads) {
    torch::NoGradGuard g;
    for (const auto& [layer, head] : heads) {
      auto& attn = *model->blocks[static_cast<size_t>(layer)]->as<core::TransformerBlockImpl>()->attn;
      const auto& a = attn.spec();
      torch::Tensor part = a.kind == core::AttentionKind::GeneralBilinear
                               ? attn.gb_q.select(2, head)
                               : attn.w_o.narrow(0, int64_t(head) * a.d_v, a.d_v);
      saved_.push_back({part, part.clone()});
      part.zero_();
    }
  }
  ~HeadsOff() {
    torch::NoGradGuard g;
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) it->first.copy_(it->second);
  }
  HeadsOff(const HeadsOff&) = delete;
  HeadsOff& operator=(const HeadsOff&) = delete;

 private:
  std::vector<std::pair<torch::Tensor, torch::Tensor>> saved_;
};

// Mean next-token loss of one sequence's logits [1, n, V] over the positions with weight > 0.
double sequence_loss(const torch::Tensor& logits, const std::vector<int64_t>& targets,
                     const std::vector<float>& weights) {
  const auto t = torch::tensor(targets, torch::kLong);
  const auto w = torch::tensor(weights, torch::kFloat32);
  const auto per = torch::nn::functional::cross_entropy(
      logits[0], t, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  return ((per * w).sum() / w.sum().clamp_min(1.0)).item<double>();
}

// Mean next-token loss of a batch (the task's mask, when it has one, says which targets count).
double batch_loss(core::TransformerLM& model, const core::Batch& batch) {
  const auto logits = model->forward(batch.inputs);
  const auto per =
      torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}), batch.targets.reshape(-1),
                                           torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  if (!batch.mask.defined()) return per.mean().item<double>();
  const auto mask = batch.mask.reshape(-1);
  return ((per * mask).sum() / mask.sum().clamp_min(1.0)).item<double>();
}

// OpenBLAS's threads for one scope (the engine runs it at one thread, see loop()).
class BlasThreads {
 public:
  explicit BlasThreads(int threads) { core::set_openblas_threads(threads); }
  ~BlasThreads() { core::set_openblas_threads(1); }
  BlasThreads(const BlasThreads&) = delete;
  BlasThreads& operator=(const BlasThreads&) = delete;
};

// A real checkpoint and its tokenizer, as the engine thread holds them (issue 16).
struct RealModel {
  core::HfModel model;
  std::unique_ptr<core::text::TextTokenizer> tokenizer;
  core::ModelSpec spec;  // its shape as Headroom's multi-head spec: what the panels read
};

}  // namespace

struct LabEngine::Impl {
  // A model request, a stored run and a real model to open can be pending together: each keeps the others.
  struct Work {
    std::optional<LabRequest> model;
    std::optional<StoredCheckpoint> stored;
    std::optional<std::string> real_model;  // "" closes the one open
  };
  Mailbox<Work, LabSnapshot> box;

  // Engine-thread state.
  LabRequest current;
  uint64_t current_id = 0;
  uint64_t answered_id = 0;  // the request compute() last answered (a new one gets a partial snapshot first)
  bool have_request = false;
  std::unique_ptr<core::Trainer> trainer;
  std::shared_ptr<const core::DataSource> task_data;
  core::SyntheticTask task_of_data = core::SyntheticTask::Induction;
  std::map<std::string, std::unique_ptr<core::Tokenizer>> tokenizers;  // by name; BPE ones load the KJV corpus once
  TrainingCurve curve;
  // Forced steps (a lesson's "train N", Step) that a newer request interrupted: the steps still
  // owed to these weights, taken after that request's own. Fresh weights drop them.
  int owed_steps = 0;
  uint64_t version = 0;
  int embedding_rank = 0;
  int64_t embedding_rank_step = -1;
  uint64_t embedding_rank_generation = 0, model_generation = 0;  // bumped whenever the weights are replaced
  // What the model was trained on: "" for the live tasks, else a stored run's train.corpus.
  std::string trained_on;
  std::map<std::string, int> corpus_symbols;  // distinct bytes per corpus, counted once
  // A stored run's corpus for its validation batch (ablation losses), by corpus + tokenizer.
  std::map<std::string, std::shared_ptr<const core::DataSource>> stored_data;

  // VB §5.2 counts the token ids that occur in the training data.
  core::VocabularyUse vocabulary_use() {
    if (current.tokenizer != "bytes") return {};  // BPE pieces are learned from the corpus: all occur
    if (trained_on.empty()) return {core::kSyntheticVocab, "the synthetic tasks"};
    auto it = corpus_symbols.find(trained_on);
    if (it == corpus_symbols.end()) {
      int count = 0;
      try {
        // The text alone, unsplit and unhashed (a stored run's first snapshot waits for this).
        count = core::count_train_symbols(core::load_corpus_text(trained_on));
      } catch (const std::exception&) {
        count = 0;  // the corpus is not here: fall back to V
      }
      it = corpus_symbols.emplace(trained_on, count).first;
    }
    return {it->second, trained_on == "kjv" ? "KJV" : trained_on};
  }

  StoredRunState stored;            // the stored run opened last (copied into every snapshot)
  std::unique_ptr<RealModel> real;  // the real model open (null: the lab's own)
  RealModelInfo real_info;          // copied into every snapshot
  std::thread thread;               // last: it starts once every member above exists

  Impl() : thread([this] { loop(); }) {}
  ~Impl() {
    box.close();
    thread.join();
  }

  void publish(std::shared_ptr<LabSnapshot> s) {
    s->version = ++version;
    s->stored = stored;
    s->real = real_info;
    box.publish(std::move(s));
  }

  core::TrainSpec train_spec() const {
    core::TrainSpec t;
    t.corpus = core::to_string(current.task);
    t.steps = int64_t(1) << 40;  // open-ended: the user stops it
    t.batch = current.batch;
    t.lr = current.lr;
    t.warmup = 20;
    t.schedule = core::LrSchedule::Constant;
    t.seq_len = std::min(current.model.context, std::max(8, current.synthetic_n));
    t.seed = current.seed;
    t.device = "cpu";  // the lab reads every tensor it draws back on the CPU, step by step
    return t;
  }

  const core::Tokenizer& tokenizer() {
    auto& slot = tokenizers[current.tokenizer];
    if (!slot) {
      if (current.tokenizer == "bytes") {
        slot = core::make_byte_tokenizer();
      } else {
        const core::Corpus corpus = core::load_corpus("kjv");  // cached after the first `bible` run
        slot = core::make_tokenizer(current.tokenizer, &corpus);
      }
    }
    return *slot;
  }

  // (Re)builds the model for `current`; keeps weights when only shape-free settings changed.
  void ensure_model(bool force_reset) {
    core::ModelSpec spec = current.model;
    if (tokenizer().vocab_size() != spec.vocab)
      throw std::invalid_argument("the model has V = " + std::to_string(spec.vocab) + " but the " + current.tokenizer +
                                  " vocabulary has " + std::to_string(tokenizer().vocab_size()) + " tokens");
    if (!task_data || task_of_data != current.task) {
      task_data =
          std::shared_ptr<const core::DataSource>(core::make_data_source(core::to_string(current.task), "bytes"));
      task_of_data = current.task;
    }
    const bool rebuild = force_reset || !trainer || !same_shapes(trainer->model_spec(), spec);
    if (!rebuild && trainer->model_spec() == spec && trainer->train_spec().seed == current.seed) return;
    auto next = std::make_unique<core::Trainer>(spec, train_spec(), task_data);
    if (!rebuild && trainer->train_spec().seed == current.seed) {
      // Same shapes: carry the trained weights over (the optimiser restarts).
      torch::NoGradGuard g;
      auto old = trainer->model()->named_parameters();
      for (auto& p : next->model()->named_parameters())
        if (auto* o = old.find(p.key())) p.value().copy_(*o);
    } else {
      curve = TrainingCurve{};
      owed_steps = 0;
    }
    trainer = std::move(next);
    ++model_generation;
  }

  // The input's tokens and labels; `targets` / `weights` (one per position) say what each position
  // should predict and whether it counts (the typed text's last token and a task's unscored
  // positions do not).
  std::vector<int64_t> input_tokens(std::vector<std::string>* labels, std::vector<int64_t>* targets = nullptr,
                                    std::vector<float>* weights = nullptr) {
    std::vector<int64_t> ids;
    std::vector<int64_t> next;
    std::vector<float> counts;
    labels->clear();
    const int n_max = trainer->model_spec().context;
    if (current.input == LabInput::Text) {
      const auto& tok = tokenizer();
      for (auto id : tok.encode(current.text)) {
        if (static_cast<int>(ids.size()) >= n_max) break;
        ids.push_back(id);
        labels->push_back(tok.token_label(id));
      }
      if (ids.empty()) {
        const auto space = tok.encode(" ");
        const int32_t id = space.empty() ? 0 : space[0];
        ids.push_back(id);
        labels->push_back(tok.token_label(id));
      }
      for (size_t i = 0; i < ids.size(); ++i) {
        next.push_back(i + 1 < ids.size() ? ids[i + 1] : 0);
        counts.push_back(i + 1 < ids.size() ? 1.0f : 0.0f);
      }
    } else {
      std::mt19937_64 rng(core::mix_seed(current.seed, 7));
      const int n = std::max(4, std::min(current.synthetic_n, n_max));
      const auto seq = core::make_synthetic_sequence(current.task, n, rng);
      for (int i = 0; i < n; ++i) {
        ids.push_back(seq.tokens[i]);
        labels->push_back(core::synthetic_token_label(seq.tokens[i]));
        next.push_back(seq.tokens[i + 1]);
        counts.push_back(seq.mask[i] ? 1.0f : 0.0f);
      }
    }
    if (targets) *targets = std::move(next);
    if (weights) *weights = std::move(counts);
    return ids;
  }

  // pending_steps > 0: a progress snapshot of a forced slice (training.pending_steps), the partial
  // first answer included.
  std::shared_ptr<LabSnapshot> compute(int pending_steps = 0) {
    const auto t0 = Clock::now();
    auto s = std::make_shared<LabSnapshot>();
    s->request_id = current_id;
    s->spec = trainer->model_spec();
    s->valid = true;
    torch::NoGradGuard g;
    auto& model = trainer->model();
    model->eval();
    std::vector<int64_t> targets;
    std::vector<float> weights;
    const auto ids = input_tokens(&s->tokens, &targets, &weights);
    s->n = static_cast<int>(ids.size());
    auto tokens = torch::tensor(ids, torch::kLong).unsqueeze(0);
    core::ModelTrace trace;
    {
      const HeadsOff off(model, current.heads_off);  // the maps and spectra show the ablated model
      const auto logits = model->forward(tokens, &trace);
      s->ablation.sentence_loss = s->ablation.sentence_loss_all = sequence_loss(logits, targets, weights);
    }
    if (!current.heads_off.empty() || current.importance_layer >= 0)
      measure_ablation(tokens, targets, weights, s.get());
    model->train();
    const auto t_forward = Clock::now();
    double ms_maps = 0, ms_spectra = 0, ms_input = 0;

    const auto& a = s->spec.attention;
    std::vector<core::LogitFactors> factors;
    for (size_t l = 0; l < trace.attention.size(); ++l) {
      const auto& t = trace.attention[l];
      LayerView lv;
      auto c0 = Clock::now();
      lv.J = per_head(t.J);
      lv.L = t.L.is_same(t.J) ? lv.J : per_head(t.L);
      lv.W = per_head(t.W);
      lv.U = t.U.is_same(t.W) ? lv.W : per_head(t.U);
      lv.roles = roles_of(lv.W, a.causal);
      auto* block = model->blocks[l]->as<core::TransformerBlockImpl>();
      const auto& attn = *block->attn;
      factors.push_back(core::logit_factors(attn, trace.attention_in[l][0]));
      lv.A = per_head(factors.back().A.unsqueeze(0));
      lv.B = per_head(factors.back().B.unsqueeze(0));
      lv.rank_cap = core::logit_rank_cap(a, s->n, s->n);
      ms_maps += ms_since(c0);
      if (attn.p_l.defined()) {
        lv.has_P_l = true;
        lv.P_l = projection(attn.p_l);
      }
      if (attn.p_w.defined()) {
        lv.has_P_w = true;
        lv.P_w = projection(attn.p_w);
      }
      if (lv.has_P_l && lv.has_P_w) lv.P_lw = projection(torch::matmul(attn.p_l, attn.p_w));
      s->layers.push_back(std::move(lv));
    }
    s->costs = core::attention_costs(a, s->n, s->n);
    s->parameters = model->num_parameters();
    // Layer 0's input is LN(token + position): its rank is at most r + r_pos, plus one for
    // LayerNorm's bias (centring can also remove one).
    s->input_rank_cap =
        std::min({s->n, s->spec.width, core::effective_embed_rank(s->spec) + core::effective_pos_rank(s->spec) + 1});
    s->training = curve;
    s->training.running = current.training;
    s->training.task = core::to_string(current.task);
    s->training.pending_steps = pending_steps;
    if (current_id != answered_id) {
      // A request's first answer goes out now, before the measurements below (a stored run's first
      // snapshot: ~40 of its ~50 ms, several times that on a loaded machine): the maps are what a
      // step or a slider change is waiting for. The full snapshot follows.
      auto partial = std::make_shared<LabSnapshot>(*s);
      partial->partial = true;
      partial->compute_ms = ms_since(t0);
      publish(std::move(partial));
    }
    answered_id = current_id;
    const auto t_layers = Clock::now();
    for (size_t l = 0; l < factors.size(); ++l)
      s->layers[l].spectra = core::factored_spectra(factors[l].A, factors[l].B);
    ms_spectra = ms_since(t_layers);
    {  // every layer's input rank at once
      std::vector<torch::Tensor> inputs;
      for (const auto& x : trace.attention_in) inputs.push_back(x[0]);
      const auto c0 = Clock::now();
      const auto ranks = core::batched_spectra(torch::stack(inputs));
      for (size_t l = 0; l < ranks.size(); ++l) s->layers[l].input_rank = ranks[l].rank;
      ms_input = ms_since(c0);
    }
    const auto t_spectra = Clock::now();
    const auto use = vocabulary_use();
    s->vocabulary_symbols = use.symbols;
    s->vocabulary_data = use.data;
    s->bottlenecks = core::model_bottlenecks(s->spec, s->n, use);
    const auto t_bottlenecks = Clock::now();
    // The embedding only changes when the weights do: reuse its rank between inputs.
    if (embedding_rank_step != curve.step || embedding_rank_generation != model_generation) {
      embedding_rank = core::batched_spectra(model->token_embedding_matrix().unsqueeze(0))[0].rank;
      embedding_rank_step = curve.step;
      embedding_rank_generation = model_generation;
    }
    s->embedding_rank = embedding_rank;
    const auto t_embedding = Clock::now();
    s->compute_ms = ms_since(t0);
    lab_profile(
        "lab compute %.1f ms: forward %.1f maps+factors %.1f (first answer at %.1f) spectra %.1f input-rank "
        "%.1f bottlenecks %.1f embedding %.1f\n",
        s->compute_ms, ms_between(t0, t_forward), ms_maps, ms_between(t0, t_layers), ms_spectra, ms_input,
        ms_between(t_spectra, t_bottlenecks), ms_between(t_bottlenecks, t_embedding));
    return s;
  }

  // A fixed validation batch of what the model learned: the live task's, or a stored run's corpus
  // (null when that corpus is not on this machine).
  const core::DataSource* validation_data(std::string* name, int* seq_len) {
    if (trained_on.empty()) {
      *name = std::string("the ") + core::to_string(current.task) + " task";
      *seq_len = trainer->train_spec().seq_len;
      return &trainer->data();
    }
    const std::string key = trained_on + "|" + current.tokenizer;
    auto it = stored_data.find(key);
    if (it == stored_data.end()) {
      std::shared_ptr<const core::DataSource> data;
      try {
        data = core::make_data_source(trained_on, current.tokenizer);
      } catch (const std::exception&) {
        data = nullptr;  // said in the snapshot: no validation batch for this run here
      }
      it = stored_data.emplace(key, data).first;
    }
    *name = trained_on == "kjv" ? "KJV" : trained_on;
    *seq_len = std::min(current.model.context, 128);
    return it->second.get();
  }

  // The losses with current.heads_off switched off beside the whole model's, and each head of
  // current.importance_layer switched off as well, one at a time.
  void measure_ablation(const torch::Tensor& tokens, const std::vector<int64_t>& targets,
                        const std::vector<float>& weights, LabSnapshot* s) {
    auto& model = trainer->model();
    Ablation& a = s->ablation;
    a.heads_off = current.heads_off;
    a.sentence_loss_all = sequence_loss(model->forward(tokens), targets, weights);
    int seq_len = 0;
    const core::DataSource* data = validation_data(&a.val_source, &seq_len);
    if (!data) {
      a.val_source = "(the run's corpus " + trained_on + " is not on this machine)";
      a.val_loss = a.val_loss_all = NAN;
      return;
    }
    const core::Batch batch = data->validation_batch(0, 8, seq_len);
    a.val_loss_all = batch_loss(model, batch);
    {
      const HeadsOff off(model, current.heads_off);
      a.val_loss = current.heads_off.empty() ? a.val_loss_all : batch_loss(model, batch);
    }
    if (current.importance_layer < 0) return;
    a.layer = std::min(current.importance_layer, static_cast<int>(model->blocks->size()) - 1);
    for (int h = 0; h < current.model.attention.heads_v; ++h) {
      auto heads = current.heads_off;
      if (std::find(heads.begin(), heads.end(), std::make_pair(a.layer, h)) == heads.end())
        heads.push_back({a.layer, h});
      const HeadsOff off(model, heads);
      a.importance.push_back(batch_loss(model, batch) - a.val_loss);
    }
  }

  void train_slice(int forced_steps) {
    auto t0 = Clock::now();
    int done = 0;
    while (true) {
      const auto m = trainer->step();
      curve.step = m.step;
      curve.steps.push_back(static_cast<float>(m.step));
      curve.loss.push_back(static_cast<float>(m.train_loss));
      ++done;
      if (curve.steps.size() > kMaxCurvePoints) {  // keep every other point of the old half
        std::vector<float> s2, l2;
        for (size_t i = 0; i < curve.steps.size(); ++i)
          if (i % 2 == 0 || i >= curve.steps.size() / 2) s2.push_back(curve.steps[i]), l2.push_back(curve.loss[i]);
        curve.steps.swap(s2);
        curve.loss.swap(l2);
      }
      if (forced_steps > 0 && done >= forced_steps) break;
      if (std::chrono::duration<double>(Clock::now() - t0).count() > kTrainSliceSeconds) {
        if (forced_steps == 0) break;
        // Steps asked for that take a while (a lesson's "train 400 steps"): show the loss as it
        // falls, as continuous training does, marked unfinished so automation waits for the end.
        auto s = compute(forced_steps - done);
        publish(std::move(s));
        t0 = Clock::now();
      }
      if (box.superseded()) {  // a new request wins over more training; forced steps resume after it
        if (forced_steps > 0) owed_steps = forced_steps - done;
        break;
      }
    }
  }

  void loop() {
    // Below the UI thread and the GL rasterizer's threads (llvmpipe on a software renderer): a
    // frame is never late because a snapshot is being computed; the snapshot waits instead.
    // Set before torch starts its OpenMP team from this thread, so the team inherits it.
    lower_this_thread_priority(kEngineNice);
    // Batch-1 inference on one core: torch 1 intra-op thread x OpenBLAS 1. Two OpenMP threads
    // were slower here (L=4, d=256, h=16, n=128: 37 -> 30 ms with one) and, spinning at their
    // barriers, took the renderer's core: frame p95 ~20 ms with two, ~17.5 with one.
    at::set_num_threads(1);
    core::set_openblas_threads(1);
    std::optional<Mailbox<Work, LabSnapshot>::Taken> taken;
    while (box.wait(&taken, [&] { return have_request && current.training; })) {
      const uint64_t id = taken ? taken->id : 0;
      std::optional<LabRequest> req = taken ? std::move(taken->request.model) : std::nullopt;
      std::optional<StoredCheckpoint> open = taken ? std::move(taken->request.stored) : std::nullopt;
      std::optional<std::string> real_dir = taken ? std::move(taken->request.real_model) : std::nullopt;
      try {
        if (real_dir) open_real(*real_dir, id);
        if (open) close_real();  // a stored run replaces the real model
        if (real) {              // the real model answers every request with its maps; no training
          if (req) {
            current = *req;
            current.training = false;
            current_id = id;
            have_request = true;
          }
          publish(compute_real());
          continue;
        }
        if (req) {
          const bool reset = req->reset_training;
          const int singles = req->single_steps + req->carried_steps;
          auto problems = core::validate(req->model);
          if (!problems.empty()) {
            auto s = std::make_shared<LabSnapshot>();
            s->request_id = id;
            s->valid = false;
            s->problems = std::move(problems);
            s->spec = req->model;
            publish(std::move(s));
            if (!open) continue;
          } else {
            current = *req;
            current_id = id;
            if (!open) trained_on.clear();
            have_request = true;
            ensure_model(reset);
            if (const int steps = singles + std::exchange(owed_steps, 0); steps > 0) train_slice(steps);
          }
        }
        if (open) {
          // A stored run wins over the request posted with it.
          open_stored(*open, id);
        } else if (!req && have_request && current.training) {
          train_slice(0);
        }
        if (have_request && trainer) {
          publish(compute());
        } else if (open) {
          // A stored run that failed before the lab had any model (a scene's or a lesson step's
          // first request): the answer still goes out, so the lab says why and builds its own.
          auto s = std::make_shared<LabSnapshot>();
          s->request_id = id;
          s->valid = false;
          publish(std::move(s));
        }
      } catch (const std::exception& e) {
        auto s = std::make_shared<LabSnapshot>();
        s->request_id = id;
        s->valid = false;
        s->problems.push_back({"model", e.what()});
        publish(std::move(s));
      }
    }
  }

  void close_real() {
    if (!real) return;
    real.reset();
    real_info.dir.clear();
    real_info.error.clear();
  }

  // Reads a real model and its tokenizer; a failure is told in real_info, and the lab keeps what it had.
  void open_real(const std::string& dir, uint64_t id) {
    real_info.request_id = id;
    if (dir.empty()) return close_real();
    const auto t0 = Clock::now();
    try {
      auto next = std::unique_ptr<RealModel>(new RealModel{core::load_hf_model(dir), nullptr, {}});
      try {
        next->tokenizer = core::text::load_tokenizer_dir(dir);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) +
                                 " (the lab reads the sentence with the model's own tokenizer: tokenizer.json, "
                                 "vocab.json + merges.txt, or vocab.txt beside the weights)");
      }
      const auto& c = next->model.config();
      next->spec = core::model_spec_of(c);
      RealModelInfo info;
      info.request_id = id;
      info.dir = dir;
      info.family = core::hf::family_name(c.family);
      info.model_type = c.model_type;
      info.layers = static_cast<int>(c.num_layers);
      info.d_model = static_cast<int>(c.hidden_size);
      info.heads = static_cast<int>(c.num_heads);
      info.kv_heads = static_cast<int>(c.num_kv_heads);
      info.d_k = static_cast<int>(c.head_dim);
      info.vocab = static_cast<int>(c.vocab_size);
      info.max_positions = static_cast<int>(c.max_positions);
      info.max_tokens = std::min(info.max_positions, kRealMaxTokens);
      info.parameters = next->model.num_parameters();
      info.causal = c.causal();
      info.rotary = c.rotary();
      for (int h = 0; h < info.heads; ++h) info.kv_group.push_back(static_cast<int>(next->model.kv_group(h)));
      info.notes = core::head_analysis_notes(next->model);
      info.warnings = next->model.warnings();
      info.open_ms = ms_since(t0);
      real = std::move(next);
      real_info = std::move(info);
      owed_steps = 0;  // the lab's own model trains no more while a real one is shown
      current.training = false;
    } catch (const std::exception& e) {
      real_info.error = "cannot open " + dir + ": " + e.what();
    }
  }

  // The real model on the request's text: every head's map and spectrum (from the trace's factors).
  std::shared_ptr<LabSnapshot> compute_real() {
    const auto t0 = Clock::now();
    auto s = std::make_shared<LabSnapshot>();
    s->request_id = current_id;
    s->spec = real->spec;
    torch::NoGradGuard g;
    std::vector<int64_t> ids;
    for (const int32_t id : real->tokenizer->encode(current.text, true)) {
      if (static_cast<int>(ids.size()) >= real_info.max_tokens) break;
      ids.push_back(id);
      s->tokens.push_back(real->tokenizer->token_label(id));
    }
    if (ids.empty()) {
      s->valid = false;
      s->problems.push_back({"text", "the sentence gives no tokens; type some words"});
      return s;
    }
    s->valid = true;
    s->n = static_cast<int>(ids.size());
    core::HfTrace trace;
    {
      // A real model's forward is most of the work, in its GEMMs (GPT-2 small: ~11 GFLOP at 64 tokens
      // without the head): OpenBLAS on every core for it, torch still at one thread (two pools on two
      // cores measured 4x slower). GPT-2 small, 64 tokens: 205 -> 120 ms.
      const BlasThreads all(static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
      real->model.hidden_states(torch::tensor(ids, torch::kLong).unsqueeze(0), &trace);
    }
    std::vector<torch::Tensor> inputs;
    for (size_t l = 0; l < trace.attention.size(); ++l) {
      LayerView lv;
      lv.J = per_head(trace.attention[l].J);
      lv.L = lv.J;
      lv.W = per_head(trace.attention[l].W);
      lv.U = lv.W;
      lv.roles = roles_of(lv.W, real_info.causal);
      lv.spectra = core::factored_spectra(trace.factors[l].A, trace.factors[l].B);
      lv.A = per_head(trace.factors[l].A.unsqueeze(0));
      lv.B = per_head(trace.factors[l].B.unsqueeze(0));
      lv.rank_cap = std::min(s->n, real_info.d_k);
      inputs.push_back(trace.attention_in[l][0]);
      s->layers.push_back(std::move(lv));
    }
    const auto ranks = core::batched_spectra(torch::stack(inputs));
    for (size_t l = 0; l < ranks.size(); ++l) s->layers[l].input_rank = ranks[l].rank;
    s->bottlenecks = core::model_shape_bottlenecks(real->model, s->n);
    s->costs = core::attention_costs(s->spec.attention, s->n, s->n);
    s->parameters = real_info.parameters;
    s->embedding_rank = -1;  // not measured for real models (V x d, V up to 10^5)
    s->input_rank_cap = std::min(s->n, s->spec.width);
    s->compute_ms = ms_since(t0);
    return s;
  }

  // A string of the run's config's "train" table ("" when absent or not a string).
  static std::string train_setting(const db::RunRecord& run, const char* key) {
    const auto config = nlohmann::json::parse(run.config_json, nullptr, false);
    if (!config.is_object() || !config.contains("train") || !config["train"].is_object()) return "";
    const auto& train = config["train"];
    return train.contains(key) && train[key].is_string() ? train[key].get<std::string>() : "";
  }

  // Reads a stored run's weights from its DB and loads them; a failure is told in `stored`, and
  // the lab keeps the model it had.
  void open_stored(const StoredCheckpoint& r, uint64_t id) {
    const auto t0 = Clock::now();
    StoredRunState st;
    st.request_id = id;
    st.run = r;
    try {
      auto conn = db::Connection::open(r.db_path, db::OpenMode::ReadOnly);
      db::RunStore store(conn);
      std::optional<db::RunRecord> run;
      if (r.run_id == 0) {  // named by a scene or a lesson: its id and tokenizer come from the DB
        run = store.find_run(r.run_name);
        if (!run)
          throw std::runtime_error("there is no run named \"" + r.run_name + "\" in " + r.db_path +
                                   " (names are case-sensitive; the explorer's table lists them)");
        st.run.run_id = run->id;
        st.run.tokenizer = train_setting(*run, "tokenizer");
        if (st.run.tokenizer.empty()) st.run.tokenizer = "bytes";  // TrainSpec's default
      } else {
        run = store.get_run(r.run_id);
      }
      st.steps = store.artifact_steps(st.run.run_id, std::string(db::kWeightsArtifact));
      if (st.steps.empty()) {
        st.error = "run " + r.run_name +
                   " has no stored weights yet: the worker stores them at every checkpoint "
                   "(train.checkpoint_every steps)";
      } else {
        const auto after = std::upper_bound(st.steps.begin(), st.steps.end(), r.step);
        const int index = after == st.steps.begin() ? 0 : static_cast<int>(after - st.steps.begin()) - 1;
        const auto step = st.steps[static_cast<size_t>(index)];
        const auto artifact = store.artifact_at(st.run.run_id, std::string(db::kWeightsArtifact), step);
        if (!artifact) throw std::runtime_error("the weights at step " + std::to_string(step) + " are gone");
        // The run's corpus: the vocabulary badge counts the tokens that occur in it.
        load(artifact->bytes, st.run.tokenizer, run ? train_setting(*run, "corpus") : std::string());
        st.index = index;
      }
    } catch (const std::exception& e) {
      st.error = "cannot open " + r.run_name + ": " + e.what();
      st.index = -1;
    }
    lab_profile("lab open stored %s: %.1f ms\n", r.run_name.c_str(), ms_since(t0));
    stored = std::move(st);
  }

  void load(const std::vector<uint8_t>& bytes_in, const std::string& tokenizer_name, const std::string& corpus) {
    const auto f = core::decode_safetensors(bytes_in.data(), bytes_in.size(), "stored weights");
    auto it = f.metadata.find("model");
    if (it == f.metadata.end()) throw std::invalid_argument("the stored weights carry no model spec");
    current.model = core::model_spec_from_json(nlohmann::json::parse(it->second), "weights.model");
    current.tokenizer = tokenizer_name;
    current.training = false;
    trained_on = corpus;
    have_request = true;
    trainer.reset();
    const auto t0 = Clock::now();
    ensure_model(true);
    lab_profile("lab load: model built in %.1f ms\n", ms_since(t0));
    torch::NoGradGuard g;
    for (auto& p : trainer->model()->named_parameters()) {
      auto t = core::from_st_tensor(f.at(p.key()));
      if (t.sizes() != p.value().sizes())
        throw std::invalid_argument("stored weight " + p.key() + " has another shape");
      p.value().copy_(t);
    }
    ++model_generation;
  }
};

LabEngine::LabEngine() : impl_(std::make_unique<Impl>()) {}
LabEngine::~LabEngine() = default;

uint64_t LabEngine::post(const LabRequest& request) {
  return impl_->box.update([&](Impl::Work& w) {
    // The latest request wins, but the steps a replaced request asked for are kept when they
    // would train the same weights: a lesson's "train 400 steps" followed at once by the next
    // step's scene still trains. Its reset comes along, as it came before those steps.
    LabRequest next = request;
    if (w.model && !request.reset_training && request.seed == w.model->seed &&
        same_shapes(request.model, w.model->model)) {
      next.reset_training = w.model->reset_training;
      next.carried_steps = w.model->single_steps + w.model->carried_steps;
    }
    w.model = std::move(next);
  });
}

uint64_t LabEngine::open_stored(const StoredCheckpoint& request) {
  return impl_->box.update([&](Impl::Work& w) { w.stored = request; });
}

uint64_t LabEngine::open_model(const std::string& dir) {
  return impl_->box.update([&](Impl::Work& w) { w.real_model = dir; });
}

std::shared_ptr<const LabSnapshot> LabEngine::snapshot() const { return impl_->box.snapshot(); }

}  // namespace headroom::gui
