// The closed-form step of a split mode (solvers/exact/modal_propagator.hpp)
// against closed forms: a stiff first-order mode over steps far longer than
// its time constant, and a damped oscillator's energy balance.
#include "solvers/exact/modal_propagator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace luztar::exact {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kEps = std::numeric_limits<double>::epsilon();

// x' = -r x + 1 (a massless body on a viscous bearing, r = k / mu = 2e6 /s),
// z = (x, 1): x(t) = a + b e^{-r t}, a = 1/r, b = x0 - a, so
//   int x^2 = a^2 t + 2ab (1 - e^{-rt}) / r + b^2 (1 - e^{-2rt}) / (2r),  int x = a t + b (1 - e^{-rt}) / r.
TEST(ModalPropagator, StiffFirstOrderModeOverStepsFarBeyondItsTimeConstant) {
  const double r = 2e6, x0 = 3e-6;
  MatrixXd A = MatrixXd::Zero(2, 2);
  A(0, 0) = -r;
  A(0, 1) = 1.0;
  MatrixXd Qsq = MatrixXd::Zero(2, 2), Qlin = MatrixXd::Zero(2, 2);
  Qsq(0, 0) = 1.0;
  Qlin(0, 1) = Qlin(1, 0) = 0.5;
  const ModalSplit split = split_modes(A, 10.0, 0.25 / 10.0, MatrixXd(2, 0));
  ASSERT_EQ(split.fast.size(), 1u);
  const double a = 1.0 / r, b = x0 - a;
  auto expected = [&](double t, double& x, double& sq, double& lin) {
    x = a + b * std::exp(-r * t);
    sq = a * a * t + 2.0 * a * b * (1.0 - std::exp(-r * t)) / r + b * b * (1.0 - std::exp(-2.0 * r * t)) / (2.0 * r);
    lin = a * t + b * (1.0 - std::exp(-r * t)) / r;
  };
  for (double h : {1e-2, 3.7e-7}) {  // 2e4 and 0.74 time constants, both one regular step
    ModalPropagator p;
    ASSERT_TRUE(p.build(split, {Qsq, Qlin}, h));
    VectorXd z(2);
    z << x0, 1.0;
    VectorXd x = split.Tinv * z, q = VectorXd::Zero(2);
    p.step(x, q);
    double xe, sq, lin;
    expected(h, xe, sq, lin);
    // roundoff is relative to the state's size, |z| ~ 1 (the constant), and
    // to |z|^2 h for the integrals: x itself is 1e-6, its square 1e-12
    const VectorXd z1 = split.T * x;
    EXPECT_NEAR(z1(0), xe, 4.0 * kEps) << h;
    EXPECT_NEAR(z1(1), 1.0, 4.0 * kEps);
    EXPECT_NEAR(q(0), sq, 4.0 * kEps * h) << h;
    EXPECT_NEAR(q(1), lin, 4.0 * kEps * h) << h;
  }
}

// x'' = -w^2 x - c x' + F: the input work int F v = F (x(h) - x(0)) and the
// loss int c v^2 = E(0) - E(h), E = v^2/2 + w^2 x^2/2 - F x; over a regular
// step and over a partial one (from the slow block's Taylor data).
TEST(ModalPropagator, DampedOscillatorWorkAndLossBalance) {
  const double w = 3000.0, c = 50.0, F = 2.0;
  MatrixXd A = MatrixXd::Zero(3, 3);  // (x, v, 1)
  A(0, 1) = 1.0;
  A(1, 0) = -w * w;
  A(1, 1) = -c;
  A(1, 2) = F;
  MatrixXd Qin = MatrixXd::Zero(3, 3), Qloss = MatrixXd::Zero(3, 3);
  Qin(1, 2) = Qin(2, 1) = 0.5 * F;
  Qloss(1, 1) = c;
  const ModalSplit split = split_modes(A, 10.0, 0.25 / 10.0, MatrixXd(3, 0));
  ASSERT_EQ(split.fast.size(), 1u);
  ModalPropagator p;
  const double h = 1e-2;  // 30 rad of the fast mode
  ASSERT_TRUE(p.build(split, {Qin, Qloss}, h));
  auto energy = [&](const VectorXd& z) { return 0.5 * z(1) * z(1) + 0.5 * w * w * z(0) * z(0) - F * z(0); };
  VectorXd z0(3);
  z0 << 1e-4, 0.3, 1.0;
  for (double s : {h, 0.37 * h}) {
    VectorXd x = split.Tinv * z0, q = VectorXd::Zero(2);
    if (s == h) {
      p.step(x, q);
    } else {
      TaylorData slow;
      const Eigen::VectorXd D = Eigen::VectorXd::Ones(split.slow);
      slow.build(split.As, D, 1.0, x.head(split.slow), s);  // As = 0 (the constant): growth 1
      p.partial(x, q, s, slow);
    }
    const VectorXd z1 = split.T * x;
    const double scale = std::abs(energy(z0));
    EXPECT_NEAR(q(0), F * (z1(0) - z0(0)), 1e-14 * scale) << s;
    EXPECT_NEAR(q(1), energy(z0) - energy(z1), 1e-13 * scale) << s;
    // the state against the closed form of the underdamped solution about x* = F / w^2
    const double xs = F / (w * w), wd = std::sqrt(w * w - c * c / 4.0);
    const double a0 = z0(0) - xs, b0 = (z0(1) + c / 2.0 * a0) / wd;
    const double xe = xs + std::exp(-c * s / 2.0) * (a0 * std::cos(wd * s) + b0 * std::sin(wd * s));
    EXPECT_NEAR(z1(0), xe, 1e-15) << s;
  }
}

TEST(ModalPropagator, IntegralOfExpIsAccurateForSmallAndLargeArguments) {
  // E1(m, s) = (e^{ms} - 1) / m
  EXPECT_NEAR(integral_of_exp({1e-9, 0.0}, 2.0).real(), 2.0 * (1.0 + 1e-9), 1e-24);
  EXPECT_NEAR(integral_of_exp({-1e6, 0.0}, 1.0).real(), 1e-6, 1e-22);
  const std::complex<double> m(-3.0, 40.0);
  const std::complex<double> e = integral_of_exp(m, 0.01), ref = (std::exp(m * 0.01) - 1.0) / m;
  EXPECT_NEAR(std::abs(e - ref), 0.0, 1e-17);
}

}  // namespace
}  // namespace luztar::exact
