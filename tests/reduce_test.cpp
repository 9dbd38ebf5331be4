// Model reduction with the luz/tar algebra (core/reduce.hpp) and massless
// bodies in the solver, against Part 2's Simplifications 1-3 and Part 1's
// Theorems 4.1, 4.3, 5.2 and 5.3 run through the integrator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "core/energy.hpp"
#include "core/errors.hpp"
#include "core/projections.hpp"
#include "core/reduce.hpp"
#include "io/yaml_model.hpp"
#include "exact_signals.hpp"
#include "model_builder.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

using namespace luztar::test;

// The gear train of models/gear_train.yaml with undamped springs, its gear
// inertias scaled by eps, and the gear bearings either removed (Simplification 2)
// or given a viscous coefficient (Simplification 1).
enum class GearBearings { removed, viscous };
ModelSpec gear_train_variant(double eps, GearBearings bearings, double t_end) {
  ModelSpec s = io::load_model_spec(LUZTAR_MODELS_DIR "/gear_train.yaml");
  s.simulation.t_end = t_end;
  s.simulation.rtol = 1e-8;
  s.simulation.atol = 1e-10;
  for (BodySpec& b : s.bodies)
    if (b.name == "delta" || b.name == "gamma") b.inertia *= eps;
  std::vector<ElementSpec> kept;
  for (ElementSpec& e : s.elements) {
    if (auto* sp = std::get_if<SpringSpec>(&e)) sp->damping = 0.0;
    if (auto* f = std::get_if<FrictionSpec>(&e); f && (f->body_a == "delta" || f->body_a == "gamma")) {
      if (bearings == GearBearings::removed) continue;
      f->viscous = 0.01;
    }
    kept.push_back(e);
  }
  s.elements = kept;
  return s;
}

const SpringSpec& only_spring(const ModelSpec& s) {
  const SpringSpec* found = nullptr;
  for (const ElementSpec& e : s.elements)
    if (const auto* sp = std::get_if<SpringSpec>(&e)) {
      EXPECT_EQ(found, nullptr);
      found = sp;
    }
  return *found;
}

// Simplification 2: k = (1/k_psidelta + 1/k_deltagamma + p^2/k_gammaphi)^-1,
// freeplay (psi-delta)_0 + (delta-p gamma)_0 + p (gamma-phi)_0, on psi - p phi.
TEST(Reduce, ReproducesSimplification2Exactly) {
  const Reduction r = reduce(gear_train_variant(0.0, GearBearings::removed, 1.0));
  ASSERT_EQ(r.spec.bodies.size(), 2u);
  EXPECT_EQ(r.spec.bodies[0].name, "psi");
  EXPECT_EQ(r.spec.bodies[1].name, "phi");
  const SpringSpec& s = only_spring(r.spec);
  const double k1 = 200, k2 = 5000, k3 = 400, p = 2, a1 = 0.005, a2 = 0.01, a3 = 0.005;
  EXPECT_EQ(s.body_a, "psi");
  EXPECT_EQ(s.body_b, "phi");
  EXPECT_DOUBLE_EQ(s.ratio, p);
  EXPECT_NEAR(s.stiffness, 1.0 / (1 / k1 + 1 / k2 + p * p / k3), 1e-12);
  EXPECT_NEAR(s.freeplay, a1 + a2 + p * a3, 1e-15);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_NE(r.steps[0].find("Theorem 3.6"), std::string::npos);
  // bearings and torques of psi and phi are untouched
  int frictions = 0, torques = 0;
  for (const ElementSpec& e : r.spec.elements) {
    frictions += std::holds_alternative<FrictionSpec>(e);
    torques += std::holds_alternative<TorqueSpec>(e);
  }
  EXPECT_EQ(frictions, 2);
  EXPECT_EQ(torques, 2);
}

// Simplification 3: stiff teeth (k_deltagamma -> .inf) and no freeplay: the linear
// two-body model with k = (1/k_psidelta + p^2/k_gammaphi)^-1.
TEST(Reduce, ReproducesSimplification3Exactly) {
  ModelSpec spec = gear_train_variant(0.0, GearBearings::removed, 1.0);
  for (ElementSpec& e : spec.elements)
    if (auto* s = std::get_if<SpringSpec>(&e)) {
      s->freeplay = 0.0;
      if (s->name == "mesh") s->stiffness = std::numeric_limits<double>::infinity();
    }
  const Reduction r = reduce(spec);
  ASSERT_EQ(r.spec.bodies.size(), 2u);
  const SpringSpec& s = only_spring(r.spec);
  EXPECT_NEAR(s.stiffness, 1.0 / (1.0 / 200 + 4.0 / 400), 1e-12);
  EXPECT_EQ(s.freeplay, 0.0);
  EXPECT_DOUBLE_EQ(s.ratio, 2.0);
  EXPECT_NE(r.steps[0].find("Simplification 3"), std::string::npos);
}

// A massless node whose two springs both return to the same body closes a loop
// that carries no torque: the series reduction leaves no spring at all.
TEST(Reduce, SeriesLoopBackToTheSameBodyCarriesNothing) {
  ModelSpec spec;
  spec.bodies = {body("a", 1.0), body("node", 0.0)};
  spec.elements = {spring("out", "a", "node", 10.0, 0.1), spring("back", "node", "a", 20.0, 0.2),
                   friction("brg", "a", "", 0.5)};
  spec.simulation = settings(1.0, 0.1);
  const Reduction r = reduce(spec);
  ASSERT_EQ(r.spec.bodies.size(), 1u);
  for (const ElementSpec& e : r.spec.elements) EXPECT_FALSE(std::holds_alternative<SpringSpec>(e));
}

// A rigid gear pair (q_a = 2 q_b) merges into the heavier body with reflected
// inertia and scaled bearing and torque; the run equals the hand-merged model.
TEST(Reduce, RigidGearPairEqualsTheHandMergedBody) {
  ModelSpec pair;
  pair.bodies = {body("pinion", 0.01), body("wheel", 0.2)};
  pair.elements = {spring("teeth", "pinion", "wheel", std::numeric_limits<double>::infinity(), 0.0, 2.0),
                   friction("pinion_bearing", "pinion", "", 0.1, 0.02),
                   friction("wheel_bearing", "wheel", "", 0.3, 0.01),
                   torque("motor", "pinion", sine(1.0, 1.0))};
  pair.simulation = settings(2.0, 0.01);
  ModelSpec merged;
  merged.bodies = {body("wheel", 0.2 + 4 * 0.01)};
  merged.elements = {friction("pinion_bearing", "wheel", "", 0.2, 4 * 0.02),  // |p| MT0, p^2 mu
                     friction("wheel_bearing", "wheel", "", 0.3, 0.01),
                     torque("motor", "wheel", sine(2.0, 1.0))};  // p M
  merged.simulation = pair.simulation;
  const Model m = assemble(pair);
  EXPECT_EQ(m.num_bodies(), 1);
  EXPECT_EQ(m.body_names[0], "wheel");
  const Result a = simulate(m), b = simulate(assemble(merged));
  ASSERT_EQ(a.num_samples(), b.num_samples());
  ASSERT_EQ(a.num_bodies(), 2);  // wheel, then the merged pinion (q_pinion = 2 q_wheel)
  for (int k = 0; k < a.num_samples(); ++k) {
    EXPECT_NEAR(a.angle[2 * k], b.angle[k], 1e-12);
    EXPECT_EQ(a.angle[2 * k + 1], 2.0 * a.angle[2 * k]);
  }
  EXPECT_EQ(a.events.size(), b.events.size());
  EXPECT_GT(a.events.size(), 2u);
}

// Three gears rigidly meshed in a loop: q_a = 0.1 q_b, q_b = 0.7 q_c, and
// q_c = r q_a with r = 1/0.07 in doubles, which agrees only to roundoff. The
// third mesh is redundant and dropped; substituted, its residue (1e-16) used to
// fix the whole train to the base. Merging keeps the heavier body each time:
// a into b (2 + 0.1^2 * 1 = 2.01), b into c (3 + 0.7^2 * 2.01 = 3.9849); the
// torque on a reaches c times 0.1 * 0.7. A loop whose ratios disagree
// could only stand still: a ModelError on the mesh that closes it.
TEST(Reduce, ALoopOfRigidMeshesMustAgreeAndIsThenRedundant) {
  const double inf = std::numeric_limits<double>::infinity();
  ModelSpec loop;
  loop.bodies = {body("a", 1.0), body("b", 2.0), body("c", 3.0), body("d", 1.0)};
  loop.elements = {spring("ab", "a", "b", inf, 0.0, 0.1), spring("bc", "b", "c", inf, 0.0, 0.7),
                   spring("ca", "c", "a", inf, 0.0, 1.0 / (0.1 * 0.7)), spring("cd", "c", "d", 10.0, 0.0),
                   torque("drive", "a", Signal::make_constant(1.0))};
  loop.simulation = settings(1.0, 0.1);
  const Reduction r = reduce(loop);
  ASSERT_EQ(r.spec.bodies.size(), 2u);
  EXPECT_EQ(r.spec.bodies[0].name, "c");
  EXPECT_NEAR(r.spec.bodies[0].inertia, 3.9849, 1e-13);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[2], "rigid spring 'ca' closes a loop of rigid connections whose ratios agree: redundant, dropped");
  ASSERT_EQ(r.spec.elements.size(), 2u);
  const auto& drive = std::get<TorqueSpec>(r.spec.elements[1]);
  EXPECT_EQ(drive.body, "c");
  EXPECT_NEAR(evaluate(drive.torque, 0.0), 0.07, 1e-15);

  std::get<SpringSpec>(loop.elements[2]).ratio = 10.0;
  try {
    reduce(loop);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "elements.ca.ratio: closes a loop of rigid connections whose ratios do not agree: on the bodies merged "
              "so far it holds b = 1 c, the others b = 0.7 c (such a loop could only stand still)");
  }
}

// Theorems 5.2 / 5.3 through the solver: a massless body on a bearing (mu, MT0)
// under M(t) = 2 sin(pi t) moves with q' = luz(M, MT0)/mu. With mu = 0.5, MT0 = 1:
// held while |M| <= 1, then q' = (2 sin(pi t) -+ 1)/0.5; q from
// integral of (4 sin(pi s) - 2 s') ds = -(4/pi) cos(pi s) - 2 s on slip+ pieces.
TEST(Massless, ViscousBearingFollowsLuzOfTheTorque) {
  ModelSpec spec;
  spec.bodies = {body("x", 0.0)};
  spec.elements = {friction("bearing", "x", "", 1.0, 0.5), torque("drive", "x", sine(2.0, 0.5))};
  spec.simulation = settings(2.0, 1e-3);
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  // branches switch where |M| = MT0: t = 1/6, 5/6, 7/6, 11/6
  const double expected[] = {1.0 / 6, 5.0 / 6, 7.0 / 6, 11.0 / 6};
  ASSERT_EQ(r.events.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(r.events[i].t, expected[i], 1e-10);
    EXPECT_EQ(r.events[i].kind, i % 2 == 0 ? EventKind::break_away : EventKind::stick);
  }
  auto P = [](double s, double sign) { return -(4 / std::numbers::pi) * std::cos(std::numbers::pi * s) - sign * 2 * s; };
  for (int k = 0; k < r.num_samples(); ++k) {
    const double t = r.time[k];
    double q = 0;
    if (t > 1.0 / 6) q += P(std::min(t, 5.0 / 6), 1) - P(1.0 / 6, 1);
    if (t > 7.0 / 6) q += P(std::min(t, 11.0 / 6), -1) - P(7.0 / 6, -1);
    EXPECT_NEAR(r.angle[k], q, 1e-8) << "t = " << t;
    const double M = 2 * std::sin(std::numbers::pi * t);
    EXPECT_NEAR(r.velocity[k], luz(M, 1.0) / 0.5, 1e-9) << "t = " << t;
  }
  // all the work of the drive is dissipated in the bearing
  const EnergyBalance e = energy_balance(r, r.num_samples() - 1);
  EXPECT_NEAR(e.residual, 0.0, 1e-8 * e.input);
  EXPECT_GT(e.input, 1.0);
}

// A massless body's velocity is the forces' at every output, restarts
// included: on a bearing (MT0 0.3, mu 0.5) under a torque stepping from 1 to
// -1 at 1 s, q' = luz(M, 0.3) / 0.5 is 1.4 from t_start (not the 5 written
// in the model, which a first-order body does not use) and -1.4 from the
// step on (the sample at 1 s, the state after the jump, read 0: the
// restart's state carried no massless velocity). A massless junction of
// springs 1 to a (at 6 rad/s), 2 to b (at rest) and 3 to the base moves at
// (1 x 6 + 2 x 0) / 6 = 1 rad/s from t_start (it read the written 3).
TEST(Massless, VelocityAtRestartsFollowsTheForces) {
  // (exact does not serve a massless body on viscous bearings: CVODE's two methods)
  for (const char* integrator : {"cvode_bdf", "cvode_adams"}) {
    SCOPED_TRACE(integrator);
    ModelSpec spec;
    spec.bodies = {body("x", 0.0, 0.0, 5.0)};
    spec.elements = {friction("bearing", "x", "", 0.3, 0.5), torque("drive", "x", step(1.0, 1.0, -1.0))};
    spec.simulation = settings(2.0, 0.5);
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    for (int k = 0; k < r.num_samples(); ++k)
      EXPECT_NEAR(r.velocity[k], r.time[k] < 1.0 ? 1.4 : -1.4, 1e-12) << "t = " << r.time[k];
  }
  for (const char* integrator : {"cvode_bdf", "cvode_adams"}) {  // (nor an algebraic one)
    SCOPED_TRACE(integrator);
    ModelSpec junction;
    junction.bodies = {body("m", 0.0, 0.7, 3.0), body("a", 1.0, 1.0, 6.0), body("b", 1.0)};
    junction.elements = {spring("k1", "a", "m", 1.0), spring("k2", "m", "b", 2.0), spring("k3", "m", "", 3.0)};
    junction.simulation = settings(0.5, 0.1);
    junction.simulation.integrator = integrator;
    const Result j = simulate(assemble(junction));
    ASSERT_EQ(j.status, StepStatus::reached_time) << j.message;
    EXPECT_NEAR(j.angle[0], 1.0 / 6.0, 1e-15);
    EXPECT_NEAR(j.velocity[0], 1.0, 1e-15);
  }
}

// Theorem 4.1 through the solver: two massless bodies y, x on viscous bearings,
// each tied to the base by a unit spring, joined by a spring k with freeplay a,
// loaded by f and g, settle where y + k luz(y - x, a) = f and x - k luz(y - x, a) = g,
// i.e. y = f - k/(2k+1) luz(f - g, a), x = g + k/(2k+1) luz(f - g, a).
TEST(Massless, StaticEquilibriumMatchesTheorem4_1) {
  for (const auto& [k, a, f, g] : {std::tuple{3.0, 0.5, 2.0, -1.0}, std::tuple{0.5, 0.2, 0.1, 0.2},
                                   std::tuple{2.0, 0.0, -1.0, 1.5}}) {
    ModelSpec spec;
    spec.bodies = {body("y", 0.0), body("x", 0.0)};
    spec.elements = {spring("ground_y", "y", "", 1.0), spring("ground_x", "x", "", 1.0), spring("link", "y", "x", k, a),
                     friction("damper_y", "y", "", 0.0, 1.0), friction("damper_x", "x", "", 0.0, 1.0),
                     torque("f", "y", Signal::make_constant(f)), torque("g", "x", Signal::make_constant(g))};
    spec.simulation = settings(60.0, 1.0);
    const Result r = simulate(assemble(spec));
    const double y = r.angle[(r.num_samples() - 1) * 2], x = r.angle[(r.num_samples() - 1) * 2 + 1];
    EXPECT_NEAR(y, f - k / (2 * k + 1) * luz(f - g, a), 1e-9);
    EXPECT_NEAR(x, g + k / (2 * k + 1) * luz(f - g, a), 1e-9);
  }
}

// Convergence of the redundant model to the reduced one: the gear train with its
// gear inertias scaled by 1e-2, 1e-4, 1e-6 approaches the reduced model; the
// largest difference in the angles of psi and phi shrinks monotonically and is
// below 1e-4 rad at the smallest scale.
void expect_convergence(GearBearings bearings, double t_end) {
  const Model reduced = assemble(gear_train_variant(0.0, bearings, t_end));
  const Result r0 = simulate(reduced);
  ASSERT_EQ(r0.status, StepStatus::reached_time);
  double previous = 1e300;
  for (double eps : {1e-2, 1e-4, 1e-6}) {
    const Model full = assemble(gear_train_variant(eps, bearings, t_end));
    ASSERT_EQ(full.num_bodies(), 4);
    // cvode_bdf: light gears are stiff, and auto's exact sub-steps of 1/rate
    // took 193 s here (README "Integrators": stiffness is not yet a refusal)
    SimulationSettings s = full.simulation;
    s.integrator = "cvode_bdf";
    const Result r = simulate(full, s);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    double worst = 0.0;
    for (const char* name : {"psi", "phi"}) {
      const int jf = full.body_index(name), jr = reduced.body_index(name);
      for (int k = 0; k < r.num_samples(); ++k)
        worst = std::max(worst, std::abs(angle(r, k, jf) - angle(r0, k, jr)));
    }
    EXPECT_LT(worst, previous) << "eps = " << eps;
    previous = worst;
  }
  EXPECT_LT(previous, 1e-4);
}

// Simplification 2 (Theorem 4.3 along the train): measured 1.3e-4, 1.0e-5, 1.2e-6 rad over 0.1 s.
TEST(Massless, FullGearTrainConvergesToSimplification2) {
  expect_convergence(GearBearings::removed, 0.1);
}

// Simplification 1 (Theorem 5.3 on each gear): measured 1.8e-4, 2.6e-6, 4.7e-7 rad over 0.5 s.
TEST(Massless, FullGearTrainConvergesToSimplification1) {
  const Model reduced = assemble(gear_train_variant(0.0, GearBearings::viscous, 0.5));
  EXPECT_EQ(reduced.num_bodies(), 4);  // the gears stay, as first-order bodies
  EXPECT_EQ(reduced.massless(1), true);
  expect_convergence(GearBearings::viscous, 0.5);
}

TEST(Massless, EnergyBalanceWithMasslessGears) {
  const Model m = assemble(gear_train_variant(0.0, GearBearings::viscous, 2.0));
  const Result r = simulate(m);
  const EnergyBalance e = energy_balance(r, r.num_samples() - 1);
  double worst = 0.0;
  for (int k = 1; k < r.num_samples(); ++k) worst = std::max(worst, std::abs(energy_balance(r, k).residual));
  EXPECT_LT(worst, 1e-6 * e.input);
  EXPECT_GT(e.input, 0.5);
}

// A massless frictionless node joining three bodies (a differential-like Y
// junction) is not reduced by any theorem: its angle solves the PL torque
// balance at every evaluation. The model with the node's inertia scaled down
// converges to it (measured 2.6e-3, 3.2e-4, 3.9e-5 rad over 0.3 s for 1e-3, 1e-5, 1e-7: about the
// square root of the inertia: the node's undamped fast vibration), and energy balances.
ModelSpec y_junction(double node_inertia) {
  ModelSpec spec;
  spec.bodies = {body("a", 0.02), body("node", node_inertia), body("b", 0.05), body("c", 0.03)};
  spec.elements = {spring("arm_a", "a", "node", 300.0, 0.01), spring("arm_b", "node", "b", 200.0, 0.02, 1.5),
                   spring("arm_c", "node", "c", 100.0, 0.005, -0.5), friction("brg_a", "a", "", 0.05, 0.001),
                   friction("brg_b", "b", "", 0.2, 0.002), friction("brg_c", "c", "", 0.1, 0.002),
                   torque("drive", "a", sine(1.0, 2.0))};
  spec.simulation = settings(0.3, 1e-3, 1e-9, 1e-11);
  return spec;
}

TEST(Massless, JunctionOfThreeSpringsSolvedAsPiecewiseLinearSystem) {
  const Model m = assemble(y_junction(0.0));
  ASSERT_EQ(m.algebraic_groups.size(), 1u);
  ASSERT_NE(m.reductions.back().find("piecewise-linear torque balance"), std::string::npos);
  const Result r0 = simulate(m);
  ASSERT_EQ(r0.status, StepStatus::reached_time) << r0.message;
  // the node's springs balance at every sample: sum of torques on the node = 0
  for (int k = 0; k < r0.num_samples(); ++k) {
    // arm_a acts +T on the node (its body b), arm_b and arm_c act -T (node is their body a)
    const double on_node = element_torque(r0, k, 0) - element_torque(r0, k, 1) - element_torque(r0, k, 2);
    EXPECT_NEAR(on_node, 0.0, 1e-9) << "t = " << r0.time[k];
  }
  const EnergyBalance e = energy_balance(r0, r0.num_samples() - 1);
  EXPECT_GT(e.input, 0.01);
  EXPECT_LT(std::abs(e.residual), 1e-6 * e.input);
  double previous = 1e300;
  for (double eps : {1e-3, 1e-5, 1e-7}) {
    const Result r = simulate(assemble(y_junction(eps)));
    double worst = 0.0;
    for (int body : {0, 2, 3})
      for (int k = 0; k < r.num_samples(); ++k) worst = std::max(worst, std::abs(angle(r, k, body) - angle(r0, k, body)));
    EXPECT_LT(worst, previous) << "node inertia " << eps;
    std::printf("node inertia %g: largest angle difference %.3e rad, %ld steps, %.2f s\n", eps, worst, r.stats.steps,
                r.stats.wall_time);
    previous = worst;
  }
  EXPECT_LT(previous, 1e-4);
}

// Outputs of elements a rigid merge carries onto another body read as the
// model file wrote them (Model::element_output_scale). The wheel g (0.1 kg m^2)
// is geared to the motor m (1 kg m^2) by q_m = -3 q_g and merged into m
// (q_g = -m/3): the drive of 3 N m on g acts as -1 N m on m, its output stays
// 3 N m; the shaft g-w (k 50, freeplay 0.05) reads 50 luz(q_g - q_w, 0.05)
// with its side the sign of q_g - q_w outside the gap; the bearing on g
// (MT0 0.2) opposes w_g = -w_m / 3 with its slip state the sign of w_g, and its
// torque 0.2 N m (not the reflected 0.6). Before, every one of them read in
// m's terms: -1/3 of the shaft's torque, 1 N m of drive, signs reversed.
TEST(Reduce, MergedElementsReportTheirOutputsAsWritten) {
  const ModelSpec spec = io::parse_model_spec(R"(
simulation: {t_end: 2.0, output_step: 0.01, rtol: 1.0e-10, atol: 1.0e-12}
bodies:
  m: {inertia: 1.0}
  g: {inertia: 0.1}
  w: {inertia: 0.5}
elements:
  gear: {type: spring, bodies: [m, g], stiffness: .inf, ratio: -3}
  shaft: {type: spring, bodies: [g, w], stiffness: 50, freeplay: 0.05}
  bearing: {type: friction, body: g, coulomb: 0.2}
  drive: {type: torque, body: g, torque: {sine: {amplitude: 3, frequency: 1}}}
)", "merged.yaml", ".");
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    ModelSpec run = spec;
    run.simulation.integrator = integrator;
    const Model model = assemble(run);
    ASSERT_EQ(model.num_bodies(), 2);  // g merged into m
    const Result r = simulate(model);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const int m = model.body_index("m"), w = model.body_index("w");
    auto id = [&](const char* name) {
      return static_cast<int>(std::find(model.element_names.begin(), model.element_names.end(), name) -
                              model.element_names.begin());
    };
    const int shaft_id = id("shaft"), bearing = id("bearing"), drive = id("drive");
    ASSERT_EQ(model.num_elements(), 3);  // the rigid gear is gone
    int slipping = 0, outside = 0;
    for (int k = 0; k < r.num_samples(); ++k) {
      const double qg = angle(r, k, m) / -3.0, wg = velocity(r, k, m) / -3.0, x = qg - angle(r, k, w);
      const double t = r.time[static_cast<std::size_t>(k)];
      EXPECT_NEAR(element_torque(r, k, drive), 3.0 * std::sin(2.0 * std::numbers::pi * t), 1e-12) << integrator << " " << t;
      EXPECT_NEAR(element_torque(r, k, shaft_id), 50.0 * luz(x, 0.05), 1e-9) << integrator << " " << t;
      // coordinates as written too: the shaft's q_g - q_w, the bearing's and
      // the drive's body g (not m), their powers T x' and -T w_g
      const auto at = [&](const std::vector<double>& v, int e) { return v[static_cast<std::size_t>(k * 3 + e)]; };
      EXPECT_NEAR(at(r.element_relative, shaft_id), x, 1e-12) << integrator << " " << t;
      EXPECT_NEAR(at(r.element_relative_velocity, shaft_id), wg - velocity(r, k, w), 1e-12) << integrator << " " << t;
      EXPECT_NEAR(at(r.element_relative, drive), qg, 1e-12) << integrator << " " << t;
      EXPECT_NEAR(at(r.element_relative_velocity, bearing), wg, 1e-12) << integrator << " " << t;
      EXPECT_NEAR(at(r.element_power, drive), -element_torque(r, k, drive) * wg, 1e-12) << integrator << " " << t;
      EXPECT_NEAR(at(r.element_power, bearing), element_torque(r, k, bearing) * wg, 1e-12) << integrator << " " << t;
      if (std::abs(x) > 0.05 + 1e-9) {
        ++outside;
        EXPECT_EQ(element_state(r, k, shaft_id), x > 0 ? 1 : -1) << integrator << " " << t;
      }
      if (element_state(r, k, bearing) != 0) {
        ++slipping;
        EXPECT_EQ(element_state(r, k, bearing), wg > 0 ? 1 : -1) << integrator << " " << t;
        EXPECT_NEAR(element_torque(r, k, bearing), 0.2 * element_state(r, k, bearing), 1e-12) << integrator << " " << t;
      }
    }
    EXPECT_GT(slipping, 50) << integrator;  // the checks above did run
    EXPECT_GT(outside, 20) << integrator;
    // The log's states read as written too: between a shaft event and its
    // next one, every sample shows the first one's `after`.
    std::vector<EventRecord> shaft;
    for (const EventRecord& e : r.events)
      if (e.element == shaft_id) shaft.push_back(e);
    int checked = 0;
    for (std::size_t j = 0; j + 1 < shaft.size(); ++j)
      for (int k = 0; k < r.num_samples(); ++k) {
        const double t = r.time[static_cast<std::size_t>(k)];
        if (t <= shaft[j].t || t >= shaft[j + 1].t) continue;
        EXPECT_EQ(element_state(r, k, shaft_id), shaft[j].after) << integrator << " " << t;
        ++checked;
      }
    EXPECT_GT(checked, 20) << integrator;
  }
}

// Rigidly merged bodies are reported, after the model's bodies, as they move
// through the body they joined: a chain c -(ratio 2)- b -(ratio -3)- a merges
// c into b and then b into a (q_c = 2 q_b = -6 q_a after composing), and a
// wheel fixed to the base by a rigid spring reads 0. Their angles,
// velocities and accelerations are those of the kept body times the factor,
// in every solver, and a sweep metric or a Simulator output can name them.
// Before, they were absent from every output ("the model has no body 'c'").
TEST(Reduce, MergedBodiesAreReportedThroughTheBodyTheyJoin) {
  const ModelSpec spec = io::parse_model_spec(R"(
simulation: {t_end: 1.0, output_step: 0.01}
bodies:
  c: {inertia: 0.01, velocity: -6.0}
  a: {inertia: 1.0, velocity: 1.0}
  b: {inertia: 0.1, velocity: -3.0}
  fixed: {inertia: 0.2}
  w: {inertia: 0.5}
elements:
  gear_cb: {type: spring, bodies: [c, b], stiffness: .inf, ratio: 2}
  gear_ba: {type: spring, bodies: [b, a], stiffness: .inf, ratio: -3}
  shaft: {type: spring, bodies: [a, w], stiffness: 40}
  lock: {type: spring, body: fixed, stiffness: .inf}
  drive: {type: torque, body: c, torque: {sine: {amplitude: 0.5, frequency: 2}}}
)", "chain.yaml", ".");
  for (const char* solver : {"exact", "cvode_bdf", "time_stepping"}) {
    ModelSpec run = spec;
    if (std::string(solver) == "time_stepping") {
      run.simulation.solver = "time_stepping";
      run.simulation.step = 1e-4;
    } else {
      run.simulation.integrator = solver;
    }
    const Model model = assemble(run);
    ASSERT_EQ(model.num_bodies(), 2) << solver;  // a and w
    const Result r = simulate(model);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.body_names, (std::vector<std::string>{"a", "w", "c", "b", "fixed"})) << solver;
    const auto of = [&](const std::vector<double>& v, int k, int j) { return v[static_cast<std::size_t>(k * 5 + j)]; };
    for (int k = 0; k < r.num_samples(); ++k)
      for (const std::vector<double>* v : {&r.angle, &r.velocity, &r.acceleration}) {
        EXPECT_EQ(of(*v, k, 2), -6.0 * of(*v, k, 0)) << solver;  // c
        EXPECT_EQ(of(*v, k, 3), -3.0 * of(*v, k, 0)) << solver;  // b
        EXPECT_EQ(of(*v, k, 4), 0.0) << solver;                  // fixed
      }
    EXPECT_NEAR(r.velocity[0], 1.0, 1e-15) << solver;  // a's initial velocity (b's -3 agrees with it)
  }
  // named by a Simulator output and a metric's signal path
  const Model model = assemble(spec);
  Simulator sim(model);
  ASSERT_EQ(sim.advance_to(0.5), StepStatus::reached_time) << sim.message();
  EXPECT_EQ(sim.value(sim.output("bodies.c.velocity")), -6.0 * sim.value(sim.output("bodies.a.velocity")));
  EXPECT_EQ(sim.value(sim.output("b.angle")), -3.0 * sim.value(sim.output("a.angle")));
}

// models/gear_train_simplification3.yaml: the rigid mesh merges delta into
// gamma (delta = 2 gamma), then gamma, massless between shaft_in (200 N m/rad
// on psi - delta) and shaft_out (400 N m/rad on gamma - phi), is eliminated.
// Both are bodies of the file and are reported with the motion the balance
// gives them: 2 * 200 (psi - 2 gamma) = 400 (gamma - phi), so gamma = (psi +
// phi) / 3 and delta = 2 gamma, and their rates alike. Before, gamma was
// reported nowhere and delta (its carrier gone) as fixed at 0 all the run.
TEST(Reduce, AGearMergedIntoAnEliminatedWheelMovesWithTheSpringBalance) {
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    const Model m = io::load_model(LUZTAR_MODELS_DIR "/gear_train_simplification3.yaml",
                                   {{"simulation.integrator", integrator, "test"}});
    ASSERT_EQ(m.reported_body_names, (std::vector<std::string>{"psi", "phi", "delta", "gamma"}));
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.body_names, m.reported_body_names);
    const auto acc = [&](int k, int j) { return r.acceleration[static_cast<std::size_t>(k * 4 + j)]; };
    double turned = 0.0;
    for (int k = 0; k < r.num_samples(); ++k) {
      const double psi = angle(r, k, 0), phi = angle(r, k, 1), delta = angle(r, k, 2), gamma = angle(r, k, 3);
      const double tol = 1e-12 * (1.0 + std::abs(psi) + std::abs(phi));
      EXPECT_NEAR(gamma, (psi + phi) / 3.0, tol) << integrator << " t = " << r.time[k];
      EXPECT_NEAR(delta, 2.0 * gamma, tol) << integrator << " t = " << r.time[k];
      // the torques of the springs as written balance at gamma (p = 2)
      EXPECT_NEAR(2.0 * 200.0 * (psi - delta), 400.0 * (gamma - phi), 400.0 * tol) << integrator;
      const double wtol = 1e-12 * (1.0 + std::abs(velocity(r, k, 0)) + std::abs(velocity(r, k, 1)));
      EXPECT_NEAR(velocity(r, k, 3), (velocity(r, k, 0) + velocity(r, k, 1)) / 3.0, wtol) << integrator;
      EXPECT_NEAR(velocity(r, k, 2), 2.0 * velocity(r, k, 3), wtol) << integrator;
      const double atol = 1e-12 * (1.0 + std::abs(acc(k, 0)) + std::abs(acc(k, 1)));
      EXPECT_NEAR(acc(k, 3), (acc(k, 0) + acc(k, 1)) / 3.0, atol) << integrator;
      EXPECT_NEAR(acc(k, 2), 2.0 * acc(k, 3), atol) << integrator;
      turned = std::max(turned, std::abs(delta));
    }
    EXPECT_GT(turned, 10.0) << integrator;  // 17.8 rad: not a comparison of zeros
    // the Simulator reads them alike, by name
    Simulator sim(m);
    ASSERT_EQ(sim.advance_to(r.time.back()), StepStatus::reached_time);
    const std::vector<double> q = sim.body_angles(), w = sim.body_velocities();
    ASSERT_EQ(q.size(), 4u);
    EXPECT_NEAR(sim.value(sim.output("delta.angle")), 2.0 * (q[0] + q[1]) / 3.0, 1e-10) << integrator;
    EXPECT_NEAR(sim.value(sim.output("gamma.velocity")), (w[0] + w[1]) / 3.0, 1e-10) << integrator;
  }
}

// The same train unreduced: gamma and delta given inertias eps (delta, merged
// into gamma, 4 eps reflected) and run by cvode_bdf at rtol 1e-10. Their
// angles approach the reported balance of the reduced run as eps -> 0, at the
// first order of eps (the lag of an inertia behind its springs' balance):
// 2.04e-3 rad at 1e-5, 2.05e-5 rad at 1e-7 measured.
TEST(Reduce, TheEliminatedWheelsMotionIsTheLimitOfTheUnreducedTrain) {
  std::vector<io::FieldOverride> o = {{"simulation.t_end", "1.0", "test"}};
  const Model reduced = io::load_model(LUZTAR_MODELS_DIR "/gear_train_simplification3.yaml", o);
  const Result r0 = simulate(reduced);
  ASSERT_EQ(r0.status, StepStatus::reached_time) << r0.message;
  double previous = 1e300;
  for (const char* eps : {"1.0e-5", "1.0e-7"}) {
    std::vector<io::FieldOverride> full = o;
    full.push_back({"bodies.delta.inertia", eps, "test"});
    full.push_back({"bodies.gamma.inertia", eps, "test"});
    full.push_back({"simulation.integrator", "cvode_bdf", "test"});
    full.push_back({"simulation.rtol", "1.0e-10", "test"});
    full.push_back({"simulation.atol", "1.0e-12", "test"});
    const Model m = io::load_model(LUZTAR_MODELS_DIR "/gear_train_simplification3.yaml", full);
    ASSERT_EQ(m.num_bodies(), 3);  // psi, phi, gamma (delta merged)
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.num_samples(), r0.num_samples());
    double worst = 0.0;
    for (const char* name : {"delta", "gamma"}) {
      const auto at = [](const Result& x, const std::string& n) {
        return static_cast<int>(std::find(x.body_names.begin(), x.body_names.end(), n) - x.body_names.begin());
      };
      const int jf = at(r, name), jr = at(r0, name);
      ASSERT_LT(jr, r0.num_bodies()) << name;
      for (int k = 0; k < r.num_samples(); ++k) worst = std::max(worst, std::abs(angle(r, k, jf) - angle(r0, k, jr)));
    }
    std::printf("eps %s: largest difference of delta and gamma %.3g rad\n", eps, worst);
    EXPECT_LT(worst, 0.02 * previous) << "eps = " << eps;  // 100 times smaller eps: 100 times closer
    previous = worst;
  }
  EXPECT_LT(previous, 3e-5);
}

// A massless node m between gap springs s1 (a - m, 100 N m/rad, freeplay 0.1)
// and s2 (m - b, 300 N m/rad, freeplay 0.05), and a massless tip on one
// spring without a gap (b - tip, no torque: tip = b). In contact (|a - b| >
// 0.15) the common torque is T = 75 (a - b -+ 0.15) and m = b +- 0.05 + T/300,
// m' = (100 a' + 300 b')/400; inside both gaps m is anywhere in an interval:
// NaN, never a plausible number.
TEST(Reduce, EliminatedMasslessBodiesAreReportedFromTheirSpringsOrAsUndetermined) {
  const Model m = io::parse_model(R"(
simulation: {t_end: 1.0, output_step: 0.01}
bodies:
  a: {inertia: 1.0}
  m: {inertia: 0}
  b: {inertia: 2.0}
  tip: {inertia: 0}
elements:
  s1: {type: spring, bodies: [a, m], stiffness: 100, freeplay: 0.1}
  s2: {type: spring, bodies: [m, b], stiffness: 300, freeplay: 0.05}
  s3: {type: spring, bodies: [b, tip], stiffness: 50}
)", "node.yaml", ".");
  ASSERT_EQ(m.reported_body_names, (std::vector<std::string>{"a", "b", "m", "tip"}));
  const auto at = [&](double qa, double qb, double wa, double wb) {
    const double q[2] = {qa, qb}, w[2] = {wa, wb};
    std::vector<double> angle(4), rate(4);
    reported_bodies(m, q, w, angle.data(), rate.data());
    return std::pair{angle, rate};
  };
  {
    const auto [q, w] = at(1.0, 0.0, 2.0, 0.0);
    EXPECT_NEAR(q[2], 0.05 + 75.0 * 0.85 / 300.0, 1e-15);  // 0.2625
    EXPECT_NEAR(w[2], 100.0 * 2.0 / 400.0, 1e-15);
    EXPECT_EQ(q[3], 0.0);
    EXPECT_EQ(w[3], 0.0);
  }
  {
    const auto [q, w] = at(-1.0, 0.5, 0.0, 4.0);
    EXPECT_NEAR(q[2], 0.5 - 0.05 + 75.0 * (-1.5 + 0.15) / 300.0, 1e-15);  // 0.1125
    EXPECT_NEAR(w[2], 300.0 * 4.0 / 400.0, 1e-15);
    EXPECT_EQ(q[3], 0.5);
    EXPECT_EQ(w[3], 4.0);
  }
  {
    const auto [q, w] = at(0.1, 0.0, 1.0, 0.0);  // inside both gaps: m anywhere in [0, 0.05]
    EXPECT_TRUE(std::isnan(q[2]));
    EXPECT_TRUE(std::isnan(w[2]));
    EXPECT_EQ(q[3], 0.0);
  }
  // a run reports them so
  const Result r = simulate(m);
  ASSERT_EQ(r.body_names, m.reported_body_names);
}

}  // namespace
}  // namespace luztar
