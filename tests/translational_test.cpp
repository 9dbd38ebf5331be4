// Translational bodies (issue 19 item 8, core/model_spec.hpp BodySpec::kind):
// a block of mass m [kg] on springs and friction given in N/m, m, N s/m and N,
// against closed forms, with both integrators of the event-driven solver and
// with Moreau-Jean time stepping. The solvers see one generalised coordinate
// (mass in place of inertia): these tests check that the units reach them
// converted and that the results carry m, m/s and N.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/energy.hpp"
#include "tests/yaml_runs.hpp"

namespace luztar {
namespace {

using test::run_yaml;
using test::Way;

const Way kRuns[] = {{"exact", "integrator: exact"},
                     {"cvode_bdf", "integrator: cvode_bdf"},
                     {"time_stepping", "solver: time_stepping, step: 1.0e-5"}};

// A block of m = 2 kg on a spring to the wall of k = 8 N/mm (8000 N/m) with a
// gap of +-0.5 mm (freeplay a), undamped, released at the gap's centre moving
// at v0 = 0.1 m/s. Closed form: it crosses to the flank in a / v0 = 5 ms, is
// in contact for half a period pi / w (w = sqrt(k / m) = 63.2456 rad/s:
// 49.673 ms), reaching a + v0 / w = 2.0811 mm, leaves at -v0, crosses the gap
// 2a in 10 ms, and mirrors on the other flank: period 4 a / v0 + 2 pi / w =
// 119.346 ms. x(t) below follows that orbit.
double rattle_position(double t) {
  const double a = 0.5e-3, v0 = 0.1, w = std::sqrt(8000.0 / 2.0);
  const double fly = 2.0 * a / v0, touch = std::numbers::pi / w, period = 2.0 * (fly + touch);
  double s = std::fmod(t + a / v0, period);  // from the left flank, moving right
  if (s < fly) return -a + v0 * s;
  s -= fly;
  if (s < touch) return a + v0 / w * std::sin(w * s);
  s -= touch;
  if (s < fly) return a - v0 * s;
  s -= fly;
  return -a - v0 / w * std::sin(w * s);
}

const char* const kRattle =
    "bodies:\n"
    "  block: {kind: translational, mass: 2000 g, position: 0 mm, velocity: 100 mm/s}\n"
    "elements:\n"
    "  wall: {type: spring, body: block, stiffness: 8 N/mm, freeplay: 0.5 mm}\n";

// Positions to 1e-9 m (exact: closed-form modes; events located to roundoff),
// 1e-7 m (cvode_bdf at rtol 1e-8 over 8 contacts, amplitude 2e-3 m) and 2e-6 m
// (time stepping, h = 1e-5 s: a contact begins within a step, a position error
// of at most v0 h = 1e-6 m per crossing, which the elastic flank returns).
TEST(Translational, MassOnASpringWithFreeplayFollowsItsClosedForm) {
  for (const Way& how : kRuns) {
    const Result r = run_yaml(kRattle, how, 0.5, 1e-3);
    const double tol = std::string(how.name) == "exact" ? 1e-9 : std::string(how.name) == "cvode_bdf" ? 1e-7 : 2e-6;
    double worst = 0.0;
    for (int k = 0; k < r.num_samples(); ++k) worst = std::max(worst, std::abs(r.angle[k] - rattle_position(r.time[k])));
    EXPECT_LT(worst, tol) << how.name;
    // the peak: a + v0 / w
    const double peak = *std::max_element(r.angle.begin(), r.angle.end());
    EXPECT_NEAR(peak, 0.5e-3 + 0.1 / std::sqrt(4000.0), 1e-7) << how.name;
    ASSERT_EQ(r.body_translational.size(), 1u);
    EXPECT_EQ(r.body_translational[0], 1);
    EXPECT_STREQ(r.body_unit(0, unit::angle), "m");
    EXPECT_STREQ(r.body_unit(0, unit::velocity), "m/s");
    EXPECT_STREQ(r.element_unit(0, unit::torque), "N");
    // energy: undamped, so kinetic + elastic stays 0.5 m v0^2 = 0.01 J
    const EnergyBalance e = energy_balance(r, r.num_samples() - 1);
    EXPECT_LT(e.relative, how.name == std::string("exact") ? 1e-12 : 1e-5) << how.name;
  }
}

// A block of m = 3 kg sliding at v0 = 2 m/s on a Coulomb friction of F = 6 N
// to the base, pushed by nothing: it decelerates at F / m = 2 m/s^2, stops at
// t = v0 m / F = 1 s after v0^2 m / (2 F) = 1 m, and stays (stuck: the static
// force needed is 0 <= 6 N). It dissipates its kinetic energy 0.5 m v0^2 = 6 J.
TEST(Translational, BlockOnCoulombFrictionStopsAtItsClosedFormTimeAndDistance) {
  const char* const block =
      "bodies:\n"
      "  block: {kind: translational, mass: 3 kg, velocity: 7.2 km/h}\n"
      "elements:\n"
      "  slide: {type: friction, body: block, coulomb: 6 N}\n";
  for (const Way& how : kRuns) {
    const Result r = run_yaml(block, how, 1.5, 1e-2);
    const bool stepping = std::string(how.name) == "time_stepping";
    if (!stepping) {  // the stop is an event at 1 s, located to the integrator's accuracy
      ASSERT_EQ(r.events.size(), 1u) << how.name;
      EXPECT_EQ(r.events[0].kind, EventKind::stick);
      EXPECT_NEAR(r.events[0].t, 1.0, 1e-9) << how.name;
    }
    // position 1 m from the stop on (time stepping: the step that stops holds
    // it within v0 h... the last step's distance, at most 2 m/s x 1e-5 s)
    const double tol = stepping ? 2e-5 : 1e-9;
    for (int k = 0; k < r.num_samples(); ++k) {
      const double t = r.time[k];
      const double x = t < 1.0 ? 2.0 * t - t * t : 1.0;
      EXPECT_NEAR(r.angle[k], x, tol) << how.name << " t = " << t;
    }
    // exact: a closed-form integral; cvode_bdf: a quadrature under its error
    // control, rtol 1e-8 of 6 J; time stepping: booked per step, the stop's step included
    const double energy_tol = stepping ? 1e-4 : std::string(how.name) == "exact" ? 1e-9 : 6e-8;
    EXPECT_NEAR(r.dissipated.back(), 6.0, energy_tol) << how.name;
    EXPECT_NEAR(r.element_torque.back(), 0.0, 1e-9) << how.name;  // stuck, nothing to hold
  }
}

// A block of 3 kg on a spring to the base (k = 1200 N/m, damping 6 N s/m),
// pushed by a force step 0 -> 12 N at 0.1 s, its bearing a Coulomb friction
// of 2 N plus 1.5 N s/m: input = kinetic + elastic + dissipated closes (the
// summary's residual) with the force's work in J and the damping and slip in
// the dissipated account; at rest at the end (10 s, damping time 2m/c = 1 s
// for the spring alone) it sits within the friction's dead band around 12/1200
// = 10 mm, |x - 0.01| <= 2/1200.
TEST(Translational, EnergyBalanceClosesWithAForceLoad) {
  const char* const pushed =
      "bodies:\n"
      "  block: {kind: translational, mass: 3}\n"
      "elements:\n"
      "  return: {type: spring, body: block, stiffness: 1.2 kN/m, damping: 6 N s/m}\n"
      "  bearing: {type: friction, body: block, coulomb: 2 N, viscous: 1.5 N s/m}\n"
      "  push: {type: force, body: block, force: {step: {time: 0.1, final: 12 N}}}\n";
  for (const Way& how : kRuns) {
    Result r = run_yaml(pushed, how, 10.0, 1e-2);
    const EnergyBalance e = energy_balance(r, r.num_samples() - 1);
    EXPECT_LT(e.relative, std::string(how.name) == "exact" ? 1e-12 : 1e-6) << how.name;
    EXPECT_GT(e.input, 0.05) << how.name;  // the push did work: 12 N over ~10 mm
    EXPECT_LE(std::abs(r.angle.back() - 0.01), 2.0 / 1200.0 + 1e-9) << how.name;
    EXPECT_EQ(r.element_kinds[2], "force");
    EXPECT_STREQ(r.element_unit(2, unit::torque), "N");
  }
}

}  // namespace
}  // namespace luztar
