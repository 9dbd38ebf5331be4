#include "solvers/exact/matrix_exponential.hpp"

#include <cmath>

#include <unsupported/Eigen/MatrixFunctions>

namespace luztar::exact {

Eigen::MatrixXd expm(const Eigen::MatrixXd& A) { return A.exp(); }

Propagator propagator(const Eigen::MatrixXd& A, const std::vector<Eigen::MatrixXd>& Q, double h) {
  const Eigen::Index n = A.rows();
  Propagator p;
  p.h = h;
  p.Phi = expm(A * h);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  M.topLeftCorner(n, n) = -A.transpose() * h;
  M.bottomRightCorner(n, n) = A * h;
  for (const Eigen::MatrixXd& q : Q) {
    // W is linear in Q: a unit Q keeps the block's norm that of A h, else
    // Pade's scaling would follow ||Q|| h (and square that many times more)
    const double scale = q.cwiseAbs().maxCoeff();
    M.topRightCorner(n, n) = scale > 0.0 ? Eigen::MatrixXd(q * (h / scale)) : Eigen::MatrixXd::Zero(n, n);
    const Eigen::MatrixXd E = expm(M);
    Eigen::MatrixXd W = E.bottomRightCorner(n, n).transpose() * E.topRightCorner(n, n);
    p.W.push_back(0.5 * scale * (W + W.transpose()));
  }
  return p;
}

}  // namespace luztar::exact
