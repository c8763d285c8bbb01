// The explorer's suite catalog (app/gui/explorer/suite_catalog.h) reads suite files without the
// worker; here it is held to the worker's loader on every suite Headroom ships and every suite kept
// beside the write-ups, at every scale: the same strings, and the same number of runs wherever the
// loader expands the suite (no count where it refuses a scale for want of values).
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/gui/explorer/suite_catalog.h"
#include "app/worker/suite.h"

namespace headroom::explorer {
namespace {

std::vector<std::string> suite_files() {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  const fs::path root = HEADROOM_SOURCE_DIR;
  for (const auto& e : fs::directory_iterator(root / "assets/suites"))
    if (e.path().extension() == ".toml") files.push_back(e.path().string());
  for (const auto& e : fs::recursive_directory_iterator(root / "docs/results"))
    if (e.path().extension() == ".toml") files.push_back(e.path().string());
  return files;
}

TEST(SuiteCatalogVsLoader, EveryKeptSuiteCountsTheRunsTheWorkerMakes) {
  const auto files = suite_files();
  ASSERT_GE(files.size(), 12u);
  int compared = 0;
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const auto infos = list_suite_infos(std::filesystem::path(file).parent_path().string());
    const SuiteInfo* info = nullptr;
    for (const SuiteInfo& i : infos)
      if (i.path == file) info = &i;
    ASSERT_NE(info, nullptr);
    ASSERT_EQ(info->error, "");
    for (size_t s = 0; s < kSuiteScales.size(); ++s) {
      SCOPED_TRACE(kSuiteScales[s]);
      try {
        const worker::Suite suite = worker::load_suite(file, kSuiteScales[s]);
        EXPECT_EQ(info->runs[s], static_cast<int>(suite.runs.size()));
        EXPECT_EQ(info->name, suite.name);
        EXPECT_EQ(info->reproduces, suite.reproduces);
        EXPECT_EQ(info->paper, suite.paper);
        EXPECT_EQ(info->full_estimate, suite.full_estimate);
        ++compared;
      } catch (const std::invalid_argument& e) {
        EXPECT_EQ(info->runs[s], -1) << "the loader refuses it: " << e.what();
        EXPECT_NE(std::string(e.what()).find("has no"), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GE(compared, 36);  // 12 shipped suites at quick, full and paper at least
}

}  // namespace
}  // namespace headroom::explorer
