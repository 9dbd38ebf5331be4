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

#include <cmath>

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

}  // namespace
}  // namespace luztar
