// The exosystem of the slot signals (solvers/exact/exosystem.hpp): for every
// signal kind, sigma(t) = C exp(S (t - t0)) xi(t0+) equals evaluate(s, t) on the
// open interval after t0 up to the next breakpoint, to 1e-13 relative to the
// signal's magnitude there.
#include "solvers/exact/exosystem.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "solvers/exact/matrix_exponential.hpp"
#include "tests/exact_signals.hpp"
#include "tests/model_builder.hpp"

namespace luztar::exact {
namespace {

using test::ramp;
using test::sine;

Signal constant(double v) { return Signal::make_constant(v); }
using test::step;
Signal table(std::vector<double> t, std::vector<double> v) {
  Signal s;
  s.kind = Signal::Kind::table;
  s.table_t = std::move(t);
  s.table_v = std::move(v);
  return s;
}
Signal combine(Signal::Kind kind, std::vector<Signal> terms) {
  Signal s;
  s.kind = kind;
  s.terms = std::move(terms);
  return s;
}
Signal block(Signal::Kind kind, Signal of, double lower, double upper) {
  Signal s = combine(kind, {std::move(of)});
  s.lower = lower;
  s.upper = upper;
  return s;
}

// Compares the generator with evaluate() at `samples` times in (t0, t1); t1 is
// at or before the next breakpoint after t0 and before any kink.
void expect_generates(const Signal& s, double t0, double t1, const double* inputs = nullptr, int samples = 40) {
  Exosystem exo({&s});
  Eigen::VectorXd xi;
  exo.state_at(t0, inputs, xi);
  ASSERT_EQ(xi.size(), exo.size());
  EXPECT_EQ(xi(0), 1.0);
  double scale = 0.0;
  std::vector<double> tt, expected;
  for (int i = 1; i <= samples; ++i) {
    const double t = t0 + (t1 - t0) * i / (samples + 1.0);
    tt.push_back(t);
    expected.push_back(evaluate(s, t, inputs));
    scale = std::max(scale, std::abs(expected.back()));
  }
  for (std::size_t i = 0; i < tt.size(); ++i) {
    const double got = (exo.C() * expm(exo.S() * (tt[i] - t0)) * xi)(0);
    EXPECT_NEAR(got, expected[i], 1e-13 * std::max(scale, 1e-300)) << kind_name(s.kind) << " at t = " << tt[i];
  }
}

TEST(Exosystem, ConstantIsHeld) { expect_generates(constant(-2.5), 0.0, 3.0); }

TEST(Exosystem, SineOverManyPeriods) {
  expect_generates(sine(2.0, 3.0, 0.4, 0.3), 0.0, 2.0, nullptr, 200);
  expect_generates(sine(0.5, 50.0, -1.2, -1.0), 0.37, 0.57, nullptr, 200);
}

TEST(Exosystem, StepTakesTheValueAfterAStepAtT0) {
  const Signal s = step(0.5, 1.0, -3.0);
  expect_generates(s, 0.0, 0.5);
  expect_generates(s, 0.5, 2.0);  // at the step: the value after it
  Exosystem exo({&s});
  std::vector<double> b;
  exo.breakpoints(0.0, 10.0, b);
  EXPECT_EQ(b, std::vector<double>{0.5});
}

TEST(Exosystem, RampBeforeOnAndAfterItsPiece) {
  const Signal s = ramp(0.2, 0.7, 1.0, 6.0);
  expect_generates(s, 0.0, 0.2);
  expect_generates(s, 0.2, 0.7);  // on the piece that starts at t0
  expect_generates(s, 0.45, 0.7);
  expect_generates(s, 0.7, 3.0);  // after the end: held
}

TEST(Exosystem, TableOnEachPieceAndAtItsKnots) {
  const Signal s = table({0.1, 0.3, 0.35, 1.0}, {2.0, -1.0, 4.0, 4.5});
  expect_generates(s, 0.0, 0.1);
  expect_generates(s, 0.1, 0.3);
  expect_generates(s, 0.3, 0.35);  // the piece that starts at the knot
  expect_generates(s, 0.31, 0.35);
  expect_generates(s, 0.35, 1.0);
  expect_generates(s, 1.0, 5.0);
}

TEST(Exosystem, SumAndProductOfGeneratedSignals) {
  expect_generates(combine(Signal::Kind::sum, {sine(1.0, 2.0, 0.0, 0.0), ramp(0.0, 1.0, 0.0, 3.0), constant(4.0)}),
                   0.25, 1.0);
  // sine times ramp: a Kronecker product of a rotation and a nilpotent shift
  expect_generates(combine(Signal::Kind::product, {sine(2.0, 1.5, 0.2, 1.0), ramp(0.0, 2.0, -1.0, 3.0)}), 0.1, 2.0,
                   nullptr, 100);
  // sine times sine: the sum and difference frequencies
  expect_generates(combine(Signal::Kind::product, {sine(1.0, 2.0, 0.3, 0.0), sine(2.0, 7.0, 0.0, 0.5), constant(3.0)}),
                   0.0, 1.0, nullptr, 100);
}

TEST(Exosystem, InputsAndSampledOutputsAreHeldFromTheInputsArray) {
  Signal in;
  in.kind = Signal::Kind::input;
  in.input = 1;
  in.value = 7.0;
  Signal hold = combine(Signal::Kind::hold, {sine(1.0, 1.0, 0.0, 0.0)});
  hold.input = 2;
  const double inputs[] = {0.0, -4.0, 2.5};
  expect_generates(in, 0.0, 1.0, inputs);
  expect_generates(in, 0.0, 1.0, nullptr);  // its initial value
  expect_generates(hold, 0.3, 1.0, inputs);
  expect_generates(combine(Signal::Kind::product, {in, sine(1.0, 1.0, 0.0, 0.0)}), 0.0, 1.0, inputs);
}

TEST(Exosystem, MemorylessBlocksOnEachPiece) {
  // of = 2 sin(2 pi t): above 1.5 on (asin(0.75)/2pi, 0.5 - asin(0.75)/2pi) = (0.1350, 0.3650)
  const Signal of = sine(2.0, 1.0, 0.0, 0.0);
  for (Signal::Kind kind : {Signal::Kind::dead_zone, Signal::Kind::saturation}) {
    const Signal s = block(kind, of, -1.0, 1.5);
    expect_generates(s, 0.0, 0.13);    // between
    expect_generates(s, 0.14, 0.36);   // above
    expect_generates(s, 0.37, 0.58);   // between (of > -1 until 0.5 + 1/12)
    expect_generates(s, 0.59, 0.90);   // below
  }
  // inside a product and a sum: the kinks stay linear through a copy of `of`
  expect_generates(combine(Signal::Kind::product, {block(Signal::Kind::dead_zone, of, -1.0, 1.5), ramp(0.0, 1.0, 1.0, 2.0)}),
                   0.14, 0.36);
}

TEST(Exosystem, MemorylessBlockStartingOnItsKinkTakesTheSideItLeavesTo) {
  // of = 1.5 + sin(2 pi t) starts on the upper kink 1.5 and rises: above at 0+
  const Signal s = block(Signal::Kind::saturation, sine(1.0, 1.0, 0.0, 1.5), -1.0, 1.5);
  Exosystem exo({&s});
  Eigen::VectorXd xi;
  exo.state_at(0.0, nullptr, xi);
  EXPECT_EQ(exo.pieces(), std::vector<std::int8_t>{1});
  exo.state_at(0.5, nullptr, xi);  // on the kink again, now falling: between
  EXPECT_EQ(exo.pieces(), std::vector<std::int8_t>{0});
}

// A sine starting at its crest on the bound: its first derivative, cos(pi/2)
// = 6e-17, is roundoff, not a rise; the second says it falls, so the block is
// between its bounds at 0+. (Read as a rise, the saturation was held at 2
// until the sine's next crossing: a bearing of MT0 = clamp(2 cos(0.4 pi t),
// 0, 2) braked 10 rad/s to 7.5 instead of 10 - 2 / (0.4 pi) = 8.408 at 2 s.)
TEST(Exosystem, SineAtItsCrestOnTheBoundLeavesIt) {
  const Signal s = block(Signal::Kind::saturation, sine(2.0, 0.2, std::numbers::pi / 2, 0.0), 0.0, 2.0);
  Exosystem exo({&s});
  Eigen::VectorXd xi;
  exo.state_at(0.0, nullptr, xi);
  EXPECT_EQ(exo.pieces(), std::vector<std::int8_t>{0});
  expect_generates(s, 0.0, 1.2);
}

TEST(Exosystem, CrossingAKinkSwitchesThePieceAndKeepsGenerating) {
  // dead_zone [-1, 1.5] of 2 sin(2 pi t): the upper kink is crossed upwards at
  // t_k = asin(0.75) / (2 pi); from t0 = 0 propagate to t_k, cross, compare after.
  const Signal s = block(Signal::Kind::dead_zone, sine(2.0, 1.0, 0.0, 0.0), -1.0, 1.5);
  Exosystem exo({&s});
  Eigen::VectorXd xi;
  exo.state_at(0.0, nullptr, xi);
  ASSERT_EQ(exo.kinks().rows(), 2);
  ASSERT_EQ(exo.kink_list()[0].side, 1);
  const double tk = std::asin(0.75) / (2.0 * std::numbers::pi);
  const Eigen::VectorXd xk = expm(exo.S() * tk) * xi;
  EXPECT_NEAR((exo.kinks() * xk)(0), 0.0, 1e-15);
  exo.cross_kink(0, +1);
  EXPECT_EQ(exo.pieces(), std::vector<std::int8_t>{1});
  for (double t : {0.15, 0.25, 0.36}) {
    const double got = (exo.C() * expm(exo.S() * (t - tk)) * xk)(0);
    EXPECT_NEAR(got, evaluate(s, t), 1e-14) << t;
  }
  exo.cross_kink(0, -1);
  EXPECT_EQ(exo.pieces(), std::vector<std::int8_t>{0});
}

TEST(Exosystem, MeasurementsHaveNoGenerator) {
  Signal angle;
  angle.kind = Signal::Kind::angle;
  EXPECT_THROW(Exosystem({&angle}), std::invalid_argument);
}

}  // namespace
}  // namespace luztar::exact
