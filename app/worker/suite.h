// Suites: TOML files in assets/suites/ that reproduce one table or figure of a paper as a grid
// of runs, at a `quick` scale (tests, minutes) and a `full` scale (overnight on 2 cores).
//
//   [suite]
//   name = "lrb-heads"                  # unique in a DB; runs are named <name>/<label>/<key>=<value>...
//   reproduces = "LRB Fig. 1 / 3a: ..." # the table or figure
//   paper = "LRB"
//   full_estimate = "about 7 h on 2 cores"
//   reference = "lrb_fig1.csv"          # optional: assets/reference/ data shown beside ours
//   x = "model.attention.heads"         # optional: what the explorer plots on x
//
//   [base.model] ... [base.train] ...   # a run config (see run_config.h)
//   [scale.quick]                       # dotted-path overrides for every run at this scale
//   "train.steps" = 40
//   [scale.full]
//   "train.steps" = 4000
//
//   [[grid]]                            # the cartesian product of its lists, one run each
//   label = "standard"
//   "model.attention.kind" = "multi-head"
//   "model.attention.heads" = { quick = [2, 8], full = [1, 2, 4, 8, 16, 32] }  # or a plain list
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/worker/run_config.h"

namespace headroom::worker {

struct SuiteRun {
  std::string name;
  nlohmann::json config;  // the full run config (validated: `parsed` is it)
  RunConfig parsed;
  int64_t shard_key = 0;  // position in the suite
};

struct Suite {
  std::string path;
  std::string source;      // the file's text, stored with the suite in the DB
  std::string name, reproduces, paper, full_estimate, reference, x;
  std::string scale;
  std::vector<SuiteRun> runs;
};

// Reads and expands a suite at a scale ("quick" or "full"). Throws std::invalid_argument with one
// message naming the file and the field (TOML syntax errors with their line and column).
Suite load_suite(const std::string& path, const std::string& scale);

}  // namespace headroom::worker
