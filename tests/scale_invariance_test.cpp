// Scale invariance of the event-driven solver: a model whose inertias and
// torques are all multiplied by one factor s has the same velocities and
// event times for any s (the equations of motion I w' = T divide by it), and
// an element written on the coordinate s x with its torques divided by s is
// the same element. Thresholds and error bounds taken in absolute units break
// this; each case here is against the closed form of the unscaled model.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

Result run(const std::string& yaml, const std::string& integrator, const std::string& solver = "event_driven") {
  const Model m = io::parse_model(yaml, "scale.yaml", ".");
  SimulationSettings s = m.simulation;
  s.solver = solver;
  s.integrator = integrator;
  return simulate(m, s);
}

std::vector<EventRecord> events_of(const Result& r, EventKind kind) {
  std::vector<EventRecord> out;
  for (const EventRecord& e : r.events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

// A body I = s on a bearing of coulomb s, driven by 2 s sin(pi t) from rest:
// it breaks away when 2 sin(pi t) = 1, at t = 1/6, and then slips with
// v' = 2 sin(pi t) - 1, v(t) = (2/pi)(cos(pi/6) - cos(pi t)) - (t - 1/6),
// which turns negative (a reversal: the torque cannot hold it at rest) at the
// root t_r of v near 1.215; then v' = 2 sin(pi t) + 1 (no stick before t = 2),
// v(t) = (2/pi)(cos(pi t_r) - cos(pi t)) + (t - t_r).
double slip_velocity(double t) { return 2.0 / std::numbers::pi * (std::cos(std::numbers::pi / 6) - std::cos(std::numbers::pi * t)) - (t - 1.0 / 6); }

double reversal_time() {
  double t = 1.2;
  for (int i = 0; i < 50; ++i) t -= slip_velocity(t) / (2.0 * std::sin(std::numbers::pi * t) - 1.0);
  return t;
}

std::string bearing_model(double s, double output_step) {
  return "simulation: {t_end: 2, output_step: " + number(output_step) + "}\n"
         "bodies:\n  b: {inertia: " + number(s) + "}\n"
         "elements:\n"
         "  f: {type: friction, body: b, coulomb: " + number(s) + "}\n"
         "  m: {type: torque, body: b, torque: {sine: {amplitude: " + number(2 * s) + ", frequency: 0.5}}}\n";
}

// The exact integrator's event search bounds its Taylor remainder in norms
// over its state; with the signal's states in newton metres (a sine of 2e20)
// beside the shared constant 1 the bound was 5 % of the reserve and the
// break-away and reversal were found at output samples only (36 ms late).
// Event times within 1e-9 s of the closed form, v(2) within 1e-9 rad/s
// (measured: 2e-15 s and 1e-15 rad/s at every scale), for output steps
// 0.001 and 0.1.
TEST(ScaleInvariance, UniformlyScaledBearingBreaksAwayAndReversesOnTime) {
  const double t_rev = reversal_time();
  for (double s : {1.0, 1e19, 1e20, 1e30, 1e60, 1e-19})
    for (double step : {0.001, 0.1}) {
      SCOPED_TRACE("scale " + number(s) + ", output_step " + number(step));
      const Result r = run(bearing_model(s, step), "exact");
      const std::vector<EventRecord> away = events_of(r, EventKind::break_away), rev = events_of(r, EventKind::reversal);
      ASSERT_EQ(away.size(), 1u);
      ASSERT_EQ(rev.size(), 1u);
      EXPECT_NEAR(away[0].t, 1.0 / 6, 1e-9);
      EXPECT_NEAR(rev[0].t, t_rev, 1e-9);
      const double v2 = 2.0 / std::numbers::pi * (std::cos(std::numbers::pi * t_rev) - 1.0) + (2.0 - t_rev);
      EXPECT_NEAR(r.velocity.back(), v2, 1e-9);
    }
}

}  // namespace
}  // namespace luztar
