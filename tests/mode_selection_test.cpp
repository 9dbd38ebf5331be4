// The S-S procedure at an event for coupled friction: two bodies, a clutch
// between them and a bearing from each to the base, driven by a torque T on
// body a. Hand-derived solutions of the box-LCP (Gauss's principle) below.
//
// Bodies: I_a = 1, I_b = 2 [kg m^2]. Bearings: L_a = 1, L_b = 1.5 [N m]. Clutch
// limit L_c. Friction rows F = [e_a; e_b; e_a - e_b], M^-1 = diag(1, 1/2):
//   A = F M^-1 F^T = [[1, 0, 1], [0, 1/2, -1/2], [1, -1/2, 3/2]],  b = F M^-1 f = (T, 0, T).
// Relative accelerations r = b - A lambda; KKT: r_i = 0 inside the box, r_i >= 0
// at +L_i, r_i <= 0 at -L_i.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "io/yaml_model.hpp"
#include "model_builder.hpp"
#include "solvers/numerics/box_qp.hpp"
#include "solvers/mode_selection.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

using namespace luztar::test;

ModelSpec two_bodies_with_clutch(double clutch_limit, Signal drive, double t_end) {
  ModelSpec spec;
  spec.name = "clutch_pair";
  spec.bodies = {body("a", 1.0), body("b", 2.0)};
  spec.elements = {friction("bearing_a", "a", "", 1.0), friction("bearing_b", "b", "", 1.5),
                   friction("clutch", "a", "b", clutch_limit), torque("drive", "a", std::move(drive))};
  spec.simulation = settings(t_end, 0.01);
  return spec;
}

// Case 1, T = 3, L_c = 1. Everything locked would need 3 > L_a + L_c = 2 on body
// a: a moves. Locked pair would need I_b/3 * (3 - 2.5) + 1.5 = 1.83 > L_c from the
// clutch: the clutch slips. Body b is then held by its bearing against the clutch
// torque 1 < 1.5. Solution lambda = (1, 1, 1), r = (1, 0, 1):
//   r_a = 3 - (1 + 1) = 1 > 0 at +L_a; r_b = 0 - (1/2 - 1/2) = 0 inside; r_c = 3 - (1 - 1/2 + 3/2) = 1 > 0 at +L_c.
TEST(ModeSelection, ClutchSlipsAndSecondBodyStaysStuck_BoxLcp) {
  Eigen::MatrixXd A(3, 3);
  A << 1, 0, 1, 0, 0.5, -0.5, 1, -0.5, 1.5;
  const Eigen::Vector3d b(3, 0, 3), L(1, 1.5, 1);
  const BoxQpSolution qp = solve_box_qp(A, b, -L, L);
  ASSERT_TRUE(qp.converged);
  EXPECT_NEAR(qp.x[0], 1.0, 1e-12);
  EXPECT_NEAR(qp.x[1], 1.0, 1e-12);
  EXPECT_NEAR(qp.x[2], 1.0, 1e-12);
  EXPECT_NEAR(qp.residual[0], 1.0, 1e-12);
  EXPECT_NEAR(qp.residual[1], 0.0, 1e-12);
  EXPECT_NEAR(qp.residual[2], 1.0, 1e-12);

  // The same through the simulator's selection at t = 0 (all three at zero velocity).
  const Model m = assemble(two_bodies_with_clutch(1.0, Signal::make_constant(3.0), 1.0));
  Simulator sim(m);
  const auto& modes = sim.state().friction_mode;
  EXPECT_EQ(modes[0], FrictionMode::slip_positive);
  EXPECT_EQ(modes[1], FrictionMode::stuck);
  EXPECT_EQ(modes[2], FrictionMode::slip_positive);
}

TEST(ModeSelection, ClutchSlipsAndSecondBodyStaysStuck_Motion) {
  const Model m = assemble(two_bodies_with_clutch(1.0, Signal::make_constant(3.0), 1.0));
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time);
  EXPECT_TRUE(r.events.empty());  // the structure chosen at t = 0 holds
  for (int k = 0; k < r.num_samples(); ++k) {
    const double t = r.time[k];
    EXPECT_NEAR(angle(r, k, 0), 0.5 * t * t, 1e-9);  // I_a q_a'' = 3 - 1 - 1
    EXPECT_EQ(velocity(r, k, 1), 0.0);                // exactly at rest
    EXPECT_EQ(element_state(r, k, 1), 0);
    EXPECT_NEAR(element_torque(r, k, 1), 1.0, 1e-12);         // static torque = clutch torque
  }
}

// Case 2, T = 3, L_c = 3: the pair moves as one: acceleration (3 - 1 - 1.5)/3 = 1/6;
// the clutch carries I_b/6 + L_b = 1.8333 < 3: stuck. lambda = (1, 1.5, 11/6), r = (1/6, 1/6, 0).
TEST(ModeSelection, ClutchHoldsAndPairSlides) {
  Eigen::MatrixXd A(3, 3);
  A << 1, 0, 1, 0, 0.5, -0.5, 1, -0.5, 1.5;
  const Eigen::Vector3d b(3, 0, 3), L(1, 1.5, 3);
  const BoxQpSolution qp = solve_box_qp(A, b, -L, L);
  EXPECT_NEAR(qp.x[0], 1.0, 1e-12);
  EXPECT_NEAR(qp.x[1], 1.5, 1e-12);
  EXPECT_NEAR(qp.x[2], 11.0 / 6.0, 1e-12);
  EXPECT_NEAR(qp.residual[0], 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(qp.residual[1], 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(qp.residual[2], 0.0, 1e-12);

  const Model m = assemble(two_bodies_with_clutch(3.0, Signal::make_constant(3.0), 1.0));
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time);
  for (int k = 0; k < r.num_samples(); ++k) {
    const double t = r.time[k];
    EXPECT_NEAR(angle(r, k, 0), t * t / 12.0, 1e-9);
    EXPECT_EQ(velocity(r, k, 0), velocity(r, k, 1));  // locked together exactly
    EXPECT_EQ(element_state(r, k, 2), 0);
    EXPECT_NEAR(element_torque(r, k, 2), 11.0 / 6.0, 1e-10);
  }
}

// Case 3, T(t) = 2.5 t, L_c = 3: the three stuck links close a loop, so the
// static torques are not unique: lambda_a + lambda_c = T, lambda_b = lambda_c.
// The group holds while some split fits, i.e. until T = L_a + L_b = 2.5 (t = 1);
// then both bearings break and the pair moves with the clutch stuck:
//   3 q'' = 2.5 t - 2.5  ->  q = 2.5 (t - 1)^3 / 18, clutch torque 2 q'' + 1.5 <= 3 for t <= 1.9.
// Reported split (Chebyshev, smallest largest utilisation): lambda_b = lambda_c = 0.6 T,
// lambda_a = 0.4 T, utilisation 0.4 T (reaching 1 exactly at T = 2.5).
TEST(ModeSelection, RedundantStuckGroupHoldsUntilNoSplitFits) {
  const Model m = assemble(two_bodies_with_clutch(3.0, ramp(0.0, 2.0, 0.0, 5.0), 1.8));
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_GE(r.stats.redundant_splits, 1);
  ASSERT_EQ(r.events.size(), 2u);
  for (const EventRecord& e : r.events) {
    EXPECT_NEAR(e.t, 1.0, 1e-8);
    EXPECT_EQ(e.kind, EventKind::break_away);
    EXPECT_NE(e.element, 2);  // the clutch holds
  }
  for (int k = 0; k < r.num_samples(); ++k) {
    const double t = r.time[k], T = 2.5 * t;
    if (t < 1.0 - 1e-9) {
      EXPECT_EQ(velocity(r, k, 0), 0.0);
      EXPECT_EQ(velocity(r, k, 1), 0.0);
      EXPECT_NEAR(element_torque(r, k, 0), 0.4 * T, 1e-10);
      EXPECT_NEAR(element_torque(r, k, 1), 0.6 * T, 1e-10);
      EXPECT_NEAR(element_torque(r, k, 2), 0.6 * T, 1e-10);
    } else if (t > 1.0 + 1e-9) {
      EXPECT_NEAR(angle(r, k, 0), 2.5 * std::pow(t - 1.0, 3) / 18.0, 1e-9);
      EXPECT_EQ(velocity(r, k, 0), velocity(r, k, 1));
      EXPECT_NEAR(element_torque(r, k, 2), 2.0 * 2.5 * (t - 1.0) / 3.0 + 1.5, 1e-9);
    }
  }
}

// An ill-conditioned group, counted: body a (I_a = 1, bearing L_a = 5, torque
// 1) and a heavy body b (I_b = 1e8, torque 10), a clutch a-b (L_c = 1), all at
// rest at t = 0. Rows F = [e_a; e_a - e_b], so A = [[1, 1], [1, 1 + 1e-8]]: two
// nearly parallel rows, on which projected Gauss-Seidel creeps (a factor
// ~ 1 - 1e-8 per sweep) and after its 20000 sweeps still has the clutch near 0,
// inside its box, so the polish (on that wrong active set) puts it outside.
// The box QP misses its tolerance and Lemke decides (selection_fallbacks 1):
// the clutch cannot hold b (10 > L_c), it slips negative with torque -1 on a
// (+1 drags a along), a stays stuck with bearing torque 1 + 1 = 2 < 5, and b
// accelerates at (10 - 1) / 1e8.
TEST(ModeSelection, IllConditionedGroupFallsBackToLemkeAndIsCounted) {
  ModelSpec spec;
  spec.bodies = {body("a", 1.0), body("b", 1e8)};
  spec.elements = {friction("bearing_a", "a", "", 5.0), friction("clutch", "a", "b", 1.0),
                   torque("drive_a", "a", Signal::make_constant(1.0)),
                   torque("drive_b", "b", Signal::make_constant(10.0))};
  spec.simulation = settings(1.0, 0.25);
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.stats.selection_fallbacks, 1);  // the selection at t_start
  EXPECT_EQ(r.stats.selection_unsolved, 0);   // Lemke met the tolerance
  EXPECT_TRUE(r.events.empty());
  const int last = r.num_samples() - 1;
  ASSERT_NEAR(r.time[last], 1.0, 1e-12);
  EXPECT_EQ(element_state(r, last, 0), 0);   // bearing stuck
  EXPECT_EQ(element_state(r, last, 1), -1);  // clutch slips
  EXPECT_EQ(velocity(r, last, 0), 0.0);
  EXPECT_NEAR(velocity(r, last, 1), 9e-8, 1e-15);
  EXPECT_NEAR(element_torque(r, last, 0), 2.0, 1e-9);
}

// An ordinary group keeps every solver counter at zero.
TEST(ModeSelection, WellConditionedGroupCountsNothing) {
  const Result r = simulate(assemble(two_bodies_with_clutch(1.0, Signal::make_constant(3.0), 1.0)));
  ASSERT_EQ(r.status, StepStatus::reached_time);
  EXPECT_EQ(r.stats.selection_fallbacks, 0);
  EXPECT_EQ(r.stats.selection_unsolved, 0);
}

// The same ill-conditioned pair with the bearing replaced by a rigid stop
// that body a rests against (|q_a| <= 0.01, at +0.01, pressed by its torque
// 1): the contact row has the one-sided bound [0, inf), which Lemke's
// box-LCP takes as one plain complementarity pair (solve_box_lcp_lemke; it
// took finite bounds only before the one-way clutch, and the miss was then
// counted as selection_unsolved): a fallback that meets the tolerance. The
// clutch slips (relative acceleration -9e-8 against a classification
// tolerance of 1e-10 of the scale ~10), the stop carries 1 + 1 = 2, b
// accelerates at 9e-8.
TEST(ModeSelection, IllConditionedGroupWithAContactFallsBackToLemke) {
  ModelSpec spec;
  spec.bodies = {body("a", 1.0, 0.01), body("b", 1e8)};
  SpringSpec stop = spring("stop", "a", "", INFINITY, 0.01);
  stop.restitution = 0.0;
  spec.elements = {stop, friction("clutch", "a", "b", 1.0), torque("drive_a", "a", Signal::make_constant(1.0)),
                   torque("drive_b", "b", Signal::make_constant(10.0))};
  spec.simulation = settings(1.0, 0.25);
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.stats.selection_fallbacks, 1);  // the selection at t_start
  EXPECT_EQ(r.stats.selection_unsolved, 0);   // Lemke met the tolerance
  EXPECT_TRUE(r.events.empty());
  const int last = r.num_samples() - 1;
  EXPECT_EQ(element_state(r, last, 0), 1);   // in contact
  EXPECT_EQ(element_state(r, last, 1), -1);  // clutch slips
  EXPECT_EQ(velocity(r, last, 0), 0.0);
  EXPECT_EQ(angle(r, last, 0), 0.01);
  EXPECT_NEAR(velocity(r, last, 1), 9e-8, 1e-15);
  EXPECT_NEAR(element_torque(r, last, 0), 2.0, 1e-9);
}

// A bearing with stiction that reverses while a clutch is stuck: body a
// (I_a = 1) on a bearing (MT0 = 1, static_ratio 1.5: static limit 1.5), body b
// (I_b = 3) under T = -3, a clutch a-b (L_c = 1.7), both turning at 0.5 rad/s.
// Until t* the pair slides as one with the clutch stuck: 4 w' = T - 1 = -4,
// w = 0.5 - t, at rest at t* = 0.5 s; the clutch carries I_b w' - T = 0.
// At t* the selection (bearing and clutch at rest) with both static limits
// as bounds finds both slipping: the pair held needs 3 > 1.5 of the bearing;
// the bearing held beside a slipping clutch would carry L_c = 1.7 > 1.5; the
// bearing at its static 1.5 and the clutch stuck needs (I_b 1.5 + I_a 3) / 4
// = 1.875 > 1.7 of the clutch. But a bearing that turns back slips with its
// kinetic torque 1, and with it the stuck clutch needs (3 * 1 + 1 * 3) / 4 =
// 1.5 <= 1.7: the clutch stays stuck (a clutch slipping positive at 1.7
// beside the bearing's kinetic 1 would have w_a' - w_b' = (1 - 1.7)/1 -
// (-3 + 1.7)/3 = -0.267 < 0, against its slip: not a consistent structure).
// After t*: 4 w' = T + 1 = -2, w = -0.5 (t - 0.5), the clutch carries
// I_b w' - T = 1.5. One event: the bearing's reversal at t*.
// Before the fix the clutch was set slipping (the second pass re-decided the
// still-stuck elements only): a break-away beside the reversal, then a stick
// at once (exact) or an event storm (cvode_bdf).
class BearingReversal : public ::testing::TestWithParam<const char*> {};

TEST_P(BearingReversal, KineticTorqueOfTheReversingBearingKeepsTheClutchStuck) {
  ModelSpec spec;
  spec.name = "bearing_reversal";
  spec.bodies = {body("a", 1.0, 0.0, 0.5), body("b", 3.0, 0.0, 0.5)};
  spec.elements = {friction("bearing", "a", "", 1.0, 0.0, 1.5), friction("clutch", "a", "b", 1.7),
                   torque("load", "b", Signal::make_constant(-3.0))};
  spec.simulation = settings(1.0, 0.125);
  spec.simulation.integrator = GetParam();
  const bool exact = std::string(GetParam()) == "exact";
  const double time_tol = exact ? 1e-12 : 1e-8, value_tol = exact ? 1e-12 : 1e-8;
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.stats.selection_unsolved, 0);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].element, 0);
  EXPECT_EQ(r.events[0].kind, EventKind::reversal);
  EXPECT_EQ(r.events[0].before, 1);
  EXPECT_EQ(r.events[0].after, -1);
  EXPECT_NEAR(r.events[0].t, 0.5, time_tol);
  for (int k = 0; k < r.num_samples(); ++k) {
    const double t = r.time[k], after = std::max(t - 0.5, 0.0);
    const double w = t <= 0.5 ? 0.5 - t : -0.5 * after;
    const double q = t <= 0.5 ? 0.5 * t - 0.5 * t * t : 0.125 - 0.25 * after * after;
    EXPECT_EQ(element_state(r, k, 1), 0) << "t = " << t;  // the clutch stuck throughout
    EXPECT_EQ(velocity(r, k, 0), velocity(r, k, 1)) << "t = " << t;
    EXPECT_NEAR(velocity(r, k, 0), w, value_tol) << "t = " << t;
    EXPECT_NEAR(angle(r, k, 0), q, value_tol) << "t = " << t;
    if (t > 0.5 + 1e-9) {
      EXPECT_NEAR(std::abs(element_torque(r, k, 1)), 1.5, value_tol) << "t = " << t;
    } else if (t < 0.5 - 1e-9) {
      EXPECT_NEAR(element_torque(r, k, 1), 0.0, value_tol) << "t = " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Integrators, BearingReversal, ::testing::Values("exact", "cvode_bdf"));

// The model run with its own settings by the exact integrator, then by cvode_bdf.
std::vector<Result> run_exact_and_bdf(const Model& m) {
  std::vector<Result> runs;
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SimulationSettings s = m.simulation;
    s.integrator = integrator;
    runs.push_back(simulate(m, s));
  }
  return runs;
}

// The same event sequence in two runs (element, kind, states), at times
// within time_tol [s].
void expect_same_events(const Result& a, const Result& b, double time_tol) {
  ASSERT_EQ(b.events.size(), a.events.size());
  for (std::size_t k = 0; k < a.events.size(); ++k) {
    const EventRecord &x = a.events[k], &y = b.events[k];
    EXPECT_EQ(x.element, y.element) << "event " << k;
    EXPECT_EQ(x.kind, y.kind) << "event " << k;
    EXPECT_EQ(x.before, y.before) << "event " << k;
    EXPECT_EQ(x.after, y.after) << "event " << k;
    EXPECT_NEAR(x.t, y.t, time_tol) << "event " << k;
  }
}

// The same decision in a random model (tests/data/bearing_reversal_clutch.yaml:
// springs with freeplay, sine loads): at t = 0.26932 s the bearing f0
// (static_ratio 1.3) reverses while the clutch c0 is stuck, and with f0's
// kinetic torque c0 holds; it breaks away 1.07 ms later, as the loads turn.
// Before the fix c0 broke away at the reversal (exact: a break-away logged
// beside it; cvode_bdf: an event storm there, exit 3). Both integrators now
// run to t_end through the same 70 events (element, kind, states), at times
// 2.2e-7 s apart at most (cvode_bdf at rtol 1e-8, atol 1e-10).
TEST(ModeSelection, BearingReversalInARandomModel) {
  const Model m = assemble(io::load_model_spec(std::string(LUZTAR_TEST_DATA_DIR) + "/bearing_reversal_clutch.yaml"));
  const int f0 = m.element_id("f0"), c0 = m.element_id("c0");
  const double t_reversal = 0.26931575;
  const std::vector<Result> runs = run_exact_and_bdf(m);
  for (const Result& r : runs) {
    const std::string& integrator = r.integrator;
    ASSERT_EQ(r.status, StepStatus::reached_time) << integrator << ": " << r.message;
    EXPECT_EQ(r.stats.selection_unsolved, 0) << integrator;
    std::vector<const EventRecord*> near;
    for (const EventRecord& e : r.events)
      if (std::abs(e.t - t_reversal) < 1e-6) near.push_back(&e);
    ASSERT_EQ(near.size(), 1u) << integrator;  // the reversal alone: no break-away of c0 beside it
    EXPECT_EQ(near[0]->element, f0) << integrator;
    EXPECT_EQ(near[0]->kind, EventKind::reversal) << integrator;
    const auto c0_next = std::find_if(r.events.begin(), r.events.end(), [&](const EventRecord& e) {
      return e.element == c0 && e.t > t_reversal;
    });
    ASSERT_NE(c0_next, r.events.end()) << integrator;
    EXPECT_EQ(c0_next->kind, EventKind::break_away) << integrator;
    EXPECT_NEAR(c0_next->t, 0.27038240, 1e-7) << integrator;
    for (std::size_t k = 1; k < r.events.size(); ++k)  // no element changes twice within 1e-9 s
      for (std::size_t j = k; j-- > 0 && r.events[k].t - r.events[j].t < 1e-9;)
        EXPECT_NE(r.events[k].element, r.events[j].element) << integrator << " at t = " << r.events[k].t;
  }
  ASSERT_EQ(runs[0].events.size(), 70u);
  expect_same_events(runs[0], runs[1], 1e-6);
}

// The mirror case in another random model (tests/data/
// clutch_arrival_bearing_break_away.yaml): at t = 0.82496 s the bearing f2
// (static_ratio 1.3) breaks away from stuck while the clutch c1's slip
// velocity reaches zero. With f2 at its static limit c1 had to turn back
// (a reversal); with f2 slipping at its kinetic torque c1 holds: it sticks.
// Before the fix: the reversal (exact), an event storm there (cvode_bdf).
// Now both integrators run the same 6 events to t_end, 1e-8 s apart at most.
TEST(ModeSelection, ClutchArrivalBesideABreakAwayInARandomModel) {
  const Model m =
      assemble(io::load_model_spec(std::string(LUZTAR_TEST_DATA_DIR) + "/clutch_arrival_bearing_break_away.yaml"));
  const int f2 = m.element_id("f2"), c1 = m.element_id("c1");
  const std::vector<Result> runs = run_exact_and_bdf(m);
  for (const Result& r : runs) {
    const std::string& integrator = r.integrator;
    ASSERT_EQ(r.status, StepStatus::reached_time) << integrator << ": " << r.message;
    ASSERT_EQ(r.events.size(), 6u) << integrator;
    const EventRecord &bearing = r.events[4], &clutch = r.events[5];
    EXPECT_EQ(bearing.element, f2) << integrator;
    EXPECT_EQ(bearing.kind, EventKind::break_away) << integrator;
    EXPECT_EQ(clutch.element, c1) << integrator;
    EXPECT_EQ(clutch.kind, EventKind::stick) << integrator;
    EXPECT_EQ(clutch.t, bearing.t) << integrator;  // one instant
    EXPECT_NEAR(clutch.t, 0.82495761, 1e-7) << integrator;
    const int last = r.num_samples() - 1;
    EXPECT_EQ(element_state(r, last, c1), 0) << integrator;  // stuck to t_end
  }
  expect_same_events(runs[0], runs[1], 1e-7);
}

}  // namespace
}  // namespace luztar
