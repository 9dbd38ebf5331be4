// Complementarity blocks (solvers/blocks/complementarity_blocks.hpp): each solves its
// complementarity form as an LCP; here each is compared with its closed-form
// input-output map on a rich input: a sum of sines of incommensurate
// frequencies, a ramp, steps and seeded random noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/projections.hpp"
#include "solvers/blocks/complementarity_blocks.hpp"

namespace luztar {
namespace {

const double kPi = 3.14159265358979323846;

// Rich input, sampled at n points over [0, 10] s.
std::vector<double> rich_input(int n) {
  std::mt19937 rng(20261121);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) {
    const double t = 10.0 * i / (n - 1);
    x[i] = 1.3 * std::sin(2 * kPi * 0.7 * t) + 0.6 * std::sin(2 * kPi * 2.3 * t + 1.0) + 0.08 * t +
           (t > 3.0 ? 0.5 : 0.0) - (t > 6.5 ? 1.2 : 0.0) + noise(rng);
  }
  return x;
}

TEST(ComplementarityBlocks, DeadZoneIsLuzAndItsAsymmetricForm) {
  for (double x : rich_input(5001)) {
    EXPECT_NEAR(dead_zone(x, -0.4, 0.4), luz(x, 0.4), 1e-14) << x;
    const double expected = x > 0.7 ? x - 0.7 : x < -0.2 ? x + 0.2 : 0.0;
    EXPECT_NEAR(dead_zone(x, -0.2, 0.7), expected, 1e-14) << x;
  }
}

TEST(ComplementarityBlocks, SaturationIsTheClampAndComplementsTheDeadZone) {
  for (double x : rich_input(5001)) {
    EXPECT_NEAR(saturation(x, -0.5, 0.9), std::clamp(x, -0.5, 0.9), 1e-14) << x;
    EXPECT_NEAR(saturation(x, -0.4, 0.4) + luz(x, 0.4), x, 1e-14) << x;  // sat + luz = identity
  }
}

// Velocity under a torque y: x = luz(y, MT0) / mu; and y lies in the set
// mu tar(x, MT0 / mu) = mu x + MT0 Sgn(x) (a point unless x = 0).
TEST(ComplementarityBlocks, CoulombViscousVelocityInvertsTar) {
  const double mu = 0.3, mt0 = 0.8;
  int held = 0;
  for (double y : rich_input(5001)) {
    const double x = coulomb_viscous_velocity(y, mu, mt0);
    EXPECT_NEAR(x, luz(y, mt0) / mu, 1e-13) << y;
    EXPECT_TRUE((mu * tar(x, mt0 / mu)).contains(y, 1e-13)) << y;
    held += x == 0.0;
  }
  EXPECT_GT(held, 100);  // the input spends time inside the stiction band
  EXPECT_NEAR(coulomb_viscous_velocity(0.6, mu, 0.0), 2.0, 1e-15);  // pure viscous
}

// Play of width B = 0.8 on x = A sin(w t), A = 1: after the first quarter
// period the output is, analytically,
//   x rising:  y = max(-A + B/2, x - B/2)   (flat until the gap is crossed)
//   x falling: y = min( A - B/2, x + B/2)
TEST(ComplementarityBlocks, PlayFollowsTheHysteresisLoopOfASine) {
  const double A = 1.0, B = 0.8, w = 2 * kPi * 1.3, h = 1e-3;
  Play play(B, 0.0);
  double worst = 0.0;
  for (int i = 0; i <= 5000; ++i) {
    const double t = i * h, x = A * std::sin(w * t);
    const double y = play.update(x);
    if (t < 0.25 * 2 * kPi / w) continue;
    const bool rising = std::cos(w * t) > 0.0;
    const double expected = rising ? std::max(-A + B / 2, x - B / 2) : std::min(A - B / 2, x + B / 2);
    worst = std::max(worst, std::abs(y - expected));
  }
  // exact at samples except those just after a turning point, where the
  // sample grid misses the peak by at most A (w h)^2 / 2
  EXPECT_LT(worst, A * (w * h) * (w * h));
}

// On the rich input the play keeps |x - y| <= B/2 and moves only when an edge pushes.
TEST(ComplementarityBlocks, PlayOnARichInput) {
  const double B = 0.5;
  Play play(B, 0.0);
  double prev = 0.0;
  for (double x : rich_input(20001)) {
    const double y = play.update(x);
    EXPECT_LE(std::abs(x - y), B / 2 + 1e-12);
    if (y != prev) {
      EXPECT_NEAR(std::abs(x - y), B / 2, 1e-12) << "moved without being pushed";
    }
    EXPECT_NEAR(y, std::min(x + B / 2, std::max(x - B / 2, prev)), 1e-14);
    prev = y;
  }
}

// Input held constant over pieces of random length and level: within a piece
// the exact solution is clamp(y_start + x (t - t_start), lower, upper).
TEST(ComplementarityBlocks, SaturatedIntegratorOnPiecewiseConstantInput) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> level(-2.0, 2.0);
  std::uniform_int_distribution<int> length(5, 400);
  const double lower = -0.3, upper = 0.5, h = 1e-3;
  SaturatedIntegrator integ(lower, upper, 0.1);
  double y_start = 0.1;
  int saturated = 0;
  for (int piece = 0; piece < 200; ++piece) {
    const double x = level(rng);
    const int n = length(rng);
    for (int k = 1; k <= n; ++k) {
      const double y = integ.update(x, h);
      const double expected = std::clamp(y_start + x * k * h, lower, upper);
      ASSERT_NEAR(y, expected, 1e-12) << "piece " << piece << " step " << k;
      saturated += (y == lower || y == upper);
    }
    y_start = integ.output();
  }
  EXPECT_GT(saturated, 1000);  // the bounds were met many times
}

// Relay with threshold 0.3 and output 2 on x = sin(w t): it switches up where
// x rises through 0.3 and down where x falls through -0.3:
//   up at (asin(0.3) + 2 pi k) / w,  down at (pi + asin(0.3) + 2 pi k) / w.
TEST(ComplementarityBlocks, RelaySwitchesAtItsThresholds) {
  const double c = 0.3, v = 2.0, w = 2 * kPi * 0.9, h = 1e-3;
  Relay relay(c, v, -1);
  const double up = std::asin(c) / w, down = (kPi + std::asin(c)) / w, period = 2 * kPi / w;
  int checked = 0;
  for (int i = 0; i <= 10000; ++i) {
    const double t = i * h;
    const double y = relay.update(std::sin(w * t));
    const double phase = std::fmod(t, period);
    const bool on = phase >= up && phase < down;
    // samples within one step after a switching instant may still show the old value
    if (std::abs(phase - up) < h || std::abs(phase - down) < h) continue;
    EXPECT_EQ(y, on ? v : -v) << "t = " << t;
    ++checked;
  }
  EXPECT_GT(checked, 9900);
  Relay ideal(0.0, 1.0, 1);  // threshold 0: holds at x = 0
  EXPECT_EQ(ideal.update(0.0), 1.0);
  EXPECT_EQ(ideal.update(-1e-12), -1.0);
  EXPECT_EQ(ideal.update(0.0), -1.0);
}

// Inputs 1e15 times the bounds: the blocks' LCP right-hand sides are ~1e15,
// M's entries 1 (Lemke's tolerances follow each column's size, solvers/numerics/lcp.cpp).
// The outputs are the closed forms: a saturated output is the bound exactly
// (read from the active set), an unsaturated one the closed form evaluated in
// doubles (x - bound, or (torque -+ coulomb) / viscous within 1 ulp).
TEST(ComplementarityBlocks, InputsFarBeyondTheBoundsGiveTheClosedForm) {
  const double big = 1e15;
  EXPECT_EQ(saturation(big, -1, 1), 1.0);
  EXPECT_EQ(saturation(-big, -1, 1), -1.0);
  EXPECT_EQ(saturation(0.7 * big, -0.3, 0.7), 0.7);
  EXPECT_EQ(saturation(-0.3 * big, -0.3, 0.7), -0.3);
  EXPECT_EQ(dead_zone(big, -1, 1), big - 1);
  EXPECT_EQ(dead_zone(-big, -0.3, 0.7), -big + 0.3);
  EXPECT_EQ(dead_zone(0.7 * big, -0.3, 0.7), 0.7 * big - 0.7);
  // y = luz(torque, coulomb) / viscous
  EXPECT_NEAR(coulomb_viscous_velocity(2 * big, 0.5, 2.0), (2 * big - 2.0) / 0.5, 1e-15 * 4 * big);
  EXPECT_NEAR(coulomb_viscous_velocity(-2 * big, 0.5, 2.0), (-2 * big + 2.0) / 0.5, 1e-15 * 4 * big);
  Play play(2.0, 0.0);  // y = min(x + 1, max(x - 1, y_prev))
  EXPECT_EQ(play.update(big), big - 1);
  EXPECT_EQ(play.update(-big), -big + 1);
  SaturatedIntegrator integrator(-0.3, 0.7, 0.0);
  EXPECT_EQ(integrator.update(big, 1e-3), 0.7);
  EXPECT_EQ(integrator.update(-big, 1e-3), -0.3);
  Relay relay(0.5, 3.0, 1);
  EXPECT_EQ(relay.update(-big), -3.0);
  EXPECT_EQ(relay.update(big), 3.0);
}

// An input that is not finite has no solution: refused before Lemke pivots on it.
TEST(ComplementarityBlocks, AnInputThatIsNotFiniteIsRefused) {
  EXPECT_THROW(saturation(INFINITY, -1, 1), std::domain_error);
  EXPECT_THROW(dead_zone(-INFINITY, -1, 1), std::domain_error);
  EXPECT_THROW(coulomb_viscous_velocity(NAN, 0.5, 2.0), std::domain_error);
  Play play(2.0, 0.0);
  EXPECT_THROW(play.update(NAN), std::domain_error);
  SaturatedIntegrator integrator(-1, 1, 0.0);
  EXPECT_THROW(integrator.update(1e308, 10.0), std::domain_error);  // y + h x overflows
  Relay relay(0.5, 3.0, 1);
  EXPECT_THROW(relay.update(-INFINITY), std::domain_error);
}

}  // namespace
}  // namespace luztar
