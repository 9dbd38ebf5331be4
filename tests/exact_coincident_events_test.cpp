// Events of independent elements a few roundoff units of time apart, with the
// exact integrator. At the restart after the first one, the second element's
// function is within roundoff of 0 and leaves it in the direction its root
// watches: its crossing is still due. Before the fix the integrator took it
// for crossed (the sign a function at 0 leaves with was its sign "before"),
// never reported it, and the element stayed in its old mode: a body flew
// through its freeplay stop (energy self-check failed), or a contact damper
// missed its clamp corner and bounced elastically with its energy balance
// closed and exit 0 (a new-user hunt).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

Result run(const std::string& text, const std::string& integrator) {
  const Model m = assemble(io::parse_model_spec(text, "coincident.yaml", "."));
  SimulationSettings s = m.simulation;
  s.integrator = integrator;
  return simulate(m, s);
}

int body(const Result& r, const std::string& name) {
  for (std::size_t b = 0; b < r.body_names.size(); ++b)
    if (r.body_names[b] == name) return static_cast<int>(b);
  ADD_FAILURE() << "no body " << name;
  return 0;
}

double last_angle(const Result& r, const std::string& name) {
  const std::size_t nb = r.body_names.size();
  return r.angle[(r.time.size() - 1) * nb + static_cast<std::size_t>(body(r, name))];
}

double last_velocity(const Result& r, const std::string& name) {
  const std::size_t nb = r.body_names.size();
  return r.velocity[(r.time.size() - 1) * nb + static_cast<std::size_t>(body(r, name))];
}

// Two free unit inertias, each with a freeplay spring (k = 100, a = 0.1) to
// the base, a at 1 rad/s and b at 1 + dv: b reaches its flank 0.1 dv s
// before a does. Each body bounces between its flanks: free 0.1 / v s to the
// first, pi / 10 s in contact, leaving at -v, 0.2 / v s across the gap, pi / 10
// in contact again, so at t = 1 it is at v (1 - pi / 5) - 0.4, moving at +v.
TEST(ExactCoincidentEvents, AFlankReachedRoundoffAfterAnotherIsNotLost) {
  for (double dv : {1e-16, 3e-16, 1e-15, 3e-15, 1e-14, 3e-14, 1e-13, 1e-12}) {
    std::ostringstream text;
    text.precision(17);
    text << "simulation: {t_end: 1, output_step: 0.25}\nbodies:\n  a: {inertia: 1, velocity: 1}\n"
         << "  b: {inertia: 1, velocity: " << 1.0 + dv << "}\nelements:\n"
         << "  sa: {type: spring, body: a, stiffness: 100, freeplay: 0.1}\n"
         << "  sb: {type: spring, body: b, stiffness: 100, freeplay: 0.1}\n";
    const Result r = run(text.str(), "exact");
    std::ostringstream trace;
    trace << "dv = " << dv;
    SCOPED_TRACE(trace.str());
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    EXPECT_EQ(r.integrator, "exact");
    const double vb = 1.0 + dv;
    EXPECT_NEAR(last_angle(r, "a"), 1.0 - std::numbers::pi / 5.0 - 0.4, 1e-12);
    EXPECT_NEAR(last_angle(r, "b"), vb * (1.0 - std::numbers::pi / 5.0) - 0.4, 1e-12);
    EXPECT_NEAR(last_velocity(r, "a"), 1.0, 1e-12);
    EXPECT_NEAR(last_velocity(r, "b"), vb, 1e-12);
    EXPECT_EQ(r.events.size(), 8u);  // each spring: contact, separation, contact, separation
    EXPECT_FALSE(r.stats.energy_residual_exceeded);
  }
}

// A contact damper (damping_law: contact) enters its flank clamped and
// reaches the corner c x' = T_c 9.93 ms later; another body touches its own
// flank about 1e-15 s before that corner. Body b must move as it does alone
// (the bodies do not interact): before the fix it stayed clamped for the
// whole contact and left at -1 rad/s instead of about -0.72 (b at t = 1:
// 0.0409 rad against -0.0708; dissipated 0.128 J against 0.223).
TEST(ExactCoincidentEvents, AnotherBodysContactJustBeforeAClampCornerDoesNotHideIt) {
  const std::string b_alone =
      "simulation: {t_end: 1, output_step: 0.25}\nbodies:\n"
      "  b: {inertia: 1, velocity: 1}\nelements:\n"
      "  sb: {type: spring, body: b, stiffness: 100, freeplay: 0.1, damping: 1, damping_law: contact}\n";
  const std::string both =
      "simulation: {t_end: 1, output_step: 0.25}\nbodies:\n"
      "  a: {inertia: 1, velocity: 0.4548178404859692}\n  b: {inertia: 1, velocity: 1}\nelements:\n"
      "  sa: {type: spring, body: a, stiffness: 100, freeplay: 0.05}\n"
      "  sb: {type: spring, body: b, stiffness: 100, freeplay: 0.1, damping: 1, damping_law: contact}\n";
  const Result alone = run(b_alone, "exact"), r = run(both, "exact");
  ASSERT_EQ(alone.status, StepStatus::reached_time) << alone.message;
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const std::size_t nb = r.body_names.size();
  ASSERT_EQ(r.time.size(), alone.time.size());
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    SCOPED_TRACE("t = " + std::to_string(r.time[k]));
    EXPECT_NEAR(r.angle[k * nb + static_cast<std::size_t>(body(r, "b"))], alone.angle[k], 1e-12);
    EXPECT_NEAR(r.velocity[k * nb + static_cast<std::size_t>(body(r, "b"))], alone.velocity[k], 1e-12);
  }
  // and where the independent CVODE run at a tight tolerance has it
  const Result cvode = [&] {
    const Model m = assemble(io::parse_model_spec(both, "coincident.yaml", "."));
    SimulationSettings s = m.simulation;
    s.integrator = "cvode_bdf";
    s.rtol = 1e-12;
    s.atol = 1e-14;
    return simulate(m, s);
  }();
  EXPECT_NEAR(last_angle(r, "b"), last_angle(cvode, "b"), 1e-6);
  EXPECT_NEAR(last_velocity(r, "b"), last_velocity(cvode, "b"), 1e-6);
}

// Two identical, uncoupled copies of one subsystem in one model (elements X
// and X_B, bodies shuffled: tests/data/twins/), run with the exact
// integrator: each copy's events are the other's, kind for kind, to 1e-9 s.
// Their events fall a few roundoff units of time apart (the modal split mixes
// the copies' repeated eigenvalues), and before the fixes one was lost:
//  - twin racks on stiff teeth: a contact 3.6e-15 s after its twin's in x,
//    a few roundoff units short at the stop and taken as made at the restart
//    (the rack pressed 114 times through its freeplay, energy balanced);
//  - twin Stribeck bearings: a stick lost, the spindle at -3e13 rad/s;
//  - twin steering robots (prescribed wheels, rigid merges): a column's
//    separation lost, 4.5e-12 rad past 0 in x while 6.5e-14 short in z;
//  - twin gear trains (the first second): a contact logged 2e-15 m past
//    its flank in z, then a separation, beside the twin's (a review);
//  - twin lash pairs (two bodies and a freeplay spring): a contact short of
//    0 at its twin's stop and past it at the restart (x re-entered from z):
//    lost, the copy 212 freeplays past its flank (a new-user hunt).
// A twin model, its file with fields replaced (`overrides`), run by the exact
// integrator: each copy's events are the other's, to `time_tol` [s].
void expect_twins_alike(const std::string& name, const std::vector<io::FieldOverride>& overrides,
                        double time_tol = 1e-9) {
  const std::string path = std::string(LUZTAR_TEST_DATA_DIR) + "/twins/" + name + ".yaml";
  const Model m = assemble(io::load_model_spec(path, overrides));
  SimulationSettings s = m.simulation;
  s.integrator = "exact";
  const Result r = simulate(m, s);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_EQ(r.integrator, "exact");
  EXPECT_FALSE(r.stats.energy_residual_exceeded) << r.stats.energy_residual;
  std::map<std::string, std::vector<const EventRecord*>> by_element;
  for (const EventRecord& e : r.events) by_element[r.element_names[e.element]].push_back(&e);
  int pairs = 0;
  for (const auto& [element, events] : by_element) {
    if (element.size() > 2 && element.compare(element.size() - 2, 2, "_B") == 0) continue;
    const auto twin = by_element.find(element + "_B");
    ASSERT_NE(twin, by_element.end()) << element << " has events, its twin none";
    const std::size_t common = std::min(events.size(), twin->second.size());
    for (std::size_t k = 0; k < common; ++k) {
      EXPECT_EQ(events[k]->kind, twin->second[k]->kind) << element << " event " << k << " at " << events[k]->t;
      ASSERT_NEAR(events[k]->t, twin->second[k]->t, time_tol) << element << " event " << k;
    }
    ASSERT_EQ(events.size(), twin->second.size()) << element;
    pairs += static_cast<int>(events.size());
  }
  EXPECT_GT(pairs, 0);
  EXPECT_EQ(2 * pairs, static_cast<int>(r.events.size()));
}

class ExactTwins : public ::testing::TestWithParam<const char*> {};

TEST_P(ExactTwins, EachCopyRunsAsTheOther) { expect_twins_alike(GetParam(), {}); }

INSTANTIATE_TEST_SUITE_P(Models, ExactTwins,
                         ::testing::Values("twin_racks", "twin_stribeck_bearings", "twin_steering_robots",
                                           "twin_gear_trains", "twin_lash_pairs"));

// The twin gear trains under a stronger drive (the file's 1 N m raised; one
// signal drives both copies). At a root stop one copy's function, short of 0
// there in x (not reported), came back from the restart's re-entry into x,
// which takes z's absolute angles in only to eps of them (the inert offset
// rounded: 1.1e-14 rad, 1.5e-10 N m here), past 0 beyond its roundoff band,
// and was taken as crossed. Before the fix, at 5 N m (and 4.5) shaft_in lost
// its separation at 0.96731 s beside shaft_in_B's (read 1.2e-14 rad past its
// flank, band 6.5e-16), and its contact after: 104 events against 106; at
// 3 N m bearing_delta's break-away (its reserve 2.4e-11 N m short of 0 at its
// twin's, read -1.2e-10, band 1.1e-11) was seen only at the output instant
// 0.837 s, 2.8e-5 s after its twin's (at 8 N m bearing_gamma_B's, at
// 0.878 s). The energy balance closed in every run (residual 4e-14 relative).
// At 5.8, 6.1, 7.4 and 7.95 (and 5.95) bearing_gamma_B's reserve root was
// found 3.4e-13 s after its twin's break-away (5.8): the pipeline read the
// reserve at +2.1e-11 N m, dropping (at 0 within 1e-9 of its scale 0.04),
// and passed it to the selection as exhausted, whose tie at the bound was
// 1e-9 of the limit (0.02) alone: held stuck, its crossing then taken as
// made at the restart (-4.8e-11 in x), the break-away was seen only at the
// next output instant, 0.867 s, 9e-5 s after its twin's (BreakAway::scale).
// At 12.45 mesh_B, read 1.9e-15 rad short of its flank at the restart after
// its contact (band 1.6e-15), started that sub-step on the far side; at
// mesh's separation 3e-13 s before its own it was at 0 within its band,
// leaving the way watched, but had started the sub-step on that side, so it
// was taken as crossed, unreported: it pressed 3.5e-8 rad through its
// freeplay for 0.017 s (one amplitude of 281 from 2 to 16; the side it
// comes from is now the sign it had last before the stop).
class ExactTwinGearTrains : public ::testing::TestWithParam<const char*> {};

TEST_P(ExactTwinGearTrains, EachCopyRunsAsTheOtherUnderAStrongerDrive) {
  expect_twins_alike("twin_gear_trains", {{"signals.drive.sine.amplitude", GetParam(), "test"}});
}

INSTANTIATE_TEST_SUITE_P(Amplitudes, ExactTwinGearTrains,
                         ::testing::Values("3.0", "4.0", "4.5", "5.0", "5.8", "6.1", "7.4", "7.95", "8.0", "12.45"));

// At 4.6 N m and an output step of 2 ms, bearing_delta's reserve, whose
// crossing the integrator had found 3.2e-12 s after its twin's break-away,
// was read by the pipeline at +2.4e-11 N m: its shafts 27 rad round put
// 6e-11 N m of roundoff into the 5000 N m/rad mesh's torque, beyond the
// selection's tie 2e-11 (1e-9 of its scale 0.02). Held stuck, and its
// crossing taken as made at the restart, it broke away only at the output
// instant 0.858 s, 2.4e-4 s after its twin. The tie now covers the
// roundoff of the reading from the angles (BreakAway::band).
TEST(ExactTwinGearTrainsLargeAngles, AFoundBreakAwayIsNotHeldByTheRoundoffOfItsAngles) {
  expect_twins_alike("twin_gear_trains",
                     {{"signals.drive.sine.amplitude", "4.6", "test"}, {"simulation.output_step", "0.002", "test"}});
}

// Every body shifted 1e6 rad (an hour of a shaft at 3000 rpm): the
// coordinates are known to eps |q| = 2e-10 rad, the event times to ~1e-7 s.
// At 5 N m bearing_gamma_B's reserve, found dropping through 0 by the exact
// integrator, read -1.76e-6 N m in the pipeline and 4e-8 higher 1e-9 s later
// (the roundoff of its reading from the angles: 2.9e-4 N m): taken for a
// touch, it broke away only at the output instant 0.862 s, 7e-4 s after its
// twin. The probe's noise now counts the roundoff of the reading from the
// angles, within which the second-order probes decide (EventPipeline::
// reserve_roundoff).
TEST(ExactTwinGearTrainsLargeAngles, AReserveRootIsABreakAwayWhereTheProbeCannotTell) {
  std::vector<io::FieldOverride> fields = {{"signals.drive.sine.amplitude", "5.0", "test"}};
  for (const char* body : {"psi", "delta", "psi_B", "delta_B"}) fields.push_back({std::string("bodies.") + body + ".angle", "1e6", "test"});
  for (const char* body : {"gamma", "phi", "gamma_B", "phi_B"})  // (the mesh's ratio 2: every coordinate at 0)
    fields.push_back({std::string("bodies.") + body + ".angle", "5e5", "test"});
  expect_twins_alike("twin_gear_trains", fields, 1e-6);
}

// Both spindles arrive at rest at one instant: the second's arrival was
// located 8.9e-16 s after the first's (its bracket's right end), the settle
// after the first moved 4.5e-16 s and its reach fell short of the second by
// the rounding of t, while z read that spindle at -5e-15 rad/s already.
// Taken as crossed at the restart, its stick was lost: it turned back
// 4.4e-3 rad with its bearing's friction driving it (power down to -0.35 W)
// for 11 ms. A crossing within a resolution of the reach whose value in z
// has its new sign is now reported at the stop (a hunt, 1 of 6200 runs).
TEST(ExactTwinStribeckBearings, AnArrivalTheSettlePassedInZIsReportedAtTheStop) {
  expect_twins_alike("twin_stribeck_bearings",
                     {{"elements.drive.torque", "3.0823", "test"},
                      {"elements.drive_B.torque", "3.0823", "test"},
                      {"bodies.motor.velocity", "0.58776", "test"},
                      {"bodies.motor_B.velocity", "0.58776", "test"},
                      {"elements.coupling.stiffness", "86.618", "test"},
                      {"elements.coupling_B.stiffness", "86.618", "test"}});
}

// The exosystem's states keep their scale in the modal split
// (solvers/exact/modal_split.hpp). Balanced like the model's coordinates,
// the weave's states were scaled by 2^-10 (their columns hold k / I times its
// amplitude), x carried them 1024 times their size, and the split, exact to
// eps of x, put eps times that into the model's coordinates: one copy's
// column velocity was 5.4e-13 rad/s off from the first sample on, a constant
// (the fast column mode's quasi-static answer to the rounding of U Y_s),
// while exp(A h) z0 in extended precision and cvode_adams agreed with the
// other copy to 1e-15. Now the copies agree to 1e-14 until the first event
// (0.079 s), and both with cvode_adams at rtol 1e-13 at the first sample
// (later, Adams' own error reaches 1e-12).
TEST(ExactTwinSteeringRobots, TheDrivesStatesKeepTheirScaleInTheSplit) {
  ModelSpec spec = io::load_model_spec(std::string(LUZTAR_TEST_DATA_DIR) + "/twins/twin_steering_robots.yaml");
  spec.simulation.t_end = 0.07;
  const Model m = assemble(spec);
  SimulationSettings s = m.simulation;
  s.integrator = "exact";
  const Result exact = simulate(m, s);
  s.integrator = "cvode_adams";
  s.rtol = 1e-13;
  s.atol = 1e-16;
  const Result adams = simulate(m, s);
  ASSERT_EQ(exact.status, StepStatus::reached_time) << exact.message;
  ASSERT_EQ(adams.status, StepStatus::reached_time) << adams.message;
  ASSERT_GT(exact.time.size(), 60u);
  const std::size_t nb = exact.body_names.size();
  const auto a = static_cast<std::size_t>(body(exact, "column")), b = static_cast<std::size_t>(body(exact, "column_B"));
  for (std::size_t k = 0; k < exact.time.size(); ++k)
    ASSERT_NEAR(exact.velocity[k * nb + a], exact.velocity[k * nb + b], 1e-14) << "at " << exact.time[k];
  for (std::size_t j : {a, b}) EXPECT_NEAR(exact.velocity[nb + j], adams.velocity[nb + j], 1e-14) << exact.body_names[j];
}

// ... and what it did to the events: with a softer kingpin and tyres, copy B
// (carrying the offset) broke its rack free 1.8e-9 s before copy A, then
// logged a stick and a break-away at copy A's instant, 4.0738 s, and again at
// 9.0738 s: 108 events against 104 (a hunt; zero-length sticks, exit 0).
TEST(ExactTwinSteeringRobots, NoZeroLengthStickBesideTheTwinsBreakAway) {
  expect_twins_alike("twin_steering_robots", {{"elements.kingpin_friction.coulomb", "4.44872", "test"},
                                              {"elements.kingpin_friction_B.coulomb", "4.44872", "test"},
                                              {"elements.tyres.stiffness", "422.64", "test"},
                                              {"elements.tyres_B.stiffness", "422.64", "test"},
                                              {"simulation.output_step", "0.002", "test"}});
}

// Moving every angle (or position) by a constant changes no physics, so no
// event: a clutch beside a shaft spring (1e4 N m/rad), its shafts at 1e5
// rad, and a car and trailer (hitch 1e6 N/m, 1 mm freeplay) 10 km out, run
// as at 0. The fixes above first made the roundoff band of a watched value
// grow with the angles turned (64 eps k |q|: a break-away an output sample
// late at 3e5 rad) and re-reported a root the pipeline had just chosen to
// watch again, restart after restart: event storms (a review).
TEST(ExactLargeCoordinates, ShiftingEveryCoordinateChangesNoEvent) {
  struct Case {
    std::string yaml, shift;
  };
  const std::vector<Case> cases = {
      {"simulation: {t_end: 3.0, output_step: 0.01}\nbodies: {a: {inertia: 1, angle: Q}, b: {inertia: 1, angle: Q}}\n"
       "elements:\n  drive: {type: torque, body: a, torque: {sine: {amplitude: 2.02, frequency: 1}}}\n"
       "  clutch: {type: friction, bodies: [a, b], coulomb: 1}\n  spring: {type: spring, bodies: [a, b], stiffness: 1.0e4}\n",
       "100000"},
      {"simulation: {t_end: 2.0, output_step: 0.001}\nbodies:\n"
       "  car: {kind: translational, mass: 1500 kg, position: Q}\n  trailer: {kind: translational, mass: 500 kg, position: Q}\n"
       "elements:\n  drive: {type: force, body: car, force: {sine: {amplitude: 800, frequency: 2}}}\n"
       "  hitch: {type: spring, bodies: [car, trailer], stiffness: 1.0e6, damping: 2000, freeplay: 1.0e-3}\n"
       "  brake: {type: friction, body: trailer, coulomb: 200}\n",
       "10000"}};
  // ... and the trailer 20 km out: at its break-away its velocity row, at 0
  // with an acceleration of roundoff, was taken as leaving towards a stick
  // (a stick and a break-away more at that instant; a review)
  const std::vector<Case> more = {{cases[1].yaml, "20000"}, {cases[1].yaml, "30000"}};
  auto with = [](std::string yaml, const std::string& q) {
    for (std::size_t at; (at = yaml.find(": Q")) != std::string::npos;) yaml.replace(at + 2, 1, q);
    return yaml;
  };
  std::vector<Case> all = cases;
  all.insert(all.end(), more.begin(), more.end());
  for (const Case& c : all) {
    const Result at0 = run(with(c.yaml, "0"), "exact"), far = run(with(c.yaml, c.shift), "exact");
    ASSERT_EQ(at0.status, StepStatus::reached_time) << at0.message;
    ASSERT_EQ(far.status, StepStatus::reached_time) << far.message;
    ASSERT_EQ(far.events.size(), at0.events.size()) << c.shift;
    for (std::size_t k = 0; k < at0.events.size(); ++k) {
      EXPECT_EQ(far.events[k].kind, at0.events[k].kind) << c.shift << " event " << k;
      EXPECT_NEAR(far.events[k].t, at0.events[k].t, 1e-6) << c.shift << " event " << k;
    }
  }
}

// A clutch beside a shaft spring (1e4 N m/rad) on shafts spinning at 100
// rad/s (955 rpm): 100 s of stick and break-away to the end, no event storm
// (its reserve 2e-10 N m below 0 at a break-away, within the band 64 eps k
// |q| of angles of 1700 rad, was re-reported at every restart).
TEST(ExactLargeCoordinates, AClutchOnSpinningShaftsRunsToTheEnd) {
  const Result r = run(
      "simulation: {t_end: 40.0, output_step: 0.01}\nbodies: {a: {inertia: 1, velocity: 100}, b: {inertia: 1, velocity: 100}}\n"
      "elements:\n  drive: {type: torque, body: a, torque: {sine: {amplitude: 2.02, frequency: 1}}}\n"
      "  clutch: {type: friction, bodies: [a, b], coulomb: 1}\n  spring: {type: spring, bodies: [a, b], stiffness: 1.0e4}\n",
      "exact");
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  // two break-aways and two sticks a period (the drive exceeds the clutch's
  // share 2.02 / 2 > 1 twice a period)
  EXPECT_EQ(r.events.size(), 160u);
}

}  // namespace
}  // namespace luztar
