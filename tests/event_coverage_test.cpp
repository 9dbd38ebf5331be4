// Results do not depend on how time is chopped: no event is stepped over when
// the output grid or a host's step is long (the signals bound CVODE's step,
// solvers/simulator.hpp), and instants a few ulp apart are one instant
// (core/times.hpp) wherever a target, breakpoint or grid point meets another.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "core/run_frame.hpp"
#include "core/times.hpp"
#include "io/yaml_model.hpp"
#include "luztar.h"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

Model parse(const std::string& text) { return assemble(io::parse_model_spec(text, "test.yaml", ".")); }

// A block (I = 1 kg m^2) on a bearing with viscous coefficient 0.5 N m s/rad
// and limit MT0 (`coulomb`), driven by `torque`; the tolerances are tight.
Model block_under(double t_end, double output_step, const std::string& torque, const std::string& coulomb = "1.0") {
  return parse("simulation: {t_end: " + std::to_string(t_end) + ", output_step: " + std::to_string(output_step) +
               ", rtol: 1.0e-10, atol: 1.0e-12}\n"
               "bodies:\n"
               "  block: {inertia: 1.0}\n"
               "elements:\n"
               "  bearing: {type: friction, body: block, viscous: 0.5, coulomb: " + coulomb + "}\n"
               "  drive: {type: torque, body: block, torque: " + torque + "}\n");
}

Model block_model() { return assemble(io::load_model_spec(LUZTAR_MODELS_DIR "/block.yaml")); }

// Same events (kind, element, states) at the same times within `tol` [s].
void expect_same_events(const std::vector<EventRecord>& a, const std::vector<EventRecord>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i].t, b[i].t, tol) << "event " << i;
    EXPECT_EQ(a[i].kind, b[i].kind) << "event " << i;
    EXPECT_EQ(a[i].element, b[i].element) << "event " << i;
    EXPECT_EQ(a[i].after, b[i].after) << "event " << i;
  }
}

long count(const std::vector<EventRecord>& events, EventKind kind) {
  return std::count_if(events.begin(), events.end(), [&](const EventRecord& e) { return e.kind == kind; });
}

// models/block.yaml: M(t) = 2 sin(pi t) against MT0 = 1 sticks and breaks
// away every half period; over 4 s it has 4 break-aways and 3 sticks
// (block_test.cpp checks them against the closed form). One output interval
// over the whole run used to let CVODE step over the break-away at t = 2 + 1/6 s
// while the block was stuck (5 events, final angle 0.234 rad instead of 0.0236).
TEST(EventCoverage, BlockWithOutputStepEqualToTEndEqualsFineOutput) {
  const Model m = block_model();
  SimulationSettings coarse = m.simulation;
  coarse.output_step = coarse.t_end;
  const Result fine = simulate(m), one = simulate(m, coarse);
  ASSERT_EQ(one.status, StepStatus::reached_time) << one.message;
  EXPECT_EQ(count(fine.events, EventKind::break_away), 4);
  EXPECT_EQ(count(fine.events, EventKind::stick), 3);
  expect_same_events(one.events, fine.events, 1e-10);
  ASSERT_EQ(one.time.size(), 2u);
  EXPECT_EQ(one.time.back(), 4.0);
  // the tolerances are rtol 1e-10, atol 1e-12 on angles of order 0.1 rad
  EXPECT_NEAR(one.angle.back(), fine.angle.back(), 1e-8);
  EXPECT_NEAR(one.velocity.back(), fine.velocity.back(), 1e-8);
  EXPECT_NEAR(one.dissipated.back(), fine.dissipated.back(), 1e-8);
}

// A host advancing in one call sees what a host stepping at 1 kHz sees.
TEST(EventCoverage, SimulatorOneCallEqualsMillisecondSteps) {
  const Model m = block_model();
  Simulator one(m), steps(m);
  ASSERT_EQ(one.advance_to(4.0), StepStatus::reached_time) << one.message();
  for (int k = 1; k <= 4000; ++k) ASSERT_EQ(steps.advance_to(k * 1e-3), StepStatus::reached_time) << steps.message();
  expect_same_events(one.events(), steps.events(), 1e-10);
  EXPECT_EQ(one.events().size(), 7u);
  EXPECT_EQ(one.time(), 4.0);
  EXPECT_EQ(steps.time(), 4.0);  // 4000 * 1e-3 is 4.0000000000000004 - the same instant as t_end
  EXPECT_NEAR(one.state().q[0], steps.state().q[0], 1e-8);
  EXPECT_NEAR(one.state().w[0], steps.state().w[0], 1e-8);
}

// The same through the C API: one luztar_advance_to(4) against 4000 of 1 ms.
TEST(EventCoverage, CApiOneCallEqualsMillisecondSteps) {
  luztar_model* model = nullptr;
  ASSERT_EQ(luztar_model_load(LUZTAR_MODELS_DIR "/block.yaml", &model), LUZTAR_OK) << luztar_last_error();
  luztar_simulator *one = nullptr, *steps = nullptr;
  ASSERT_EQ(luztar_simulator_new(model, &one), LUZTAR_OK);
  ASSERT_EQ(luztar_simulator_new(model, &steps), LUZTAR_OK);
  ASSERT_EQ(luztar_advance_to(one, 4.0), LUZTAR_OK) << luztar_last_error();
  for (int k = 1; k <= 4000; ++k) ASSERT_EQ(luztar_advance_to(steps, k * 1e-3), LUZTAR_OK) << luztar_last_error();
  luztar_stats a{}, b{};
  luztar_get_stats(one, &a);
  luztar_get_stats(steps, &b);
  EXPECT_EQ(a.events, 7);
  EXPECT_EQ(b.events, 7);
  double qa = 0.0, qb = 0.0;
  ASSERT_EQ(luztar_value(one, luztar_output(one, "block.angle"), &qa), LUZTAR_OK);
  ASSERT_EQ(luztar_value(steps, luztar_output(steps, "block.angle"), &qb), LUZTAR_OK);
  EXPECT_NEAR(qa, qb, 1e-8);
  EXPECT_NEAR(qa, 0.0236, 1e-4);  // models/block.yaml's final angle (the fine run)
  luztar_simulator_free(one);
  luztar_simulator_free(steps);
  luztar_model_free(model);
}

// A stuck body under M(t) = A sin(2 pi f t) with A just over MT0 breaks away
// at A sin(2 pi f t1) = MT0, t1 = asin(MT0 / A) / (2 pi f), and is back below
// its limit by t = 1/(2f) - t1: with A = 1.05 MT0 and f = 0.5 Hz the window is
// 1 - 2 t1 = 0.197 s of each 1 s half period, short against t_end = 20 s.
// Break-away and stick alternate every half period: 20 of each (sliding
// ends within the window), whatever the output step.
TEST(EventCoverage, StuckBodyBreaksAwayInShortWindows) {
  const Model m = block_under(20.0, 20.0, "{sine: {amplitude: 1.05, frequency: 0.5}}");
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(count(r.events, EventKind::break_away), 20);
  EXPECT_EQ(count(r.events, EventKind::stick), 20);
  ASSERT_FALSE(r.events.empty());
  const double t1 = std::asin(1.0 / 1.05) / std::numbers::pi;
  EXPECT_EQ(r.events[0].kind, EventKind::break_away);
  EXPECT_NEAR(r.events[0].t, t1, 1e-9);
  SimulationSettings fine = m.simulation;
  fine.output_step = 1e-3;
  expect_same_events(r.events, simulate(m, fine).events, 1e-10);
}

// MT0(t) = 1.2 + 0.25 sin(pi t) dips below a constant load of 1 N m when
// sin(pi t) < -0.8: the body first breaks away at t1 = 1 + asin(0.8) / pi.
TEST(EventCoverage, StuckBodyBreaksAwayWhenItsLimitDips) {
  const Model m = block_under(10.0, 10.0, "1.0", "{sine: {offset: 1.2, amplitude: 0.25, frequency: 0.5}}");
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_FALSE(r.events.empty());
  EXPECT_EQ(r.events[0].kind, EventKind::break_away);
  EXPECT_NEAR(r.events[0].t, 1.0 + std::asin(0.8) / std::numbers::pi, 1e-9);
  SimulationSettings fine = m.simulation;
  fine.output_step = 1e-3;
  expect_same_events(r.events, simulate(m, fine).events, 1e-10);
}

Signal sine(double f) {
  Signal s;
  s.kind = Signal::Kind::sine;
  s.amplitude = 1.0;
  s.frequency = f;
  return s;
}
Signal ramp(double start, double end) {
  Signal s;
  s.kind = Signal::Kind::ramp;
  s.start = start;
  s.end = end;
  s.final_value = 1.0;
  return s;
}
Signal of_kind(Signal::Kind kind, std::vector<Signal> terms) {
  Signal s;
  s.kind = kind;
  s.terms = std::move(terms);
  return s;
}

// The turning time of core/signal.hpp: a sine's period; piecewise-linear
// signals and their sums are monotone between breakpoints; a product of two
// of them is a parabola there, bounded by the shortest piece.
TEST(TurningTime, OfEachKind) {
  EXPECT_EQ(turning_time(sine(4.0)), 0.25);
  EXPECT_EQ(turning_time(sine(-4.0)), 0.25);
  EXPECT_EQ(turning_time(Signal::make_constant(2.0)), INFINITY);
  EXPECT_EQ(turning_time(ramp(1.0, 3.0)), INFINITY);
  const Signal two_ramps = of_kind(Signal::Kind::sum, {ramp(1.0, 3.0), ramp(0.0, 0.5)});
  EXPECT_EQ(turning_time(two_ramps), INFINITY);
  EXPECT_EQ(turning_time(of_kind(Signal::Kind::product, {ramp(1.0, 3.0), ramp(0.0, 0.5)})), 0.5);
  EXPECT_EQ(turning_time(of_kind(Signal::Kind::product, {ramp(1.0, 3.0), Signal::make_constant(2.0)})), INFINITY);
  EXPECT_EQ(turning_time(of_kind(Signal::Kind::saturation, {of_kind(Signal::Kind::sum, {sine(2.0), two_ramps})})), 0.5);
  Signal held = of_kind(Signal::Kind::hold, {sine(100.0)});  // held between its instants
  held.period = 0.1;
  EXPECT_EQ(turning_time(held), INFINITY);
}

TEST(SameTime, FewUlpApartIsOneInstant) {
  EXPECT_TRUE(same_time(700 * 0.001, 0.7));
  EXPECT_TRUE(same_time(0.7, std::nextafter(0.7, 0.0)));
  EXPECT_FALSE(same_time(0.7, 0.7 + 1e-12));
  EXPECT_FALSE(same_time(INFINITY, 1e300));
  EXPECT_TRUE(earlier(0.699, 0.7));
  EXPECT_FALSE(earlier(std::nextafter(0.7, 0.0), 0.7));
  EXPECT_TRUE(at_or_before(700 * 0.001, 0.7));
}

// The output grid ends on t_end itself when its last point is the same
// instant: t_end = 0.7 with output_step 0.001 (700 * 0.001 = 0.7000000000000001).
TEST(SameTime, OutputGridEndsOnTEnd) {
  SimulationSettings s;
  s.t_end = 0.7;
  s.output_step = 0.001;
  const std::vector<double> grid = output_times(s);
  ASSERT_EQ(grid.size(), 701u);
  EXPECT_EQ(grid.back(), 0.7);
  s.t_end = 0.7005;  // off the grid: t_end is added
  EXPECT_EQ(output_times(s).size(), 702u);
  EXPECT_EQ(output_times(s).back(), 0.7005);
}

// A ramp ending at 0.7 s under the 1 ms output grid: the grid point
// 700 * 0.001 is one ulp past the ramp's end, which used to leave CVODE a
// segment of one ulp ("tout too close to t0"). The block (MT0 = 1) breaks away
// when the ramp 2 (t - 0.2) / 0.5 reaches 1, at t = 0.45 s, and the run equals
// one whose grid lands on 0.7 exactly (output_step 0.35).
TEST(SameTime, RampEndingBetweenGridRoundoffRuns) {
  const Model m = block_under(1.0, 0.001, "{ramp: {initial: 0.0, final: 2.0, start: 0.2, end: 0.7}}");
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_EQ(r.time.size(), 1001u);
  EXPECT_EQ(r.time[700], 0.7);  // the breakpoint itself
  EXPECT_EQ(r.time.back(), 1.0);
  ASSERT_FALSE(r.events.empty());
  EXPECT_NEAR(r.events[0].t, 0.45, 1e-9);
  SimulationSettings exact = m.simulation;
  exact.output_step = 0.35;
  const Result ref = simulate(m, exact);
  expect_same_events(r.events, ref.events, 1e-10);
  EXPECT_NEAR(r.angle.back(), ref.angle.back(), 1e-8);
  EXPECT_NEAR(r.velocity.back(), ref.velocity.back(), 1e-8);
}

// A sampled block's instant 7 * 0.1 = 0.7000000000000001 is the same instant
// as a torque step at 0.7 (the output grid of 0.35 s lands on 0.7 exactly):
// it is sampled there instead of leaving CVODE a segment of one ulp. The hold
// reads the ramp 2 t at its instants, 1.4 at 0.7 and 2 at 1.05 and 1.4 (the
// ramp ends at 1 s); MT0 = 10 keeps the block stuck.
TEST(SameTime, SampleInstantAtABreakpoint) {
  const Model m = block_under(1.4, 0.35,
                              "{sum: [{hold: {of: {ramp: {initial: 0, final: 2, start: 0, end: 1}}, period: 0.1}},"
                              " {step: {time: 0.7, initial: 0, final: 0.5}}]}",
                              "10.0");
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_EQ(r.time.size(), 5u);
  EXPECT_EQ(r.time[2], 0.7);
  ASSERT_EQ(r.block_output.size(), 5u);
  EXPECT_NEAR(r.block_output[2], 1.4, 1e-12);
  EXPECT_NEAR(r.block_output[3], 2.0, 1e-12);
  EXPECT_EQ(r.events.size(), 0u);
  EXPECT_EQ(r.angle.back(), 0.0);
}

// A host stepping t = k * 1e-3 over a torque step at T (the model has an
// input, so CVODE stops at every host time). With MT0 = 0.5 and the step from
// 0 to 1 N m the block breaks away at T exactly and then slides with
// I w' = 1 - 0.5 (no viscous term): at 1 s, w = 0.5 (1 - T), q = 0.25 (1 - T)^2.
// T = 0.7 lies one ulp below the host's 700 * 1e-3; T = 0.7000000000000002
// one ulp above it.
class HostStepsOverAStep : public ::testing::TestWithParam<double> {};

TEST_P(HostStepsOverAStep, ReachesEveryTimeAndBreaksAwayAtTheStep) {
  const double T = GetParam();
  char time[64];
  std::snprintf(time, sizeof time, "%.17g", T);
  const Model m = parse(std::string(R"(
simulation: {t_end: 1.0, output_step: 0.001, rtol: 1.0e-10, atol: 1.0e-12}
signals:
  host: {input: {initial: 0.0}}
bodies:
  block: {inertia: 1.0}
elements:
  bearing: {type: friction, body: block, coulomb: 0.5}
  drive: {type: torque, body: block, torque: {step: {time: )") + time + R"(, initial: 0.0, final: 1.0}}}
  host_torque: {type: torque, body: block, torque: host}
)");
  Simulator sim(m);
  for (int k = 1; k <= 1000; ++k) ASSERT_EQ(sim.advance_to(k * 1e-3), StepStatus::reached_time) << sim.message();
  EXPECT_EQ(sim.time(), 1.0);
  ASSERT_EQ(sim.events().size(), 1u);
  EXPECT_EQ(sim.events()[0].kind, EventKind::break_away);
  EXPECT_EQ(sim.events()[0].t, T);
  EXPECT_NEAR(sim.state().w[0], 0.5 * (1.0 - T), 1e-9);
  EXPECT_NEAR(sim.state().q[0], 0.25 * (1.0 - T) * (1.0 - T), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Breakpoints, HostStepsOverAStep,
                         ::testing::Values(0.7, 0.7000000000000002, std::nextafter(0.7, 0.0)));

}  // namespace
}  // namespace luztar
