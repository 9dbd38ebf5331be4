// The vehicle-in-the-loop example (apps/vehicle_loop.hpp) on models/steering.yaml:
// the on-centre weave shows the freeplay as a dead band of its width and the
// friction as a torque hysteresis of twice its size (within 20 %, the issue's
// tolerance; measured 1 %), and the loop's inputs act exactly at the host's steps.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "apps/vehicle_loop.hpp"
#include "io/yaml_model.hpp"

namespace luztar::app {
namespace {

std::string steering_text() {
  std::ifstream in(std::string(LUZTAR_MODELS_DIR) + "/steering.yaml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SteeringWeave, DeadBandIsTheFreeplayAndHysteresisTwiceTheFriction) {
  const WeaveStudy study = run_weave_study(steering_text(), "steering.yaml", Vehicle{}, WeaveSettings{});
  ASSERT_EQ(study.cases.size(), 4u);
  for (const WeaveCase& c : study.cases) ASSERT_EQ(c.trace.status, StepStatus::reached_time) << c.name << c.trace.message;
  // Settings of models/steering.yaml: free play 2 (0.017 + 0.017) rad = 3.9 deg,
  // friction 0.1 + 0.5 + 8/16 = 1.1 N m at the steering wheel.
  EXPECT_NEAR(study.freeplay_setting, 0.068, 1e-12);
  EXPECT_NEAR(study.friction_setting, 1.1, 1e-12);
  const WeaveCase &base = study.cases[0], &freeplay = study.cases[1], &friction = study.cases[2];
  EXPECT_NEAR(base.peak_lateral_acceleration, 2.0, 1e-9);  // the calibration target
  EXPECT_NEAR(freeplay.dead_band, study.freeplay_setting, 0.2 * study.freeplay_setting);
  EXPECT_NEAR(friction.torque_hysteresis, 2.0 * study.friction_setting, 0.2 * 2.0 * study.friction_setting);
  // and neither shows the other's signature
  EXPECT_LT(std::fabs(freeplay.torque_hysteresis), 0.2 * 2.0 * study.friction_setting);
  EXPECT_LT(friction.dead_band, 0.5 * study.freeplay_setting);
}

TEST(SteeringWeave, WithoutFreeplayAndFrictionTheLoopIsLinear) {
  // Doubling the amplitude doubles every signal (to solver tolerance).
  WeaveSettings s;
  s.duration = 5.0;
  std::vector<io::FieldOverride> none;
  for (const char* f : {"elements.intermediate_shaft.freeplay", "elements.rack.freeplay", "elements.column_bearing.coulomb",
                        "elements.rack_friction.coulomb", "elements.kingpin_friction.coulomb"})
    none.push_back({f, "0", "test"});
  const Model m = assemble(io::parse_model_spec(steering_text(), "steering.yaml", ".", none));
  const WeaveTrace a = run_weave(m, Vehicle{}, s);
  s.amplitude *= 2.0;
  const WeaveTrace b = run_weave(m, Vehicle{}, s);
  double worst = 0.0, peak = 0.0;
  for (std::size_t k = 0; k < a.time.size(); ++k) {
    worst = std::max(worst, std::fabs(b.lateral_acceleration[k] - 2.0 * a.lateral_acceleration[k]));
    peak = std::max(peak, std::fabs(a.lateral_acceleration[k]));
  }
  EXPECT_LT(worst, 1e-3 * peak);  // rtol 1e-4 of the model
}

TEST(SteeringWeave, BreakAwayAtTheThresholdIsNoEventStorm) {
  // At atol 1e-5 the rack breaks away at t = 13.7787 s with a relative
  // acceleration of -3e-6 rad/s^2: roundoff after the restart (3e-18 rad/s)
  // once took v across 0 every 2e-13 s, 200 times, and the run stopped with an
  // event storm. The slip root lies 1e-3 atol past zero now (dynamics.hpp).
  std::string text = steering_text();
  const std::string tight = "atol: 1.0e-6";
  ASSERT_NE(text.find(tight), std::string::npos);
  text.replace(text.find(tight), tight.size(), "atol: 1.0e-5");
  const WeaveStudy study = run_weave_study(text, "steering.yaml", Vehicle{}, WeaveSettings{});
  const WeaveTrace& t = study.cases.at(3).trace;  // both freeplay and friction
  ASSERT_EQ(t.status, StepStatus::reached_time) << t.message;
  EXPECT_LT(t.stats.events, 200u);  // 115 element changes in 25 s: one event each, none repeated
}

}  // namespace
}  // namespace luztar::app
