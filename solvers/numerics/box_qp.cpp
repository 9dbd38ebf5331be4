#include "solvers/numerics/box_qp.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace luztar {

double box_qp_kkt_error(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                        const Eigen::VectorXd& hi, const Eigen::VectorXd& x) {
  double err = 0.0;
  for (int i = 0; i < x.size(); ++i) {
    const double r = b[i] - A.row(i).dot(x);
    err = std::max(err, std::max(lo[i] - x[i], x[i] - hi[i]) * A(i, i));  // bound violation
    const bool at_lo = x[i] <= lo[i], at_hi = x[i] >= hi[i];
    if (at_lo && at_hi) continue;  // lo == hi: any residual is fine
    if (at_lo) err = std::max(err, r);
    else if (at_hi) err = std::max(err, -r);
    else err = std::max(err, std::abs(r));
  }
  return err;
}

BoxQpSolution solve_box_qp(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                           const Eigen::VectorXd& hi, int max_sweeps) {
  BoxQpWorkspace ws;
  BoxQpSolution s;
  solve_box_qp(A, b, lo, hi, ws, s, max_sweeps);
  return s;
}

namespace {

// Scale of the problem: the data and the finite bounds (an infinite bound
// says nothing about the size of the solution).
double problem_scale(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                     const Eigen::VectorXd& hi) {
  double scale = b.cwiseAbs().maxCoeff();
  for (int i = 0; i < b.size(); ++i) {
    if (std::isfinite(lo[i])) scale = std::max(scale, A(i, i) * std::abs(lo[i]));
    if (std::isfinite(hi[i])) scale = std::max(scale, A(i, i) * std::abs(hi[i]));
  }
  return scale;
}

// Projected Gauss-Seidel (cyclic coordinate descent on the convex QP) until a
// sweep changes no variable by more than tol (in force units).
void projected_gauss_seidel(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                            const Eigen::VectorXd& hi, double tol, int max_sweeps, BoxQpSolution& s) {
  const int n = static_cast<int>(b.size());
  for (s.sweeps = 1; s.sweeps <= max_sweeps; ++s.sweeps) {
    double change = 0.0;
    for (int i = 0; i < n; ++i) {
      const double r = b[i] - A.row(i).dot(s.x);
      const double xi = std::clamp(s.x[i] + r / A(i, i), lo[i], hi[i]);
      change = std::max(change, std::abs(xi - s.x[i]) * A(i, i));
      s.x[i] = xi;
    }
    if (change <= tol) break;
  }
}

// Polish: solve the free block exactly with the bounds found by PGS (into
// ws.polished). The bounded variables get identity rows (dx = 0), so the
// system keeps size n and the workspace its storage.
void polish(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
            double scale, const Eigen::VectorXd& x, BoxQpWorkspace& ws) {
  const int n = static_cast<int>(b.size());
  const double margin = 1e-9;
  ws.polished = x;
  ws.reduced.setZero(n, n);
  ws.rhs.setZero(n);
  bool any_free = false;
  for (int i = 0; i < n; ++i) {
    // snapping distance: a fraction of the box, or of the problem's scale when the box is unbounded
    const double width = std::isfinite(hi[i] - lo[i]) ? hi[i] - lo[i] : scale / A(i, i);
    if (x[i] <= lo[i] + margin * width) ws.polished[i] = lo[i];
    else if (x[i] >= hi[i] - margin * width) ws.polished[i] = hi[i];
    else any_free = true;
  }
  if (!any_free) return;
  auto is_free = [&](int i) { return ws.polished[i] != lo[i] && ws.polished[i] != hi[i]; };
  for (int i = 0; i < n; ++i) {
    if (!is_free(i)) {
      ws.reduced(i, i) = 1.0;
      continue;
    }
    // residual of row i at the PGS point with the bounded variables at their bounds
    ws.rhs[i] = b[i] - A.row(i).dot(ws.polished);
    for (int j = 0; j < n; ++j)
      if (is_free(j)) ws.reduced(i, j) = A(i, j);
  }
  // Minimum-norm correction from the PGS point keeps the polished point close
  // to it when A is singular (non-unique torques).
  ws.cod.compute(ws.reduced);
  ws.dx = ws.cod.solve(ws.rhs);
  for (int i = 0; i < n; ++i)
    if (is_free(i)) ws.polished[i] += ws.dx[i];
}

}  // namespace

void solve_box_qp(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                  const Eigen::VectorXd& hi, BoxQpWorkspace& ws, BoxQpSolution& s, int max_sweeps, bool warm) {
  const int n = static_cast<int>(b.size());
  assert(A.rows() == n && A.cols() == n && lo.size() == n && hi.size() == n);
  warm = warm && s.x.size() == n;
  s.x.resize(n);  // no allocation when the size is unchanged
  s.residual.resize(n);
  s.sweeps = 0;
  if (n == 0) {
    s.converged = true;
    return;
  }
  const double scale = problem_scale(A, b, lo, hi);
  const double tol = 1e-13 * std::max(scale, 1e-300);
  for (int i = 0; i < n; ++i) s.x[i] = std::clamp(warm ? s.x[i] : 0.0, lo[i], hi[i]);
  projected_gauss_seidel(A, b, lo, hi, tol, max_sweeps, s);
  polish(A, b, lo, hi, scale, s.x, ws);
  const double err_pgs = box_qp_kkt_error(A, b, lo, hi, s.x);
  const double err_pol = box_qp_kkt_error(A, b, lo, hi, ws.polished);
  if (err_pol <= err_pgs) s.x = ws.polished;
  s.residual = b;
  s.residual.noalias() -= A * s.x;
  s.converged = std::min(err_pgs, err_pol) <= 1e-9 * std::max(scale, 1e-300);
}

}  // namespace luztar
