// Paired comparisons of stored runs, seed by seed: the explorer's Compare tab. Two configurations
// A and B, each pooled over its seeds (every run in the DB whose config is the same but for
// train.seed, whichever suite it came from, as the write-ups in docs/results/ pool a suite and its
// seed check), their final validation losses paired by seed, and A - B per seed, its mean, range
// and spread, and in how many seeds A is lower: what `scripts/suite_report.py --compare` prints,
// in the GUI. Window-free, unit-tested in tests/explorer.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "app/gui/explorer/curves.h"
#include "app/gui/explorer/run_rows.h"

namespace headroom::explorer {

// The key shared by runs that are one experiment but for their seed: the whole config without
// train.seed and train.device. The suite is left out, so a seed check's runs join the suite's;
// the device too, as the write-ups pool a CPU and a GPU run of one config (the same init and
// batches for a seed, rounding apart); the precision stays in (bf16 and fp32 runs stay apart).
std::string seed_pool_key(const FlatConfig& config);

struct SeedPool {
  std::string key;                  // seed_pool_key
  std::vector<const RunRow*> runs;  // every run of `all` with the key, by seed, then id
  std::vector<std::string> suites;  // their suites, each once, in the runs' order
  const RunRow* chosen = nullptr;   // the first of `chosen` that made the pool (name it by this one)
};

// One pool for each configuration among `chosen` (in the order they first appear there), each
// holding every run of `all` that shares its key, chosen or not. Runs without a parsed config
// (their config_json was not an object) pool with nothing: they are left out.
std::vector<SeedPool> seed_pools(const std::vector<const RunRow*>& chosen, const std::vector<RunRow>& all);

struct SeedPair {
  std::int64_t seed = 0;
  const RunRow* a = nullptr;
  const RunRow* b = nullptr;
  double a_loss = kNaN, b_loss = kNaN, difference = kNaN;  // difference = a_loss - b_loss
};

struct PairedComparison {
  std::vector<SeedPair> pairs;               // seeds finished in both pools, ascending
  std::vector<std::int64_t> only_a, only_b;  // seeds finished in one pool only, ascending
  std::size_t unfinished = 0;                // runs of either pool not done, or done without a val_loss
  std::size_t repeated = 0;                  // finished runs of a seed their pool already had (its lowest id pairs)
  double mean = kNaN, min = kNaN, max = kNaN;
  double sd = kNaN;         // sample standard deviation of the differences (NaN below 2 pairs)
  double se = kNaN;         // standard error of their mean, sd / sqrt(pairs)
  std::size_t a_lower = 0;  // pairs where A's loss is lower (difference < 0)
};

// Final validation loss (the last logged val_loss of each finished run) of A and B, paired by
// train.seed.
PairedComparison compare_final_val_loss(const SeedPool& a, const SeedPool& b);

// Several paired comparisons read as cells of one effect (one change at several contexts, say):
// each weighed by 1 / se^2 into a pooled mean with standard error 1 / sqrt(sum of weights), and
// Cochran's Q = sum of weight * (cell mean - pooled mean)^2, chi-square with cells - 1 degrees of
// freedom if the cells share one effect: a small p says they differ by more than their seeds'
// noise. What `scripts/suite_report.py --pool` prints. Each cell's standard error comes from its
// own few seeds, so p is approximate.
struct CellDifference {
  std::size_t i = 0, j = 0;  // cells i < j
  double difference = kNaN;  // cell i's mean - cell j's
  double se = kNaN;          // sqrt(se_i^2 + se_j^2)
};
struct PooledComparisons {
  std::vector<double> weights;  // each cell's share of the pooled mean (summing to 1)
  std::size_t seeds = 0;        // pairs over all cells
  double mean = kNaN, se = kNaN;
  double q = kNaN, p = kNaN;
  int df = 0;
  std::string problem;  // why nothing pooled ("" when mean is set): fewer than two cells, or a cell without a spread
  std::vector<CellDifference> between;  // every two cells, (0, 1), (0, 2), ... (suite_report's "between cells")
};
PooledComparisons pool_comparisons(const std::vector<PairedComparison>& cells);

// The cell farthest from cell i in standard errors of their difference (|difference| / se), as
// cell i minus it: nullptr when nothing pooled.
const CellDifference* farthest_from(const PooledComparisons& pooled, std::size_t i);

// P(X > q) for X chi-square with df >= 1 degrees of freedom (closed form for whole df).
double chi_square_survival(double q, int df);

// A p-value as the write-ups print it: "0.17" from 0.01 up, "0.0034" below (two decimals would
// read 0.00), "< 0.0001" below that; "-" for NaN. suite_report.py's fmt_p prints the same.
std::string p_value_text(double p);

// The two pools' parameter counts, as the papers' "at equal parameters" asks: "A: 471,808
// parameters, B: 469,760 (A +2,048, +0.44%)", "A and B: 469,760 parameters each", and where a
// pool's runs differ in size (they should not), its range "465,664-471,808". "" when a pool has
// no run or a run has no count (0: an older DB).
std::string parameter_difference(const SeedPool& a, const SeedPool& b);

// CSV of the pairs, header seed,a_run,b_run,a_final_val_loss,b_final_val_loss,difference, one
// line per pair in seed order (RFC 4180, numbers that read back exactly: curves.h's csv_field and
// csv_number).
void write_pairs_csv(std::ostream& out, const PairedComparison& paired);

// CSV of pinned comparisons pooled, header row,comparison,seeds,mean,sd,standard_error,weight,q,df,p:
// one line per comparison (row 1, 2, ... with its label), then "pooled" with the pooled seeds,
// mean, standard error, weight 1 and Cochran's Q, its degrees of freedom and p (empty on the
// other lines, and every pooled field but seeds when nothing pooled). Same conventions as above.
// Throws std::invalid_argument when labels and cells differ in length.
void write_pinned_csv(std::ostream& out, const std::vector<std::string>& labels,
                      const std::vector<PairedComparison>& cells, const PooledComparisons& pooled);

// "-0.0100": a loss difference as the write-ups print it (4 decimals, sign always shown).
std::string signed_loss(double difference);

// a - b at each of a's finite points inside the x range of b's finite points, b linearly
// interpolated there between its finite neighbours. The result's run_id is a's; y_min = y_max = y.
Curve difference_curve(const Curve& a, const Curve& b);

}  // namespace headroom::explorer
