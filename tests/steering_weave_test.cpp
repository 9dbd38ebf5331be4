// The vehicle-in-the-loop example (apps/examples/vehicle_loop.hpp) on models/steering.yaml:
// the on-centre weave shows the freeplay as a dead band of its width and the
// friction as a torque hysteresis of twice its size (within 20 %, the issue's
// tolerance; measured 1 %), and the loop's inputs act exactly at the host's steps.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "apps/examples/vehicle_loop.hpp"
#include "io/yaml_model.hpp"

namespace luztar::app {
namespace {

std::string steering_text() {
  std::ifstream in(std::string(LUZTAR_MODELS_DIR) + "/steering.yaml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The model text with other simulation tolerances.
std::string with_tolerances(std::string text, const std::string& rtol, const std::string& atol) {
  for (const auto& [key, value] : {std::pair{std::string("\n  rtol: "), rtol}, std::pair{std::string("\n  atol: "), atol}}) {
    const auto at = text.find(key);
    EXPECT_NE(at, std::string::npos) << key;
    if (at == std::string::npos) continue;
    const auto begin = at + key.size(), end = text.find('\n', begin);
    text.replace(begin, end - begin, value);
  }
  return text;
}

TEST(SteeringWeave, DeadBandIsTheFreeplayAndHysteresisTwiceTheFriction) {
  const WeaveStudy study = run_weave_study(steering_text(), "steering.yaml", Vehicle{}, WeaveSettings{});
  ASSERT_EQ(study.cases.size(), 4u);
  for (const WeaveCase& c : study.cases) ASSERT_EQ(c.trace.status, api::Status::reached_time) << c.name << c.trace.message;
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
  std::vector<api::Override> none;
  for (const char* f : {"elements.intermediate_shaft.freeplay", "elements.rack.freeplay", "elements.column_bearing.coulomb",
                        "elements.rack_friction.coulomb", "elements.kingpin_friction.coulomb"})
    none.push_back({f, "0"});
  const api::Model m = api::Model::parse(steering_text(), none, "steering.yaml");
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

TEST(SteeringWeave, RealTimeTolerancesTrackATightRun) {
  // The model's tolerances are chosen for a real-time loop; the comment in
  // models/steering.yaml states what they cost in accuracy (measured 0.061 %,
  // 0.044 %, 0.48 % over these 10 s). Checked here with a margin of 2 to 3.
  const api::Model loose = api::Model::parse(steering_text(), {}, "steering.yaml");
  const api::Model tight = api::Model::parse(with_tolerances(steering_text(), "1.0e-7", "1.0e-9"), {}, "steering.yaml");
  WeaveSettings s;
  s.duration = 10.0;
  const WeaveTrace a = run_weave(loose, Vehicle{}, s), b = run_weave(tight, Vehicle{}, s);

  ASSERT_EQ(a.status, api::Status::reached_time) << a.message;
  ASSERT_EQ(b.status, api::Status::reached_time) << b.message;
  ASSERT_EQ(a.time.size(), b.time.size());
  auto relative_error = [](const std::vector<double>& x, const std::vector<double>& ref) {
    double worst = 0.0, peak = 0.0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      worst = std::max(worst, std::fabs(x[k] - ref[k]));
      peak = std::max(peak, std::fabs(ref[k]));
    }
    return worst / peak;
  };
  EXPECT_LT(relative_error(a.road_wheel_angle, b.road_wheel_angle), 2e-3);
  EXPECT_LT(relative_error(a.lateral_acceleration, b.lateral_acceleration), 1e-3);
  EXPECT_LT(relative_error(a.wheel_torque, b.wheel_torque), 1e-2);
  EXPECT_GT(a.stats.events, 20u);  // freeplay and friction at work
}

TEST(SteeringWeave, BreakAwayAtTheThresholdIsNoEventStorm) {
  // At rtol 1e-4 / atol 1e-5 the rack breaks away at t = 13.7787 s with a relative
  // acceleration of -3e-6 rad/s^2: roundoff after the restart (3e-18 rad/s)
  // once took v across 0 every 2e-13 s, 200 times, and the run stopped with an
  // event storm. The slip root lies 1e-3 atol past zero now (dynamics.hpp).
  const std::string text = with_tolerances(steering_text(), "1.0e-4", "1.0e-5");
  const WeaveStudy study = run_weave_study(text, "steering.yaml", Vehicle{}, WeaveSettings{});
  const WeaveTrace& t = study.cases.at(3).trace;  // both freeplay and friction
  ASSERT_EQ(t.status, api::Status::reached_time) << t.message;
  EXPECT_LT(t.stats.events, 200u);  // 115 element changes in 25 s: one event each, none repeated
}

}  // namespace
}  // namespace luztar::app
