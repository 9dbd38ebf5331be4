// The modal split of the exact integrator (solvers/exact/modal_split.hpp) on
// matrices with known spectra.
#include "solvers/exact/modal_split.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace luztar::exact {
namespace {

using Eigen::MatrixXd;

// T^-1 A T against diag(As, Lambda) built from the split's own eigenvalues.
double block_error(const MatrixXd& A, const ModalSplit& s) {
  MatrixXd D = MatrixXd::Zero(A.rows(), A.cols());
  D.topLeftCorner(s.slow, s.slow) = s.As;
  for (const FastMode& f : s.fast) {
    D(f.index, f.index) = f.lambda.real();
    if (f.pair()) {
      D(f.index + 1, f.index + 1) = f.lambda.real();
      D(f.index, f.index + 1) = -f.lambda.imag();
      D(f.index + 1, f.index) = f.lambda.imag();
    }
  }
  return (s.Tinv * A * s.T - D).cwiseAbs().maxCoeff() / A.cwiseAbs().maxCoeff();
}

// A light gear on a stiff mesh beside a slow shaft mode and a constant:
// (x1, v1, x2, v2, 1) with x1'' = -k1 x1 - c1 v1 (k1 = 4e7, c1 = 400: a 1 kHz
// mode damped at 200 /s) and x2'' = -k2 x2 + 1 (k2 = 4: 2 rad/s).
MatrixXd stiff_and_slow() {
  MatrixXd A = MatrixXd::Zero(5, 5);
  A(0, 1) = 1.0;
  A(1, 0) = -4e7;
  A(1, 1) = -400.0;
  A(2, 3) = 1.0;
  A(3, 2) = -4.0;
  A(3, 4) = 1.0;
  return A;
}

TEST(ModalSplit, StiffPairIsSplitOffTheSlowBlockKeepsTheRest) {
  const MatrixXd A = stiff_and_slow();
  const ModalSplit s = split_modes(A, 100.0, 0.25 / 100.0, MatrixXd(5, 0));
  ASSERT_EQ(s.fast.size(), 1u);
  EXPECT_EQ(s.slow, 3);
  // lambda = -c/2 +- i sqrt(k - c^2/4)
  EXPECT_NEAR(s.fast[0].lambda.real(), -200.0, 1e-9 * 200.0);
  EXPECT_NEAR(std::abs(s.fast[0].lambda.imag()), std::sqrt(4e7 - 4e4), 1e-12 * 6324.0);
  EXPECT_LT(block_error(A, s), 1e-14);
  EXPECT_LT((s.Tinv * s.T - MatrixXd::Identity(5, 5)).cwiseAbs().maxCoeff(), 1e-14);
  // the slow block holds 0 and +-2i only: its spectral radius is 2
  EXPECT_NEAR(s.As.eigenvalues().cwiseAbs().maxCoeff(), 2.0, 1e-12);
}

// Two identical gears (a symmetric design): the eigenvalue pair is repeated
// but semisimple, and the cluster is bi-orthonormalised as one.
TEST(ModalSplit, RepeatedSemisimplePairsSplitAsACluster) {
  MatrixXd A = MatrixXd::Zero(4, 4);
  for (int b : {0, 2}) {
    A(b, b + 1) = 1.0;
    A(b + 1, b) = -1e6;
    A(b + 1, b + 1) = -10.0;
  }
  const ModalSplit s = split_modes(A, 10.0, 0.25 / 10.0, MatrixXd(4, 0));
  EXPECT_EQ(s.slow, 0);
  EXPECT_EQ(s.fast.size(), 2u);
  EXPECT_LT(block_error(A, s), 1e-13);
}

// A critically damped mode is a Jordan block: not split (no eigenvector basis),
// the plain Taylor integrator serves it.
TEST(ModalSplit, JordanBlockStaysSlow) {
  MatrixXd A(2, 2);
  A << 0.0, 1.0, -1e6, -2e3;  // (s + 1e3)^2
  const ModalSplit s = split_modes(A, 10.0, 0.25 / 10.0, MatrixXd(2, 0));
  EXPECT_EQ(s.fast_dims(), 0);
  EXPECT_EQ(s.slow, 2);
  EXPECT_LT(block_error(A, s), 1e-15);
}

// A free body pair on a stiff spring, (q1, v1, q2, v2): the rigid rotation
// (1, 0, 1, 0) is inert. It becomes the first slow coordinate, with an exactly
// zero column in As, and z = T x carries it: a large common angle stays in
// that one coordinate.
TEST(ModalSplit, InertDirectionIsTheFirstSlowCoordinate) {
  const double k = 1e6;
  MatrixXd A = MatrixXd::Zero(4, 4);
  A(0, 1) = 1.0;
  A(2, 3) = 1.0;
  A(1, 0) = -k;
  A(1, 2) = k;
  A(3, 0) = k;
  A(3, 2) = -k;
  MatrixXd K = MatrixXd::Zero(4, 1);
  K(0, 0) = K(2, 0) = std::sqrt(0.5);
  const ModalSplit s = split_modes(A, 100.0, 0.25 / 100.0, K);
  ASSERT_EQ(s.inert, 1);
  EXPECT_EQ(s.slow, 2);  // the rigid angle and the common velocity
  EXPECT_EQ(s.As.col(0).cwiseAbs().maxCoeff(), 0.0);
  // T's inert column spans K
  const Eigen::VectorXd t0 = s.T.col(0) / s.T.col(0).norm();
  EXPECT_NEAR(std::abs(t0.dot(K.col(0))), 1.0, 1e-15);
  EXPECT_LT(block_error(A, s), 1e-13);
}

TEST(ModalSplit, NothingBeyondTheRadiusSplitsNothing) {
  const MatrixXd A = stiff_and_slow();
  const ModalSplit s = split_modes(A, 1e5, 0.25 / 1e5, MatrixXd(5, 0));
  EXPECT_EQ(s.fast_dims(), 0);
  EXPECT_LT(block_error(A, s), 1e-15);
}

}  // namespace
}  // namespace luztar::exact
