#include "solvers/box_qp.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

namespace luztar {

double box_qp_kkt_error(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                        const Eigen::VectorXd& hi, const Eigen::VectorXd& x) {
  const Eigen::VectorXd r = b - A * x;
  double err = 0.0;
  for (int i = 0; i < x.size(); ++i) {
    err = std::max(err, std::max(lo[i] - x[i], x[i] - hi[i]) * A(i, i));  // bound violation
    const bool at_lo = x[i] <= lo[i], at_hi = x[i] >= hi[i];
    if (at_lo && at_hi) continue;  // lo == hi: any residual is fine
    if (at_lo) err = std::max(err, r[i]);
    else if (at_hi) err = std::max(err, -r[i]);
    else err = std::max(err, std::abs(r[i]));
  }
  return err;
}

BoxQpSolution solve_box_qp(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                           const Eigen::VectorXd& hi, int max_sweeps) {
  const int n = static_cast<int>(b.size());
  assert(A.rows() == n && A.cols() == n && lo.size() == n && hi.size() == n);
  BoxQpSolution s;
  s.x = Eigen::VectorXd::Zero(n);
  if (n == 0) {
    s.residual = b;
    s.converged = true;
    return s;
  }
  double scale = b.cwiseAbs().maxCoeff();
  for (int i = 0; i < n; ++i) scale = std::max(scale, A(i, i) * std::max(std::abs(lo[i]), std::abs(hi[i])));
  const double tol = 1e-13 * std::max(scale, 1e-300);
  for (int i = 0; i < n; ++i) s.x[i] = std::clamp(0.0, lo[i], hi[i]);

  // Projected Gauss-Seidel (cyclic coordinate descent on the convex QP).
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

  // Polish: solve the free block exactly with the bounds found by PGS.
  std::vector<int> free_set;
  const double margin = 1e-9;
  Eigen::VectorXd polished = s.x;
  for (int i = 0; i < n; ++i) {
    const double width = hi[i] - lo[i];
    if (s.x[i] <= lo[i] + margin * width) polished[i] = lo[i];
    else if (s.x[i] >= hi[i] - margin * width) polished[i] = hi[i];
    else free_set.push_back(i);
  }
  if (!free_set.empty()) {
    const int nf = static_cast<int>(free_set.size());
    Eigen::MatrixXd Aff(nf, nf);
    Eigen::VectorXd rhs(nf);
    for (int a = 0; a < nf; ++a) {
      rhs[a] = b[free_set[a]];
      for (int j = 0; j < n; ++j)
        if (std::find(free_set.begin(), free_set.end(), j) == free_set.end())
          rhs[a] -= A(free_set[a], j) * polished[j];
      for (int c = 0; c < nf; ++c) Aff(a, c) = A(free_set[a], free_set[c]);
    }
    // Minimum-norm correction from the PGS point keeps the polished point close to it
    // when A is singular (non-unique torques).
    Eigen::VectorXd x0(nf);
    for (int a = 0; a < nf; ++a) x0[a] = s.x[free_set[a]];
    const Eigen::VectorXd dx = Aff.completeOrthogonalDecomposition().solve(rhs - Aff * x0);
    for (int a = 0; a < nf; ++a) polished[free_set[a]] = x0[a] + dx[a];
  }
  const double err_pgs = box_qp_kkt_error(A, b, lo, hi, s.x);
  const double err_pol = box_qp_kkt_error(A, b, lo, hi, polished);
  if (err_pol <= err_pgs) s.x = polished;
  s.residual = b - A * s.x;
  s.converged = std::min(err_pgs, err_pol) <= 1e-9 * std::max(scale, 1e-300);
  return s;
}

}  // namespace luztar
