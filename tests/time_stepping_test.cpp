// Moreau-Jean time stepping (solvers/time_stepping.hpp) against the
// event-driven solver, which is exact up to its tolerances, on the block and
// the gear train; its energy balance; the static limit on arrival; and the
// settings it refuses.
//
// Convergence. The error of a run with step h is the largest difference of
// any body angle (or velocity) on the output grid from an event-driven run at
// rtol 1e-11. The observed order is the least-squares slope of log(error)
// against log(h). Moreau-Jean is first order where the structure changes
// within a step (an event is only resolved to its step); measured here:
//   block, h = 1e-3 .. 1e-5:      angle error 9.2e-7, 9.2e-9, 8.6e-11 (order 2.0:
//                                 few events, theta = 1/2 between them)
//   gear train over 1 s, h = 1e-4 .. 1e-6: angle 1.4e-4, 6.0e-6, 8.1e-7 (order 1.1),
//                                 velocity 0.18, 2.1e-3, 8.2e-5 rad/s (order 1.7)
// The gear train is compared over 1 s: its rattle makes later event times
// sensitive to any perturbation (see tests/gear_train_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/energy.hpp"
#include "core/errors.hpp"
#include "io/yaml_model.hpp"
#include "model_builder.hpp"
#include "solvers/simulator.hpp"
#include "solvers/time_stepping.hpp"

namespace luztar {
namespace {

using test::body;
using test::friction;
using test::torque;

struct Errors {
  double angle = 0.0, velocity = 0.0;
};

Errors difference(const Result& a, const Result& b) {
  EXPECT_EQ(a.num_samples(), b.num_samples());
  Errors e;
  for (std::size_t i = 0; i < a.angle.size() && i < b.angle.size(); ++i) {
    e.angle = std::max(e.angle, std::abs(a.angle[i] - b.angle[i]));
    e.velocity = std::max(e.velocity, std::abs(a.velocity[i] - b.velocity[i]));
  }
  return e;
}

Result time_stepping(const Model& m, double h, double t_end) {
  SimulationSettings s = m.simulation;
  s.solver = "time_stepping";
  s.step = h;
  s.t_end = t_end;
  return simulate(m, s);
}

Result event_driven(const Model& m, double t_end) {
  SimulationSettings s = m.simulation;
  s.rtol = 1e-11;
  s.atol = 1e-13;
  s.t_end = t_end;
  // CVODE: with exact as the reference the gear train's Moreau-Jean errors
  // converged at order 0.69 only (5.5e-6 rad at h = 1e-6), which points at
  // the exact path's open 1e-9 error on the damped train (README).
  s.integrator = "cvode_bdf";
  return simulate(m, s);
}

// Least-squares slope of log(err) over log(h).
double observed_order(const std::vector<double>& h, const std::vector<double>& err) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double x = std::log(h[i]), y = std::log(err[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

TEST(TimeStepping, ConvergesToTheEventDrivenBlock) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  const Result ref = event_driven(m, 4.0);
  const std::vector<double> hs = {1e-3, 1e-4, 1e-5};
  std::vector<double> err;
  for (double h : hs) {
    const Result r = time_stepping(m, h, 4.0);
    ASSERT_EQ(r.status, StepStatus::reached_time);
    err.push_back(difference(r, ref).angle);
  }
  const double order = observed_order(hs, err);
  std::printf("block: angle errors %.3e %.3e %.3e, observed order %.2f\n", err[0], err[1], err[2], order);
  EXPECT_GE(order, 0.9);
  EXPECT_LT(err.back(), 1e-9);  // rad, against a block angle of order 1
  // The same stick-slip history: every stick and break-away of the event log, within two steps.
  const Result fine = time_stepping(m, 1e-5, 4.0);
  ASSERT_EQ(fine.events.size(), ref.events.size());
  for (std::size_t i = 0; i < ref.events.size(); ++i) {
    EXPECT_EQ(fine.events[i].kind, ref.events[i].kind) << i;
    EXPECT_NEAR(fine.events[i].t, ref.events[i].t, 2e-5) << i;
  }
}

TEST(TimeStepping, ConvergesToTheEventDrivenGearTrain) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/gear_train.yaml");
  const double horizon = 1.0;
  const Result ref = event_driven(m, horizon);
  const std::vector<double> hs = {1e-4, 1e-5, 1e-6};
  std::vector<double> ang, vel;
  for (double h : hs) {
    const Result r = time_stepping(m, h, horizon);
    ASSERT_EQ(r.status, StepStatus::reached_time);
    EXPECT_EQ(r.stats.lcp_not_converged, 0);
    const Errors e = difference(r, ref);
    ang.push_back(e.angle);
    vel.push_back(e.velocity);
  }
  const double p_angle = observed_order(hs, ang), p_velocity = observed_order(hs, vel);
  std::printf("gear train: angle errors %.3e %.3e %.3e (order %.2f), velocity %.3e %.3e %.3e (order %.2f)\n",
              ang[0], ang[1], ang[2], p_angle, vel[0], vel[1], vel[2], p_velocity);
  EXPECT_GE(p_angle, 0.8);
  EXPECT_GE(p_velocity, 0.8);
  EXPECT_LT(ang.back(), 3e-6);  // rad
  EXPECT_LT(vel.back(), 3e-4);  // rad/s, against velocities of ~1 rad/s
}

// With theta = 1/2 the booked input work equals kinetic + elastic +
// dissipated up to the steps where a spring crosses a kink of luz (its
// tangent stiffness is taken at the step's start); those errors shrink with h.
TEST(TimeStepping, EnergyBalanceClosesAsTheStepShrinks) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/gear_train.yaml");
  double previous = INFINITY;
  for (double h : {1e-4, 1e-5, 1e-6}) {
    const Result r = time_stepping(m, h, 2.0);
    const EnergyBalance b = energy_balance(r, r.num_samples() - 1);
    EXPECT_LT(std::abs(b.residual), 0.2 * previous) << "h = " << h;
    previous = std::abs(b.residual);
  }
  EXPECT_LT(previous, 1e-7 * 2.0);  // J, with about 2 J of input work
  // No kinks (the block): exact to roundoff at any h.
  const Model block = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  const Result r = time_stepping(block, 1e-3, 4.0);
  EXPECT_LT(energy_balance(r, r.num_samples() - 1).relative, 1e-12);
}

// A body sliding to rest against a static/kinetic ratio of 1.5: kinetic
// friction MT0 = 1 and a load of 1.2 N m decelerate it at 2.2 rad/s^2; at rest
// the load (1.2 < 1.5 MT0) cannot break it away, and the event-driven solver
// holds it. With h = 1e-3 and v0 = -0.2201 rad/s the step that brings it to
// rest starts at v = -1e-4 rad/s: stopping it there takes an impulse of
// (1.2 h - 1e-4) = 1.1e-3 N m s, more than the kinetic box h MT0 = 1e-3 but
// within the static one. A stepper that kept the kinetic box in the arrival
// step would reverse the body and let it creep forward at 0.2 rad/s^2 for
// ever; the static limit on arrival holds it.
TEST(TimeStepping, StaticLimitHoldsABodyThatArrivesAtRest) {
  ModelSpec spec;
  const double v0 = -0.2201;
  spec.bodies = {body("b", 1.0, 0.0, v0)};
  spec.elements = {friction("f", "b", "", 1.0, 0.0, 1.5), torque("load", "b", Signal::make_constant(1.2))};
  spec.simulation = test::settings(1.0, 1e-3);
  const Model m = assemble(spec);
  const Result ed = simulate(m);
  const Result ts = time_stepping(m, 1e-3, 1.0);
  const double t_rest = -v0 / 2.2;
  const int last = ts.num_samples() - 1;
  EXPECT_EQ(test::element_state(ed, last, 0), 0);
  EXPECT_EQ(test::element_state(ts, last, 0), 0);
  EXPECT_EQ(test::velocity(ts, last, 0), 0.0);
  EXPECT_NEAR(test::angle(ts, last, 0), test::angle(ed, last, 0), 2e-4);  // rad, -v0^2 / 4.4 = -0.011
  EXPECT_NEAR(test::element_torque(ts, last, 0), 1.2, 1e-9);  // holds the load
  EXPECT_NEAR(test::element_torque(ed, last, 0), 1.2, 1e-9);  // the same convention
  EXPECT_NEAR(ts.time_stuck[0], 1.0 - t_rest, 2e-3);
}

// The tie |tau| = static_ratio MT0: a body at rest on a bearing (MT0 = 1,
// static_ratio 1.5) under exactly 1.5 N m. Stuck is admissible (the static
// torque equals the limit), so S-S keeps it stuck and so must the time
// stepper: before, its impulse sat on the widened bound, the row counted as
// not held, and the body slipped at the kinetic rate 0.5 rad/s^2 (v(2) = 1).
// Also arriving there: from -0.3 rad/s the kinetic phase (a = 2.5) ends at
// 0.12 s, and then the body stays.
TEST(TimeStepping, StaticLimitTieKeepsTheBodyStuck) {
  for (const double v0 : {0.0, -0.3}) {
    ModelSpec spec;
    spec.bodies = {body("b", 1.0, 0.0, v0)};
    spec.elements = {friction("f", "b", "", 1.0, 0.0, 1.5), torque("load", "b", Signal::make_constant(1.5))};
    spec.simulation = test::settings(2.0, 1e-2);
    const Model m = assemble(spec);
    const Result ed = simulate(m), ts = time_stepping(m, 1e-4, 2.0);
    const int last = ts.num_samples() - 1;
    EXPECT_EQ(test::velocity(ed, last, 0), 0.0) << v0;
    EXPECT_EQ(test::element_state(ts, last, 0), 0) << v0;
    EXPECT_LE(std::abs(test::velocity(ts, last, 0)), 1e-12) << v0;            // was 1.0 rad/s (from rest)
    EXPECT_NEAR(test::element_torque(ts, last, 0), 1.5, 1e-9) << v0;           // holds the load
    EXPECT_NEAR(ts.time_stuck[0], 2.0 - (-v0 / 2.5), 2e-4) << v0;              // within a step or two
  }
}

// A redundant loop at rest: bearings on a and b (MT0 1 each), a clutch a-b
// (MT0 0.5), 1.4 N m on a. Stuck everywhere is admissible (the bearing of a
// alone could hold it), so nothing moves. Which element carries how much is
// not unique, and the LCP may leave a row on its bound while every velocity
// stays 0: every element is stuck (state 0, stuck the whole second), as the
// event-driven solver reports. Before, rows on their bound read as slipping
// (state +-1, 0 s stuck) and a ramped load logged hundreds of reversals.
TEST(TimeStepping, RedundantLoopAtRestIsReportedStuck) {
  ModelSpec spec;
  spec.bodies = {body("a", 1.0), body("b", 1.0)};
  spec.elements = {friction("fa", "a", "", 1.0), friction("fb", "b", "", 1.0), friction("clutch", "a", "b", 0.5),
                   torque("load", "a", Signal::make_constant(1.4))};
  spec.simulation = test::settings(1.0, 1e-2);
  const Model m = assemble(spec);
  const Result ed = simulate(m), ts = time_stepping(m, 1e-4, 1.0);
  ASSERT_EQ(ts.status, StepStatus::reached_time) << ts.message;
  const int last = ts.num_samples() - 1;
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(test::element_state(ed, last, e), 0) << e;
    EXPECT_EQ(test::element_state(ts, last, e), 0) << e;
    EXPECT_NEAR(ts.time_stuck[static_cast<std::size_t>(e)], 1.0, 1e-9) << e;
  }
  EXPECT_TRUE(ts.events.empty()) << ts.events.size() << " events";
  for (int b = 0; b < 2; ++b) EXPECT_LE(std::abs(test::velocity(ts, last, b)), 1e-12) << b;
}

// Time stuck agrees with the event log: bodies a (v0 = 1) and b (v0 = 2),
// I = 1, on bearings of coulomb 1 stop at t = v0 exactly (on step ends, h =
// 1e-3), logged as stick events at 1 and 2 = t_end; stuck for 1 s and 0 s.
// Before, the step that ends at rest was booked stuck from its start: 1.001
// and 0.001 s, one step h more than the log says. Tolerance: roundoff of the
// summed steps (1000 additions of 1e-3).
TEST(TimeStepping, TimeStuckAgreesWithTheStickEvents) {
  const Model m = io::parse_model(
      "simulation: {t_end: 2, output_step: 0.25, solver: time_stepping, step: 0.001}\n"
      "bodies:\n  a: {inertia: 1, velocity: 1}\n  b: {inertia: 1, velocity: 2}\n"
      "elements:\n  f: {type: friction, body: a, coulomb: 1}\n  g: {type: friction, body: b, coulomb: 1}\n",
      "f4.yaml", ".");
  const Result ts = time_stepping(m, 1e-3, 2.0);
  ASSERT_EQ(ts.status, StepStatus::reached_time) << ts.message;
  ASSERT_EQ(ts.events.size(), 2u);
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(ts.events[e].kind, EventKind::stick) << e;
    EXPECT_NEAR(ts.events[e].t, 1.0 + static_cast<double>(e), 1e-12) << e;
    EXPECT_NEAR(ts.time_stuck[static_cast<std::size_t>(ts.events[e].element)], 2.0 - ts.events[e].t, 1e-12) << e;
  }
}

// A one-way clutch without drag carries b (2 kg m^2, pushed by 3 N m until
// 1 s) and a (1 kg m^2, a 0.5 N m bearing) together: w' = 2.5 / 3, then
// -0.5 / 3 from 1 s (the clutch pulls b along, -1/3 N m), to rest at 6 s,
// locked throughout. At rest b kept 2.3e-17 rad/s of the stick step's
// roundoff, the clutch (a bound of 0) read as overrunning from 5.999 s to the
// end and its time locked was 6 s instead of 8 (a new-user hunt).
TEST(TimeStepping, AOneWayClutchAtRestStaysLocked) {
  const Model m = io::parse_model(
      "simulation: {t_end: 8, output_step: 0.5, solver: time_stepping, step: 0.001}\n"
      "bodies:\n  a: {inertia: 1}\n  b: {inertia: 2}\n"
      "elements:\n  fw: {type: one_way_clutch, bodies: [a, b]}\n  brg: {type: friction, body: a, coulomb: 0.5}\n"
      "  tb: {type: torque, body: b, torque: {step: {time: 1, initial: 3, final: 0}}}\n",
      "owc.yaml", ".");
  const Result ts = time_stepping(m, 1e-3, 8.0);
  ASSERT_EQ(ts.status, StepStatus::reached_time) << ts.message;
  const auto fw = static_cast<int>(
      std::find(ts.element_names.begin(), ts.element_names.end(), "fw") - ts.element_names.begin());
  ASSERT_LT(fw, ts.num_elements());
  for (const EventRecord& e : ts.events) EXPECT_NE(e.element, fw) << to_string(e.kind) << " at " << e.t;
  for (int k = 0; k < ts.num_samples(); ++k)
    EXPECT_EQ(ts.element_state[static_cast<std::size_t>(k * ts.num_elements() + fw)], 0) << ts.time[k];
  EXPECT_NEAR(ts.time_stuck[fw], 8.0, 1e-9);
  EXPECT_NEAR(ts.velocity[ts.velocity.size() - 1], 0.0, 1e-15);
}

// Rest within roundoff is a row's own: a turbine at 1e5 rad/s elsewhere in
// the model changes neither a bearing's break-away (a step to 1.5000001 N m
// over a static limit of 1.5 at 0.01 s) nor a drag-free backstop pushed by
// 1e-9 N m, which overruns from 0 (a review finding: a tolerance of 64 eps
// times the model's largest speed held the first until 0.025 s and locked
// the second for 1.4 s).
TEST(TimeStepping, AnUnrelatedFastBodyChangesNoRowsRest) {
  const std::string sim = "simulation: {t_end: 0.1, output_step: 0.01, solver: time_stepping, step: 0.001}\n";
  for (const char* turbine : {"0", "1.0e5"}) {
    const std::string bodies = std::string("bodies:\n  turbine: {inertia: 0.01, velocity: ") + turbine + "}\n  b: {inertia: 1}\n";
    const Result brg = time_stepping(
        io::parse_model(sim + bodies + "elements:\n  brg: {type: friction, body: b, coulomb: 1, static_ratio: 1.5}\n"
                        "  tb: {type: torque, body: b, torque: {step: {time: 0.01, initial: 0, final: 1.5000001}}}\n",
                        "brg.yaml", "."),
        1e-3, 0.1);
    ASSERT_EQ(brg.events.size(), 1u) << turbine;
    EXPECT_EQ(brg.events[0].kind, EventKind::break_away) << turbine;
    EXPECT_NEAR(brg.events[0].t, 0.011, 1e-12) << turbine;
    const Result fw = time_stepping(
        io::parse_model(sim + bodies + "elements:\n  fw: {type: one_way_clutch, body: b, overrun: positive}\n"
                        "  tb: {type: torque, body: b, torque: 1.0e-9}\n", "fw.yaml", "."),
        1e-3, 0.1);
    EXPECT_TRUE(fw.events.empty()) << turbine;
    EXPECT_EQ(fw.time_stuck[0], 0.0) << turbine;
  }
}

// Linear spring (no freeplay) from x = 0: with theta = 1/2 the scheme is the
// trapezoidal rule, which keeps the oscillator's energy exactly and lags in
// phase by w^3 h^2 t / 12: q = sin(w t) / w within w^2 h^2 t / 12 (8.3e-6 here).
TEST(TimeStepping, LinearOscillatorKeepsItsEnergy) {
  ModelSpec spec;
  spec.bodies = {body("b", 1.0, 0.0, 1.0)};
  spec.elements = {test::spring("k", "b", "", 100.0)};
  spec.simulation = test::settings(1.0, 1e-2);
  const Result r = time_stepping(assemble(spec), 1e-3, 1.0);
  for (int k = 0; k < r.num_samples(); ++k) {
    EXPECT_NEAR(r.kinetic[k] + r.elastic[k], 0.5, 1e-12) << k;
    EXPECT_NEAR(test::angle(r, k, 0), std::sin(10.0 * r.time[k]) / 10.0, 1e-5) << k;
  }
}

TEST(TimeStepping, RefusesMasslessBodiesAndBadSettings) {
  ModelSpec spec;
  spec.bodies = {body("a", 1.0), body("m", 0.0)};
  spec.elements = {test::spring("s", "a", "m", 10.0), friction("f", "m", "", 0.1, 0.5),
                   torque("t", "a", Signal::make_constant(1.0))};
  spec.simulation = test::settings(0.1, 1e-2);
  const Model m = assemble(spec);
  try {
    time_stepping(m, 1e-3, 0.1);
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.field(), "simulation.solver");
    EXPECT_NE(std::string(e.what()).find("'m' is massless"), std::string::npos) << e.what();
  }
  spec.simulation.solver = "time_stepping";
  EXPECT_THROW(
      {
        try {
          assemble(spec);  // no step given
        } catch (const ModelError& e) {
          EXPECT_EQ(e.field(), "simulation.step");
          throw;
        }
      },
      ModelError);
  spec.simulation.step = 1e-3;
  spec.simulation.theta = 0.3;
  EXPECT_THROW(assemble(spec), ModelError);
  spec.simulation.theta = 0.5;
  spec.simulation.solver = "timestepping";
  EXPECT_THROW(assemble(spec), ModelError);
}

// reached_time means t_end was reached with every output sample. Settings
// that pass by validate() (an embedding caller's own) get one cut step when
// the step exceeds the span, and a refusal when they would overflow the step
// count; before, a step of 1e9 s over 1 s ran no step and a step of 1e-300 s
// overflowed the count, and both reported reached_time with no sample.
TEST(TimeStepping, ReachedTimeOnlyAtTEndWithEverySample) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  SimulationSettings s = m.simulation;
  s.solver = "time_stepping";
  s.t_end = 1.0;
  s.output_step = 0.25;
  for (double h : {1e9, 1.0, 0.3, 1e-3}) {
    s.step = h;
    const Result r = simulate_time_stepping(m, s);
    SCOPED_TRACE(h);
    EXPECT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.num_samples(), 5);  // 0, 0.25, 0.5, 0.75, 1
    EXPECT_EQ(r.time.back(), 1.0);
    EXPECT_EQ(r.stats.steps, static_cast<long>(std::ceil(1.0 / std::min(h, 1.0) - 1e-9)));
  }
  for (double h : {1e-300, 1e-20, 0.0, -1.0, std::nan(""), HUGE_VAL}) {
    s.step = h;
    SCOPED_TRACE(h);
    EXPECT_THROW(simulate_time_stepping(m, s), std::invalid_argument);
  }
}

// A grid point at a signal's breakpoint is reported at the breakpoint by
// both solvers (README, "Same instant"): 700 * 0.001 is 0.7000000000000001,
// the ramp's corner is 0.7, and the time stepper wrote the former, so
// `luztar compare` found the two solvers' grids different.
TEST(TimeStepping, ReportsAGridPointAtABreakpointAtTheBreakpoint) {
  const Model m = io::parse_model(R"(
bodies:
  b: {inertia: 1.0}
elements:
  t: {type: torque, body: b, torque: {ramp: {start: 0.0, end: 0.7, initial: 0.0, final: 1.0}}}
simulation: {t_end: 1.0, output_step: 0.001}
)", "ramp.yaml", ".");
  ASSERT_NE(700 * 0.001, 0.7);
  SimulationSettings s = m.simulation;
  const Result event_driven = simulate(m, s);
  s.solver = "time_stepping";
  s.step = 1e-4;
  const Result stepped = simulate(m, s);
  ASSERT_EQ(stepped.status, StepStatus::reached_time) << stepped.message;
  ASSERT_EQ(event_driven.time.size(), stepped.time.size());
  EXPECT_EQ(event_driven.time[700], 0.7);
  EXPECT_EQ(stepped.time[700], 0.7);
  EXPECT_EQ(event_driven.time, stepped.time);
}

// The stepping API is event-driven; it says so instead of ignoring the setting.
TEST(TimeStepping, SimulatorRefusesTheTimeSteppingSetting) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  SimulationSettings s = m.simulation;
  s.solver = "time_stepping";
  s.step = 1e-3;
  EXPECT_THROW(Simulator(m, s), std::invalid_argument);
}

// Runs tests/data/<file> (block_overflow.yaml or hold_overflow.yaml) with the
// time stepper: it stops as a solver failure with `message` in the step from
// 0.18 s, and keeps the samples 0 .. 0.18 s, which follow the closed form
// q = 2 t - 4 (1 - e^(-t/2)), v = 2 (1 - e^(-t/2)) to the method's O(h^2)
// (h = 1e-3, theta = 1/2).
void expect_stop_after_closed_form(const std::string& file, const std::string& message) {
  ModelSpec spec = io::load_model_spec(std::string(LUZTAR_TEST_DATA_DIR) + "/" + file);
  spec.simulation.solver = "time_stepping";
  const Result r = simulate(assemble(spec));
  EXPECT_EQ(r.status, StepStatus::solver_failure);
  EXPECT_EQ(r.message, message);
  ASSERT_EQ(r.time.size(), 19u);
  EXPECT_NEAR(r.time.back(), 0.18, 1e-12);
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const double t = r.time[k];
    EXPECT_NEAR(test::angle(r, static_cast<int>(k), 0), 2.0 * t - 4.0 * (1.0 - std::exp(-t / 2.0)), 1e-6);
    EXPECT_NEAR(test::velocity(r, static_cast<int>(k), 0), 2.0 * (1.0 - std::exp(-t / 2.0)), 1e-6);
  }
}

// An exception from a stage of a step (the sampler refusing the +inf the
// saturated integrator of tests/data/block_overflow.yaml reads at its instant
// 0.18 s: its LCP has no solution) stops the run as a solver failure with
// the exception's text; the samples before it are kept.
TEST(TimeStepping, ExceptionInAStepStopsTheRunWithTheSamplesSoFar) {
  expect_stop_after_closed_form("block_overflow.yaml",
                                "time stepping: stopped by an error in the step from t = 0.18 s: complementarity block "
                                "runaway: input is not finite (inf) at t = 0.18 s");
}

// tests/data/hold_overflow.yaml: the torque of `probe` = 0 x (a hold of +inf
// from 0.18 s) is NaN; the step that would apply it stops the run naming the
// element (before, the NaN went into the step and the run stopped on "the state
// is not finite").
TEST(TimeStepping, ATorqueThatIsNotFiniteStopsTheRunNamingTheElement) {
  expect_stop_after_closed_form("hold_overflow.yaml",
                                "time stepping: stopped by an error in the step from t = 0.18 s: element probe: torque "
                                "is not finite (nan) at t = 0.18 s");
}

}  // namespace
}  // namespace luztar
