// Planetary gear set and permanent link (elements/permanent_link.hpp, issue
// 19 item 2) against hand-derived closed forms, in both integrators of the
// event-driven solver and in Moreau-Jean time stepping.
//
// The set: sun s, carrier c, ring r, ratio p = ring/sun teeth. Willis:
// w_s + p w_r - (1 + p) w_c = 0, the row (1, p, -(1 + p)) on (s, r, c). Its
// torque lambda acts as -lambda on s, -p lambda on r, (1 + p) lambda on c.
// With torques T_k on the bodies, J_k a_k = T_k - c_k lambda, and the row's
// acceleration sum c_k a_k = 0 gives
//   lambda = (sum c_k T_k / J_k) / (sum c_k^2 / J_k).
// Numbers throughout: J_s = 0.1, J_c = 0.5, J_r = 0.4 kg m^2, p = 2.5,
// sum c_k^2 / J_k = 10 + 15.625 + 24.5 = 50.125 per kg m^2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/energy.hpp"
#include "core/errors.hpp"
#include "core/reduce.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "solvers/simulator.hpp"
#include "tests/model_builder.hpp"
#include "tests/yaml_runs.hpp"

namespace luztar {
namespace {

using test::angle;
using test::element_state;
using test::element_torque;
using test::velocity;

const test::Way kWays[] = {
    {"exact", "integrator: exact, rtol: 1.0e-12, atol: 1.0e-14"},
    {"cvode_bdf", "integrator: cvode_bdf, rtol: 1.0e-10, atol: 1.0e-12"},
    {"time_stepping", "solver: time_stepping, step: 1.0e-3"},
};

// The three bodies (at rest unless given) and the ideal set.
std::string set_yaml(const std::string& velocities = "", const std::string& more = "") {
  return "bodies:\n"
         "  sun: {inertia: 0.1" + velocities + "}\n"
         "  carrier: {inertia: 0.5" + velocities + "}\n"
         "  ring: {inertia: 0.4" + velocities + "}\n"
         "elements:\n"
         "  gearset: {type: planetary, sun: sun, carrier: carrier, ring: ring, ratio: 2.5}\n" + more;
}

// The set with its mesh `fields` (a lash), the sun alone turning at 1 rad/s: x'(0) = 1.
std::string lash_yaml(const std::string& fields) {
  return "bodies:\n"
         "  sun: {inertia: 0.1, velocity: 1.0}\n"
         "  carrier: {inertia: 0.5}\n"
         "  ring: {inertia: 0.4}\n"
         "elements:\n"
         "  gearset: {type: planetary, sun: sun, carrier: carrier, ring: ring, ratio: 2.5, " + fields + "}\n";
}

double willis(const Result& r, int k) {
  return velocity(r, k, 0) + 2.5 * velocity(r, k, 2) - 3.5 * velocity(r, k, 1);
}

// A constant torque T = 2 N m on the sun, all three free, from rest:
// lambda = (T / J_s) / 50.125 = 20 / 50.125, and constant accelerations
// a_s = (T - lambda) / J_s, a_r = -p lambda / J_r, a_c = (1 + p) lambda / J_c;
// w = a t, q = a t^2 / 2. Moreau-Jean is exact here too (constant forces).
TEST(Planetary, ConstantTorqueOnTheSunAcceleratesAllThreeAsTheClosedForm) {
  const double lambda = 20.0 / 50.125;
  const double a_s = (2.0 - lambda) / 0.1, a_r = -2.5 * lambda / 0.4, a_c = 3.5 * lambda / 0.5;
  for (const test::Way& way : kWays) {
    const Result r = test::run_yaml(set_yaml("", "  drive: {type: torque, body: sun, torque: 2.0}\n"), way, 1.0, 0.1);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    for (int k = 1; k < r.num_samples(); ++k) {
      const double t = r.time[k];
      EXPECT_NEAR(velocity(r, k, 0), a_s * t, 1e-9 * a_s) << way.name << " t = " << t;
      EXPECT_NEAR(velocity(r, k, 1), a_c * t, 1e-9 * a_s) << way.name;
      EXPECT_NEAR(velocity(r, k, 2), a_r * t, 1e-9 * a_s) << way.name;
      EXPECT_NEAR(angle(r, k, 0), a_s * t * t / 2, 1e-9 * a_s) << way.name;
      EXPECT_NEAR(angle(r, k, 1), a_c * t * t / 2, 1e-9 * a_s) << way.name;
      EXPECT_NEAR(angle(r, k, 2), a_r * t * t / 2, 1e-9 * a_s) << way.name;
      EXPECT_NEAR(element_torque(r, k, 0), lambda, 1e-9 * lambda) << way.name << " t = " << t;
      EXPECT_EQ(element_state(r, k, 0), 0);
    }
    EXPECT_TRUE(r.events.empty()) << way.name;
    EXPECT_EQ(r.element_kinds[0], "planetary");
    if (std::string(way.name) == "exact") {  // a link does no work: input = kinetic energy, to roundoff
      const EnergyBalance b = energy_balance(r, r.num_samples() - 1);
      EXPECT_LE(std::abs(b.residual), 1e-12 * b.input) << b.input;
      EXPECT_EQ(r.dissipated.back(), 0.0);
    }
  }
}

// The ideal set's torque ratios with the carrier held by a brake that sticks
// (a Coulomb bearing of 100 N m): the sun under T = 2 N m drives the ring
// backwards, w_s = -p w_r. lambda = (T / J_s) / (1 / J_s + p^2 / J_r) =
// 20 / 25.625; the set's torques on sun, ring and carrier are -lambda,
// -p lambda and (1 + p) lambda (1 : p : -(1 + p)), and the brake holds the
// carrier's (1 + p) lambda = 2.73 N m < 100.
TEST(Planetary, TorqueRatiosWithTheCarrierHeldByAStuckBrake) {
  const double lambda = 20.0 / 25.625;
  const double a_s = (2.0 - lambda) / 0.1, a_r = -2.5 * lambda / 0.4;
  for (const test::Way& way : kWays) {
    const Result r = test::run_yaml(set_yaml("", "  drive: {type: torque, body: sun, torque: 2.0}\n"
                                                 "  brake: {type: friction, body: carrier, coulomb: 100.0}\n"),
                                    way, 1.0, 0.1);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), a_s, 1e-9 * a_s) << way.name;
    EXPECT_NEAR(velocity(r, last, 1), 0.0, 1e-12 * a_s) << way.name;
    EXPECT_NEAR(velocity(r, last, 2), a_r, 1e-9 * a_s) << way.name;
    EXPECT_NEAR(element_torque(r, last, 0), lambda, 1e-9 * lambda) << way.name;
    // the brake carries the carrier's share: friction torque (1 + p) lambda acting -lambda_b on the carrier
    EXPECT_NEAR(element_torque(r, last, 2), 3.5 * lambda, 1e-9 * lambda) << way.name;
    EXPECT_EQ(element_state(r, last, 2), 0) << way.name;  // stuck
    // torques on the bodies from the set, 1 : p : -(1 + p)
    const double on_sun = -element_torque(r, last, 0), on_ring = -2.5 * element_torque(r, last, 0);
    EXPECT_NEAR(on_ring / on_sun, 2.5, 1e-12);
    EXPECT_NEAR(r.time_stuck[2], 1.0, 1e-12) << way.name;
    EXPECT_NEAR(r.time_stuck[0], 0.0, 0.0) << way.name;  // a link is not a friction element: never "stuck"
  }
}

// The Willis relation holds to roundoff over a run with stick-slip (a brake
// on the ring whose limit falls below its load and rises again) and a freeplay
// elsewhere (a motor driving the sun through a backlash spring under a sine
// torque); exact's energy balance closes at roundoff.
TEST(Planetary, WillisHoldsThroughStickSlipAndFreeplayAndEnergyCloses) {
  const std::string model =
      "bodies:\n"
      "  motor: {inertia: 0.05}\n"
      "  sun: {inertia: 0.1}\n"
      "  carrier: {inertia: 0.5}\n"
      "  ring: {inertia: 0.4}\n"
      "elements:\n"
      "  gearset: {type: planetary, sun: sun, carrier: carrier, ring: ring, ratio: 2.5}\n"
      "  drive: {type: torque, body: motor, torque: {sine: {amplitude: 3.0, frequency: 2.0}}}\n"
      "  shaft: {type: spring, bodies: [motor, sun], stiffness: 200.0, freeplay: 0.02, damping: 0.1}\n"
      "  brake: {type: friction, body: ring, coulomb: {ramp: {start: 0.2, end: 0.6, initial: 3.0, final: 0.5}}, "
      "viscous: 0.05}\n"
      "  load: {type: friction, body: carrier, viscous: 0.5, coulomb: 0.2}\n";
  for (const test::Way& way : kWays) {
    if (std::string(way.name) == "time_stepping") continue;  // (its own test below)
    const Result r = test::run_yaml(model, way, 2.0, 0.001);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    int sticks = 0, contacts = 0;
    for (const EventRecord& e : r.events) {
      sticks += e.kind == EventKind::stick ? 1 : 0;
      contacts += e.kind == EventKind::contact ? 1 : 0;
    }
    EXPECT_GE(sticks, 2) << way.name;
    EXPECT_GE(contacts, 2) << way.name;
    double worst = 0.0, scale = 0.0;
    for (int k = 0; k < r.num_samples(); ++k) {
      worst = std::max(worst, std::abs(velocity(r, k, 1) + 2.5 * velocity(r, k, 3) - 3.5 * velocity(r, k, 2)));
      scale = std::max({scale, std::abs(velocity(r, k, 1)), std::abs(velocity(r, k, 2)), std::abs(velocity(r, k, 3))});
    }
    EXPECT_GT(scale, 1.0) << way.name;
    EXPECT_LE(worst, 1e-12 * scale) << way.name;
    if (std::string(way.name) == "exact") {
      const EnergyBalance b = energy_balance(r, r.num_samples() - 1);
      EXPECT_LE(std::abs(b.residual), 1e-10 * std::max(1.0, b.input)) << b.input << " " << b.dissipated;
    }
  }
  const Result r = test::run_yaml(model, kWays[2], 2.0, 0.001);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  for (int k = 0; k < r.num_samples(); ++k)
    EXPECT_LE(std::abs(velocity(r, k, 1) + 2.5 * velocity(r, k, 3) - 3.5 * velocity(r, k, 2)), 1e-9);
}

// A rigid stop on the sun (rigid freeplay to the base, gap 0.1 rad, plastic)
// struck while all three turn at 1 rad/s: the impact stops the sun and the
// link passes impulses to carrier and ring. Its impulse Lambda =
// -w_s / (p^2 / J_r + (1 + p)^2 / J_c) = -1 / 40.125 gives
// w_r+ = 1 - p Lambda / J_r and w_c+ = 1 + (1 + p) Lambda / J_c, which keep
// p w_r+ = (1 + p) w_c+; nothing acts afterwards.
TEST(Planetary, AStopStrikingTheSunPassesImpulsesThroughTheLink) {
  const double L = -1.0 / 40.125;
  const double w_r = 1.0 - 2.5 * L / 0.4, w_c = 1.0 + 3.5 * L / 0.5;
  for (const test::Way& way : kWays) {
    const Result r = test::run_yaml(
        set_yaml(", velocity: 1.0", "  stop: {type: spring, body: sun, stiffness: .inf, freeplay: 0.1}\n"), way,
        0.3, 0.01);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), 0.0, 1e-9) << way.name;
    EXPECT_NEAR(velocity(r, last, 1), w_c, 1e-9) << way.name;
    EXPECT_NEAR(velocity(r, last, 2), w_r, 1e-9) << way.name;
    EXPECT_LE(std::abs(willis(r, last)), 1e-12) << way.name;
    const double lost = 0.5 - 0.5 * (0.5 * w_c * w_c + 0.4 * w_r * w_r);
    EXPECT_NEAR(r.dissipated.back(), lost, 1e-9) << way.name;
  }
}

// A compliant planetary with lash: the mesh spring on x = q_s + p q_r -
// (1 + p) q_c (k = 1000 N m/rad on x, freeplay a = 0.01 rad), all three free,
// x'(0) = 1 rad/s (the sun alone turning). x'' = -T / J_x with 1 / J_x =
// 50.125, so x rattles between the flanks: a flight of 2a / v across the gap,
// half a period pi sqrt(J_x / k) on a flank; it meets the upper flank first at
// a / v = 0.01 s and again every 4a / v + 2 pi sqrt(J_x / k).
TEST(Planetary, CompliantSetWithLashRattlesWithTheClosedFormPeriod) {
  const double period = 0.04 + 2.0 * M_PI / std::sqrt(1000.0 * 50.125);
  for (const test::Way& way : kWays) {
    if (std::string(way.name) == "time_stepping") continue;  // (no event times)
    const Result r = test::run_yaml(lash_yaml("stiffness: 1000.0, freeplay: 0.01"), way, 0.3, 0.01);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    std::vector<double> upper;
    for (const EventRecord& e : r.events)
      if (e.kind == EventKind::contact && e.after == 1) upper.push_back(e.t);
    ASSERT_GE(upper.size(), 4u) << way.name;
    // exact: roundoff of the event location; cvode_bdf: its global error at
    // rtol 1e-10 over four periods (measured 1.5e-8 s at the fifth contact)
    const double tolerance = std::string(way.name) == "exact" ? 1e-11 : 1e-7;
    for (std::size_t i = 0; i < upper.size(); ++i)
      EXPECT_NEAR(upper[i], 0.01 + static_cast<double>(i) * period, tolerance) << way.name << " contact " << i;
    EXPECT_EQ(r.element_kinds[0], "planetary");
  }
}

// An open differential through a general link: w_left + w_right = 2 w_cage
// (`type: link` on that coordinate), a torque on the cage split equally
// between equal wheels held by bearings: the left wheel on ice (limit 40 N m)
// gives way, the right holds (1200 N m). The link's torque lambda acts as
// -lambda on each wheel and +2 lambda on the cage; with mu = -lambda (the
// drive on each wheel): J_c a_c = 100 - 2 mu, J_l a_l = mu - 40, the right
// wheel stuck and a_l = 2 a_c, so a_c = (100 - 80) / (J_c + 4 J_l) and
// mu = 40 + 2 J_l a_c (49.9 N m, below the right wheel's 1200).
TEST(Planetary, AnOpenDifferentialIsALinkOnItsCoordinate) {
  const std::string model =
      "bodies:\n"
      "  cage: {inertia: 0.05}\n"
      "  left: {inertia: 1.2}\n"
      "  right: {inertia: 1.2}\n"
      "elements:\n"
      "  diff: {type: link, coordinate: {left: 1, right: 1, cage: -2}}\n"
      "  drive: {type: torque, body: cage, torque: 100.0}\n"
      "  ice: {type: friction, body: left, coulomb: 40.0}\n"
      "  asphalt: {type: friction, body: right, coulomb: 1200.0}\n";
  const double a_c = 20.0 / (0.05 + 4 * 1.2);
  const double lambda = 40.0 + 1.2 * 2 * a_c;  // mu
  for (const test::Way& way : kWays) {
    const Result r = test::run_yaml(model, way, 1.0, 0.1);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), a_c, 1e-9 * a_c) << way.name;
    EXPECT_NEAR(velocity(r, last, 1), 2 * a_c, 1e-9 * a_c) << way.name;
    EXPECT_NEAR(velocity(r, last, 2), 0.0, 1e-12) << way.name;
    EXPECT_NEAR(element_torque(r, last, 0), -lambda, 1e-9 * lambda) << way.name;  // -lambda on each wheel: forward
    EXPECT_EQ(r.element_kinds[0], "link");
  }
}

// Bad input, each located at its field.
TEST(Planetary, BadInputsAreLocated) {
  auto error_of = [](const std::string& elements, const std::string& velocities = "") {
    const std::string text = "simulation: {t_end: 1.0, output_step: 0.1}\n"
                             "bodies:\n"
                             "  s: {inertia: 0.1" + velocities + "}\n"
                             "  c: {inertia: 0.5}\n"
                             "  r: {inertia: 0.4}\n"
                             "elements:\n" + elements;
    try {
      io::parse_model(text, "m.yaml", ".", {});
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("  g: {type: planetary, sun: s, carrier: c, ring: r, ratio: 1.0}\n"),
            "m.yaml:7:60: elements.g.ratio: must be a finite number > 1 (ring teeth / sun teeth; got 1)");
  EXPECT_EQ(error_of("  g: {type: planetary, sun: s, carrier: c, ring: s, ratio: 2.0}\n"),
            "m.yaml:7:50: elements.g.ring: names the body 's', which is already its sun: sun, carrier and ring are "
            "three different bodies");
  EXPECT_EQ(error_of("  g: {type: planetary, sun: s, carrier: x, ring: r, ratio: 2.0}\n"),
            "m.yaml:7:41: elements.g.carrier: no body named 'x'");
  EXPECT_NE(error_of("  g: {type: planetary, sun: s, carrier: c, ring: r}\n").find("elements.g"), std::string::npos);
  EXPECT_NE(error_of("  g: {type: planetary, sun: s, carrier: c, ring: r}\n").find("ratio"), std::string::npos);
  EXPECT_EQ(error_of("  g: {type: planetary, sun: s, carrier: c, ring: r, ratio: 2.0}\n", ", velocity: 1.0"),
            "m.yaml:7:3: elements.g: the initial velocities break the link w_s + 2 w_r - 3 w_c = 0 (s: 1 rad/s, r: "
            "0 rad/s, c: 0 rad/s; the sum is 1 rad/s): give initial velocities that satisfy it");
}

// luztar reduce keeps a link (a planetary is written as the link it is) and
// its output reads back to the same run.
TEST(Planetary, AReducedModelReadsBackAndRunsAsTheOriginal) {
  const std::string with_extra =
      "simulation: {t_end: 1.0, output_step: 0.1, integrator: exact}\n"
      "bodies:\n"
      "  sun: {inertia: 0.1}\n"
      "  carrier: {inertia: 0.5}\n"
      "  ring: {inertia: 0.3}\n"
      "  extra: {inertia: 0.1}\n"
      "elements:\n"
      "  gearset: {type: planetary, sun: sun, carrier: carrier, ring: ring, ratio: 2.5}\n"
      "  drive: {type: torque, body: sun, torque: 2.0}\n"
      "  tie: {type: spring, bodies: [extra, ring], stiffness: .inf}\n";
  const ModelSpec spec = io::parse_model_spec(with_extra, "m.yaml", ".");
  const Reduction red = reduce(spec);
  const std::string written = io::to_yaml(red.spec);
  const Model back = io::parse_model(written, "reduced.yaml", ".", {});
  const Result a = simulate(io::parse_model(with_extra, "m.yaml", ".", {}));
  const Result b = simulate(back);
  ASSERT_EQ(a.status, StepStatus::reached_time) << a.message;
  ASSERT_EQ(b.status, StepStatus::reached_time) << b.message;
  const double lambda = 20.0 / 50.125, a_s = (2.0 - lambda) / 0.1;
  EXPECT_NEAR(velocity(a, a.num_samples() - 1, 0), a_s, 1e-9 * a_s);
  EXPECT_NEAR(velocity(b, b.num_samples() - 1, 0), a_s, 1e-9 * a_s);
  EXPECT_NEAR(element_torque(b, b.num_samples() - 1, 0), lambda, 1e-9 * lambda);
}

// A link from a motor to a pinion (16:1) whose rigid mesh merges the pinion
// into its 3 kg rack: luztar reduce writes the link on [motor, rack], a shaft
// and a rack, which the reader refused ('a link acts on bodies of one kind');
// a link has no law, its coefficients carry the units. The reduced model runs
// as the original: 0.1 N m on J = 1e-4 + 2.3e-4 / 16^2 + 3 (7.5 mm / 16)^2.
TEST(Planetary, ALinkToAPinionMergedIntoItsRackReducesAndReadsBack) {
  const std::string text =
      "simulation: {t_end: 0.1, output_step: 0.01}\n"
      "bodies: {motor: {inertia: 1.0e-4}, pinion: {inertia: 2.3e-4}, rack: {kind: translational, mass: 3 kg}}\n"
      "elements:\n"
      "  worm: {type: link, bodies: [motor, pinion], ratio: 16}\n"
      "  mesh: {type: rack_pinion, rack: rack, pinion: pinion, radius: 7.5 mm}\n"
      "  assist: {type: torque, body: motor, torque: 0.1}\n";
  const Model back = io::parse_model(io::to_yaml(reduce(io::parse_model_spec(text, "m.yaml", ".")).spec),
                                     "reduced.yaml", ".", {});
  const Result a = simulate(io::parse_model(text, "m.yaml", ".", {})), b = simulate(back);
  ASSERT_EQ(a.status, StepStatus::reached_time) << a.message;
  ASSERT_EQ(b.status, StepStatus::reached_time) << b.message;
  const double J = 1e-4 + 2.3e-4 / 256.0 + 3.0 * std::pow(7.5e-3 / 16.0, 2), w = 0.1 / J * 0.1;
  EXPECT_NEAR(velocity(a, a.num_samples() - 1, 0), w, 1e-9 * w);
  EXPECT_NEAR(velocity(b, b.num_samples() - 1, 0), w, 1e-9 * w);
}

}  // namespace
}  // namespace luztar

namespace luztar {
namespace {

// models/planetary.yaml, MSL's SimpleGearShift (its opening comment maps the
// parameters): the brake holds the ring until the shift at 2 s, so the load
// (carrier) turns at 1 / (1 + 1.5) = 0.4 of the engine (sun); after it the
// clutch locks sun and ring and the set turns as one (ratio 1), as MSL's
// documentation says. Willis holds throughout, and the events are the
// brake's break-away, then the clutch's stick (its break-away at 0.5 s: an
// open clutch at equal speeds is stuck at zero torque until the torque step).
TEST(Planetary, ModelicaSimpleGearShiftShiftsFromPoint4ToOne) {
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    ModelSpec spec = io::load_model_spec(std::string(LUZTAR_MODELS_DIR) + "/planetary.yaml");
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    for (int k = 0; k < r.num_samples(); ++k) {
      const double we = velocity(r, k, 0), wl = velocity(r, k, 1), wr = velocity(r, k, 2);
      EXPECT_LE(std::abs(we + 1.5 * wr - 2.5 * wl), 1e-12 * std::max(1.0, std::abs(we))) << integrator;
      if (r.time[k] > 0.5 && r.time[k] < 2.0) {
        EXPECT_NEAR(wl / we, 0.4, 1e-12) << integrator << " t = " << r.time[k];
      }
      if (r.time[k] > 2.5) {
        EXPECT_NEAR(wl / we, 1.0, 1e-9) << integrator << " t = " << r.time[k];
      }
    }
    std::vector<std::string> seq;
    for (const EventRecord& e : r.events) seq.push_back(r.element_names[e.element] + " " + to_string(e.kind));
    EXPECT_EQ(seq, (std::vector<std::string>{"clutch break_away", "brake break_away", "clutch stick"})) << integrator;
  }
}

}  // namespace
}  // namespace luztar

namespace luztar {
namespace {

// A link between two bodies, `bodies: [a, b], ratio: 2` (w_a = 2 w_b, locked
// by the union-find's ratio): a torque T = 1 on a, J_a = 0.2, J_b = 0.8;
// lambda acts as -lambda on a and +2 lambda on b, so (T - lambda) / J_a =
// 2 (2 lambda / J_b): lambda = (T / J_a) / (1 / J_a + 4 / J_b) = 5 / 10.
TEST(Planetary, ALinkBetweenTwoBodiesHoldsItsRatio) {
  const std::string model =
      "bodies:\n"
      "  a: {inertia: 0.2}\n"
      "  b: {inertia: 0.8}\n"
      "elements:\n"
      "  mesh: {type: link, bodies: [a, b], ratio: 2}\n"
      "  drive: {type: torque, body: a, torque: 1.0}\n";
  const double lambda = 0.5, a_a = (1.0 - lambda) / 0.2;
  for (const test::Way& way : kWays) {
    const Result r = test::run_yaml(model, way, 1.0, 0.1);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), a_a, 1e-9 * a_a) << way.name;
    EXPECT_NEAR(velocity(r, last, 1), a_a / 2, 1e-9 * a_a) << way.name;
    EXPECT_NEAR(element_torque(r, last, 0), lambda, 1e-9) << way.name;
  }
}

// Rigid teeth with lash on the mesh (stiffness .inf, freeplay a = 0.01 rad,
// restitution 1): x' = 1 rad/s flips at each flank, so the teeth strike the
// upper flank at a / v = 0.01 s and every 4 a / v = 0.04 s after, and the
// kinetic energy stays 0.05 J.
TEST(Planetary, RigidSetWithLashRattlesElastically) {
  const std::string model = lash_yaml("freeplay: 0.01, restitution: 1");
  for (const test::Way& way : kWays) {
    if (std::string(way.name) == "time_stepping") continue;  // (no event times)
    const Result r = test::run_yaml(model, way, 0.2, 0.01);
    ASSERT_EQ(r.status, StepStatus::reached_time) << way.name << ": " << r.message;
    std::vector<double> upper;
    for (const EventRecord& e : r.events)
      if (e.kind == EventKind::impact && e.before == 1) upper.push_back(e.t);
    ASSERT_EQ(upper.size(), 5u) << way.name;
    for (std::size_t i = 0; i < upper.size(); ++i)
      EXPECT_NEAR(upper[i], 0.01 + 0.04 * static_cast<double>(i), 1e-9) << way.name << " impact " << i;
    EXPECT_NEAR(r.dissipated.back(), 0.0, 1e-12) << way.name;
  }
}

}  // namespace
}  // namespace luztar
