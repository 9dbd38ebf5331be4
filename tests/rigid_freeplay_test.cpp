// Rigid freeplay (stiffness .inf with a gap): impacts by Newton's law and the
// LCP jump rule of seed 002 (eq. 12-14), run by the Moreau-Jean time stepper.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <vector>

#include "core/errors.hpp"
#include "io/yaml_model.hpp"
#include "model_builder.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

using test::body;
using test::torque;

SpringSpec rigid_freeplay(std::string name, std::string a, std::string b, double gap, double e) {
  SpringSpec s = test::spring(std::move(name), std::move(a), std::move(b), INFINITY, gap);
  s.restitution = e;
  return s;
}

SimulationSettings stepping(double t_end, double h) {
  SimulationSettings s = test::settings(t_end, h);
  s.solver = "time_stepping";
  s.step = h;
  return s;
}

// A body in a rigid backlash gap to the base, |q| <= a, pushed by a constant
// torque tau from q = -a at rest. Closed form (alpha = tau / I):
//   first impact at t1 = sqrt(4 a / alpha) with v1 = alpha t1;
//   impact n (n = 1, 2, ...) arrives with v_n = e^(n-1) v1 and leaves with -e v_n;
//   between impacts a flight of 2 e v_n / alpha (the rebound e^2 v_n^2 / (2 alpha)
//   = e^2 2a e^(2n-2) stays inside the gap 2a);
//   the impacts accumulate at t_rest = t1 + 2 e v1 / (alpha (1 - e));
//   each impact dissipates (1 - e^2) I v_n^2 / 2;
//   afterwards the body rests on the stop (persistent contact) with contact torque tau.
TEST(RigidFreeplay, BouncesToRestInTheGap) {
  const double I = 0.01, tau = 0.1, a = 0.01, e = 0.8, h = 1e-5;
  ModelSpec spec;
  spec.bodies = {body("b", I, -a)};
  spec.elements = {rigid_freeplay("stop", "b", "", a, e), torque("push", "b", Signal::make_constant(tau))};
  spec.simulation = stepping(1.0, h);
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time);

  const double alpha = tau / I, t1 = std::sqrt(4 * a / alpha), v1 = alpha * t1;
  const double t_rest = t1 + 2 * e * v1 / (alpha * (1 - e));
  // Impacts: samples (every step) where the stop carries an impulse after a flight.
  std::vector<int> impacts;
  for (int k = 1; k < r.num_samples(); ++k)
    if (test::element_state(r, k, 0) == 1 && test::element_state(r, k - 1, 0) == 0) impacts.push_back(k);
  ASSERT_GE(impacts.size(), 8u);
  ASSERT_LT(impacts.size(), 200u);  // a finite number: Zeno ends in a persistent contact
  double t_n = t1, v_n = v1;
  for (int n = 0; n < 8; ++n) {
    const int k = impacts[n];
    const double before = test::velocity(r, k - 1, 0), after = test::velocity(r, k, 0);
    // The impact step starts within a few steps of the closed-form instant:
    // the index set looks half a step ahead, and each flight's length carries
    // an O(h) error (measured: at most 2.8 h over these 8 impacts).
    EXPECT_NEAR(r.time[k - 1], t_n, 4 * h) << "impact " << n + 1;
    EXPECT_NEAR(before, v_n, alpha * 1.5 * h) << "impact " << n + 1;
    EXPECT_NEAR(after, -e * v_n, alpha * 1.5 * h) << "impact " << n + 1;
    EXPECT_NEAR(after / before, -e, 1e-9) << "Newton's law, impact " << n + 1;
    // Energy lost in the impact step: (1 - e^2) I v^2 / 2 of the arriving
    // velocity, up to the push's work within that one step (the impulse also
    // cancels the push's impulse h tau), at most h tau |v|.
    const double lost = r.dissipated[k] - r.dissipated[k - 1];
    EXPECT_NEAR(lost, (1 - e * e) * 0.5 * I * before * before, h * tau * std::abs(before)) << "impact " << n + 1;
    EXPECT_NEAR(lost / ((1 - e * e) * 0.5 * I * v_n * v_n), 1.0, 4 * alpha * h / v_n) << "impact " << n + 1;
    t_n += 2 * e * v_n / alpha;
    v_n *= e;
  }
  // At rest: the last impact within a few steps of t_rest, then a persistent contact.
  int settled = r.num_samples() - 1;
  while (settled > 0 && test::element_state(r, settled - 1, 0) == 1) --settled;
  EXPECT_NEAR(r.time[settled], t_rest, 20 * h) << "t_rest = " << t_rest;
  const int last = r.num_samples() - 1;
  EXPECT_NEAR(test::velocity(r, last, 0), 0.0, 1e-15);
  EXPECT_NEAR(test::angle(r, last, 0), a, alpha * h * h * 10);
  EXPECT_NEAR(test::element_torque(r, last, 0), tau, 1e-9);  // the stop holds the push
  std::printf("rest at %.6f s (closed form %.6f s), %zu impacts, %zu events\n", r.time[settled], t_rest,
              impacts.size(), r.events.size());
}

// Several contacts at once (seed 002, eq. 12-14). Three equal bodies A, B, C
// joined by rigid freeplay A-B and B-C. B and C touch (x_BC = +a, at rest);
// A arrives at v and closes A-B. The impulse LCP with Newton's law,
//   s_AB+ >= e v  complementary to P_AB >= 0,   s_BC+ >= 0  complementary to P_BC >= 0
// (s: separating velocity), has both contacts active:
//   v_B = v_C = (1 + e) v / 3,  v_A = (1 - 2e) v / 3,
// P_AB = 2 (1 + e) I v / 3 and P_BC = (1 + e) I v / 3 (both > 0).
// Treating the contacts one after the other would give a different answer:
// A-B alone leaves v_A = (1 - e) v / 2, v_B = (1 + e) v / 2, then B-C leaves
// v_B = (1 - e)(1 + e) v / 4, v_C = (1 + e)^2 v / 4.
TEST(RigidFreeplay, SimultaneousContactsFollowTheImpulseLcp) {
  const double I = 0.02, v = 1.0, a = 0.01, h = 1e-6;
  for (double e : {0.0, 0.8}) {
    ModelSpec spec;
    spec.bodies = {body("A", I, 0.0, v), body("B", I, 0.0), body("C", I, -a)};
    spec.elements = {rigid_freeplay("AB", "A", "B", a, e), rigid_freeplay("BC", "B", "C", a, e)};
    spec.simulation = stepping(0.02, h);
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time);
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(test::velocity(r, last, 0), (1 - 2 * e) * v / 3, 1e-9) << "e = " << e;
    EXPECT_NEAR(test::velocity(r, last, 1), (1 + e) * v / 3, 1e-9) << "e = " << e;
    EXPECT_NEAR(test::velocity(r, last, 2), (1 + e) * v / 3, 1e-9) << "e = " << e;
    // momentum is conserved, and both contacts acted in the same step
    EXPECT_NEAR(I * (test::velocity(r, last, 0) + test::velocity(r, last, 1) + test::velocity(r, last, 2)), I * v,
                1e-12);
    int k = 1;
    while (k < r.num_samples() && test::element_state(r, k, 0) == 0) ++k;
    ASSERT_LT(k, r.num_samples());
    EXPECT_EQ(test::element_state(r, k, 1), 1) << "B-C carried an impulse in the impact step";
    EXPECT_NEAR(r.time[k - 1], a / v, 1.5 * h);
  }
}

TEST(RigidFreeplay, YamlModelAndItsErrors) {
  const std::string base = R"(name: gap
simulation: {t_end: 0.1, output_step: 0.01, solver: time_stepping, step: 1.0e-4}
bodies:
  b: {inertia: 0.01}
elements:
  stop: {type: spring, body: b, stiffness: .inf, freeplay: 0.01, restitution: 0.5}
  push: {type: torque, body: b, torque: 0.1}
)";
  const Model m = assemble(io::parse_model_spec(base, "gap.yaml", "."));
  ASSERT_EQ(m.springs.size(), 1u);
  EXPECT_TRUE(m.springs[0].rigid());
  EXPECT_EQ(m.springs[0].restitution, 0.5);
  auto error_of = [&](const std::string& from, const std::string& to) {
    std::string text = base;
    text.replace(text.find(from), from.size(), to);
    try {
      assemble(io::parse_model_spec(text, "gap.yaml", "."));
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("restitution: 0.5", "restitution: 1.5"),
            "gap.yaml:6:79: elements.stop.restitution: must be in [0, 1] (got 1.5)");
  EXPECT_EQ(error_of("stiffness: .inf", "stiffness: 100"),
            "gap.yaml:6:78: elements.stop.restitution: applies to rigid freeplay only (stiffness .inf with "
            "freeplay > 0): an elastic spring's impacts follow from its stiffness and damping");
  EXPECT_EQ(error_of("solver: time_stepping, step: 1.0e-4", "rest_velocity: -1.0e-6"),
            "gap.yaml:2:60: simulation.rest_velocity: must be >= 0 (got -1e-06)");
  EXPECT_EQ(error_of("solver: time_stepping, step: 1.0e-4", "rest_velocity: 1.0e-6"), "no error")
      << "rigid freeplay runs event-driven too";
  EXPECT_EQ(error_of("b: {inertia: 0.01}", "b: {inertia: 0.01, angle: 0.02}"),
            "gap.yaml:6:60: elements.stop.freeplay: the initial relative angle 0.02 rad lies outside the rigid "
            "freeplay [-0.01, 0.01]");
}

}  // namespace
}  // namespace luztar
