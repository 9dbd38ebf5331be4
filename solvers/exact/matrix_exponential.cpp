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

std::vector<Propagator> propagator_ladder(const Eigen::MatrixXd& A, const Eigen::VectorXd& D,
                                          const std::vector<Eigen::MatrixXd>& Q, double h, double norm,
                                          double max_norm_step) {
  int levels = 1;
  for (double fine = h; norm * fine > max_norm_step && levels < 64; fine *= 0.5) ++levels;
  // in the balanced basis z = D y (D powers of two: exact): A -> D^-1 A D, Q -> D Q D
  const Eigen::VectorXd Dinv = D.cwiseInverse();
  const Eigen::MatrixXd Ab = Dinv.asDiagonal() * A * D.asDiagonal();
  std::vector<Eigen::MatrixXd> Qb;
  for (const Eigen::MatrixXd& q : Q) Qb.push_back(D.asDiagonal() * q * D.asDiagonal());
  std::vector<Propagator> ladder(static_cast<std::size_t>(levels));
  ladder.back() = propagator(Ab, Qb, std::ldexp(h, 1 - levels));
  for (int i = levels - 2; i >= 0; --i) {
    const Propagator& fine = ladder[static_cast<std::size_t>(i + 1)];
    Propagator& p = ladder[static_cast<std::size_t>(i)];
    p.h = std::ldexp(h, -i);
    p.Phi.noalias() = fine.Phi * fine.Phi;
    for (const Eigen::MatrixXd& W : fine.W) {
      Eigen::MatrixXd doubled = W + fine.Phi.transpose() * W * fine.Phi;
      p.W.push_back(0.5 * (doubled + doubled.transpose()));
    }
  }
  // back: Phi = D Phib D^-1, W = D^-1 Wb D^-1
  for (Propagator& p : ladder) {
    p.Phi = D.asDiagonal() * p.Phi * Dinv.asDiagonal();
    for (Eigen::MatrixXd& W : p.W) W = Dinv.asDiagonal() * W * Dinv.asDiagonal();
  }
  return ladder;
}

}  // namespace luztar::exact
