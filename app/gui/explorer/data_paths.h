// Where the explorer keeps the user's default experiments database.
#pragma once

#include <string>

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

}  // namespace headroom::explorer
