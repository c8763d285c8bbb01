// The lab's compute side without a window: requests in, snapshots out.
#include <gtest/gtest.h>

#include <cmath>

#include <chrono>
#include <thread>

#include <torch/torch.h>

#include "app/gui/lab/lab_engine.h"
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
    if (s->request_id >= id) return s;
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

}  // namespace

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
  }
  ASSERT_FALSE(s->bottlenecks.empty());
  EXPECT_EQ(s->bottlenecks[0].id, "lrb-head-rank");
  EXPECT_EQ(s->costs.params, 4 * 64 * 64);
  // The live model trains on the synthetic tasks: 29 of the 256 byte ids occur, fewer than d = 64.
  bool vocab_badge = false;
  for (const auto& b : s->bottlenecks)
    if (b.id == "vb-vocab") {
      vocab_badge = true;
      EXPECT_NE(b.message.find("only 29 of the V = 256 tokens occur in the live tasks"), std::string::npos) << b.message;
    }
  EXPECT_TRUE(vocab_badge);
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
  EXPECT_FLOAT_EQ(mx, 1.0f);  // TH Fig. 1: normalised to [-1, 1]
  EXPECT_GT(std::abs(l.P_l.det), 1e-3);  // near-identity start
  // TH §7.4's measure is the smallest eigenvalue: its modulus is never below the smallest
  // singular value, and |det| is the product of the moduli.
  EXPECT_GE(l.P_l.smallest_abs_eigenvalue, l.P_l.smallest_sv * (1 - 1e-9));
  EXPECT_LE(std::pow(l.P_l.smallest_abs_eigenvalue, 4), std::abs(l.P_l.det) * (1 + 1e-9));
  EXPECT_EQ(l.L.size(), 4u);
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

TEST(LabEngine, TrainingLowersTheLossAndSurvivesAnInputChange) {
  LabEngine engine;
  auto r = request(core::AttentionKind::TalkingHeads, 32, 4);
  r.input = LabInput::Synthetic;
  r.task = core::SyntheticTask::Copy;
  r.synthetic_n = 16;
  r.training = false;
  r.single_steps = 40;
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

TEST(LabEngine, LoadsStoredWeightsWithTheirShapesAndValues) {
  // What the worker stores as a "weights" artifact: every parameter + the model spec.
  core::ModelSpec spec = request(core::AttentionKind::TalkingHeads, 32, 4, 1).model;
  torch::manual_seed(7);
  core::TransformerLM stored(spec);
  core::StFile f;
  for (const auto& p : stored->named_parameters()) f.tensors.push_back(core::to_st_tensor(p.key(), p.value()));
  f.metadata = {{"format", "headroom weights v1"}, {"step", "40"}, {"model", core::to_json(spec).dump()}};
  const auto bytes = core::encode_safetensors(f);

  LabEngine engine;
  auto first = wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 8)));
  ASSERT_TRUE(first && first->valid);
  std::string error;
  EXPECT_FALSE(engine.load_weights({1, 2, 3}, "bytes", "kjv", &error));
  EXPECT_FALSE(error.empty());
  ASSERT_TRUE(engine.load_weights(bytes, "bytes", "kjv", &error)) << error;
  std::shared_ptr<const LabSnapshot> s;
  for (int i = 0; i < 3000 && (!s || s->spec.width != 32); ++i) {
    s = engine.snapshot();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(s && s->valid);
  EXPECT_EQ(s->spec, spec);
  ASSERT_EQ(s->layers.size(), 1u);
  ASSERT_TRUE(s->layers[0].has_P_l);
  // The shown P_l is the stored one, not a fresh initialisation.
  auto* block = stored->blocks[0]->as<core::TransformerBlockImpl>();
  const auto p_l = block->attn->p_l.contiguous();
  ASSERT_EQ(s->layers[0].P_l.raw.v.size(), static_cast<size_t>(p_l.numel()));
  for (int64_t i = 0; i < p_l.numel(); ++i)
    EXPECT_FLOAT_EQ(s->layers[0].P_l.raw.v[static_cast<size_t>(i)], p_l.data_ptr<float>()[i]);
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
  core::ModelSpec spec = request(core::AttentionKind::MultiHead, 32, 4, 1).model;
  torch::manual_seed(11);
  core::TransformerLM stored(spec);
  core::StFile f;
  for (const auto& p : stored->named_parameters())
    f.tensors.push_back(core::to_st_tensor(p.key(), p.value().to(torch::kHalf)));
  f.metadata = {{"format", "headroom weights v1"}, {"step", "40"}, {"model", core::to_json(spec).dump()}};
  const auto bytes = core::encode_safetensors(f);
  LabEngine engine;
  ASSERT_TRUE(wait_for(engine, engine.post(request(core::AttentionKind::MultiHead, 64, 8))));
  std::string error;
  ASSERT_TRUE(engine.load_weights(bytes, "bytes", "kjv", &error)) << error;
  std::shared_ptr<const LabSnapshot> s;
  for (int i = 0; i < 3000 && (!s || s->spec.width != 32); ++i) {
    s = engine.snapshot();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(s && s->valid) << (s && !s->problems.empty() ? s->problems[0].message : "");
  EXPECT_EQ(s->spec, spec);
  EXPECT_EQ(s->layers.size(), 1u);
}
