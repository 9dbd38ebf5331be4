#include "apps/examples/vehicle_loop.hpp"

#include <chrono>
#include <cmath>
#include <numbers>
#include <tuple>

#include "core/metrics.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar::app {

namespace {

struct VehicleState {
  double v = 0.0, r = 0.0;  // lateral velocity [m/s], yaw rate [rad/s]
};

struct Derivative {
  double dv, dr, front_force;
};

Derivative derivative(const Vehicle& p, const VehicleState& s, double delta) {
  const double ff = p.cf * (delta - (s.v + p.a * s.r) / p.speed);
  const double fr = p.cr * (-(s.v - p.b * s.r) / p.speed);
  return {(ff + fr) / p.mass - p.speed * s.r, (p.a * ff - p.b * fr) / p.yaw_inertia, ff};
}

VehicleState rk4(const Vehicle& p, const VehicleState& s, double delta, double h) {
  const Derivative k1 = derivative(p, s, delta);
  const Derivative k2 = derivative(p, {s.v + 0.5 * h * k1.dv, s.r + 0.5 * h * k1.dr}, delta);
  const Derivative k3 = derivative(p, {s.v + 0.5 * h * k2.dv, s.r + 0.5 * h * k2.dr}, delta);
  const Derivative k4 = derivative(p, {s.v + h * k3.dv, s.r + h * k3.dr}, delta);
  return {s.v + h / 6.0 * (k1.dv + 2 * k2.dv + 2 * k3.dv + k4.dv), s.r + h / 6.0 * (k1.dr + 2 * k2.dr + 2 * k3.dr + k4.dr)};
}

}  // namespace

WeaveTrace run_weave(const api::Model& model, const Vehicle& vehicle, const WeaveSettings& s) {
  api::Simulator sim(model);
  const api::Input driver = sim.input("driver_torque"), tyres = sim.input("aligning_moment");
  const api::Output wheel = sim.output("bodies.steering_wheel.angle");
  const api::Output wheel_rate = sim.output("bodies.steering_wheel.velocity");
  const api::Output road = sim.output("bodies.road_wheels.angle");
  const double h = 1.0 / s.rate;
  const long steps = std::lround(s.duration * s.rate);
  WeaveTrace w;
  for (auto* v : {&w.time, &w.wheel_angle, &w.wheel_torque, &w.road_wheel_angle, &w.lateral_acceleration, &w.yaw_rate,
                  &w.aligning_moment, &w.step_wall})
    v->reserve(static_cast<std::size_t>(steps) + 1);
  w.step_events.reserve(static_cast<std::size_t>(steps) + 1);
  VehicleState car;
  double torque = 0.0, moment = 0.0, ay = 0.0;
  auto record = [&](double t, double wall, int events) {
    w.time.push_back(t);
    w.wheel_angle.push_back(sim.value(wheel));
    w.wheel_torque.push_back(torque);
    w.road_wheel_angle.push_back(sim.value(road));
    w.lateral_acceleration.push_back(ay);
    w.yaw_rate.push_back(car.r);
    w.aligning_moment.push_back(moment);
    w.step_wall.push_back(wall);
    w.step_events.push_back(events);
  };
  record(0.0, 0.0, 0);
  std::size_t events = 0;
  for (long k = 0; k < steps; ++k) {
    const double t = static_cast<double>(k) * h;
    const double delta = sim.value(road);
    // the host's vehicle over [t, t + h] with the road-wheel angle held
    const Derivative d = derivative(vehicle, car, delta);
    ay = d.dv + vehicle.speed * car.r;
    moment = -d.front_force * vehicle.trail;
    car = rk4(vehicle, car, delta, h);
    const double target = s.amplitude * std::sin(2.0 * std::numbers::pi * s.frequency * t);
    const auto start = std::chrono::steady_clock::now();
    if (k % s.input_every == 0) {
      torque = s.driver_stiffness * (target - sim.value(wheel)) - s.driver_damping * sim.value(wheel_rate);
      sim.set_input(driver, torque);
      sim.set_input(tyres, moment);
    }
    const api::Status st = sim.advance_to(static_cast<double>(k + 1) * h);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int new_events = static_cast<int>(sim.event_count() - events);
    events = sim.event_count();
    if (st != api::Status::reached_time) {
      w.status = st;
      w.message = sim.message();
      break;
    }
    record(static_cast<double>(k + 1) * h, wall, new_events);
  }
  w.stats = sim.stats();
  return w;
}

namespace {

// The model with its freeplays and/or frictions set to zero.
api::Model variant(const std::string& text, const std::string& origin, bool freeplay, bool friction) {
  std::vector<api::Override> o;
  if (!freeplay)
    for (const char* e : {"intermediate_shaft", "rack"}) o.push_back({std::string("elements.") + e + ".freeplay", "0"});
  if (!friction)
    for (const char* e : {"column_bearing", "rack_friction", "kingpin_friction"})
      o.push_back({std::string("elements.") + e + ".coulomb", "0"});
  return api::Model::parse(text, o, origin);
}

const Spring& spring(const Model& m, const char* name) { return m.springs[m.element_index[m.element_id(name)]]; }

double coulomb(const Model& m, const char* name) {
  return evaluate(m.signals[m.frictions[m.element_index[m.element_id(name)]].coulomb], 0.0);
}

double peak(const WeaveTrace& w, std::size_t k0) {
  double p = 0.0;
  for (std::size_t k = k0; k < w.time.size(); ++k) p = std::max(p, std::fabs(w.lateral_acceleration[k]));
  return p;
}

}  // namespace

WeaveStudy run_weave_study(const std::string& text, const std::string& origin, const Vehicle& vehicle,
                           WeaveSettings settings) {
  WeaveStudy study;
  const Model full = io::parse_model(text, origin, ".");  // its settings (internal API: the facade has no parameters)
  study.ratio = two_body_ratio(spring(full, "rack").row);  // the mesh x = q_pinion - ratio q_rack
  study.freeplay_setting = 2.0 * (spring(full, "intermediate_shaft").freeplay + spring(full, "rack").freeplay);
  study.friction_setting =
      coulomb(full, "column_bearing") + coulomb(full, "rack_friction") + coulomb(full, "kingpin_friction") / study.ratio;
  study.analysis_start = settings.duration / 2.0;
  auto first_sample = [&](const WeaveTrace& w) {
    std::size_t k0 = 0;
    while (k0 < w.time.size() && w.time[k0] < study.analysis_start) ++k0;
    return k0;
  };
  // Linear without freeplay and friction: one run calibrates the amplitude.
  const api::Model base = variant(text, origin, false, false);
  const WeaveTrace probe = run_weave(base, vehicle, settings);
  settings.amplitude *= 2.0 / peak(probe, first_sample(probe));
  study.amplitude = settings.amplitude;
  double base_dead_band = 0.0, base_hysteresis = 0.0;
  for (const auto& [name, freeplay, friction] :
       {std::tuple{"baseline", false, false}, {"freeplay", true, false}, {"friction", false, true}, {"both", true, true}}) {
    WeaveCase c;
    c.name = name;
    c.freeplay = freeplay;
    c.friction = friction;
    c.trace = run_weave(variant(text, origin, freeplay, friction), vehicle, settings);
    const WeaveTrace& w = c.trace;
    if (w.status == api::Status::reached_time) {
      const std::size_t k0 = first_sample(w);
      std::vector<double> road(w.road_wheel_angle);
      for (double& r : road) r *= study.ratio;
      c.peak_lateral_acceleration = peak(w, k0);
      c.dead_band = hysteresis_width(road, w.wheel_angle, 0.0, k0, w.time.size());
      c.torque_hysteresis = hysteresis_width(w.lateral_acceleration, w.wheel_torque, 0.0, k0, w.time.size());
      if (!freeplay && !friction) {
        base_dead_band = c.dead_band;
        base_hysteresis = c.torque_hysteresis;
      }
      c.dead_band -= base_dead_band;
      c.torque_hysteresis -= base_hysteresis;
    }
    study.cases.push_back(std::move(c));
  }
  return study;
}

}  // namespace luztar::app
