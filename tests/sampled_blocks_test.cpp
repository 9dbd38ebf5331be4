// Complementarity blocks in a model's signal path (core/signal.hpp): the
// memoryless dead zone and saturation in continuous time, and the sampled
// blocks (hold, play, saturated integrator, relay) closing control loops with
// measurements, run by both solvers.
//
// The oracle of a sampled loop is its exact discretisation: between instants
// the torque u_n is constant, and a body of inertia I on a viscous bearing mu
// (I v' = u - mu v) moves in closed form over the period T:
//   v(T) = u/mu + (v0 - u/mu) e^(-T/tau),  q(T) = q0 + u/mu T + (v0 - u/mu) tau (1 - e^(-T/tau)),
// tau = I/mu. The blocks' rules at each instant are written out again here
// from their definitions (not through the library's block classes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <functional>
#include <string>

#include "core/errors.hpp"
#include "io/hdf5_reader.hpp"
#include "io/hdf5_writer.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "model_builder.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

Model parse(const std::string& text) { return assemble(io::parse_model_spec(text, "loop.yaml", ".")); }

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

void hold_step(double I, double mu, double u, double T, double& q, double& v) {
  const double vinf = u / mu, tau = I / mu, e = std::exp(-T / tau);
  q += vinf * T + (v - vinf) * tau * (1.0 - e);
  v = vinf + (v - vinf) * e;
}

// One body `load` (I = 1, viscous bearing mu = 0.5) under the torque `torque`.
std::string loop_model(const std::string& signals, const std::string& torque, const std::string& simulation) {
  return "name: loop\nsimulation: {" + simulation + "}\nsignals:\n" + signals +
         "bodies:\n  load: {inertia: 1.0}\nelements:\n"
         "  motor: {type: torque, body: load, torque: " + torque + "}\n"
         "  bearing: {type: friction, body: load, coulomb: 0, viscous: 0.5}\n";
}

// The run's angle, velocity and motor torque at the instants n T (the output
// grid) against the recursion `control` (u_n from q_n, v_n), n = 0..N.
void expect_follows(const Result& r, double T, int N, const std::function<double(int, double, double)>& control,
                    double tol_q, double tol_u) {
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_GE(static_cast<int>(r.time.size()), N + 1);
  double q = 0.0, v = 0.0, worst_q = 0.0, worst_u = 0.0;
  for (int n = 0; n <= N; ++n) {
    ASSERT_NEAR(r.time[n], n * T, 1e-12);
    worst_q = std::max({worst_q, std::abs(test::angle(r, static_cast<int>(n), 0) - q), std::abs(test::velocity(r, n, 0) - v)});
    const double u = control(n, q, v);
    worst_u = std::max(worst_u, std::abs(test::element_torque(r, n, 0) - u));
    hold_step(1.0, 0.5, u, T, q, v);
  }
  EXPECT_LT(worst_q, tol_q);
  EXPECT_LT(worst_u, tol_u);
}

// A PI position controller at 100 Hz with anti-windup (a saturated integrator)
// and a saturated motor: the error is measured at each instant, the integral
// and the command follow in the same instant, the torque holds until the next.
const char* kPiSignals =
    "  error: {sum: [1.0, {product: [-1.0, {angle: load}]}]}\n"
    "  integral: {saturated_integrator: {of: error, lower: -0.3, upper: 0.3, period: 0.01}}\n"
    "  command: {hold: {of: {sum: [{product: [4.0, error]}, {product: [2.0, integral]}]}, period: 0.01}}\n";
const char* kPiTorque = "{saturation: {of: command, lower: -1.0, upper: 1.0}}";

struct PiRecursion {
  double integral = 0.0;
  std::vector<double> held;  // (integral, command) at each instant
  int saturated = 0, wound_up = 0;  // instants with the motor / the integrator at a bound
  double operator()(int n, double q, double) {
    const double e = 1.0 - q;
    integral = std::clamp(integral + (n == 0 ? 0.0 : 0.01 * e), -0.3, 0.3);  // no step before the first instant
    const double command = 4.0 * e + 2.0 * integral;
    held.insert(held.end(), {integral, command});
    saturated += std::abs(command) > 1.0;
    wound_up += std::abs(integral) == 0.3;
    return std::clamp(command, -1.0, 1.0);
  }
};

TEST(SampledBlocks, PiControllerWithAntiWindupFollowsItsExactDiscretisation) {
  const Model m = parse(loop_model(kPiSignals, kPiTorque, "t_end: 6.0, output_step: 0.01, rtol: 1.0e-11, atol: 1.0e-12"));
  ASSERT_EQ(m.sampled.size(), 2u);
  EXPECT_EQ(m.sampled_names[0], "integral");  // read by the command: sampled first
  EXPECT_EQ(m.sampled_names[1], "command");
  const Result r = simulate(m);
  PiRecursion pi;
  expect_follows(r, 0.01, 600, std::ref(pi), 1e-8, 1e-7);
  // Both bounds were met (the test covers the kinks), and the loop settled.
  EXPECT_GT(pi.saturated, 10);
  EXPECT_GT(pi.wound_up, 10);
  EXPECT_NEAR(test::angle(r, 600, 0), 1.0, 0.05);
  // The blocks' held outputs are part of the result (and of its files).
  ASSERT_EQ(r.block_names, (std::vector<std::string>{"integral", "command"}));
  // the command drives the motor (through a saturation): a torque; the integral's unit is the model's secret
  EXPECT_EQ(r.block_units, (std::vector<std::string>{"unit of the signal", "N m"}));
  ASSERT_EQ(r.block_output.size(), 2 * r.time.size());
  for (std::size_t i = 0; i < pi.held.size(); ++i) EXPECT_NEAR(r.block_output[i], pi.held[i], 1e-7) << i;
  const std::string h5 = testing::TempDir() + "/pi_loop.h5";
  io::write_hdf5(h5, m, m.simulation, r);
  const Result back = io::read_hdf5(h5).result;
  std::remove(h5.c_str());
  EXPECT_EQ(back.block_names, r.block_names);
  EXPECT_EQ(back.block_units, r.block_units);  // the datasets' units attributes
  EXPECT_EQ(back.block_output, r.block_output);
  // Energy: the motor's work is the kinetic energy plus the bearing's dissipation.
  const std::size_t last = r.time.size() - 1;
  EXPECT_NEAR(r.input_work[last], r.kinetic[last] + r.dissipated[last], 1e-8 * r.input_work[last]);
}

TEST(SampledBlocks, TimeSteppingSamplesAtItsStepBoundaries) {
  // h divides T: the instants are step boundaries, and theta = 1/2 with the
  // viscous term implicit is second order between them. (The torque the time
  // stepper reports at t_n is the mean over the step ending there, u_n-1:
  // only the motion is compared.)
  const Model m = parse(loop_model(kPiSignals, kPiTorque,
                                   "t_end: 3.0, output_step: 0.01, solver: time_stepping, step: 1.0e-3"));
  PiRecursion pi;
  expect_follows(simulate(m), 0.01, 300, std::ref(pi), 1e-6, 1.0);
}

TEST(SampledBlocks, RelayWithHysteresisAndPlayFollowTheirRules) {
  // Bang-bang control of the position with a relay (threshold 0.05, +-0.4 N m)
  // at 200 Hz: a limit cycle around the target.
  {
    const std::string signals =
        "  bang: {relay: {of: {sum: [0.5, {product: [-1.0, {angle: load}]}]}, threshold: 0.05, value: 0.4, "
        "period: 0.005, initial: -1}}\n";
    const Result r = simulate(parse(loop_model(signals, "bang", "t_end: 8.0, output_step: 0.005, rtol: 1.0e-11, atol: 1.0e-12")));
    int s = -1, switches = 0;
    expect_follows(r, 0.005, 1600, [&](int, double q, double) {
      const double x = 0.5 - q;
      const int before = s;
      if (x > 0.05) s = 1;
      if (x < -0.05) s = -1;
      switches += s != before;
      return 0.4 * s;
    }, 1e-8, 1e-12);
    EXPECT_GE(switches, 4);  // the limit cycle
  }
  // A position command through a play (a linkage with backlash 0.2) and a P
  // controller on the played command, both at 100 Hz.
  {
    const std::string signals =
        "  played: {play: {of: {sine: {amplitude: 1.0, frequency: 0.25}}, width: 0.2, period: 0.01}}\n";
    const std::string torque =
        "{hold: {of: {sum: [{product: [3.0, played]}, {product: [-3.0, {angle: load}]}]}, period: 0.01}}";
    const Result r = simulate(parse(loop_model(signals, torque, "t_end: 8.0, output_step: 0.01, rtol: 1.0e-11, atol: 1.0e-12")));
    double y = 0.0;
    int held = 0;  // instants where the play holds its output
    expect_follows(r, 0.01, 800, [&](int n, double q, double) {
      const double x = std::sin(2.0 * M_PI * 0.25 * n * 0.01);
      const double next = std::min(x + 0.1, std::max(x - 0.1, y));
      held += next == y;
      y = next;
      return 3.0 * (y - q);
    }, 1e-8, 1e-8);
    EXPECT_GT(held, 50);
  }
}

TEST(SampledBlocks, DeadZoneAndSaturationActInContinuousTime) {
  // A free body (I = 2) under dead_zone(r) and then saturation(r) of the ramp
  // r(t) = -2 + 4 t on [0, 1]. With V(t) = I v(t) = integral of the torque:
  // dead zone (-0.5, 1): r + 0.5 until t = 0.375, 0 until t = 0.75, r - 1 after:
  //   V = 2 t^2 - 1.5 t; V(0.375) = -0.28125; after 0.75: V = 2 t^2 - 3 t + 0.84375.
  // saturation [-1, 0.5]: -1 until t = 0.25, r until t = 0.625, 0.5 after:
  //   V = -t; then 2 t^2 - 2 t + 0.125; V(0.625) = -0.34375; then -0.34375 + 0.5 (t - 0.625).
  auto model = [](const std::string& block) {
    return "name: open\nsimulation: {t_end: 1.0, output_step: 0.125, rtol: 1.0e-11, atol: 1.0e-12}\n"
           "bodies:\n  b: {inertia: 2.0}\nelements:\n  drive: {type: torque, body: b, torque: {" + block +
           ": {of: {ramp: {start: 0, end: 1, initial: -2, final: 2}}, lower: " +
           (block == "dead_zone" ? "-0.5, upper: 1.0" : "-1.0, upper: 0.5") + "}}}\n";
  };
  auto dz = [](double t) { return t <= 0.375 ? 2 * t * t - 1.5 * t : t <= 0.75 ? -0.28125 : 2 * t * t - 3 * t + 0.84375; };
  auto sat = [](double t) {
    return t <= 0.25 ? -t : t <= 0.625 ? 2 * t * t - 2 * t + 0.125 : -0.34375 + 0.5 * (t - 0.625);
  };
  const Result rd = simulate(parse(model("dead_zone")));
  const Result rs = simulate(parse(model("saturation")));
  ASSERT_EQ(rd.time.size(), 9u);
  for (std::size_t n = 0; n < rd.time.size(); ++n) {
    const double t = rd.time[n], r = -2.0 + 4.0 * t;
    EXPECT_NEAR(test::velocity(rd, n, 0), dz(t) / 2.0, 1e-9) << t;
    EXPECT_NEAR(test::velocity(rs, n, 0), sat(t) / 2.0, 1e-9) << t;
    EXPECT_NEAR(test::element_torque(rd, n, 0), r > 1.0 ? r - 1.0 : r < -0.5 ? r + 0.5 : 0.0, 1e-12);
    EXPECT_NEAR(test::element_torque(rs, n, 0), std::clamp(r, -1.0, 0.5), 1e-12);
  }
}

TEST(SampledBlocks, ANamedBlockIsOneBlockWhereverItIsUsed) {
  const std::string text =
      "name: shared\nsimulation: {t_end: 1.0, output_step: 0.01}\nsignals:\n"
      "  bang: {relay: {of: {sine: {amplitude: 1, frequency: 2}}, threshold: 0.5, value: 0.2, period: 0.01}}\n"
      "bodies:\n  a: {inertia: 1}\n  b: {inertia: 1}\nelements:\n"
      "  ta: {type: torque, body: a, torque: bang}\n"
      "  tb: {type: torque, body: b, torque: {product: [2, bang]}}\n";
  const Model m = parse(text);
  ASSERT_EQ(m.sampled.size(), 1u);
  const Result r = simulate(m);
  int flips = 0;
  for (std::size_t n = 0; n < r.time.size(); ++n) {
    EXPECT_EQ(test::element_torque(r, n, 1), 2.0 * test::element_torque(r, n, 0));
    if (n > 0) flips += test::element_torque(r, n, 0) != test::element_torque(r, n - 1, 0);
  }
  // Starting at +1: down once sin(4 pi t) < -0.5 (t = 7/24), up once > 0.5
  // (t = 13/24), down again at t = 19/24; the next, 25/24, is past the end.
  EXPECT_EQ(flips, 3);
}

TEST(SampledBlocks, StepperApiReadsBlocksAndRestoresThem) {
  const Model m = parse(loop_model(kPiSignals, kPiTorque, "t_end: 2.0, output_step: 0.01"));
  Simulator sim(m);
  const OutputId integral = sim.output("integral");
  const OutputId command = sim.output("command");
  ASSERT_THROW(sim.output("integrall"), std::invalid_argument);
  ASSERT_EQ(sim.advance_to(0.5), StepStatus::reached_time);
  const Snapshot snap = sim.snapshot();
  ASSERT_EQ(sim.advance_to(1.0), StepStatus::reached_time);
  const double q1 = sim.state().q[0], i1 = sim.value(integral);
  // t = 1 is an instant: the command was sampled there, from the angle there.
  EXPECT_NEAR(sim.value(command), 4.0 * (1.0 - q1) + 2.0 * i1, 1e-12);
  EXPECT_GT(std::abs(i1), 0.0);
  sim.restore(snap);
  ASSERT_EQ(sim.advance_to(1.0), StepStatus::reached_time);
  EXPECT_EQ(sim.state().q[0], q1);
  EXPECT_EQ(sim.value(integral), i1);
}

TEST(SampledBlocks, WrittenBackToYamlTheModelRunsTheSame) {
  const ModelSpec spec = io::parse_model_spec(
      loop_model(kPiSignals, kPiTorque, "t_end: 1.0, output_step: 0.01"), "loop.yaml", ".");
  const ModelSpec again = io::parse_model_spec(io::to_yaml(spec), "again.yaml", ".");
  const Result a = simulate(assemble(spec)), b = simulate(assemble(again));
  ASSERT_EQ(a.angle.size(), b.angle.size());
  for (std::size_t i = 0; i < a.angle.size(); ++i) EXPECT_EQ(a.angle[i], b.angle[i]);
}

TEST(SampledBlocks, BadBlocksAreReportedWhereTheyAre) {
  auto with = [](const std::string& signals, const std::string& torque = "cmd") {
    return loop_model(signals, torque, "t_end: 1.0, output_step: 0.01");
  };
  EXPECT_EQ(error_of(with("  cmd: {saturation: {of: {angle: load}, lower: -1, upper: 1}}\n")),
            "loop.yaml:4:34: signals.cmd.saturation.of.angle: measures body 'load', which a continuous signal "
            "cannot: measurements are taken at sample instants, inside the 'of' of a sampled block (hold, play, "
            "saturated_integrator, relay)");
  EXPECT_EQ(error_of(with("  cmd: {hold: {of: {velocity: lod}, period: 0.01}}\n")),
            "loop.yaml:4:31: signals.cmd.hold.of.velocity: no body named 'lod'");
  EXPECT_EQ(error_of(with("  cmd: {hold: {of: 1.0}}\n")), "loop.yaml:4:15: signals.cmd.hold: missing field 'period'");
  EXPECT_EQ(error_of(with("  cmd: {hold: {of: 1.0, period: 0}}\n")),
            "loop.yaml:4:33: signals.cmd.hold.period: must be > 0 (got 0)");
  EXPECT_EQ(error_of(with("  cmd: {play: {of: 1.0, width: 0.1, period: 0.01, widht: 2}}\n")),
            "loop.yaml:4:51: signals.cmd.play.widht: unknown key 'widht' (expected one of: of, width, period, "
            "initial)");
  EXPECT_EQ(error_of(with("  cmd: {relay: {of: 1.0, threshold: 0.1, value: 1, period: 0.01, initial: 0}}\n")),
            "loop.yaml:4:75: signals.cmd.relay.initial: the relay's initial state is 1 or -1 (got 0)");
  EXPECT_EQ(error_of(with("  cmd: {saturated_integrator: {of: 1.0, lower: 0, upper: 1, period: 0.01, initial: 2}}\n")),
            "loop.yaml:4:84: signals.cmd.saturated_integrator.initial: the initial output 2 lies outside [lower, "
            "upper] = [0, 1]");
  EXPECT_EQ(error_of(with("  cmd: {dead_zone: {of: 1.0, lower: 1, upper: -1}}\n")),
            "loop.yaml:4:47: signals.cmd.dead_zone.upper: must be >= lower (got lower 1, upper -1)");
  EXPECT_EQ(error_of(with("  cmd: {hold: {of: 1.0, period: 0.01}}\n", "{dead_band: {of: cmd}}")),
            "loop.yaml:8:46: elements.motor.torque.dead_band: unknown signal kind 'dead_band' (expected one of: "
            "constant, sine, step, ramp, table, sum, product, input, dead_zone, saturation, hold, play, "
            "saturated_integrator, relay, angle, velocity)");
  // A friction limit from a block must stay >= 0 like any other.
  std::string limit = with("  cmd: {hold: {of: {sine: {amplitude: 1, frequency: 1}}, period: 0.01}}\n", "0");
  limit.replace(limit.find("coulomb: 0"), 10, "coulomb: cmd");
  EXPECT_EQ(error_of(limit), "loop.yaml:9:50: elements.bearing.coulomb: the friction torque limit must stay >= 0 "
                             "(it can reach -1)");
  // A massless body that the reduction eliminates (in series between two
  // springs) cannot be measured: no single body gives its angle.
  const std::string eliminated =
      "name: series\nsimulation: {t_end: 1.0, output_step: 0.01}\nsignals:\n"
      "  cmd: {hold: {of: {angle: hub}, period: 0.01}}\n"
      "bodies:\n  motor: {inertia: 1}\n  hub: {inertia: 0}\n  load: {inertia: 1}\nelements:\n"
      "  s1: {type: spring, bodies: [motor, hub], stiffness: 100}\n"
      "  s2: {type: spring, bodies: [hub, load], stiffness: 100}\n"
      "  drive: {type: torque, body: motor, torque: cmd}\n";
  EXPECT_EQ(error_of(eliminated),
            "loop.yaml:4:28: signals.cmd.hold.of.angle: body 'hub' is eliminated by the model reduction (massless "
            "frictionless body hub between springs 's1' and 's2' (Theorem 3.6, series case of Theorem 4.3, "
            "Simplification 2): replaced by spring 's1+s2' on motor - 1 load with stiffness (1/100 + 1/100)^-1 "
            "scaled to 50 and freeplay 0): measure a body that stays");
}

// A body merged into another by a rigid connection (q_wheel = 2 q_motor) is
// measured through the kept body: a loop on the wheel's angle runs as the same
// loop on 2 q_motor, whose bodies keep their inertias separately.
TEST(SampledBlocks, AMergedBodyIsMeasuredThroughTheKeptOne) {
  auto model = [](const std::string& bodies, const std::string& extra, const std::string& measured) {
    return "name: merged\nsimulation: {t_end: 2.0, output_step: 0.01, rtol: 1.0e-11, atol: 1.0e-12}\nsignals:\n"
           "  cmd: {hold: {of: {sum: [1.0, {product: [-2.0, " + measured + "]}]}, period: 0.01}}\n"
           "bodies:\n" + bodies + "elements:\n" + extra +
           "  drive: {type: torque, body: motor, torque: cmd}\n"
           "  bearing: {type: friction, body: motor, coulomb: 0, viscous: 0.5}\n";
  };
  // wheel (0.1) rigidly on motor (1) with q_wheel = 2 q_motor: reflected 0.4.
  const Model merged = parse(model("  motor: {inertia: 1}\n  wheel: {inertia: 0.1}\n",
                                   "  shaft: {type: spring, bodies: [wheel, motor], stiffness: .inf, ratio: 2}\n",
                                   "{angle: wheel}"));
  const Model direct = parse(model("  motor: {inertia: 1.4}\n", "", "{product: [2.0, {angle: motor}]}"));
  ASSERT_EQ(merged.num_bodies(), 1);
  const Result a = simulate(merged), b = simulate(direct);
  const std::vector<double> qa = test::first_bodies(a, a.angle, 1);  // (a also reports the wheel)
  ASSERT_EQ(qa.size(), b.angle.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < qa.size(); ++i) worst = std::max(worst, std::abs(qa[i] - b.angle[i]));
  EXPECT_LT(worst, 1e-12);
  EXPECT_GT(std::abs(a.angle.back()), 0.1);
}

// models/servo_gear_train.yaml: the PID servo through the gear train's
// freeplays follows its reference steps, and its energy balance converges
// with the tolerance (the held torque jumps at every instant).
TEST(SampledBlocks, ServoExampleTracksAndBalancesEnergy) {
  Model m = io::load_model(LUZTAR_MODELS_DIR "/servo_gear_train.yaml");
  const int phi = m.body_index("phi"), motor = m.element_id("motor");
  double residual[2];
  for (int k = 0; k < 2; ++k) {
    m.simulation.rtol = k == 0 ? 1e-8 : 1e-10;
    m.simulation.atol = 1e-12;
    m.simulation.integrator = "cvode_bdf";  // a convergence in the tolerance (exact: tests/exact_models_test.cpp)
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::size_t last = r.time.size() - 1;
    residual[k] = std::abs(r.input_work[last] - r.kinetic[last] - r.elastic[last] - r.dissipated[last]) /
                  r.input_work[last];
    EXPECT_EQ(test::element_torque(r, 201, motor), 1.5);                    // saturated after the step at 0.2 s
    EXPECT_NEAR(test::angle(r, 2400, phi), 0.5, 0.02);                      // settled on 0.5 rad ...
    EXPECT_NEAR(test::angle(r, static_cast<int>(last), phi), 0.0, 0.02);    // ... and back on 0
  }
  EXPECT_LT(residual[0], 2e-6);
  EXPECT_LT(residual[1], residual[0] / 20.0);
}

}  // namespace
}  // namespace luztar
