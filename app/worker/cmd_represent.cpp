// `headroom-worker represent`: LRB Theorem 1 on the user's X and P — a construction when one
// applies (d_p >= n - 1; causal: d_p >= floor(n/2) and P generic; X of full column rank), the best
// fit otherwise; full or causal attention. `--sweep` measures the thresholds on drawn targets
// instead (docs/causal_threshold.md).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <vector>

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
  int head_size = std::numeric_limits<int>::min();  // not given (-1 given is refused by name)
  uint64_t seed = 0;
  int max_iter = 400;
  bool json = false;
  bool causal = false;
  std::string method = "auto";  // auto | fit | construction
  double perturbation = 0;      // > 0: approach_attention with this eps (causal)
  // --sweep
  std::string sweep;  // "N_MIN:N_MAX[:STEP]"
  std::string masks = "full,causal";
  std::string pattern = "random";
  int targets = 10, restarts = 3;
  std::string csv;
  std::vector<std::string> given;  // the options on the command line, by long name
};

// Options of the other mode are refused, not ignored: "--sweep 4:8 --input X.csv" would measure
// drawn inputs while the user believes it measured theirs.
bool refuse_other_mode(const RepresentOptions& o) {
  if (o.sweep.empty())
    return refuse_given(o.given, {"--masks", "--pattern", "--targets", "--restarts", "--csv"}, "represent",
                        "is a --sweep option (it measures drawn targets); give --sweep N_MIN:N_MAX with it, or drop "
                        "it to reach your P from your X");
  return refuse_given(o.given, {"--causal"}, "represent",
                      "is for one target; --sweep takes the masks it measures as --masks causal (or full,causal)") ||
         refuse_given(o.given, {"--perturbation"}, "represent",
                      "applies to one target (--input, --target), not to --sweep") ||
         refuse_given(o.given, {"--input", "--target", "--head-size"}, "represent",
                      "is for one target; --sweep draws its own X (d = 2n rows), targets and d_p = 1..n: drop it, or "
                      "drop --sweep to reach your P from your X");
}

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
           " < n - 1: almost every causal pattern is reachable exactly (a construction of rank floor(n/2)) and "
           "every one to any precision, but a few structured ones (e.g. self against a uniform past) only with "
           "ever larger weights";
  return std::string("d_p = ") + dp + " < " + std::to_string(t.generic) +
         (mask == core::AttentionMask::Causal ? " = floor(n/2) (causal)" : " = n - 1 (full)") +
         ": almost no pattern is reachable, even approximately; this is the best fit found";
}

// --method: auto, fit or construction; false (and a message) for anything else.
bool parse_method(const std::string& text, core::ReachMethod* method) {
  for (auto m : {core::ReachMethod::Auto, core::ReachMethod::Fit, core::ReachMethod::Construction})
    if (text == core::to_string(m)) {
      *method = m;
      return true;
    }
  std::cerr << "headroom-worker represent: --method " << text
            << ": use auto (a construction where one applies, else the fit), fit or construction\n";
  return false;
}

int run_sweep(const RepresentOptions& o) {
  core::ThresholdSweep s;
  if (!parse_method(o.method, &s.method)) return kExitBadInput;
  // Fits cost ~n^3 per iteration over every d_p; the construction runs once per target.
  const int n_limit = s.method == core::ReachMethod::Construction ? 256 : 48;
  std::vector<int> parts;  // N_MIN, N_MAX, STEP; empty when a part is not a whole number
  std::stringstream ns(o.sweep);
  for (std::string part; std::getline(ns, part, ':');) {
    size_t used = 0;
    try {
      parts.push_back(std::stoi(part, &used));
    } catch (const std::exception&) {
      used = std::string::npos;
    }
    if (used != part.size()) {
      parts.clear();
      break;
    }
  }
  if (parts.size() == 1) parts.push_back(parts[0]);
  if (parts.size() == 2) parts.push_back(1);
  if (parts.size() != 3 || parts[0] < 2 || parts[1] < parts[0] || parts[1] > n_limit || parts[2] < 1) {
    std::cerr << "headroom-worker represent: --sweep " << o.sweep
              << ": give the token counts as N, N_MIN:N_MAX or N_MIN:N_MAX:STEP with 2 <= N_MIN <= N_MAX <= " << n_limit
              << (s.method == core::ReachMethod::Construction ? "" : " (256 with --method construction)")
              << " and STEP >= 1, e.g. --sweep 4:12\n";
    return kExitBadInput;
  }
  s.n_min = parts[0];
  s.n_max = parts[1];
  s.n_step = parts[2];
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
    csv << "mask,pattern,method,n,d_p,targets,reached,constructed,median_log_error,worst_log_error,median_max_logit,"
           "worst_max_logit,log_errors\n"
        << std::setprecision(6);
  }
  if (!o.json)
    std::cout << "mask    pattern        n  d_p  reached  constructed  median max|log reached - log P|  worst  "
                 "median max|logit|\n";
  const auto points = core::sweep_threshold(s, [&](const core::ThresholdPoint& p) {
    if (csv.is_open()) {
      csv << core::to_string(p.mask) << "," << core::to_string(p.target) << "," << core::to_string(s.method) << ","
          << p.n << "," << p.d_p << "," << p.errors.size() << "," << p.reached << "," << p.constructed << ","
          << p.median_error << "," << p.worst_error << "," << p.median_max_logit << "," << p.worst_max_logit << ",";
      for (size_t i = 0; i < p.errors.size(); ++i) csv << (i ? ";" : "") << p.errors[i];
      csv << "\n" << std::flush;
    }
    if (!o.json)
      std::cout << std::left << std::setw(8) << core::to_string(p.mask) << std::setw(14) << core::to_string(p.target)
                << std::right << std::setw(3) << p.n << std::setw(5) << p.d_p << std::setw(6) << p.reached << "/"
                << std::left << std::setw(3) << p.errors.size() << std::right << std::setw(8) << p.constructed
                << std::setw(5) << "" << std::scientific << std::setprecision(2) << std::setw(13) << p.median_error
                << std::setw(13) << p.worst_error << std::setw(11) << p.median_max_logit << std::defaultfloat << "\n"
                << std::flush;
  });
  // A construction sweep tries one d_p per (mask, n): it says how many targets that d_p reached,
  // not a smallest d_p.
  const bool constructing = s.method == core::ReachMethod::Construction;
  nlohmann::ordered_json thresholds = nlohmann::json::array();
  for (auto mask : s.masks)
    for (int n = s.n_min; n <= s.n_max; n += s.n_step) {
      const auto t = core::reachability_thresholds(n, mask);
      nlohmann::ordered_json row = {{"mask", core::to_string(mask)}, {"n", n}};
      if (constructing) {
        for (const auto& p : points)
          if (p.mask == mask && p.n == n) row["d_p"] = p.d_p, row["reached"] = p.reached;
      } else {
        row["measured"] = core::measured_threshold(points, mask, n);
      }
      row["theory_generic"] = t.generic;
      row["theory_every_pattern"] = t.every_pattern;
      thresholds.push_back(std::move(row));
    }
  const int targets = s.target == core::ThresholdTarget::Random ? s.targets : 1;
  if (o.json) {
    nlohmann::ordered_json out;
    out["pattern"] = o.pattern;
    out["method"] = o.method;
    out["targets"] = targets;
    out["reached_tolerance"] = core::kReachedTolerance;
    out["thresholds"] = thresholds;
    std::cout << out.dump(2) << "\n";
  } else if (constructing) {
    std::cout << "\ntargets the construction reached at the smallest d_p it allows (" << o.pattern << " targets):\n";
    for (const auto& t : thresholds)
      std::cout << "  " << t["mask"].get<std::string>() << " n=" << t["n"] << ", d_p=" << t["d_p"] << ": "
                << t["reached"] << " of " << targets << "\n";
  } else {
    std::cout << "\nsmallest d_p reaching every target (measured / theory for " << o.pattern << " targets):\n";
    for (const auto& t : thresholds)
      std::cout << "  " << t["mask"].get<std::string>() << " n=" << t["n"] << ": " << t["measured"] << " / "
                << (o.pattern == "random" ? t["theory_generic"] : t["theory_every_pattern"]) << "\n";
  }
  return kExitOk;
}

int run_represent(const RepresentOptions& o) {
  if (refuse_other_mode(o)) return kExitBadInput;
  if (!o.sweep.empty()) return run_sweep(o);
  if (o.input.empty() || o.target.empty() || o.head_size == std::numeric_limits<int>::min()) {
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
  core::ReachMethod method;
  if (!parse_method(o.method, &method)) return kExitBadInput;
  core::FitOptions fit;
  fit.seed = o.seed;
  fit.max_iterations = o.max_iter;
  if (o.perturbation > 0 && method != core::ReachMethod::Auto) {
    std::cerr << "headroom-worker represent: --perturbation constructs a nearby pattern, --method " << o.method
              << " asks for something else; give one of them\n";
    return kExitBadInput;
  }
  core::RepresentationResult r;
  try {
    if (o.perturbation > 0) {
      if (!o.causal) throw std::invalid_argument("it applies to causal attention only (--causal)");
      r = core::approach_attention(X, P, o.head_size, o.perturbation);
    } else {
      r = core::reach_attention(X, P, o.head_size, mask, method, fit);
    }
  } catch (const std::invalid_argument& e) {  // the construction does not apply here
    std::cerr << "headroom-worker represent: " << (o.perturbation > 0 ? "--perturbation: " : "--method construction: ")
              << e.what() << " (X from " << o.input << ", P from " << o.target << ")\n";
    return kExitBadInput;
  }
  const int n = static_cast<int>(X.cols());
  const auto t = core::reachability_thresholds(n, mask);
  const int smallest = core::minimal_head_size(P, mask);  // P was checked above: positive where seen

  nlohmann::ordered_json out;
  out["method"] = r.method;
  if (r.construction_rank > 0) out["construction_rank"] = r.construction_rank;
  if (r.perturbation > 0) out["perturbation"] = r.perturbation;
  out["max_abs_error"] = r.max_abs_error;
  out["max_log_error"] = r.max_log_error;
  out["max_logit"] = r.max_logit;
  out["mask"] = core::to_string(mask);
  out["d"] = X.rows();
  out["n"] = n;
  out["head_size"] = o.head_size;
  out["every_pattern_threshold"] = t.every_pattern;
  out["generic_threshold"] = t.generic;
  out["minimal_head_size"] = smallest;
  out["theorem"] = theorem_sentence(o.head_size, n, mask);
  out["reached"] = matrix_json(r.reached);
  out["W_q"] = matrix_json(r.W_q);
  out["W_k"] = matrix_json(r.W_k);
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "method: " << r.method;
  if (r.construction_rank > 0) std::cout << " (logits of rank " << r.construction_rank << ")";
  if (r.perturbation > 0) std::cout << " of a pattern within " << r.perturbation << " of P";
  std::cout << "\nmax_abs_error: " << r.max_abs_error << "\nmax_logit: " << r.max_logit << "\n"
            << out["theorem"].get<std::string>() << "\nthis P exactly: from d_p = " << smallest
            << " (the least rank of its logits)\nreached (columns are queries):\n"
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
  app->add_option("--method", o->method,
                  "auto (default: a construction where one applies, else the fit), fit (the fit alone) or "
                  "construction (refused where none applies; --sweep: only at the smallest d_p it allows)");
  app->add_option("--perturbation", o->perturbation,
                  "Causal, floor(n/2) <= d_p: construct the pattern P mixed with noise of this relative size "
                  "(P's entries times exp(eps z)) and measure against P: every causal P to any precision, with "
                  "logits growing as eps shrinks")
      ->check(finite_range(1e-12, 1.0));
  app->add_option("--sweep", o->sweep,
                  "Measure instead: for n in N_MIN:N_MAX[:STEP] and d_p = 1..n, reach drawn targets on X with d = 2n "
                  "rows");
  app->add_option("--masks", o->masks, "--sweep: full, causal or full,causal (default)");
  app->add_option("--pattern", o->pattern, "--sweep: random (default) or self-vs-past targets");
  app->add_option("--targets", o->targets, "--sweep: random targets per (mask, n) (default 10)")
      ->check(CLI::Range(1, 10000));
  app->add_option("--restarts", o->restarts, "--sweep: random starts per fit (default 3)")->check(CLI::Range(1, 100));
  app->add_option("--csv", o->csv, "--sweep: also write every point (and every target's error) to this CSV");
  app->add_flag("--json", o->json, "Print one JSON object");
  return {app, [o, app] {
            o->given = given_options(*app);
            return run_represent(*o);
          }};
}

}  // namespace headroom::worker
