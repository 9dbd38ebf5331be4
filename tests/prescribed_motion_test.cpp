// Prescribed motion (core/model_spec.hpp BodySpec::prescribed, issue 19 item
// 5) against closed forms and hand-derived sequences, in both integrators of
// the event-driven solver.
//
// 1. A velocity drive through a spring onto a free inertia. The motor's
//    velocity is w_P = A sin(w t) from angle 0: q_P = (A / w)(1 - cos w t),
//    a_P = A w cos w t. The load (inertia J, at rest) on the shaft
//    x = u = q_load - q_motor (stiffness k, bodies [load, motor]):
//    J q_load'' = -k u, so u'' + W^2 u = -a_P with W^2 = k / J, u(0) = 0,
//    u'(0) = 0 - w_P(0) = 0:
//        u = A w / (W^2 - w^2) (cos W t - cos w t).
//    The shaft acts +k u on the motor, so the drive applies
//        R = I_P a_P - k u.
// 2. An angle drive q_P = A sin(w t) (a steering robot) with a Coulomb clutch
//    (limit T, bodies [wheel, robot]) onto a free wheel (inertia J) at rest.
//    r = T / J. The clutch slips at first (v = w_wheel - w_robot < 0): the
//    wheel speeds up at r until r t = A w cos(w t) (t_stick, where the torque
//    J |a_P| it takes to follow is below T); it follows the robot while
//    J A w^2 |sin w t| <= T, breaking away at t_break = asin(r / (A w^2)) / w
//    (v > 0 after: the robot decelerates faster than r); it then slows at r
//    until w_robot(t_break) - r (t - t_break) = A w cos(w t) (t_stick2), and
//    the sequence repeats every half period with the signs exchanged.
// 3. A bearing on the robot alone (a known torque of its motion: mu w + T_b
//    sgn w) reverses where w_robot = A w cos(w t) crosses 0, t = 1/4 + k/2,
//    and the drive's torque is I a_P + T_brg - T_clutch at every sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <ostream>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "core/model.hpp"
#include "core/signal_paths.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

constexpr double kPi = std::numbers::pi;

struct Integrator {
  const char* name;
  const char* settings;  // its `simulation` keys
  double tolerance;      // on angles [rad] and event times [s]
};
// exact: roundoff; cvode_bdf at rtol 1e-12 (measured below 1e-9 on both cases).
const Integrator kExact{"exact", "integrator: exact", 1e-11};
const Integrator kBdf{"cvode_bdf", "integrator: cvode_bdf, rtol: 1.0e-12, atol: 1.0e-14", 2e-8};

void PrintTo(const Integrator& i, std::ostream* os) { *os << i.name; }

Result run(const std::string& body, const Integrator& how, double t_end, double output_step) {
  const std::string text = "simulation: {t_end: " + std::to_string(t_end) + ", output_step: " +
                           std::to_string(output_step) + ", " + how.settings + "}\n" + body;
  return simulate(io::parse_model(text, "test.yaml", ".", {}));
}

std::vector<double> signal(const Result& r, const std::string& path) { return recorded_signal(r, path); }

// Root of f in [a, b] (a sign change) by bisection, to the last bit.
template <class F>
double bisect(F&& f, double a, double b) {
  const bool fa = f(a) > 0.0;
  for (int i = 0; i < 200; ++i) {
    const double m = 0.5 * (a + b);
    if ((f(m) > 0.0) == fa) a = m;
    else b = m;
  }
  return 0.5 * (a + b);
}

// Case 1.
constexpr double kA = 10.0, kW = 2.0 * kPi, kIP = 0.05, kJ = 0.02, kK = 50.0;
const std::string kSpeedDriven = R"(
bodies:
  motor: {inertia: 0.05, prescribed: {velocity: {sine: {amplitude: 10, frequency: 1}}}}
  load: {inertia: 0.02}
elements:
  shaft: {type: spring, bodies: [load, motor], stiffness: 50}
)";

// Case 1's closed forms at t: the shaft's deflection u, the motor's angle and
// acceleration, and the drive's torque R = I_P a_P - k u.
double shaft_u(double t) {
  const double W2 = kK / kJ;
  return kA * kW / (W2 - kW * kW) * (std::cos(std::sqrt(W2) * t) - std::cos(kW * t));
}
double motor_angle(double t) { return kA / kW * (1.0 - std::cos(kW * t)); }
double motor_acceleration(double t) { return kA * kW * std::cos(kW * t); }
double motor_drive_torque(double t) { return kIP * motor_acceleration(t) - kK * shaft_u(t); }

class PrescribedMotion : public ::testing::TestWithParam<Integrator> {};

// An exact run's energy residual is roundoff (1e-10 relative).
void expect_exact_residual(const Result& r, const Integrator& how) {
  if (std::string(how.name) == "exact") {
    EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10);
  }
}

TEST_P(PrescribedMotion, AVelocityDriveThroughASpringMatchesTheClosedForm) {
  const Integrator& how = GetParam();
  const Result r = run(kSpeedDriven, how, 2.0, 0.01);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const std::vector<double> qp = signal(r, "bodies.motor.angle"), wp = signal(r, "bodies.motor.velocity"),
                            ap = signal(r, "bodies.motor.acceleration"), q = signal(r, "bodies.load.angle"),
                            drive = signal(r, "bodies.motor.drive_torque"),
                            x = signal(r, "elements.shaft.relative_angle"),
                            free = signal(r, "bodies.load.drive_torque");
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const double t = r.time[k], u = shaft_u(t);
    // The drive's own motion, whatever the load does: its velocity and
    // acceleration are the signal's values (roundoff), its angle their integral.
    EXPECT_NEAR(wp[k], kA * std::sin(kW * t), 1e-12) << t;
    EXPECT_NEAR(ap[k], motor_acceleration(t), 1e-12) << t;
    EXPECT_NEAR(qp[k], motor_angle(t), how.tolerance) << t;
    EXPECT_NEAR(x[k], u, how.tolerance) << t;
    EXPECT_NEAR(q[k], motor_angle(t) + u, how.tolerance) << t;
    // R = I_P a_P - k u: the motor's inertia plus the shaft's torque on it.
    EXPECT_NEAR(drive[k], motor_drive_torque(t), kK * how.tolerance + 1e-12) << t;
    EXPECT_EQ(free[k], 0.0);
  }
  // input (the drive's work) = kinetic (both bodies) + elastic: exact to roundoff.
  expect_exact_residual(r, how);
  EXPECT_GT(r.input_work.back(), 1e-3);  // the drive did work
}

// Case 2.
constexpr double kAngle = 1.0, kWheel = 0.01, kClutch = 0.35;
const std::string kSineClutch = R"(
bodies:
  robot: {inertia: 0.1, prescribed: {angle: {sine: {amplitude: 1, frequency: 1}}}}
  wheel: {inertia: 0.01}
elements:
  clutch: {type: friction, bodies: [wheel, robot], coulomb: 0.35}
)";

// Case 2's robot at t: its angle, velocity and acceleration are the angle
// drive's signal and its derivatives (to roundoff).
void expect_robot_on_its_signal(double q, double w, double a, double t) {
  EXPECT_NEAR(q, kAngle * std::sin(kW * t), 1e-14) << t;
  EXPECT_NEAR(w, kAngle * kW * std::cos(kW * t), 1e-13) << t;
  EXPECT_NEAR(a, -kAngle * kW * kW * std::sin(kW * t), 1e-12) << t;
}

struct Expected {
  double t;
  EventKind kind;
  int before, after;
};

// The hand-derived sequence of case 2 up to t_end.
std::vector<Expected> clutch_sequence(double t_end) {
  const double r = kClutch / kWheel;
  auto w_robot = [](double t) { return kAngle * kW * std::cos(kW * t); };
  const double t_stick = bisect([&](double t) { return r * t - w_robot(t); }, 0.0, 0.25);
  // it holds there: the torque to follow is below the limit
  EXPECT_LT(kWheel * kAngle * kW * kW * std::sin(kW * t_stick), kClutch);
  const double t_break = std::asin(r / (kAngle * kW * kW)) / kW;
  const double t_stick2 =
      bisect([&](double t) { return w_robot(t_break) - r * (t - t_break) - w_robot(t); }, 0.33, 0.6);
  EXPECT_LT(kWheel * kAngle * kW * kW * std::abs(std::sin(kW * t_stick2)), kClutch);
  std::vector<Expected> e = {{t_stick, EventKind::stick, -1, 0}};
  for (int half = 0;; ++half) {
    const int s = half % 2 == 0 ? 1 : -1;
    if (t_break + 0.5 * half > t_end) break;
    e.push_back({t_break + 0.5 * half, EventKind::break_away, 0, s});
    if (t_stick2 + 0.5 * half > t_end) break;
    e.push_back({t_stick2 + 0.5 * half, EventKind::stick, s, 0});
  }
  return e;
}

TEST_P(PrescribedMotion, AnAngleDriveSticksAndSlipsAClutchAtTheHandDerivedTimes) {
  const Integrator& how = GetParam();
  const Result r = run(kSineClutch, how, 2.0, 0.01);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const std::vector<Expected> expected = clutch_sequence(2.0);
  ASSERT_EQ(r.events.size(), expected.size());  // 9: stick, then (break, stick) x 4
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(r.events[i].t, expected[i].t, how.tolerance) << i;
    EXPECT_EQ(r.events[i].kind, expected[i].kind) << i;
    EXPECT_EQ(r.events[i].before, expected[i].before) << i;
    EXPECT_EQ(r.events[i].after, expected[i].after) << i;
  }
  // The robot's angle is the signal's; stuck, the wheel turns with it.
  const std::vector<double> q = signal(r, "bodies.robot.angle"), w = signal(r, "bodies.robot.velocity"),
                            ww = signal(r, "bodies.wheel.velocity"), tc = signal(r, "elements.clutch.torque"),
                            drive = signal(r, "bodies.robot.drive_torque"), a = signal(r, "bodies.robot.acceleration");
  const std::vector<std::int8_t> state = [&] {
    std::vector<std::int8_t> s;
    for (std::size_t k = 0; k < r.time.size(); ++k) s.push_back(r.element_state[k]);
    return s;
  }();
  int stuck = 0;
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const double t = r.time[k];
    expect_robot_on_its_signal(q[k], w[k], a[k], t);
    if (state[k] == 0) {
      ++stuck;
      EXPECT_NEAR(ww[k], w[k], 1e-9) << t;
      // the clutch carries what the wheel needs to follow: J a_P (on v = w_wheel - w_robot, -T on the wheel)
      EXPECT_NEAR(-tc[k], kWheel * a[k], 1e-9) << t;
    } else {
      EXPECT_NEAR(std::abs(tc[k]), kClutch, 1e-12) << t;
    }
    // R = I a_P - T_clutch (the clutch acts +T on the robot)
    EXPECT_NEAR(drive[k], 0.1 * a[k] - tc[k], 1e-12) << t;
  }
  EXPECT_GT(stuck, 50);
  expect_exact_residual(r, how);
}

// Case 2 driven by its acceleration (a'' = -A w^2 sin w t from the angle
// drive's initial state), and with a bearing on the robot (case 3).
const std::string kAccelerationClutch = R"(
bodies:
  robot: {inertia: 0.1, velocity: 6.283185307179586, prescribed: {acceleration: {sine: {amplitude: -39.47841760435743, frequency: 1}}}}
  wheel: {inertia: 0.01}
elements:
  clutch: {type: friction, bodies: [wheel, robot], coulomb: 0.35}
)";
const std::string kBearingClutch = R"(
bodies:
  robot: {inertia: 0.1, prescribed: {angle: {sine: {amplitude: 1, frequency: 1}}}}
  wheel: {inertia: 0.01}
elements:
  brg: {type: friction, body: robot, coulomb: 0.5, viscous: 0.1}
  clutch: {type: friction, bodies: [wheel, robot], coulomb: 0.35}
)";

// Case 2 driven by its acceleration instead: a'' = -A w^2 sin(w t) from the
// angle 0 and velocity A w that the angle drive starts with. The same motion,
// so the same sequence (the acceleration's integrals are the exact
// integrator's closed forms; a stick's plastic locking keeps the drive's velocity).
TEST_P(PrescribedMotion, AnAccelerationDriveGivesTheAngleDrivesSequence) {
  const Integrator& how = GetParam();
  const Result r = run(kAccelerationClutch, how, 2.0, 0.01);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const std::vector<Expected> expected = clutch_sequence(2.0);
  ASSERT_EQ(r.events.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(r.events[i].t, expected[i].t, how.tolerance) << i;
    EXPECT_EQ(r.events[i].kind, expected[i].kind) << i;
  }
  const std::vector<double> q = signal(r, "bodies.robot.angle");
  for (std::size_t k = 0; k < r.time.size(); ++k) EXPECT_NEAR(q[k], kAngle * std::sin(kW * r.time[k]), how.tolerance);
  expect_exact_residual(r, how);
}

// Case 3: the clutch's sequence does not change; the bearing reverses at t = 1/4 + k/2.
TEST_P(PrescribedMotion, ABearingOnTheDrivenBodyAloneIsAKnownTorque) {
  const Integrator& how = GetParam();
  const Result r = run(kBearingClutch, how, 2.0, 0.01);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  std::vector<double> reversals;
  std::vector<Expected> clutch;
  for (const EventRecord& e : r.events) {
    if (e.element == 0) {
      EXPECT_EQ(e.kind, EventKind::reversal);
      reversals.push_back(e.t);
    } else {
      clutch.push_back({e.t, e.kind, e.before, e.after});
    }
  }
  ASSERT_EQ(reversals.size(), 4u);
  for (std::size_t i = 0; i < reversals.size(); ++i) EXPECT_NEAR(reversals[i], 0.25 + 0.5 * i, how.tolerance) << i;
  const std::vector<Expected> expected = clutch_sequence(2.0);
  ASSERT_EQ(clutch.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(clutch[i].t, expected[i].t, how.tolerance) << i;
  const std::vector<double> w = signal(r, "bodies.robot.velocity"), a = signal(r, "bodies.robot.acceleration"),
                            tb = signal(r, "elements.brg.torque"), tc = signal(r, "elements.clutch.torque"),
                            drive = signal(r, "bodies.robot.drive_torque");
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const double t = r.time[k];
    // mu w + T_b sgn w; at a reversal (w = 0 to roundoff, t = 1/4 + k/2: a
    // sample on the event, before or after it as the integrator placed it) T_b.
    if (std::abs(w[k]) > 1e-9) EXPECT_NEAR(tb[k], 0.1 * w[k] + 0.5 * (w[k] > 0 ? 1 : -1), 1e-12) << t;
    else EXPECT_NEAR(std::abs(tb[k]), 0.5, 1e-12) << t;
    EXPECT_NEAR(drive[k], 0.1 * a[k] + tb[k] - tc[k], 1e-12) << t;
  }
  expect_exact_residual(r, how);
}

INSTANTIATE_TEST_SUITE_P(BothIntegrators, PrescribedMotion, ::testing::Values(kExact, kBdf),
                         [](const ::testing::TestParamInfo<Integrator>& i) { return std::string(i.param.name); });

// A velocity drive at rest until 0.5 s (then a = 4 rad/s^2: a ramp to 2 rad/s
// at 1 s), a push of 2 t N m on its body, a clutch (0.35 N m) to a wheel, and
// `bearing` (a bearing `brg` of 0.5 N m): run to 0.99 s, whose one event is
// the break-away at 0.5 s (within `how`'s tolerance).
Result resting_drive(const std::string& bearing, const Integrator& how) {
  const Result r = run(R"(
bodies:
  robot: {inertia: 0.1, prescribed: {velocity: {ramp: {start: 0.5, end: 1, final: 2}}}}
  wheel: {inertia: 0.01}
elements:
  push: {type: torque, body: robot, torque: {ramp: {start: 0, end: 1, final: 2}}}
  clutch: {type: friction, bodies: [wheel, robot], coulomb: 0.35}
)" + bearing, how, 0.99, 0.01);
  EXPECT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.events.size(), 1u);
  for (const EventRecord& e : r.events) {
    EXPECT_EQ(e.kind, EventKind::break_away);
    EXPECT_NEAR(e.t, 0.5, how.tolerance);
  }
  return r;
}

// The bearing on the robot alone: at rest with its drive (relative velocity
// and acceleration 0) its torque is undetermined; luztar gives it 0 and the
// drive holds the body (R = -push = -2 t). At 0.5 s the drive starts: the
// bearing slips with 0.5 N m, and the clutch keeps the wheel (needing
// J a = 0.04 < 0.35), R = (I + J) a - (push - 0.5).
TEST(PrescribedMotion, AtRestTheDriveHoldsItsBodyAndItsBearingCarriesNothing) {
  const Result r = resting_drive("  brg: {type: friction, body: robot, coulomb: 0.5}\n", kExact);
  const std::vector<double> tb = signal(r, "elements.brg.torque"), drive = signal(r, "bodies.robot.drive_torque"),
                            w = signal(r, "bodies.robot.velocity");
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const double t = r.time[k];
    if (t < 0.5 - 1e-9) {
      EXPECT_EQ(tb[k], 0.0) << t;
      EXPECT_EQ(w[k], 0.0) << t;
      EXPECT_NEAR(drive[k], -2.0 * t, 1e-12) << t;
    } else {
      EXPECT_NEAR(tb[k], 0.5, 1e-15) << t;
      EXPECT_NEAR(w[k], 4.0 * (t - 0.5), 1e-12) << t;
      EXPECT_NEAR(drive[k], 0.11 * 4.0 - (2.0 * t - 0.5), 1e-12) << t;
    }
  }
  EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10);
}

// The bearing on the wheel instead: at rest, the clutch and the bearing both
// stuck lock robot and wheel to the base (a loop through the base: cvode_bdf).
// The drive holds its body against the push (R = -2 t) and the links carry
// only the wheel's loads (none): 0, not the push beyond their limits. From
// 0.5 s the clutch slips (-0.35 on the robot's side, v < 0), the bearing
// holds the wheel (0.35 < 0.5), and R = I a - (push - 0.35).
TEST(PrescribedMotion, ADriveAtRestLockedToTheBaseHoldsItsOwnLoad) {
  const Result r = resting_drive("  brg: {type: friction, body: wheel, coulomb: 0.5}\n", kBdf);
  const std::vector<double> tc = signal(r, "elements.clutch.torque"), tb = signal(r, "elements.brg.torque"),
                            drive = signal(r, "bodies.robot.drive_torque"), ww = signal(r, "bodies.wheel.velocity");
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const double t = r.time[k];
    EXPECT_EQ(ww[k], 0.0) << t;
    if (t < 0.5 - 1e-9) {
      EXPECT_EQ(tc[k], 0.0) << t;
      EXPECT_EQ(tb[k], 0.0) << t;
      EXPECT_NEAR(drive[k], -2.0 * t, 1e-12) << t;
    } else {
      EXPECT_NEAR(tc[k], -0.35, 1e-12) << t;
      EXPECT_NEAR(tb[k], 0.35, 1e-12) << t;
      EXPECT_NEAR(drive[k], 0.1 * 4.0 - (2.0 * t - 0.35), 1e-9) << t;
    }
  }
}

// A free wheel between two drives at the same speed, a clutch to each: both
// stick at t_start and would lock the two drives into one cluster, which no
// drive moves alone: the run stops at once naming them (a drive at another
// speed makes its clutch slip instead, and the run goes on).
TEST(PrescribedMotion, TwoDrivesLockedTogetherStopTheRunNamingThem) {
  const std::string model = R"(
bodies:
  a: {inertia: 0.1, prescribed: {velocity: 1}}
  f: {inertia: 0.01, velocity: 1}
  b: {inertia: 0.1, prescribed: {velocity: SPEED}}
elements:
  c1: {type: friction, bodies: [a, f], coulomb: 0.35}
  c2: {type: friction, bodies: [f, b], coulomb: 0.35}
)";
  const std::size_t at = model.find("SPEED");
  auto with = [&](const std::string& speed) { return model.substr(0, at) + speed + model.substr(at + 5); };
  const Result r = run(with("1"), kBdf, 1.0, 0.1);
  EXPECT_EQ(r.status, StepStatus::solver_failure);
  EXPECT_NE(r.message.find("prescribed body 'a' and prescribed body 'b' are locked together at t = 0 s"),
            std::string::npos) << r.message;
  const Result goes_on = run(with("{sine: {amplitude: 0.1, frequency: 1, offset: 1}}"), kBdf, 1.0, 0.1);
  EXPECT_EQ(goes_on.status, StepStatus::reached_time) << goes_on.message;
  const std::vector<double> wf = signal(goes_on, "bodies.f.velocity");
  for (double v : wf) EXPECT_NEAR(v, 1.0, 1e-12);  // it follows a (acceleration 0); c2 slips
}

// An acceleration drive: q = q0 + w0 t + a t^2 / 2 from the body's initial
// angle and velocity (a step of the acceleration at 0.5 s is no impulse),
// with a torque on it: R = I a - tau.
TEST(PrescribedMotion, AnAccelerationDriveIntegratesFromItsInitialState) {
  for (const Integrator& how : {kExact, kBdf}) {
    const Result r = run(R"(
bodies:
  sled: {kind: translational, mass: 2, position: 0.1, velocity: 1, prescribed: {acceleration: {step: {time: 0.5, initial: 2, final: -1}}}}
elements:
  push: {type: force, body: sled, force: 3}
)", how, 1.0, 0.05);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<double> q = signal(r, "bodies.sled.angle"), f = signal(r, "bodies.sled.drive_torque");
    for (std::size_t k = 0; k < r.time.size(); ++k) {
      const double t = r.time[k], a = t < 0.5 - 1e-9 ? 2.0 : -1.0;
      const double x = t < 0.5 ? 0.1 + t + t * t : 0.1 + 0.5 + 0.25 + 2.0 * (t - 0.5) - 0.5 * (t - 0.5) * (t - 0.5);
      EXPECT_NEAR(q[k], x, how.tolerance * 10) << how.name << " " << t;
      EXPECT_NEAR(f[k], 2.0 * a - 3.0, 1e-12) << how.name << " " << t;
    }
    EXPECT_EQ(r.body_translational[0], 1);
  }
}

// luztar reduce keeps the drive: a massless node between two springs is
// eliminated (series springs, Theorem 3.6), the prescription written back,
// and the reduced model reads back and runs as the original.
TEST(PrescribedMotion, AReducedModelKeepsItsDrive) {
  const std::string text = R"(
simulation: {t_end: 1.0, output_step: 0.01, integrator: exact}
signals: {speed: {sine: {amplitude: 60, frequency: 2}}}
bodies:
  motor: {inertia: 0.05, angle: 0.2, prescribed: {velocity: speed}}
  node: {inertia: 0}
  load: {inertia: 0.02}
elements:
  k1: {type: spring, bodies: [motor, node], stiffness: 100}
  k2: {type: spring, bodies: [node, load], stiffness: 100}
)";
  const ModelSpec spec = io::parse_model_spec(text, "test.yaml", ".");
  const Reduction reduction = validate_and_reduce(spec);
  const std::string written = io::to_yaml(reduction.spec);
  EXPECT_NE(written.find("prescribed"), std::string::npos) << written;
  EXPECT_EQ(written.find("node"), std::string::npos) << written;
  const Result a = simulate(io::parse_model(text, "test.yaml", ".", {}));
  const Result b = simulate(io::parse_model(written, "reduced.yaml", ".", {}));
  ASSERT_EQ(a.status, StepStatus::reached_time) << a.message;
  ASSERT_EQ(b.status, StepStatus::reached_time) << b.message;
  const std::vector<double> qa = signal(a, "bodies.load.angle"), qb = signal(b, "bodies.load.angle"),
                            ra = signal(a, "bodies.motor.drive_torque"), rb = signal(b, "bodies.motor.drive_torque"),
                            pa = signal(a, "bodies.motor.angle");
  ASSERT_EQ(qa.size(), qb.size());
  for (std::size_t k = 0; k < qa.size(); ++k) {
    EXPECT_NEAR(qa[k], qb[k], 1e-12);
    EXPECT_NEAR(ra[k], rb[k], 1e-10);
  }
  EXPECT_NEAR(pa.front(), 0.2, 0.0);  // the initial angle of a velocity drive is the body's
}

// A drive's torque is a sweep metric like any signal path: the peak |R| over
// the samples, and its unit N m.
TEST(PrescribedMotion, TheDriveTorqueIsASweepMetric) {
  const std::string text = "simulation: {t_end: 1.0, output_step: 0.01, integrator: exact}\n" + kSpeedDriven;
  const Model model = io::parse_model(text, "test.yaml", ".", {});
  MetricSpec peak;  // as a sweep file's {peak_abs: bodies.motor.drive_torque} reads
  peak.kind = MetricSpec::Kind::peak_abs;
  peak.signal = "bodies.motor.drive_torque";
  EXPECT_EQ(peak.unit(), "N m");
  check_metric(peak, model);
  const Result r = simulate(model);
  double expected = 0.0;
  for (double v : signal(r, peak.signal)) expected = std::max(expected, std::abs(v));
  EXPECT_GT(expected, 1.0);
  EXPECT_EQ(compute_metrics({peak}, r).at(0), expected);
}

// An acceleration drive set by a host (an input, held between its settings):
// the robot at rest until 0.5 s, then a = 2 rad/s^2. Its clutch to the wheel
// (0.35 N m; the wheel needs J a = 0.02) stays stuck: both turn at
// w = 2 (t - 0.5), and the drive applies (I + J) a = 0.22 N m. Both with and
// without the input fast path (an input change that keeps the structure).
TEST(PrescribedMotion, AnAccelerationDriveFollowsAHostsInput) {
  const Model model = io::parse_model(R"(
simulation: {t_end: 2.0, output_step: 0.01, integrator: exact}
signals: {accel: {input: 0}}
bodies:
  robot: {inertia: 0.1, prescribed: {acceleration: accel}}
  wheel: {inertia: 0.01}
elements:
  clutch: {type: friction, bodies: [wheel, robot], coulomb: 0.35}
)", "test.yaml", ".", {});
  for (bool fast : {false, true}) {
    Simulator sim(model);
    sim.set_input_fast_path(fast);
    const OutputId w = sim.output("wheel.velocity"), drive = sim.output("robot.drive_torque");
    ASSERT_EQ(sim.advance_to(0.5), StepStatus::reached_time);
    EXPECT_EQ(sim.value(w), 0.0);
    sim.set_input(sim.input("accel"), 2.0);
    ASSERT_EQ(sim.advance_to(1.0), StepStatus::reached_time) << sim.message();
    EXPECT_NEAR(sim.value(w), 1.0, 1e-12) << fast;
    EXPECT_NEAR(sim.value(drive), 0.22, 1e-12) << fast;
  }
}

// A drive's torque is an output of the Simulator by its path, and 0 for a free body.
TEST(PrescribedMotion, TheDriveTorqueIsASimulatorOutput) {
  const Model model = io::parse_model("simulation: {t_end: 1.0, output_step: 0.01, integrator: exact}\n" + kSpeedDriven,
                                      "test.yaml", ".", {});
  Simulator sim(model);  // (the Simulator reads the Model it is given)
  const OutputId drive = sim.output("bodies.motor.drive_torque"), free = sim.output("load.drive_torque");
  ASSERT_EQ(sim.advance_to(0.25), StepStatus::reached_time);
  const double W2 = kK / kJ, t = 0.25;
  const double u = kA * kW / (W2 - kW * kW) * (std::cos(std::sqrt(W2) * t) - std::cos(kW * t));
  EXPECT_NEAR(sim.value(drive), kIP * kA * kW * std::cos(kW * t) - kK * u, 1e-9);
  EXPECT_EQ(sim.value(free), 0.0);
}

// A link (ratio 2) at a driven shaft starts from the drive's velocity: w_a =
// 1 + t, so b (0.5 kg m^2) starts at 0.5 rad/s and speeds up at 0.5 rad/s^2;
// the link's torque lambda (-lambda on a, +2 lambda on b) is J_b w_b' / 2 =
// 0.125 N m and the drive's R = I_a a_a + lambda = 0.135 N m. The start check
// read a driven body's velocity as the 0 of the field left out: it refused
// b = 0.5 and took b = 0, which the run then set to 0.5 (a new-user hunt;
// tests/bad_inputs/body_prescribed_link_start.yaml).
const std::string kLinkAtADrive = R"(
bodies:
  a: {inertia: 0.01, prescribed: {velocity: {ramp: {start: 0, end: 10, initial: 1, final: 11}}}}
  b: {inertia: 0.5, velocity: 0.5}
elements:
  l: {type: link, bodies: [a, b], ratio: 2}
)";
TEST_P(PrescribedMotion, ALinkAtADrivenShaftStartsFromTheDrivesVelocity) {
  const Result r = run(kLinkAtADrive, GetParam(), 1.0, 0.25);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const std::vector<double> wb = signal(r, "bodies.b.velocity"), tl = signal(r, "elements.l.torque"),
                            drive = signal(r, "bodies.a.drive_torque");
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    EXPECT_NEAR(wb[k], 0.5 * (1.0 + r.time[k]), GetParam().tolerance) << r.time[k];
    EXPECT_NEAR(std::abs(tl[k]), 0.125, 1e-9) << r.time[k];
    EXPECT_NEAR(drive[k], 0.135, 1e-9) << r.time[k];
  }
  expect_exact_residual(r, GetParam());
}

// The time stepper (solvers/time_stepping.cpp, theta = 1/2) on the same
// cases: a driven body's velocity at each step's end is its drive's, its
// displacement the signal's integral, and its drive torque what balances its
// own equation of the step (the step's mean). Moreau-Jean is second order
// between events and resolves an event to its step.
Integrator stepper(double h) {
  static std::string settings;  // (Integrator holds a pointer)
  settings = "solver: time_stepping, theta: 0.5, step: " + std::to_string(h);
  return {"time_stepping", settings.c_str(), h};
}

// Case 1 at h = 1e-3 and 5e-4 (the output grid on step ends): the load's
// angle error falls by 4 (order 2), the drive's own motion is the signal's,
// and its torque (the step's mean) converges to I_P a_P - k u at the step's
// middle. Measured: load angle error 5.26e-4 and 1.32e-4 rad (the trapezoidal
// rule's phase lag of the shaft mode, (W h)^2 / 12 a radian: 0.02 rad after
// W t = 100 rad on u's amplitude 0.026 rad), drive torque error 2.63e-2 and
// 6.58e-3 N m, energy residual 1.3e-12 and 3.2e-12 relative (theta = 1/2
// books the balance exactly up to roundoff).
TEST(PrescribedMotionTimeStepping, AVelocityDriveThroughASpringConvergesAtOrderTwo) {
  std::vector<double> angle_error, torque_error;
  for (double h : {1e-3, 5e-4}) {
    const Result r = run(kSpeedDriven, stepper(h), 2.0, 0.01);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<double> qp = signal(r, "bodies.motor.angle"), wp = signal(r, "bodies.motor.velocity"),
                              ap = signal(r, "bodies.motor.acceleration"), q = signal(r, "bodies.load.angle"),
                              drive = signal(r, "bodies.motor.drive_torque");
    double e_angle = 0.0, e_torque = 0.0;
    for (std::size_t k = 0; k < r.time.size(); ++k) {
      const double t = r.time[k];
      EXPECT_NEAR(wp[k], kA * std::sin(kW * t), 1e-12) << t;
      EXPECT_NEAR(ap[k], motor_acceleration(t), 1e-12) << t;
      // its angle: the velocity's integral by 3-point Gauss per step (O(h^7) a step)
      EXPECT_NEAR(qp[k], motor_angle(t), 1e-11) << t;
      e_angle = std::max(e_angle, std::abs(q[k] - (motor_angle(t) + shaft_u(t))));
      // the torque is the mean of the step ending at t: its closed form at t - h/2 to O(h^2)
      if (k > 0) e_torque = std::max(e_torque, std::abs(drive[k] - motor_drive_torque(t - h / 2.0)));
    }
    angle_error.push_back(e_angle);
    torque_error.push_back(e_torque);
    EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10) << h;
    EXPECT_GT(r.input_work.back(), 1e-3);
  }
  EXPECT_LT(angle_error[0], 6e-4);
  EXPECT_LT(torque_error[0], 3e-2);
  EXPECT_NEAR(angle_error[0] / angle_error[1], 4.0, 0.4);  // order 2
  EXPECT_NEAR(torque_error[0] / torque_error[1], 4.0, 0.4);
}

// The events of a time-stepping run of case 2 against the hand-derived
// sequence: the same kinds and states, each logged at the end of the step
// that contains it (within one step h after it).
void expect_clutch_sequence_within_a_step(const Result& r, double h) {
  const std::vector<Expected> expected = clutch_sequence(2.0);
  ASSERT_EQ(r.events.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_GE(r.events[i].t, expected[i].t - 1e-12) << i;
    EXPECT_LE(r.events[i].t, expected[i].t + h) << i;
    EXPECT_EQ(r.events[i].kind, expected[i].kind) << i;
    EXPECT_EQ(r.events[i].before, expected[i].before) << i;
    EXPECT_EQ(r.events[i].after, expected[i].after) << i;
  }
}

// Case 2 (an angle drive with a clutch) at h = 1e-3: the hand-derived stick
// and break-away sequence, each event at the end of the step that contains
// it (within one step), the robot's motion the signal's, and the drive's
// torque I a - T_clutch up to the step mean's O(h) (the clutch's and the
// drive's torques are the step's means, a_P the sample's).
TEST(PrescribedMotionTimeStepping, AnAngleDriveSticksAndSlipsAClutchWithinAStep) {
  const double h = 1e-3;
  const Result r = run(kSineClutch, stepper(h), 2.0, 0.01);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  expect_clutch_sequence_within_a_step(r, h);
  const std::vector<double> q = signal(r, "bodies.robot.angle"), w = signal(r, "bodies.robot.velocity"),
                            ww = signal(r, "bodies.wheel.velocity"), tc = signal(r, "elements.clutch.torque"),
                            drive = signal(r, "bodies.robot.drive_torque"), a = signal(r, "bodies.robot.acceleration");
  int stuck = 0;
  for (std::size_t k = 1; k < r.time.size(); ++k) {
    const double t = r.time[k];
    expect_robot_on_its_signal(q[k], w[k], a[k], t);
    if (r.element_state[k] == 0) {
      ++stuck;
      EXPECT_NEAR(ww[k], w[k], 1e-9) << t;
    } else {
      EXPECT_NEAR(std::abs(tc[k]), kClutch, 1e-12) << t;
    }
    // |a'| <= A w^3 = 248 rad/s^3: the step's mean acceleration is within 0.124 rad/s^2 of a_P
    EXPECT_NEAR(drive[k], 0.1 * a[k] - tc[k], 0.11 * 248.0 * h / 2.0) << t;
  }
  EXPECT_GT(stuck, 50);
  EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10);
}

// Case 2 driven by its acceleration: the velocity and angle are the
// integrals of the signal, so the same sequence within a step.
TEST(PrescribedMotionTimeStepping, AnAccelerationDriveGivesTheAngleDrivesSequence) {
  const double h = 1e-3;
  const Result r = run(kAccelerationClutch, stepper(h), 2.0, 0.01);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  expect_clutch_sequence_within_a_step(r, h);
  const std::vector<double> q = signal(r, "bodies.robot.angle");
  for (std::size_t k = 0; k < r.time.size(); ++k) EXPECT_NEAR(q[k], kAngle * std::sin(kW * r.time[k]), 1e-11);
  EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10);
}

// Case 3: the bearing on the robot alone is a known torque (no row of the
// LCP): it reverses in the step where w_robot crosses 0 (t = 1/4 + k/2) and
// the clutch's sequence does not change.
TEST(PrescribedMotionTimeStepping, ABearingOnTheDrivenBodyAloneIsAKnownTorque) {
  const double h = 1e-3;
  const Result r = run(kBearingClutch, stepper(h), 2.0, 0.01);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  std::vector<double> reversals, clutch;
  for (const EventRecord& e : r.events) {
    if (e.element == 0) {
      EXPECT_EQ(e.kind, EventKind::reversal);
      reversals.push_back(e.t);
    } else {
      clutch.push_back(e.t);
    }
  }
  ASSERT_EQ(reversals.size(), 4u);
  for (std::size_t i = 0; i < reversals.size(); ++i) {
    EXPECT_GE(reversals[i], 0.25 + 0.5 * i - 1e-12) << i;
    EXPECT_LE(reversals[i], 0.25 + 0.5 * i + h + 1e-12) << i;
  }
  const std::vector<Expected> expected = clutch_sequence(2.0);
  ASSERT_EQ(clutch.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(clutch[i], expected[i].t, h) << i;
  const std::vector<double> w = signal(r, "bodies.robot.velocity"), tb = signal(r, "elements.brg.torque");
  for (std::size_t k = 1; k < r.time.size(); ++k) {  // mu w + T_b sgn w at the step's end
    if (std::abs(w[k]) > 1e-9) {
      EXPECT_NEAR(tb[k], 0.1 * w[k] + 0.5 * (w[k] > 0 ? 1 : -1), 1e-12) << r.time[k];
    }
  }
  EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10);
}

// Once refused (tests/bad_inputs/body_prescribed_time_stepping.yaml): a
// constant-speed motor (10 rad/s) through a spring (k = 10) onto a load at
// rest (J = 1). With y = q_load - 10 t: y'' = -(k/J) y, y(0) = 0, y'(0) = -10,
// so q_load = 10 t - (10/W) sin W t, W = sqrt(10), and the drive applies the
// shaft's torque R = k x = k (10/W) sin W t (x = q_motor - q_load), its step
// mean that at the step's middle. At h = 1e-4, measured: 8.3e-8 rad (the
// trapezoidal rule's phase lag, (W h)^2 / 12 a radian) and 8.4e-7 N m.
TEST(PrescribedMotionTimeStepping, TheOnceRefusedModelRunsToItsClosedForm) {
  const Model model = io::parse_model(R"(
simulation: {t_end: 1.0, output_step: 0.01, solver: time_stepping, step: 1.0e-4}
bodies: {motor: {inertia: 1, prescribed: {velocity: 10}}, load: {inertia: 1}}
elements:
  shaft: {type: spring, bodies: [motor, load], stiffness: 10}
)", "test.yaml", ".", {});
  const Result r = simulate(model);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const double W = std::sqrt(10.0);
  const std::vector<double> q = signal(r, "bodies.load.angle"), qm = signal(r, "bodies.motor.angle"),
                            drive = signal(r, "bodies.motor.drive_torque");
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const double t = r.time[k];
    EXPECT_NEAR(qm[k], 10.0 * t, 1e-11) << t;  // (10^4 steps' sums of 1e-3)
    EXPECT_NEAR(q[k], 10.0 * t - 10.0 / W * std::sin(W * t), 1e-6) << t;
    if (k > 0) {
      EXPECT_NEAR(drive[k], 10.0 * 10.0 / W * std::sin(W * (t - 0.5e-4)), 1e-5) << t;  // the step's mean
    }
  }
  EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10);
}

// The link at a driven shaft in the time stepper: its row (an unbounded
// impulse) holds w_b = w_a / 2 at every step's end, with the drive's velocity
// in the row's free velocity, so b follows exactly; the link's torque and
// the drive's are constant (0.125 and 0.135 N m), as in the event-driven run.
TEST(PrescribedMotionTimeStepping, ALinkAtADrivenShaftFollowsTheDrive) {
  const Result r = run(kLinkAtADrive, stepper(1e-3), 1.0, 0.25);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const std::vector<double> wb = signal(r, "bodies.b.velocity"), tl = signal(r, "elements.l.torque"),
                            drive = signal(r, "bodies.a.drive_torque");
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    EXPECT_NEAR(wb[k], 0.5 * (1.0 + r.time[k]), 1e-12) << r.time[k];
    EXPECT_NEAR(std::abs(tl[k]), 0.125, 1e-9) << r.time[k];
    EXPECT_NEAR(drive[k], 0.135, 1e-9) << r.time[k];
  }
  EXPECT_LT(std::abs(r.stats.energy_residual), 1e-10);
}

}  // namespace
}  // namespace luztar
