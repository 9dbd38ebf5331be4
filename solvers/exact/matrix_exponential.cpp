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

namespace {

// The propagator of a step with ||A h|| <= 1/2 by its Taylor series (Phi) and
// the series W = sum_n L^n(Q) h^(n+1) / (n+1)!, L(X) = A^T X + X A (the
// derivative of e^{A^T s} Q e^{A s}), each to 1e-18 of its sum: no Pade
// approximant's truncation, whose error would be the same at every step and
// add up linearly over a run (an energy balance drifting by ~u per step).
Propagator propagator_series(const Eigen::MatrixXd& A, const std::vector<Eigen::MatrixXd>& Q, double h) {
  const Eigen::Index n = A.rows();
  Propagator p;
  p.h = h;
  const Eigen::MatrixXd Ah = A * h;
  Eigen::MatrixXd term = Eigen::MatrixXd::Identity(n, n), next(n, n);
  p.Phi = term;
  for (int k = 1; k < 60 && term.cwiseAbs().maxCoeff() > 1e-18 * p.Phi.cwiseAbs().maxCoeff(); ++k) {
    next.noalias() = term * Ah;
    term = next / k;
    p.Phi += term;
  }
  for (const Eigen::MatrixXd& q : Q) {
    Eigen::MatrixXd t = q * h, W = t;
    for (int k = 1; k < 60 && t.cwiseAbs().maxCoeff() > 1e-18 * W.cwiseAbs().maxCoeff(); ++k) {
      next.noalias() = Ah.transpose() * t;
      next.noalias() += t * Ah;
      t = next / (k + 1);
      W += t;
    }
    p.W.push_back(0.5 * (W + W.transpose()));
  }
  return p;
}

}  // namespace

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
  ladder.back() = propagator_series(Ab, Qb, std::ldexp(h, 1 - levels));
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
