#pragma once
// Matrix exponentials and Van Loan's block-exponential integrals for the exact
// integrator (issue 17).
//
//   expm(A)                     e^A by scaling and squaring with a Pade approximant
//                               (Eigen's unsupported MatrixFunctions; Higham 2005)
//   propagator(A, Q, h)         Phi = e^{A h} and, per symmetric Q_j,
//                               W_j = int_0^h e^{A^T s} Q_j e^{A s} ds, so that for
//                               z(s) = e^{A s} z0:  int_0^h z^T Q_j z ds = z0^T W_j z0.
//                               W_j is read from one exponential of the 2N x 2N block
//                               matrix [[-A^T, Q_j], [0, A]] h = [[F, G], [0, Phi]]:
//                               W_j = Phi^T G (Van Loan 1978, Theorem 1).
// Accuracy: the Pade approximant is exact to roundoff relative to ||A h||
// scaled; keep ||A h|| moderate (the integrator's sub-steps have ||A h|| <= 1 in
// a balanced basis) so that the e^{-A^T h} block of a damped mode does not grow
// and swamp G.
#include <vector>

#include <Eigen/Dense>

namespace luztar::exact {

Eigen::MatrixXd expm(const Eigen::MatrixXd& A);

struct Propagator {
  double h = 0.0;
  Eigen::MatrixXd Phi;             // e^{A h}, N x N
  std::vector<Eigen::MatrixXd> W;  // per quadrature, N x N symmetric
};

Propagator propagator(const Eigen::MatrixXd& A, const std::vector<Eigen::MatrixXd>& Q, double h);

}  // namespace luztar::exact
