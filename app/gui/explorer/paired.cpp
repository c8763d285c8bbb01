#include "app/gui/explorer/paired.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace headroom::explorer {

std::string seed_pool_key(const FlatConfig& config) {
  // Unit and record separators cannot occur in JSON text unescaped: distinct configs, distinct keys.
  std::string key;
  for (std::size_t i = 0; i < config.size(); ++i) {
    if (config.key_at(i) == "train.seed" || config.key_at(i) == "train.device") continue;
    key += config.key_at(i);
    key += '\x1f';
    key += config.value_at(i);
    key += '\x1e';
  }
  return key;
}

namespace {

// The row's table fields that its config alone decides (not device or precision, which depend on
// whether the config names a device at all): runs that differ here cannot share a config, so
// only the rows that agree with a chosen one pay for a whole key (a reload of 100,000 rows while
// a worker writes must not build 100,000 keys on the UI thread).
bool may_share_config(const RunRow& x, const RunRow& y) {
  return x.d == y.d && x.h == y.h && x.h_k == y.h_k && x.h_v == y.h_v && x.d_p == y.d_p && x.d_v == y.d_v &&
         x.r == y.r && x.L == y.L && x.V == y.V && x.n == y.n && x.kind == y.kind && x.tokenizer == y.tokenizer &&
         x.corpus == y.corpus;
}

}  // namespace

std::vector<SeedPool> seed_pools(const std::vector<const RunRow*>& chosen, const std::vector<RunRow>& all) {
  std::vector<SeedPool> pools;
  std::unordered_map<std::string, std::size_t> index;  // key -> pool
  for (const RunRow* row : chosen) {
    if (!row || !row->config.valid()) continue;
    std::string key = seed_pool_key(row->config);
    if (index.emplace(key, pools.size()).second) pools.push_back({std::move(key), {}, {}, row});
  }
  if (pools.empty()) return pools;
  for (const RunRow& row : all) {
    if (!row.config.valid()) continue;
    if (std::none_of(pools.begin(), pools.end(), [&](const SeedPool& p) { return may_share_config(row, *p.chosen); }))
      continue;
    const auto it = index.find(seed_pool_key(row.config));
    if (it != index.end()) pools[it->second].runs.push_back(&row);
  }
  for (SeedPool& pool : pools) {
    std::stable_sort(pool.runs.begin(), pool.runs.end(), [](const RunRow* x, const RunRow* y) {
      return x->seed != y->seed ? x->seed < y->seed : x->id < y->id;
    });
    for (const RunRow* r : pool.runs)
      if (std::find(pool.suites.begin(), pool.suites.end(), r->suite) == pool.suites.end())
        pool.suites.push_back(r->suite);
  }
  return pools;
}

namespace {

// A pool's finished runs by seed (the lowest id where a seed repeats), counting what is left out.
std::map<std::int64_t, const RunRow*> finished_by_seed(const SeedPool& pool, PairedComparison* out) {
  std::map<std::int64_t, const RunRow*> by_seed;
  for (const RunRow* r : pool.runs) {
    if (r->status != db::RunStatus::Done || !std::isfinite(r->last_val_loss)) {
      ++out->unfinished;
      continue;
    }
    const auto [it, added] = by_seed.emplace(r->seed, r);
    if (!added) {
      ++out->repeated;
      if (r->id < it->second->id) it->second = r;
    }
  }
  return by_seed;
}

}  // namespace

PairedComparison compare_final_val_loss(const SeedPool& a, const SeedPool& b) {
  PairedComparison out;
  const auto in_a = finished_by_seed(a, &out);
  const auto in_b = finished_by_seed(b, &out);
  for (const auto& [seed, run] : in_a) {
    const auto other = in_b.find(seed);
    if (other == in_b.end()) {
      out.only_a.push_back(seed);
      continue;
    }
    SeedPair p{seed, run, other->second, run->last_val_loss, other->second->last_val_loss, 0.0};
    p.difference = p.a_loss - p.b_loss;
    out.pairs.push_back(p);
  }
  for (const auto& [seed, run] : in_b)
    if (!in_a.count(seed)) out.only_b.push_back(seed);
  if (out.pairs.empty()) return out;
  double sum = 0;
  out.min = out.max = out.pairs.front().difference;
  for (const SeedPair& p : out.pairs) {
    sum += p.difference;
    out.min = std::min(out.min, p.difference);
    out.max = std::max(out.max, p.difference);
    out.a_lower += p.difference < 0;
  }
  const double n = static_cast<double>(out.pairs.size());
  out.mean = sum / n;
  if (out.pairs.size() >= 2) {
    double squares = 0;
    for (const SeedPair& p : out.pairs) squares += (p.difference - out.mean) * (p.difference - out.mean);
    out.sd = std::sqrt(squares / (n - 1));
    out.se = out.sd / std::sqrt(n);
  }
  return out;
}

namespace {

// The pool's smallest and largest parameter count; {0, 0} when a run has none.
std::pair<std::int64_t, std::int64_t> parameter_range(const SeedPool& pool) {
  std::int64_t lo = 0, hi = 0;
  for (const RunRow* r : pool.runs) {
    if (r->params <= 0) return {0, 0};
    lo = lo == 0 ? r->params : std::min(lo, r->params);
    hi = std::max(hi, r->params);
  }
  return {lo, hi};
}

std::string range_text(std::pair<std::int64_t, std::int64_t> r) {
  return r.first == r.second ? thousands(r.first) : thousands(r.first) + "-" + thousands(r.second);
}

}  // namespace

PooledComparisons pool_comparisons(const std::vector<PairedComparison>& cells) {
  PooledComparisons out;
  if (cells.size() < 2) {
    out.problem = "pin two comparisons or more to pool them";
    return out;
  }
  double total = 0.0, weighted = 0.0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const PairedComparison& c = cells[i];
    if (c.pairs.size() < 2 || !(c.se > 0.0)) {
      out.problem = "comparison " + std::to_string(i + 1) + " has " + std::to_string(c.pairs.size()) +
                    (c.pairs.size() == 1 ? " seed" : " seeds") +
                    (c.pairs.size() < 2 ? "" : " that differ by the same amount") +
                    ": pooling weighs each by its standard error, which needs two seeds or more that differ";
      out.weights.clear();
      return out;
    }
    out.weights.push_back(1.0 / (c.se * c.se));
    total += out.weights.back();
    weighted += out.weights.back() * c.mean;
    out.seeds += c.pairs.size();
  }
  out.mean = weighted / total;
  out.se = 1.0 / std::sqrt(total);
  out.q = 0.0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out.q += out.weights[i] * (cells[i].mean - out.mean) * (cells[i].mean - out.mean);
    out.weights[i] /= total;
  }
  out.df = static_cast<int>(cells.size()) - 1;
  out.p = chi_square_survival(out.q, out.df);
  for (std::size_t i = 0; i < cells.size(); ++i)
    for (std::size_t j = i + 1; j < cells.size(); ++j)
      out.between.push_back({i, j, cells[i].mean - cells[j].mean, std::hypot(cells[i].se, cells[j].se)});
  return out;
}

const CellDifference* farthest_from(const PooledComparisons& pooled, std::size_t i) {
  const CellDifference* best = nullptr;
  for (const CellDifference& d : pooled.between)
    if ((d.i == i || d.j == i) && (!best || std::abs(d.difference) / d.se > std::abs(best->difference) / best->se))
      best = &d;
  return best;
}

double chi_square_survival(double q, int df) {
  if (df < 1 || !(q >= 0.0)) return kNaN;
  // Even df: e^(-q/2) sum_{i < df/2} (q/2)^i / i!. Odd df: erfc(sqrt(q/2)) plus the odd terms.
  double total, term;
  if (df % 2 == 0) {
    total = term = 1.0;
    for (int i = 1; i < df / 2; ++i) total += term *= (q / 2) / i;
    return std::exp(-q / 2) * total;
  }
  total = std::erfc(std::sqrt(q / 2));
  term = std::sqrt(2 * q / M_PI) * std::exp(-q / 2);
  for (int i = 1; i < (df + 1) / 2; ++i) {
    total += term;
    term *= q / (2 * i + 1);
  }
  return total;
}

std::string p_value_text(double p) {
  if (std::isnan(p)) return "-";
  if (p < 0.0001) return "< 0.0001";
  char text[32];
  std::snprintf(text, sizeof text, p < 0.01 ? "%.4f" : "%.2f", p);
  return text;
}

std::string parameter_difference(const SeedPool& a, const SeedPool& b) {
  const auto ra = parameter_range(a), rb = parameter_range(b);
  if (ra.first <= 0 || rb.first <= 0) return "";
  if (ra == rb && ra.first == ra.second) return "A and B: " + thousands(ra.first) + " parameters each";
  std::string text = "A: " + range_text(ra) + " parameters, B: " + range_text(rb);
  if (ra.first == ra.second && rb.first == rb.second) {
    const std::int64_t d = ra.first - rb.first;
    char percent[32];
    std::snprintf(percent, sizeof percent, "%+.2f%%", 100.0 * static_cast<double>(d) / static_cast<double>(rb.first));
    text += " (A " + std::string(d > 0 ? "+" : "") + thousands(d) + ", " + percent + ")";
  }
  return text;
}

void write_pairs_csv(std::ostream& out, const PairedComparison& paired) {
  out << "seed,a_run,b_run,a_final_val_loss,b_final_val_loss,difference\r\n";
  for (const SeedPair& p : paired.pairs)
    out << p.seed << ',' << csv_field(p.a->name) << ',' << csv_field(p.b->name) << ',' << csv_number(p.a_loss) << ','
        << csv_number(p.b_loss) << ',' << csv_number(p.difference) << "\r\n";
}

void write_pinned_csv(std::ostream& out, const std::vector<std::string>& labels,
                      const std::vector<PairedComparison>& cells, const PooledComparisons& pooled) {
  if (labels.size() != cells.size())
    throw std::invalid_argument("write_pinned_csv: " + std::to_string(labels.size()) + " labels for " +
                                std::to_string(cells.size()) + " comparisons");
  out << "row,comparison,seeds,mean,sd,standard_error,weight,q,df,p\r\n";
  for (std::size_t i = 0; i < cells.size(); ++i)
    out << i + 1 << ',' << csv_field(labels[i]) << ',' << cells[i].pairs.size() << ',' << csv_number(cells[i].mean)
        << ',' << csv_number(cells[i].sd) << ',' << csv_number(cells[i].se) << ','
        << csv_number(i < pooled.weights.size() ? pooled.weights[i] : kNaN) << ",,,\r\n";
  const bool pooled_ok = pooled.problem.empty();
  out << "pooled,pooled (inverse-variance)," << pooled.seeds << ',' << csv_number(pooled.mean) << ",,"
      << csv_number(pooled.se) << ',' << (pooled_ok ? "1" : "") << ',' << csv_number(pooled.q) << ','
      << (pooled_ok ? std::to_string(pooled.df) : "") << ',' << csv_number(pooled.p) << "\r\n";
}

std::string signed_loss(double difference) {
  if (!std::isfinite(difference)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%+.4f", difference);
  return text;
}

Curve difference_curve(const Curve& a, const Curve& b) {
  Curve out;
  out.run_id = a.run_id;
  out.metric = a.metric;
  // b's finite points only: a NaN there is bridged by its finite neighbours.
  std::vector<double> bx, by;
  for (std::size_t i = 0; i < b.x.size() && i < b.y.size(); ++i)
    if (std::isfinite(b.x[i]) && std::isfinite(b.y[i])) bx.push_back(b.x[i]), by.push_back(b.y[i]);
  if (bx.empty()) return out;
  for (std::size_t i = 0; i < a.x.size() && i < a.y.size(); ++i) {
    const double x = a.x[i];
    if (!std::isfinite(x) || !std::isfinite(a.y[i]) || x < bx.front() || x > bx.back()) continue;
    const auto hi = std::lower_bound(bx.begin(), bx.end(), x);  // first point at or after x
    const std::size_t j = static_cast<std::size_t>(hi - bx.begin());
    double y = by[j];
    if (bx[j] != x) {  // strictly between j - 1 and j
      const double t = (x - bx[j - 1]) / (bx[j] - bx[j - 1]);
      y = by[j - 1] + t * (by[j] - by[j - 1]);
    }
    out.step.push_back(i < a.step.size() ? a.step[i] : 0);
    out.x.push_back(x);
    out.y.push_back(a.y[i] - y);
  }
  out.y_min = out.y;
  out.y_max = out.y;
  return out;
}

}  // namespace headroom::explorer
