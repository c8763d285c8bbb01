// L-BFGS with a strong-Wolfe line search on a dense Eigen vector: the algorithm of
// torch.optim.LBFGS (and its C++ twin in LibTorch; after minFunc), with the same defaults and
// stopping rules, for small problems where LibTorch's per-operation overhead dominates (LRB
// Theorem 1's fits: a few hundred parameters, where LibTorch's optimiser spent ~0.5 ms an
// iteration on bookkeeping and this spends microseconds). Torch-free.
#pragma once

#include <Eigen/Dense>

#include <functional>

namespace headroom::core {

struct LbfgsOptions {
  int max_iterations = 400;         // iterations (torch's max_iter)
  int max_evaluations = 0;          // objective evaluations; 0: max_iterations * 5 / 4 (torch's default)
  int history = 20;                 // (s, y) pairs kept (torch's history_size)
  double step = 1.0;                // initial step of each line search (torch's lr)
  double tolerance_grad = 1e-12;    // stop when max |grad| <= this
  double tolerance_change = 1e-15;  // stop when the step or the loss changes less than this
};

struct LbfgsResult {
  double loss = 0;
  int iterations = 0;
  int evaluations = 0;
};

// f(x, grad) returns the loss at x and writes its gradient into *grad (already sized like x).
using LbfgsObjective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd* grad)>;

// Minimises f from *x, leaving the last accepted point in *x. Deterministic.
LbfgsResult minimize_lbfgs(const LbfgsObjective& f, Eigen::VectorXd* x, const LbfgsOptions& options = {});

}  // namespace headroom::core
