#include "app/gui/explorer/run_filter.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace headroom::explorer {
namespace {

constexpr std::array<std::string_view, 9> kTextKeys = {"suite",  "name",   "label",  "kind",     "tokenizer",
                                                       "corpus", "status", "device", "precision"};
constexpr std::array<std::string_view, 17> kNumberKeys = {
    "d", "h", "hk", "hv", "dp", "dk", "dv", "r", "l", "v", "n", "seed", "step", "params", "val", "tok_s", "weights"};

// Longest operators first so "<=" is not read as "<" followed by "=".
struct OpSpelling {
  std::string_view text;
  FilterOp op;
};
constexpr std::array<OpSpelling, 7> kOps = {{{"!=", FilterOp::Ne},
                                             {"<=", FilterOp::Le},
                                             {">=", FilterOp::Ge},
                                             {"=", FilterOp::Eq},
                                             {"<", FilterOp::Lt},
                                             {">", FilterOp::Gt},
                                             {"~", FilterOp::Contains}}};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

std::optional<double> parse_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || std::isnan(value)) return std::nullopt;
  return value;
}

bool is_text_key(std::string_view key) { return std::find(kTextKeys.begin(), kTextKeys.end(), key) != kTextKeys.end(); }
bool is_number_key(std::string_view key) {
  return std::find(kNumberKeys.begin(), kNumberKeys.end(), key) != kNumberKeys.end();
}
bool is_config_key(std::string_view key) {
  return (key.rfind("model.", 0) == 0 || key.rfind("train.", 0) == 0) && key.back() != '.';
}

std::string valid_keys() {
  std::string out;
  for (std::string_view k : kTextKeys) out += std::string(k) + " ";
  for (std::string_view k : kNumberKeys) out += std::string(k == "l" ? "L" : k == "v" ? "V" : k) + " ";
  return out + "or a dotted config key (model.width, train.lr, ...)";
}

// Where the first operator of a term starts and which one it is.
std::optional<std::pair<std::size_t, OpSpelling>> find_op(std::string_view term) {
  for (std::size_t i = 0; i < term.size(); ++i) {
    for (const OpSpelling& op : kOps) {
      if (term.substr(i, op.text.size()) == op.text) return std::make_pair(i, op);
    }
  }
  return std::nullopt;
}

bool fail(std::string* error, std::string_view term, const std::string& why) {
  if (error != nullptr) *error = "filter term '" + std::string(term) + "': " + why;
  return false;
}

bool check_term(std::string_view term, const FilterTerm& t, std::string_view op_text, std::string* error) {
  const bool ordering = t.op == FilterOp::Lt || t.op == FilterOp::Le || t.op == FilterOp::Gt || t.op == FilterOp::Ge;
  if (t.key.empty()) return fail(error, term, "no key before '" + std::string(op_text) + "' (e.g. h>=8)");
  if (t.value.empty()) {
    return fail(error, term,
                "no value after '" + std::string(op_text) + "' (e.g. " + t.key + std::string(op_text) + "8)");
  }
  if (!is_text_key(t.key) && !is_number_key(t.key) && !is_config_key(t.key)) {
    return fail(error, term, "unknown key '" + t.key + "'; valid keys: " + valid_keys());
  }
  if (ordering && is_text_key(t.key)) {
    return fail(error, term,
                "'" + std::string(op_text) + "' compares numbers, and " + t.key + " is text: use =, != or ~");
  }
  if (ordering && !t.number) {
    return fail(error, term, "'" + std::string(op_text) + "' needs a number, got '" + t.value + "'");
  }
  if (is_number_key(t.key) && t.op == FilterOp::Contains) {
    return fail(error, term, "'~' looks for text, and " + t.key + " is a number: use =, !=, <, <=, > or >=");
  }
  if (is_number_key(t.key) && !t.number) {
    return fail(error, term, t.key + " is a number, and '" + t.value + "' is not one");
  }
  if (t.key == "status" && t.op != FilterOp::Contains && !db::run_status_from_string(lower(t.value))) {
    return fail(error, term, "'" + t.value + "' is not a status; use queued, running, done, failed or cancelled");
  }
  return true;
}

// The row's value of a key: a number for number keys, text for the others; nullopt if absent.
struct RowValue {
  std::optional<double> number;
  std::string text;
};

std::optional<RowValue> row_value(const RunRow& row, const std::string& key) {
  const auto num = [](double v) -> std::optional<RowValue> {
    if (std::isnan(v)) return std::nullopt;
    return RowValue{v, ""};
  };
  if (key == "suite") return RowValue{std::nullopt, row.suite};
  if (key == "name") return RowValue{std::nullopt, row.name};
  if (key == "label") return RowValue{std::nullopt, row.label};
  if (key == "kind") return RowValue{std::nullopt, row.kind};
  if (key == "tokenizer") return RowValue{std::nullopt, row.tokenizer};
  if (key == "corpus") return RowValue{std::nullopt, row.corpus};
  if (key == "status") return RowValue{std::nullopt, std::string(db::to_string(row.status))};
  if (key == "device") return RowValue{std::nullopt, row.device};
  if (key == "precision") return RowValue{std::nullopt, row.precision};
  if (key == "d") return num(row.d);
  if (key == "h") return num(row.h);
  if (key == "hk") return num(row.h_k);
  if (key == "hv") return num(row.h_v);
  if (key == "dp" || key == "dk") return num(row.d_p);
  if (key == "dv") return num(row.d_v);
  if (key == "r") return num(row.r);
  if (key == "l") return num(row.L);
  if (key == "v") return num(row.V);
  if (key == "n") return num(row.n);
  if (key == "seed") return num(static_cast<double>(row.seed));
  if (key == "step") return num(static_cast<double>(row.step));
  if (key == "params") return num(static_cast<double>(row.params));
  if (key == "val") return num(row.best_val_loss);
  if (key == "tok_s") return num(row.tokens_per_s);
  if (key == "weights") return num(static_cast<double>(row.weights));
  const std::string text = config_value(row.config, key);
  if (text.empty()) return std::nullopt;
  return RowValue{parse_number(text), text};
}

bool compare_numbers(double a, FilterOp op, double b) {
  switch (op) {
    case FilterOp::Eq: return a == b;
    case FilterOp::Ne: return a != b;
    case FilterOp::Lt: return a < b;
    case FilterOp::Le: return a <= b;
    case FilterOp::Gt: return a > b;
    case FilterOp::Ge: return a >= b;
    case FilterOp::Contains: return false;
  }
  return false;
}

bool term_holds(const FilterTerm& t, const RunRow& row) {
  if (t.key.empty()) return contains_ci(row.name, t.value) || contains_ci(row.suite, t.value);
  const std::optional<RowValue> v = row_value(row, t.key);
  if (!v) return false;
  if (t.op == FilterOp::Contains) {
    return contains_ci(v->text, t.value);
  }
  if (v->number && t.number) return compare_numbers(*v->number, t.op, *t.number);
  if (t.op == FilterOp::Eq) return lower(v->text) == lower(t.value);
  if (t.op == FilterOp::Ne) return lower(v->text) != lower(t.value);
  return false;  // an ordering against text never holds
}

}  // namespace

std::optional<RunFilter> parse_run_filter(std::string_view text, std::string* error) {
  RunFilter filter;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[pos])) != 0) {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0) ++end;
    const std::string_view term = text.substr(pos, end - pos);
    pos = end;

    FilterTerm t;
    const auto op = find_op(term);
    if (!op) {
      t.value = std::string(term);
      filter.terms.push_back(t);
      continue;
    }
    const std::string_view key = term.substr(0, op->first);
    t.key = key.find('.') != std::string_view::npos ? std::string(key) : lower(key);
    t.op = op->second.op;
    t.value = std::string(term.substr(op->first + op->second.text.size()));
    t.number = parse_number(t.value);
    if (!check_term(term, t, op->second.text, error)) return std::nullopt;
    filter.terms.push_back(t);
  }
  return filter;
}

bool matches(const RunFilter& filter, const RunRow& row) {
  return std::all_of(filter.terms.begin(), filter.terms.end(),
                     [&row](const FilterTerm& t) { return term_holds(t, row); });
}

std::vector<std::int64_t> newest_suite_runs(const std::vector<RunRow>& rows, const std::optional<RunFilter>& filter,
                                            std::size_t count) {
  const auto pick = [&](bool trained_only) {
    std::vector<std::int64_t> ids;
    const std::string* suite = nullptr;  // the newest kept run's
    for (auto it = rows.rbegin(); it != rows.rend() && ids.size() < count; ++it) {
      if ((trained_only && it->step <= 0) || (filter && !matches(*filter, *it))) continue;
      if (suite == nullptr) suite = &it->suite;
      if (it->suite == *suite) ids.push_back(it->id);
    }
    return ids;
  };
  auto ids = pick(true);
  return ids.empty() ? pick(false) : ids;
}

}  // namespace headroom::explorer
