// exp(A h) and Van Loan's integrals (solvers/exact/matrix_exponential.hpp)
// against closed forms.
#include "solvers/exact/matrix_exponential.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace luztar::exact {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// x'' = -w^2 x: exp(A h) = [[cos wh, sin wh / w], [-w sin wh, cos wh]].
TEST(MatrixExponential, HarmonicOscillatorRotation) {
  const double w = 7.0, h = 0.3;
  MatrixXd A(2, 2);
  A << 0.0, 1.0, -w * w, 0.0;
  const MatrixXd E = expm(A * h);
  EXPECT_NEAR(E(0, 0), std::cos(w * h), 1e-14);
  EXPECT_NEAR(E(0, 1), std::sin(w * h) / w, 1e-14);
  EXPECT_NEAR(E(1, 0), -w * std::sin(w * h), 1e-13);
  EXPECT_NEAR(E(1, 1), std::cos(w * h), 1e-14);
}

// From x(0) = 1, v(0) = 0: x = cos(w s), so int_0^h x^2 ds = h/2 + sin(2 w h) / (4 w),
// and int_0^h x v ds = [x^2 / 2]_0^h = (cos^2(w h) - 1) / 2 (Q symmetric: x v = z^T Q z, Q = [[0, 1/2], [1/2, 0]]).
TEST(MatrixExponential, VanLoanIntegralsOfTheOscillator) {
  const double w = 3.0, h = 0.4;
  MatrixXd A(2, 2);
  A << 0.0, 1.0, -w * w, 0.0;
  MatrixXd Qx = MatrixXd::Zero(2, 2), Qxv = MatrixXd::Zero(2, 2);
  Qx(0, 0) = 1.0;
  Qxv(0, 1) = Qxv(1, 0) = 0.5;
  const Propagator p = propagator(A, {Qx, Qxv}, h);
  const VectorXd z0 = VectorXd::Unit(2, 0);
  ASSERT_EQ(p.W.size(), 2u);
  EXPECT_NEAR(z0.dot(p.W[0] * z0), h / 2.0 + std::sin(2.0 * w * h) / (4.0 * w), 1e-15);
  EXPECT_NEAR(z0.dot(p.W[1] * z0), (std::pow(std::cos(w * h), 2) - 1.0) / 2.0, 1e-15);
  EXPECT_EQ(p.W[0], p.W[0].transpose());
}

// Damped oscillator x'' + c x' + k x = 0 (unit mass): the energy E = (k x^2 + v^2)/2
// falls by exactly the viscous loss int_0^h c v^2 ds over any step.
TEST(MatrixExponential, DampedOscillatorLossEqualsTheEnergyDrop) {
  const double k = 40.0, c = 1.3, h = 0.05;
  MatrixXd A(2, 2);
  A << 0.0, 1.0, -k, -c;
  MatrixXd Qloss = MatrixXd::Zero(2, 2), Qenergy = MatrixXd::Zero(2, 2);
  Qloss(1, 1) = c;
  Qenergy(0, 0) = k / 2.0;
  Qenergy(1, 1) = 0.5;
  const Propagator p = propagator(A, {Qloss}, h);
  VectorXd z(2);
  z << 0.2, -1.1;
  double loss = 0.0;
  const double e0 = z.dot(Qenergy * z);
  for (int i = 0; i < 200; ++i) {  // 10 s, 200 steps
    loss += z.dot(p.W[0] * z);
    z = p.Phi * z;
  }
  const double e1 = z.dot(Qenergy * z);
  EXPECT_NEAR(e0 - e1, loss, 1e-14 * e0);
  // and the closed form of the underdamped solution at 10 s: x = e^{-c t/2} (a cos wd t + b sin wd t)
  const double wd = std::sqrt(k - c * c / 4.0), t = 10.0;
  const double a = 0.2, b = (-1.1 + c / 2.0 * a) / wd;
  EXPECT_NEAR(z(0), std::exp(-c * t / 2.0) * (a * std::cos(wd * t) + b * std::sin(wd * t)), 1e-15);
}

// A nilpotent shift: z = (1, s, s^2/2) from (1, 0, 0); int_0^h s^2 ds = h^3/3 and
// int_0^h 1 * s^2/2 ds = h^3/6 (the cross term of a symmetric Q).
TEST(MatrixExponential, PolynomialGeneratorIsExact) {
  MatrixXd A = MatrixXd::Zero(3, 3);
  A(1, 0) = 1.0;
  A(2, 1) = 1.0;
  const double h = 2.5;
  MatrixXd Qs = MatrixXd::Zero(3, 3), Qcross = MatrixXd::Zero(3, 3);
  Qs(1, 1) = 1.0;
  Qcross(0, 2) = Qcross(2, 0) = 0.5;
  const Propagator p = propagator(A, {Qs, Qcross}, h);
  EXPECT_NEAR(p.Phi(1, 0), h, 1e-15);
  EXPECT_NEAR(p.Phi(2, 0), h * h / 2.0, 1e-14);
  EXPECT_EQ(p.Phi(0, 1), 0.0);
  const VectorXd z0 = VectorXd::Unit(3, 0);
  EXPECT_NEAR(z0.dot(p.W[0] * z0), h * h * h / 3.0, 1e-13);
  EXPECT_NEAR(z0.dot(p.W[1] * z0), h * h * h / 6.0, 1e-13);
}

}  // namespace
}  // namespace luztar::exact
