// The event search of the exact integrator (solvers/exact/event_search.hpp) on
// event functions with closed-form roots.
#include "solvers/exact/event_search.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <numbers>

#include "solvers/exact/matrix_exponential.hpp"

namespace luztar::exact {
namespace {

using Eigen::MatrixXd;
using Eigen::RowVectorXd;
using Eigen::VectorXd;

constexpr double kResolution = 1e-15;

// z = (1, s, s^2/2) from (1, 0, 0): a nilpotent shift, so g = c . z is the
// quadratic c0 + c1 s + c2 s^2 / 2 exactly (its Taylor remainder is 0).
MatrixXd shift3() {
  MatrixXd A = MatrixXd::Zero(3, 3);
  A(1, 0) = 1.0;
  A(2, 1) = 1.0;
  return A;
}
// The event polynomial of g(s) = q0 + q1 s + q2 s^2 on [0, h].
EventFunction quadratic(double q0, double q1, double q2, double h) {
  static const MatrixXd A = shift3();
  static const VectorXd D = balance(A);
  TaylorData data;
  data.build(A, D, std::exp(balanced_norm(A, D) * h), VectorXd::Unit(3, 0), h);
  RowVectorXd c(3);
  c << q0, q1, 2.0 * q2;
  return event_polynomial(c, data);
}

TEST(EventSearch, TwoRootsInOneSubStepTheFirstIsFound) {
  // g = (s - 0.1)(s - 0.2): down through 0 at 0.1, up at 0.2, both inside [0, 0.5]
  const EventFunction p = quadratic(0.02, -0.3, 1.0, 0.5);
  int sign = leaving_sign(p);
  ASSERT_EQ(sign, 1);
  auto found = first_crossing(p, 0, sign, kResolution);
  ASSERT_TRUE(found);
  EXPECT_NEAR(found->s, 0.1, 1e-14);
  EXPECT_EQ(found->direction, -1);
  EXPECT_EQ(sign, -1);
  sign = 1;
  found = first_crossing(p, +1, sign, kResolution);  // watching increasing only: the second
  ASSERT_TRUE(found);
  EXPECT_NEAR(found->s, 0.2, 1e-14);
  EXPECT_EQ(found->direction, 1);
}

TEST(EventSearch, DipThroughZeroAndBackBetweenSubStepEnds) {
  // g = (s - 0.2)(s - 0.2 - 1e-6): positive at both ends of [0, 0.5], below zero
  // by only 2.5e-13 on (0.2, 0.200001). A sign test at the ends sees nothing.
  const double a = 0.2, b = 0.2 + 1e-6;
  const EventFunction p = quadratic(a * b, -(a + b), 1.0, 0.5);
  int sign = 1;
  const auto found = first_crossing(p, -1, sign, kResolution);
  ASSERT_TRUE(found);
  // g's sign is roundoff near the root: eps |g(0)| / |g'(a)| = 9e-18 / 1e-6 ~ 1e-11
  EXPECT_NEAR(found->s, a, 2e-11);
  EXPECT_EQ(found->direction, -1);
}

TEST(EventSearch, RootAtTheRestartInstantIsNotReportedAgain) {
  // g = s (s - 0.3): zero at s = 0, leaving downwards, then up through 0 at 0.3.
  const EventFunction p = quadratic(0.0, -0.3, 1.0, 0.5);
  int sign = leaving_sign(p);
  EXPECT_EQ(sign, -1);
  int watch_down = sign;
  EXPECT_FALSE(first_crossing(p, -1, watch_down, kResolution));  // the zero at s = 0 is no crossing
  EXPECT_EQ(watch_down, 1);
  const auto found = first_crossing(p, 0, sign, kResolution);
  ASSERT_TRUE(found);
  EXPECT_NEAR(found->s, 0.3, 1e-14);
  EXPECT_EQ(found->direction, 1);
}

TEST(EventSearch, RootExactlyAtTheSubStepEndIsReportedOnce) {
  // g = s - 0.5 on [0, 0.5]: zero exactly at h
  const EventFunction p = quadratic(-0.5, 1.0, 0.0, 0.5);
  int sign = leaving_sign(p);
  const auto found = first_crossing(p, +1, sign, kResolution);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->s, 0.5);
  EXPECT_EQ(found->direction, 1);
  // the next sub-step starts on the root with the sign it crossed to: g = s
  const EventFunction next = quadratic(0.0, 1.0, 0.0, 0.5);
  EXPECT_FALSE(first_crossing(next, +1, sign, kResolution));
  EXPECT_EQ(sign, 1);
}

// A stop where g is at 0 within its band: `sign` is the side it leaves to,
// `approach` the one it came from, which need not be the side it started
// the interval on (ExactIntegrator::stop_at_crossing reads it).
TEST(EventSearch, ApproachIsTheSideAZeroAtTheEndIsReachedFrom) {
  // g = -s (s - 0.5): up from 0 (started on the far side, sign -1), back to 0 at h
  const EventFunction p = quadratic(0.0, 0.5, -1.0, 0.5);
  int sign = -1, approach = 0;
  EXPECT_FALSE(first_crossing(p, kWatchNone, sign, kResolution, nullptr, &approach));
  EXPECT_EQ(approach, 1);
  EXPECT_EQ(sign, -1);
  // g = -(s - 0.5)^2, never on the other side: it reaches h from where it started
  const EventFunction touch = quadratic(-0.25, 1.0, -1.0, 0.5);
  sign = -1;
  first_crossing(touch, kWatchNone, sign, kResolution, nullptr, &approach);
  EXPECT_EQ(approach, -1);
  EXPECT_EQ(sign, -1);
}

TEST(EventSearch, DoubleRootIsATouchNotACrossing) {
  // g = (s - 0.25)^2 and -(s - 0.25)^2: touch zero at 0.25 and return
  for (double k : {1.0, -1.0}) {
    const EventFunction p = quadratic(k * 0.0625, -k * 0.5, k, 0.5);
    int sign = leaving_sign(p);
    EXPECT_EQ(sign, k > 0 ? 1 : -1);
    EXPECT_FALSE(first_crossing(p, 0, sign, kResolution)) << k;
    EXPECT_EQ(sign, k > 0 ? 1 : -1);
  }
}

// The grazing break-away of the doc's hysteresis note: a stick reserve
// g = MT0 - |tau| touching zero from above (a touch: no event), and |tau|
// exceeding MT0 by 2e-11 relative (g = -2e-11 MT0 at the worst): found, at the
// first root 0.2 - sqrt(2e-11 MT0 / k) of g = k (s - 0.2)^2 - 2e-11 MT0.
TEST(EventSearch, GrazingReserveTouchesOrCrossesBy2e11) {
  const double mt0 = 50.0, k = 40.0, s0 = 0.2;
  for (double excess : {0.0, 2e-11}) {
    const double d = excess * mt0;
    const EventFunction p = quadratic(k * s0 * s0 - d, -2.0 * k * s0, k, 0.5);
    int sign = leaving_sign(p);
    const auto found = first_crossing(p, -1, sign, kResolution);
    if (excess == 0.0) {
      EXPECT_FALSE(found);
    } else {
      ASSERT_TRUE(found);
      // to roundoff over the slope: eps k s0^2 / (2 sqrt(d k)) ~ 1e-12
      EXPECT_NEAR(found->s, s0 - std::sqrt(d / k), 2e-12);
      EXPECT_EQ(found->direction, -1);
    }
  }
}

TEST(EventSearch, RootOfAFastModeInsideALongInterval) {
  // g = 0.9995 + sin(w s), w = 1000 rad/s, over h = 1 s: positive at both ends,
  // first root at w s = pi + asin(0.9995).
  const double w = 1000.0;
  MatrixXd A = MatrixXd::Zero(3, 3);
  A(1, 2) = w;
  A(2, 1) = -w;
  RowVectorXd c(3);
  c << 0.9995, 1.0, 0.0;
  VectorXd z0(3);
  z0 << 1.0, 0.0, 1.0;
  ASSERT_GT(0.9995 + std::sin(w), 0.0);
  const auto found = first_root(A, c, z0, 1.0, 0, 1e-16);
  ASSERT_TRUE(found);
  EXPECT_NEAR(found->s, (std::numbers::pi + std::asin(0.9995)) / w, 1e-13);
  EXPECT_EQ(found->direction, -1);
}

// A harmonic oscillator x = cos(w s) through its own dynamics (not a
// polynomial): the roots of the flank distance x - 0.5 are at w s = pi/3 (down),
// 5 pi/3 (up); found on one long interval, split by first_root.
TEST(EventSearch, OscillatorFlankRoots) {
  const double w = 20.0;
  MatrixXd A = MatrixXd::Zero(3, 3);  // (x, v, 1)
  A(0, 1) = 1.0;
  A(1, 0) = -w * w;
  RowVectorXd c(3);
  c << 1.0, 0.0, -0.5;
  VectorXd z0(3);
  z0 << 1.0, 0.0, 1.0;
  auto found = first_root(A, c, z0, 1.0, 0, 1e-16);
  ASSERT_TRUE(found);
  EXPECT_NEAR(found->s, std::numbers::pi / 3.0 / w, 1e-14);
  found = first_root(A, c, z0, 1.0, +1, 1e-16);
  ASSERT_TRUE(found);
  EXPECT_NEAR(found->s, 5.0 * std::numbers::pi / 3.0 / w, 1e-14);
}

TEST(EventSearch, BalancingBringsTheNormToTheSpectralRadius) {
  // stiff oscillator x'' = -1e8 x: entries 1e8 and 1, spectral radius 1e4
  MatrixXd A(2, 2);
  A << 0.0, 1.0, -1e8, 0.0;
  const VectorXd D = balance(A);
  EXPECT_LE(balanced_norm(A, D), 2.0e4);
  EXPECT_GE(balanced_norm(A, D), 1.0e4);
}

// The slow Taylor data started from terms the caller formed already (the
// cheap bound's A^k z0, k <= 4) are build()'s own, bit for bit: the same
// products from the same columns, wherever the storage was sized by an
// earlier, larger build (so the columns lie differently in memory), and the
// order cut at the same term.
TEST(TaylorData, FromGivenTermsAsFromTheState) {
  std::srand(17);
  TaylorData warm_a, warm_b;  // (sized by a larger build first)
  const MatrixXd big = MatrixXd::Random(13, 13);
  const VectorXd big_D = balance(big);
  warm_a.build(big, big_D, 1.0, VectorXd::Random(13), 0.01);
  warm_b.build(big, big_D, 1.0, VectorXd::Random(13), 0.01);
  for (int n = 1; n <= 11; ++n) {
    const MatrixXd A = 50.0 * MatrixXd::Random(n, n);
    const VectorXd D = balance(A), z0 = VectorXd::Random(n);
    const double h = 0.02, growth = std::exp(balanced_norm(A, D) * h);
    for (int given : {1, 3, 5}) {
      MatrixXd first(n, given);  // A^k z0 as the bound forms it
      first.col(0) = z0;
      for (int k = 1; k < given; ++k) first.col(k).noalias() = A.lazyProduct(first.col(k - 1));
      warm_a.build(A, D, growth, z0, h);
      warm_b.build_from_terms(A, D, growth, first, h);
      ASSERT_EQ(warm_a.order(), warm_b.order()) << n << " " << given;
      for (int k = 0; k <= warm_a.order(); ++k) {
        EXPECT_EQ(warm_a.scaled_norm(k), warm_b.scaled_norm(k)) << n << " " << given << " " << k;
        for (int i = 0; i < n; ++i) EXPECT_EQ(warm_a.v(k)(i), warm_b.v(k)(i)) << n << " " << given << " " << k;
      }
    }
  }
  EXPECT_THROW(warm_b.build_from_terms(big, big_D, 1.0, MatrixXd(13, 0), 0.01), std::invalid_argument);
}

}  // namespace
}  // namespace luztar::exact
