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

#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

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

}  // namespace
}  // namespace luztar
