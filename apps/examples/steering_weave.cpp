// luztar_steering_weave: the steering model of models/steering.yaml inside a
// host vehicle loop (apps/examples/vehicle_loop.hpp) at 1 kHz, on-centre weave at
// 0.2 Hz and 2 m/s^2, run without freeplay and friction, with freeplay only,
// with friction only and with both. Prints the dead band and the torque
// hysteresis against the settings (definitions in apps/examples/vehicle_loop.hpp) and
// writes every trace to HDF5; `luztar plot weave.h5 -o weave.png` draws the
// on-centre plots.
//
//   luztar_steering_weave [-m models/steering.yaml] [-o weave.h5]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>

#include "apps/examples/vehicle_loop.hpp"
#include "core/units.hpp"
#include "io/hdf5_tables.hpp"

int main(int argc, char** argv) {
  using namespace luztar;
  using namespace luztar::app;
  std::string model_path = std::string(LUZTAR_MODELS_DIR) + "/steering.yaml", out = "weave.h5";
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 < argc && !std::strcmp(argv[i], "-m")) model_path = argv[i + 1];
    else if (i + 1 < argc && !std::strcmp(argv[i], "-o")) out = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: luztar_steering_weave [-m MODEL.yaml] [-o OUT.h5]\n");
      return 2;
    }
  }
  std::ifstream in(model_path);
  if (!in) {
    std::fprintf(stderr, "luztar_steering_weave: %s: cannot open the model file\n", model_path.c_str());
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  const double deg = 180.0 / std::numbers::pi;
  try {
    const Vehicle car;
    const WeaveSettings settings;
    const WeaveStudy study = run_weave_study(text.str(), model_path, car, settings);
    std::printf("on-centre weave: %.0f km/h, %.2f Hz, steering-wheel amplitude %.2f deg, loop at %.0f Hz\n",
                car.speed * 3.6, settings.frequency, study.amplitude * deg, settings.rate);
    std::printf("settings: free play %.2f deg, friction %.2f N m (both at the steering wheel)\n",
                study.freeplay_setting * deg, study.friction_setting);
    std::printf("%-9s %10s %16s %16s %12s %8s\n", "case", "a_y [m/s2]", "dead band [deg]", "hysteresis [N m]",
                "real time x", "changes");
    std::vector<io::Hdf5Group> groups;
    int code = 0;
    for (const WeaveCase& c : study.cases) {
      const WeaveTrace& w = c.trace;
      if (w.status != api::Status::reached_time) {
        std::fprintf(stderr, "luztar_steering_weave: %s stopped early: %s\n", c.name.c_str(), w.message.c_str());
        code = 3;
        continue;
      }
      double wall = 0.0;
      long changes = 0;
      for (std::size_t k = 0; k < w.step_wall.size(); ++k) {
        wall += w.step_wall[k];
        changes += w.step_events[k];
      }
      std::printf("%-9s %10.2f %16.2f %16.2f %12.0f %8ld   (%ld CVODE steps, %ld RHS, %ld Jacobians, %ld restarts)\n",
                  c.name.c_str(), c.peak_lateral_acceleration, c.dead_band * deg, c.torque_hysteresis,
                  w.time.back() / wall, changes, w.stats.steps, w.stats.rhs_evals, w.stats.jac_evals, w.stats.reinits);
      io::Hdf5Group g;
      g.name = c.name;
      g.columns = {{"time", w.time, unit::time},
                   {"steering_wheel_angle", w.wheel_angle, unit::angle},
                   {"steering_wheel_torque", w.wheel_torque, unit::torque},
                   {"road_wheel_angle", w.road_wheel_angle, unit::angle},
                   {"lateral_acceleration", w.lateral_acceleration, "m/s^2"},
                   {"yaw_rate", w.yaw_rate, unit::velocity},
                   {"aligning_moment", w.aligning_moment, unit::torque}};
      g.numbers = {{"dead_band", c.dead_band},
                   {"torque_hysteresis", c.torque_hysteresis},
                   {"freeplay_setting", c.freeplay ? study.freeplay_setting : 0.0},
                   {"friction_setting", c.friction ? study.friction_setting : 0.0},
                   {"ratio", study.ratio},
                   {"analysis_start", study.analysis_start}};
      groups.push_back(g);
    }
    io::write_hdf5_groups(out, {{"format", "luztar on-centre weave"}, {"model", model_path}}, groups);
    std::printf("expected: dead band = free play = %.2f deg; hysteresis = 2 x friction = %.2f N m\nwrote %s\n",
                study.freeplay_setting * deg, 2.0 * study.friction_setting, out.c_str());
    return code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "luztar_steering_weave: %s\n", e.what());
    return 1;
  }
}
