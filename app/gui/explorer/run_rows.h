// The explorer's run table: one flat row per stored run, with the config fields the papers talk
// about (d, h, d_p, r, L, V, n) pulled out of the run's JSON config, and its latest metrics.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/gui/explorer/flat_config.h"
#include "experiments_db/run_records.h"
#include "experiments_db/run_status.h"
#include "experiments_db/run_store.h"

namespace headroom::explorer {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct RunRow {
  std::int64_t id = 0;
  std::string suite, name;
  std::string label;  // the suite's [[grid]] label parsed from "<suite>/<label>/<key>=<value>,..."; "" if none
  std::string kind;   // attention kind
  int d = 0;          // width d_model
  int h = 0, h_k = 0, h_v = 0;
  int d_p = 0;  // d_k, LRB's head size
  int d_v = 0;
  int r = 0;                // embedding rank; = d when the config says 0 (full rank, unfactorised)
  bool factorised = false;  // the embedding is V x r times r x d (model.embed_rank > 0)
  int L = 0;                // depth
  int V = 0;                // vocabulary
  int n = 0;                // context
  std::string tokenizer, corpus;
  // Where it trains or last trained ("cpu", "cuda:0"; "" while queued and never claimed: the
  // worker that claims it chooses) and in which arithmetic ("fp32", "tf32", "bf16"). Configs of
  // versions before devices existed say neither: they trained on the CPU in fp32.
  std::string device, precision;
  std::int64_t seed = 0;
  std::int64_t attempts = 0;  // claims so far; a claim may rewrite train.device in the config
  std::int64_t weights = 0;   // stored weight snapshots (the Run tab opens them in the lab)
  db::RunStatus status = db::RunStatus::Queued;
  std::int64_t step = 0, steps_total = 0, params = 0;
  double best_val_loss = kNaN, last_val_loss = kNaN, last_train_loss = kNaN;
  // Tokens per second of training steps: the mean over the run where its clock was logged
  // (load_run_rows: tokens trained / seconds in steps at the last val_loss), else the rate of the
  // last logged window (make_run_row, from the metric tokens_per_s).
  double tokens_per_s = kNaN;
  std::string error_text;  // why it failed (empty unless status is failed)
  // A running run's worker ("<host>:<pid>") and last heartbeat (Unix seconds): whether one still
  // trains it (db::check_worker). Empty / unset for runs not running.
  std::string worker;
  std::optional<double> heartbeat_at;
  FlatConfig config;      // config_json flattened (empty if it was not a JSON object)
  double created_at = 0;  // with id and name: tells a reload that a row is the same run
  // natural_sort_key of suite, name and kind: sorting 100,000 rows compares these bytewise.
  std::string suite_key, name_key, kind_key;
};

// The explorer's toolbar line, "15 runs, 13 done, 0 running, 2 interrupted": `running` counts
// the rows the DB says are running, of which `interrupted` have lost their worker and `stalled`
// have not heard from theirs (db::check_worker); those are named apart, not as running.
std::string run_counts_text(std::size_t runs, std::int64_t done, std::int64_t running, std::size_t interrupted,
                            std::size_t stalled);

// One row from a stored run, its latest metric values (RunStore::latest_metrics), its lowest
// val_loss (NaN when none) and its number of stored weight snapshots. Missing config fields stay
// 0 / "".
RunRow make_run_row(db::RunRecord rec, const std::map<std::string, double>& latest, double best_val_loss,
                    std::int64_t weights = 0);

// Rows of every run in id order, from RunStore::list_runs, metric_summaries("val_loss") and
// artifact_counts("weights"). The rows of an earlier load (`previous`, in id order) lend what
// never changes for a run (its parsed config and the keys made from it), so a reload while a
// worker writes parses only the configs of runs it has not seen: three scans of small columns,
// whatever the number of runs.
std::vector<RunRow> load_run_rows(db::RunStore& store, const std::vector<RunRow>& previous = {});

// The first load (nothing to reuse) split by id range over `parts` threads, each part but the
// first read through its own read-only connection to `db_path` (a connection serves one thread).
// The same rows as load_run_rows(store) when nobody writes meanwhile; a run committed between
// the parts' reads shows its state from either moment, and the next reload settles it.
std::vector<RunRow> load_run_rows_parallel(db::RunStore& store, const std::string& db_path, int parts);

// Rows of the runs with first_id <= id <= last_id, in id order: through `store`, or split by id
// range over `parts` threads that each open their own read-only connection to `db_path` (so it
// may run on any thread). The loader reads the newest runs first with the one, the rest with the
// other.
std::vector<RunRow> load_run_rows_between(db::RunStore& store, std::int64_t first_id, std::int64_t last_id);
std::vector<RunRow> load_run_rows_between(const std::string& db_path, std::int64_t first_id, std::int64_t last_id,
                                          int parts);

// The distinct tokenizers of the rows, in first-seen order ("" left out).
std::vector<std::string> tokenizers_of(const std::vector<const RunRow*>& rows);

// "" when the rows' `metric` values share a unit; else one paragraph saying why not: a loss
// (val_loss, train_loss, best_val_loss) is per token of each run's tokenizer, per byte for bytes,
// and runs of several tokenizers compare only within one.
std::string loss_units_warning(const std::vector<const RunRow*>& rows, std::string_view metric);

// The table's h and d_p cells: "8" where a run's head counts (or head sizes) agree, else TH's
// "h_k-h-h_v" ("6-24-6", TH Table 2) and "d_k/d_v" ("128/32"). Counts a config leaves out (0: an
// older config) count as equal to h (to d_k).
std::string head_counts_text(const RunRow& row);
std::string head_size_text(const RunRow& row);
// A count with thousands separators: 471808 -> "471,808", -2048 -> "-2,048" (parameter counts in
// figure notes and the Compare tab).
std::string thousands(std::int64_t v);

// Their tooltips: what each count (size) of the split is, "" where the cell shows one number.
std::string head_counts_tooltip(const RunRow& row);
std::string head_size_tooltip(const RunRow& row);

// The grid label of a run name: "th-heads/talking-heads/heads=8" of suite "th-heads" ->
// "talking-heads". "" when the name is not "<suite>/<label>/<rest>".
std::string label_from_name(std::string_view suite, std::string_view name);

// A config value as text: "model.attention.heads" -> "8", "train.lr" -> "0.003",
// "model.attention.causal" -> "true", strings without quotes. "" if the key is absent.
std::string config_value(const FlatConfig& config, std::string_view dotted_key);

enum class RunColumn {
  Suite,
  Name,
  Kind,
  D,
  H,
  DP,
  R,
  L,
  V,
  Device,
  Status,
  Step,
  BestVal,
  Params,
  TokensPerS,
  Weights
};

// Stable sort by one column. Text columns compare naturally ("heads=8" before "heads=16"), the
// status by its life cycle (queued, running, done, failed, cancelled); NaN goes last both ways.
void sort_rows(std::vector<const RunRow*>& rows, RunColumn column, bool ascending);

// The run the lab opens for "Open a trained run": a finished run with stored weights, the
// talking-heads run with the most heads first (it shows most: maps per head, P_l / P_w), else the
// run with the most heads, ties to the lowest id. nullptr when no run has weights.
const RunRow* trained_example(const std::vector<RunRow>& rows);

// A finished run with stored weights whose config is `row`'s, key for key and value for value
// (model, training, seed, device and precision): the same model, trained again in another suite.
// A results export stores such weights once (export --results-only), so the Run tab offers the
// twin's weights for a run that has none. nullptr when `row` has weights itself or no twin does;
// the lowest id when several do. Compares configs only of the rows with weights.
const RunRow* weights_twin(const std::vector<RunRow>& rows, const RunRow& row);

// Natural, case-insensitive order: digit runs compare as numbers. Negative, zero or positive.
int natural_compare(std::string_view a, std::string_view b);
// A string whose bytewise order is natural_compare's order: letters lower-cased, and each digit
// run as '0', its length without leading zeros (one byte), then those digits. Computed once per
// row, it makes a sort by name far cheaper than calling natural_compare n log n times.
std::string natural_sort_key(std::string_view text);

}  // namespace headroom::explorer
