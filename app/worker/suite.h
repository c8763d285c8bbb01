// Suites: TOML files in assets/suites/ that reproduce one table or figure of a paper as a grid
// of runs, at a `quick` scale (tests, seconds), a `full` scale (overnight on 2 cores) and, where
// the file has one, a `paper` scale (the papers' regime: depth >= 6, widths 256-1024, n 128-512).
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
//   [scale.paper]                       # optional; --scale paper on a suite without it is an error
//   "model.depth" = 6
//
//   [[grid]]                            # the cartesian product of its lists, one run each
//   label = "standard"
//   "model.attention.kind" = "multi-head"
//   "model.attention.heads" = { quick = [2, 8], full = [1, 2, 4, 8, 16, 32] }  # or a plain list
//
//   [[match]]                           # runs the file compares at equal parameters (all of them:
//   tolerance = 0.02                    # embeddings, blocks, head), max/min - 1 <= tolerance;
//   full = [["shallow/width=44", "deep/width=32"]]   # checked when loaded (per scale; names
//                                                    # without the suite name)
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

// A group of runs the suite says are compared at equal parameters, at the loaded scale.
struct ParamMatch {
  std::vector<std::string> runs;  // full run names
  std::vector<int64_t> params;    // core::parameter_count of each, in the same order
  double tolerance = 0;           // allowed max/min - 1
  std::string note;
};

struct Suite {
  std::string path;
  std::string source;  // the file's text, stored with the suite in the DB
  std::string name, reproduces, paper, full_estimate, reference, x;
  std::string scale;
  std::vector<SuiteRun> runs;
  std::vector<ParamMatch> matches;  // [[match]] groups at this scale (each already checked)
};

// The most runs one suite may expand to (its grids' lists multiplied out, all grids together).
inline constexpr size_t kMaxSuiteRuns = 10000;

// "quick", "full", "paper".
const std::vector<std::string>& suite_scales();

// Reads and expands a suite at a scale ("quick", "full" or "paper"). Throws std::invalid_argument
// with one message naming the file and the field (TOML syntax errors with their line and column);
// at "paper", a suite without [scale.paper] or a grid without paper values gets one message that
// lists every grid and key that lacks one. A [[match]] group whose parameter counts are further
// apart than its tolerance is an error too.
// `path` may also be the name of a shipped suite ("lrb_heads" or "lrb_heads.toml"), looked up in
// io::share_dir()/suites when no such file exists here.
Suite load_suite(const std::string& path, const std::string& scale);
// The same for a suite's text; `path` names it in messages (the fuzz target feeds it any bytes).
Suite parse_suite(const std::string& text, const std::string& path, const std::string& scale);
// What load_suite reads for `given`: the file itself, else the shipped suite of that name.
std::string resolve_suite_path(const std::string& given);

}  // namespace headroom::worker
