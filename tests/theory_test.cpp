// Where luztar departs from the papers (docs/theory.md), checked numerically.
//
// 1. Part 1, Theorem 5.4, with the stuck-state torque divided by (b1 + b2), not
//    the printed (b1 - b2).
// 2. Part 1, Definition 5.1 (the S-S procedure) replaced by Gauss's principle:
//    a coupled case where clipping the all-stuck solution element by element
//    (which is what steps 3-5 of the procedure do) picks the wrong structure.
//
// Theorems 3.6 and 3.9 are checked in projections_test.cpp, Simplification 1 in
// reduce_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/projections.hpp"
#include "io/yaml_model.hpp"
#include "model_builder.hpp"
#include "solvers/numerics/box_qp.hpp"
#include "solvers/mode_selection.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

using namespace luztar::test;

// --- Theorem 5.4 ---------------------------------------------------------------
//
// The inclusion  x1' in y1 - b1 tar(x1 - x2, a),  x2' in y2 + b2 tar(x1 - x2, a).
// Subtracting the second line from the first gives
//   (x1 - x2)' in (y1 - y2) - (b1 + b2) tar(x1 - x2, a),
// so at x1 = x2 the minimiser of (x1' - x2')^2 over tar(0, a) in [-a, a] is
//   tar(0, a)_opt = clamp((y1 - y2) / (b1 + b2), -a, a)
//                 = [d - luz(d, (b1 + b2) a)] / (b1 + b2),  d = y1 - y2.
// The paper prints (b1 - b2) in both places.
double tar_opt_corrected(double d, double b1, double b2, double a) {
  return (d - luz(d, (b1 + b2) * a)) / (b1 + b2);
}
double tar_opt_printed(double d, double b1, double b2, double a) {
  return (d - luz(d, (b1 - b2) * a)) / (b1 - b2);
}
// Direct computation: minimise (d - (b1 + b2) s)^2 over s in [-a, a].
double tar_opt_direct(double d, double b1, double b2, double a) { return std::clamp(d / (b1 + b2), -a, a); }

TEST(Theory, Theorem5_4_CorrectedFormulaIsTheMinimiser) {
  const double b1 = 2.0, b2 = 1.0, a = 1.5;  // (b1 + b2) a = 4.5, (b1 - b2) a = 1.5
  int printed_wrong = 0;
  for (int i = -80; i <= 80; ++i) {
    const double d = 0.1 * i;
    EXPECT_NEAR(tar_opt_corrected(d, b1, b2, a), tar_opt_direct(d, b1, b2, a), 1e-14) << "d=" << d;
    // The printed form gives a relative acceleration d - (b1 + b2) s that is
    // non-zero while s is inside the box (or of the wrong sign at the bound).
    if (std::abs(tar_opt_printed(d, b1, b2, a) - tar_opt_direct(d, b1, b2, a)) > 1e-9) ++printed_wrong;
  }
  // The printed form is clamp(d, -1.5, 1.5), the true one clamp(d/3, -1.5, 1.5):
  // they agree only where both saturate (|d| >= 4.5: 36 + 36 grid points) and at
  // d = 0, so 161 - 73 = 88 of the grid points are wrong.
  EXPECT_EQ(printed_wrong, 88);
  // d = 3: corrected s = 1 (stuck, |s| < a); printed s = 3 - luz(3, 1.5) = 1.5.
  EXPECT_NEAR(tar_opt_corrected(3.0, b1, b2, a), 1.0, 1e-15);
  EXPECT_NEAR(tar_opt_printed(3.0, b1, b2, a), 1.5, 1e-15);
}

// A model that realises the inclusion: two bodies and a clutch between them with
// viscous coefficient mu and Coulomb limit MT0, torque T on body 1:
//   I1 q1'' = T - mu tar(v1 - v2, MT0/mu),  I2 q2'' = mu tar(v1 - v2, MT0/mu),
// i.e. x_i = v_i, y1 = T/I1, y2 = 0, b_i = mu/I_i, a = MT0/mu.
// With I1 = 1, I2 = 2, mu = 2, MT0 = 3: b1 = 2, b2 = 1, a = 1.5.
//
// T = 3 (d = 3): corrected s = 1 < a: the clutch sticks, x1' = 3 - 2 = 1 = x2' =
// 0 + 1; clutch torque mu s = 2 <= 3. The printed form would give s = a (torque 3,
// at the limit) with x1' = 0, x2' = 1.5: body 2 overtaking body 1 while the
// clutch pushes it forward, which no slip direction allows.
// T = 4.4 (d = 4.4 < 4.5): still stuck by the corrected threshold, while the
// printed one (d > 1.5) says slip. Common acceleration 4.4/3, clutch torque
// I2 * 4.4/3 = 2.9333 < 3.
std::string theorem_5_4_model(double drive) {
  return "simulation: {t_end: 0.5, output_step: 0.05, rtol: 1.0e-10, atol: 1.0e-12}\n"
         "bodies:\n"
         "  x1: {inertia: 1}\n"
         "  x2: {inertia: 2}\n"
         "elements:\n"
         "  clutch: {type: friction, bodies: [x1, x2], viscous: 2, coulomb: 3}\n"
         "  drive: {type: torque, body: x1, torque: " +
         std::to_string(drive) + "}\n";
}

TEST(Theory, Theorem5_4_StuckRegionOfTheRealisingModel) {
  for (const double drive : {3.0, 4.4}) {
    const Model m = assemble(io::parse_model_spec(theorem_5_4_model(drive), "t.yaml", "."));
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time);
    const double b1 = 2.0, b2 = 1.0, a = 1.5, d = drive / 1.0;
    const double s = tar_opt_corrected(d, b1, b2, a);
    ASSERT_LT(s, a);  // inside the box: the theorem says stuck
    const double acc1 = d - b1 * s, acc2 = b2 * s;
    EXPECT_NEAR(acc1, acc2, 1e-12);
    EXPECT_NEAR(acc1, drive / 3.0, 1e-12);
    // The printed divisor puts the same d at the limit (slip).
    EXPECT_NEAR(tar_opt_printed(d, b1, b2, a), a, 1e-12) << drive;
    for (int k = 1; k < r.num_samples(); ++k) {
      const double t = r.time[k];
      EXPECT_EQ(element_state(r, k, 0), 0) << "t=" << t;
      EXPECT_NEAR(element_torque(r, k, 0), 2.0 * s, 1e-9) << "t=" << t;  // mu s
      EXPECT_NEAR(velocity(r, k, 0), acc1 * t, 1e-9) << "t=" << t;
      EXPECT_NEAR(velocity(r, k, 1), acc2 * t, 1e-9) << "t=" << t;
    }
  }
}

// --- Definition 5.1 vs Gauss's principle ------------------------------------------
//
// Bearing (limit 1 N m) on body a to the base, clutch (limit 2.5 N m) between b
// and a, constant torque 3 N m on b, I_a = I_b = 1, all at rest.
// Links: bearing F1 = e_a, clutch F2 = e_b - e_a (relative velocity v_b - v_a),
// f = (0, 3), M = I:
//   A = F M^-1 F^T = [[1, -1], [-1, 2]],  b = F M^-1 f = (0, 3).
// Everything stuck (A lambda = b): lambda = (3, 3), both beyond their limits.
// Definition 5.1 (s** = (3, 1.2), saturated by s** - luz(s**, 1)) = clipping
// element by element: lambda = (1, 2.5), both "slip". Its relative
// accelerations r = b - A lambda = (1.5, -1): the clutch torque sits at +2.5
// (b ahead of a) while a would run ahead of b: not a solution.
// Gauss's principle: bearing slips (+1), clutch stuck: the pair accelerates
// at (3 - 1)/2 = 1; the clutch carries what b needs beyond its inertia:
// 3 - I_b * 1 = 2 <= 2.5. lambda = (1, 2), r = (1, 0).
constexpr const char* kCoupledModel =
    "simulation: {t_end: 1, output_step: 0.1, rtol: 1.0e-10, atol: 1.0e-12}\n"
    "bodies:\n"
    "  a: {inertia: 1}\n"
    "  b: {inertia: 1}\n"
    "elements:\n"
    "  bearing: {type: friction, body: a, coulomb: 1}\n"
    "  clutch: {type: friction, bodies: [b, a], coulomb: 2.5}\n"
    "  drive: {type: torque, body: b, torque: 3}\n";

TEST(Theory, CoupledCase_GaussBoxLcpVersusClipping) {
  Eigen::MatrixXd A(2, 2);
  A << 1, -1, -1, 2;
  const Eigen::Vector2d b(0, 3), L(1, 2.5);

  const BoxQpSolution qp = solve_box_qp(A, b, -L, L);
  ASSERT_TRUE(qp.converged);
  EXPECT_NEAR(qp.x[0], 1.0, 1e-12);
  EXPECT_NEAR(qp.x[1], 2.0, 1e-12);
  EXPECT_NEAR(qp.residual[0], 1.0, 1e-12);  // bearing slips forward
  EXPECT_NEAR(qp.residual[1], 0.0, 1e-12);  // clutch stuck

  // The S-S procedure of the paper: solve the all-stuck subsystem, saturate.
  const Eigen::Vector2d unconstrained = A.ldlt().solve(b);
  EXPECT_NEAR(unconstrained[0], 3.0, 1e-12);
  EXPECT_NEAR(unconstrained[1], 3.0, 1e-12);
  const Eigen::VectorXd clipped = unconstrained.cwiseMax(-L).cwiseMin(L);
  EXPECT_NEAR(clipped[1], 2.5, 1e-12);  // the clutch would be declared slipping
  const Eigen::VectorXd r_clipped = b - A * clipped;
  EXPECT_NEAR(r_clipped[0], 1.5, 1e-12);
  EXPECT_NEAR(r_clipped[1], -1.0, 1e-12);  // wrong sign for a torque at +2.5
  EXPECT_GT(box_qp_kkt_error(A, b, -L, L, clipped), 0.5);
  EXPECT_LT(box_qp_kkt_error(A, b, -L, L, qp.x), 1e-12);
}

TEST(Theory, CoupledCase_SimulatedFromYaml) {
  const Model m = assemble(io::parse_model_spec(kCoupledModel, "t.yaml", "."));

  // The selection the simulator makes at t_start (select_friction_modes).
  {
    Simulator sim(m);
    const auto& modes = sim.state().friction_mode;
    ASSERT_EQ(modes.size(), 2u);
    EXPECT_EQ(modes[0], FrictionMode::slip_positive);  // bearing
    EXPECT_EQ(modes[1], FrictionMode::stuck);          // clutch
  }

  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time);
  EXPECT_TRUE(r.events.empty());  // the structure chosen at t = 0 holds
  for (int k = 1; k < r.num_samples(); ++k) {
    const double t = r.time[k];
    EXPECT_EQ(element_state(r, k, 0), 1) << "t=" << t;
    EXPECT_EQ(element_state(r, k, 1), 0) << "t=" << t;
    EXPECT_NEAR(element_torque(r, k, 0), 1.0, 1e-9) << "t=" << t;
    EXPECT_NEAR(element_torque(r, k, 1), 2.0, 1e-9) << "t=" << t;
    EXPECT_NEAR(velocity(r, k, 0), 1.0 * t, 1e-9) << "t=" << t;  // alpha = (3 - 1)/2 = 1
    EXPECT_NEAR(velocity(r, k, 1), 1.0 * t, 1e-9) << "t=" << t;
    EXPECT_NEAR(angle(r, k, 0), 0.5 * t * t, 1e-9) << "t=" << t;
  }
}

}  // namespace
}  // namespace luztar
