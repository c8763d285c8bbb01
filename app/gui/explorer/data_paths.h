// Where the explorer keeps the user's default experiments database.
#pragma once

#include <string>
#include <vector>

namespace headroom::explorer {

// $XDG_DATA_HOME/headroom, else $HOME/.local/share/headroom; "" when neither is set.
// Pure: takes the environment values (nullptr = unset) so it can be tested.
std::string data_dir_from(const char* xdg_data_home, const char* home);

// <data dir>/experiments.sqlite with the real environment ("" when no home is known).
std::string default_db_path();

// The results database shipped with Headroom (<share dir>/results/headroom_results.sqlite: the
// papers' suites run at full scale, exported with `headroom-worker export --results-only`); "" when
// this installation has none (looked up once per process). A scene or lesson names it "@results".
inline constexpr const char* kResultsDb = "@results";
inline constexpr const char* kResultsFile = "headroom_results.sqlite";
std::string results_db_path();

// Paper-scale results (issue 12): one results-only export per suite, trained on a GPU at the
// suite's `paper` scale, shipped as <share dir>/results/paper/<suite>_gpu.sqlite. Their run names
// repeat the full-scale ones, so they stay files of their own. A scene or lesson names one
// "@paper/<suite>".
inline constexpr const char* kPaperDbPrefix = "@paper/";
struct PaperResult {
  std::string suite;  // the file's stem without "_gpu": the suite file's name, e.g. th_extreme_heads
  std::string path;
};
// The exports in `dir` (files named <suite>_gpu.sqlite), by suite name. Pure but for the listing.
std::vector<PaperResult> paper_results_in(const std::string& dir);
// paper_results_in(<share dir>/results/paper), looked up once per process.
const std::vector<PaperResult>& paper_results();

// Whether `path` is one of the databases above (the explorer trains nothing into them).
bool is_shipped_db(const std::string& path);

// A database name as a scene, a lesson or --db gives it: "@results" and "@paper/<suite>" become
// the shipped files' paths, anything else is a path as it is. "" with *error set when a shipped
// name names nothing this installation has (error may be null).
std::string resolve_db_name(const std::string& name, std::string* error);

}  // namespace headroom::explorer
