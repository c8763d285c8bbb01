// The explorer's filter box: a one-line query over the run table, e.g.
//   h>=8 kind=talking-heads status!=failed val<2.5 model.attention.causal=true
//
// Terms are separated by spaces and all must hold. A term is `key OP value` with OP one of
//   =  !=  <  <=  >  >=  ~ (contains)
// or a bare word, which matches a case-insensitive substring of the run's name or suite.
// Keys (case-insensitive): suite name label kind tokenizer corpus status device precision (text);
// d h hk hv dp dk dv r L V n seed step params val tok_s weights (numbers; val is the best val
// loss, dp and dk are both d_k, weights counts the stored weight snapshots: weights>0 lists the
// runs the lab can open); or any dotted config key starting with model. or train.
//
// Comparison: numeric when both sides parse as numbers; otherwise text, where only =, != and ~
// apply. Text `=` / `!=` is a whole-value, case-insensitive match (`kind=talking` does not match
// "talking-heads"; write `kind~talking` for a substring). A run that lacks the value (no val loss
// yet, a config key it does not have) fails the term, `!=` included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/gui/explorer/run_rows.h"

namespace headroom::explorer {

enum class FilterOp { Eq, Ne, Lt, Le, Gt, Ge, Contains };

struct FilterTerm {
  std::string key;  // "" for a bare word; lower-cased unless a dotted config key
  FilterOp op = FilterOp::Contains;
  std::string value;
  std::optional<double> number;  // the value as a number, when it is one
};

struct RunFilter {
  std::vector<FilterTerm> terms;  // empty: every run matches
};

// nullopt with *error (when given) naming the bad term and what would be right.
std::optional<RunFilter> parse_run_filter(std::string_view text, std::string* error);

bool matches(const RunFilter& filter, const RunRow& row);

// What the explorer selects when nothing names runs: the newest suite's newest `count` runs among
// those `filter` keeps (no filter: every run), so that a scene's or lesson's filter and the curves
// it opens on agree. Runs that have trained (step > 0) are preferred: a DB a worker is filling
// opens on the running and finished runs of the newest suite that has any, not on the queued runs
// behind them, which have no curves yet; only where no kept run has trained are queued ones
// chosen. `rows` oldest first, as the loader gives them; ids, newest first.
std::vector<std::int64_t> newest_suite_runs(const std::vector<RunRow>& rows, const std::optional<RunFilter>& filter,
                                            std::size_t count);

}  // namespace headroom::explorer
