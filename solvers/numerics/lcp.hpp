#pragma once
// Linear complementarity problems (seed 002, eq. 12-14; seed 003):
//
//   find z >= 0 with w = M z + q >= 0 and z^T w = 0.
//
// Two solvers:
//  - Lemke's complementary pivoting (exact up to roundoff, any M for which it
//    terminates). It ends either with a solution or on a secondary ray; for
//    copositive-plus M (e.g. positive semi-definite) a ray means the problem
//    has no solution, and that is what is reported.
//  - Projected Gauss-Seidel, for larger problems with symmetric positive
//    semi-definite M and a positive diagonal (Delassus matrices): cheap
//    sweeps, converges to a solution when one exists.
// The box-constrained form (MLCP, bounds lo <= x <= hi): solve_box_lcp_lemke
// below, and the PGS + polish solver of solvers/numerics/box_qp.
#include <Eigen/Dense>

namespace luztar {

enum class LcpStatus {
  solved,
  no_solution,  // Lemke ended on a secondary ray
  pivot_limit,  // Lemke: too many pivots (cycling or a huge problem)
  not_converged // PGS: the sweep limit was reached
};

const char* to_string(LcpStatus s);

struct LcpSolution {
  Eigen::VectorXd z, w;
  LcpStatus status = LcpStatus::solved;
  int iterations = 0;       // pivots (Lemke) or sweeps (PGS)
  bool degenerate = false;  // Lemke met a tie in a ratio test (resolved lexicographically)
};

// What is known about M without solving.
struct LcpMatrixClass {
  bool p_matrix = false;  // all principal minors > 0: a unique solution for every q
  bool checked = false;   // false when n is too large for the test (non-symmetric n > 16)
};
// Symmetric M: P-matrix <=> positive definite (Cholesky). Otherwise every
// principal minor is checked (2^n of them), for n <= 16.
LcpMatrixClass classify_lcp_matrix(const Eigen::MatrixXd& M);

LcpSolution solve_lcp_lemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, int max_pivots = 0);
LcpSolution solve_lcp_pgs(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, double tolerance = 1e-12,
                          int max_sweeps = 100000);

// Box-LCP (MLCP) by Lemke: find lo <= x <= hi with w = A x - b, w >= 0 where
// x = lo, w <= 0 where x = hi, w = 0 between (the KKT conditions of the box QP
// of solvers/numerics/box_qp.hpp, which the event-time S-S selection and the time
// stepper solve by PGS and an exact polish; this exact pivoting solver is the
// cross-check, and the selection's fallback). Splitting w = w+ - w- with
// z1 = x - lo perp w+ and z2 = w- perp hi - x gives the standard LCP
//   M = [A  I; -I  0],  q = [A lo - b; hi - lo]   (size 2n),
// copositive-plus for positive semi-definite A, so a ray means no solution.
// A bound infinite on one side leaves one plain pair for that variable:
// x - lo perp w (hi = inf), or hi - x perp -w (lo = -inf, x = hi - z1, its
// row and column of A negated); M stays copositive-plus. A variable with both
// bounds infinite (a permanent link's torque) is free: x = y1 - y2, y1 perp w
// and y2 perp -w, which hold w = 0 (M = E^T A E, still copositive-plus). The
// returned z holds x (size n), w holds A x - b.
LcpSolution solve_box_lcp_lemke(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                                const Eigen::VectorXd& hi);

// Largest violation of z >= 0, w >= 0, z_i w_i = 0 (as min(z_i, w_i) for each i).
double lcp_error(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z);

}  // namespace luztar
