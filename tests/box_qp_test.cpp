// The box-constrained QP behind the S-S selection, against brute force: for
// small n every assignment of each variable to {lower bound, free, upper bound}
// is tried, the free block solved, and the KKT-satisfying candidate kept (its
// residual r = b - A x is unique for the convex problem).
#include <gtest/gtest.h>

#include <random>

#include "solvers/numerics/box_qp.hpp"
#include "solvers/static_friction.hpp"

namespace luztar {
namespace {

Eigen::VectorXd brute_force_residual(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                                     const Eigen::VectorXd& hi) {
  const int n = static_cast<int>(b.size());
  int combos = 1;
  for (int i = 0; i < n; ++i) combos *= 3;
  double best = 1e300;
  Eigen::VectorXd best_r;
  for (int c = 0; c < combos; ++c) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    std::vector<int> free;
    int code = c;
    for (int i = 0; i < n; ++i, code /= 3) {
      if (code % 3 == 0) x[i] = lo[i];
      else if (code % 3 == 1) x[i] = hi[i];
      else free.push_back(i);
    }
    if (!free.empty()) {
      Eigen::MatrixXd Aff(free.size(), free.size());
      Eigen::VectorXd rhs(free.size());
      for (std::size_t a = 0; a < free.size(); ++a) {
        rhs[a] = b[free[a]] - A.row(free[a]).dot(x);
        for (std::size_t d = 0; d < free.size(); ++d) Aff(a, d) = A(free[a], free[d]);
      }
      const Eigen::VectorXd xf = Aff.completeOrthogonalDecomposition().solve(rhs);
      for (std::size_t a = 0; a < free.size(); ++a) x[free[a]] = xf[a];
    }
    const double err = box_qp_kkt_error(A, b, lo, hi, x);
    if (err < best) {
      best = err;
      best_r = b - A * x;
    }
  }
  return best_r;
}

TEST(BoxQp, MatchesBruteForceOnRandomProblems) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + trial % 5;
    Eigen::MatrixXd G(n, n + 1);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= n; ++j) G(i, j) = u(rng);
    const Eigen::MatrixXd A = G * G.transpose() + 0.01 * Eigen::MatrixXd::Identity(n, n);  // SPD
    Eigen::VectorXd b(n), hi(n);
    for (int i = 0; i < n; ++i) {
      b[i] = 3 * u(rng);
      hi[i] = 0.1 + std::abs(u(rng));
    }
    const BoxQpSolution s = solve_box_qp(A, b, -hi, hi);
    ASSERT_TRUE(s.converged) << "trial " << trial;
    const Eigen::VectorXd r = brute_force_residual(A, b, -hi, hi);
    EXPECT_LT((s.residual - r).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
    EXPECT_LT(box_qp_kkt_error(A, b, -hi, hi, s.x), 1e-9);
  }
}

// A singular Delassus matrix (three friction rows on two bodies, a loop): the
// torques are not unique, the accelerations are.
TEST(BoxQp, SingularMatrixStillGivesTheUniqueResidual) {
  Eigen::MatrixXd F(3, 2);
  F << 1, 0, 0, 1, 1, -1;
  const Eigen::MatrixXd A = F * F.transpose();
  const Eigen::Vector3d b(2.0, 0.0, 2.0), hi(1.0, 1.5, 3.0);
  const BoxQpSolution s = solve_box_qp(A, b, -hi, hi);
  EXPECT_TRUE(s.converged);
  EXPECT_LT(s.residual.cwiseAbs().maxCoeff(), 1e-10);  // everything can hold: zero acceleration
}

TEST(BoxQp, DegenerateBoundsAndEmptyProblem) {
  const BoxQpSolution empty = solve_box_qp(Eigen::MatrixXd(0, 0), Eigen::VectorXd(0), Eigen::VectorXd(0),
                                           Eigen::VectorXd(0));
  EXPECT_TRUE(empty.converged);
  Eigen::MatrixXd A(1, 1);
  A << 2.0;
  const BoxQpSolution zero_box = solve_box_qp(A, Eigen::VectorXd::Constant(1, 3.0), Eigen::VectorXd::Zero(1),
                                              Eigen::VectorXd::Zero(1));  // MT0 = 0: no torque at all
  EXPECT_EQ(zero_box.x[0], 0.0);
  EXPECT_DOUBLE_EQ(zero_box.residual[0], 3.0);
}

// The Chebyshev split: min over z of max |l0 + n z| / L, checked against a fine scan.
TEST(StaticSplit, ChebyshevOffsetIsTheMinimum) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int m = 2 + trial % 4;
    Eigen::VectorXd l0(m), n(m), L(m);
    for (int i = 0; i < m; ++i) {
      l0[i] = 2 * u(rng);
      n[i] = u(rng);
      L[i] = 0.2 + std::abs(u(rng));
    }
    double value = 0;
    const double z = chebyshev_offset(l0, n, L, value);
    auto f = [&](double zz) { return ((l0 + n * zz).cwiseAbs().cwiseQuotient(L)).maxCoeff(); };
    EXPECT_NEAR(f(z), value, 1e-12);
    for (double zz = -20; zz <= 20; zz += 1e-3) ASSERT_GE(f(zz), value - 1e-12) << "trial " << trial;
  }
}

}  // namespace
}  // namespace luztar
