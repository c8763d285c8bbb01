// `headroom-worker represent`: LRB Theorem 1 on the user's X and P — the construction when
// d_p >= n - 1 (and X has full column rank), the best fit otherwise; full or causal attention.
// `--sweep` measures the thresholds on drawn targets instead (docs/causal_threshold.md).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/worker/csv_matrix.h"
#include "app/worker/worker_cli.h"
#include "app/worker/worker_common.h"
#include "core/analysis/reachability.h"
#include "core/analysis/representation.h"

namespace headroom::worker {
namespace {

struct RepresentOptions {
  std::string input, target;
  int head_size = -1;  // -1: not given
  uint64_t seed = 0;
  int max_iter = 400;
  bool json = false;
  bool causal = false;
  // --sweep
  std::string sweep;  // "N_MIN:N_MAX"
  std::string masks = "full,causal";
  std::string pattern = "random";
  int targets = 10, restarts = 3;
  std::string csv;
};

nlohmann::json matrix_json(const Eigen::MatrixXd& m) {
  auto rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    auto row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

// What holds at this head size (docs/causal_threshold.md), in one sentence.
std::string theorem_sentence(int d_p, int n, core::AttentionMask mask) {
  const auto t = core::reachability_thresholds(n, mask);
  const std::string dp = std::to_string(d_p), nn = std::to_string(n);
  if (d_p >= t.every_pattern)
    return "LRB Thm 1: d_p = " + dp + " >= n - 1 = " + std::to_string(t.every_pattern) + ": every positive " +
           (mask == core::AttentionMask::Causal ? "causal " : "") + "pattern is reachable (construction)";
  if (mask == core::AttentionMask::Causal && d_p >= t.generic)
    return "causal, floor(n/2) = " + std::to_string(t.generic) + " <= d_p = " + dp +
           " < n - 1: almost every causal pattern "
           "is reachable exactly and every one to any precision, but a few structured ones (e.g. self against a "
           "uniform "
           "past) only with ever larger weights; this is the best fit found";
  return std::string("d_p = ") + dp + " < " + std::to_string(t.generic) +
         (mask == core::AttentionMask::Causal ? " = floor(n/2) (causal)" : " = n - 1 (full)") +
         ": almost no pattern is reachable, even approximately; this is the best fit found";
}

int run_sweep(const RepresentOptions& o) {
  core::ThresholdSweep s;
  const auto colon = o.sweep.find(':');
  try {
    s.n_min = std::stoi(o.sweep.substr(0, colon));
    s.n_max = colon == std::string::npos ? s.n_min : std::stoi(o.sweep.substr(colon + 1));
  } catch (const std::exception&) {
    s.n_min = s.n_max = -1;
  }
  if (s.n_min < 2 || s.n_max < s.n_min || s.n_max > 48) {
    std::cerr << "headroom-worker represent: --sweep " << o.sweep
              << ": give the token counts as N or N_MIN:N_MAX with 2 <= N_MIN <= N_MAX <= 48, e.g. --sweep 4:12\n";
    return kExitBadInput;
  }
  s.masks.clear();
  std::stringstream ms(o.masks);
  for (std::string m; std::getline(ms, m, ',');) {
    if (m == "full") s.masks.push_back(core::AttentionMask::Full);
    else if (m == "causal") s.masks.push_back(core::AttentionMask::Causal);
    else {
      std::cerr << "headroom-worker represent: --masks " << o.masks << ": '" << m
                << "' is not a mask; use full, causal or full,causal\n";
      return kExitBadInput;
    }
  }
  if (o.pattern == "random") s.target = core::ThresholdTarget::Random;
  else if (o.pattern == "self-vs-past") s.target = core::ThresholdTarget::SelfVsPast;
  else {
    std::cerr << "headroom-worker represent: --pattern " << o.pattern << ": use random or self-vs-past\n";
    return kExitBadInput;
  }
  s.targets = o.targets;
  s.seed = o.seed;
  s.d_p_max_extra = 1;
  s.fit.max_iterations = o.max_iter;
  s.fit.restarts = o.restarts;
  std::ofstream csv;
  if (!o.csv.empty()) {
    if (!output_file_ok(o.csv, "represent", "--csv")) return kExitBadInput;
    csv.open(o.csv);
    if (!csv) {
      std::cerr << "headroom-worker represent: cannot write --csv " << o.csv << ": " << std::strerror(errno) << "\n";
      return kExitBadInput;
    }
    csv << "mask,pattern,n,d_p,targets,reached,median_log_error,worst_log_error,median_max_logit,log_errors\n"
        << std::setprecision(6);
  }
  if (!o.json)
    std::cout << "mask    pattern       n  d_p  reached  median max|log reached - log P|  worst  median max|logit|\n";
  const auto points = core::sweep_threshold(s, [&](const core::ThresholdPoint& p) {
    if (csv.is_open()) {
      csv << core::to_string(p.mask) << "," << core::to_string(p.target) << "," << p.n << "," << p.d_p << ","
          << p.errors.size() << "," << p.reached << "," << p.median_error << "," << p.worst_error << ","
          << p.median_max_logit << ",";
      for (size_t i = 0; i < p.errors.size(); ++i) csv << (i ? ";" : "") << p.errors[i];
      csv << "\n" << std::flush;
    }
    if (!o.json)
      std::cout << std::left << std::setw(8) << core::to_string(p.mask) << std::setw(14) << core::to_string(p.target)
                << std::right << std::setw(2) << p.n << std::setw(5) << p.d_p << std::setw(6) << p.reached << "/"
                << std::left << std::setw(3) << p.errors.size() << std::right << std::scientific << std::setprecision(2)
                << std::setw(13) << p.median_error << std::setw(13) << p.worst_error << std::setw(11)
                << p.median_max_logit << std::defaultfloat << "\n"
                << std::flush;
  });
  nlohmann::ordered_json thresholds = nlohmann::json::array();
  for (auto mask : s.masks)
    for (int n = s.n_min; n <= s.n_max; ++n) {
      const auto t = core::reachability_thresholds(n, mask);
      thresholds.push_back({{"mask", core::to_string(mask)},
                            {"n", n},
                            {"measured", core::measured_threshold(points, mask, n)},
                            {"theory_generic", t.generic},
                            {"theory_every_pattern", t.every_pattern}});
    }
  if (o.json) {
    nlohmann::ordered_json out;
    out["pattern"] = o.pattern;
    out["targets"] = s.target == core::ThresholdTarget::Random ? s.targets : 1;
    out["reached_tolerance"] = core::kReachedTolerance;
    out["thresholds"] = thresholds;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "\nsmallest d_p reaching every target (measured / theory for " << o.pattern << " targets):\n";
    for (const auto& t : thresholds)
      std::cout << "  " << t["mask"].get<std::string>() << " n=" << t["n"] << ": " << t["measured"] << " / "
                << (o.pattern == "random" ? t["theory_generic"] : t["theory_every_pattern"]) << "\n";
  }
  return kExitOk;
}

int run_represent(const RepresentOptions& o) {
  if (!o.sweep.empty()) return run_sweep(o);
  if (o.input.empty() || o.target.empty() || o.head_size == -1) {
    std::cerr << "headroom-worker represent: give --input X.csv, --target P.csv and --head-size d_p "
                 "(or --sweep N_MIN:N_MAX to measure the thresholds on drawn targets)\n";
    return kExitBadInput;
  }
  Eigen::MatrixXd X, P;
  try {
    X = read_csv_matrix(o.input);
    P = read_csv_matrix(o.target);
  } catch (const std::exception& e) {
    std::cerr << "headroom-worker represent: " << e.what() << "\n";
    return kExitBadInput;
  }
  const auto mask = o.causal ? core::AttentionMask::Causal : core::AttentionMask::Full;
  if (auto err = core::check_representation_inputs(X, P, o.head_size, mask)) {
    std::cerr << "headroom-worker represent: " << *err << " (X from " << o.input << ", P from " << o.target << ")\n";
    return kExitBadInput;
  }
  core::FitOptions fit;
  fit.seed = o.seed;
  fit.max_iterations = o.max_iter;
  const auto r = core::represent_attention(X, P, o.head_size, mask, fit);
  const int n = static_cast<int>(X.cols());
  const auto t = core::reachability_thresholds(n, mask);

  nlohmann::ordered_json out;
  out["method"] = r.method;
  out["max_abs_error"] = r.max_abs_error;
  out["mask"] = core::to_string(mask);
  out["d"] = X.rows();
  out["n"] = n;
  out["head_size"] = o.head_size;
  out["every_pattern_threshold"] = t.every_pattern;
  out["generic_threshold"] = t.generic;
  out["theorem"] = theorem_sentence(o.head_size, n, mask);
  out["reached"] = matrix_json(r.reached);
  out["W_q"] = matrix_json(r.W_q);
  out["W_k"] = matrix_json(r.W_k);
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "method: " << r.method << "\nmax_abs_error: " << r.max_abs_error << "\n"
            << out["theorem"].get<std::string>() << "\nreached (columns are queries):\n"
            << r.reached << "\n";
  return kExitOk;
}

}  // namespace

Command register_represent(CLI::App& root) {
  auto o = std::make_shared<RepresentOptions>();
  auto* app = root.add_subcommand("represent", "LRB Theorem 1: reach a target attention matrix P from inputs X");
  app->add_option("--input", o->input, "X.csv: d rows x n columns (tokens are columns, LRB's convention)");
  app->add_option(
      "--target", o->target,
      "P.csv: n x n, columns (queries) summing to 1, positive where the query sees the key (causal: rows 0..j "
      "of column j; the rest 0)");
  app->add_option("--head-size", o->head_size, "Head size d_p");
  app->add_flag("--causal", o->causal, "Causal attention: query j sees keys 0..j (what every suite trains)");
  app->add_option("--seed", o->seed, "Seed for the fit's random starts (default 0); --sweep: the first target's seed");
  app->add_option("--max-iter", o->max_iter, "L-BFGS iterations per start of the fit (default 400)")
      ->check(CLI::Range(1, 100000));
  app->add_option("--sweep", o->sweep,
                  "Measure instead: for n in N_MIN:N_MAX and d_p = 1..n, fit drawn targets on X with d = 2n rows");
  app->add_option("--masks", o->masks, "--sweep: full, causal or full,causal (default)");
  app->add_option("--pattern", o->pattern, "--sweep: random (default) or self-vs-past targets");
  app->add_option("--targets", o->targets, "--sweep: random targets per (mask, n) (default 10)")
      ->check(CLI::Range(1, 10000));
  app->add_option("--restarts", o->restarts, "--sweep: random starts per fit (default 3)")->check(CLI::Range(1, 100));
  app->add_option("--csv", o->csv, "--sweep: also write every point (and every target's error) to this CSV");
  app->add_flag("--json", o->json, "Print one JSON object");
  return {app, [o] { return run_represent(*o); }};
}

}  // namespace headroom::worker
