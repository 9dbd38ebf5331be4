// Friction tables (elements/friction.hpp; core/model.hpp FrictionTable): the
// Coulomb part S(t) tau(|v|) sgn v with tau piecewise linear in the speed, run
// against hand-derived closed forms with both integrators and the time
// stepper, and the rules around it (the exact integrator's refusal of a
// slope times a time-varying normal force, the reduction through a rigid
// gear, the time stepper's limit on a falling segment).
//
// Derivations (a body of inertia I on a bearing, no other torque):
//  1. Stribeck deceleration, I = 1, v(0) = 10, table [[0, 2], [5, 1], [10, 1]]:
//     segment 1 (level 1 from 5 rad/s on): v = 10 - t, the knot v = 5 at t = 5;
//     segment 0 (falling, tau = 2 - 0.2 v): v' = -(2 - 0.2 v), so
//     v = 10 - 5 e^{0.2 (t - 5)}, at rest when e^{0.2 (t - 5)} = 2:
//     t = 5 + 5 ln 2 = 8.465736 s; all of 1/2 I v0^2 = 50 J dissipated.
//  2. Three segments, I = 1, v(0) = 10, table [[0, 1], [2, 1.5], [6, 3.5], [8, 3.5]]:
//     level 3.5 above 6: v = 10 - 3.5 t, v = 6 at t_a = 4/3.5;
//     tau = 0.5 + 0.5 v on [2, 6]: v + 1 = 7 e^{-0.5 (t - t_a)}, v = 2 after 2 ln(7/3);
//     tau = 1 + 0.25 v on [0, 2]: v + 4 = 6 e^{-0.25 (t - t_b)}, at rest after 4 ln(3/2).
//  3. Break-away at the Stribeck peak: the bearing of 1 with static_ratio 1.5
//     and a torque T = t from rest holds up to r tau_0 = 3 N m: break-away at
//     t = 3; then v' = t - (2 - 0.2 v), v(3) = 0: v = 30 e^{0.2 (t - 3)} - 5 t - 15
//     up to the knot v = 5 (found by bisection on this form), then v' = t - 1.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "elements/friction.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "solvers/simulator.hpp"
#include "tests/model_builder.hpp"

namespace luztar {
namespace {

Model parse(const std::string& text) { return io::parse_model(text, "test.yaml", ".", {}); }

Result run(const Model& m, const std::string& integrator, double t_end) {
  SimulationSettings s = m.simulation;
  s.t_end = t_end;
  s.solver = "event_driven";
  s.integrator = integrator;
  return simulate(m, s);
}

Result step(const Model& m, double h, double t_end) {
  SimulationSettings s = m.simulation;
  s.t_end = t_end;
  s.solver = "time_stepping";
  s.step = h;
  return simulate(m, s);
}

// The bearing of derivation 1 (or another table) on a body of inertia 1 spun at v0.
std::string bearing_model(const std::string& table, double v0, double inertia = 1.0, const std::string& extra = "") {
  return "simulation: {t_end: 10, output_step: 0.01, rtol: 1.0e-11, atol: 1.0e-12}\n"
         "bodies:\n  shaft: {inertia: " + std::to_string(inertia) + ", velocity: " + std::to_string(v0) + "}\n"
         "elements:\n  bearing: {type: friction, body: shaft, coulomb_table: {points: " + table + "}" + extra + "}\n";
}

const std::string kStribeck = "[[0, 2], [5 rad/s, 1], [10, 1]]";

// The first stick of element `e` [s], NaN if none.
double first_stick(const Result& r, int e) {
  for (const EventRecord& ev : r.events)
    if (ev.element == e && ev.kind == EventKind::stick) return ev.t;
  return NAN;
}

// Largest |v(t) - closed(t)| over the samples of body 0 with t < t_max.
double worst_velocity(const Result& r, const std::function<double(double)>& closed, double t_max) {
  double worst = 0.0;
  for (int k = 0; k < r.num_samples(); ++k)
    if (r.time[k] < t_max) worst = std::max(worst, std::abs(r.velocity[k * r.num_bodies()] - closed(r.time[k])));
  return worst;
}

TEST(FrictionTable, LawOnItsSegmentsAndItsTangents) {
  Friction f;
  f.viscous = 0.1;
  f.table.speed = {0.0, 5.0, 10.0};
  f.table.value = {2.0, 1.0, 1.0};
  f.table.slope = {-0.2, 0.0};
  f.speed_dependent = true;
  // slipping + at 3 rad/s on segment 0: 0.1 * 3 + 1.5 (2 - 0.6)
  EXPECT_NEAR(kinetic_friction_torque(f, 3.0, FrictionMode::slip_positive, 1.5, 0), 0.3 + 1.5 * 1.4, 1e-15);
  EXPECT_NEAR(kinetic_friction_torque(f, -3.0, FrictionMode::slip_negative, 1.5, 0), -0.3 - 1.5 * 1.4, 1e-15);
  EXPECT_NEAR(kinetic_friction_torque(f, 7.0, FrictionMode::slip_positive, 1.5, 1), 0.7 + 1.5, 1e-15);
  EXPECT_EQ(static_friction_limit(f, 1.5), 1.5 * 2.0);  // r = 1
  EXPECT_NEAR(friction_damping(f, 1.5, 0), 0.1 - 0.3, 1e-15);
  EXPECT_EQ(friction_damping(f, 1.5, 1), 0.1);
  EXPECT_NEAR(friction_dissipation(f, 3.0, FrictionMode::slip_positive, 1.5, 0), 3.0 * (0.3 + 2.1), 1e-14);
  // the remainder beyond S tau_0 is odd and continuous through 0 (S b_0 v there)
  EXPECT_NEAR(friction_table_remainder(f, 1.0, 1.5), 1.5 * -0.2, 1e-15);
  EXPECT_NEAR(friction_table_remainder(f, -1.0, 1.5), 1.5 * 0.2, 1e-15);
  EXPECT_NEAR(friction_table_remainder(f, 8.0, 1.5), 1.5 * (1.0 - 2.0), 1e-15);
  EXPECT_NEAR(friction_table_remainder_slope(f, -1.0, 1.5), -0.3, 1e-15);
  // segments from speeds: a knot belongs to the segment above it
  EXPECT_EQ(f.table.segment_of(0.0), 0);
  EXPECT_EQ(f.table.segment_of(5.0), 1);
  EXPECT_EQ(f.table.segment_of(50.0), 1);
}

TEST(FrictionTable, WitnessesWatchTheKnotsOfTheSegment) {
  FrictionTable t;
  t.speed = {0.0, 1.0, 2.0, 4.0};
  t.value = {1.0, 2.0, 2.5, 3.0};
  t.slope = {1.0, 0.5, 0.25};
  std::vector<Witness> ws;
  friction_witnesses(t, 7, FrictionMode::slip_negative, 1, 1e-9, ws);
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_EQ(ws[0].kind, WitnessKind::slip_velocity);
  // slipping -: |v| rising past 2 is v falling past -2
  EXPECT_EQ(ws[1].kind, WitnessKind::knot_upper);
  EXPECT_EQ(ws[1].direction, -1);
  EXPECT_EQ(ws[1].level, -2.0);
  EXPECT_EQ(ws[2].kind, WitnessKind::knot_lower);
  EXPECT_EQ(ws[2].direction, +1);
  EXPECT_EQ(ws[2].level, -1.0);
  ws.clear();
  friction_witnesses(t, 7, FrictionMode::slip_positive, 2, 1e-9, ws);  // the last segment has no upper knot
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[1].kind, WitnessKind::knot_lower);
  EXPECT_EQ(ws[1].level, 2.0);
  // after an event the segment is kept near its knots (the crossing's
  // roundoff) and found from the speed otherwise (a velocity jump)
  EXPECT_EQ(settled_segment(t, FrictionMode::slip_positive, 1, 2.0 + 1e-12), 1);
  EXPECT_EQ(settled_segment(t, FrictionMode::slip_positive, 2, 2.0 - 1e-12), 2);
  EXPECT_EQ(settled_segment(t, FrictionMode::slip_positive, 0, 3.0), 2);
  EXPECT_EQ(settled_segment(t, FrictionMode::slip_negative, 2, -0.5), 0);
  EXPECT_EQ(settled_segment(t, FrictionMode::stuck, 2, 0.0), 0);
}

// Derivation 1 in both integrators: the knot at t = 5 (not logged, counted),
// the stick at 5 + 5 ln 2, the velocity on both segments, 50 J dissipated.
TEST(FrictionTable, StribeckDecelerationMatchesItsClosedForm) {
  const Model m = parse(bearing_model(kStribeck, 10.0));
  const double t_stick = 5.0 + 5.0 * std::log(2.0);
  auto v = [](double t) { return t <= 5.0 ? 10.0 - t : 10.0 - 5.0 * std::exp(0.2 * (t - 5.0)); };
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    const bool exact = std::string(integrator) == "exact";
    const Result r = run(m, integrator, 10.0);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), 1u);  // the knot changes no state: not logged
    EXPECT_EQ(r.events[0].kind, EventKind::stick);
    EXPECT_EQ(r.stats.events, 2);    // ... but it is an event instant
    EXPECT_NEAR(r.events[0].t, t_stick, exact ? 1e-12 : 1e-9);
    EXPECT_LE(worst_velocity(r, v, t_stick), exact ? 1e-12 : 1e-8);
    EXPECT_NEAR(r.dissipated.back(), 50.0, exact ? 1e-11 : 1e-7);
    EXPECT_LE(r.stats.energy_residual, exact ? 1e-13 : 1e-8);
  }
}

// A table file (two columns, SI, a header line allowed) reads as its points,
// named relative to the model's folder.
TEST(FrictionTable, TableFileReadsAsItsPoints) {
  const std::string head = "simulation: {t_end: 1, output_step: 0.01}\nbodies:\n  shaft: {inertia: 1}\nelements:\n";
  const ModelSpec from_file = io::parse_model_spec(
      head + "  bearing: {type: friction, body: shaft, coulomb_table: {file: friction_stribeck.csv}}\n", "test.yaml",
      LUZTAR_TEST_DATA_DIR);
  const ModelSpec inline_points =
      io::parse_model_spec(head + "  bearing: {type: friction, body: shaft, coulomb_table: {points: " + kStribeck + "}}\n",
                           "test.yaml", ".");
  const auto& a = std::get<FrictionSpec>(from_file.elements[0]).coulomb_table;
  const auto& b = std::get<FrictionSpec>(inline_points.elements[0]).coulomb_table;
  EXPECT_EQ(a.speed, b.speed);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.speed, (std::vector<double>{0, 5, 10}));
}

// Derivation 2: three segments, each left at its knot, with closed-form times.
TEST(FrictionTable, DecelerationAcrossThreeSegments) {
  const Model m = parse(bearing_model("[[0, 1], [2, 1.5], [6, 3.5], [8, 3.5]]", 10.0));
  const double ta = 4.0 / 3.5, tb = ta + 2.0 * std::log(7.0 / 3.0), tc = tb + 4.0 * std::log(1.5);
  auto v = [&](double t) {
    if (t <= ta) return 10.0 - 3.5 * t;
    if (t <= tb) return 7.0 * std::exp(-0.5 * (t - ta)) - 1.0;
    return 6.0 * std::exp(-0.25 * (t - tb)) - 4.0;
  };
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    const bool exact = std::string(integrator) == "exact";
    const Result r = run(m, integrator, 6.0);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    EXPECT_EQ(r.stats.events, 3);  // two knots and the stick
    EXPECT_NEAR(first_stick(r, 0), tc, exact ? 1e-12 : 1e-9);
    EXPECT_LE(worst_velocity(r, v, tc), exact ? 1e-12 : 1e-8);
    EXPECT_NEAR(r.dissipated.back(), 50.0, exact ? 1e-11 : 1e-7);
  }
}

// Derivation 3: the break-away at r tau_0 = 3 N m, then slipping on the
// falling segment from v = 0 (the slip starts on segment 0) and on to the level one.
TEST(FrictionTable, BreakAwayAtTheStribeckPeak) {
  const Model m = parse(
      "simulation: {t_end: 6, output_step: 0.01, rtol: 1.0e-11, atol: 1.0e-12}\n"
      "bodies:\n  shaft: {inertia: 1}\n"
      "elements:\n"
      "  bearing: {type: friction, body: shaft, coulomb_table: {points: " + kStribeck + "}, static_ratio: 1.5}\n"
      "  motor: {type: torque, body: shaft, torque: {ramp: {start: 0, end: 10, final: 10}}}\n");
  auto slip = [](double t) { return 30.0 * std::exp(0.2 * (t - 3.0)) - 5.0 * t - 15.0; };
  double lo = 3.0, hi = 6.0;  // the knot v = 5 (slip(6) > 5)
  for (int i = 0; i < 200; ++i) (slip(0.5 * (lo + hi)) < 5.0 ? lo : hi) = 0.5 * (lo + hi);
  const double tk = lo;
  auto v = [&](double t) {
    if (t <= 3.0) return 0.0;
    if (t <= tk) return slip(t);
    return 5.0 + 0.5 * (t * t - tk * tk) - (t - tk);
  };
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    const bool exact = std::string(integrator) == "exact";
    const Result r = run(m, integrator, 6.0);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].kind, EventKind::break_away);
    EXPECT_NEAR(r.events[0].t, 3.0, exact ? 1e-12 : 1e-9);
    EXPECT_LE(worst_velocity(r, v, 6.0), exact ? 1e-11 : 1e-7);
    EXPECT_LE(r.stats.energy_residual, exact ? 1e-12 : 1e-8);
  }
  // The time stepper: its dry row holds r S tau_0 = 3 N m, so the break-away
  // is the first step that ends past t = 3 (within h); the speed then lags the
  // closed form by what that step's delay costs at the acceleration 1 rad/s^2
  // there, grown by e^{0.2 (t - 3)} on the falling segment (about 1.5 at the
  // knot), plus the scheme's own first-order error: 2 h bounds it, and it
  // falls with h.
  double previous = INFINITY;
  for (double h : {1e-3, 1e-4}) {
    SCOPED_TRACE(h);
    const Result r = step(m, h, 6.0);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].kind, EventKind::break_away);
    EXPECT_GE(r.events[0].t, 3.0);
    EXPECT_LE(r.events[0].t, 3.0 + h * (1.0 + 1e-9));
    const double err = worst_velocity(r, v, 6.0 + h);
    EXPECT_LE(err, 2.0 * h);
    EXPECT_LT(err, previous / 5.0);
    previous = err;
    EXPECT_LE(r.stats.energy_residual, 1e-12);
  }
}

// The time stepper on derivation 1: the stick time within 2 h (its error is
// first order in h), and the balance of the scheme closed to roundoff (its
// booked dissipation is the power of the torques each step applied).
TEST(FrictionTable, TimeStepperConvergesToTheStribeckStick) {
  const Model m = parse(bearing_model(kStribeck, 10.0));
  const double t_stick = 5.0 + 5.0 * std::log(2.0);
  double previous = INFINITY;
  for (double h : {1e-2, 1e-3, 1e-4}) {
    SCOPED_TRACE(h);
    const Result r = step(m, h, 10.0);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const double err = std::abs(first_stick(r, 0) - t_stick);
    EXPECT_LE(err, 2.0 * h);
    EXPECT_LE(r.stats.energy_residual, 1e-16 * 10.0 / h);  // roundoff: about 1e-16 per step
    EXPECT_NEAR(r.dissipated.back(), 50.0, 1e-9);
    if (std::isfinite(previous) && previous > 1e-9) {
      EXPECT_LT(err, previous);
    }
    previous = err;
  }
}

// A falling segment is negative damping: the step matrix M + h theta C stays
// positive definite only for h theta |S b| < I. Here |b| = 0.2 on I = 0.001,
// theta = 0.5: h < 0.01 s; at 0.02 s the run stops saying so.
TEST(FrictionTable, TimeStepperRefusesAStepTheFallingSegmentMakesIndefinite) {
  const Model m = parse(bearing_model("[[0, 0.002], [5, 0.001], [10, 0.001]]", 0.5, 0.001));
  // |b| = 0.0002 N m s/rad per unit scale (S = 1): h < 0.001 / (0.5 * 0.0002) = 10 s
  EXPECT_EQ(step(m, 0.5, 1.0).status, StepStatus::reached_time);
  const Model steep = parse(bearing_model("[[0, 2], [5, 1], [10, 1]]", 0.5, 0.001));
  const Result r = step(steep, 0.02, 1.0);
  EXPECT_EQ(r.status, StepStatus::solver_failure);
  EXPECT_NE(r.message.find("element 'bearing' has a negative tangent damping (-0.2 N m s/rad"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("take h < 0.01 s"), std::string::npos) << r.message;
  EXPECT_EQ(step(steep, 0.005, 1.0).status, StepStatus::reached_time);
}

// A constant-mu clutch is a Coulomb clutch: mu_table [[0, 0.5]], radius 1 and
// a normal force stepping to 20 N at 0.4 s give the results of coulomb
// stepping to 10 N m (lock-up, then break-aways and locks under the 30 N m drive),
// in both integrators and the time stepper.
TEST(FrictionTable, ConstantMuClutchIsTheCoulombClutch) {
  const std::string head =
      "simulation: {t_end: 1.5, output_step: 0.001}\n"
      "bodies:\n  J1: {inertia: 1, velocity: 10}\n  J2: {inertia: 1}\n"
      "elements:\n  drive: {type: torque, body: J1, torque: {sine: {amplitude: 30, frequency: 5}}}\n";
  const Model mu = parse(head + "  clutch: {type: friction, bodies: [J1, J2], mu_table: {points: [[0, 0.5]]}, "
                                "radius: 1 m, normal_force: {step: {time: 0.4, final: 20 N}}, static_ratio: 1.1}\n");
  const Model coulomb = parse(head + "  clutch: {type: friction, bodies: [J1, J2], "
                                     "coulomb: {step: {time: 0.4, final: 10}}, static_ratio: 1.1}\n");
  for (const char* integrator : {"exact", "cvode_bdf", "time_stepping"}) {
    SCOPED_TRACE(integrator);
    const bool stepping = std::string(integrator) == "time_stepping";
    const Result a = stepping ? step(mu, 1e-4, 1.5) : run(mu, integrator, 1.5);
    const Result b = stepping ? step(coulomb, 1e-4, 1.5) : run(coulomb, integrator, 1.5);
    ASSERT_EQ(a.events.size(), b.events.size());
    EXPECT_GE(a.events.size(), 3u);
    for (std::size_t i = 0; i < a.events.size(); ++i) {
      EXPECT_EQ(a.events[i].t, b.events[i].t);
      EXPECT_EQ(a.events[i].kind, b.events[i].kind);
    }
    EXPECT_EQ(a.velocity, b.velocity);
    EXPECT_EQ(a.element_torque, b.element_torque);
    EXPECT_EQ(a.dissipated, b.dissipated);
  }
}

// A table with a slope times a normal force that varies in time is bilinear
// within a mode: exact refuses it naming the element, auto picks cvode_bdf,
// and the time stepper converges to cvode_bdf's motion at first order.
TEST(FrictionTable, SlopeTimesVaryingNormalForceIsRefusedByExactOnly) {
  const std::string text =
      "simulation: {t_end: 2, output_step: 0.01, rtol: 1.0e-10, atol: 1.0e-12}\n"
      "bodies:\n  engine: {inertia: 0.2, velocity: 30}\n  gearbox: {inertia: 0.5}\n"
      "elements:\n"
      "  clutch: {type: friction, bodies: [engine, gearbox], mu_table: {points: [[0, 0.5], [2, 0.35], [20, 0.4]]},\n"
      "           radius: 0.1 m, normal_force: {ramp: {start: 0, end: 1, final: 400 N}}}\n"
      "  load: {type: friction, body: gearbox, coulomb: 2}\n";
  const Model m = parse(text);
  EXPECT_EQ(exact_integrator_refusal(m),
            "element 'clutch' has a friction table that depends on speed and a normal force that varies in time: its "
            "torque is bilinear within a mode, not affine (with a constant normal force it is)");
  std::string exact = text;
  exact.replace(exact.find("atol: 1.0e-12}"), 14, "atol: 1.0e-12, integrator: exact}");
  try {
    parse(exact);
    FAIL() << "exact accepted a bilinear friction law";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("simulation.integrator: exact cannot serve this model: element 'clutch'"),
              std::string::npos)
        << e.what();
  }
  const Result ref = run(m, "auto", 2.0);
  ASSERT_EQ(ref.status, StepStatus::reached_time) << ref.message;
  EXPECT_EQ(ref.integrator, "cvode_bdf");
  EXPECT_LE(ref.stats.energy_residual, 1e-8);
  const double t_lock = first_stick(ref, 0);
  ASSERT_TRUE(std::isfinite(t_lock)) << "the clutch locks up within the run";
  double previous = INFINITY;
  for (double h : {1e-3, 1e-4}) {
    const Result r = step(m, h, 2.0);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const double err = std::abs(first_stick(r, 0) - t_lock);
    EXPECT_LE(err, 3.0 * h) << h;
    EXPECT_LT(err, previous);
    previous = err;
    EXPECT_LE(r.stats.energy_residual, 1e-12);
  }
}

// Through a rigid gear (q_wheel = q_motor / 2) the wheel's bearing table is
// seen on the motor with speeds doubled and torques halved (u = c w, torque
// c tau(|c| |w|), c = 1/2; a mu_table's radius halves): the reduced model is
// the hand-reduced one (motor inertia 1 + 0.5 / 4), in either law.
TEST(FrictionTable, ReductionThroughARigidGearScalesTheTable) {
  const std::string sim = "simulation: {t_end: 8, output_step: 0.01}\n";
  const std::string drive = "  drive: {type: torque, body: motor, torque: {sine: {amplitude: 3, frequency: 0.5}}}\n";
  const std::string full_head = sim +
      "bodies:\n  motor: {inertia: 1, velocity: 1}\n  wheel: {inertia: 0.5, velocity: 0.5}\n"
      "elements:\n  gear: {type: spring, bodies: [motor, wheel], ratio: 2, stiffness: .inf}\n" + drive;
  const std::string hand_head = sim + "bodies:\n  motor: {inertia: 1.125, velocity: 1}\n" + "elements:\n" + drive;
  const std::string laws[][2] = {
      {"coulomb_table: {points: [[0, 2], [2, 1], [4, 1.5]]}", "coulomb_table: {points: [[0, 1], [4, 0.5], [8, 0.75]]}"},
      {"mu_table: {points: [[0, 0.4], [3, 0.3], [6, 0.3]]}, radius: 0.2, normal_force: 20, static_ratio: 1.2",
       "mu_table: {points: [[0, 0.4], [6, 0.3], [12, 0.3]]}, radius: 0.1, normal_force: 20, static_ratio: 1.2"}};
  for (const auto& law : laws) {
    SCOPED_TRACE(law[0]);
    const std::string full = full_head + "  bearing: {type: friction, body: wheel, " + law[0] + "}\n";
    const std::string hand = hand_head + "  bearing: {type: friction, body: motor, " + law[1] + "}\n";
    const Reduction red = validate_and_reduce(io::parse_model_spec(full, "full.yaml", "."));
    const auto& f = std::get<FrictionSpec>(red.spec.elements[1]);
    const ModelSpec hand_spec = io::parse_model_spec(hand, "hand.yaml", ".");
    const auto& want = std::get<FrictionSpec>(hand_spec.elements[1]);
    EXPECT_EQ(f.coulomb_table.speed, want.coulomb_table.speed);
    EXPECT_EQ(f.coulomb_table.value, want.coulomb_table.value);
    EXPECT_EQ(f.mu_table.speed, want.mu_table.speed);
    EXPECT_EQ(f.mu_table.value, want.mu_table.value);
    EXPECT_EQ(f.radius, want.radius);
    // the reduced description writes back and reads to the same law
    const ModelSpec back = io::parse_model_spec(io::to_yaml(red.spec, {}), "back.yaml", ".");
    EXPECT_EQ(std::get<FrictionSpec>(back.elements[1]).coulomb_table.value, f.coulomb_table.value);
    EXPECT_EQ(std::get<FrictionSpec>(back.elements[1]).mu_table.speed, f.mu_table.speed);
    for (const char* integrator : {"exact", "cvode_bdf"}) {
      SCOPED_TRACE(integrator);
      const Result a = run(parse(full), integrator, 8.0), b = run(parse(hand), integrator, 8.0);
      ASSERT_EQ(a.events.size(), b.events.size());
      EXPECT_GE(a.events.size(), 2u);
      for (std::size_t i = 0; i < a.events.size(); ++i) EXPECT_NEAR(a.events[i].t, b.events[i].t, 1e-12);
      const std::vector<double> va = test::first_bodies(a, a.velocity, b.num_bodies());  // (a also reports the merged body)
      ASSERT_EQ(va.size(), b.velocity.size());
      for (std::size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], b.velocity[k], 1e-12);
    }
  }
}

// An impact moves a slipping element across knots that no witness saw: its
// segment is found from the speed at the restart. Bodies a (J 1, 1 rad/s, on
// a table bearing) and b (J 1, 10 rad/s) start touching on the - flank of a
// rigid freeplay (e = 1, a = 10 rad): they exchange velocities at t = 0, a
// goes on at 10 rad/s on the table [[0, 1], [2, 1], [4, 3], [6, 3]] (level 3
// above 4): v = 10 - 3 t to 4 at t = 2; tau = v - 1 on [2, 4]: v - 1 = 3 e^{-(t - 2)},
// v = 2 at 2 + ln 3; tau = 1 below 2: at rest 2 s later, t = 4 + ln 3. The gap
// opens to x = -10 + 14 (the integral of v_a - 1) and never closes before 6 s.
TEST(FrictionTable, AnImpactMovesTheSegmentWithTheVelocity) {
  const Model m = parse(
      "simulation: {t_end: 6, output_step: 0.01, rtol: 1.0e-11, atol: 1.0e-12}\n"
      "bodies:\n  a: {inertia: 1, angle: -10, velocity: 1}\n  b: {inertia: 1, velocity: 10}\n"
      "elements:\n"
      "  teeth: {type: spring, bodies: [a, b], stiffness: .inf, freeplay: 10, restitution: 1}\n"
      "  bearing: {type: friction, body: a, coulomb_table: {points: [[0, 1], [2, 1], [4, 3], [6, 3]]}}\n");
  const double t_stick = 4.0 + std::log(3.0);
  auto v = [&](double t) {
    if (t <= 2.0) return 10.0 - 3.0 * t;
    if (t <= 2.0 + std::log(3.0)) return 1.0 + 3.0 * std::exp(-(t - 2.0));
    return 2.0 - (t - 2.0 - std::log(3.0));
  };
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    const bool exact = std::string(integrator) == "exact";
    const Result r = run(m, integrator, 6.0);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    EXPECT_NEAR(first_stick(r, 1), t_stick, exact ? 1e-12 : 1e-9);
    EXPECT_LE(worst_velocity(r, v, t_stick), exact ? 1e-12 : 1e-8);
  }
}

}  // namespace
}  // namespace luztar
