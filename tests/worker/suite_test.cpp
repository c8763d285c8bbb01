// The suite loader (app/worker/suite.cpp) on the real files in assets/suites and on small bad ones:
// parameter-match claims ([[match]]) hold at every scale a file has, the paper scale is optional
// with one clear message when missing, and vb_depth_width stays inside VB's regime.
#include "app/worker/suite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model/model_spec.h"

namespace headroom::worker {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> suite_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(HEADROOM_SOURCE_DIR) + "/assets/suites"))
    if (e.path().extension() == ".toml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool has_paper_scale(const std::string& path) { return read(path).find("[scale.paper]") != std::string::npos; }

// A scratch suite file.
class TempSuite {
 public:
  explicit TempSuite(const std::string& text) {
    path_ = (fs::temp_directory_path() /
             ("headroom_suite_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++) + ".toml"))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempSuite() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

const char* kBase = R"(
[suite]
name = "t"
reproduces = "a test"
full_estimate = "seconds"
[base.model]
width = 64
depth = 2
context = 16
[base.model.attention]
kind = "multi-head"
heads = 2
causal = true
[base.train]
corpus = "kjv"
tokenizer = "bytes"
steps = 10
)";

std::string message_of(const std::string& path, const std::string& scale) {
  try {
    load_suite(path, scale);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// Every [[match]] group of every suite, at full and (where the file has it) paper scale, is within
// the tolerance the file states, counted over ALL parameters (core::parameter_count: embeddings,
// blocks, final LayerNorm, untied head). Recomputed here from each run's parsed model.
TEST(SuiteFiles, ParameterMatchedGroupsAreWithinTheirTolerance) {
  int groups = 0;
  std::map<std::string, int> groups_per_file;
  for (const std::string& file : suite_files()) {
    std::vector<std::string> scales = {"quick", "full"};
    if (has_paper_scale(file)) scales.push_back("paper");
    for (const std::string& scale : scales) {
      SCOPED_TRACE(file + " at " + scale);
      Suite s;
      ASSERT_NO_THROW(s = load_suite(file, scale));
      std::map<std::string, const SuiteRun*> runs;
      for (const SuiteRun& r : s.runs) runs[r.name] = &r;
      for (const ParamMatch& m : s.matches) {
        ASSERT_GE(m.runs.size(), 2u);
        std::vector<double> params;
        for (const std::string& name : m.runs) {
          ASSERT_TRUE(runs.count(name)) << name;
          params.push_back(static_cast<double>(core::parameter_count(runs[name]->parsed.model)));
        }
        const auto [lo, hi] = std::minmax_element(params.begin(), params.end());
        EXPECT_LE(*hi / *lo - 1.0, m.tolerance) << m.runs.front() << " .. " << m.runs.back();
        ++groups;
        ++groups_per_file[fs::path(file).stem().string()];
      }
    }
  }
  // The suites that compare at equal parameters say so with groups (VB depth/width: 12 full + 15 paper).
  EXPECT_EQ(groups_per_file["vb_depth_width"], 27);
  EXPECT_EQ(groups_per_file["th_heads"], 3);  // quick, full and paper
  EXPECT_GE(groups_per_file["th_head_dims"], 3);
  EXPECT_EQ(groups_per_file["vb_attention_ratio"], 4);  // full and paper, two budgets each
  EXPECT_GT(groups, 30);
}

// vb_depth_width compares depths inside VB's regime L > log3 d_x (3^L > d_x) at full and paper scale,
// and its shallow/deep pairs are within 2% (the file's claim).
TEST(SuiteFiles, VbDepthWidthIsInsideVbRegimeAndMatchedWithin2Percent) {
  const std::string file = std::string(HEADROOM_SOURCE_DIR) + "/assets/suites/vb_depth_width.toml";
  for (const std::string scale : {"full", "paper"}) {
    SCOPED_TRACE(scale);
    const Suite s = load_suite(file, scale);
    ASSERT_FALSE(s.runs.empty());
    for (const SuiteRun& r : s.runs) {
      EXPECT_GT(std::pow(3.0, r.parsed.model.depth), r.parsed.model.width) << r.name;
    }
    ASSERT_FALSE(s.matches.empty());
    for (const ParamMatch& m : s.matches) EXPECT_LE(m.tolerance, 0.02);
    // Every shallow run of seed 0 has a partner.
    std::size_t shallow = 0;
    for (const SuiteRun& r : s.runs)
      if (r.name.find("/shallow") != std::string::npos && r.name.find("seed=0") != std::string::npos) ++shallow;
    EXPECT_EQ(s.matches.size(), shallow);
  }
}

TEST(SuiteLoader, MatchFurtherApartThanItsToleranceIsAnError) {
  TempSuite t(std::string(kBase) + R"(
[[grid]]
label = "a"
"model.width" = [64, 66]
[[match]]
tolerance = 0.01
full = [["a/width=64", "a/width=66"]]
)");
  const std::string msg = message_of(t.path(), "full");
  EXPECT_NE(msg.find(t.path()), std::string::npos) << msg;
  EXPECT_NE(msg.find("match[0].full[0]: claimed equal parameters"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t/a/width=66"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the file allows 1%"), std::string::npos) << msg;
  // The same claim with a tolerance that covers the spread loads, and reports the counts.
  TempSuite ok(std::string(kBase) + R"(
[[grid]]
label = "a"
"model.width" = [64, 66]
[[match]]
tolerance = 0.1
full = [["a/width=64", "a/width=66"]]
)");
  const Suite s = load_suite(ok.path(), "full");
  ASSERT_EQ(s.matches.size(), 1u);
  EXPECT_EQ(s.matches[0].runs, (std::vector<std::string>{"t/a/width=64", "t/a/width=66"}));
  EXPECT_LT(s.matches[0].params[0], s.matches[0].params[1]);
  // ... and no claim at a scale the table does not name.
  EXPECT_TRUE(load_suite(ok.path(), "quick").matches.empty());
}

TEST(SuiteLoader, MatchNamingAnUnknownRunIsAnError) {
  TempSuite t(std::string(kBase) + R"(
[[grid]]
label = "a"
"model.width" = [64]
[[match]]
tolerance = 0.01
full = [["a/width=64", "a/width=65"]]
)");
  const std::string msg = message_of(t.path(), "full");
  EXPECT_NE(msg.find("no run \"a/width=65\" at scale full"), std::string::npos) << msg;
}

// A few lines of lists can multiply into millions of runs: refused before any is made, naming the
// grid and the list sizes. Parsed from text, as the fuzz target does.
TEST(SuiteLoader, AGridThatExpandsToTooManyRunsIsRefusedUpFront) {
  std::string text = std::string(kBase) + "[[grid]]\nlabel = \"big\"\n";
  for (const char* key : {"model.width", "train.seed", "train.steps", "train.lr"}) {
    text += std::string("\"") + key + "\" = [";
    for (int i = 1; i <= 11; ++i) text += (i > 1 ? ", " : "") + std::to_string(key[0] == 'm' ? 8 * i : i);
    text += "]\n";
  }
  try {
    parse_suite(text, "big.toml", "full");
    ADD_FAILURE() << "11^4 = 14641 runs were accepted";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("big.toml: grid[0]: 11 x 11 x 11 x 11 values make the suite more than 10000 runs"),
              std::string::npos)
        << msg;
  }
  // The same grid with three lists (1331 runs) is a suite.
  text =
      std::string(kBase) + "[[grid]]\nlabel = \"ok\"\n\"train.seed\" = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n" +
      "\"train.steps\" = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n\"model.depth\" = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n";
  EXPECT_EQ(parse_suite(text, "ok.toml", "full").runs.size(), 1331u);
}

// A suite may set a precision (it is part of what a run computes) but not a device: where runs
// train is each worker's --device.
TEST(SuiteLoader, APrecisionIsTheSuitesToSetADeviceIsNot) {
  const std::string bf16 = std::string(kBase) + "[[grid]]\nlabel = \"a\"\n\"train.precision\" = \"bf16\"\n";
  const Suite suite = parse_suite(bf16, "p.toml", "quick");
  ASSERT_EQ(suite.runs.size(), 1u);
  EXPECT_EQ(suite.runs[0].parsed.train.precision, core::Precision::Bf16);
  EXPECT_EQ(suite.runs[0].config["train"]["precision"], "bf16");
  const std::string device = std::string(kBase) + "[[grid]]\nlabel = \"a\"\n\"train.device\" = \"cuda\"\n";
  try {
    parse_suite(device, "d.toml", "quick");
    ADD_FAILURE() << "a suite chose the device";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("d.toml: run 't/a': train.device: where runs train is each worker's choice"),
              std::string::npos)
        << e.what();
  }
}

// --scale paper on a suite without paper values: one message with the file, every grid and key.
TEST(SuiteLoader, PaperScaleWithoutPaperValuesIsOneClearError) {
  TempSuite none(std::string(kBase) + R"(
[[grid]]
label = "low-rank"
"model.embed_rank" = { quick = [4, 16], full = [4, 8, 16] }
[[grid]]
label = "full-rank"
"model.width" = { quick = [16, 32], full = [64, 80] }
)");
  const std::string& file = none.path();
  const std::string msg = message_of(file, "paper");
  EXPECT_EQ(msg.rfind(file + ": --scale paper: this suite has no paper scale: no [scale.paper] table; grid[0] (label "
                             "\"low-rank\") has no paper value for model.embed_rank; grid[1]",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find("grid[1] (label \"full-rank\") has no paper value for model.width"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  // With [scale.paper] present, only the grid that lacks a paper value is named.
  TempSuite t(std::string(kBase) + R"(
[scale.paper]
"train.steps" = 100
[[grid]]
label = "has"
"model.width" = { quick = [32], full = [64], paper = [256] }
[[grid]]
label = "lacks"
"model.width" = { quick = [32], full = [64] }
"model.depth" = { quick = 1, full = 2 }
)");
  const std::string msg2 = message_of(t.path(), "paper");
  EXPECT_EQ(msg2, t.path() +
                      ": --scale paper: this suite has no paper scale: grid[1] (label \"lacks\") has no paper "
                      "value for model.depth, model.width (give every per-scale value a paper = ... entry, or "
                      "run it at quick or full)");
  // A label that is not a string (a fuzz finding: it escaped as a JSON type error and aborted)
  // gets the same one message, the label written as it was given.
  TempSuite odd(std::string(kBase) + R"(
[[grid]]
label = { a = 1 }
"model.width" = { quick = [32], full = [64] }
)");
  const std::string msg3 = message_of(odd.path(), "paper");
  EXPECT_NE(msg3.find("has no paper scale"), std::string::npos) << msg3;
  // The same file at full loads, and paper values replace the others at paper scale when present.
  EXPECT_NO_THROW(load_suite(t.path(), "full"));
}

TEST(SuiteLoader, PaperScaleAppliesItsValues) {
  TempSuite t(std::string(kBase) + R"(
[scale.paper]
"model.depth" = 6
"model.context" = 128
[[grid]]
label = "a"
"model.width" = { quick = [32], full = [64], paper = [256, 512] }
)");
  const Suite s = load_suite(t.path(), "paper");
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.scale, "paper");
  EXPECT_EQ(s.runs[1].name, "t/a/width=512");
  EXPECT_EQ(s.runs[1].parsed.model.width, 512);
  EXPECT_EQ(s.runs[1].parsed.model.depth, 6);
  EXPECT_EQ(s.runs[1].parsed.model.context, 128);
  EXPECT_EQ(load_suite(t.path(), "full").runs[0].parsed.model.depth, 2);
  EXPECT_EQ(message_of(t.path(), "huge"), "--scale huge: use quick, full or paper");
}

// Every suite has all three scales (issue 11: a paper scale in each suite), and its paper scale is
// in the papers' regime: depth >= 6, n 128-512, widths up to 1024 (VB's own Table 5 and
// vb_depth_width's deep models go below 256), bf16 on linux-docs, the corpus large enough for it.
TEST(SuiteFiles, EverySuiteLoadsAtEveryScaleAndItsPaperScaleIsInThePapersRegime) {
  int files = 0;
  for (const std::string& file : suite_files()) {
    ++files;
    for (const std::string& scale : suite_scales()) {
      SCOPED_TRACE(file + " at " + scale);
      Suite s;
      ASSERT_NO_THROW(s = load_suite(file, scale));
      if (scale != "paper") continue;
      for (const SuiteRun& r : s.runs) {
        const auto& m = r.parsed.model;
        EXPECT_GE(m.depth, 6) << r.name;
        EXPECT_GE(m.context, 128) << r.name;
        EXPECT_LE(m.context, 512) << r.name;
        EXPECT_LE(m.width, 1024) << r.name;
        EXPECT_EQ(r.parsed.train.corpus, "linux-docs") << r.name;
        EXPECT_EQ(r.parsed.train.precision, core::Precision::Bf16) << r.name;
      }
    }
  }
  EXPECT_EQ(files, 12);
}

// TH Table 2's rows with d_k != d_v pass the loader and the attention spec (talking-heads allows them).
TEST(SuiteFiles, ThHeadDimsKeepsDkDifferentFromDv) {
  const Suite s = load_suite(std::string(HEADROOM_SOURCE_DIR) + "/assets/suites/th_head_dims.toml", "full");
  int unequal = 0;
  for (const SuiteRun& r : s.runs) {
    const auto& a = r.parsed.model.attention;
    if (a.d_k != a.d_v) {
      ++unequal;
      EXPECT_EQ(a.d_k * a.heads_k, 128) << r.name;
      EXPECT_EQ(a.d_v * a.heads_v, 128) << r.name;
    }
  }
  EXPECT_EQ(unequal, 4);  // 6-24-24 and 24-24-6, two seeds each
}

}  // namespace
}  // namespace headroom::worker

TEST(SuiteLoader, AShippedSuiteIsFoundByNameAndAnUnknownNameSaysWhereItLooked) {
  // From the build tree, shipped data is the source tree's assets/ (installed: PREFIX/share/headroom).
  const std::string shipped = std::string(HEADROOM_SOURCE_DIR) + "/assets/suites/lrb_heads.toml";
  EXPECT_TRUE(std::filesystem::equivalent(headroom::worker::resolve_suite_path("lrb_heads"), shipped));
  EXPECT_TRUE(std::filesystem::equivalent(headroom::worker::resolve_suite_path("lrb_heads.toml"), shipped));
  EXPECT_EQ(headroom::worker::load_suite("lrb_heads", "quick").name,
            headroom::worker::load_suite(shipped, "quick").name);
  // A path is taken as given, never looked up.
  EXPECT_EQ(headroom::worker::resolve_suite_path("./lrb_heads"), "./lrb_heads");
  try {
    headroom::worker::load_suite("no_such_suite", "quick");
    ADD_FAILURE() << "an unknown suite name loaded";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_suite: cannot open the suite file"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/suites (e.g. lrb_heads)"), std::string::npos) << e.what();
  }
}

namespace headroom::worker {
namespace {

// Debian's toml++ 3.3 reaches __builtin_unreachable() on some non-ASCII code points outside a string
// (found by fuzzing lesson files, which share the parser): the suite loader parses a shielded copy,
// so such a file is one clear error, and non-ASCII text inside strings comes through unchanged.
TEST(SuiteLoader, NonAsciiOutsideStringsIsAnErrorAndInsideStringsIsKept) {
  TempSuite header(std::string(kBase) + "[\"grid\u00e9\" ]\n");  // é in a quoted table header
  EXPECT_NE(message_of(header.path(), "full").find(header.path()), std::string::npos);
  TempSuite stray(std::string(kBase) + "\u03c3 = 1\n");  // σ where a key should be
  const std::string msg = message_of(stray.path(), "full");
  EXPECT_NE(msg.find("not valid TOML"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("\xf3"), std::string::npos) << "a stand-in leaked into the message: " << msg;

  TempSuite greek(std::string(kBase) + R"(
[[grid]]
label = "σ-é"
"model.width" = [64]
)");
  const Suite s = load_suite(greek.path(), "full");
  ASSERT_EQ(s.runs.size(), 1u);
  EXPECT_NE(s.runs[0].name.find("σ-é"), std::string::npos) << s.runs[0].name;
}

}  // namespace
}  // namespace headroom::worker
