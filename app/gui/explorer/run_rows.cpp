#include "app/gui/explorer/run_rows.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <limits>
#include <thread>

#include "experiments_db/connection.h"

namespace headroom::explorer {
namespace {

std::int64_t int_at(const FlatConfig& config, std::string_view dotted_key) {
  const std::string_view text = config.value(dotted_key);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : 0;
}

int small_int_at(const FlatConfig& config, std::string_view dotted_key) {
  return static_cast<int>(int_at(config, dotted_key));
}

double metric_or_nan(const std::map<std::string, double>& latest, const std::string& name) {
  const auto it = latest.find(name);
  return it == latest.end() ? kNaN : it->second;
}

// Three-way comparisons used by sort_rows; NaN handling is done by the caller.
template <typename T>
int compare_values(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool is_nan_column(const RunRow& row, RunColumn column) {
  if (column == RunColumn::BestVal) return std::isnan(row.best_val_loss);
  if (column == RunColumn::TokensPerS) return std::isnan(row.tokens_per_s);
  return false;
}

int compare_by(const RunRow& a, const RunRow& b, RunColumn column) {
  switch (column) {
    case RunColumn::Suite: return a.suite_key.compare(b.suite_key);
    case RunColumn::Name: return a.name_key.compare(b.name_key);
    case RunColumn::Kind: return a.kind_key.compare(b.kind_key);
    case RunColumn::D: return compare_values(a.d, b.d);
    case RunColumn::H: return compare_values(a.h, b.h);
    case RunColumn::DP: return compare_values(a.d_p, b.d_p);
    case RunColumn::R: return compare_values(a.r, b.r);
    case RunColumn::L: return compare_values(a.L, b.L);
    case RunColumn::V: return compare_values(a.V, b.V);
    case RunColumn::Device: {
      const int by_device = natural_compare(a.device, b.device);
      return by_device != 0 ? by_device : a.precision.compare(b.precision);
    }
    case RunColumn::Status: return compare_values(static_cast<int>(a.status), static_cast<int>(b.status));
    case RunColumn::Step: return compare_values(a.step, b.step);
    case RunColumn::BestVal: return compare_values(a.best_val_loss, b.best_val_loss);
    case RunColumn::Params: return compare_values(a.params, b.params);
    case RunColumn::TokensPerS: return compare_values(a.tokens_per_s, b.tokens_per_s);
    case RunColumn::Weights: return compare_values(a.weights, b.weights);
  }
  return 0;
}

// h_k and h_v as the table reads them: a config without them (0) has h of each.
struct HeadCounts {
  int h_k, h, h_v;
  bool split() const { return h_k != h || h_v != h; }
};
HeadCounts head_counts(const RunRow& row) {
  return {row.h_k > 0 ? row.h_k : row.h, row.h, row.h_v > 0 ? row.h_v : row.h};
}
bool sizes_split(const RunRow& row) { return row.d_v > 0 && row.d_v != row.d_p; }

}  // namespace

std::vector<std::string> tokenizers_of(const std::vector<const RunRow*>& rows) {
  std::vector<std::string> out;
  for (const RunRow* r : rows) {
    if (!r->tokenizer.empty() && std::find(out.begin(), out.end(), r->tokenizer) == out.end()) {
      out.push_back(r->tokenizer);
    }
  }
  return out;
}

std::string loss_units_warning(const std::vector<const RunRow*>& rows, std::string_view metric) {
  if (metric.find("loss") == std::string_view::npos) return {};
  const std::vector<std::string> tokenizers = tokenizers_of(rows);
  if (tokenizers.size() < 2) return {};
  std::string names;
  for (const std::string& t : tokenizers) names += (names.empty() ? "" : ", ") + t;
  return "These runs use " + std::to_string(tokenizers.size()) + " tokenizers (" + names +
         "), and each loss is per token of its own tokenizer (per byte for bytes). A BPE token holds several bytes, "
         "so its loss is higher for an equally good model: compare runs of one tokenizer with each other, never "
         "across tokenizers.";
}

std::string head_counts_text(const RunRow& row) {
  const HeadCounts c = head_counts(row);
  if (!c.split()) return std::to_string(c.h);
  return std::to_string(c.h_k) + "-" + std::to_string(c.h) + "-" + std::to_string(c.h_v);
}

std::string thousands(std::int64_t v) {
  std::string s = std::to_string(v);
  const int first_digit = v < 0 ? 1 : 0;
  for (int i = static_cast<int>(s.size()) - 3; i > first_digit; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string head_size_text(const RunRow& row) {
  if (!sizes_split(row)) return std::to_string(row.d_p);
  return std::to_string(row.d_p) + "/" + std::to_string(row.d_v);
}

std::string head_counts_tooltip(const RunRow& row) {
  const HeadCounts c = head_counts(row);
  if (!c.split()) return {};
  return "talking-heads with h_k = " + std::to_string(c.h_k) + " heads of logits, h = " + std::to_string(c.h) +
         " softmax heads and h_v = " + std::to_string(c.h_v) + " heads of weights (TH Table 2)";
}

std::string head_size_tooltip(const RunRow& row) {
  if (!sizes_split(row)) return {};
  return "head sizes: d_k = " + std::to_string(row.d_p) + " for queries and keys, d_v = " + std::to_string(row.d_v) +
         " for values";
}

std::string label_from_name(std::string_view suite, std::string_view name) {
  if (suite.empty() || name.size() <= suite.size() || name.substr(0, suite.size()) != suite ||
      name[suite.size()] != '/') {
    return "";
  }
  const std::string_view rest = name.substr(suite.size() + 1);
  const std::size_t slash = rest.find('/');
  return slash == std::string_view::npos ? "" : std::string(rest.substr(0, slash));
}

// What a run's record and metrics say that changes while it trains.
void set_run_state(RunRow& row, db::RunRecord&& rec, const std::map<std::string, double>& latest, double best_val_loss,
                   std::int64_t weights) {
  row.status = rec.status;
  row.weights = weights;
  row.attempts = rec.attempts;
  row.step = rec.current_step;
  row.error_text = std::move(rec.error_text);
  const bool running = rec.status == db::RunStatus::Running;
  row.worker = running ? std::move(rec.worker) : std::string();
  row.heartbeat_at = running ? rec.heartbeat_at : std::nullopt;
  row.params = rec.param_count;
  row.best_val_loss = best_val_loss;
  row.last_val_loss = metric_or_nan(latest, "val_loss");
  row.last_train_loss = metric_or_nan(latest, "train_loss");
  row.tokens_per_s = metric_or_nan(latest, "tokens_per_s");
}

RunRow make_run_row(db::RunRecord rec, const std::map<std::string, double>& latest, double best_val_loss,
                    std::int64_t weights) {
  RunRow row;
  row.id = rec.id;
  row.label = label_from_name(rec.suite_name, rec.name);
  row.suite = std::move(rec.suite_name);
  row.name = std::move(rec.name);
  row.config = FlatConfig::parse(rec.config_json);
  const FlatConfig& c = row.config;
  row.kind = config_value(c, "model.attention.kind");
  row.d = small_int_at(c, "model.width");
  row.h = small_int_at(c, "model.attention.heads");
  row.h_k = small_int_at(c, "model.attention.heads_k");
  row.h_v = small_int_at(c, "model.attention.heads_v");
  row.d_p = small_int_at(c, "model.attention.d_k");
  row.d_v = small_int_at(c, "model.attention.d_v");
  row.r = small_int_at(c, "model.embed_rank");
  row.factorised = row.r > 0;
  if (row.r == 0) row.r = row.d;
  row.L = small_int_at(c, "model.depth");
  row.V = small_int_at(c, "model.vocab");
  row.n = small_int_at(c, "model.context");
  row.tokenizer = config_value(c, "train.tokenizer");
  row.corpus = config_value(c, "train.corpus");
  row.steps_total = int_at(c, "train.steps");
  const bool before_devices = c.valid() && !c.has("train.device");
  row.device = before_devices ? "cpu" : config_value(c, "train.device");
  if (row.device == "auto") row.device.clear();
  row.precision = before_devices ? "fp32" : config_value(c, "train.precision");
  row.seed = rec.seed;
  row.created_at = rec.created_at;
  row.suite_key = natural_sort_key(row.suite);
  row.name_key = natural_sort_key(row.name);
  row.kind_key = natural_sort_key(row.kind);
  set_run_state(row, std::move(rec), latest, best_val_loss, weights);
  return row;
}

namespace {

constexpr std::int64_t kFirstId = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kLastId = std::numeric_limits<std::int64_t>::max();

// Looks up per-run values for ids that only grow: a walk instead of 100,000 tree lookups. Runs
// the map lacks get `none`.
template <typename V>
class IdWalk {
 public:
  IdWalk(const std::map<std::int64_t, V>& values, V none)
      : values_(values), next_(values.begin()), none_(std::move(none)) {}
  const V& operator()(std::int64_t id) {
    if (next_ != values_.end() && next_->first > id) next_ = values_.lower_bound(id);
    while (next_ != values_.end() && next_->first < id) ++next_;
    return next_ != values_.end() && next_->first == id ? next_->second : none_;
  }

 private:
  const std::map<std::int64_t, V>& values_;
  typename std::map<std::int64_t, V>::const_iterator next_;
  V none_;
};

// The run's mean rate where its clock was logged: the last window's rate misleads for runs that
// shared a device (a run whose last window ran alone showed 3x its neighbours' rate).
void set_mean_rate(RunRow& row, const db::MetricClock& clock) {
  const double mean = clock.tokens_per_second();
  if (!std::isnan(mean)) row.tokens_per_s = mean;
}

// What a load reads per run besides the runs table, for the runs with first <= id <= last.
struct RunExtras {
  std::map<std::int64_t, db::RunMetricSummary> summaries;
  std::map<std::int64_t, std::int64_t> weights;

  RunExtras(db::RunStore& store, std::int64_t first, std::int64_t last, bool read_clocks = true)
      : summaries(store.metric_summaries(db::kClockMetric, first, last, read_clocks)),
        weights(store.artifact_counts(std::string(db::kWeightsArtifact), first, last)) {}
};

// Walks a RunExtras in id order.
class ExtrasWalk {
 public:
  explicit ExtrasWalk(const RunExtras& extras) : summary_(extras.summaries, {}), weights_(extras.weights, 0) {}
  RunRow make(db::RunRecord&& rec) {
    const auto& m = summary_(rec.id);
    const std::int64_t w = weights_(rec.id);
    RunRow row = make_run_row(std::move(rec), m.latest, m.min_of_metric, w);
    set_mean_rate(row, m.clock_at_last);
    return row;
  }
  void update(RunRow& row, db::RunRecord&& rec) {
    const auto& m = summary_(rec.id);
    const std::int64_t w = weights_(rec.id);
    set_run_state(row, std::move(rec), m.latest, m.min_of_metric, w);
    set_mean_rate(row, m.clock_at_last);
  }

 private:
  IdWalk<db::RunMetricSummary> summary_;
  IdWalk<std::int64_t> weights_;
};

// Rows of the runs with first <= id <= last, made as SQLite hands them over.
std::vector<RunRow> rows_of(db::RunStore& store, std::int64_t first, std::int64_t last, std::size_t expected) {
  const RunExtras extras(store, first, last);
  ExtrasWalk walk(extras);
  std::vector<RunRow> rows;
  rows.reserve(expected);
  store.for_each_run(first, last, /*with_config=*/true,
                     [&](db::RunRecord&& rec) { rows.push_back(walk.make(std::move(rec))); });
  return rows;
}

}  // namespace

std::vector<RunRow> load_run_rows(db::RunStore& store, const std::vector<RunRow>& previous) {
  if (previous.empty()) {
    const auto ids = store.run_ids();
    return rows_of(store, kFirstId, kLastId, ids ? static_cast<std::size_t>(ids->count) : 0);
  }

  // Clocks are read run by run below, only for the runs whose rate can have changed (a finished
  // run's cannot): at 100,000 runs reading them all cost 190 ms a reload.
  const RunExtras extras(store, kFirstId, kLastId, /*read_clocks=*/false);
  auto records = store.list_runs(kFirstId, kLastId, /*with_config=*/false);
  // Match each record to its earlier row (both in id order); the rest need their configs.
  std::vector<const RunRow*> earlier(records.size(), nullptr);
  std::int64_t new_lo = kLastId, new_hi = kFirstId;
  for (std::size_t i = 0, p = 0; i < records.size(); ++i) {
    const db::RunRecord& rec = records[i];
    while (p < previous.size() && previous[p].id < rec.id) ++p;
    if (p < previous.size() && previous[p].id == rec.id && previous[p].name == rec.name &&
        previous[p].suite == rec.suite_name && previous[p].created_at == rec.created_at &&
        previous[p].attempts == rec.attempts) {
      earlier[i] = &previous[p];
    } else {
      new_lo = std::min(new_lo, rec.id), new_hi = std::max(new_hi, rec.id);
    }
  }
  std::vector<db::RunRecord> fresh;
  if (new_lo <= new_hi) fresh = store.list_runs(new_lo, new_hi, /*with_config=*/true);
  ExtrasWalk walk(extras);
  std::vector<RunRow> rows;
  rows.reserve(records.size());
  std::size_t f = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    db::RunRecord& rec = records[i];
    const bool settled =
        earlier[i] != nullptr && earlier[i]->status == db::RunStatus::Done && rec.status == db::RunStatus::Done;
    if (earlier[i] != nullptr) {
      rows.push_back(*earlier[i]);
      walk.update(rows.back(), std::move(rec));
    } else {
      while (f < fresh.size() && fresh[f].id < rec.id) ++f;
      // A run deleted between the two reads has no config here; it drops out at the next reload.
      if (f < fresh.size() && fresh[f].id == rec.id) rec.config_json = std::move(fresh[f].config_json);
      rows.push_back(walk.make(std::move(rec)));
    }
    RunRow& row = rows.back();
    if (settled) {
      row.tokens_per_s = earlier[i]->tokens_per_s;
    } else if (const auto clock = store.last_clock(row.id, db::kClockMetric)) {
      set_mean_rate(row, *clock);
    }
  }
  return rows;
}

namespace {

// Rows of the runs with first <= id <= last (about `count` of them), split by id range over
// `parts` threads. Part 0 reads through `store` when given; every other part through its own
// read-only connection to `db_path` (a connection serves one thread). Each part reads its own
// runs' summaries.
std::vector<RunRow> rows_in_parts(db::RunStore* store, const std::string& db_path, std::int64_t first,
                                  std::int64_t last, std::int64_t count, int parts) {
  parts = static_cast<int>(std::clamp<std::int64_t>(std::min<std::int64_t>(parts, count / 2), 1, 64));
  // Cut points by id; ids are dense in practice (runs are rarely deleted).
  std::vector<std::int64_t> cut{first};
  for (int i = 1; i < parts; ++i) cut.push_back(first + (last - first + 1) * i / parts);
  cut.push_back(last + 1);
  std::vector<std::vector<RunRow>> part_rows(static_cast<std::size_t>(parts));
  const auto expected = static_cast<std::size_t>(std::max<std::int64_t>(count, 0) / parts + 1);
  std::vector<std::string> errors(static_cast<std::size_t>(parts));
  auto read_part = [&](db::RunStore& part_store, int i) {
    part_rows[i] = rows_of(part_store, cut[i], cut[i + 1] - 1, expected);
  };
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<std::size_t>(parts));
  // Joined on every way out: part 0 below may throw (a damaged page) while the helpers still read.
  struct JoinAll {
    std::vector<std::thread>& threads;
    ~JoinAll() {
      for (auto& t : threads)
        if (t.joinable()) t.join();
    }
  } join_all{helpers};
  for (int i = store ? 1 : 0; i < parts; ++i) {
    helpers.emplace_back([&, i] {
      try {
        auto conn = db::Connection::open(db_path, db::OpenMode::ReadOnly);
        db::RunStore part_store(conn);
        read_part(part_store, i);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  if (store) read_part(*store, 0);
  for (auto& t : helpers) t.join();
  for (const auto& e : errors)
    if (!e.empty()) throw std::runtime_error(e);
  std::vector<RunRow> rows;
  rows.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  for (auto& part : part_rows) std::move(part.begin(), part.end(), std::back_inserter(rows));
  return rows;
}

}  // namespace

std::vector<RunRow> load_run_rows_parallel(db::RunStore& store, const std::string& db_path, int parts) {
  const auto ids = store.run_ids();
  if (parts <= 1 || !ids || ids->count < 2 * parts) return load_run_rows(store);
  return rows_in_parts(&store, db_path, ids->first, ids->last, ids->count, parts);
}

std::vector<RunRow> load_run_rows_between(db::RunStore& store, std::int64_t first_id, std::int64_t last_id) {
  const auto span =
      last_id >= first_id ? static_cast<std::size_t>(std::min<std::int64_t>(last_id - first_id + 1, 1 << 20)) : 0;
  return rows_of(store, first_id, last_id, span);
}

std::vector<RunRow> load_run_rows_between(const std::string& db_path, std::int64_t first_id, std::int64_t last_id,
                                          int parts) {
  if (last_id < first_id) return {};
  return rows_in_parts(nullptr, db_path, first_id, last_id, last_id - first_id + 1, parts);
}

std::string config_value(const FlatConfig& config, std::string_view dotted_key) {
  return std::string(config.value(dotted_key));
}

const RunRow* trained_example(const std::vector<RunRow>& rows) {
  const RunRow* best = nullptr;
  const auto rank = [](const RunRow& r) { return std::make_pair(r.kind == "talking-heads" ? 1 : 0, r.h); };
  for (const auto& r : rows) {
    if (r.status != db::RunStatus::Done || r.weights <= 0) continue;
    if (!best || rank(r) > rank(*best) || (rank(r) == rank(*best) && r.id < best->id)) best = &r;
  }
  return best;
}

const RunRow* weights_twin(const std::vector<RunRow>& rows, const RunRow& row) {
  if (row.weights > 0 || !row.config.valid()) return nullptr;
  const auto same_config = [&row](const FlatConfig& other) {
    if (!other.valid() || other.size() != row.config.size()) return false;
    for (std::size_t i = 0; i < other.size(); ++i)
      if (other.key_at(i) != row.config.key_at(i) || other.value_at(i) != row.config.value_at(i)) return false;
    return true;
  };
  for (const auto& r : rows)  // in id order
    if (r.id != row.id && r.weights > 0 && r.status == db::RunStatus::Done && same_config(r.config)) return &r;
  return nullptr;
}

int natural_compare(std::string_view a, std::string_view b) {
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      const std::size_t i0 = i, j0 = j;
      while (i < a.size() && is_digit(a[i])) ++i;
      while (j < b.size() && is_digit(b[j])) ++j;
      // Compare digit runs as numbers: strip leading zeros, then longer is bigger.
      std::string_view run_a = a.substr(i0, i - i0), run_b = b.substr(j0, j - j0);
      while (run_a.size() > 1 && run_a.front() == '0') run_a.remove_prefix(1);
      while (run_b.size() > 1 && run_b.front() == '0') run_b.remove_prefix(1);
      if (run_a.size() != run_b.size()) return run_a.size() < run_b.size() ? -1 : 1;
      if (const int c = run_a.compare(run_b); c != 0) return c < 0 ? -1 : 1;
      continue;
    }
    const int ca = std::tolower(static_cast<unsigned char>(a[i])), cb = std::tolower(static_cast<unsigned char>(b[j]));
    if (ca != cb) return ca < cb ? -1 : 1;
    ++i;
    ++j;
  }
  return compare_values(a.size() - i, b.size() - j);
}

std::string natural_sort_key(std::string_view text) {
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::string key;
  key.reserve(text.size() + 4);
  for (std::size_t i = 0; i < text.size();) {
    if (!is_digit(text[i])) {
      key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_digit(text[end])) ++end;
    std::string_view run = text.substr(i, end - i);
    while (run.size() > 1 && run.front() == '0') run.remove_prefix(1);
    // '0' sorts a digit run against other characters as natural_compare does (no other
    // character lies between '0' and '9'); the length byte then orders runs by magnitude.
    key.push_back('0');
    key.push_back(static_cast<char>(std::min<std::size_t>(run.size(), 255)));
    key.append(run);
    i = end;
  }
  return key;
}

void sort_rows(std::vector<const RunRow*>& rows, RunColumn column, bool ascending) {
  std::stable_sort(rows.begin(), rows.end(), [column, ascending](const RunRow* a, const RunRow* b) {
    const bool a_nan = is_nan_column(*a, column), b_nan = is_nan_column(*b, column);
    if (a_nan || b_nan) return !a_nan;  // NaN last, whatever the direction
    const int c = compare_by(*a, *b, column);
    return ascending ? c < 0 : c > 0;
  });
}

std::string run_counts_text(std::size_t runs, std::int64_t done, std::int64_t running, std::size_t interrupted,
                            std::size_t stalled) {
  const std::int64_t live =
      std::max<std::int64_t>(0, running - static_cast<std::int64_t>(interrupted) - static_cast<std::int64_t>(stalled));
  std::string text =
      std::to_string(runs) + " runs, " + std::to_string(done) + " done, " + std::to_string(live) + " running";
  if (interrupted > 0) text += ", " + std::to_string(interrupted) + " interrupted";
  if (stalled > 0) text += ", " + std::to_string(stalled) + " stalled";
  return text;
}

}  // namespace headroom::explorer
