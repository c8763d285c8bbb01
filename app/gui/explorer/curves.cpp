#include "app/gui/explorer/curves.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace headroom::explorer {
namespace {

constexpr double kNaNValue = std::numeric_limits<double>::quiet_NaN();

double x_of(const db::CurveBucket& b, XAxis axis, double first_wall_seconds) {
  switch (axis) {
    case XAxis::Step: return static_cast<double>(b.step_last);
    case XAxis::Tokens: return static_cast<double>(b.last_tokens);
    case XAxis::TrainSeconds: return b.last_wall_seconds;
    case XAxis::RelativeHours: return (b.last_wall_seconds - first_wall_seconds) / 3600.0;
  }
  return 0;
}

// Training wall time of the metric's first logged point (the origin of RelativeHours).
double first_wall_seconds(db::RunStore& store, std::int64_t run_id, const std::string& metric) {
  const auto range = store.metric_step_range(run_id, metric);
  if (!range) return 0;
  const auto first = store.curve(run_id, metric, range->first, range->first, 1);
  return first.empty() ? 0 : first.front().last_wall_seconds;
}

// y of a curve at x, linearly interpolated; x must lie within [xs.front(), xs.back()].
double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  const std::size_t j = static_cast<std::size_t>(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin());
  if (j > 0 && xs[j - 1] == x) return ys[j - 1];
  if (j == 0 || j == xs.size()) return kNaNValue;
  const double t = (x - xs[j - 1]) / (xs[j] - xs[j - 1]);
  return ys[j - 1] + t * (ys[j] - ys[j - 1]);
}

struct Stats {
  double mean = kNaNValue, lo = kNaNValue, hi = kNaNValue;
};

Stats stats_of(const std::vector<double>& values, BandKind band) {
  Stats s;
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  if (band == BandKind::MinMax) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    s.lo = *lo;
    s.hi = *hi;
    return s;
  }
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  const double sd = std::sqrt(squares / static_cast<double>(values.size()));
  s.lo = s.mean - sd;
  s.hi = s.mean + sd;
  return s;
}

GroupCurve build_group(const std::vector<const Curve*>& members, std::string key_value, BandKind band) {
  GroupCurve g;
  g.key_value = std::move(key_value);
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  std::vector<const Curve*> drawn;
  for (const Curve* c : members) {
    g.run_ids.push_back(c->run_id);
    if (c->x.empty()) continue;
    drawn.push_back(c);
    lo = std::max(lo, c->x.front());
    hi = std::min(hi, c->x.back());
  }
  if (drawn.empty() || lo > hi) return g;
  for (const Curve* c : drawn) {
    for (double x : c->x) {
      if (x >= lo && x <= hi) g.x.push_back(x);
    }
  }
  std::sort(g.x.begin(), g.x.end());
  g.x.erase(std::unique(g.x.begin(), g.x.end()), g.x.end());
  std::vector<double> values;
  for (double x : g.x) {
    values.clear();
    for (const Curve* c : drawn) {
      const double v = interpolate(c->x, c->y, x);
      if (std::isfinite(v)) values.push_back(v);
    }
    const Stats s = stats_of(values, band);
    g.mean.push_back(s.mean);
    g.lo.push_back(s.lo);
    g.hi.push_back(s.hi);
  }
  return g;
}

std::string x_text(double x, XAxis axis) {
  const bool integral = axis == XAxis::Step || axis == XAxis::Tokens;
  return integral ? std::to_string(static_cast<std::int64_t>(x)) : csv_number(x);
}

}  // namespace

const char* x_axis_label(XAxis axis) {
  switch (axis) {
    case XAxis::Step: return "step";
    case XAxis::Tokens: return "tokens";
    case XAxis::TrainSeconds: return "train time (s)";
    case XAxis::RelativeHours: return "hours since first point";
  }
  return "";
}

Curve fetch_curve(db::RunStore& store, std::int64_t run_id, const std::string& metric, XAxis axis,
                  std::optional<db::StepRange> steps, int buckets) {
  if (buckets < 1) {
    throw std::invalid_argument("fetch_curve: buckets must be at least 1, got " + std::to_string(buckets));
  }
  Curve curve;
  curve.run_id = run_id;
  curve.metric = metric;
  if (!steps) steps = store.metric_step_range(run_id, metric);
  if (!steps) return curve;
  const double origin = axis == XAxis::RelativeHours ? first_wall_seconds(store, run_id, metric) : 0;
  for (const db::CurveBucket& b : store.curve(run_id, metric, steps->first, steps->last, buckets)) {
    curve.step.push_back(b.step_last);
    curve.x.push_back(x_of(b, axis, origin));
    curve.y.push_back(b.last);
    curve.y_min.push_back(b.min);
    curve.y_max.push_back(b.max);
  }
  return curve;
}

std::optional<db::StepRange> steps_for_x_range(const Curve& shown, double x_lo, double x_hi) {
  if (x_hi < x_lo) std::swap(x_lo, x_hi);
  const std::vector<double>& xs = shown.x;
  if (xs.empty() || x_hi < xs.front() || x_lo > xs.back()) return std::nullopt;
  const auto first_in = static_cast<std::size_t>(std::lower_bound(xs.begin(), xs.end(), x_lo) - xs.begin());
  const auto past_last = static_cast<std::size_t>(std::upper_bound(xs.begin(), xs.end(), x_hi) - xs.begin());
  // With no point inside, past_last == first_in: the two bracket the window.
  const std::size_t lo = first_in == 0 ? 0 : first_in - 1;
  const std::size_t hi = std::min(past_last, xs.size() - 1);
  return db::StepRange{shown.step[lo], shown.step[hi]};
}

db::StepRange next_zoom_window(const std::optional<db::StepRange>& current, const db::StepRange& want) {
  const bool inside = current && want.first >= current->first && want.last <= current->last &&
                      (want.last - want.first) * 3 > (current->last - current->first);
  if (inside) return *current;
  const std::int64_t pad = (want.last - want.first) / 4;
  return db::StepRange{std::max<std::int64_t>(0, want.first - pad), want.last + pad};
}

void envelope_polyline(const Curve& c, std::vector<float>* xs, std::vector<float>* ys) {
  xs->clear();
  ys->clear();
  double prev = NAN;
  for (std::size_t k = 0; k < c.x.size(); ++k) {
    const auto x = static_cast<float>(c.x[k]);
    const double lo = k < c.y_min.size() ? c.y_min[k] : NAN, hi = k < c.y_max.size() ? c.y_max[k] : NAN;
    if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) {
      const bool low_first = !std::isfinite(prev) || std::abs(prev - lo) <= std::abs(prev - hi);
      xs->insert(xs->end(), {x, x});
      ys->push_back(static_cast<float>(low_first ? lo : hi));
      ys->push_back(static_cast<float>(low_first ? hi : lo));
    }
    xs->push_back(x);
    ys->push_back(static_cast<float>(c.y[k]));
    prev = c.y[k];
  }
}

std::string seedless_group_key(const std::string& suite, const std::string& label, const FlatConfig& config) {
  // Unit and record separators cannot occur in JSON text unescaped, so distinct configs give
  // distinct keys.
  std::string key = suite + '\x1f' + label;
  for (std::size_t i = 0; i < config.size(); ++i) {
    if (config.key_at(i) == "train.seed") continue;
    key += '\x1e';
    key += config.key_at(i);
    key += '\x1f';
    key += config.value_at(i);
  }
  return key;
}

std::string without_seed(const std::string& short_name) {
  const auto seed = short_name.rfind("seed=");
  if (seed == std::string::npos) return short_name;
  std::size_t cut = seed;  // "...,seed=0" -> "..."
  while (cut > 0 && (short_name[cut - 1] == ',' || short_name[cut - 1] == '/' || short_name[cut - 1] == ' ')) --cut;
  return short_name.substr(0, cut);
}

std::string runs_counted(const std::string& label, std::size_t runs) {
  return label + " (" + std::to_string(runs) + (runs == 1 ? " run)" : " runs)");
}

std::string seed_group_label(const std::string& first_run_short_name, std::size_t runs) {
  return runs_counted(without_seed(first_run_short_name), runs);
}

std::vector<std::string> with_suites_where_alike(std::vector<std::string> labels,
                                                 const std::vector<std::string>& suites) {
  if (labels.size() != suites.size())
    throw std::invalid_argument("with_suites_where_alike: " + std::to_string(labels.size()) + " labels but " +
                                std::to_string(suites.size()) + " suites");
  std::map<std::string, std::size_t> count;
  for (const auto& l : labels) ++count[l];
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (count[labels[i]] > 1 && !suites[i].empty()) labels[i] = suites[i] + ": " + labels[i];
  return labels;
}

std::vector<double> ema_debiased(const std::vector<double>& y, double weight) {
  if (!(weight >= 0 && weight < 1)) {
    throw std::invalid_argument("ema_debiased: weight must be in [0, 1), got " + std::to_string(weight));
  }
  std::vector<double> out;
  out.reserve(y.size());
  double last = 0, decay = 1;  // decay = weight^k after k finite points
  for (double v : y) {
    if (!std::isfinite(v)) {
      out.push_back(v);
      continue;
    }
    last = last * weight + (1 - weight) * v;
    decay *= weight;
    out.push_back(last / (1 - decay));
  }
  return out;
}

std::vector<double> moving_average(const std::vector<double>& y, int window) {
  if (window < 1)
    throw std::invalid_argument("moving_average: window must be at least 1, got " + std::to_string(window));
  const auto w = static_cast<std::size_t>(window);
  std::vector<double> out;
  out.reserve(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    double sum = 0;
    int count = 0;
    for (std::size_t j = i + 1 > w ? i + 1 - w : 0; j <= i; ++j) {
      if (std::isnan(y[j])) continue;
      sum += y[j];
      ++count;
    }
    out.push_back(count == 0 ? kNaNValue : sum / static_cast<double>(count));
  }
  return out;
}

std::vector<GroupCurve> group_curves(const std::vector<Curve>& curves, const std::vector<std::string>& key_values,
                                     BandKind band) {
  if (curves.size() != key_values.size()) {
    throw std::invalid_argument("group_curves: " + std::to_string(curves.size()) + " curves but " +
                                std::to_string(key_values.size()) + " key values; give one value per curve");
  }
  std::vector<std::string> order;
  for (const std::string& k : key_values) {
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  }
  std::vector<GroupCurve> groups;
  for (const std::string& k : order) {
    std::vector<const Curve*> members;
    for (std::size_t i = 0; i < curves.size(); ++i) {
      if (key_values[i] == k) members.push_back(&curves[i]);
    }
    groups.push_back(build_group(members, k, band));
  }
  return groups;
}

std::string csv_number(double value) {
  if (std::isnan(value)) return "";
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, result.ptr);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void write_curves_csv(std::ostream& out, const std::vector<Curve>& curves, const std::vector<std::string>& labels,
                      XAxis axis) {
  if (curves.size() != labels.size()) {
    throw std::invalid_argument("write_curves_csv: " + std::to_string(curves.size()) + " curves but " +
                                std::to_string(labels.size()) + " labels; give one label per curve");
  }
  out << "series,run,metric,step,x,y,y_min,y_max\r\n";
  for (std::size_t c = 0; c < curves.size(); ++c) {
    const Curve& curve = curves[c];
    const std::string prefix =
        csv_field(labels[c]) + "," + std::to_string(curve.run_id) + "," + csv_field(curve.metric) + ",";
    for (std::size_t i = 0; i < curve.x.size(); ++i) {
      out << prefix << curve.step[i] << ',' << x_text(curve.x[i], axis) << ',' << csv_number(curve.y[i]) << ','
          << csv_number(curve.y_min[i]) << ',' << csv_number(curve.y_max[i]) << "\r\n";
    }
  }
}

}  // namespace headroom::explorer
