// A watched function crossing just before a stop of CVODE's integration (a
// signal's breakpoint or a sampled block's instant of an unrelated element,
// 1e-14 s later). CVODE drops a root within its root tolerance of the stop
// time (100 uround (|t| + |h|)), and the restart at the stop starts past it:
// the crossing was lost, exit 0 (a new-user hunt). Each model below reaches
// its event at t = 1 s exactly, by hand:
//  - a body at 1 rad/s on a Coulomb bearing of 1 N m (J = 1) stops at 1 s
//    and stays (it ran on backwards, its friction driving it);
//  - a freewheel overrunning at 1 rad/s against its 1 N m drag locks at 1 s
//    (it turned on in its locked direction);
//  - a lossy gear (ratio 2, bearing friction 1.25 N m, unit inertias) coasting
//    at w_a = 10/9 rad/s sticks at 1 s (it ran backwards, its loss doing
//    negative work);
//  - a body at 1 rad/s reaches its flank (freeplay 1 rad, k = 100 N m/rad) at
//    1 s and leaves it at 1 + pi/10 s at -1 rad/s (it flew through the flank).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

struct Case {
  const char* name;
  std::string yaml;
  std::vector<std::pair<EventKind, double>> events;  // kind, time [s]
};

const std::string kSim = "simulation: {t_end: 2.0, output_step: 0.01, rtol: 1.0e-12, atol: 1.0e-14}\n";

std::vector<Case> cases() {
  return {
      {"bearing",
       kSim + "bodies: {a: {inertia: 1, velocity: 1}, c: {inertia: 1}}\nelements:\n"
              "  g: {type: friction, body: a, coulomb: 1}\n"
              "  h: {type: torque, body: c, torque: {step: {time: 1.00000000000002, final: 1}}}\n",
       {{EventKind::stick, 1.0}}},
      {"freewheel",
       kSim + "bodies: {a: {inertia: 1, velocity: 1}, c: {inertia: 1}}\nelements:\n"
              "  g: {type: one_way_clutch, body: a, coulomb: 1}\n"
              "  h: {type: torque, body: c, torque: {ramp: {start: 1.0000000000000192, end: 2.0000000000000192, final: 1}}}\n",
       {{EventKind::lock, 1.0}}},
      {"lossy_gear",
       kSim + "bodies: {a: {inertia: 1, velocity: 1.1111111111111112}, b: {inertia: 1, velocity: 0.5555555555555556}, "
              "c: {inertia: 1}}\nelements:\n"
              "  g: {type: lossy_gear, bodies: [a, b], ratio: 2, efficiency_forward: 0.8, efficiency_back: 0.5, "
              "bearing_friction: 1.25}\n"
              "  h: {type: torque, body: c, torque: {hold: {of: {step: {time: 0.99999900000001, final: 1}}, "
              "period: 0.2500000000000025}}}\n",
       {{EventKind::stick, 1.0}}},
      {"flank",
       kSim + "bodies: {a: {inertia: 1, velocity: 1}, c: {inertia: 1}}\nelements:\n"
              "  s: {type: spring, body: a, stiffness: 100, freeplay: 1}\n"
              "  h: {type: torque, body: c, torque: {step: {time: 1.00000000000001, final: 1}}}\n",
       {{EventKind::contact, 1.0}, {EventKind::separation, 1.0 + std::numbers::pi / 10.0}}},
  };
}

class CvodeStops : public ::testing::TestWithParam<const char*> {};

TEST_P(CvodeStops, ACrossing1e14SecondsBeforeAStopIsFound) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Model m = assemble(io::parse_model_spec(c.yaml, "stops.yaml", "."));
    SimulationSettings s = m.simulation;
    s.integrator = GetParam();
    const Result r = simulate(m, s);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), c.events.size());
    for (std::size_t k = 0; k < c.events.size(); ++k) {
      EXPECT_EQ(r.events[k].kind, c.events[k].first) << "event " << k;
      EXPECT_NEAR(r.events[k].t, c.events[k].second, 1e-9) << "event " << k;
    }
    // body a at rest from 1 s on (the first three), or back from the flank
    // at -1 rad/s and at 1 - (1 - pi/10) = pi/10 rad at 2 s
    const std::size_t last = static_cast<std::size_t>(r.num_samples() - 1) * r.body_names.size();
    if (std::string(c.name) == "flank") {
      EXPECT_NEAR(r.velocity[last], -1.0, 1e-8);
      EXPECT_NEAR(r.angle[last], std::numbers::pi / 10.0, 1e-8);
    } else {
      EXPECT_NEAR(r.velocity[last], 0.0, 1e-9);
    }
    EXPECT_FALSE(r.stats.energy_residual_exceeded) << r.stats.energy_residual;
  }
}

INSTANTIATE_TEST_SUITE_P(Integrators, CvodeStops, ::testing::Values("cvode_bdf", "cvode_adams", "exact"));

}  // namespace
}  // namespace luztar
