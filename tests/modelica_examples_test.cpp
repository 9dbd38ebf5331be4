// The Modelica Standard Library's Rotational examples as models of models/
// (README, "Modelica's Rotational examples"; each file's opening comment
// maps MSL's parameters): their event sequences pinned.
//
// Each model runs event-driven with cvode_bdf (rtol 1e-10, the files'
// tolerances) and with exact where it serves the model: the logged sequence
// (element, kind, state before and after) must be the pinned one exactly, its
// times within 1e-8 s, the energy balance closed to 1e-8 relative. The pinned
// times are those of cvode_bdf and exact, which agree on them to 1e-10 s;
// CoupledClutches' clutch2 lock-up at 0.7096214747 s was also found
// independently by quadrature of the hand-written equations of the stages
// before it (issue 19 design, 3.6 f). The time stepper at h = 1e-5 s must
// give the same sequence of kinds per element with times within 2 h.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

struct Pinned {
  const char* element;
  EventKind kind;
  int before, after;
  double t;  // [s]
};

// CoupledClutches: clutch3 (open, J3 and J4 at rest) is set slipping when
// clutch2 closes at T2 = 0.4 s and drags J3 along; clutch2 locks J2 and J3;
// clutch1, whose normal force follows cos(0.4 pi t), locks, breaks away, locks
// and breaks away again as its normal force falls; clutch3, closed at
// T3 = 0.9 s, locks J3 and J4.
const std::vector<Pinned> kCoupledClutches = {
    {"clutch3", EventKind::break_away, 0, 1, 0.4},
    {"clutch2", EventKind::stick, 1, 0, 0.7096214747},
    {"clutch1", EventKind::stick, 1, 0, 0.7916623577},
    {"clutch1", EventKind::break_away, 0, 1, 0.8311085061},
    {"clutch1", EventKind::stick, 1, 0, 0.9068501926},
    {"clutch1", EventKind::break_away, 0, 1, 1.0002958599},
    {"clutch3", EventKind::stick, 1, 0, 1.1439674922},
};

// Friction: the clutch (80 N m) locks inertia3 to inertia2 under the
// 200 N m motor, breaks away and locks again; when the motor stops and the
// brake (800 N m) closes at 0.5 s the clutch slips, the brake holds inertia1
// at 0.64 s and the clutch locks the rest once the spring has rung down.
const std::vector<Pinned> kFriction = {
    {"clutch", EventKind::stick, 1, 0, 0.0067797089},
    {"clutch", EventKind::break_away, 0, 1, 0.0593392841},
    {"clutch", EventKind::stick, 1, 0, 0.1092898268},
    {"clutch", EventKind::break_away, 0, 1, 0.5342483386},
    {"brake", EventKind::stick, 1, 0, 0.6406139407},
    {"clutch", EventKind::stick, 1, 0, 1.6636414413},
};

// Backlash: inertia2 starts pressed into the + flank (90 deg, 67.5 deg past
// the 22.5 deg freeplay) at rest, leaves it, and rattles between the flanks,
// each contact slower by the contact law's constant restitution. The times
// are the closed form of BacklashContactsAreTheClosedForm below (exact agrees
// with it to 1e-10 s, cvode_bdf within 6e-9 s).
const std::vector<Pinned> kBacklash = {
    {"elasto_backlash", EventKind::separation, 1, 0, 0.0261592158},
    {"elasto_backlash", EventKind::contact, 0, -1, 0.0380238426},
    {"elasto_backlash", EventKind::separation, -1, 0, 0.0878523395},
    {"elasto_backlash", EventKind::contact, 0, 1, 0.1027009488},
    {"elasto_backlash", EventKind::separation, 1, 0, 0.1525294457},
    {"elasto_backlash", EventKind::contact, 0, -1, 0.1711125166},
    {"elasto_backlash", EventKind::separation, -1, 0, 0.2209410135},
    {"elasto_backlash", EventKind::contact, 0, 1, 0.2441977720},
    {"elasto_backlash", EventKind::separation, 1, 0, 0.2940262689},
    {"elasto_backlash", EventKind::contact, 0, -1, 0.3231321590},
    {"elasto_backlash", EventKind::separation, -1, 0, 0.3729606559},
    {"elasto_backlash", EventKind::contact, 0, 1, 0.4093867483},
    {"elasto_backlash", EventKind::separation, 1, 0, 0.4592152452},
    {"elasto_backlash", EventKind::contact, 0, -1, 0.5048025889},
    {"elasto_backlash", EventKind::separation, -1, 0, 0.5546310858},
    {"elasto_backlash", EventKind::contact, 0, 1, 0.6116837577},
    {"elasto_backlash", EventKind::separation, 1, 0, 0.6615122546},
    {"elasto_backlash", EventKind::contact, 0, -1, 0.7329138128},
    {"elasto_backlash", EventKind::separation, -1, 0, 0.7827423097},
    {"elasto_backlash", EventKind::contact, 0, 1, 0.8721015341},
    {"elasto_backlash", EventKind::separation, 1, 0, 0.9219300310},
};

Model load(const std::string& name) { return io::load_model(std::string(LUZTAR_MODELS_DIR) + "/" + name + ".yaml"); }

Result run(const Model& m, const std::string& solver, const std::string& integrator) {
  SimulationSettings s = m.simulation;
  s.solver = solver;
  s.integrator = integrator;
  s.step = 1e-5;
  return simulate(m, s);
}

void expect_sequence(const Model& m, const Result& r, const std::vector<Pinned>& want, double time_tolerance) {
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_EQ(r.events.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    const EventRecord& e = r.events[i];
    EXPECT_EQ(m.element_names[e.element], want[i].element);
    EXPECT_EQ(e.kind, want[i].kind);
    EXPECT_EQ(e.before, want[i].before);
    EXPECT_EQ(e.after, want[i].after);
    EXPECT_NEAR(e.t, want[i].t, time_tolerance);
  }
}

class ModelicaExample : public ::testing::TestWithParam<std::pair<const char*, const std::vector<Pinned>*>> {};

TEST_P(ModelicaExample, EventDrivenSequenceIsPinned) {
  const Model m = load(GetParam().first);
  ASSERT_EQ(exact_integrator_refusal(m), "");
  for (const char* integrator : {"cvode_bdf", "exact"}) {
    SCOPED_TRACE(integrator);
    const Result r = run(m, "event_driven", integrator);
    expect_sequence(m, r, *GetParam().second, 1e-8);
    EXPECT_LE(r.stats.energy_residual, 1e-8);
  }
}

// Moreau-Jean at h = 1e-5 s: each step that changes an element's state is an
// event at the step's end, so an event lies within one step after the exact
// instant, and a lock-up the step overshoots by the roundoff of the impulse
// is found one step later: within 2 h.
TEST_P(ModelicaExample, TimeSteppingFollowsTheSequence) {
  const Model m = load(GetParam().first);
  const Result r = run(m, "time_stepping", "auto");
  expect_sequence(m, r, *GetParam().second, 2e-5);
}

INSTANTIATE_TEST_SUITE_P(Msl, ModelicaExample,
                         ::testing::Values(std::make_pair("modelica_coupled_clutches", &kCoupledClutches),
                                           std::make_pair("modelica_friction", &kFriction),
                                           std::make_pair("modelica_backlash", &kBacklash)),
                         [](const auto& info) { return std::string(info.param.first).substr(9); });

// The Backlash example's contacts in closed form. MSL's ElastoBacklash is a
// spring (k = 2e4 N m/rad) with the contact-only damper (c = 50 N m s/rad):
// in contact, with d >= 0 the deflection into the flank, the torque is
// k d + clamp(c d', -k d, k d) on J = 5 kg m^2 (the + flank; the - flank is
// its mirror image). A contact runs through up to three affine phases:
//   A  c d' > k d (entering at d = 0, d' = v > 0): torque 2 k d, so
//      d = (v / w1) sin(w1 t), w1 = sqrt(2 k / J), until d'/d = k / c:
//      tan(w1 t) = w1 c / k;
//   B  unclamped: J d'' + c d' + k d = 0 (damped, a = c / 2J,
//      wd = sqrt(k/J - a^2)) until c d' = -k d (root found by scanning and
//      bisection on the closed form);
//   C  c d' < -k d: torque k d - k d = 0, so d' stays constant and the flank
//      is left when d reaches 0.
// Phases A-C are linear in the entry speed v, so every contact entered at
// d = 0 lasts the same time and leaves at the same fraction e of v (a
// restitution of the law). The first contact starts at rest with d = 67.5
// deg (phases B and C); the flights cross the 45 deg gap at constant speed,
// each 1/e times longer than the one before.
struct ContactExit {
  double duration;  // [s]
  double speed;     // d' when the flank is left (< 0) [rad/s]
};

ContactExit contact_in_closed_form(double d, double v) {
  constexpr double k = 2.0e4, c = 50.0, J = 5.0;
  double t = 0.0;
  if (c * v > k * d) {  // A, from d = 0
    const double w1 = std::sqrt(2.0 * k / J), tA = std::atan(w1 * c / k) / w1;
    d = v * std::sin(w1 * tA) / w1;
    v = v * std::cos(w1 * tA);
    t += tA;
  }
  const double a = c / (2.0 * J), wd = std::sqrt(k / J - a * a), A = d, B = (v + a * d) / wd;  // B
  auto dB = [&](double s) { return std::exp(-a * s) * (A * std::cos(wd * s) + B * std::sin(wd * s)); };
  auto vB = [&](double s) {
    return std::exp(-a * s) * ((wd * B - a * A) * std::cos(wd * s) - (a * B + wd * A) * std::sin(wd * s));
  };
  auto corner = [&](double s) { return c * vB(s) + k * dB(s); };
  double lo = 0.0;
  while (corner(lo + 1e-5) > 0.0) lo += 1e-5;
  double hi = lo + 1e-5;
  for (int i = 0; i < 100; ++i) (corner(0.5 * (lo + hi)) > 0.0 ? lo : hi) = 0.5 * (lo + hi);
  t += lo;
  return {t - dB(lo) / vB(lo), vB(lo)};  // C
}

TEST(ModelicaBacklash, ContactsAreTheClosedForm) {
  const double gap = std::numbers::pi / 4.0;  // MSL's b: twice luztar's freeplay
  ContactExit exit = contact_in_closed_form(std::numbers::pi / 2.0 - gap / 2.0, 0.0);
  std::vector<double> want = {exit.duration};
  const ContactExit entered = contact_in_closed_form(0.0, 1.0);  // per unit entry speed
  while (want.size() < kBacklash.size()) {
    const double speed = -exit.speed;
    want.push_back(want.back() + gap / speed);  // contact
    exit = {entered.duration, entered.speed * speed};
    want.push_back(want.back() + exit.duration);  // separation
  }
  EXPECT_NEAR(entered.duration, 0.0498284969, 1e-10);
  EXPECT_NEAR(-entered.speed, 0.7990395918, 1e-10);  // 1 / 1.2515024
  const Model m = load("modelica_backlash");
  const int e = 1;
  ASSERT_EQ(m.element_names[e], "elasto_backlash");
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    const bool exact = std::string(integrator) == "exact";
    const Result r = run(m, "event_driven", integrator);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), want.size());
    // exact: roundoff of the events' roots, compounded over 21 of them;
    // cvode_bdf: rtol 1e-10 on the flights' speeds, compounded likewise
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(r.events[i].t, want[i], exact ? 1e-9 : 1e-8) << i;
    // each contact lasts the same, each flight 1/e times the one before
    for (std::size_t i = 2; i + 1 < want.size(); i += 2) {
      EXPECT_NEAR(r.events[i].t - r.events[i - 1].t, entered.duration, 1e-6) << i;
      const double flight = r.events[i + 1].t - r.events[i].t, before = r.events[i - 1].t - r.events[i - 2].t;
      EXPECT_NEAR(flight / before, -1.0 / entered.speed, 1e-6) << i;
    }
    // no pull: the torque has the sign of the flank in contact, and is 0 in flight
    const int ne = r.num_elements();
    for (int k = 0; k < r.num_samples(); ++k) {
      const double T = r.element_torque[k * ne + e];
      const int side = r.element_state[k * ne + e];
      if (side == 0) EXPECT_EQ(T, 0.0) << r.time[k];
      else EXPECT_GE(T * side, 0.0) << r.time[k];
    }
  }
}

// models/stribeck_bearing.yaml: with the spindle held by its bearing, the
// motor's angle solves 0.05 q'' + (5 + 0.005) q' + 20 q = 2.75 from q = 0,
// q' = 0.5 (its torque line, the coupling's damping and stiffness), and the
// bearing breaks away when the coupling's torque 20 q + 0.005 q' reaches
// static_ratio x tau_0 = 0.36 N m: at 0.0347331976335 s (roots -95.9303 and
// -4.16969 /s; bisection on the closed form).
TEST(StribeckBearing, FirstBreakAwayWhereTheCouplingReachesThePeak) {
  const Model m = load("stribeck_bearing");
  const double a = 0.05, b = 5.005, c = 20.0, p = 2.75 / c;
  const double d = std::sqrt(b * b - 4 * a * c), r1 = (-b + d) / (2 * a), r2 = (-b - d) / (2 * a);
  const double B = (0.5 + p * r1) / (r2 - r1), A = -p - B;  // q(0) = 0, q'(0) = 0.5
  auto torque = [&](double t) {
    const double q = p + A * std::exp(r1 * t) + B * std::exp(r2 * t);
    const double w = A * r1 * std::exp(r1 * t) + B * r2 * std::exp(r2 * t);
    return c * q + 0.005 * w - 0.36;
  };
  double lo = 0.0, hi = 0.1;
  for (int i = 0; i < 200; ++i) (torque(0.5 * (lo + hi)) < 0.0 ? lo : hi) = 0.5 * (lo + hi);
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    const Result r = run(m, "event_driven", integrator);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_FALSE(r.events.empty());
    EXPECT_EQ(r.events[0].kind, EventKind::break_away);
    EXPECT_NEAR(r.events[0].t, lo, std::string(integrator) == "exact" ? 1e-12 : 1e-9);
    // stick-slip: break-aways and sticks alternate to the end
    for (std::size_t i = 1; i < r.events.size(); ++i)
      EXPECT_EQ(r.events[i].kind, i % 2 == 0 ? EventKind::break_away : EventKind::stick) << i;
    EXPECT_GE(r.events.size(), 40u);
  }
}

}  // namespace
}  // namespace luztar
