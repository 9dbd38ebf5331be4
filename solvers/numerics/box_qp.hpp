#pragma once
// Box-constrained convex quadratic program (equivalently a box-LCP / MLCP):
//
//   minimise 1/2 x^T A x - b^T x   subject to  lo <= x <= hi
//
// with A symmetric positive semi-definite with a positive diagonal. Its KKT
// conditions, with r = b - A x, are: r_i = 0 where lo_i < x_i < hi_i, r_i <= 0 at
// x_i = lo_i, r_i >= 0 at x_i = hi_i. For friction mode selection x are the
// friction torques of the candidate elements, A = F M^-1 F^T the Delassus
// matrix, and r their relative accelerations: Gauss's principle of least
// constraint. r is unique even when x is not (A singular).
//
// Bounds may be infinite (lo = 0, hi = inf: a unilateral contact impulse).
//
// Method: projected Gauss-Seidel until the iterate settles, then the active set
// it found is polished by an exact solve of the free block. `warm`: start from
// out.x (clamped to the box) when it has the right size, e.g. the previous
// step's impulses in time stepping.
#include <Eigen/Dense>

namespace luztar {

struct BoxQpSolution {
  Eigen::VectorXd x;         // minimiser
  Eigen::VectorXd residual;  // b - A x
  int sweeps = 0;            // Gauss-Seidel sweeps used
  bool converged = false;    // KKT conditions hold to the tolerance
};

// Storage for repeated solves of one size: solving into the same workspace
// and solution again allocates nothing (the simulator solves at every event).
struct BoxQpWorkspace {
  Eigen::VectorXd polished, rhs, dx;
  Eigen::MatrixXd reduced;  // (n x n) the free block, identity rows for bounded variables
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
};

BoxQpSolution solve_box_qp(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                           const Eigen::VectorXd& hi, int max_sweeps = 20000);
void solve_box_qp(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                  const Eigen::VectorXd& hi, BoxQpWorkspace& ws, BoxQpSolution& out, int max_sweeps = 20000,
                  bool warm = false);

// Largest KKT violation of x (0 for an exact solution), scaled like b.
double box_qp_kkt_error(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                        const Eigen::VectorXd& hi, const Eigen::VectorXd& x);

}  // namespace luztar
