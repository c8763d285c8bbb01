#include "app/gui/explorer/figures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <sstream>
#include <fstream>

#include "tests/explorer/explorer_test_util.h"

namespace headroom::explorer {
namespace {

using testing::ConfigSpec;
using testing::ScratchDb;

const FigureSeries* series(const std::vector<FigureSeries>& all, const std::string& label) {
  for (const FigureSeries& s : all) {
    if (s.label == label) return &s;
  }
  return nullptr;
}

std::vector<double> xs(const FigureSeries& s) {
  std::vector<double> out;
  for (const FigurePoint& p : s.points) out.push_back(p.x);
  return out;
}

std::vector<std::string> labels(const std::vector<FigureSeries>& all) {
  std::vector<std::string> out;
  for (const FigureSeries& s : all) out.push_back(s.label);
  return out;
}

bool has_note(const Figure& fig, const std::string& text) {
  for (const std::string& n : fig.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// The quick th-heads suite: its 6 runs, 5 finished and one still running.
class ThHeadsFigure : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto suite = db_.store().ensure_suite("th-heads", testing::suite_toml("th_heads.toml"), "quick");
    add(suite, "multi-head", "multi-head", 2, 16, {5.8, 3.6, 3.4}, true);
    add(suite, "multi-head", "multi-head", 8, 4, {5.8, 3.5, 3.3}, true);
    add(suite, "talking-heads", "talking-heads", 2, 16, {5.8, 3.5, 3.35}, true);
    add(suite, "talking-heads", "talking-heads", 8, 4, {5.8, 3.9}, false);
    add(suite, "multi-head-2x", "fixed-head", 8, 8, {5.8, 3.2}, true);
    add(suite, "general-bilinear", "general-bilinear", 4, 32, {5.8, 3.1}, true);
  }
  void add(std::int64_t suite, const std::string& label, const std::string& kind, int heads, int d_k,
           const std::vector<double>& val, bool finish) {
    ConfigSpec c;
    c.kind = kind;
    c.heads = heads;
    c.d_k = c.d_v = d_k;
    const std::string name = "th-heads/" + label + "/heads=" + std::to_string(heads);
    db_.log(db_.add_run(suite, name, c), "val_loss", val);
    if (finish) {
      db_.finish(name);
    } else {
      db_.start(name);
    }
  }
  std::vector<Figure> figures(const std::string& reference_dir, std::string* warnings) {
    return build_figures(db_.store(), load_run_rows(db_.store()), reference_dir, warnings);
  }
  ScratchDb db_;
};

// The table's value column: a range only where there is one, and paper values as the paper
// prints them (no "88.5100 (nan .. nan)" for a row without an sd).
TEST(FigureValueText, ShowsARangeOnlyWhereThereIsOneAndPaperValuesAsPrinted) {
  FigurePoint one;
  one.mean = one.lo = one.hi = 1.19914;
  one.done = one.runs = 1;
  EXPECT_EQ(figure_value_text(one, false), "1.1991");
  FigurePoint seeds = one;
  seeds.mean = 1.15256, seeds.lo = 1.14761, seeds.hi = 1.15832, seeds.done = 2;
  EXPECT_EQ(figure_value_text(seeds, false), "1.1526 (1.1476 .. 1.1583)");
  FigurePoint none;
  EXPECT_EQ(figure_value_text(none, false), "-");
  FigurePoint paper;
  paper.mean = 88.51;
  EXPECT_EQ(figure_value_text(paper, true), "88.51");
  paper.mean = 90.89, paper.sd = 0.15, paper.lo = 90.89 - 0.15, paper.hi = 90.89 + 0.15;
  EXPECT_EQ(figure_value_text(paper, true), "90.89 (sd 0.15)");
}

TEST_F(ThHeadsFigure, OursAreFinalValLossesPerLabelAndHeads) {
  std::string warnings;
  const auto figs = figures(testing::reference_dir(), &warnings);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.suite, "th-heads");
  EXPECT_EQ(f.paper_name, "TH");
  EXPECT_EQ(f.title.rfind("TH Table 1: multi-head vs talking-heads", 0), 0u) << f.title;
  EXPECT_EQ(f.x_label, "heads h");
  EXPECT_TRUE(f.log_x);
  EXPECT_EQ(f.ours_y_label, "final val loss (nats/byte; kjv, bytes; lower is better)");
  EXPECT_EQ(labels(f.ours),
            (std::vector<std::string>{"multi-head", "talking-heads", "multi-head-2x", "general-bilinear"}));

  const FigureSeries& mh = f.ours[0];
  EXPECT_EQ(xs(mh), (std::vector<double>{2, 8}));
  EXPECT_DOUBLE_EQ(mh.points[0].mean, 3.4);
  EXPECT_DOUBLE_EQ(mh.points[0].lo, 3.4);
  EXPECT_DOUBLE_EQ(mh.points[1].mean, 3.3);
  EXPECT_EQ(mh.points[1].runs, 1);
  EXPECT_EQ(mh.points[1].done, 1);

  const FigureSeries& th = f.ours[1];
  ASSERT_EQ(th.points.size(), 2u);
  EXPECT_DOUBLE_EQ(th.points[0].mean, 3.35);
  EXPECT_EQ(th.points[1].runs, 1);  // the running one: counted, not averaged
  EXPECT_EQ(th.points[1].done, 0);
  EXPECT_TRUE(std::isnan(th.points[1].mean));
  EXPECT_EQ(th.points[1].run_ids.size(), 1u);

  EXPECT_DOUBLE_EQ(f.ours[3].points[0].x, 4);
  EXPECT_DOUBLE_EQ(f.ours[3].points[0].mean, 3.1);
  EXPECT_TRUE(has_note(f, "5 of 6 runs finished (1 running)")) << f.notes[0];
  EXPECT_TRUE(has_note(f, "scale 'quick'"));
}

TEST_F(ThHeadsFigure, PaperSeriesAreTable1LnPerplexities) {
  const auto figs = figures(testing::reference_dir(), nullptr);
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.paper_y_label, "ln perplexity on C4 after 65k steps (T5-base; lower is better)");
  // The T5-paper row reports no ln perplexity and is left out.
  EXPECT_EQ(labels(f.paper), (std::vector<std::string>{"TH Table 1: multi-head", "TH Table 1: talking-heads",
                                                       "TH Table 1: multi-head (24 heads at d_k=64; more params)",
                                                       "TH Table 1: general bilinear"}));
  const FigureSeries& th = f.paper[1];
  EXPECT_EQ(xs(th), (std::vector<double>{6, 12, 24, 48}));
  EXPECT_DOUBLE_EQ(th.points[0].mean, 1.965);
  EXPECT_DOUBLE_EQ(th.points[0].lo, 1.965 - 0.009);
  EXPECT_DOUBLE_EQ(th.points[0].hi, 1.965 + 0.009);
  EXPECT_DOUBLE_EQ(th.points[3].mean, 1.903);
  EXPECT_EQ(th.points[3].source, "th_t5.csv line 12: TH Table 1, talking-heads, h=48");
  EXPECT_DOUBLE_EQ(f.paper[3].points[0].x, 12);
  EXPECT_DOUBLE_EQ(f.paper[3].points[0].mean, 1.921);
}

// The Paper figures tab's CSV: every point of ours, then the paper's with their sd and citation.
TEST_F(ThHeadsFigure, CsvHoldsEveryPointOfOursAndThePapersWithCitations) {
  const auto figs = figures(testing::reference_dir(), nullptr);
  ASSERT_EQ(figs.size(), 1u);
  std::ostringstream out;
  write_figure_csv(out, figs[0]);
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    ASSERT_FALSE(line.empty());
    ASSERT_EQ(line.back(), '\r') << "RFC 4180 line ends";
    lines.push_back(line.substr(0, line.size() - 1));
  }
  size_t points = 0;
  for (const auto* all : {&figs[0].ours, &figs[0].paper})
    for (const FigureSeries& s : *all) points += s.points.size();
  ASSERT_EQ(lines.size(), points + 1);
  EXPECT_EQ(lines[0], "figure,source,series,x,x_category,value,min,max,sd,runs_done,runs,citation");
  EXPECT_EQ(lines[1], "th-heads,ours,multi-head,2,,3.4,3.4,3.4,,1,1,");
  // The running talking-heads run: counted, no value yet.
  EXPECT_NE(std::find(lines.begin(), lines.end(), "th-heads,ours,talking-heads,8,,,,,,0,1,"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "th-heads,paper,TH Table 1: talking-heads,48,,1.903,,,0.006,,,"
                      "\"th_t5.csv line 12: TH Table 1, talking-heads, h=48\""),
            lines.end())
      << out.str();
}

TEST_F(ThHeadsFigure, MissingReferenceFileWarnsAndKeepsOurs) {
  std::string warnings;
  const auto figs = figures("/nonexistent/reference", &warnings);
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(warnings, "th-heads: cannot read reference file /nonexistent/reference/th_t5.csv");
  EXPECT_TRUE(figs[0].paper.empty());
  EXPECT_EQ(figs[0].ours.size(), 4u);
  EXPECT_TRUE(has_note(figs[0], "Reference numbers unavailable: cannot read reference file"));
}

TEST_F(ThHeadsFigure, MalformedReferenceFileWarns) {
  const std::string dir = db_.dir_path("");
  std::ofstream(dir + "/th_t5.csv") << "# wrong columns\ntable,variant,h\n1,multi-head,6\n1,broken\n";
  std::string warnings;
  const auto figs = figures(dir, &warnings);
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_NE(warnings.find("th-heads: th_t5.csv line 4: 2 fields, the header has 3 (row skipped)"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("th-heads: th_t5.csv has no column 'ln_ppl_65k' (its columns: table, variant, h)"),
            std::string::npos)
      << warnings;
  EXPECT_TRUE(figs[0].paper.empty());
}

TEST_F(ThHeadsFigure, UnknownSuitesAndBrokenTomlGiveNoFigure) {
  db_.store().ensure_suite("my-sweep", "[suite]\nname = \"my-sweep\"\n", "quick");
  db_.store().ensure_suite("lrb-heads", "[suite\nbroken", "quick");
  std::string warnings;
  const auto figs = figures(testing::reference_dir(), &warnings);
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(figs[0].suite, "th-heads");
  EXPECT_EQ(warnings.rfind("lrb-heads: the stored suite TOML does not parse (", 0), 0u) << warnings;
}

// A DB's stored suite TOML may come from anywhere: it is parsed through the shield of
// core/io/toml_shield.h, so a code point that sends Debian's toml++ 3.3 into __builtin_unreachable()
// (here a sigma where a key should be) is a parse error, and non-ASCII text inside strings reads back
// as written.
TEST_F(ThHeadsFigure, StoredTomlIsReadThroughTheShield) {
  db_.store().ensure_suite("lrb-heads", "[suite]\nname = \"lrb-heads\"\n\u03c3 = 1\n", "quick");
  std::string warnings;
  auto figs = figures(testing::reference_dir(), &warnings);
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(warnings.rfind("lrb-heads: the stored suite TOML does not parse (lrb-heads:3:", 0), 0u) << warnings;
  EXPECT_EQ(warnings.find("\xf3"), std::string::npos) << "a stand-in leaked into the message: " << warnings;

  std::string source = testing::suite_toml("th_heads.toml");
  const std::string key = "reproduces = \"";
  const size_t at = source.find(key);
  ASSERT_NE(at, std::string::npos);
  source.insert(at + key.size(), "\u03c3-\u00e9 ");
  ScratchDb other;
  other.store().ensure_suite("th-heads", source, "quick");
  figs = build_figures(other.store(), load_run_rows(other.store()), testing::reference_dir(), &warnings);
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(figs[0].title.rfind("\u03c3-\u00e9 TH", 0), 0u) << figs[0].title;
}

TEST(Figures, ThProjectionsIsCategoricalWithSeedsCollapsed) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-projections", testing::suite_toml("th_projections.toml"), "quick");
  const std::vector<std::string> kinds = {"multi-head", "logits-proj", "weights-proj", "talking-heads"};
  const std::vector<std::vector<double>> finals = {{3.4, 3.6}, {3.3, 3.5}, {3.2, 3.3}, {3.0, 3.1}};
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    for (std::int64_t seed = 0; seed < 2; ++seed) {
      ConfigSpec c;
      c.kind = kinds[k];
      c.heads = 8;
      c.d_k = c.d_v = 4;
      c.seed = seed;
      const std::string name = "th-projections/" + kinds[k] + "/seed=" + std::to_string(seed);
      db.log(db.add_run(suite, name, c), "val_loss", {5.8, finals[k][static_cast<std::size_t>(seed)]});
      db.finish(name);
    }
  }
  std::string warnings;
  const auto figs = build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.x_categories, kinds);
  EXPECT_FALSE(f.log_x);
  ASSERT_EQ(f.ours.size(), 1u);
  ASSERT_EQ(f.ours[0].points.size(), 4u);
  const FigurePoint& logits = f.ours[0].points[1];
  EXPECT_DOUBLE_EQ(logits.x, 1);
  EXPECT_EQ(logits.runs, 2);
  EXPECT_EQ(logits.done, 2);
  EXPECT_NEAR(logits.mean, 3.4, 1e-12);
  EXPECT_DOUBLE_EQ(logits.lo, 3.3);
  EXPECT_DOUBLE_EQ(logits.hi, 3.5);

  ASSERT_EQ(f.paper.size(), 1u);
  EXPECT_EQ(f.paper[0].label, "TH Tables 1 + 3, h=24");
  ASSERT_EQ(f.paper[0].points.size(), 4u);
  const std::vector<double> paper = {1.989, 1.969, 1.951, 1.910};  // multi-head, logits, weights, both
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(f.paper[0].points[i].x, static_cast<double>(i));
    EXPECT_DOUBLE_EQ(f.paper[0].points[i].mean, paper[i]);
  }
  EXPECT_EQ(f.paper[0].points[1].source, "th_t5.csv line 20: TH Table 3, project logits, h=24");
}

TEST(Figures, LrbHeadSizeComparesWithTable2B) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("lrb-head-size", testing::suite_toml("lrb_head_size.toml"), "quick");
  const std::vector<int> sizes = {2, 4, 8, 16, 32};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ConfigSpec c;
    c.kind = "fixed-head";
    c.heads = 4;
    c.d_k = c.d_v = sizes[i];
    const std::string name = "lrb-head-size/fixed-head/d_k=" + std::to_string(sizes[i]);
    const auto id = db.add_run(suite, name, c);
    if (i < 3) {  // the two largest are still queued
      db.log(id, "val_loss", {5.8, 3.5 - 0.1 * static_cast<double>(i)});
      db.finish(name);
    }
  }
  const auto figs = build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), nullptr);
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.x_label, "head size d_p");
  ASSERT_EQ(f.ours.size(), 1u);
  EXPECT_EQ(xs(f.ours[0]), (std::vector<double>{2, 4, 8, 16, 32}));
  EXPECT_DOUBLE_EQ(f.ours[0].points[2].mean, 3.3);
  EXPECT_EQ(f.ours[0].points[4].done, 0);
  EXPECT_TRUE(has_note(f, "3 of 5 runs finished (2 queued)"));
  ASSERT_EQ(f.paper.size(), 1u);
  EXPECT_EQ(f.paper[0].label, "LRB Table 2B: fixed head size, 8 heads, d=512");
  EXPECT_EQ(xs(f.paper[0]), (std::vector<double>{32, 64, 128, 256}));
  EXPECT_DOUBLE_EQ(f.paper[0].points[0].mean, 88.53);
  EXPECT_DOUBLE_EQ(f.paper[0].points[3].hi, 90.33 + 0.23);
  EXPECT_EQ(f.paper_y_label, "SQuAD dev F1 (24-layer BERT, 8 heads; higher is better)");
}

TEST(Figures, VbAttentionRatioReadsTheRatioFromTheLabelAndGroupsBudgets) {
  ScratchDb db;
  const auto suite =
      db.store().ensure_suite("vb-attention-ratio", testing::suite_toml("vb_attention_ratio.toml"), "quick");
  struct Grid {
    int ratio, width, d_a;
  };
  const std::vector<Grid> grids = {{1, 32, 8},  {1, 24, 6},  {2, 28, 14}, {2, 20, 10},
                                   {4, 24, 24}, {4, 16, 16}, {8, 16, 32}, {8, 12, 24}};
  double loss = 3.0;
  for (const Grid& g : grids) {
    for (std::int64_t seed = 0; seed < 2; ++seed) {
      ConfigSpec c;
      c.kind = "fixed-head";
      c.heads = 4;
      c.width = g.width;
      c.d_k = c.d_v = g.d_a;
      c.tokenizer = "bpe:500";
      c.vocab = 500;
      c.seed = seed;
      const std::string name = "vb-attention-ratio/ratio-" + std::to_string(g.ratio) +
                               "/width=" + std::to_string(g.width) + ",seed=" + std::to_string(seed);
      db.log(db.add_run(suite, name, c), "val_loss", {6.0, loss});
      db.finish(name);
      loss += 0.1;
    }
  }
  std::string warnings;
  const auto figs =
      build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings, FigureAxis::SuiteKey);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.x_label, "bottleneck ratio H d_a / d_x (from the grid label)");
  EXPECT_EQ(f.ours_y_label, "final val loss (nats/token; kjv, bpe:500; lower is better)");
  EXPECT_EQ(labels(f.ours),
            (std::vector<std::string>{"budget 1 (width 32 at ratio-1)", "budget 2 (width 24 at ratio-1)"}));
  EXPECT_EQ(xs(f.ours[0]), (std::vector<double>{1, 2, 4, 8}));
  // Budget 1, ratio 2: the runs logged 3.4 and 3.5 (width 28, seeds 0 and 1).
  EXPECT_NEAR(f.ours[0].points[1].mean, 3.45, 1e-12);
  EXPECT_EQ(f.ours[0].points[1].runs, 2);
  EXPECT_DOUBLE_EQ(f.ours[1].points[3].lo, 4.4);  // budget 2, ratio 8: width 12
  EXPECT_TRUE(f.paper.empty());
  EXPECT_TRUE(has_note(f, "VB Table 5 (vb_attention_dim.csv) lists 12 trained architectures at ratios 1, 2, 4, 8, 16"));
  EXPECT_TRUE(has_note(f, "VB Fig. 4 is a plot of loss against parameter count (no numbers in the text)"));
}

TEST(Figures, VbRankPlotsFullRankRunsAtTheirWidth) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("vb-rank", testing::suite_toml("vb_rank.toml"), "quick");
  const auto add = [&](const std::string& name, int width, int rank, double final_loss) {
    ConfigSpec c;
    c.width = width;
    c.embed_rank = rank;
    c.tokenizer = "bpe:2000";
    c.vocab = 2000;
    db.log(db.add_run(suite, name, c), "val_loss", {7.0, final_loss});
    db.finish(name);
  };
  add("vb-rank/low-rank/embed_rank=4,seed=0", 32, 4, 5.5);
  add("vb-rank/low-rank/embed_rank=16,seed=0", 32, 16, 5.2);
  add("vb-rank/full-rank/width=16,seed=0", 16, 0, 5.4);
  add("vb-rank/full-rank/width=32,seed=0", 32, 0, 5.1);
  std::string warnings;
  const auto figs =
      build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings, FigureAxis::SuiteKey);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.x_label, "embedding rank r (full rank: r = width d)");
  EXPECT_EQ(xs(*series(f.ours, "low-rank")), (std::vector<double>{4, 16}));
  EXPECT_EQ(xs(*series(f.ours, "full-rank")), (std::vector<double>{16, 32}));
  EXPECT_DOUBLE_EQ(series(f.ours, "full-rank")->points[0].mean, 5.4);
  EXPECT_TRUE(f.paper.empty());
  EXPECT_TRUE(
      has_note(f, "VB Fig. 2 trained (vb_setups.csv line 5): vocabulary GPT-2 50257, depth 12, width 680; ranks 16"));
  EXPECT_TRUE(has_note(f, "8e-4 (Fig. 2, depth 12, width 680, r 680; line 4)"));
}

TEST(Figures, KnowsTheElevenSuites) {
  EXPECT_EQ(figure_suites(), (std::vector<std::string>{"lrb-heads", "lrb-head-size", "th-heads", "th-projections",
                                                       "th-dynamic", "th-head-dims", "th-extreme-heads", "vb-rank",
                                                       "vb-depth-width", "vb-attention-ratio", "vb-pos-rank"}));
}

// VB plots loss against parameter count: the VB figures put each run at its stored parameter count
// by default (the runs table's "parameters"), and the suite's own axis on request.
TEST(Figures, ParametersAxisPutsPointsAtTheRunsParameterCounts) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("vb-depth-width", testing::suite_toml("vb_depth_width.toml"), "full");
  struct Run {
    std::string label;
    int depth, width;
    std::int64_t seed, params;
    double loss;
  };
  // Two seeds of shallow width 44 (same count), their deep partner, and one more pair.
  const std::vector<Run> runs = {{"shallow", 4, 44, 0, 120200, 2.50},
                                 {"shallow", 4, 44, 1, 120200, 2.54},
                                 {"deep", 8, 32, 0, 119360, 2.60},
                                 {"shallow", 4, 80, 0, 356576, 2.20},
                                 {"deep", 8, 58, 0, 360900, 2.10}};
  for (const Run& r : runs) {
    ConfigSpec c;
    c.width = r.width;
    c.depth = r.depth;
    c.heads = 2;
    c.d_k = c.d_v = r.width / 2;
    c.context = 64;
    c.seed = r.seed;
    const std::string name = "vb-depth-width/" + r.label + "/width=" + std::to_string(r.width) +
                             ",seed=" + std::to_string(r.seed) + ",tokenizer=bytes";
    db.log(db.add_run(suite, name, c, r.params), "val_loss", {5.0, r.loss});
    db.finish(name);
  }
  std::string warnings;
  const auto figs = build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.axis, FigureAxis::Parameters);
  EXPECT_EQ(f.default_axis, FigureAxis::Parameters);
  EXPECT_EQ(f.x_label, "parameters (all: embeddings, blocks, head)");
  EXPECT_EQ(f.key_x_label, "width d");
  EXPECT_TRUE(f.log_x);
  ASSERT_NE(series(f.ours, "shallow bytes"), nullptr);
  ASSERT_NE(series(f.ours, "deep bytes"), nullptr);
  EXPECT_EQ(xs(*series(f.ours, "shallow bytes")), (std::vector<double>{120200, 356576}));
  EXPECT_EQ(xs(*series(f.ours, "deep bytes")), (std::vector<double>{119360, 360900}));
  const FigurePoint& two_seeds = series(f.ours, "shallow bytes")->points[0];
  EXPECT_EQ(two_seeds.runs, 2);
  EXPECT_NEAR(two_seeds.mean, 2.52, 1e-12);
  EXPECT_TRUE(has_note(f, "VB's claim is for L > log3 d_x"));
  EXPECT_TRUE(has_note(f, "With V = 50257 (Fig. 5) there is still a crossing"));

  // The suite's own axis: the same runs at their widths.
  const auto by_width =
      build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), nullptr, FigureAxis::SuiteKey);
  ASSERT_EQ(by_width.size(), 1u);
  EXPECT_EQ(by_width[0].axis, FigureAxis::SuiteKey);
  EXPECT_EQ(by_width[0].x_label, "width d");
  EXPECT_FALSE(by_width[0].log_x);
  EXPECT_EQ(xs(*series(by_width[0].ours, "shallow bytes")), (std::vector<double>{44, 80}));
  EXPECT_EQ(xs(*series(by_width[0].ours, "deep bytes")), (std::vector<double>{32, 58}));
}

// vb-depth-width's arms use different tokenizers: a loss per byte and a loss per BPE token are
// different units, so the label names both and a note says not to compare across them.
TEST(Figures, MixedTokenizersSayTheirLossesAreDifferentUnits) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("vb-depth-width", testing::suite_toml("vb_depth_width.toml"), "full");
  for (const std::string tokenizer : {"bytes", "bpe:2000"}) {
    ConfigSpec c;
    c.width = 44;
    c.depth = 4;
    c.heads = 2;
    c.d_k = c.d_v = 22;
    c.tokenizer = tokenizer;
    c.vocab = tokenizer == "bytes" ? 256 : 2000;
    const std::string name = "vb-depth-width/shallow/width=44,seed=0,tokenizer=" + tokenizer;
    db.log(db.add_run(suite, name, c, 120200), "val_loss", {5.0, 2.5});
    db.finish(name);
  }
  const auto mixed = build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), nullptr);
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].ours_y_label,
            "final val loss (nats per token of each series' tokenizer, a byte for bytes; kjv, bytes, bpe:2000; lower "
            "is better)");
  EXPECT_TRUE(has_note(mixed[0], "These runs use 2 tokenizers (bytes, bpe:2000)"));
  ASSERT_NE(series(mixed[0].ours, "shallow bytes"), nullptr);
  ASSERT_NE(series(mixed[0].ours, "shallow bpe:2000"), nullptr);
  EXPECT_EQ(series(mixed[0].ours, "shallow bytes")->tokenizer, "bytes");
  EXPECT_EQ(series(mixed[0].ours, "shallow bpe:2000")->tokenizer, "bpe:2000");
  // Every series is of one tokenizer, so each tokenizer gets its own plot (its own y axis).
  ASSERT_EQ(mixed[0].ours_panels.size(), 2u);
  EXPECT_EQ(mixed[0].ours_panels[0].tokenizer, "bytes");
  EXPECT_EQ(mixed[0].ours_panels[0].y_label, "final val loss (nats/byte)");
  EXPECT_EQ(mixed[0].ours_panels[1].tokenizer, "bpe:2000");
  EXPECT_EQ(mixed[0].ours_panels[1].y_label, "final val loss (nats/token)");

  // The curves tab says the same of any selection of their runs, for losses only.
  const auto rows = load_run_rows(db.store());
  std::vector<const RunRow*> both;
  for (const RunRow& r : rows) both.push_back(&r);
  EXPECT_EQ(tokenizers_of(both), (std::vector<std::string>{"bytes", "bpe:2000"}));
  EXPECT_NE(loss_units_warning(both, "val_loss").find("compare runs of one tokenizer"), std::string::npos);
  EXPECT_NE(loss_units_warning(both, "train_loss"), "");
  EXPECT_EQ(loss_units_warning(both, "tokens_per_s"), "");
  EXPECT_EQ(loss_units_warning({both[0]}, "val_loss"), "");

  // One tokenizer: no such note.
  ScratchDb single;
  const auto s2 = single.store().ensure_suite("vb-depth-width", testing::suite_toml("vb_depth_width.toml"), "full");
  ConfigSpec c;
  c.width = 44;
  c.depth = 4;
  c.heads = 2;
  c.d_k = c.d_v = 22;
  single.log(single.add_run(s2, "vb-depth-width/shallow/width=44,seed=0,tokenizer=bytes", c, 120200), "val_loss",
             {5.0, 2.5});
  const auto one = build_figures(single.store(), load_run_rows(single.store()), testing::reference_dir(), nullptr);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_FALSE(has_note(one[0], "tokenizers"));
  EXPECT_TRUE(one[0].ours_panels.empty());
  EXPECT_EQ(one[0].ours_y_label, "final val loss (nats/byte; kjv, bytes; lower is better)");
}

// On its own axis lrb-heads says by how much its series are not at equal parameters; on the
// parameters axis the paper's numbers (indexed by heads) are left out with a note.
TEST(Figures, LrbHeadsSaysWhereItIsNotAtEqualParameters) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("lrb-heads", testing::suite_toml("lrb_heads.toml"), "full");
  const auto add = [&](const std::string& label, const std::string& kind, int heads, int d_k, std::int64_t params) {
    ConfigSpec c;
    c.kind = kind;
    c.width = 128;
    c.heads = heads;
    c.d_k = c.d_v = d_k;
    const std::string name = "lrb-heads/" + label + "/heads=" + std::to_string(heads);
    db.log(db.add_run(suite, name, c, params), "val_loss", {5.0, 2.0});
    db.finish(name);
  };
  add("standard", "multi-head", 8, 16, 469760);
  add("standard", "multi-head", 32, 4, 469760);
  add("fixed-head", "fixed-head", 8, 32, 600832);
  add("fixed-head", "fixed-head", 32, 32, 1387264);
  add("fixed-head-n", "fixed-head", 8, 64, 862976);
  const auto rows = load_run_rows(db.store());
  const auto key = build_figures(db.store(), rows, testing::reference_dir(), nullptr);
  ASSERT_EQ(key.size(), 1u);
  EXPECT_EQ(key[0].axis, FigureAxis::SuiteKey);
  EXPECT_FALSE(key[0].paper.empty());
  EXPECT_TRUE(has_note(key[0], "at heads h = 32, fixed-head has 1,387,264 and standard 469,760 (2.95x)"));
  EXPECT_TRUE(has_note(key[0], "h d_p / d times the standard layer's 4 d^2"));
  // The causal threshold at the runs' own context (n = 16 here), and where the standard heads fall below it.
  EXPECT_TRUE(has_note(key[0], "from d_p >= floor(n/2) (8 at n = 16), not LRB's n"))
      << ::testing::PrintToString(key[0].notes);
  EXPECT_TRUE(has_note(key[0], "the standard heads' bottleneck binds from h = 32 (d/h = 4)"));
  EXPECT_EQ(labels(key[0].ours), (std::vector<std::string>{"standard", "fixed-head", "fixed-head-n"}));

  const auto params = build_figures(db.store(), rows, testing::reference_dir(), nullptr, FigureAxis::Parameters);
  ASSERT_EQ(params.size(), 1u);
  EXPECT_TRUE(params[0].paper.empty());
  EXPECT_TRUE(has_note(params[0], "indexed by heads h, not by a total parameter count"));
  // Both standard runs share one count: one point with two runs.
  EXPECT_EQ(xs(*series(params[0].ours, "standard")), (std::vector<double>{469760}));
  EXPECT_EQ(series(params[0].ours, "standard")->points[0].runs, 2);
  EXPECT_EQ(xs(*series(params[0].ours, "fixed-head")), (std::vector<double>{600832, 1387264}));
}

// TH Table 7 keeps each series' parameters near equal along x: how near is computed from the runs
// (it was a sentence with full scale's 3.5% and 14%, wrong beside the paper-scale runs).
TEST(Figures, ThExtremeHeadsSaysHowFarApartEachSeriesRunsAreAlongX) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-extreme-heads", testing::suite_toml("th_extreme_heads.toml"), "paper");
  const auto add = [&](const std::string& label, const std::string& kind, int heads, std::int64_t params) {
    ConfigSpec c;
    c.kind = kind;
    c.width = 512;
    c.heads = heads;
    c.d_k = c.d_v = 512 / heads;
    const std::string name = "th-extreme-heads/" + label + "/heads=" + std::to_string(heads);
    db.log(db.add_run(suite, name, c, params), "val_loss", {5.0, 1.2});
    db.finish(name);
  };
  add("talking-heads", "talking-heads", 8, 19190000);
  add("talking-heads", "talking-heads", 32, 19200000);
  add("talking-heads", "talking-heads", 128, 19390000);
  add("multi-head", "multi-head", 8, 19189000);
  const auto figs = build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), nullptr);
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_TRUE(has_note(figs[0],
                       "Along x, all parameters included: talking-heads 19,190,000 (heads = 8) .. 19,390,000 (128), "
                       "1.0% apart."))
      << ::testing::PrintToString(figs[0].notes);
  for (const std::string& n : figs[0].notes) EXPECT_EQ(n.find("14%"), std::string::npos) << n;
}

// TH Table 2: categorical x from the grid labels, the paper's rows mapped onto them.
TEST(Figures, ThHeadDimsIsCategoricalOverTheHeadCounts) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("th-head-dims", testing::suite_toml("th_head_dims.toml"), "quick");
  const std::vector<std::string> rows = {"6-6-6", "6-24-6", "24-6-24", "6-24-24", "24-24-6", "24-24-24"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ConfigSpec c;
    c.kind = "talking-heads";
    const std::string name = "th-head-dims/" + rows[i] + "/seed=0";
    db.log(db.add_run(suite, name, c, 29800 + static_cast<std::int64_t>(i)), "val_loss",
           {5.0, 3.0 + 0.01 * static_cast<double>(i)});
    db.finish(name);
  }
  std::string warnings;
  const auto figs = build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);
  const Figure& f = figs[0];
  EXPECT_EQ(f.axis, FigureAxis::SuiteKey);
  EXPECT_EQ(f.x_categories, rows);
  ASSERT_EQ(f.ours.size(), 1u);
  EXPECT_DOUBLE_EQ(f.ours[0].points[3].mean, 3.03);
  ASSERT_EQ(f.paper.size(), 1u);
  ASSERT_EQ(f.paper[0].points.size(), 6u);
  // 6-24-24 (d_k 128, d_v 32): 1.939 in TH Table 2.
  EXPECT_DOUBLE_EQ(f.paper[0].points[3].x, 3);
  EXPECT_DOUBLE_EQ(f.paper[0].points[3].mean, 1.939);
  EXPECT_TRUE(has_note(f, "A small effect is expected"));
  // The axis maps TH's head counts to the runs' own (all 2 heads here): computed, at any scale.
  EXPECT_EQ(f.key_x_label, "h_k-h-h_v (TH's head counts; ours: 6 -> 2, 24 -> 2)");
}

// VB C.4: each run at the rank it reduces.
TEST(Figures, VbPosRankPlotsTheReducedRank) {
  ScratchDb db;
  const auto suite = db.store().ensure_suite("vb-pos-rank", testing::suite_toml("vb_pos_rank.toml"), "quick");
  const auto add = [&](const std::string& name, int embed_rank, int pos_rank, std::int64_t params,
                       const std::string& positions = "", double final_loss = 5.0) {
    ConfigSpec c;
    c.embed_rank = embed_rank;
    c.tokenizer = "bpe:2000";
    c.vocab = 2000;
    c.pos_rank = pos_rank;
    c.positions = positions;
    db.log(db.add_run(suite, name, c, params), "val_loss", {7.0, final_loss});
    db.finish(name);
  };
  add("vb-pos-rank/pos-rank/pos_rank=1,seed=0", 0, 1, 8000);
  add("vb-pos-rank/pos-rank/pos_rank=16,seed=0", 0, 16, 8100);
  add("vb-pos-rank/vocab-rank/embed_rank=2,seed=0", 2, 0, 5000);
  add("vb-pos-rank/full-rank/pos_rank=0,seed=0", 0, 0, 9000);
  add("vb-pos-rank/no-positions/seed=0", 0, 0, 8500, "none", 5.5);
  add("vb-pos-rank/no-positions/seed=1", 0, 0, 8500, "none", 6.5);
  std::string warnings;
  const auto figs =
      build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings, FigureAxis::SuiteKey);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(xs(*series(figs[0].ours, "pos-rank")), (std::vector<double>{1, 16}));
  EXPECT_EQ(xs(*series(figs[0].ours, "vocab-rank")), (std::vector<double>{2}));
  EXPECT_EQ(xs(*series(figs[0].ours, "full-rank")), (std::vector<double>{16}));  // min(d = 32, n = 16)
  // No positional embedding is rank 0, which the log axis cannot show: a level line, said in a note.
  const FigureSeries* none = series(figs[0].ours, "no-positions");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(xs(*none), (std::vector<double>{0}));
  EXPECT_TRUE(none->level);
  EXPECT_DOUBLE_EQ(none->points[0].mean, 6.0);
  EXPECT_EQ(none->points[0].done, 2);
  EXPECT_FALSE(series(figs[0].ours, "pos-rank")->level);
  EXPECT_TRUE(has_note(figs[0], "no-positions sits at x = 0, which the log axis cannot show"));
  // On the parameters axis it has a place like any other run.
  const auto by_params =
      build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings, FigureAxis::Parameters);
  ASSERT_EQ(by_params.size(), 1u);
  EXPECT_FALSE(series(by_params[0].ours, "no-positions")->level);
  EXPECT_FALSE(has_note(by_params[0], "cannot show"));
  EXPECT_TRUE(has_note(figs[0], "VB Fig. 7 trained (vb_setups.csv line 16)"));
  // VB Fig. 7 compares ranks: the default axis is the rank (the parameter counts of one width cluster).
  const auto by_default = build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings);
  ASSERT_EQ(by_default.size(), 1u);
  EXPECT_EQ(xs(*series(by_default[0].ours, "pos-rank")), (std::vector<double>{1, 16}));
}

// A figure whose one series has a point per group of run ids.
Figure figure_of(const std::string& suite, const std::vector<std::vector<std::int64_t>>& points) {
  Figure f;
  f.suite = suite;
  FigureSeries s;
  s.label = "ours";
  for (const auto& ids : points) {
    FigurePoint p;
    p.x = static_cast<double>(s.points.size());
    p.run_ids = ids;
    s.points.push_back(p);
  }
  f.ours.push_back(s);
  FigureSeries paper;  // the paper's points name no runs
  paper.points.push_back(FigurePoint{});
  f.paper.push_back(paper);
  return f;
}

TEST(FigureForRuns, TheSelectionsFigureThenTheFilteredRowsThenNone) {
  const std::vector<Figure> figs = {figure_of("th-heads", {{1, 2}, {3}}), figure_of("vb-rank", {{10}, {11, 12}}),
                                    figure_of("lrb-heads", {{20, 21, 22}})};
  EXPECT_EQ(figure_for_runs(figs, {11}, {}), 1);
  EXPECT_EQ(figure_for_runs(figs, {1, 10, 11}, {}), 1);         // most of the selection
  EXPECT_EQ(figure_for_runs(figs, {1, 10}, {}), 0);             // a tie: the first
  EXPECT_EQ(figure_for_runs(figs, {3}, {20, 21, 22, 10}), 0);   // a selected run beats any rows shown
  EXPECT_EQ(figure_for_runs(figs, {99}, {20, 21, 22, 10}), 2);  // none selected in a figure: the rows shown
  EXPECT_EQ(figure_for_runs(figs, {}, {12, 10, 99}), 1);
  EXPECT_EQ(figure_for_runs(figs, {98}, {99}), -1);  // a diagnostic suite's runs: no figure
  EXPECT_EQ(figure_for_runs(figs, {}, {}), -1);
  EXPECT_EQ(figure_for_runs({}, {1}, {1}), -1);
}

// A suite the explorer does not know joins the figure of one it does when both reproduce the same
// figure on the same x at the same scale (a seed check of some rows); other suites stay apart.
TEST(Figures, ASeedCheckSuitePoolsIntoTheFigureItReproduces) {
  ScratchDb db;
  const std::string toml = testing::suite_toml("vb_pos_rank.toml");
  const auto renamed = [&](const std::string& name, const std::string& reproduces) {
    std::string t = toml;
    const auto at = t.find("name = \"vb-pos-rank\"");
    t.replace(at, std::string("name = \"vb-pos-rank\"").size(), "name = \"" + name + "\"");
    if (!reproduces.empty()) {
      const auto r = t.find("reproduces = ");
      t.replace(r, t.find('\n', r) - r, "reproduces = \"" + reproduces + "\"");
    }
    return t;
  };
  const auto suite = db.store().ensure_suite("vb-pos-rank", toml, "paper");
  const auto seeds = db.store().ensure_suite("vb-pos-rank-seeds", renamed("vb-pos-rank-seeds", ""), "paper");
  const auto full = db.store().ensure_suite("vb-pos-rank-full", renamed("vb-pos-rank-full", ""), "full");
  const auto other =
      db.store().ensure_suite("vb-pos-rank-other", renamed("vb-pos-rank-other", "something else"), "paper");
  const auto add = [&](std::int64_t s, const std::string& name, int pos_rank, double final_loss) {
    ConfigSpec c;
    c.tokenizer = "bpe:2000";
    c.vocab = 2000;
    c.pos_rank = pos_rank;
    db.log(db.add_run(s, name, c, 8000), "val_loss", {7.0, final_loss});
    db.finish(name);
  };
  add(suite, "vb-pos-rank/pos-rank/pos_rank=1,seed=0", 1, 5.0);
  add(seeds, "vb-pos-rank-seeds/pos-rank/pos_rank=1,seed=1", 1, 4.0);
  add(seeds, "vb-pos-rank-seeds/full-rank/pos_rank=0,seed=1", 0, 4.5);
  add(full, "vb-pos-rank-full/pos-rank/pos_rank=1,seed=2", 1, 1.0);
  add(other, "vb-pos-rank-other/pos-rank/pos_rank=1,seed=3", 1, 9.0);
  std::string warnings;
  const auto figs =
      build_figures(db.store(), load_run_rows(db.store()), testing::reference_dir(), &warnings, FigureAxis::SuiteKey);
  EXPECT_EQ(warnings, "");
  ASSERT_EQ(figs.size(), 1u);  // the others have no figure of their own
  const FigureSeries* pos = series(figs[0].ours, "pos-rank");
  ASSERT_NE(pos, nullptr);
  ASSERT_EQ(pos->points.size(), 1u);
  EXPECT_EQ(pos->points[0].done, 2);  // seed 0 and the seed check's seed 1; not the full scale's, not "other"
  EXPECT_DOUBLE_EQ(pos->points[0].mean, 4.5);
  EXPECT_DOUBLE_EQ(pos->points[0].lo, 4.0);
  EXPECT_DOUBLE_EQ(pos->points[0].hi, 5.0);
  ASSERT_NE(series(figs[0].ours, "full-rank"), nullptr);  // a row only the seed check has
  EXPECT_TRUE(has_note(figs[0], "With the runs of vb-pos-rank-seeds:"));
  EXPECT_FALSE(has_note(figs[0], "vb-pos-rank-full"));
}

}  // namespace
}  // namespace headroom::explorer
