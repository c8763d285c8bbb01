#include "app/gui/explorer/suite_catalog.h"

#include <gtest/gtest.h>

#include <string>

namespace headroom::explorer {
namespace {

constexpr const char* kHead = R"toml([suite]
name = "toy"
reproduces = "Toy Fig. 1: loss vs heads"
paper = "LRB"
full_estimate = "about 2 h on 2 cores (measured: 1.0 s a step x 7200 steps)"
)toml";

// Grid values multiply: a plain list counts at every scale, a per-scale table with its scale's list,
// a single value once; grids add up.
TEST(SuiteCatalog, CountsEachScalesRunsAsTheGridsMultiply) {
  const std::string text = std::string(kHead) + R"(
[scale.paper]
"train.steps" = 10

[[grid]]
label = "a"
"train.seed" = [0, 1]
"model.attention.heads" = { quick = [2], full = [1, 2, 4], paper = [2, 4, 8, 16] }
"model.width" = 64

[[grid]]
label = "b"
"model.width" = { quick = 16, full = 32, paper = 64 }
)";
  const SuiteInfo info = parse_suite_info(text, "toy.toml");
  ASSERT_EQ(info.error, "");
  EXPECT_EQ(info.stem, "toy");
  EXPECT_EQ(info.name, "toy");
  EXPECT_EQ(info.paper, "LRB");
  EXPECT_EQ(info.reproduces, "Toy Fig. 1: loss vs heads");
  EXPECT_EQ(info.runs[0], 2 * 1 + 1);
  EXPECT_EQ(info.runs[1], 2 * 3 + 1);
  EXPECT_EQ(info.runs[2], 2 * 4 + 1);
  EXPECT_EQ(estimate_headline(info.full_estimate), "about 2 h on 2 cores");
  EXPECT_EQ(estimate_headline("about 2 h"), "about 2 h");
}

// The paper scale needs a [scale.paper] table and a paper value in every per-scale grid value (as
// the worker's loader does); quick and full need only their values.
TEST(SuiteCatalog, AScaleWithoutValuesHasNoRunCount) {
  const std::string grid = R"(
[[grid]]
label = "a"
"model.width" = { quick = [16], full = [32, 64] }
)";
  SuiteInfo info = parse_suite_info(std::string(kHead) + grid, "toy.toml");
  ASSERT_EQ(info.error, "");
  EXPECT_EQ(info.runs[0], 1);
  EXPECT_EQ(info.runs[1], 2);
  EXPECT_EQ(info.runs[2], -1) << "no [scale.paper]";
  info = parse_suite_info(std::string(kHead) + "[scale.paper]\n\"train.steps\" = 1\n" + grid, "toy.toml");
  EXPECT_EQ(info.runs[2], -1) << "a per-scale value without paper";
  info = parse_suite_info(std::string(kHead) + "[[grid]]\nlabel = \"a\"\n\"model.width\" = []\n", "toy.toml");
  EXPECT_EQ(info.runs[0], -1) << "an empty list makes no runs: the worker refuses it";
}

// A file that cannot be read is listed with the reason, never crashes the explorer: TOML errors with
// their line, a code point that would send toml++ 3.3 into undefined behaviour among them, and a
// file without the tables a suite needs. Non-ASCII text in strings reads back as written.
TEST(SuiteCatalog, AnUnreadableFileIsListedWithTheReason) {
  SuiteInfo info = parse_suite_info("[suite\nname = 1\n", "dir/broken.toml");
  EXPECT_EQ(info.stem, "broken");
  EXPECT_EQ(info.error.rfind("dir/broken.toml:1:", 0), 0u) << info.error;
  EXPECT_NE(info.error.find("not valid TOML"), std::string::npos) << info.error;
  EXPECT_EQ(info.runs[0], -1);

  info = parse_suite_info(std::string(kHead) + "\u03c3 = 1\n", "sigma.toml");
  EXPECT_NE(info.error.find("not valid TOML"), std::string::npos) << info.error;
  EXPECT_EQ(info.error.find("\xf3"), std::string::npos) << "a stand-in leaked into the message: " << info.error;

  info = parse_suite_info("[base.model]\nwidth = 1\n", "nosuite.toml");
  EXPECT_EQ(info.error, "nosuite.toml: no [suite] table");
  info = parse_suite_info(kHead, "nogrid.toml");
  EXPECT_EQ(info.error, "nogrid.toml: no [[grid]] tables");

  info = parse_suite_info("[suite]\nname = \"t\"\nreproduces = \"\u03c3-\u00e9 Fig. 2\"\n[[grid]]\nlabel = \"a\"\n",
                          "greek.toml");
  ASSERT_EQ(info.error, "");
  EXPECT_EQ(info.reproduces, "\u03c3-\u00e9 Fig. 2");
  EXPECT_EQ(info.runs[0], 1);
}

// The shipped suites, as the explorer lists them: every file, in file-name order, each readable and
// saying what it reproduces, with runs at quick and full.
TEST(SuiteCatalog, ListsTheShippedSuites) {
  const auto infos = list_suite_infos(std::string(HEADROOM_SOURCE_DIR) + "/assets/suites");
  ASSERT_GE(infos.size(), 12u);
  for (size_t i = 0; i < infos.size(); ++i) {
    SCOPED_TRACE(infos[i].path);
    EXPECT_EQ(infos[i].error, "");
    EXPECT_FALSE(infos[i].reproduces.empty());
    EXPECT_GT(infos[i].runs[0], 0);
    EXPECT_GT(infos[i].runs[1], 0);
    if (i > 0) {
      EXPECT_LT(infos[i - 1].stem, infos[i].stem);
    }
  }
  EXPECT_TRUE(list_suite_infos("/nonexistent/suites").empty());
}

}  // namespace
}  // namespace headroom::explorer
