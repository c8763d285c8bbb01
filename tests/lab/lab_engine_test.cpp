// The lab's compute side without a window: requests in, snapshots out.
#include <gtest/gtest.h>

#include <cmath>

#include <chrono>
#include <thread>

#include <torch/torch.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/gui/lab/lab_engine.h"
#include "core/hf/hf_config.h"
#include "core/hf/hf_writer.h"
#include "tests/common/scratch.h"
#include "core/io/blocking_io.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"
#include "core/io/safetensors.h"
#include "core/io/spec_json.h"
#include "core/io/tensor_bridge.h"
#include "core/model/transformer_lm.h"

using namespace headroom;
using namespace headroom::gui;

namespace {

std::shared_ptr<const LabSnapshot> wait_for(const LabEngine& e, uint64_t id, double seconds = 30) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    auto s = e.snapshot();
    // The answer: not a progress snapshot, nor the partial first answer its measurements follow.
    if (s->request_id >= id && s->training.pending_steps == 0 && !s->partial) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return nullptr;
}

LabRequest request(core::AttentionKind kind, int d, int h, int L = 2) {
  LabRequest r;
  r.model.width = d;
  r.model.depth = L;
  r.model.context = 64;
  core::AttentionRequest a{kind, d, h};
  a.causal = true;
  r.model.attention = *core::make_attention_spec(a, nullptr);
  r.text = "In the beginning God created";
  return r;
}

// The newest snapshot once `done` holds for it (or null after `seconds`).
template <class Done>
std::shared_ptr<const LabSnapshot> wait_until(const LabEngine& e, Done done, double seconds = 30) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    auto s = e.snapshot();
    if (done(*s)) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return nullptr;
}

// What the worker stores as a "weights" artifact: every parameter (as `dtype`) + the model spec.
std::vector<uint8_t> weights_bytes(const core::ModelSpec& spec, uint64_t seed, torch::Dtype dtype = torch::kFloat32,
                                   core::TransformerLM* out = nullptr) {
  torch::manual_seed(seed);
  core::TransformerLM model(spec);
  core::StFile f;
  for (const auto& p : model->named_parameters()) f.tensors.push_back(core::to_st_tensor(p.key(), p.value().to(dtype)));
  f.metadata = {{"format", "headroom weights v1"}, {"step", "40"}, {"model", core::to_json(spec).dump()}};
  if (out) *out = model;
  return core::encode_safetensors(f);
}

// A scratch experiments DB with one run (train.corpus kjv) whose weights are stored at the given steps.
struct StoredRunDb {
  std::string path;
  int64_t run_id = 0;
  StoredRunDb(const std::string& name, const std::vector<std::pair<int64_t, std::vector<uint8_t>>>& weights) {
    path =
        (std::filesystem::temp_directory_path() / ("headroom_lab_" + std::to_string(getpid()) + "_" + name + ".sqlite"))
            .string();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    auto conn = db::Connection::open(path, db::OpenMode::Create);
    db::RunStore store(conn);
    db::NewRun run;
    run.name = name;
    run.config_json = R"({"train": {"corpus": "kjv", "tokenizer": "bytes"}})";
    run_id = store.enqueue_run(run);
    for (const auto& [step, bytes] : weights) store.put_artifact(run_id, step, "weights", db::Blob(bytes));
  }
  ~StoredRunDb() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  }
  StoredCheckpoint at(int64_t step) const { return StoredCheckpoint{path, run_id, "stored-run", "bytes", step}; }
};

}  // namespace

TEST(LabEngine, ARequestsMapsGoOutBeforeItsSpectra) {
  // Each request is answered twice: first the maps and factors (what a slider or a lesson step
  // waits for), then the same with the spectra, measured ranks and bottleneck report. A training
  // slice of a request already answered is answered once, in full.
  LabEngine engine;
  std::vector<std::shared_ptr<const LabSnapshot>> seen;
  const uint64_t id = engine.post(request(core::AttentionKind::MultiHead, 64, 16));
  auto full = wait_until(engine, [&](const LabSnapshot& s) {
    if (seen.empty() || seen.back()->version != s.version) seen.push_back(engine.snapshot());
    return s.request_id >= id && !s.partial;
  });
  ASSERT_TRUE(full);
  // The partial answer was published just before (versions count every publish).
  EXPECT_EQ(full->version, 2u) << "expected the partial answer as version 1";
  for (const auto& s : seen) {
    if (!s->partial) continue;
    EXPECT_EQ(s->request_id, id);
    ASSERT_EQ(s->layers.size(), 2u);
    EXPECT_EQ(s->layers[0].W.size(), 16u);
    EXPECT_EQ(s->layers[0].A.size(), 16u);
    EXPECT_TRUE(s->layers[0].spectra.empty());
    EXPECT_TRUE(s->bottlenecks.empty());
  }
  ASSERT_EQ(full->layers[0].spectra.size(), 16u);
  EXPECT_FALSE(full->bottlenecks.empty());
  // Another input for the same model: partial, then full again.
  auto r = request(core::AttentionKind::MultiHead, 64, 16);
  r.text = "And the earth was without form";
  auto again = wait_for(engine, engine.post(r));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->version, full->version + 2);
}

TEST(LabEngine, SnapshotHasEveryHeadAndTheRankBottleneck) {
  LabEngine engine;
  auto s = wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 16)));
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->valid);
  EXPECT_EQ(s->n, 28);
  ASSERT_EQ(s->tokens.size(), 28u);
  ASSERT_EQ(s->layers.size(), 2u);
  for (const auto& layer : s->layers) {
    ASSERT_EQ(layer.W.size(), 16u);
    EXPECT_EQ(layer.W[0].rows, 28);
    EXPECT_EQ(layer.rank_cap, 4);  // d_k = 64/16 = 4 < n = 28 (LRB §2.3)
    for (const auto& sp : layer.spectra) EXPECT_LE(sp.rank, 4);
    EXPECT_FALSE(layer.has_P_l);
    EXPECT_GT(layer.input_rank, 0);
    // Each head's role is read off its own weights, causal as the model is.
    ASSERT_EQ(layer.roles.size(), 16u);
    for (size_t h = 0; h < 16; ++h) {
      const auto want = core::head_role(layer.W[h].data(), 28, true);
      EXPECT_EQ(layer.roles[h].kind, want.kind) << "head " << h;
      EXPECT_DOUBLE_EQ(layer.roles[h].previous, want.previous) << "head " << h;
      EXPECT_EQ(layer.roles[h].queries, 26);
    }
  }
  ASSERT_FALSE(s->bottlenecks.empty());
  EXPECT_EQ(s->bottlenecks[0].id, "lrb-head-rank");
  EXPECT_EQ(s->costs.params, 4 * 64 * 64);
  // The live model trains on the synthetic tasks: 29 of the 256 byte ids occur, fewer than d = 64.
  bool vocab_badge = false;
  for (const auto& b : s->bottlenecks)
    if (b.id == "vb-vocab") {
      vocab_badge = true;
      EXPECT_NE(b.message.find("only 29 of the V = 256 tokens occur in the synthetic tasks"), std::string::npos)
          << b.message;
    }
  EXPECT_TRUE(vocab_badge);
  // ... and the snapshot carries that count for the Depth vs width tab's bound.
  EXPECT_EQ(s->vocabulary_symbols, 29);
  EXPECT_EQ(s->vocabulary_data, "the synthetic tasks");
}

TEST(LabEngine, TalkingHeadsShowsProjectionsWithConditioning) {
  LabEngine engine;
  auto s = wait_for(engine, engine.post(request(core::AttentionKind::TalkingHeads, 32, 4)));
  ASSERT_TRUE(s && s->valid);
  const auto& l = s->layers[0];
  ASSERT_TRUE(l.has_P_l && l.has_P_w);
  EXPECT_EQ(l.P_l.normalised.rows, 4);
  float mx = 0;
  for (float v : l.P_lw.normalised.v) mx = std::max(mx, std::abs(v));
  EXPECT_FLOAT_EQ(mx, 1.0f);             // TH Fig. 1: normalised to [-1, 1]
  EXPECT_GT(std::abs(l.P_l.det), 1e-3);  // near-identity start
  // TH §7.4's measure is the smallest eigenvalue: its modulus is never below the smallest
  // singular value, and |det| is the product of the moduli.
  EXPECT_GE(l.P_l.smallest_abs_eigenvalue, l.P_l.smallest_sv * (1 - 1e-9));
  EXPECT_LE(std::pow(l.P_l.smallest_abs_eigenvalue, 4), std::abs(l.P_l.det) * (1 + 1e-9));
  EXPECT_EQ(l.L.size(), 4u);
}

namespace {

// Row i of A_h against row j of B_h summed over the r components is the head's logit L_h[i][j]
// (before the mask): the neurons view draws those products. Worst absolute difference.
double worst_factor_error(const LayerView& l) {
  double worst = 0;
  for (size_t h = 0; h < l.L.size(); ++h) {
    const Matrix &A = l.A[h], &B = l.B[h], &L = l.L[h];
    for (int i = 0; i < L.rows; ++i)
      for (int j = 0; j < L.cols; ++j) {
        double sum = 0;
        for (int c = 0; c < A.cols; ++c) sum += double(A.v[size_t(i * A.cols + c)]) * B.v[size_t(j * B.cols + c)];
        worst = std::max(worst, std::abs(sum - L.v[size_t(i * L.cols + j)]));
      }
  }
  return worst;
}

}  // namespace

TEST(LabEngine, EveryKindsLogitsComeWithFactorsWhoseProductsSumToThem) {
  struct Case {
    core::AttentionKind kind;
    int r;  // the inner size: d_k, h_k d_k (mixed), 2 h_k d_k (dynamic), d (bilinear)
  };
  for (const Case& c : {Case{core::AttentionKind::MultiHead, 8}, Case{core::AttentionKind::TalkingHeads, 32},
                        Case{core::AttentionKind::LogitsProj, 32}, Case{core::AttentionKind::DynamicProj, 64},
                        Case{core::AttentionKind::GeneralBilinear, 32}}) {
    LabEngine engine;
    auto s = wait_for(engine, engine.post(request(c.kind, 32, 4)));
    ASSERT_TRUE(s && s->valid) << core::to_string(c.kind);
    for (const auto& l : s->layers) {
      ASSERT_EQ(l.A.size(), l.L.size()) << core::to_string(c.kind);
      ASSERT_EQ(l.B.size(), l.L.size());
      EXPECT_EQ(l.A[0].rows, s->n);
      EXPECT_EQ(l.A[0].cols, c.r) << core::to_string(c.kind);
      EXPECT_EQ(l.B[0].cols, c.r);
      EXPECT_LT(worst_factor_error(l), 1e-4) << core::to_string(c.kind);
    }
  }
}

TEST(LabEngine, ImpossibleModelIsExplainedNotApplied) {
  LabEngine engine;
  auto ok = wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 32, 4)));
  ASSERT_TRUE(ok && ok->valid);
  auto bad_request = request(core::AttentionKind::MultiHead, 32, 4);
  bad_request.model.attention.heads = 3;  // 32 not divisible by 3
  bad_request.model.attention.heads_k = bad_request.model.attention.heads_v = 3;
  auto bad = wait_for(engine, engine.post(bad_request));
  ASSERT_TRUE(bad);
  EXPECT_FALSE(bad->valid);
  ASSERT_FALSE(bad->problems.empty());
  EXPECT_NE(bad->problems[0].message.find("not divisible"), std::string::npos);
}

// `steps` training steps now on the copy task (paused training).
LabRequest copy_task_steps(core::AttentionKind kind, int d, int h, int steps) {
  auto r = request(kind, d, h);
  r.input = LabInput::Synthetic;
  r.task = core::SyntheticTask::Copy;
  r.synthetic_n = 16;
  r.training = false;
  r.single_steps = steps;
  return r;
}

TEST(LabEngine, TrainingLowersTheLossAndSurvivesAnInputChange) {
  LabEngine engine;
  auto r = copy_task_steps(core::AttentionKind::TalkingHeads, 32, 4, 40);
  auto s = wait_for(engine, engine.post(r));
  ASSERT_TRUE(s && s->valid);
  ASSERT_EQ(s->training.step, 40);
  const float first = s->training.loss.front(), last = s->training.loss.back();
  EXPECT_LT(last, first);
  // Changing the input (not a shape) keeps the trained weights and the curve.
  r.single_steps = 0;
  r.input = LabInput::Text;
  auto s2 = wait_for(engine, engine.post(r));
  ASSERT_TRUE(s2);
  EXPECT_EQ(s2->training.step, 40);
  // Changing a shape (heads) starts over.
  auto r3 = request(core::AttentionKind::TalkingHeads, 32, 8);
  auto s3 = wait_for(engine, engine.post(r3));
  ASSERT_TRUE(s3);
  EXPECT_EQ(s3->training.step, 0);
}

// Many steps asked for at once show the loss as it falls (snapshots marked unfinished), then the end.
TEST(LabEngine, ALongTrainingRequestShowsItsProgressBeforeItsEnd) {
  LabEngine engine;
  const auto id = engine.post(copy_task_steps(core::AttentionKind::MultiHead, 32, 4, 1500));
  std::vector<std::pair<int64_t, int>> seen;  // (step, pending) of each snapshot answering the request
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < until) {
    const auto s = engine.snapshot();
    if (s->request_id >= id && s->valid && (seen.empty() || seen.back().first != s->training.step))
      seen.emplace_back(s->training.step, s->training.pending_steps);
    if (s->request_id >= id && s->training.step == 1500) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), std::make_pair(int64_t{1500}, 0));
  ASSERT_GE(seen.size(), 2u) << "no snapshot before the end";
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    EXPECT_GT(seen[i].second, 0) << "a snapshot at step " << seen[i].first << " was not marked unfinished";
    EXPECT_EQ(seen[i].first + seen[i].second, 1500);
  }
}

// A lesson's "train 400 steps" and the next step's scene come in quick succession: the latest
// request wins, yet the steps asked for are trained (the replaced request's carried over, or the
// interrupted training's owed), as long as the weights stay the same model's.
TEST(LabEngine, StepsAskedForSurviveANewerRequestThatKeepsTheWeights) {
  LabEngine engine;
  auto r = copy_task_steps(core::AttentionKind::MultiHead, 32, 4, 120);
  r.reset_training = true;
  engine.post(r);
  auto next = r;  // the next step's scene: another input, the same model
  next.single_steps = 0;
  next.reset_training = false;
  next.input = LabInput::Text;
  auto s = wait_for(engine, engine.post(next));
  ASSERT_TRUE(s && s->valid);
  EXPECT_EQ(s->training.step, 120);

  // A reset asked for and replaced before the engine took it still happens.
  auto reset = next;
  reset.reset_training = true;
  engine.post(reset);
  s = wait_for(engine, engine.post(next));
  ASSERT_TRUE(s && s->valid);
  EXPECT_EQ(s->training.step, 0);

  // Another model drops them: its weights are new, the steps were asked of the old ones.
  r.single_steps = 120;
  r.reset_training = false;
  engine.post(r);
  auto other = request(core::AttentionKind::MultiHead, 32, 8);
  s = wait_for(engine, engine.post(other));
  ASSERT_TRUE(s && s->valid);
  EXPECT_EQ(s->training.step, 0);
}

TEST(LabEngine, OpensAStoredRunWithItsShapesAndValuesOffTheCallingThread) {
  const core::ModelSpec spec = request(core::AttentionKind::TalkingHeads, 32, 4, 1).model;
  core::TransformerLM stored(nullptr);
  const StoredRunDb db("th", {{20, weights_bytes(spec, 5)}, {40, weights_bytes(spec, 7, torch::kFloat32, &stored)}});
  LabEngine engine;
  auto first = wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 8)));
  ASSERT_TRUE(first && first->valid);
  // The caller is a UI thread: reading the DB and decoding must happen on the engine's thread.
  io::mark_ui_thread();
  const long before = io::blocking_calls_on_ui_thread();
  const uint64_t id = engine.open_stored(db.at(1000));  // beyond the last: the newest stored step
  io::mark_ui_thread(false);
  EXPECT_EQ(io::blocking_calls_on_ui_thread(), before);
  auto s = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id; });
  ASSERT_TRUE(s && s->valid);
  EXPECT_TRUE(s->stored.error.empty()) << s->stored.error;
  EXPECT_EQ(s->stored.steps, (std::vector<int64_t>{20, 40}));
  EXPECT_EQ(s->stored.index, 1);
  EXPECT_EQ(s->spec, spec);
  ASSERT_EQ(s->layers.size(), 1u);
  ASSERT_TRUE(s->layers[0].has_P_l);
  // The shown P_l is the stored one, not a fresh initialisation.
  auto* block = stored->blocks[0]->as<core::TransformerBlockImpl>();
  const auto p_l = block->attn->p_l.contiguous();
  ASSERT_EQ(s->layers[0].P_l.raw.v.size(), static_cast<size_t>(p_l.numel()));
  for (int64_t i = 0; i < p_l.numel(); ++i)
    EXPECT_FLOAT_EQ(s->layers[0].P_l.raw.v[static_cast<size_t>(i)], p_l.data_ptr<float>()[i]);
  // Scrubbing to an earlier step loads that step's weights.
  const uint64_t id2 = engine.open_stored(db.at(20));
  auto s2 = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id2; });
  ASSERT_TRUE(s2 && s2->valid);
  EXPECT_EQ(s2->stored.index, 0);
  EXPECT_NE(s2->layers[0].P_l.raw.v, s->layers[0].P_l.raw.v);
}

TEST(LabEngine, AStoredRunThatCannotBeOpenedIsExplainedAndTheModelKept) {
  LabEngine engine;
  auto first = wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 8)));
  ASSERT_TRUE(first && first->valid);
  {
    const StoredRunDb empty("none", {});
    const uint64_t id = engine.open_stored(empty.at(0));
    auto s = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id; });
    ASSERT_TRUE(s);
    EXPECT_NE(s->stored.error.find("no stored weights yet"), std::string::npos) << s->stored.error;
    EXPECT_EQ(s->spec.width, 64);  // the lab keeps its model
  }
  const StoredRunDb junk("junk", {{10, {1, 2, 3}}});
  const uint64_t id = engine.open_stored(junk.at(10));
  auto s = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id; });
  ASSERT_TRUE(s);
  EXPECT_NE(s->stored.error.find("cannot open stored-run"), std::string::npos) << s->stored.error;
  EXPECT_EQ(s->stored.index, -1);
  EXPECT_TRUE(s->valid);
  EXPECT_EQ(s->spec.width, 64);
  const uint64_t id3 = engine.open_stored(StoredCheckpoint{"/nonexistent/dir/x.sqlite", 1, "gone", "bytes", 0});
  auto s3 = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id3; });
  ASSERT_TRUE(s3);
  EXPECT_NE(s3->stored.error.find("does not exist"), std::string::npos) << s3->stored.error;
}

TEST(LabEngine, AStoredRunNamedByASceneIsFoundByNameWithItsTokenizerAndNeedsNoModelBefore) {
  // A scene or a lesson step names a run (lab.stored_run): no id, no tokenizer; and it may be the
  // engine's first request, before the lab posted any model of its own.
  const core::ModelSpec spec = request(core::AttentionKind::MultiHead, 32, 4, 1).model;
  const StoredRunDb db("named", {{30, weights_bytes(spec, 3)}});
  LabEngine engine;
  const uint64_t id = engine.open_stored(StoredCheckpoint{db.path, 0, "named", "", INT64_MAX});
  auto s = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id; });
  ASSERT_TRUE(s && s->valid);
  EXPECT_TRUE(s->stored.error.empty()) << s->stored.error;
  EXPECT_EQ(s->stored.run.run_id, db.run_id);
  EXPECT_EQ(s->stored.run.tokenizer, "bytes");  // from the run's config
  EXPECT_EQ(s->stored.steps, (std::vector<int64_t>{30}));
  EXPECT_EQ(s->stored.index, 0);
  EXPECT_EQ(s->spec, spec);

  const uint64_t id2 = engine.open_stored(StoredCheckpoint{db.path, 0, "Named", "", INT64_MAX});
  auto s2 = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id2; });
  ASSERT_TRUE(s2);
  EXPECT_NE(s2->stored.error.find("there is no run named \"Named\" in " + db.path), std::string::npos)
      << s2->stored.error;
  EXPECT_EQ(s2->stored.index, -1);
  EXPECT_EQ(s2->spec, spec);  // the lab keeps the stored model it had

  // A run that is not there as the engine's first request: answered all the same (no model to
  // show yet), so the lab can say why and build its own.
  LabEngine fresh;
  const uint64_t id3 = fresh.open_stored(StoredCheckpoint{db.path, 0, "missing", "", INT64_MAX});
  auto s3 = wait_until(fresh, [&](const LabSnapshot& x) { return x.stored.request_id >= id3; });
  ASSERT_TRUE(s3);
  EXPECT_FALSE(s3->valid);
  EXPECT_NE(s3->stored.error.find("there is no run named \"missing\""), std::string::npos) << s3->stored.error;
}

TEST(LabEngine, AVocabularyThatDoesNotMatchTheModelIsExplained) {
  LabEngine engine;
  LabRequest r = request(core::AttentionKind::MultiHead, 32, 4, 1);
  r.model.vocab = 500;  // but the tokenizer stays bytes (256)
  auto s = wait_for(engine, engine.post(r));
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->valid);
  ASSERT_FALSE(s->problems.empty());
  EXPECT_NE(s->problems[0].message.find("V = 500"), std::string::npos) << s->problems[0].message;
}

TEST(LabEngine, SixteenBitWeightsOfAResultsOnlyExportLoad) {
  // `export --results-only` stores final weights in F16; the lab reads them into its float model.
  const core::ModelSpec spec = request(core::AttentionKind::MultiHead, 32, 4, 1).model;
  const StoredRunDb db("f16", {{40, weights_bytes(spec, 11, torch::kHalf)}});
  LabEngine engine;
  ASSERT_TRUE(wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 8))));
  const uint64_t id = engine.open_stored(db.at(40));
  auto s = wait_until(engine, [&](const LabSnapshot& x) { return x.stored.request_id >= id; });
  ASSERT_TRUE(s && s->valid) << (s && !s->problems.empty() ? s->problems[0].message : "");
  EXPECT_TRUE(s->stored.error.empty()) << s->stored.error;
  EXPECT_EQ(s->spec, spec);
  EXPECT_EQ(s->layers.size(), 1u);
}

TEST(LabEngine, HeadsSwitchedOffChangeTheLossesAndComeBackWhole) {
  LabEngine engine;
  LabRequest r = request(core::AttentionKind::MultiHead, 32, 4);
  auto whole = wait_for(engine, engine.post(r));
  ASSERT_TRUE(whole && whole->valid);
  EXPECT_TRUE(whole->ablation.heads_off.empty());  // nothing asked, nothing measured
  const double sentence = whole->ablation.sentence_loss;
  EXPECT_TRUE(std::isfinite(sentence));

  // Every head of layer 1 off, and each head of layer 0 measured alone.
  r.heads_off = {{1, 0}, {1, 1}, {1, 2}, {1, 3}};
  r.importance_layer = 0;
  auto off = wait_for(engine, engine.post(r));
  ASSERT_TRUE(off && off->valid);
  const Ablation& a = off->ablation;
  EXPECT_EQ(a.heads_off.size(), 4u);
  EXPECT_DOUBLE_EQ(a.sentence_loss_all, sentence);  // the whole model, measured beside
  EXPECT_NE(a.sentence_loss, a.sentence_loss_all);  // a whole layer's output gone changes the prediction
  EXPECT_TRUE(std::isfinite(a.val_loss) && std::isfinite(a.val_loss_all));
  EXPECT_NE(a.val_loss, a.val_loss_all);
  EXPECT_EQ(a.val_source, "the induction task");
  EXPECT_EQ(a.layer, 0);
  ASSERT_EQ(a.importance.size(), 4u);
  for (double v : a.importance) EXPECT_TRUE(std::isfinite(v));
  // A switched-off head's own map is unchanged (its weights are kept; only its output is zeroed)...
  for (int h = 0; h < 4; ++h) EXPECT_EQ(off->layers[1].W[h].v, whole->layers[1].W[h].v) << h;

  // ...and switching them back on gives the whole model again, to the bit.
  r.heads_off.clear();
  r.importance_layer = -1;
  auto back = wait_for(engine, engine.post(r));
  ASSERT_TRUE(back && back->valid);
  EXPECT_EQ(back->ablation.sentence_loss, sentence);
  EXPECT_EQ(back->layers[1].W[0].v, whole->layers[1].W[0].v);
}

// ---- a real checkpoint in the lab (issue 16) -------------------------------------------------------

namespace {

// A tiny BERT in Hugging Face's layout with a WordPiece vocabulary of its 41 ids.
std::string tiny_bert(const headroom::testing::ScratchDir& dir) {
  const std::string path = dir.file("bert");
  const nlohmann::json config = {{"model_type", "bert"},         {"vocab_size", 41},         {"hidden_size", 12},
                                 {"num_hidden_layers", 2},       {"num_attention_heads", 3}, {"intermediate_size", 20},
                                 {"max_position_embeddings", 12}};
  core::hf::write_tiny_checkpoint(path, core::hf::parse_hf_config(config, "config.json"), 3);
  std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nin\nthe\nbeginning\ngod\ncreated\nheaven\nand\nearth\n";
  for (int i = 13; i < 41; ++i) vocab += "w" + std::to_string(i) + "\n";
  std::ofstream(path + "/vocab.txt") << vocab;
  return path;
}

}  // namespace

TEST(LabEngine, ARealModelShowsItsHeadsOnTheSentenceThroughItsOwnTokenizer) {
  headroom::testing::ScratchDir dir("lab-real");
  const std::string model = tiny_bert(dir);
  LabEngine engine;
  ASSERT_TRUE(wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 8))));
  io::mark_ui_thread();  // opening reads files: on the engine's thread, never the caller's
  const long before = io::blocking_calls_on_ui_thread();
  const uint64_t id = engine.open_model(model);
  io::mark_ui_thread(false);
  EXPECT_EQ(io::blocking_calls_on_ui_thread(), before);
  auto s = wait_until(engine, [&](const LabSnapshot& x) { return x.real.request_id >= id; });
  ASSERT_TRUE(s && s->valid);
  ASSERT_EQ(s->real.dir, model) << s->real.error;
  EXPECT_EQ(s->real.family, "BERT");
  EXPECT_FALSE(s->real.causal);
  EXPECT_EQ(s->tokens, (std::vector<std::string>{"[CLS]", "in", "the", "beginning", "god", "created", "[SEP]"}));
  ASSERT_EQ(s->layers.size(), 2u);
  for (const auto& layer : s->layers) {
    ASSERT_EQ(layer.W.size(), 3u);
    EXPECT_EQ(layer.rank_cap, 4);  // min(n = 7, d_k = 4)
    for (const auto& w : layer.W) {
      ASSERT_EQ(w.rows, 7);
      for (int i = 0; i < 7; ++i) {  // bidirectional: every row a distribution over all 7 keys
        double sum = 0;
        for (int j = 0; j < 7; ++j) sum += w.v[static_cast<size_t>(i * 7 + j)];
        EXPECT_NEAR(sum, 1.0, 1e-5);
        EXPECT_GT(w.v[static_cast<size_t>(i * 7 + 6)], 0.0f);
      }
    }
    for (const auto& sp : layer.spectra) EXPECT_LE(sp.rank, layer.rank_cap);
    ASSERT_EQ(layer.A.size(), 3u);  // the neurons view's factors: scaled q and k, d_k = 4 components
    EXPECT_EQ(layer.A[0].cols, 4);
    EXPECT_LT(worst_factor_error(layer), 1e-4);
  }
  // A new sentence is read by the real model; closing it brings the lab's own model back.
  LabRequest r = request(core::AttentionKind::MultiHead, 64, 8);
  r.text = "the earth";
  auto s2 = wait_for(engine, engine.post(r));
  ASSERT_TRUE(s2 && s2->valid);
  EXPECT_EQ(s2->tokens, (std::vector<std::string>{"[CLS]", "the", "earth", "[SEP]"}));
  const uint64_t close = engine.open_model("");
  auto s3 = wait_until(engine, [&](const LabSnapshot& x) { return x.real.request_id >= close && x.real.dir.empty(); });
  ASSERT_TRUE(s3);
  engine.post(r);
  auto s4 = wait_until(engine, [&](const LabSnapshot& x) { return x.valid && x.spec.width == 64; });
  ASSERT_TRUE(s4);
  EXPECT_EQ(s4->layers[0].W.size(), 8u);
}

TEST(LabEngine, AModelDirectoryThatCannotBeOpenedIsExplainedAndTheLabsModelKept) {
  headroom::testing::ScratchDir dir("lab-real");
  LabEngine engine;
  ASSERT_TRUE(wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 8))));
  const std::string model = tiny_bert(dir);
  std::filesystem::remove(model + "/vocab.txt");
  for (const std::string& bad : {dir.file("nowhere"), model}) {
    const uint64_t id = engine.open_model(bad);
    engine.post(request(core::AttentionKind::MultiHead, 64, 8));
    auto s = wait_until(engine, [&](const LabSnapshot& x) { return x.real.request_id >= id; });
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->real.dir.empty());
    EXPECT_NE(s->real.error.find(bad), std::string::npos) << s->real.error;
    if (bad == model) {
      EXPECT_NE(s->real.error.find("tokenizer"), std::string::npos) << s->real.error;
    }
    EXPECT_TRUE(s->valid);
    EXPECT_EQ(s->spec.width, 64);  // the lab's own model, still there
  }
}
