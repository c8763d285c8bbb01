#include "app/gui/explorer/run_filter.h"

#include <gtest/gtest.h>

#include "tests/explorer/explorer_test_util.h"

namespace headroom::explorer {
namespace {

RunRow talking_heads_row() {
  testing::ConfigSpec c;
  c.kind = "talking-heads";
  c.heads = 8;
  c.d_k = c.d_v = 4;
  c.lr = 0.003;
  db::RunRecord rec;
  rec.id = 4;
  rec.suite_name = "th-heads";
  rec.name = "th-heads/talking-heads/heads=8";
  rec.config_json = testing::config_json(c);
  rec.status = db::RunStatus::Done;
  rec.current_step = 30;
  rec.param_count = 29920;
  return make_run_row(rec, {{"val_loss", 2.4}, {"tokens_per_s", 900}}, 2.3);
}

bool keeps(std::string_view text, const RunRow& row) {
  std::string error;
  const auto filter = parse_run_filter(text, &error);
  EXPECT_TRUE(filter.has_value()) << text << ": " << error;
  return filter && matches(*filter, row);
}

std::string error_of(std::string_view text) {
  std::string error;
  EXPECT_FALSE(parse_run_filter(text, &error).has_value()) << text;
  return error;
}

TEST(RunFilter, EmptyFilterKeepsEverything) {
  const RunRow row = talking_heads_row();
  EXPECT_TRUE(keeps("", row));
  EXPECT_TRUE(keeps("   ", row));
}

TEST(RunFilter, NumericComparisons) {
  const RunRow row = talking_heads_row();
  EXPECT_TRUE(keeps("h>=8", row));
  EXPECT_FALSE(keeps("h>8", row));
  EXPECT_TRUE(keeps("h=8 dp=4 dk<=4 dv<5 d=32 L=1 l=1 V=256 n=16", row));
  EXPECT_TRUE(keeps("val<2.5", row));  // best val loss 2.3
  EXPECT_FALSE(keeps("val<2.3", row));
  EXPECT_TRUE(keeps("tok_s>=900 params=29920 step=30 seed=0 r=32", row));
  EXPECT_TRUE(keeps("h!=16", row));
  EXPECT_TRUE(keeps("weights=0", row));
  EXPECT_FALSE(keeps("weights>0", row));
  RunRow stored = row;
  stored.weights = 2;
  EXPECT_TRUE(keeps("weights>0 weights=2", stored));
}

TEST(RunFilter, TextIsWholeValueAndCaseInsensitiveTildeIsSubstring) {
  const RunRow row = talking_heads_row();
  EXPECT_TRUE(keeps("kind=talking-heads", row));
  EXPECT_TRUE(keeps("KIND=Talking-Heads", row));
  EXPECT_FALSE(keeps("kind=talking", row));
  EXPECT_TRUE(keeps("kind~talking", row));
  EXPECT_TRUE(keeps("status!=failed status=done", row));
  EXPECT_TRUE(keeps("label=talking-heads suite=th-heads tokenizer=bytes corpus=kjv", row));
}

TEST(RunFilter, BareWordsMatchNameOrSuite) {
  const RunRow row = talking_heads_row();
  EXPECT_TRUE(keeps("TALKING", row));
  EXPECT_TRUE(keeps("th-HEADS", row));
  EXPECT_FALSE(keeps("bilinear", row));
}

TEST(RunFilter, AllTermsMustHold) {
  const RunRow row = talking_heads_row();
  EXPECT_TRUE(keeps("h>=8 kind=talking-heads status!=failed val<2.5", row));
  EXPECT_FALSE(keeps("h>=8 kind=multi-head", row));
  EXPECT_FALSE(keeps("talking bilinear", row));
}

TEST(RunFilter, DottedConfigKeys) {
  const RunRow row = talking_heads_row();
  EXPECT_TRUE(keeps("model.attention.causal=true", row));
  EXPECT_FALSE(keeps("model.attention.causal=false", row));
  EXPECT_TRUE(keeps("train.lr<0.01", row));
  EXPECT_FALSE(keeps("train.lr>0.01", row));
  EXPECT_TRUE(keeps("train.tokenizer=BYTES", row));
}

TEST(RunFilter, MissingValuesFailEveryTermEvenNotEqual) {
  RunRow row = talking_heads_row();
  row.best_val_loss = kNaN;
  EXPECT_FALSE(keeps("val<100", row));
  EXPECT_FALSE(keeps("val!=1", row));
  EXPECT_FALSE(keeps("model.attention.dynamic!=Xl", row));
}

TEST(RunFilter, ErrorsNameTheTermAndTheFix) {
  std::string e = error_of("h>=8 foo=3");
  EXPECT_NE(e.find("'foo=3'"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'foo'"), std::string::npos) << e;
  EXPECT_NE(e.find("suite name label kind"), std::string::npos) << e;
  EXPECT_NE(e.find("tok_s"), std::string::npos) << e;

  e = error_of("kind<3");
  EXPECT_NE(e.find("kind is text: use =, != or ~"), std::string::npos) << e;

  e = error_of("h>=");
  EXPECT_NE(e.find("no value after '>='"), std::string::npos) << e;

  e = error_of("=5");
  EXPECT_NE(e.find("no key before '='"), std::string::npos) << e;

  e = error_of("h=eight");
  EXPECT_NE(e.find("h is a number, and 'eight' is not one"), std::string::npos) << e;

  e = error_of("train.lr<small");
  EXPECT_NE(e.find("'<' needs a number, got 'small'"), std::string::npos) << e;

  e = error_of("status=runing");
  EXPECT_NE(e.find("'runing' is not a status; use queued, running, done, failed or cancelled"), std::string::npos) << e;

  e = error_of("modle.width=3");
  EXPECT_NE(e.find("unknown key 'modle.width'"), std::string::npos) << e;

  e = error_of("h~8");
  EXPECT_NE(e.find("'~' looks for text"), std::string::npos) << e;
}

RunRow row_of(std::int64_t id, const std::string& suite, const std::string& name) {
  RunRow r = talking_heads_row();
  r.id = id;
  r.suite = suite;
  r.name = suite + "/" + name;
  return r;
}

TEST(RunFilter, DefaultSelectionIsTheNewestSuiteAmongTheRunsTheFilterKeeps) {
  // Oldest first, as the loader gives them: suite a, then b (the newest), whose names say deep or
  // shallow.
  const std::vector<RunRow> rows = {row_of(1, "a", "deep/seed=0"), row_of(2, "a", "deep/seed=1"),
                                    row_of(3, "b", "deep/seed=0"), row_of(4, "b", "shallow/seed=0"),
                                    row_of(5, "b", "deep/seed=1"), row_of(6, "b", "shallow/seed=1")};
  using Ids = std::vector<std::int64_t>;
  EXPECT_EQ(newest_suite_runs(rows, std::nullopt, 12), (Ids{6, 5, 4, 3}));
  EXPECT_EQ(newest_suite_runs(rows, std::nullopt, 2), (Ids{6, 5}));  // the newest first, at most `count`
  EXPECT_EQ(newest_suite_runs(rows, parse_run_filter("b/deep", nullptr), 12), (Ids{5, 3}));
  // A filter that keeps only an older suite's runs selects among them, not the newest suite's.
  EXPECT_EQ(newest_suite_runs(rows, parse_run_filter("suite=a", nullptr), 12), (Ids{2, 1}));
  EXPECT_TRUE(newest_suite_runs(rows, parse_run_filter("suite=c", nullptr), 12).empty());
  EXPECT_TRUE(newest_suite_runs({}, std::nullopt, 12).empty());
}

TEST(RunFilter, DefaultSelectionPrefersRunsThatHaveTrained) {
  // A DB a worker is filling: suite a done, suite b training (run 3 at step 500), suite c queued
  // behind it (step 0, no curves). The selection opens on b's trained run, not on c's queue.
  auto at_step = [](RunRow r, std::int64_t step) {
    r.step = step;
    r.status = step > 0 ? db::RunStatus::Running : db::RunStatus::Queued;
    return r;
  };
  const std::vector<RunRow> rows = {at_step(row_of(1, "a", "x/seed=0"), 30),  at_step(row_of(2, "b", "x/seed=0"), 0),
                                    at_step(row_of(3, "b", "x/seed=1"), 500), at_step(row_of(4, "b", "x/seed=2"), 0),
                                    at_step(row_of(5, "c", "y/seed=0"), 0),   at_step(row_of(6, "c", "y/seed=1"), 0)};
  using Ids = std::vector<std::int64_t>;
  EXPECT_EQ(newest_suite_runs(rows, std::nullopt, 12), (Ids{3}));
  EXPECT_EQ(newest_suite_runs(rows, parse_run_filter("suite=a", nullptr), 12), (Ids{1}));
  // Where nothing the filter keeps has trained, the newest suite's queued runs, as before.
  EXPECT_EQ(newest_suite_runs(rows, parse_run_filter("suite=c", nullptr), 12), (Ids{6, 5}));
}

TEST(RunFilter, NullErrorPointerIsAllowed) { EXPECT_FALSE(parse_run_filter("foo=1", nullptr).has_value()); }

}  // namespace
}  // namespace headroom::explorer
