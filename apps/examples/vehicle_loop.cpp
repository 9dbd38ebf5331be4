#include "apps/examples/vehicle_loop.hpp"

#include <chrono>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

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

// The steering as the study reads it from the (reduced) model, whatever its
// layout: the rack a body of its own in metres (models/steering.yaml, merged
// with the pinion by the rigid mesh) or referred to the pinion. Every body's
// gear to the steering wheel G (q_wheel = G q) follows the two-body springs
// from the steering wheel: x = c (q_a - p q_b) holds q_a = p q_b, so
// G_b = p G_a. A gap of half-width a on x is lost motion 2 (a / |c|) G_a at the
// steering wheel, a Coulomb limit C on v = c w_b (a bearing) the torque
// C |c / G_b| there (the power C |v| = T |w_wheel|), and the overall ratio is G
// of the road wheels (the tie rods' arm over the pinion radius, 0.12 m /
// 7.5 mm = 16). Only the chain's parts count and are switched off in the
// variants: the gaps of two-body springs between bodies of the chain (a gap
// to the base, such as the rack's travel stops, is a limit, not lash) and the
// dry frictions on its bodies; a part on a body the chain does not reach is
// left as it is. A friction between two bodies of the chain (none in the
// steering) is switched off with the others but counts in no figure.
struct Chain {
  double ratio = 0.0, freeplay = 0.0, friction = 0.0;
  std::vector<std::string> gaps, dry;  // the springs with a gap, the friction elements with a Coulomb part
};

double coulomb(const Model& m, const Friction& f) { return evaluate(m.signals[f.coulomb], 0.0) * f.table.value[0]; }

Chain steering_chain(const Model& m) {
  const int wheel = m.body_index("steering_wheel"), road = m.body_index("road_wheels");
  if (wheel < 0 || road < 0)
    throw std::invalid_argument("the weave needs bodies steering_wheel and road_wheels (kept by the reduction)");
  std::vector<double> gear(static_cast<std::size_t>(m.num_bodies()), NAN);
  gear[static_cast<std::size_t>(wheel)] = 1.0;
  for (bool grew = true; grew;) {
    grew = false;
    for (const Spring& s : m.springs) {
      if (s.row.n != 2) continue;
      double &ga = gear[static_cast<std::size_t>(s.row.body[0])], &gb = gear[static_cast<std::size_t>(s.row.body[1])];
      const double p = two_body_ratio(s.row);
      if (std::isnan(gb) && !std::isnan(ga)) gb = p * ga, grew = true;
      else if (std::isnan(ga) && !std::isnan(gb)) ga = gb / p, grew = true;
    }
  }
  Chain c;
  c.ratio = gear[static_cast<std::size_t>(road)];
  if (std::isnan(c.ratio)) throw std::invalid_argument("no chain of springs joins steering_wheel and road_wheels");
  const auto on_chain = [&](const CoordinateRow& row) {
    for (int k = 0; k < row.n; ++k)
      if (std::isnan(gear[static_cast<std::size_t>(row.body[k])])) return false;
    return true;
  };
  for (std::size_t i = 0; i < m.springs.size(); ++i) {
    const Spring& s = m.springs[i];
    if (s.freeplay <= 0.0 || s.row.n != 2 || !on_chain(s.row)) continue;
    c.gaps.push_back(m.element_names[static_cast<std::size_t>(m.spring_element[i])]);
    c.freeplay += 2.0 * s.freeplay * std::fabs(gear[static_cast<std::size_t>(s.row.body[0])] / s.row.c[0]);
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    if (!can_have_dry_friction(m, f) || !on_chain(f.row)) continue;
    c.dry.push_back(m.element_names[static_cast<std::size_t>(m.friction_element[i])]);
    if (f.row.n == 1) c.friction += coulomb(m, f) * std::fabs(f.row.c[0] / gear[static_cast<std::size_t>(f.row.body[0])]);
  }
  return c;
}

// The model with its freeplays and/or frictions (the chain's gaps and dry
// frictions) set to zero.
api::Model variant(const std::string& text, const std::string& origin, const Chain& chain, bool freeplay,
                   bool friction) {
  std::vector<api::Override> o;
  if (!freeplay)
    for (const std::string& e : chain.gaps) o.push_back({"elements." + e + ".freeplay", "0"});
  if (!friction)
    for (const std::string& e : chain.dry) o.push_back({"elements." + e + ".coulomb", "0"});
  return api::Model::parse(text, o, origin);
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
  const Chain chain = steering_chain(full);
  study.ratio = chain.ratio;
  study.freeplay_setting = chain.freeplay;
  study.friction_setting = chain.friction;
  study.analysis_start = settings.duration / 2.0;
  auto first_sample = [&](const WeaveTrace& w) {
    std::size_t k0 = 0;
    while (k0 < w.time.size() && w.time[k0] < study.analysis_start) ++k0;
    return k0;
  };
  // Linear without freeplay and friction: one run calibrates the amplitude.
  const api::Model base = variant(text, origin, chain, false, false);
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
    c.trace = run_weave(variant(text, origin, chain, freeplay, friction), vehicle, settings);
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
