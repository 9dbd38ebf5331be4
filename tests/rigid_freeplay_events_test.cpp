// Rigid freeplay run by the event-driven solver: the teeth meeting is a CVODE
// event, the velocities jump by the impulse LCP of seed 002 (eq. 12-14), a
// contact that stays is a ratio link of the locked clusters, and it lets go
// where its contact torque reaches zero. Every check is against a closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <utility>
#include <vector>

#include "core/energy.hpp"
#include "core/metrics.hpp"
#include "elements/kinds.hpp"
#include "io/yaml_model.hpp"
#include "model_builder.hpp"
#include "solvers/impacts.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

using test::body;
using test::torque;

SpringSpec rigid_freeplay(std::string name, std::string a, std::string b, double gap, double e, double ratio = 1.0) {
  SpringSpec s = test::spring(std::move(name), std::move(a), std::move(b), INFINITY, gap);
  s.restitution = e;
  s.ratio = ratio;
  return s;
}

std::vector<EventRecord> of_kind(const std::vector<EventRecord>& events, EventKind kind) {
  std::vector<EventRecord> out;
  for (const EventRecord& e : events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

// Teeth that meet at t_start: body a (I 1, 1 rad/s) starts on the + flank of
// a rigid freeplay to body b (I 2, at rest), e = 0.5. The impact at t = 0
// leaves w_a = (1 - 2 e)/3 = 0, w_b = (1 + e)/3 = 0.5 and loses
// (1 - e^2) mu u^2 / 2 = 0.25 J (mu = 2/3, u = 1); b crosses the gap of 0.2
// and strikes again at t = 0.4 (approach 0.5 rad/s: loses 0.0625 J). The run
// dissipates 0.3125 J of the initial 0.5 J: the balance, the `energy`
// metrics over the run and the element's share all count the impact at
// t_start (sample 0 is the state after it; they counted from there, 0.0625 J).
TEST(RigidFreeplayEvents, AnImpactAtTStartCountsInTheEnergyBalanceAndMetrics) {
  ModelSpec spec;
  spec.bodies = {body("a", 1.0, 0.1, 1.0), body("b", 2.0)};
  spec.elements = {rigid_freeplay("gap", "a", "b", 0.1, 0.5)};
  spec.simulation = test::settings(1.0, 0.01);
  const Model model = assemble(spec);
  const Result r = simulate(model);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.stats.impacts, 2);
  EXPECT_EQ(r.stats.events, 2);  // two instants: t_start's impact counts too
  const int last = r.num_samples() - 1;
  const EnergyBalance b = energy_balance(r, last);
  EXPECT_NEAR(b.dissipated, 0.3125, 1e-12);
  EXPECT_NEAR(b.kinetic_change, -0.3125, 1e-12);
  EXPECT_NEAR(b.input, 0.0, 1e-15);
  EXPECT_LT(b.relative, 1e-12);
  EXPECT_NEAR(kinetic_at_start(r), 0.5, 1e-15);
  std::vector<MetricSpec> metrics(3);
  metrics[0].kind = metrics[1].kind = metrics[2].kind = MetricSpec::Kind::energy;
  metrics[0].signal = "dissipated";
  metrics[1].signal = "elements.gap.dissipated";
  metrics[2].signal = "kinetic";
  const std::vector<double> v = compute_metrics(metrics, r);
  EXPECT_NEAR(v[0], 0.3125, 1e-12);
  EXPECT_NEAR(v[1], 0.3125, 1e-12);
  EXPECT_NEAR(v[2], -0.3125, 1e-12);
}

// Input work - (stored energy gained) - dissipated, since t_start.
double energy_residual(const Model& m, const State& s) {
  const double stored0 = kinetic_energy(m, m.velocity0) + elastic_energy(m, m.angle0);
  return s.input_work - (kinetic_energy(m, s.w) + elastic_energy(m, s.q) - stored0) - s.dissipated;
}

// A contact carrying no torque when another element's event pulls its teeth
// apart parts at that instant, whatever the output grid. Body a (I 1, 1
// rad/s) strikes b (I 1, at rest) plastically through rigid teeth (gap 0.1)
// at 0.1 s: both at 0.5 rad/s, the contact carrying 0. At 0.5 s (q_a 0.3,
// q_b 0.2) a touches a stop to the base (k 100, gap 0.3) at zero
// deflection: its torque rises from 0 and the teeth must part there (they
// parted at the next output point: 0.6 s on a 0.1 s grid, 0.56 s on 0.07).
// a leaves the stop at 0.5 + pi/10 at -0.5 rad/s, x = 0.1 - 0.05 pi closes
// at 1 rad/s to -0.1, and the plastic strike there stops both: q_b =
// 0.3 + 0.025 pi, q_a = q_b - 0.1, w = 0.
TEST(RigidFreeplayEvents, AContactCarryingNothingPartsAtAnotherElementsEvent) {
  for (const char* integrator : {"exact", "cvode_bdf"})
    for (const double step : {0.1, 0.07}) {
      SCOPED_TRACE(std::string(integrator) + " " + std::to_string(step));
      ModelSpec spec;
      spec.bodies = {body("a", 1.0, 0.0, 1.0), body("b", 1.0)};
      spec.elements = {rigid_freeplay("teeth", "a", "b", 0.1, 0.0), test::spring("stop", "a", "", 100.0, 0.3)};
      spec.simulation = test::settings(1.0, step, 1e-11);
      spec.simulation.integrator = integrator;
      const Result r = simulate(assemble(spec));
      ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
      const std::vector<EventRecord> parts = of_kind(r.events, EventKind::separation);
      ASSERT_EQ(parts.size(), 2u);  // the teeth at 0.5 s, a off the stop at 0.5 + pi/10
      EXPECT_NEAR(parts[0].t, 0.5, 1e-9);
      EXPECT_EQ(r.element_names[parts[0].element], "teeth");
      const double tol = integrator == std::string("exact") ? 1e-12 : 1e-8;
      const std::size_t last = static_cast<std::size_t>(r.num_samples() - 1) * 2;
      EXPECT_NEAR(r.angle[last + 1], 0.3 + 0.025 * M_PI, tol);
      EXPECT_NEAR(r.angle[last], 0.2 + 0.025 * M_PI, tol);
      EXPECT_NEAR(r.velocity[last], 0.0, tol);
      EXPECT_NEAR(r.velocity[last + 1], 0.0, tol);
    }
}

// Teeth whose contact torque passes through 0 part at that instant, on any
// output grid. b (0.0075, at 1 rad/s) closes a rigid gap of 0.0145 onto c
// (0.0904, at rest, on a spring k = 10 and a viscous bearing d = 0.1 to the
// base) at t = 0.0145 and sticks to it (e = 0); together they ring as
// J q'' + d q' + k q = 0 (J = 0.0979, q = c's angle), and the contact torque on
// b, -I_b q'', is 0 where d q' + k q = 0: tan(w tau) = -d w / (k - d s)
// (s = d / 2J, w^2 = k / J - s^2). At that root every torque on the two bodies
// is 0 as well, so the selection read the contact torque (5e-19) against no
// scale of its own and kept the teeth together, pulling, until the next
// output sample: on grids of 0.1, 0.03, 0.025, 0.003 s they parted at 0.4,
// 0.33, 0.325, 0.318 s (exact). A contact's torque scale is now the one from
// the restart before.
// The one separation of `spec`'s teeth at `parts_at` on several output grids,
// with both integrators (exact to 1e-12 s, cvode_adams to 1e-8 s).
void expect_one_separation_at(ModelSpec spec, double t_end, double parts_at) {
  for (const char* integrator : {"exact", "cvode_adams"})
    for (const double step : {0.1, 0.03, 0.025, 0.01, 0.003, 0.001}) {
      SCOPED_TRACE(std::string(integrator) + " " + std::to_string(step));
      spec.simulation = test::settings(t_end, step, 1e-12, 1e-14);
      spec.simulation.integrator = integrator;
      const Result r = simulate(assemble(spec));
      ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
      const std::vector<EventRecord> parts = of_kind(r.events, EventKind::separation);
      ASSERT_EQ(parts.size(), 1u);
      EXPECT_NEAR(parts[0].t, parts_at, integrator == std::string("exact") ? 1e-12 : 1e-8);
    }
}

TEST(RigidFreeplayEvents, AContactUnloadingThroughZeroPartsAtItsRoot) {
  const double Ib = 0.0075, Ic = 0.0904, gap = 0.0145, k = 10.0, d = 0.1, J = Ib + Ic;
  const double sigma = d / (2.0 * J), omega = std::sqrt(k / J - sigma * sigma);
  const double parts_at = gap + (M_PI - std::atan(d * omega / (k - d * sigma))) / omega;
  ModelSpec spec;
  spec.bodies = {body("b", Ib, 0.0, 1.0), body("c", Ic)};
  spec.elements = {rigid_freeplay("teeth", "b", "c", gap, 0.0), test::spring("k", "c", "", k),
                   test::friction("brg", "c", "", 0.0, d)};
  expect_one_separation_at(spec, 0.5, parts_at);
}

// The same with a torque tau = 0.3 on b (0.05, at 1 rad/s) and c (0.0904) on
// a spring k = 37 alone: b closes the gap at t_i (0.0145 = t + 3 t^2), both
// move on at v = I_b (1 + 6 t_i) / J, q = c's angle = tau/k (1 - cos w u) +
// v/w sin w u (u = t - t_i, w^2 = k / J), and b's contact torque
// tau I_c / J + I_b k q / J is 0 where q = -tau I_c / (I_b k). CVODE parted
// them at the 0.3 s sample of a 0.01 s grid.
TEST(RigidFreeplayEvents, ADrivenContactUnloadingThroughZeroPartsAtItsRoot) {
  const double Ib = 0.05, Ic = 0.0904, gap = 0.0145, k = 37.0, tau = 0.3, J = Ib + Ic;
  const double ti = (std::sqrt(1.0 + 12.0 * gap) - 1.0) / 6.0, v = Ib * (1.0 + 6.0 * ti) / J;
  const double omega = std::sqrt(k / J);
  const auto torque_on_b = [&](double u) {
    const double q = tau / k * (1.0 - std::cos(omega * u)) + v / omega * std::sin(omega * u);
    return tau * Ic / J + Ib * k * q / J;
  };
  double lo = 0.1, hi = 0.35;  // (the torque falls through 0 once in between)
  ASSERT_GT(torque_on_b(lo - ti), 0.0);
  ASSERT_LT(torque_on_b(hi - ti), 0.0);
  for (int i = 0; i < 200; ++i) ((torque_on_b(0.5 * (lo + hi) - ti) > 0.0) ? lo : hi) = 0.5 * (lo + hi);
  ModelSpec spec;
  spec.bodies = {body("b", Ib, 0.0, 1.0), body("c", Ic)};
  spec.elements = {rigid_freeplay("teeth", "b", "c", gap, 0.0), test::spring("k", "c", "", k),
                   torque("drive", "b", Signal::make_constant(tau))};
  expect_one_separation_at(spec, 0.35, lo);
}

// How the impact LCP was solved is counted, not dropped. A free body (no
// torque) at q = 0 moving at -1 rad/s strikes a stop |q| <= 0.01 at t = 0.01
// and leaves at +e = +0.5 rad/s. Lemke solves the 1x1 LCP (A = 1/I,
// q = -(1 + e)) at any inertia scale: its pivot tolerance follows the
// column's size (with an absolute one, I = 1e13 made 1/I = 1e-13 look like
// zero and fell back to projected Gauss-Seidel). So no fallback is counted,
// and the rebound and the loss are the closed form.
TEST(RigidFreeplayEvents, ImpactLcpIsSolvedByLemkeAtAnyInertiaScale) {
  for (const double I : {1e-13, 1.0, 1e13}) {
    ModelSpec spec;
    spec.bodies = {body("b", I, 0.0, -1.0)};
    spec.elements = {rigid_freeplay("stop", "b", "", 0.01, 0.5)};
    spec.simulation = test::settings(0.02, 0.005);
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    EXPECT_EQ(r.stats.impacts, 1) << I;
    EXPECT_EQ(r.stats.impact_fallbacks, 0) << I;
    EXPECT_EQ(r.stats.impacts_unsolved, 0) << I;
    EXPECT_NEAR(r.velocity.back(), 0.5, 1e-12) << I;
    EXPECT_NEAR(r.angle.back(), -0.005, 1e-10) << I;
    EXPECT_NEAR(r.stats.impact_loss, 0.5 * I * (1.0 - 0.25), 1e-9 * I) << I;
  }
}
// A body in a rigid gap |q| <= a to the base, pushed from q = -a at rest by a
// constant torque tau (alpha = tau / I). Impact n arrives at t_n with
// v_n = e^(n-1) v1 (t1 = sqrt(4 a / alpha), v1 = alpha t1), leaves with -e v_n
// and flies 2 e v_n / alpha; the impacts accumulate at
// t_rest = t1 + 2 e v1 / (alpha (1 - e)). Each dissipates (1 - e^2) I v_n^2 / 2,
// the plastic one that ends the sequence the rest: in all I v1^2 / 2 = 2 a tau.
// Then the body rests on the stop, the contact torque carrying tau, until the
// torque, ramped down through 0 at t_off, lets it go there.
TEST(RigidFreeplayEvents, BouncesToRestAgainstTheClosedForm) {
  const double I = 0.01, tau = 0.1, a = 0.01, e = 0.8, t_off = 0.8;
  ModelSpec spec;
  spec.bodies = {body("b", I, -a)};
  spec.elements = {rigid_freeplay("stop", "b", "", a, e),
                   torque("push", "b", test::ramp(0.7, 0.9, tau, -tau))};
  spec.simulation = test::settings(1.0, 1e-3);
  const Model m = assemble(spec);
  const double alpha = tau / I, t1 = std::sqrt(4 * a / alpha), v1 = alpha * t1;
  const double t_rest = t1 + 2 * e * v1 / (alpha * (1 - e));

  Simulator sim(m);
  double t_n = t1, v_n = v1;
  for (int n = 1; n <= 12; ++n) {
    // A quarter into the flight after impact n: w = -e v_n + alpha (flight / 4) = -e v_n / 2.
    const double flight = 2 * e * v_n / alpha;
    ASSERT_EQ(sim.advance_to(t_n + flight / 4), StepStatus::reached_time) << sim.message();
    EXPECT_NEAR(sim.state().w[0], -e * v_n / 2, 1e-7 * v1) << "impact " << n;
    EXPECT_NEAR(sim.stats().impact_loss, 0.5 * I * v1 * v1 * (1 - std::pow(e, 2 * n)), 1e-8 * I * v1 * v1)
        << "impact " << n;
    t_n += flight;
    v_n *= e;
  }
  ASSERT_EQ(sim.advance_to(0.7), StepStatus::reached_time) << sim.message();
  const std::vector<EventRecord> impacts = of_kind(sim.events(), EventKind::impact);
  ASSERT_GE(impacts.size(), 12u);
  t_n = t1;
  v_n = v1;
  for (int n = 0; n < 12; ++n) {
    EXPECT_NEAR(impacts[n].t, t_n, 1e-8) << "impact " << n + 1;
    EXPECT_EQ(impacts[n].before, 1);
    EXPECT_EQ(impacts[n].after, 0) << "a rebound";
    t_n += 2 * e * v_n / alpha;
    v_n *= e;
  }
  // Finitely many impacts: the sequence stops with a plastic impact once the
  // rebound flight would rise less than the integrator resolves off the
  // flank (Integrator::resolution), depth = 1000 (atol + rtol a) for CVODE
  // and 1000 times the angles' roundoff, 16 eps (a + |q| = 2 a), for exact
  // (rebound speed sqrt(2 alpha depth)), or the rebound is slower than
  // rest_velocity; the flights cut off would have lasted
  // 2 e v / (alpha (1 - e)) more.
  const bool exact = std::string(sim.integrator_name()) == "exact";
  const double depth = exact ? 1e3 * 16 * std::numeric_limits<double>::epsilon() * 2 * a
                             : 1e3 * (m.simulation.atol + m.simulation.rtol * a);
  const double v_cut = std::max(std::sqrt(2 * alpha * depth), m.simulation.rest_velocity);
  const double n_cut = std::log(v_cut / v1) / std::log(e);
  EXPECT_NEAR(static_cast<double>(impacts.size()), n_cut + 1, 1.5);
  EXPECT_EQ(impacts.back().after, 1) << "the last impact is plastic";
  const std::vector<EventRecord> contacts = of_kind(sim.events(), EventKind::contact);
  ASSERT_EQ(contacts.size(), 1u) << "the sequence ends in a persistent contact";
  EXPECT_LE(contacts[0].t, t_rest);
  EXPECT_GE(contacts[0].t, t_rest - 2 * v_cut / (alpha * (1 - e)) / e);
  EXPECT_EQ(sim.stats().missed_strikes, 0);
  EXPECT_NEAR(sim.stats().impact_loss, 2 * a * tau, 1e-7 * 2 * a * tau);
  // Resting on the stop: exactly at +a, at rest, the contact torque equal to tau.
  EXPECT_EQ(sim.state().spring_side[0], 1);
  EXPECT_NEAR(sim.state().q[0], a, 1e-12);
  EXPECT_EQ(sim.state().w[0], 0.0);
  EXPECT_NEAR(sim.value(sim.output("stop.torque")), tau, 1e-12);
  EXPECT_LT(std::abs(energy_residual(m, sim.state())), 1e-7 * 2 * a * tau);
  // The torque falls through 0 at t_off: the contact lets go exactly there,
  // and the body follows the torque -slope (t - t_off) away from the flank.
  ASSERT_EQ(sim.advance_to(0.85), StepStatus::reached_time) << sim.message();
  const std::vector<EventRecord> separations = of_kind(sim.events(), EventKind::separation);
  ASSERT_EQ(separations.size(), 1u);
  EXPECT_NEAR(separations[0].t, t_off, 1e-9);
  const double slope = 2 * tau / 0.2, s = 0.85 - t_off;
  EXPECT_NEAR(sim.state().w[0], -slope * s * s / (2 * I), 1e-8);
  EXPECT_NEAR(sim.state().q[0], a - slope * s * s * s / (6 * I), 1e-9);
  EXPECT_LT(std::abs(energy_residual(m, sim.state())), 1e-7 * 2 * a * tau);
}

// The impact times converge to the closed form as the tolerances shrink (the
// error of each flight adds up along the sequence).
TEST(RigidFreeplayEvents, ImpactTimesConvergeWithTheTolerance) {
  const double I = 0.01, tau = 0.1, a = 0.01, e = 0.8;
  ModelSpec spec;
  spec.bodies = {body("b", I, -a)};
  spec.elements = {rigid_freeplay("stop", "b", "", a, e), torque("push", "b", Signal::make_constant(tau))};
  const double alpha = tau / I, t1 = std::sqrt(4 * a / alpha), v1 = alpha * t1;
  auto worst = [&](double rtol) {
    spec.simulation = test::settings(0.56, 0.01, rtol, 1e-14);
    spec.simulation.integrator = "cvode_bdf";  // a convergence in CVODE's tolerance
    const Result r = simulate(assemble(spec));
    EXPECT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<EventRecord> impacts = of_kind(r.events, EventKind::impact);
    EXPECT_GE(impacts.size(), 15u);
    double t_n = t1, v_n = v1, err = 0.0;
    for (std::size_t n = 0; n < 15 && n < impacts.size(); ++n) {
      err = std::max(err, std::abs(impacts[n].t - t_n));
      t_n += 2 * e * v_n / alpha;
      v_n *= e;
    }
    return err;
  };
  const double coarse = worst(1e-8), fine = worst(1e-10), finest = worst(1e-12);
  EXPECT_LT(coarse, 1e-6);
  EXPECT_LT(fine, coarse / 30);
  EXPECT_LT(finest, fine / 30);
}

// Two gears through a rigid mesh of ratio p (x = q_A - p q_B), no loads: A
// starts at w0 and B at rest with the gap centred, so A's tooth strikes at
// t = a / w0. Newton's law and the impulse keep I_A w_A + I_B w_B / p and give
// x' = -e w0 after; the impact dissipates (1 - e^2) m w0^2 / 2 with the
// effective inertia m = 1 / (1 / I_A + p^2 / I_B). The teeth then cross the gap
// (2 a / (e w0)) and strike the other flank.
TEST(RigidFreeplayEvents, GearMeshImpactWithRatio) {
  const double IA = 2e-4, IB = 4e-3, p = 3.0, a = 0.02, w0 = 5.0, e = 0.6;
  ModelSpec spec;
  spec.bodies = {body("A", IA, 0.0, w0), body("B", IB)};
  spec.elements = {rigid_freeplay("mesh", "A", "B", a, e, p)};
  spec.simulation = test::settings(1.0, 1e-3);
  const Model m = assemble(spec);
  Simulator sim(m);
  const double t1 = a / w0, t2 = t1 + 2 * a / (e * w0);
  ASSERT_EQ(sim.advance_to(0.5 * (t1 + t2)), StepStatus::reached_time) << sim.message();
  const double wB = IA * w0 * (1 + e) / (IA * p + IB / p), wA = p * wB - e * w0;
  EXPECT_NEAR(sim.state().w[0], wA, 1e-10 * w0);
  EXPECT_NEAR(sim.state().w[1], wB, 1e-10 * w0);
  const double m_eff = 1.0 / (1.0 / IA + p * p / IB);
  EXPECT_NEAR(sim.stats().impact_loss, 0.5 * (1 - e * e) * m_eff * w0 * w0, 1e-12);
  ASSERT_EQ(sim.advance_to(t2 + 1e-4), StepStatus::reached_time);
  const std::vector<EventRecord> impacts = of_kind(sim.events(), EventKind::impact);
  ASSERT_EQ(impacts.size(), 2u);
  EXPECT_NEAR(impacts[0].t, t1, 1e-10);
  EXPECT_NEAR(impacts[1].t, t2, 1e-9);
  EXPECT_EQ(impacts[1].before, -1) << "the other flank";
  EXPECT_NEAR(energy_residual(m, sim.state()), 0.0, 1e-12);
}

// Three equal bodies A, B, C in a row through two rigid gaps; B and C touch
// at rest. A strikes B: both contacts take part in one LCP. Closed form:
// e = 0: all three at v/3 (one plastic cluster); otherwise
// w_A = (1 - 2e) v / 3, w_B = w_C = (1 + e) v / 3 (B and C stay in contact).
TEST(RigidFreeplayEvents, SimultaneousContactsSolveOneLcp) {
  const double I = 0.02, v = 1.0, a = 0.01;
  for (double e : {0.0, 0.8}) {
    ModelSpec spec;
    spec.bodies = {body("A", I, 0.0, v), body("B", I, 0.0), body("C", I, -a)};
    spec.elements = {rigid_freeplay("AB", "A", "B", a, e), rigid_freeplay("BC", "B", "C", a, e)};
    spec.simulation = test::settings(0.02, 1e-3);
    const Model m = assemble(spec);
    Simulator sim(m);
    ASSERT_EQ(sim.advance_to(0.02), StepStatus::reached_time) << sim.message();
    EXPECT_NEAR(sim.state().w[0], (1 - 2 * e) * v / 3, 1e-12) << "e = " << e;
    EXPECT_NEAR(sim.state().w[1], (1 + e) * v / 3, 1e-12) << "e = " << e;
    EXPECT_NEAR(sim.state().w[2], (1 + e) * v / 3, 1e-12) << "e = " << e;
    EXPECT_EQ(sim.state().spring_side[1], 1) << "B and C stay in contact";
    EXPECT_EQ(sim.state().spring_side[0], e == 0.0 ? 1 : 0);
    const std::vector<EventRecord> impacts = of_kind(sim.events(), EventKind::impact);
    ASSERT_EQ(impacts.size(), 1u);
    EXPECT_NEAR(impacts[0].t, a / v, 1e-12);
    EXPECT_NEAR(energy_residual(m, sim.state()), 0.0, 1e-14);
  }
}

// A body wedged between two rigid stops strikes both at once. a (I 0.5,
// pushed by 3 N m) sits between c (I 3, at 1 rad/s; plastic gap 0.05) and b
// (I 2; gap 0.15 on x = q_a + 0.5 q_b, e 0.5). Their gaps close together
// near 0.2306 s, and struck one at a time the impacts accumulated in ever
// shorter flights until one's return went unseen: the teeth ran up to 3e-3
// rad through the rigid stop, 887 missed strikes were repaired at output
// points (the state depended on output_step), and exact's energy check
// failed (2e-5). Teeth that touch a flank now take part in an impact as
// contacts: no tooth passes its flank at any sample, nothing is missed, the
// run does not depend on the output grid, and the balance closes.
TEST(RigidFreeplayEvents, AWedgedBodyStrikesBothStopsAtOnce) {
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    std::vector<double> final_state;
    for (const double step : {0.01, 0.001}) {
      SCOPED_TRACE(std::string(integrator) + " " + std::to_string(step));
      ModelSpec spec;
      spec.bodies = {body("a", 0.5), body("b", 2.0), body("c", 3.0, 0.0, 1.0)};
      spec.elements = {rigid_freeplay("g1", "a", "c", 0.05, 0.0), rigid_freeplay("g2", "a", "b", 0.15, 0.5, -0.5),
                       torque("tq", "a", Signal::make_constant(3.0))};
      spec.simulation = test::settings(1.0, step, 1e-11);
      spec.simulation.integrator = integrator;
      const Result r = simulate(assemble(spec));
      ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
      EXPECT_EQ(r.stats.missed_strikes, 0);
      EXPECT_LT(std::abs(r.stats.energy_residual), 1e-9);
      for (std::size_t k = 0; k < static_cast<std::size_t>(r.num_samples()); ++k) {
        const double* q = &r.angle[3 * k];
        EXPECT_LE(std::abs(q[0] - q[2]), 0.05 * (1 + 1e-12)) << "g1 at " << r.time[k];
        EXPECT_LE(std::abs(q[0] + 0.5 * q[1]), 0.15 * (1 + 1e-12)) << "g2 at " << r.time[k];
      }
      const std::size_t last = 3 * static_cast<std::size_t>(r.num_samples() - 1);
      const std::vector<double> end = {r.angle[last], r.angle[last + 1], r.angle[last + 2], r.velocity[last],
                                       r.velocity[last + 1], r.velocity[last + 2]};
      if (final_state.empty()) final_state = end;
      for (std::size_t i = 0; i < end.size(); ++i) EXPECT_NEAR(end[i], final_state[i], 1e-10) << "state " << i;
    }
  }
}

// Teeth in a gap narrower than the integrator resolves (half-width 1e-4 rad,
// CVODE's depth at atol 1e-6 about 1e-3 rad) that touch their lower flank
// join an impact on that flank, not the upper one (both are within the
// depth): a at -1e-4 moving down at 1 rad/s into the base stop s0 while b
// strikes it through s1 (plastic, approach 1 rad/s) stops both. Joined on
// the upper flank, s0 took no impulse and a went through its stop.
TEST(RigidFreeplayEvents, TeethInAGapBelowTheResolutionJoinTheFlankTheyTouch) {
  ModelSpec spec;
  spec.bodies = {body("a", 1.0), body("b", 1.0)};
  spec.elements = {rigid_freeplay("s0", "a", "", 1e-4, 0.0), rigid_freeplay("s1", "a", "b", 0.1, 0.0)};
  const Model m = assemble(spec);
  std::vector<std::int8_t> side = {0, 1};  // s1 struck on its upper flank (x1 = q_a - q_b = 0.1)
  std::vector<double> q = {-1e-4, -1e-4 - 0.1}, w = {-1.0, -2.0}, force = {0.0, 0.0};
  const RestThreshold rest{1e-6, 1e3 * (1e-6 + 1e-6 * 0.1)};
  ImpactWorkspace ws;
  const ImpactOutcome out = resolve_impacts(m, side, rest, force, q, w, ws);
  EXPECT_TRUE(out.struck);
  EXPECT_EQ(side[0], -1);
  EXPECT_NEAR(w[0], 0.0, 1e-12);
  EXPECT_NEAR(w[1], 0.0, 1e-12);
  EXPECT_NEAR(q[0], -1e-4, 1e-15);
}

// A motor drives a load through a rigid mesh of ratio p, teeth in contact
// (x = +a), both on Coulomb bearings (limits Lm, Ll), the motor torque rising
// as k t. The three links (two bearings, the contact) close a loop through
// the base: the group holds while some split keeps both bearings within their
// limits with the contact pressed, i.e. while k t <= Lm + Ll / p. Then both
// bearings slip together and the contact carries the load: the motor moves
// with the reflected inertia J = Im + Il / p^2 under k t - Lm - Ll / p, and
// the contact torque is T = k t - Lm - Im a_m.
TEST(RigidFreeplayEvents, LoadedContactIsARatioLinkWithFriction) {
  const double Im = 2e-4, Il = 4e-3, p = 3.0, a = 0.02, k = 1.0, Lm = 0.01, Ll = 0.06;
  ModelSpec spec;
  spec.bodies = {body("motor", Im, a), body("load", Il)};
  spec.elements = {rigid_freeplay("mesh", "motor", "load", a, 0.5, p),
                   test::friction("motor_bearing", "motor", "", Lm),
                   test::friction("load_bearing", "load", "", Ll),
                   torque("drive", "motor", test::ramp(0.0, 1.0, 0.0, k))};
  spec.simulation = test::settings(0.1, 1e-3);
  const Model m = assemble(spec);
  Simulator sim(m);
  const double tb = (Lm + Ll / p) / k;
  ASSERT_EQ(sim.advance_to(0.5 * tb), StepStatus::reached_time) << sim.message();
  EXPECT_EQ(sim.state().w[0], 0.0);
  EXPECT_EQ(sim.state().spring_side[0], 1);
  EXPECT_GE(sim.value(sim.output("mesh.torque")), 0.0) << "a contact only pushes";
  ASSERT_EQ(sim.advance_to(0.1), StepStatus::reached_time) << sim.message();
  const std::vector<EventRecord> breaks = of_kind(sim.events(), EventKind::break_away);
  ASSERT_EQ(breaks.size(), 2u);
  EXPECT_NEAR(breaks[0].t, tb, 1e-9);
  EXPECT_NEAR(breaks[1].t, tb, 1e-9);
  EXPECT_TRUE(of_kind(sim.events(), EventKind::separation).empty());
  const double J = Im + Il / (p * p), s = 0.1 - tb;
  // a_m = k (t - tb) / J: w_m = k s^2 / (2 J), q_m = a + k s^3 / (6 J)
  EXPECT_NEAR(sim.state().w[0], k * s * s / (2 * J), 1e-8);
  EXPECT_NEAR(sim.state().w[1], sim.state().w[0] / p, 1e-12) << "the mesh ratio holds exactly";
  EXPECT_NEAR(sim.state().q[0], a + k * s * s * s / (6 * J), 1e-9);
  EXPECT_NEAR(sim.state().q[0] - p * sim.state().q[1], a, 1e-12) << "the teeth stay on the flank";
  EXPECT_NEAR(sim.value(sim.output("mesh.torque")), k * 0.1 - Lm - Im * k * s / J, 1e-8);
  EXPECT_LT(std::abs(energy_residual(m, sim.state())), 1e-10);
}

// The two solvers cross-check each other on models/rigid_backlash.yaml (a
// motor rattling in a rigid gear backlash, e = 0.8, friction on both gears):
// Moreau-Jean time stepping converges to the event-driven solution as h
// shrinks (first order: each impact is located within one step). Measured
// max load-angle errors over the first 0.3 s (the first rattle to rest and the
// load's break-away): 3.2e-5, 1.4e-5, 4.3e-6 rad at h = 40, 20, 10 us.
TEST(RigidFreeplayEvents, TimeSteppingConvergesToTheEventDrivenSolution) {
  Model m = io::load_model(LUZTAR_MODELS_DIR "/rigid_backlash.yaml");
  SimulationSettings s = m.simulation;
  s.t_end = 0.3;
  s.output_step = 1e-4;
  s.solver = "event_driven";
  s.rtol = 1e-11;
  s.atol = 1e-13;
  const Result ref = simulate(m, s);
  ASSERT_EQ(ref.status, StepStatus::reached_time) << ref.message;
  ASSERT_GE(of_kind(ref.events, EventKind::impact).size(), 20u);
  EXPECT_EQ(of_kind(ref.events, EventKind::contact).size(), 1u) << "the rattle ends in a persistent contact";
  EXPECT_NEAR(ref.input_work.back() - ref.kinetic.back() + ref.kinetic.front() - ref.dissipated.back(), 0.0,
              1e-8 * ref.input_work.back());
  s.solver = "time_stepping";
  std::vector<double> errors;
  for (double h : {4e-5, 2e-5, 1e-5}) {
    s.step = h;
    const Result r = simulate(m, s);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.num_samples(), ref.num_samples());
    double err = 0.0;
    for (int k = 0; k < r.num_samples(); ++k) err = std::max(err, std::abs(test::angle(r, k, 1) - test::angle(ref, k, 1)));
    errors.push_back(err);
  }
  EXPECT_LT(errors[2], 1e-5);
  EXPECT_LT(errors[2], errors[0] / 4) << "at least first order over two halvings";
  EXPECT_LT(errors[1], errors[0]);
}

// The gear train of Part 2, Fig. 10 with its tooth mesh made rigid (e = 0.5,
// the two spline freeplays elastic): contacts chain through the train, stuck
// bearings close loops with the contact, the mesh ratio is 2. Event-driven
// and time stepping agree, the stepper converging at first order (measured
// max angle differences over 1 s: 6.5e-5, 9.9e-6 rad at h = 40, 10 us), and
// the event-driven energy balance closes.
TEST(RigidFreeplayEvents, GearTrainWithRigidMeshBothSolversAgree) {
  ModelSpec spec = io::load_model_spec(LUZTAR_MODELS_DIR "/gear_train.yaml");
  for (ElementSpec& e : spec.elements)
    if (auto* sp = std::get_if<SpringSpec>(&e); sp && sp->name == "mesh") {
      sp->stiffness = INFINITY;
      sp->restitution = 0.5;
    }
  const Model m = assemble(spec);
  ASSERT_TRUE(m.springs[1].rigid());
  SimulationSettings s = m.simulation;
  s.t_end = 1.0;
  s.rtol = 1e-11;
  s.atol = 1e-13;
  const Result ref = simulate(m, s);
  ASSERT_EQ(ref.status, StepStatus::reached_time) << ref.message;
  EXPECT_GT(ref.stats.impacts, 50);
  EXPECT_GT(ref.stats.redundant_splits, 0) << "a stuck loop with the contact in it";
  EXPECT_FALSE(of_kind(ref.events, EventKind::contact).empty());
  EXPECT_FALSE(of_kind(ref.events, EventKind::separation).empty());
  const int last = ref.num_samples() - 1;
  EXPECT_NEAR(ref.input_work[last] - (ref.kinetic[last] + ref.elastic[last] - ref.kinetic[0] - ref.elastic[0]) -
                  ref.dissipated[last],
              0.0, 1e-8 * ref.input_work[last]);
  s.solver = "time_stepping";
  std::vector<double> errors;
  for (double h : {4e-5, 1e-5}) {
    s.step = h;
    const Result r = simulate(m, s);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    double err = 0.0;
    for (std::size_t i = 0; i < r.angle.size(); ++i) err = std::max(err, std::abs(r.angle[i] - ref.angle[i]));
    errors.push_back(err);
  }
  EXPECT_LT(errors[0], 2e-4);
  EXPECT_LT(errors[1], errors[0] / 3) << "first order: h / 4 gives error / 4";
}

// Teeth that part from a rigid flank at rest stay on it: the contact was
// entered once they were past the flank by the event search's roundoff band
// (here 6.5e-17 rad at 1e-3 rad, b2 held by its sprag), and after the
// separation (k0 and k1 at once, 1.8 ms) they sit there with relative
// velocity ~1e-20 rad/s, leaving into the gap. A missed-strike test with a
// band of 16 eps took them for teeth past the flank at the output sample of
// 2 ms: a contact and a separation of k1 (at 3.3 ms) logged at output steps
// 1e-3 .. 2e-4 and not at 1e-4 .. 1e-5 (a new-user hunt). cvode_adams at rtol
// 1e-13 logs the 11 element changes below at every output step.
TEST(RigidFreeplayEvents, TeethPartingAtRestFromAFlankLogTheSameEventsAtEveryOutputStep) {
  const std::string text =
      "simulation: {t_end: 0.01, output_step: 0.001, integrator: exact}\n"
      "bodies:\n  b0: {inertia: 0.004, velocity: -2}\n  b1: {inertia: 0.003}\n  b2: {inertia: 0.5}\n"
      "elements:\n"
      "  k0: {type: spring, bodies: [b1, b0], stiffness: 6523, freeplay: {lower: -0.001, upper: 0.002}, offset: -0.004}\n"
      "  k1: {type: spring, bodies: [b2, b1], stiffness: .inf, freeplay: 0.001}\n"
      "  w2: {type: one_way_clutch, body: b2, overrun: positive, coulomb: 0.02}\n";
  const Model m = assemble(io::parse_model_spec(text, "parting.yaml", "."));
  const std::vector<std::pair<std::string, EventKind>> expected = {
      {"k1", EventKind::impact},     {"k1", EventKind::contact},    {"k0", EventKind::separation},
      {"k1", EventKind::separation}, {"k0", EventKind::contact},    {"k0", EventKind::separation},
      {"k1", EventKind::impact},     {"k1", EventKind::contact},    {"w2", EventKind::overrun},
      {"k0", EventKind::contact},    {"k0", EventKind::separation}};
  std::vector<double> first;
  for (double step : {1e-3, 5e-4, 2e-4, 1e-4, 1e-5}) {
    SimulationSettings s = m.simulation;
    s.output_step = step;
    const Result r = simulate(m, s);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), expected.size()) << "output step " << step;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(m.element_names[r.events[i].element], expected[i].first) << "event " << i << ", output step " << step;
      EXPECT_EQ(r.events[i].kind, expected[i].second) << "event " << i << ", output step " << step;
      if (first.size() == expected.size()) {
        EXPECT_NEAR(r.events[i].t, first[i], 1e-12) << "event " << i;
      }
    }
    if (first.empty())
      for (const EventRecord& e : r.events) first.push_back(e.t);
  }
}

}  // namespace
}  // namespace luztar

