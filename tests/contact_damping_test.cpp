// damping_law: contact on a freeplay spring (elements/freeplay_spring.hpp):
// the law and its clamp witnesses against their closed forms, and a body
// striking a spring-damper flank in both solvers against the hand-derived
// contact: duration, rebound velocity, no pull, energy balance.
//
// The strike. A body (J = 1) flies at v0 = 1 rad/s in the gap of a spring to
// the base (k = 100, c = 2, a = 0.1) and meets the + flank at t0 = a / v0.
// With y = x - a, the law in contact is T = k y + clamp(c y', -k y, +k y):
//   1. y' > k y / c: clamped at +|Tc|, T = 2 k y: y = v0/w1 sin(w1 s),
//      w1 = sqrt(2 k / J), until c y' = k y: tan(w1 s1) = c w1 / k;
//   2. linear, J y'' + c y' + k y = 0 (zeta = c / (2 sqrt(k J)) = 0.1) from
//      there, until T = k y + c y' reaches 0 (s2: bisection on the closed form);
//   3. clamped at -|Tc|, T = 0: y' stays y2' < 0 and the teeth part at y = 0
//      after s3 = y2 / -y2', with the rebound velocity y2'.
// The law everywhere would pull (T = c y' < 0 as y returns to 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/energy.hpp"
#include "elements/freeplay_spring.hpp"
#include "elements/kinds.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

constexpr double kJ = 1.0, kK = 100.0, kC = 2.0, kA = 0.1, kV0 = 1.0;

Spring contact_spring() {
  Spring s;
  s.row = two_body_row(0, kGround, 1.0);
  s.stiffness = kK;
  s.freeplay = kA;
  s.damping = kC;
  s.contact_damping = true;
  return s;
}

TEST(ContactDamping, LawIsZeroInTheGapAndClampedInContact) {
  const Spring s = contact_spring();
  // gap: no torque, whatever the rate
  EXPECT_EQ(spring_torque_exact(s, {0.05, 3.0}), 0.0);
  EXPECT_EQ(damping_clamp(s, {0.05, 3.0}, 0), 0);
  // + side, Tc = 100 * 0.02 = 2: linear while |c x'| <= 2
  EXPECT_NEAR(spring_torque_exact(s, {0.12, 0.5}), 2.0 + 1.0, 1e-14);
  EXPECT_EQ(damping_clamp(s, {0.12, 0.5}, +1), 0);
  EXPECT_NEAR(spring_torque_exact(s, {0.12, 5.0}), 4.0, 1e-14);  // clamped at +|Tc|: 2 Tc
  EXPECT_EQ(damping_clamp(s, {0.12, 5.0}, +1), +1);
  EXPECT_EQ(spring_torque_exact(s, {0.12, -5.0}), 0.0);  // at -|Tc|: no pull
  EXPECT_EQ(damping_clamp(s, {0.12, -5.0}, +1), -1);
  // - side, Tc = -2: the mirror image
  EXPECT_NEAR(spring_torque_exact(s, {-0.12, -5.0}), -4.0, 1e-14);
  EXPECT_EQ(spring_torque_exact(s, {-0.12, 5.0}), 0.0);
  EXPECT_NEAR(spring_torque_exact(s, {-0.12, 0.5}), -2.0 + 1.0, 1e-14);
  // mode torques and tangents: T = (1 + m s) Tc at a corner, damped only when linear
  EXPECT_NEAR(spring_torque(s, {0.12, 5.0}, +1, +1), 4.0, 1e-14);
  EXPECT_EQ(spring_stiffness(s, +1, +1), 2.0 * kK);
  EXPECT_EQ(spring_stiffness(s, +1, -1), 0.0);
  EXPECT_EQ(spring_stiffness(s, -1, -1), 2.0 * kK);
  EXPECT_EQ(spring_stiffness(s, -1, 0), kK);
  EXPECT_EQ(spring_stiffness(s, 0, 0), 0.0);
  EXPECT_EQ(spring_damping(s, +1, 0), kC);
  EXPECT_EQ(spring_damping(s, +1, +1), 0.0);
  EXPECT_EQ(spring_damping(s, 0, 0), 0.0);
  // dissipation: the clamped damping torque times the rate (2 * 5 at +|Tc|)
  EXPECT_NEAR(spring_dissipation_exact(s, {0.12, 5.0}, 5.0), 10.0, 1e-13);
  EXPECT_NEAR(spring_dissipation_exact(s, {0.12, 0.5}, 0.5), 0.5, 1e-14);
  EXPECT_EQ(spring_dissipation_exact(s, {0.05, 3.0}, 3.0), 0.0);
  // the law everywhere is unchanged by a clamp argument
  Spring everywhere = s;
  everywhere.contact_damping = false;
  EXPECT_NEAR(spring_torque_exact(everywhere, {0.12, -5.0}), 2.0 - 10.0, 1e-14);
  EXPECT_EQ(spring_damping(everywhere, 0, 0), kC);
}

TEST(ContactDamping, CornersAreWitnessesInContact) {
  const Spring s = contact_spring();
  std::vector<Witness> ws;
  spring_witnesses(s, 2, 0, 0.0, false, false, 1e-9, ws, 0);  // gap: the flanks only
  ASSERT_EQ(ws.size(), 2u);
  ws.clear();
  spring_witnesses(s, 2, +1, 0.12, false, false, 1e-9, ws, 0);  // linear: both corners
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_EQ(ws[1].kind, WitnessKind::damping_upper);
  EXPECT_EQ(ws[1].direction, +1);
  EXPECT_EQ(ws[2].kind, WitnessKind::damping_lower);
  EXPECT_EQ(ws[2].direction, -1);
  ws.clear();
  spring_witnesses(s, 2, +1, 0.12, false, false, 1e-9, ws, +1);  // at +|Tc|: leaves downwards
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[1].kind, WitnessKind::damping_upper);
  EXPECT_EQ(ws[1].direction, -1);
  ws.clear();
  spring_witnesses(s, 2, -1, -0.12, false, false, 1e-9, ws, -1);  // at -|Tc|: leaves upwards
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[1].kind, WitnessKind::damping_lower);
  EXPECT_EQ(ws[1].direction, +1);
  // values: c x' -/+ |Tc| with |Tc| = k (side x - a)
  Model m;
  m.springs.push_back(s);
  const double q[] = {-0.12}, w[] = {0.5};
  const std::int8_t side[] = {-1};
  WitnessInputs in;
  in.q = q;
  in.w = w;
  in.spring_side = side;
  EXPECT_NEAR(witness_value(m, {WitnessKind::damping_upper, 0, +1}, in), 1.0 - 2.0, 1e-14);
  EXPECT_NEAR(witness_value(m, {WitnessKind::damping_lower, 0, -1}, in), 1.0 + 2.0, 1e-14);
  EXPECT_EQ(witness_kind_info(WitnessKind::damping_upper).crossing, Crossing::own_mode);
  EXPECT_EQ(witness_kind_info(WitnessKind::damping_lower).sign, -1);
}

// --- the strike ----------------------------------------------------------------

struct Strike {
  double t0, t_sep, rebound;  // contact, separation [s]; velocity after [rad/s]
};

Strike hand_derived() {
  const double w1 = std::sqrt(2.0 * kK / kJ);
  const double s1 = std::atan(kC * w1 / kK) / w1;
  const double y1 = kV0 / w1 * std::sin(w1 * s1), v1 = kV0 * std::cos(w1 * s1);
  const double wn = std::sqrt(kK / kJ), zeta = kC / (2.0 * std::sqrt(kK * kJ)), wd = wn * std::sqrt(1 - zeta * zeta);
  const double A = y1, B = (v1 + zeta * wn * y1) / wd;
  auto y = [&](double s) { return std::exp(-zeta * wn * s) * (A * std::cos(wd * s) + B * std::sin(wd * s)); };
  auto v = [&](double s) {
    return std::exp(-zeta * wn * s) * ((B * wd - zeta * wn * A) * std::cos(wd * s) - (A * wd + zeta * wn * B) * std::sin(wd * s));
  };
  auto torque = [&](double s) { return kK * y(s) + kC * v(s); };
  double lo = 1e-9, hi = lo;
  while (torque(hi) > 0.0) hi += 1e-4;  // the first zero of T after the corner
  lo = hi - 1e-4;
  for (int i = 0; i < 200; ++i) (torque(0.5 * (lo + hi)) > 0.0 ? lo : hi) = 0.5 * (lo + hi);
  const double s2 = 0.5 * (lo + hi);
  const double s3 = y(s2) / -v(s2);
  return {kA / kV0, kA / kV0 + s1 + s2 + s3, v(s2)};
}

Model strike_model(const std::string& law) {
  return io::parse_model(
      "name: strike\n"
      "simulation: {t_end: 0.5, output_step: 0.001, rtol: 1.0e-11, atol: 1.0e-13}\n"
      "bodies:\n"
      "  b: {inertia: 1.0, velocity: 1.0}\n"
      "elements:\n"
      "  flank: {type: spring, body: b, stiffness: 100, freeplay: 0.1, damping: 2, damping_law: " + law + "}\n",
      "strike.yaml", ".");
}

double min_torque(const Result& r) {
  double lowest = INFINITY;
  for (int k = 0; k < r.num_samples(); ++k) lowest = std::min(lowest, r.element_torque[k]);
  return lowest;
}

TEST(ContactDamping, StrikeMatchesTheHandDerivedContactEventDriven) {
  const Strike h = hand_derived();
  ASSERT_LT(h.t_sep, 0.5);                          // parted before t_end ...
  ASSERT_GT(h.t_sep + 2 * kA / -h.rebound, 0.5);  // ... and not at the - flank yet
  const Result r = simulate(strike_model("contact"));
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].kind, EventKind::contact);
  EXPECT_NEAR(r.events[0].t, h.t0, 1e-9);
  EXPECT_EQ(r.events[1].kind, EventKind::separation);
  EXPECT_NEAR(r.events[1].t, h.t_sep, 1e-9);
  EXPECT_EQ(r.stats.events, 4);  // contact, the two corners (not logged: no side changes), separation
  const int last = r.num_samples() - 1;
  EXPECT_NEAR(r.velocity[last], h.rebound, 1e-9);  // -0.7586 rad/s; measured error 1e-10
  EXPECT_NEAR(r.angle[last], kA + h.rebound * (0.5 - h.t_sep), 1e-9);
  EXPECT_GE(min_torque(r), -1e-9);  // N m: never pulls
  EXPECT_LT(energy_balance(r, last).relative, 1e-9);  // measured 6e-11
  // the law everywhere pulls as the teeth part
  EXPECT_LT(min_torque(simulate(strike_model("everywhere"))), -0.5);
}

TEST(ContactDamping, StrikeMatchesTheHandDerivedContactTimeStepping) {
  const Strike h = hand_derived();
  const Model m = strike_model("contact");
  SimulationSettings s = m.simulation;
  s.solver = "time_stepping";
  s.step = 1e-5;
  const Result r = simulate(m, s);
  const int last = r.num_samples() - 1;
  EXPECT_NEAR(r.velocity[last], h.rebound, 1e-6);  // measured error 3e-9 at h = 1e-5
  EXPECT_NEAR(r.angle[last], kA + h.rebound * (0.5 - h.t_sep), 1e-6);
  EXPECT_GE(min_torque(r), 0.0);
  // in contact on the grid from t0 to t_sep (state +1), in the gap outside
  for (int k = 0; k <= last; ++k) {
    const double t = r.time[k];
    if (std::abs(t - h.t0) < 1e-4 || std::abs(t - h.t_sep) < 1e-4) continue;
    EXPECT_EQ(r.element_state[k], (t > h.t0 && t < h.t_sep) ? 1 : 0) << "t = " << t;
  }
  EXPECT_LT(std::abs(energy_balance(r, last).relative), 3e-5);  // measured 7.5e-6 (kinks within a step)
}

// A sine torque pushes the body into both flanks again and again: every
// clamp state and corner is met many times. The event-driven run closes its
// energy balance; the time stepper converges to it.
TEST(ContactDamping, DrivenRattleAgreesInBothSolvers) {
  const Model m = io::parse_model(
      "name: rattle\n"
      "simulation: {t_end: 2.0, output_step: 0.001, rtol: 1.0e-11, atol: 1.0e-13}\n"
      "bodies:\n"
      "  b: {inertia: 1.0}\n"
      "elements:\n"
      "  flank: {type: spring, body: b, stiffness: 100, freeplay: 0.1, damping: 2, damping_law: contact}\n"
      "  drive: {type: torque, body: b, torque: {sine: {amplitude: 20.0, frequency: 2.0}}}\n",
      "rattle.yaml", ".");
  const Result ed = simulate(m);
  const int last = ed.num_samples() - 1;
  // measured: 24 event instants, 12 of them logged (contacts and separations)
  EXPECT_GT(ed.stats.events, static_cast<long>(ed.events.size()) + 8);  // corners: events, not logged
  EXPECT_GE(ed.events.size(), 8u);
  EXPECT_LT(std::abs(energy_balance(ed, last).relative), 1e-8);  // measured 6.8e-10
  double lowest = INFINITY;  // side * T >= 0: the law never pulls
  for (int k = 0; k <= last; ++k) {
    const double x = ed.angle[k], T = ed.element_torque[2 * k];
    if (std::abs(x) > kA) lowest = std::min(lowest, (x > 0 ? 1.0 : -1.0) * T);
    else EXPECT_EQ(T, 0.0) << "t = " << ed.time[k];
  }
  EXPECT_GE(lowest, -1e-9);
  SimulationSettings s = m.simulation;
  s.solver = "time_stepping";
  double previous = INFINITY;
  for (double h : {1e-4, 1e-5}) {
    s.step = h;
    const Result ts = simulate(m, s);
    double error = 0.0;
    for (int k = 0; k <= last; ++k) error = std::max(error, std::abs(ts.angle[k] - ed.angle[k]));
    EXPECT_LT(error, 0.2 * previous) << "h = " << h;
    previous = error;
  }
  EXPECT_LT(previous, 1e-7);  // rad; measured 9.6e-7 at h = 1e-4, 1.0e-8 at h = 1e-5
}

// A rigid connection merged by reduce() substitutes q_c = 2 q_b into the
// spring (k 4x, a / 2, c 4x): the law, odd in (x, x'), stays contact; the
// writer keeps it (the default, everywhere, is not written).
TEST(ContactDamping, ReduceKeepsTheLawThroughARigidMerge) {
  const ModelSpec spec = io::parse_model_spec(
      "name: strike\n"
      "simulation: {t_end: 0.5, output_step: 0.001}\n"
      "bodies:\n"
      "  b: {inertia: 1.0, velocity: 1.0}\n"
      "  c: {inertia: 0.5, velocity: 2.0}\n"
      "elements:\n"
      "  tie: {type: spring, bodies: [b, c], ratio: 0.5, stiffness: .inf}\n"
      "  flank: {type: spring, body: c, stiffness: 100, freeplay: 0.1, damping: 2, damping_law: contact}\n",
      "strike.yaml", ".");
  const Reduction r = validate_and_reduce(spec);
  ASSERT_EQ(r.spec.elements.size(), 1u);
  const auto& flank = std::get<SpringSpec>(r.spec.elements[0]);
  EXPECT_EQ(flank.body_a, "b");
  EXPECT_DOUBLE_EQ(flank.stiffness, 400.0);
  EXPECT_DOUBLE_EQ(flank.freeplay, 0.05);
  EXPECT_EQ(flank.damping_law, "contact");
  const std::string text = io::to_yaml(r.spec);
  EXPECT_NE(text.find("damping_law: contact"), std::string::npos) << text;
}

}  // namespace
}  // namespace luztar
