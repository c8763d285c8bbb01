#include "app/gui/explorer/run_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include <nlohmann/json.hpp>

#include "tests/explorer/explorer_test_util.h"

namespace headroom::explorer {
namespace {

using testing::ConfigSpec;
using testing::ScratchDb;

// The config_json a quick th-heads run stores (copied from a real worker DB).
constexpr const char* kThHeadsConfig =
    R"({"model":{"attention":{"causal":true,"d_k":16,"d_model":32,"d_v":16,"heads":2,"heads_k":2,"heads_v":2,)"
    R"("kind":"multi-head"},"context":16,"depth":1,"embed_rank":0,"mlp_ratio":4,"pos_rank":0,"vocab":256,"width":32},)"
    R"("train":{"batch":8,"beta1":0.9,"checkpoint_every":30,"clip":1.0,"corpus":"kjv","lr":0.003,"seed":0,"steps":30,)"
    R"("tokenizer":"bytes","warmup":5}})";

db::RunRecord record(const std::string& suite, const std::string& name, const std::string& config) {
  db::RunRecord rec;
  rec.id = 7;
  rec.suite_name = suite;
  rec.name = name;
  rec.config_json = config;
  rec.seed = 3;
  rec.status = db::RunStatus::Running;
  rec.current_step = 20;
  rec.param_count = 29792;
  return rec;
}

TEST(RunRows, MakeRunRowReadsTheWorkersConfig) {
  const RunRow row = make_run_row(record("th-heads", "th-heads/multi-head/heads=2", kThHeadsConfig),
                                  {{"val_loss", 3.5}, {"train_loss", 3.7}, {"tokens_per_s", 1200}}, 3.25);
  EXPECT_EQ(row.id, 7);
  EXPECT_EQ(row.suite, "th-heads");
  EXPECT_EQ(row.label, "multi-head");
  EXPECT_EQ(row.kind, "multi-head");
  EXPECT_EQ(row.d, 32);
  EXPECT_EQ(row.h, 2);
  EXPECT_EQ(row.h_k, 2);
  EXPECT_EQ(row.h_v, 2);
  EXPECT_EQ(row.d_p, 16);
  EXPECT_EQ(row.d_v, 16);
  EXPECT_EQ(row.r, 32);  // embed_rank 0 = full rank = d
  EXPECT_FALSE(row.factorised);
  EXPECT_EQ(row.L, 1);
  EXPECT_EQ(row.V, 256);
  EXPECT_EQ(row.n, 16);
  EXPECT_EQ(row.tokenizer, "bytes");
  EXPECT_EQ(row.corpus, "kjv");
  EXPECT_EQ(row.seed, 3);
  EXPECT_EQ(row.status, db::RunStatus::Running);
  EXPECT_EQ(row.step, 20);
  EXPECT_EQ(row.steps_total, 30);
  EXPECT_EQ(row.params, 29792);
  EXPECT_DOUBLE_EQ(row.best_val_loss, 3.25);
  EXPECT_DOUBLE_EQ(row.last_val_loss, 3.5);
  EXPECT_DOUBLE_EQ(row.last_train_loss, 3.7);
  EXPECT_DOUBLE_EQ(row.tokens_per_s, 1200);
}

TEST(RunRows, FactorisedEmbeddingKeepsItsRankAndMissingMetricsAreNaN) {
  ConfigSpec c;
  c.embed_rank = 4;
  const RunRow row =
      make_run_row(record("vb-rank", "vb-rank/low-rank/embed_rank=4,seed=0", testing::config_json(c)), {}, kNaN);
  EXPECT_EQ(row.r, 4);
  EXPECT_TRUE(row.factorised);
  EXPECT_EQ(row.label, "low-rank");
  EXPECT_TRUE(std::isnan(row.last_val_loss));
  EXPECT_TRUE(std::isnan(row.tokens_per_s));
}

TEST(RunRows, BrokenConfigGivesEmptyFieldsNotACrash) {
  const RunRow row = make_run_row(record("", "adhoc", "{not json"), {}, kNaN);
  EXPECT_FALSE(row.config.valid());
  EXPECT_EQ(row.kind, "");
  EXPECT_EQ(row.d, 0);
  EXPECT_EQ(row.label, "");
}

// The table's h and d_p cells: one number where the counts (sizes) agree, TH Table 2's split where
// they do not, and a config without heads_k / heads_v / d_v (0) reads as agreeing.
TEST(RunRows, HeadCountsAndSizesShowTheSplitOnlyWhereThereIsOne) {
  const RunRow plain = make_run_row(record("th-heads", "th-heads/multi-head/heads=2", kThHeadsConfig), {}, kNaN);
  EXPECT_EQ(head_counts_text(plain), "2");
  EXPECT_EQ(head_size_text(plain), "16");
  RunRow split = plain;
  split.h_k = 6;
  split.h = 24;
  split.h_v = 24;
  split.d_p = 128;
  split.d_v = 32;
  EXPECT_EQ(head_counts_text(split), "6-24-24");
  EXPECT_EQ(head_size_text(split), "128/32");
  split.h_k = 24;
  split.h_v = 6;
  EXPECT_EQ(head_counts_text(split), "24-24-6");
  RunRow older = plain;  // heads_k, heads_v and d_v absent
  older.h_k = older.h_v = older.d_v = 0;
  EXPECT_EQ(head_counts_text(older), "2");
  EXPECT_EQ(head_size_text(older), "16");
}

TEST(RunRows, LabelFromName) {
  EXPECT_EQ(label_from_name("th-heads", "th-heads/talking-heads/heads=8"), "talking-heads");
  EXPECT_EQ(label_from_name("", "th-h8"), "");                     // ad-hoc `train --name` run
  EXPECT_EQ(label_from_name("th-heads", "th-heads/heads=8"), "");  // no label part
  EXPECT_EQ(label_from_name("th", "th-heads/x/heads=8"), "");      // another suite's prefix
}

TEST(RunRows, ConfigValueAsText) {
  const auto config = FlatConfig::parse(kThHeadsConfig);
  EXPECT_EQ(config_value(config, "model.attention.heads"), "2");
  EXPECT_EQ(config_value(config, "model.attention.kind"), "multi-head");
  EXPECT_EQ(config_value(config, "model.attention.causal"), "true");
  EXPECT_EQ(config_value(config, "train.lr"), "0.003");
  EXPECT_EQ(config_value(config, "train.clip"), "1.0");
  EXPECT_EQ(config_value(config, "model.attention.dynamic"), "");
  EXPECT_EQ(config_value(config, "model.width.more"), "");
}

TEST(RunRows, LoadRunRowsTakesBestAndLastValLossFromTheStore) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-heads", testing::suite_toml("th_heads.toml"), "quick");
  ConfigSpec c;
  c.heads = 8;
  c.d_k = c.d_v = 4;
  const auto id = db.add_run(suite, "th-heads/multi-head/heads=8", c, 29792);
  db.log(id, "val_loss", {5.8, 3.2, 3.5});
  db.log(id, "train_loss", {5.0, 3.9, 3.1}, 5);
  db.add_run(suite, "th-heads/talking-heads/heads=8", c);
  db.finish("th-heads/multi-head/heads=8");

  const std::vector<RunRow> rows = load_run_rows(db.store());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "th-heads/multi-head/heads=8");
  EXPECT_EQ(rows[0].status, db::RunStatus::Done);
  EXPECT_EQ(rows[0].h, 8);
  EXPECT_DOUBLE_EQ(rows[0].best_val_loss, 3.2);
  EXPECT_DOUBLE_EQ(rows[0].last_val_loss, 3.5);
  EXPECT_DOUBLE_EQ(rows[0].last_train_loss, 3.1);
  EXPECT_EQ(rows[1].label, "talking-heads");
  EXPECT_EQ(rows[1].status, db::RunStatus::Queued);
  EXPECT_TRUE(std::isnan(rows[1].best_val_loss));
}

// Every field a row shows, NaN equal to NaN.
void expect_same_rows(const std::vector<RunRow>& got, const std::vector<RunRow>& want) {
  ASSERT_EQ(got.size(), want.size());
  const auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  for (std::size_t i = 0; i < want.size(); ++i) {
    const RunRow &g = got[i], &w = want[i];
    SCOPED_TRACE(w.name);
    EXPECT_EQ(g.id, w.id);
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.suite, w.suite);
    EXPECT_EQ(g.label, w.label);
    EXPECT_EQ(g.kind, w.kind);
    EXPECT_EQ(std::make_tuple(g.d, g.h, g.d_p, g.r, g.L, g.V, g.n),
              std::make_tuple(w.d, w.h, w.d_p, w.r, w.L, w.V, w.n));
    EXPECT_EQ(g.status, w.status);
    EXPECT_EQ(g.step, w.step);
    EXPECT_EQ(g.params, w.params);
    EXPECT_EQ(g.error_text, w.error_text);
    EXPECT_EQ(std::make_tuple(g.device, g.precision, g.attempts), std::make_tuple(w.device, w.precision, w.attempts));
    EXPECT_EQ(g.weights, w.weights);
    ASSERT_EQ(g.config.size(), w.config.size());
    for (std::size_t k = 0; k < w.config.size(); ++k) {
      EXPECT_EQ(g.config.key_at(k), w.config.key_at(k));
      EXPECT_EQ(g.config.value_at(k), w.config.value_at(k));
    }
    EXPECT_EQ(g.name_key, w.name_key);
    EXPECT_TRUE(same(g.best_val_loss, w.best_val_loss)) << g.best_val_loss << " vs " << w.best_val_loss;
    EXPECT_TRUE(same(g.last_val_loss, w.last_val_loss));
    EXPECT_TRUE(same(g.last_train_loss, w.last_train_loss));
    EXPECT_TRUE(same(g.tokens_per_s, w.tokens_per_s));
  }
}

TEST(RunRows, TheTrainedExampleIsTheTalkingHeadsRunWithTheMostHeadsThatHasWeights) {
  const auto row = [](std::int64_t id, const char* kind, int h, std::int64_t weights, db::RunStatus status) {
    RunRow r;
    r.id = id, r.kind = kind, r.h = h, r.weights = weights, r.status = status;
    return r;
  };
  using S = db::RunStatus;
  std::vector<RunRow> rows = {row(1, "multi-head", 32, 1, S::Done),        row(2, "talking-heads", 4, 1, S::Done),
                              row(3, "talking-heads", 64, 0, S::Done),      // no weights stored
                              row(4, "talking-heads", 128, 1, S::Running),  // not finished
                              row(5, "talking-heads", 16, 1, S::Done),     row(6, "talking-heads", 16, 2, S::Done)};
  ASSERT_NE(trained_example(rows), nullptr);
  EXPECT_EQ(trained_example(rows)->id, 5);  // the most heads among finished talking-heads runs; ties: lowest id
  rows.erase(rows.begin() + 1, rows.end());
  ASSERT_NE(trained_example(rows), nullptr);
  EXPECT_EQ(trained_example(rows)->id, 1);  // no talking-heads run: any kind
  rows[0].weights = 0;
  EXPECT_EQ(trained_example(rows), nullptr);
  EXPECT_EQ(trained_example({}), nullptr);
}

TEST(RunRows, ARunWithoutWeightsFindsTheFinishedRunOfItsExactConfigThatHasThem) {
  const auto row = [](std::int64_t id, const std::string& config, std::int64_t weights, db::RunStatus status) {
    RunRow r = make_run_row(record("s", "s/a/x" + std::to_string(id), config), {}, kNaN, weights);
    r.id = id, r.status = status;
    return r;
  };
  auto other_seed = nlohmann::json::parse(kThHeadsConfig), other_device = other_seed;
  other_seed["train"]["seed"] = 1;
  other_device["train"]["device"] = "cuda:0";
  using S = db::RunStatus;
  const std::vector<RunRow> rows = {row(1, kThHeadsConfig, 0, S::Done),       // the run without weights
                                    row(2, other_seed.dump(), 1, S::Done),    // another seed: another model
                                    row(3, other_device.dump(), 1, S::Done),  // another device: not the same bytes
                                    row(4, kThHeadsConfig, 1, S::Running),    // not finished
                                    row(5, kThHeadsConfig, 1, S::Done),       // the twin
                                    row(6, kThHeadsConfig, 1, S::Done),       // a later twin
                                    row(7, "{not json", 0, S::Done),         row(8, "{not json", 1, S::Done)};
  ASSERT_NE(weights_twin(rows, rows[0]), nullptr);
  EXPECT_EQ(weights_twin(rows, rows[0])->id, 5);
  EXPECT_EQ(weights_twin(rows, rows[4]), nullptr) << "a run with weights needs no twin";
  EXPECT_EQ(weights_twin(rows, rows[6]), nullptr) << "unreadable configs are nobody's twin";
  EXPECT_EQ(weights_twin({rows[0], rows[1], rows[2], rows[3]}, rows[0]), nullptr);
}

// Windows of 1,000 tokens, each logged (tokens_per_s and val_loss) at the end of its seconds.
void log_windows(ScratchDb& db, std::int64_t run, int first_window, const std::vector<double>& seconds,
                 double wall_before) {
  std::vector<db::MetricRow> points;
  double wall = wall_before;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    wall += seconds[i];
    const std::int64_t window = first_window + static_cast<std::int64_t>(i) + 1;
    points.push_back({"tokens_per_s", window * 10, window * 1000, wall, 1000.0 / seconds[i]});
    points.push_back({"val_loss", window * 10, window * 1000, wall, 3.0});
  }
  db.store().append_metrics(run, points);
}

TEST(RunRows, TokensPerSecondIsTheRunsMeanNotItsLastWindow) {
  // Runs that shared a GPU: 1,000 tok/s for two windows, then 4,000 alone. The table shows what
  // each averaged, tokens trained over seconds in steps at its last evaluation.
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-heads", testing::suite_toml("th_heads.toml"), "quick");
  ConfigSpec c;
  const auto done = db.add_run(suite, "th-heads/multi-head/heads=2", c);
  log_windows(db, done, 0, {1.0, 1.0, 0.25}, 0.0);
  db.finish("th-heads/multi-head/heads=2");
  c.heads = 4;
  const auto running = db.add_run(suite, "th-heads/multi-head/heads=4", c);
  db.start("th-heads/multi-head/heads=4");
  log_windows(db, running, 0, {1.0, 1.0}, 0.0);
  // A run stored without its clock (wall seconds not logged) keeps the window's rate.
  c.heads = 8;
  const auto clockless = db.add_run(suite, "th-heads/multi-head/heads=8", c);
  db.store().append_metrics(clockless,
                            {{"tokens_per_s", 10, 0, std::nan(""), 777.0}, {"val_loss", 10, 0, std::nan(""), 2.0}});
  c.heads = 16;
  db.add_run(suite, "th-heads/multi-head/heads=16", c);  // queued: nothing logged

  const std::vector<RunRow> rows = load_run_rows(db.store());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_DOUBLE_EQ(rows[0].tokens_per_s, 3000.0 / 2.25);
  EXPECT_DOUBLE_EQ(rows[1].tokens_per_s, 1000.0);
  EXPECT_DOUBLE_EQ(rows[2].tokens_per_s, 777.0);
  EXPECT_TRUE(std::isnan(rows[3].tokens_per_s));

  // The running run speeds up when the done one leaves the GPU; a reload (which reads clocks only
  // for runs that are not done) follows it and agrees with a load from scratch.
  log_windows(db, running, 2, {0.25, 0.25}, 2.0);
  const std::vector<RunRow> reloaded = load_run_rows(db.store(), rows);
  EXPECT_DOUBLE_EQ(reloaded[1].tokens_per_s, 4000.0 / 2.5);
  expect_same_rows(reloaded, load_run_rows(db.store()));
}

TEST(RunRows, AReloadReusesParsedConfigsAndStillShowsEveryChange) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-heads", testing::suite_toml("th_heads.toml"), "quick");
  ConfigSpec c;
  const auto a = db.add_run(suite, "th-heads/multi-head/heads=2", c);
  c.heads = 4;
  db.add_run(suite, "th-heads/multi-head/heads=4", c);
  const std::vector<RunRow> first = load_run_rows(db.store());
  ASSERT_EQ(first.size(), 2u);

  // A worker trains the first run and fails the second; a third run is queued.
  db.log(a, "val_loss", {5.0, 2.0, 4.0});
  db.finish("th-heads/multi-head/heads=2");
  db.fail("th-heads/multi-head/heads=4");
  c.heads = 8;
  db.add_run(suite, "th-heads/multi-head/heads=8", c);

  // It stored weights at two checkpoints (and other artifacts, which the column does not count).
  for (std::int64_t step : {10, 20}) db.store().put_artifact(a, step, "weights", db::BlobView(std::string_view("w")));
  db.store().put_artifact(a, 20, "checkpoint", db::BlobView(std::string_view("c")));

  const std::vector<RunRow> reloaded = load_run_rows(db.store(), first);
  expect_same_rows(reloaded, load_run_rows(db.store()));
  ASSERT_EQ(reloaded.size(), 3u);
  EXPECT_EQ(first[0].weights, 0);
  EXPECT_EQ(reloaded[0].weights, 2);
  EXPECT_EQ(reloaded[1].weights, 0);
  EXPECT_EQ(reloaded[0].status, db::RunStatus::Done);
  EXPECT_DOUBLE_EQ(reloaded[0].best_val_loss, 2.0);
  EXPECT_EQ(reloaded[1].status, db::RunStatus::Failed);
  EXPECT_EQ(reloaded[1].error_text, "diverged");
  EXPECT_EQ(reloaded[2].h, 8);  // a new run's config is read

  // A row from an earlier load that is not the same run any more (same id, another name) is
  // read again instead of lending its config.
  std::vector<RunRow> stale = reloaded;
  stale[2].name = "another run";
  stale[2].h = 99;
  stale[2].config = FlatConfig::parse("{}");
  expect_same_rows(load_run_rows(db.store(), stale), load_run_rows(db.store()));
}

TEST(RunRows, LoadsSplitByIdRangeEqualTheWholeLoad) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-heads", testing::suite_toml("th_heads.toml"), "quick");
  ConfigSpec c;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 24; ++i) {
    c.seed = i;
    ids.push_back(db.add_run(suite, "th-heads/multi-head/seed=" + std::to_string(i), c));
    db.log(ids.back(), "val_loss", {5.0 - i * 0.1, 4.0 - i * 0.1});
  }
  // Weights on runs in every part, a different count on each.
  for (std::size_t i = 0; i < ids.size(); i += 5)
    for (std::size_t k = 0; k <= i % 3; ++k)
      db.store().put_artifact(ids[i], static_cast<std::int64_t>(k), "weights", db::BlobView(std::string_view("w")));
  const std::vector<RunRow> whole = load_run_rows(db.store());
  ASSERT_EQ(whole.size(), ids.size());
  EXPECT_EQ(whole[5].weights, 3);
  EXPECT_EQ(whole[10].weights, 2);
  EXPECT_EQ(whole[1].weights, 0);

  expect_same_rows(load_run_rows_parallel(db.store(), db.dir_path("x.sqlite"), 4), whole);
  std::vector<RunRow> pieces = load_run_rows_between(db.store(), ids.front(), ids[9]);
  for (RunRow& row : load_run_rows_between(db.dir_path("x.sqlite"), ids[10], ids.back(), 3))
    pieces.push_back(std::move(row));
  expect_same_rows(pieces, whole);
}

TEST(RunRows, DeviceAndPrecisionComeFromTheConfigAndOlderConfigsTrainedOnTheCpuInFp32) {
  // kThHeadsConfig was written before devices existed: every run then trained on the CPU in fp32.
  RunRow row = make_run_row(record("th-heads", "th-heads/a/x", kThHeadsConfig), {}, kNaN);
  EXPECT_EQ(row.device, "cpu");
  EXPECT_EQ(row.precision, "fp32");
  auto config = nlohmann::json::parse(kThHeadsConfig);
  config["train"]["device"] = "auto";  // queued, never claimed
  config["train"]["precision"] = "bf16";
  row = make_run_row(record("th-heads", "th-heads/a/x", config.dump()), {}, kNaN);
  EXPECT_EQ(row.device, "");
  EXPECT_EQ(row.precision, "bf16");
  config["train"]["device"] = "cuda:1";
  row = make_run_row(record("th-heads", "th-heads/a/x", config.dump()), {}, kNaN);
  EXPECT_EQ(row.device, "cuda:1");
  EXPECT_EQ(make_run_row(record("s", "s/a/x", "not json"), {}, kNaN).device, "");
}

// A claim writes the claiming worker's device into the run's config: a reload must show it,
// although it lends unchanged runs their parsed configs.
TEST(RunRows, AReloadShowsTheDeviceAClaimMovedARunTo) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-heads", testing::suite_toml("th_heads.toml"), "quick");
  db.add_run(suite, "th-heads/multi-head/heads=2", ConfigSpec{});
  const std::vector<RunRow> first = load_run_rows(db.store());
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(db.store().claim_next("gpu-host:1", 0, 1, 300, "cuda:0"));
  const std::vector<RunRow> reloaded = load_run_rows(db.store(), first);
  expect_same_rows(reloaded, load_run_rows(db.store()));
  EXPECT_EQ(reloaded[0].device, "cuda:0");
  EXPECT_EQ(reloaded[0].attempts, 1);
}

std::vector<std::string> names(const std::vector<const RunRow*>& rows) {
  std::vector<std::string> out;
  for (const RunRow* r : rows) out.push_back(r->name);
  return out;
}

class SortRows : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto add = [this](std::string name, int h, double best, db::RunStatus status) {
      RunRow r;
      r.name = std::move(name);
      r.h = h;
      r.best_val_loss = best;
      r.status = status;
      r.name_key = natural_sort_key(r.name);  // make_run_row computes it; sort_rows compares it
      rows_.push_back(r);
    };
    add("s/a/heads=16", 16, 2.0, db::RunStatus::Done);
    add("s/a/heads=8", 8, kNaN, db::RunStatus::Queued);
    add("s/a/heads=2", 2, 3.0, db::RunStatus::Failed);
    add("s/b/heads=8", 8, 1.5, db::RunStatus::Running);
    for (const RunRow& r : rows_) view_.push_back(&r);
  }
  std::vector<RunRow> rows_;
  std::vector<const RunRow*> view_;
};

TEST_F(SortRows, NumbersAscendAndDescendStably) {
  sort_rows(view_, RunColumn::H, true);
  EXPECT_EQ(names(view_), (std::vector<std::string>{"s/a/heads=2", "s/a/heads=8", "s/b/heads=8", "s/a/heads=16"}));
  sort_rows(view_, RunColumn::H, false);
  EXPECT_EQ(names(view_), (std::vector<std::string>{"s/a/heads=16", "s/a/heads=8", "s/b/heads=8", "s/a/heads=2"}));
}

TEST_F(SortRows, NaNGoesLastBothWays) {
  sort_rows(view_, RunColumn::BestVal, true);
  EXPECT_EQ(names(view_), (std::vector<std::string>{"s/b/heads=8", "s/a/heads=16", "s/a/heads=2", "s/a/heads=8"}));
  sort_rows(view_, RunColumn::BestVal, false);
  EXPECT_EQ(names(view_), (std::vector<std::string>{"s/a/heads=2", "s/a/heads=16", "s/b/heads=8", "s/a/heads=8"}));
}

TEST_F(SortRows, NamesSortNaturallyAndStatusByLifeCycle) {
  sort_rows(view_, RunColumn::Name, true);
  EXPECT_EQ(names(view_), (std::vector<std::string>{"s/a/heads=2", "s/a/heads=8", "s/a/heads=16", "s/b/heads=8"}));
  sort_rows(view_, RunColumn::Status, true);  // queued, running, done, failed
  EXPECT_EQ(names(view_), (std::vector<std::string>{"s/a/heads=8", "s/b/heads=8", "s/a/heads=16", "s/a/heads=2"}));
}

TEST(NaturalCompare, DigitRunsCompareAsNumbers) {
  EXPECT_LT(natural_compare("heads=8", "heads=16"), 0);
  EXPECT_GT(natural_compare("heads=16", "heads=8"), 0);
  EXPECT_EQ(natural_compare("Heads=08", "heads=8"), 0);
  EXPECT_LT(natural_compare("ratio-1", "ratio-1/x"), 0);
  EXPECT_LT(natural_compare("abc", "abd"), 0);
}

TEST(NaturalCompare, SortKeysOrderExactlyAsNaturalCompare) {
  // Digit runs against each other and against characters on both sides of '0'..'9', leading
  // zeros, case, prefixes, long runs.
  const std::vector<std::string> words = {"",
                                          "a",
                                          "A",
                                          "heads=8",
                                          "heads=16",
                                          "Heads=08",
                                          "heads=08x",
                                          "heads=8/",
                                          "heads=8,",
                                          "heads=8a",
                                          "heads=",
                                          "heads=/",
                                          "heads=:",
                                          "ratio-1",
                                          "ratio-1/x",
                                          "ratio-10",
                                          "ratio-2",
                                          "0",
                                          "00",
                                          "000001",
                                          "1",
                                          "9",
                                          "10",
                                          "x99y",
                                          "x100y",
                                          "x0100y",
                                          "abc",
                                          "abd",
                                          "ab",
                                          "a1b2",
                                          "a1b10",
                                          "a01b2",
                                          "seed=0",
                                          "seed=00",
                                          "s/a/h=16",
                                          "s/a/h=2",
                                          "s/b/h=8",
                                          "123456789012",
                                          "12345678901",
                                          "Z",
                                          "z",
                                          "_",
                                          "a b",
                                          "a-b",
                                          "a.b",
                                          "a=b"};
  const auto sign = [](int v) { return (v > 0) - (v < 0); };
  for (const auto& a : words)
    for (const auto& b : words)
      EXPECT_EQ(sign(natural_sort_key(a).compare(natural_sort_key(b))), sign(natural_compare(a, b)))
          << "'" << a << "' vs '" << b << "'";
}

// A running run keeps its worker and heartbeat (the explorer asks whether that worker still
// lives); other runs drop them.
TEST(RunRows, OnlyRunningRowsKeepTheirWorkerAndHeartbeat) {
  db::RunRecord rec = record("th-heads", "th-heads/a/x", kThHeadsConfig);
  rec.worker = "host:123";
  rec.heartbeat_at = 1e9;
  rec.status = db::RunStatus::Running;
  const RunRow running = make_run_row(rec, {}, kNaN);
  EXPECT_EQ(running.worker, "host:123");
  ASSERT_TRUE(running.heartbeat_at.has_value());
  EXPECT_DOUBLE_EQ(*running.heartbeat_at, 1e9);
  rec.status = db::RunStatus::Done;
  const RunRow done = make_run_row(rec, {}, kNaN);
  EXPECT_EQ(done.worker, "");
  EXPECT_FALSE(done.heartbeat_at.has_value());
}

TEST(RunRows, RunCountsNameTheRunsNoWorkerTrainsApartFromTheRunning) {
  EXPECT_EQ(run_counts_text(15, 15, 0, 0, 0), "15 runs, 15 done, 0 running");
  EXPECT_EQ(run_counts_text(12, 3, 4, 1, 0), "12 runs, 3 done, 3 running, 1 interrupted");
  EXPECT_EQ(run_counts_text(12, 3, 4, 1, 2), "12 runs, 3 done, 1 running, 1 interrupted, 2 stalled");
}

}  // namespace
}  // namespace headroom::explorer
