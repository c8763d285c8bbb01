// The suites Headroom ships (io::share_dir()/suites/*.toml) as the explorer offers them: what each
// reproduces, and how many runs each scale makes, read from the files without the worker (the
// explorer links no LibTorch). The worker's load_suite stays the judge of a file: Enqueue runs
// `headroom-worker enqueue`, which validates every run; a file this reader cannot read is listed
// with the reason. tests/worker/suite_catalog_test.cpp holds the counts to load_suite's.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace headroom::explorer {

inline constexpr std::array<const char*, 3> kSuiteScales = {"quick", "full", "paper"};

struct SuiteInfo {
  std::string path;
  std::string stem;  // the file name without ".toml": what the combo lists and `enqueue` takes
  std::string name, paper, reproduces, full_estimate;  // the [suite] table's strings
  // Runs at quick, full and paper (kSuiteScales' order); -1 where the file has no values for the
  // scale (no [scale.paper], or a grid's per-scale table without that scale).
  std::array<int, 3> runs{-1, -1, -1};
  std::string error;  // why the file cannot be read ("" when it can); then only path and stem are set
};

// A suite file's text; `path` names it in the error.
SuiteInfo parse_suite_info(const std::string& text, const std::string& path);
// Every *.toml in `dir`, by file name; none (and no error) when the folder is missing.
std::vector<SuiteInfo> list_suite_infos(const std::string& dir);
// The estimate's headline: "about 5-6.5 h on 2 cores, 1 worker (measured ...)" without its
// parenthesis of how it was measured.
std::string estimate_headline(const std::string& full_estimate);

}  // namespace headroom::explorer
