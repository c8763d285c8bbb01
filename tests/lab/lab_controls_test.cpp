// The lab's view state without a window: controls -> model spec, scene JSON round trip, errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "app/gui/lab/lab_controls.h"

using namespace headroom;
using namespace headroom::gui;
using json = nlohmann::json;

TEST(LabControls, StandardToggleChoosesBetweenLrbEquation8AndFixedHeadSize) {
  LabControls c;
  c.d = 64;
  c.heads = 16;
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems));
  EXPECT_EQ(spec.attention.kind, core::AttentionKind::MultiHead);
  EXPECT_EQ(spec.attention.d_k, 4);
  c.standard_head_size = false;
  c.head_size = 32;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems));
  EXPECT_EQ(spec.attention.kind, core::AttentionKind::FixedHead);
  EXPECT_EQ(spec.attention.d_k, 32);
}

TEST(LabControls, ImpossibleCombinationsAreExplainedPerControl) {
  LabControls c;
  c.d = 64;
  c.heads = 3;  // 64 is not divisible by 3 under d_p = d/h
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  EXPECT_FALSE(model_spec_of(c, &spec, &problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].field, "heads");
  EXPECT_NE(problems[0].message.find("fixed-head"), std::string::npos);
  c.heads = 4;
  c.embed_rank = 100;  // r > d
  EXPECT_FALSE(model_spec_of(c, &spec, &problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems.back().field, "embedding rank");
}

TEST(LabControls, TalkingHeadsCountsFollowTheKind) {
  LabControls c;
  c.kind = core::AttentionKind::LogitsProj;
  c.d = 64;
  c.heads = 8;
  c.heads_k = 4;
  c.heads_v = 2;  // ignored: logits-proj has h_v = h
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
  EXPECT_EQ(spec.attention.heads_k, 4);
  EXPECT_EQ(spec.attention.heads_v, 8);
}

TEST(LabControls, SceneJsonRoundTripsAndRejectsBadKeys) {
  LabControls c;
  c.kind = core::AttentionKind::DynamicProj;
  c.heads = 6;
  c.tab = LabTab::Theorem;
  c.stage = MapStage::U;
  c.pattern = TargetPattern::PreviousToken;
  c.text = "And God said";
  LabControls back;
  std::string error;
  ASSERT_TRUE(controls_from_json(to_json(c), &back, &error)) << error;
  EXPECT_EQ(to_json(back), to_json(c));

  LabControls untouched;
  EXPECT_FALSE(controls_from_json({{"heads", "many"}}, &untouched, &error));
  EXPECT_NE(error.find("lab.heads"), std::string::npos) << error;
  EXPECT_FALSE(controls_from_json({{"head", 4}}, &untouched, &error));
  EXPECT_NE(error.find("unknown key"), std::string::npos);
  EXPECT_FALSE(controls_from_json({{"tab", "spectra"}}, &untouched, &error));
  EXPECT_EQ(to_json(untouched), to_json(LabControls{}));  // a failed read changes nothing
}

TEST(LabControls, NumbersOutOfRangeAreRefusedNotWrappedIntoOthers) {
  // Before, "d": 4294967360 read as d = 64 (the int wrapped) and lr 1e300 as an infinite float.
  const std::vector<std::pair<const char*, const char*>> bad = {
      {R"({"d": 4294967360})", "lab.d: expected a whole number from -2147483648 to 2147483647"},
      {R"({"layers": -2147483649})", "lab.layers: expected a whole number"},
      {R"({"seed": -1})", "lab.seed: expected a whole number >= 0"},
      {R"({"lr": 1e300})", "lab.lr: 1e+300 is out of range"},
      {R"({"heads_off": [[4294967296, 0]]})", "lab.heads_off"}};
  for (const auto& [text, message] : bad) {
    LabControls untouched;
    std::string error;
    EXPECT_FALSE(controls_from_json(nlohmann::json::parse(text), &untouched, &error)) << text;
    EXPECT_NE(error.find(message), std::string::npos) << text << " -> " << error;
    EXPECT_EQ(to_json(untouched), to_json(LabControls{}));
  }
  // A lesson's TOML integers arrive as signed JSON numbers: a seed >= 0 is still a seed.
  LabControls c;
  std::string error;
  ASSERT_TRUE(controls_from_json({{"seed", std::int64_t{3}}, {"d", std::int64_t{32}}}, &c, &error)) << error;
  EXPECT_EQ(c.seed, 3u);
  EXPECT_EQ(c.d, 32);
}

TEST(LabControls, VocabularyChoiceSetsVAndIsValidated) {
  LabControls c;
  c.d = 64;
  c.heads = 8;
  c.vocab = "bpe:500";
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems));
  EXPECT_EQ(spec.vocab, 500);
  EXPECT_EQ(lab_request_of(c, spec).tokenizer, "bpe:500");
  for (const char* bad : {"bpe:", "bpe:12", "bpe:5x", "words"}) {
    c.vocab = bad;
    EXPECT_FALSE(model_spec_of(c, &spec, &problems)) << bad;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems.back().field, "vocabulary");
    EXPECT_NE(problems.back().message.find("bpe:<V>"), std::string::npos) << problems.back().message;
  }
  std::string error;
  LabControls untouched;
  EXPECT_FALSE(controls_from_json({{"vocab", "bpe:1"}}, &untouched, &error));
  EXPECT_NE(error.find("lab.vocab"), std::string::npos) << error;
  EXPECT_EQ(untouched.vocab, "bytes");
}

TEST(LabControls, StoredModelsRoundTripThroughTheControls) {
  // A fixed-head run (LRB §3) and a standard multi-head run come back as the same specs.
  for (bool fixed : {true, false}) {
    LabControls c;
    c.d = 96;
    c.heads = 12;
    c.standard_head_size = !fixed;
    c.head_size = 32;
    c.layers = 3;
    c.context = 64;
    c.embed_rank = 16;
    c.vocab = "bpe:2000";
    core::ModelSpec spec;
    std::vector<core::SpecProblem> problems;
    ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
    LabControls back;
    controls_from_model_spec(spec, "bpe:2000", &back);
    core::ModelSpec again;
    ASSERT_TRUE(model_spec_of(back, &again, &problems)) << problems[0].message;
    EXPECT_EQ(again, spec) << (fixed ? "fixed-head" : "standard");
    EXPECT_EQ(back.standard_head_size, !fixed);
    EXPECT_EQ(back.vocab, "bpe:2000");
  }
}

TEST(LabControls, TheoremRequestFollowsTheControlsAndAHeadsMap) {
  LabControls c;
  c.pattern = TargetPattern::SelfVsPast;
  c.theorem_n = 9;
  c.theorem_dp = 4;
  c.theorem_causal = true;
  c.seed = 3;
  std::string key, key2;
  TheoremRequest t = theorem_request_of(c, nullptr, &key);
  EXPECT_EQ(t.pattern, TargetPattern::SelfVsPast);
  EXPECT_EQ(t.n, 9);
  EXPECT_EQ(t.d_p, 4);
  EXPECT_TRUE(t.causal);
  EXPECT_EQ(t.seed, 3u);
  c.theorem_dp = 5;
  theorem_request_of(c, nullptr, &key2);
  EXPECT_NE(key, key2);  // a new d_p is a new request

  // A head's map: the chosen layer's head, at that map's own n; a new snapshot is a new request.
  LabSnapshot s;
  s.valid = true;
  s.version = 7;
  s.layers.resize(2);
  s.layers[1].W.resize(3, Matrix{5, 5, std::vector<float>(25, 0.2f)});
  s.layers[1].W[2].v[0] = 0.9f;
  c.pattern = TargetPattern::HeadMap;
  c.layer = 1;
  c.theorem_head = 99;  // clamped to the last head
  t = theorem_request_of(c, &s, &key);
  EXPECT_EQ(t.n, 5);
  ASSERT_EQ(t.head_map.v.size(), 25u);
  EXPECT_FLOAT_EQ(t.head_map.v[0], 0.9f);
  s.version = 8;
  theorem_request_of(c, &s, &key2);
  EXPECT_NE(key, key2);
  // No snapshot yet: the controls' n.
  t = theorem_request_of(c, nullptr, nullptr);
  EXPECT_EQ(t.n, 9);
  EXPECT_TRUE(t.head_map.v.empty());
}

TEST(LabControls, HeadsSwitchedOffRoundTripToggleAndReachTheRequestOnlyWhereTheModelHasThem) {
  LabControls c;
  toggle_head(&c, 1, 3);
  toggle_head(&c, 0, 2);
  EXPECT_TRUE(head_is_off(c, 1, 3));
  toggle_head(&c, 1, 3);  // back on
  EXPECT_FALSE(head_is_off(c, 1, 3));
  toggle_head(&c, 1, 7);
  toggle_head(&c, 5, 0);  // a layer the 2-layer model does not have
  c.importance = true;
  c.layer = 1;
  LabControls back;
  std::string error;
  ASSERT_TRUE(controls_from_json(to_json(c), &back, &error)) << error;
  EXPECT_EQ(back.heads_off, c.heads_off);
  EXPECT_TRUE(back.importance);

  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems));  // d = 64, h = 8, L = 2
  const LabRequest r = lab_request_of(c, spec);
  EXPECT_EQ(r.heads_off, (std::vector<std::pair<int, int>>{{0, 2}, {1, 7}}));
  EXPECT_EQ(r.importance_layer, 1);

  for (const char* bad : {R"({"heads_off": [[0]]})", R"({"heads_off": [[0, -1]]})", R"({"heads_off": [["a", 1]]})",
                          R"({"heads_off": 3})"}) {
    LabControls untouched;
    EXPECT_FALSE(controls_from_json(nlohmann::json::parse(bad), &untouched, &error)) << bad;
    EXPECT_NE(error.find("lab.heads_off"), std::string::npos) << error;
  }
}

TEST(LabControls, TheLinesViewRoundTripsAndRefusesWhatItCannotShow) {
  LabControls c;
  EXPECT_EQ(c.map_view, MapView::Heatmaps);  // a new lab shows heatmaps
  c.map_view = MapView::Lines;
  c.lines_query = 7;
  c.lines_hidden = {1, 3};
  LabControls back;
  std::string error;
  ASSERT_TRUE(controls_from_json(to_json(c), &back, &error)) << error;
  EXPECT_EQ(back.map_view, MapView::Lines);
  EXPECT_EQ(back.lines_query, 7);
  EXPECT_EQ(back.lines_hidden, (std::vector<int>{1, 3}));
  EXPECT_EQ(to_json(c)["map_view"], "lines");
  ASSERT_TRUE(controls_from_json(nlohmann::json::parse(R"({"map_view": "all layers"})"), &back, &error)) << error;
  EXPECT_EQ(back.map_view, MapView::Model);
  c.map_view = MapView::Neurons;  // the neurons view: its head, and the same pinned query
  c.neuron_head = 5;
  ASSERT_TRUE(controls_from_json(to_json(c), &back, &error)) << error;
  EXPECT_EQ(to_json(c)["map_view"], "neurons");
  EXPECT_EQ(back.map_view, MapView::Neurons);
  EXPECT_EQ(back.neuron_head, 5);

  for (const auto& [bad, key] : std::vector<std::pair<const char*, const char*>>{
           {R"({"map_view": "bars"})", "lab.map_view: use maps"},
           {R"({"map_view": 1})", "lab.map_view: expected string"},
           {R"({"lines_hidden": [-1]})", "lab.lines_hidden: expected a list of head numbers"},
           {R"({"lines_hidden": ["a"]})", "lab.lines_hidden"},
           {R"({"lines_query": 1.5})", "lab.lines_query: expected a whole number, got 1.5"},
           {R"({"neuron_head": -2})", "lab.neuron_head: expected a head number >= 0"}}) {
    LabControls untouched;
    EXPECT_FALSE(controls_from_json(nlohmann::json::parse(bad), &untouched, &error)) << bad;
    EXPECT_NE(error.find(key), std::string::npos) << error;
    EXPECT_EQ(untouched.map_view, MapView::Heatmaps);  // nothing half-read
  }
}

TEST(LabControls, PositionsOffBuildsAModelWithoutThemKeepsTheRankAndNeedsTheCausalMask) {
  LabControls c;
  c.pos_rank = 4;
  c.positions = false;
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
  EXPECT_EQ(spec.positions, core::Positions::None);
  EXPECT_EQ(spec.pos_rank, 0);  // nothing to factorise; the slider keeps 4 for when positions return
  LabControls back;
  controls_from_model_spec(spec, "bytes", &back);
  EXPECT_FALSE(back.positions);
  LabControls scene;
  std::string error;
  ASSERT_TRUE(controls_from_json(to_json(c), &scene, &error)) << error;
  EXPECT_FALSE(scene.positions);
  EXPECT_EQ(scene.pos_rank, 4);

  c.causal = false;
  EXPECT_FALSE(model_spec_of(c, &spec, &problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "positions");
  EXPECT_NE(problems[0].message.find("tick causal, or positional embedding"), std::string::npos) << problems[0].message;
}

TEST(LabControls, StartingPositionsAtZeroReachesTheModelAndTheSceneAndWaitsWhilePositionsAreOff) {
  LabControls c;
  c.pos_rank = 4;
  c.pos_init = core::PosInit::Zero;
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
  EXPECT_EQ(spec.pos_init, core::PosInit::Zero);
  EXPECT_EQ(spec.pos_rank, 4);
  LabControls back;
  controls_from_model_spec(spec, "bytes", &back);
  EXPECT_EQ(back.pos_init, core::PosInit::Zero);

  EXPECT_EQ(to_json(c)["pos_init"], "zero");
  LabControls scene;
  std::string error;
  ASSERT_TRUE(controls_from_json(to_json(c), &scene, &error)) << error;
  EXPECT_EQ(scene.pos_init, core::PosInit::Zero);
  ASSERT_TRUE(controls_from_json(nlohmann::json::parse(R"({"pos_init": "random"})"), &scene, &error)) << error;
  EXPECT_EQ(scene.pos_init, core::PosInit::Random);

  // Without positions there is no table to start: the model is the plain no-positions one (which
  // validate would refuse with zero), and the box keeps its value for when positions return.
  c.positions = false;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
  EXPECT_EQ(spec.pos_init, core::PosInit::Random);
  EXPECT_EQ(to_json(c)["pos_init"], "zero");

  for (const char* bad : {R"({"pos_init": "orthogonal"})", R"({"pos_init": true})"}) {
    LabControls untouched;
    EXPECT_FALSE(controls_from_json(nlohmann::json::parse(bad), &untouched, &error)) << bad;
    EXPECT_NE(error.find("lab.pos_init"), std::string::npos) << error;
    EXPECT_EQ(untouched.pos_init, core::PosInit::Random);
  }
  ASSERT_FALSE(controls_from_json(nlohmann::json::parse(R"({"pos_init": "orthogonal"})"), &scene, &error));
  EXPECT_NE(error.find("\"zero\""), std::string::npos) << error;
}

TEST(LabControls, TheRandomStartsScaleReachesTheModelOnlyWhileTheStartIsRandom) {
  LabControls c;
  c.pos_rank = 4;
  c.pos_init_scale = 0.5f;
  core::ModelSpec spec;
  std::vector<core::SpecProblem> problems;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
  EXPECT_TRUE(has_random_pos_start(c));
  EXPECT_EQ(spec.pos_init_scale, 0.5);
  LabControls back;
  controls_from_model_spec(spec, "bytes", &back);
  EXPECT_EQ(back.pos_init_scale, 0.5f);

  // A zero start or no positions have no random start to scale (validate refuses a scale there):
  // the model takes 1, the slider keeps its value for when the random start returns.
  // The slider is disabled exactly then (has_random_pos_start).
  c.pos_init = core::PosInit::Zero;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
  EXPECT_FALSE(has_random_pos_start(c));
  EXPECT_EQ(spec.pos_init_scale, 1.0);
  c.pos_init = core::PosInit::Random;
  c.positions = false;
  ASSERT_TRUE(model_spec_of(c, &spec, &problems)) << problems[0].message;
  EXPECT_FALSE(has_random_pos_start(c));
  EXPECT_EQ(spec.pos_init_scale, 1.0);
  EXPECT_EQ(to_json(c)["pos_init_scale"], 0.5);

  // A new scale is a new start: the lab trains afresh rather than carrying weights over.
  core::ModelSpec half, full;
  c.positions = true;
  ASSERT_TRUE(model_spec_of(c, &half, &problems));
  c.pos_init_scale = 1.0f;
  ASSERT_TRUE(model_spec_of(c, &full, &problems));
  EXPECT_FALSE(same_shapes(half, full));

  LabControls scene;
  std::string error;
  ASSERT_TRUE(controls_from_json(nlohmann::json::parse(R"({"pos_init_scale": 0.25})"), &scene, &error)) << error;
  EXPECT_EQ(scene.pos_init_scale, 0.25f);
  for (const char* bad : {R"({"pos_init_scale": 0})", R"({"pos_init_scale": -1})", R"({"pos_init_scale": 101})",
                          R"({"pos_init_scale": "half"})"}) {
    LabControls untouched;
    EXPECT_FALSE(controls_from_json(nlohmann::json::parse(bad), &untouched, &error)) << bad;
    EXPECT_NE(error.find("lab.pos_init_scale"), std::string::npos) << error;
    EXPECT_EQ(untouched.pos_init_scale, 1.0f);
  }
}

TEST(LabControls, AStoredRunNamedByASceneIsReadWithItsDefaultsAndEveryMistakeNamed) {
  std::optional<StoredRunRef> ref;
  std::string err;
  ASSERT_TRUE(stored_run_from_json(json{{"d", 32}}, &ref, &err)) << err;
  EXPECT_FALSE(ref);
  ASSERT_TRUE(stored_run_from_json(json::parse(R"({"stored_run": {"name": "th/1"}})"), &ref, &err)) << err;
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->name, "th/1");
  EXPECT_EQ(ref->db, "@results");
  EXPECT_EQ(ref->step, INT64_MAX);  // the run's last stored weights
  ASSERT_TRUE(
      stored_run_from_json(json::parse(R"({"stored_run": {"name": "a", "db": "/x.sqlite", "step": 40}})"), &ref, &err))
      << err;
  EXPECT_EQ(ref->db, "/x.sqlite");
  EXPECT_EQ(ref->step, 40);
  // controls_from_json leaves the key alone, and keeps reading the rest.
  LabControls c;
  ASSERT_TRUE(controls_from_json(json::parse(R"({"stored_run": {"name": "a"}, "theorem_dp": 27})"), &c, &err)) << err;
  EXPECT_EQ(c.theorem_dp, 27);

  const std::pair<const char*, const char*> bad[] = {
      {R"({"stored_run": "th/1"})", "lab.stored_run: expected {\"name\""},
      {R"({"stored_run": {}})", "lab.stored_run.name: required"},
      {R"({"stored_run": {"name": ""}})", "lab.stored_run.name: expected a non-empty string"},
      {R"({"stored_run": {"name": 3}})", "lab.stored_run.name: expected a non-empty string, got 3"},
      {R"({"stored_run": {"name": "a", "db": []}})", "lab.stored_run.db: expected a non-empty string"},
      {R"({"stored_run": {"name": "a", "step": -1}})", "lab.stored_run.step: expected a training step >= 0, got -1"},
      {R"({"stored_run": {"name": "a", "step": 1.5}})", "lab.stored_run.step: expected a training step"},
      {R"({"stored_run": {"name": "a", "run": "b"}})", "lab.stored_run.run: unknown key; valid keys: name, db, step"},
  };
  for (const auto& [text, want] : bad) {
    err.clear();
    EXPECT_FALSE(stored_run_from_json(json::parse(text), &ref, &err)) << text;
    EXPECT_NE(err.find(want), std::string::npos) << text << " -> " << err;
    EXPECT_FALSE(ref) << text;
  }
}
