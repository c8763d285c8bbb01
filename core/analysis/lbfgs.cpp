#include "core/analysis/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

namespace headroom::core {
namespace {

// The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to [lo, hi]; the
// middle of [lo, hi] when the cubic has no minimum there.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2, double lo, double hi) {
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2;
  const double d2 = std::sqrt(d2_square);
  const double at = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                             : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(at, lo), hi);
}

double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2) {
  return cubic_interpolate(x1, f1, g1, x2, f2, g2, std::min(x1, x2), std::max(x1, x2));
}

struct Point {
  double t = 0, f = 0, gtd = 0;
  Eigen::VectorXd g;
};

struct LineSearch {
  Point accepted;
  int evaluations = 0;
};

// Strong Wolfe conditions (c1 = 1e-4, c2 = 0.9) along d from x: bracket, then zoom by cubic
// interpolation; at most 25 evaluations (torch's _strong_wolfe).
LineSearch strong_wolfe(const LbfgsObjective& f, const Eigen::VectorXd& x, double t, const Eigen::VectorXd& d,
                        const Point& start) {
  constexpr double c1 = 1e-4, c2 = 0.9, tolerance_change = 1e-9;
  constexpr int max_ls = 25;
  const double d_norm = d.cwiseAbs().maxCoeff();
  LineSearch out;
  auto evaluate = [&](double step) {
    Point p;
    p.t = step;
    p.g.resize(x.size());
    p.f = f(x + step * d, &p.g);
    p.gtd = p.g.dot(d);
    ++out.evaluations;
    return p;
  };
  Point prev = start;
  prev.t = 0;
  Point next = evaluate(t);
  Point bracket[2];
  bool bracketed = false, done = false;
  int iter = 0;
  while (iter < max_ls) {
    const bool no_decrease = next.f > start.f + c1 * next.t * start.gtd || (iter > 1 && next.f >= prev.f);
    if (!no_decrease && std::abs(next.gtd) <= -c2 * start.gtd) {
      out.accepted = next;  // both conditions hold
      return out;
    }
    if (no_decrease || next.gtd >= 0) {  // a minimum lies between prev and next
      bracket[0] = prev;
      bracket[1] = next;
      bracketed = true;
      break;
    }
    const double step = cubic_interpolate(prev.t, prev.f, prev.gtd, next.t, next.f, next.gtd,
                                          next.t + 0.01 * (next.t - prev.t), next.t * 10);
    prev = next;
    next = evaluate(step);
    ++iter;
  }
  if (!bracketed) {  // no bracket in max_ls tries: zoom between the start and the last point
    bracket[0] = start;
    bracket[0].t = 0;
    bracket[1] = next;
  }
  // Zoom: keep the lower of the two ends ("low") and shrink towards a point meeting both conditions.
  bool insufficient_progress = false;
  int low = bracket[0].f <= bracket[1].f ? 0 : 1, high = 1 - low;
  while (!done && iter < max_ls) {
    if (std::abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change) break;
    double step =
        cubic_interpolate(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t, bracket[1].f, bracket[1].gtd);
    const double top = std::max(bracket[0].t, bracket[1].t), bottom = std::min(bracket[0].t, bracket[1].t);
    const double eps = 0.1 * (top - bottom);
    if (std::min(top - step, step - bottom) < eps) {
      // Too close to an end: move inside, unless the last step already made progress there.
      if (insufficient_progress || step >= top || step <= bottom) {
        step = std::abs(step - top) < std::abs(step - bottom) ? top - eps : bottom + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    Point p = evaluate(step);
    ++iter;
    if (p.f > start.f + c1 * p.t * start.gtd || p.f >= bracket[low].f) {
      bracket[high] = std::move(p);
      low = bracket[0].f <= bracket[1].f ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(p.gtd) <= -c2 * start.gtd) done = true;
      else if (p.gtd * (bracket[high].t - bracket[low].t) >= 0) bracket[high] = bracket[low];
      bracket[low] = std::move(p);
    }
  }
  out.accepted = bracket[low];
  return out;
}

}  // namespace

LbfgsResult minimize_lbfgs(const LbfgsObjective& f, Eigen::VectorXd* x_io, const LbfgsOptions& options) {
  Eigen::VectorXd& x = *x_io;
  const int max_evaluations = options.max_evaluations > 0 ? options.max_evaluations : options.max_iterations * 5 / 4;
  LbfgsResult result;
  Point here;
  here.g.resize(x.size());
  here.f = f(x, &here.g);
  result.evaluations = 1;
  result.loss = here.f;
  if (here.g.cwiseAbs().maxCoeff() <= options.tolerance_grad) return result;

  std::deque<Eigen::VectorXd> old_y, old_s;  // oldest first
  std::deque<double> rho;
  std::vector<double> alpha(static_cast<size_t>(std::max(1, options.history)));
  Eigen::VectorXd d, previous_g;
  double t = 0, h_diag = 1;
  while (result.iterations < options.max_iterations) {
    ++result.iterations;
    if (result.iterations == 1) {
      d = -here.g;
    } else {
      const Eigen::VectorXd y = here.g - previous_g, s = d * t;
      const double ys = y.dot(s);
      if (ys > 1e-10) {  // keep the pair only when it carries curvature
        if (static_cast<int>(old_y.size()) == options.history) {
          old_y.pop_front();
          old_s.pop_front();
          rho.pop_front();
        }
        old_y.push_back(y);
        old_s.push_back(s);
        rho.push_back(1.0 / ys);
        h_diag = ys / y.dot(y);
      }
      // Two-loop recursion: d = -H g with H the L-BFGS inverse-Hessian estimate.
      Eigen::VectorXd q = -here.g;
      for (int i = static_cast<int>(old_y.size()) - 1; i >= 0; --i) {
        alpha[size_t(i)] = old_s[size_t(i)].dot(q) * rho[size_t(i)];
        q -= alpha[size_t(i)] * old_y[size_t(i)];
      }
      d = q * h_diag;
      for (size_t i = 0; i < old_y.size(); ++i) {
        const double beta = old_y[i].dot(d) * rho[i];
        d += (alpha[i] - beta) * old_s[i];
      }
    }
    previous_g = here.g;
    const double previous_loss = here.f;
    t = result.iterations == 1 ? std::min(1.0, 1.0 / here.g.cwiseAbs().sum()) * options.step : options.step;
    const double gtd = here.g.dot(d);
    if (gtd > -options.tolerance_change) break;  // not a descent direction any more
    here.gtd = gtd;
    LineSearch ls = strong_wolfe(f, x, t, d, here);
    t = ls.accepted.t;
    x += t * d;
    here.f = ls.accepted.f;
    here.g = std::move(ls.accepted.g);
    result.evaluations += ls.evaluations;
    result.loss = here.f;
    if (result.evaluations >= max_evaluations) break;
    if (here.g.cwiseAbs().maxCoeff() <= options.tolerance_grad) break;
    if ((d * t).cwiseAbs().maxCoeff() <= options.tolerance_change) break;
    if (std::abs(here.f - previous_loss) < options.tolerance_change) break;
  }
  return result;
}

}  // namespace headroom::core
