#pragma once
// A host vehicle simulation stepping luztar at a fixed rate, as a vehicle
// engineer's loop would: a linear single-track (bicycle) model at constant
// speed, a driver who follows a sinusoidal steering-wheel angle through a stiff
// spring (a torque on the steering wheel), and the front tyres' aligning moment
// fed back to the king-pins through the pneumatic + castor trail.
//
// Vehicle (SI; Mitschke & Wallentowitz, "Dynamik der Kraftfahrzeuge"):
//   m v' = F_f + F_r - m u r,   I_z r' = a F_f - b F_r,   a_y = v' + u r
//   F_f = C_f (delta - (v + a r)/u),   F_r = C_r (-(v - b r)/u)   (axle forces)
//   aligning moment on the road wheels: M_z = -F_f (t_pneumatic + t_castor)
// The host integrates it with RK4 at the loop rate, delta held over a step.
// run_weave is the loop a host would copy: it uses only the C++ facade
// (<luztar/luztar.hpp>).
#include <string>
#include <vector>

#include "luztar/luztar.hpp"

namespace luztar::app {

struct Vehicle {
  double mass = 1500.0;        // kg
  double yaw_inertia = 2500.0; // kg m^2
  double a = 1.1, b = 1.6;     // m, centre of gravity to front / rear axle
  double cf = 1.0e5, cr = 1.2e5;  // N/rad, cornering stiffness of the front / rear axle
  double speed = 100.0 / 3.6;  // m/s
  double trail = 0.045;        // m, pneumatic (0.03) + castor (0.015) trail
};

struct WeaveSettings {
  double rate = 1000.0;            // Hz, host loop
  double duration = 20.0;          // s
  double frequency = 0.2;          // Hz, on-centre weave
  double amplitude = 0.3;          // rad, steering-wheel angle
  double driver_stiffness = 200.0; // N m/rad, driver's hands
  double driver_damping = 2.0;     // N m s/rad
  int input_every = 1;             // update the inputs every n-th step (1: every step)
};

// What the loop saw, one entry per step (index 0 = the start).
struct WeaveTrace {
  std::vector<double> time, wheel_angle, wheel_torque, road_wheel_angle, lateral_acceleration, yaw_rate,
      aligning_moment;
  std::vector<double> step_wall;   // [s] per step (set_input + advance_to + outputs)
  std::vector<int> step_events;    // element changes (event log entries) per step
  api::Status status = api::Status::reached_time;
  std::string message;
  api::Stats stats;  // the simulator's counters at the end
};

// Runs the weave on `model` (models/steering.yaml: inputs driver_torque and
// aligning_moment; bodies steering_wheel, road_wheels).
WeaveTrace run_weave(const api::Model& model, const Vehicle& vehicle, const WeaveSettings& settings);

// The on-centre study: the weave run four times, without freeplay and
// friction (baseline: every gap and every Coulomb part of the model set to 0
// by overrides), with the freeplay only, with the friction only, with
// both; the steering-wheel amplitude is set once so that the baseline reaches
// 2 m/s^2. Widths are measured over the second half of the run, less the
// baseline's (which is the vehicle's phase lag and the viscous damping):
//   dead band          width in steering-wheel angle of its loop against the
//                      road-wheel angle x ratio, where the road wheels pass 0
//                      (the steering-ratio plot: lost motion)
//   torque hysteresis  width in steering-wheel torque of its loop against the
//                      lateral acceleration at a_y = 0 (the torque plot)
struct WeaveCase {
  std::string name;
  bool freeplay = false, friction = false;
  WeaveTrace trace;
  double peak_lateral_acceleration = 0.0;  // [m/s^2]
  double dead_band = 0.0;                  // [rad]
  double torque_hysteresis = 0.0;          // [N m]
};

struct WeaveStudy {
  double amplitude = 0.0;         // [rad] steering-wheel angle
  // The settings, read from the reduced model through its chain of springs
  // from the steering wheel (vehicle_loop.cpp, steering_chain): in
  // models/steering.yaml the ratio is arm / r_p, the play 2 (a_shaft + lash / r_p)
  // and the friction column + rack force r_p + king-pin / ratio.
  double ratio = 0.0;             // overall steering ratio, steering wheel : road wheels
  double freeplay_setting = 0.0;  // [rad] total play of the chain's gaps at the steering wheel
  double friction_setting = 0.0;  // [N m] Coulomb friction of its bearings referred to the steering wheel
  double analysis_start = 0.0;    // [s]
  std::vector<WeaveCase> cases;   // baseline, freeplay, friction, both
};

// `model_text`: models/steering.yaml or a variant (same names).
WeaveStudy run_weave_study(const std::string& model_text, const std::string& origin, const Vehicle& vehicle,
                           WeaveSettings settings);

}  // namespace luztar::app
