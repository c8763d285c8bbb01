// `headroom-worker represent`: LRB Theorem 1 on the user's X and P — the construction when
// d_p >= n (and X has full column rank), the best fit otherwise.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/worker/csv_matrix.h"
#include "app/worker/worker_cli.h"
#include "core/analysis/representation.h"

namespace headroom::worker {
namespace {

struct RepresentOptions {
  std::string input, target;
  int head_size = 0;
  uint64_t seed = 0;
  int max_iter = 400;
  bool json = false;
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

int run_represent(const RepresentOptions& o) {
  Eigen::MatrixXd X, P;
  try {
    X = read_csv_matrix(o.input);
    P = read_csv_matrix(o.target);
  } catch (const std::exception& e) {
    std::cerr << "headroom-worker represent: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (auto err = core::check_representation_inputs(X, P, o.head_size)) {
    std::cerr << "headroom-worker represent: " << *err << " (X from " << o.input << ", P from " << o.target << ")\n";
    return kExitBadInput;
  }
  core::FitOptions fit;
  fit.seed = o.seed;
  fit.max_iterations = o.max_iter;
  const auto r = core::represent_attention(X, P, o.head_size, fit);

  nlohmann::ordered_json out;
  out["method"] = r.method;
  out["max_abs_error"] = r.max_abs_error;
  out["d"] = X.rows();
  out["n"] = X.cols();
  out["head_size"] = o.head_size;
  out["theorem"] = o.head_size >= X.cols() ? "LRB Thm 1: d_p >= n, every positive column-stochastic P is reachable"
                                           : "LRB Thm 1: d_p < n, some P are unreachable; this is the best fit found";
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
  app->add_option("--input", o->input, "X.csv: d rows x n columns (tokens are columns, LRB's convention)")->required();
  app->add_option("--target", o->target, "P.csv: n x n, positive, columns summing to 1")->required();
  app->add_option("--head-size", o->head_size, "Head size d_p")->required();
  app->add_option("--seed", o->seed, "Seed for the fit's random starts (default 0)");
  app->add_option("--max-iter", o->max_iter, "L-BFGS iterations per start of the fit (default 400)")->check(CLI::Range(1, 100000));
  app->add_flag("--json", o->json, "Print one JSON object");
  return {app, [o] { return run_represent(*o); }};
}

}  // namespace headroom::worker
