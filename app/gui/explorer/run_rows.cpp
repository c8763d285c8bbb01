#include "app/gui/explorer/run_rows.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace headroom::explorer {
namespace {

using nlohmann::json;

const json* find_dotted(const json& config, std::string_view dotted_key) {
  const json* node = &config;
  while (!dotted_key.empty()) {
    const std::size_t dot = dotted_key.find('.');
    const std::string part(dotted_key.substr(0, dot));
    if (!node->is_object()) return nullptr;
    const auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
    dotted_key = dot == std::string_view::npos ? std::string_view() : dotted_key.substr(dot + 1);
  }
  return node;
}

std::int64_t int_at(const json& config, std::string_view dotted_key) {
  const json* node = find_dotted(config, dotted_key);
  return node != nullptr && node->is_number() ? node->get<std::int64_t>() : 0;
}

int small_int_at(const json& config, std::string_view dotted_key) {
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
    case RunColumn::Status: return compare_values(static_cast<int>(a.status), static_cast<int>(b.status));
    case RunColumn::Step: return compare_values(a.step, b.step);
    case RunColumn::BestVal: return compare_values(a.best_val_loss, b.best_val_loss);
    case RunColumn::Params: return compare_values(a.params, b.params);
    case RunColumn::TokensPerS: return compare_values(a.tokens_per_s, b.tokens_per_s);
  }
  return 0;
}

}  // namespace

std::string label_from_name(std::string_view suite, std::string_view name) {
  if (suite.empty() || name.size() <= suite.size() || name.substr(0, suite.size()) != suite ||
      name[suite.size()] != '/') {
    return "";
  }
  const std::string_view rest = name.substr(suite.size() + 1);
  const std::size_t slash = rest.find('/');
  return slash == std::string_view::npos ? "" : std::string(rest.substr(0, slash));
}

RunRow make_run_row(const db::RunRecord& rec, const std::map<std::string, double>& latest, double best_val_loss) {
  RunRow row;
  row.id = rec.id;
  row.suite = rec.suite_name;
  row.name = rec.name;
  row.label = label_from_name(rec.suite_name, rec.name);
  row.config = json::parse(rec.config_json, nullptr, /*allow_exceptions=*/false);
  if (row.config.is_discarded()) row.config = json::object();
  const json& c = row.config;
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
  row.seed = rec.seed;
  row.status = rec.status;
  row.step = rec.current_step;
  row.error_text = rec.error_text;
  row.steps_total = int_at(c, "train.steps");
  row.params = rec.param_count;
  row.best_val_loss = best_val_loss;
  row.last_val_loss = metric_or_nan(latest, "val_loss");
  row.last_train_loss = metric_or_nan(latest, "train_loss");
  row.tokens_per_s = metric_or_nan(latest, "tokens_per_s");
  row.suite_key = natural_sort_key(row.suite);
  row.name_key = natural_sort_key(row.name);
  row.kind_key = natural_sort_key(row.kind);
  return row;
}

std::vector<RunRow> load_run_rows(db::RunStore& store) {
  std::vector<RunRow> rows;
  const auto summaries = store.metric_summaries("val_loss");
  static const db::RunMetricSummary kNone;
  for (const db::RunRecord& rec : store.list_runs()) {
    auto it = summaries.find(rec.id);
    const db::RunMetricSummary& m = it == summaries.end() ? kNone : it->second;
    rows.push_back(make_run_row(rec, m.latest, m.min_of_metric));
  }
  return rows;
}

std::string config_value(const nlohmann::json& config, std::string_view dotted_key) {
  const json* node = find_dotted(config, dotted_key);
  if (node == nullptr) return "";
  if (node->is_string()) return node->get<std::string>();
  return node->dump();
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

}  // namespace headroom::explorer
