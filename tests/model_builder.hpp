#pragma once
// Small helpers to write test models in code.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/model_spec.hpp"
#include "core/result.hpp"

namespace luztar::test {

// The stems of the models in models/ (LUZTAR_MODELS_DIR), sorted.
// The gear train of models/gear_train.yaml (all bodies inertial) with a sine
// drive and the load torque as an input held at -0.1 N m, as YAML text under
// the given `simulation:` mapping (embedding and exact-integrator tests).
inline std::string gear_train_with_input_yaml(const std::string& simulation) {
  return "simulation: " + simulation + R"(
signals:
  drive: {sine: {amplitude: 1.0, frequency: 1.0}}
  load: {input: {initial: -0.1, lower: -5, upper: 5}}
bodies:
  psi: {inertia: 1.0e-2}
  delta: {inertia: 1.0e-4}
  gamma: {inertia: 4.0e-4}
  phi: {inertia: 5.0e-2}
elements:
  shaft_in: {type: spring, bodies: [psi, delta], stiffness: 200.0, freeplay: 0.005, damping: 0.015}
  mesh: {type: spring, bodies: [delta, gamma], ratio: 2.0, stiffness: 5000.0, freeplay: 0.01, damping: 0.05}
  shaft_out: {type: spring, bodies: [gamma, phi], stiffness: 400.0, freeplay: 0.005, damping: 0.04}
  bearing_psi: {type: friction, body: psi, viscous: 0.002, coulomb: 0.05}
  bearing_delta: {type: friction, body: delta, viscous: 1.0e-4, coulomb: 0.01}
  bearing_gamma: {type: friction, body: gamma, viscous: 1.0e-4, coulomb: 0.02}
  bearing_phi: {type: friction, body: phi, viscous: 0.005, coulomb: 0.2, static_ratio: 1.2}
  drive_psi: {type: torque, body: psi, torque: drive}
  load_phi: {type: torque, body: phi, torque: load}
)";
}

inline std::vector<std::string> model_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(LUZTAR_MODELS_DIR))
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline BodySpec body(std::string name, double inertia, double angle = 0.0, double velocity = 0.0) {
  return {std::move(name), inertia, angle, velocity};
}
inline SpringSpec spring(std::string name, std::string a, std::string b, double k, double freeplay = 0.0,
                         double ratio = 1.0, double damping = 0.0) {
  SpringSpec s;
  s.name = std::move(name);
  s.body_a = std::move(a);
  s.body_b = std::move(b);
  s.stiffness = k;
  s.freeplay = freeplay;
  s.ratio = ratio;
  s.damping = damping;
  return s;
}
inline FrictionSpec friction(std::string name, std::string a, std::string b, double mt0, double viscous = 0.0,
                             double static_ratio = 1.0) {
  FrictionSpec f;
  f.name = std::move(name);
  f.body_a = std::move(a);
  f.body_b = std::move(b);
  f.coulomb = Signal::make_constant(mt0);
  f.viscous = viscous;
  f.static_ratio = static_ratio;
  return f;
}
// A one-way clutch on w_a - w_b with drag D(t) (elements/one_way_clutch.hpp).
inline OneWayClutchSpec one_way(std::string name, std::string a, std::string b, Signal drag,
                                double static_ratio = 1.0, std::string overrun = "positive", double viscous = 0.0) {
  OneWayClutchSpec c;
  c.name = std::move(name);
  c.body_a = std::move(a);
  c.body_b = std::move(b);
  c.coulomb = std::move(drag);
  c.static_ratio = static_ratio;
  c.overrun = std::move(overrun);
  c.viscous = viscous;
  return c;
}
inline TorqueSpec torque(std::string name, std::string b, Signal s) {
  TorqueSpec t;
  t.name = std::move(name);
  t.body = std::move(b);
  t.torque = std::move(s);
  return t;
}
inline Signal ramp(double start, double end, double initial, double final_value) {
  Signal s;
  s.kind = Signal::Kind::ramp;
  s.start = start;
  s.end = end;
  s.initial = initial;
  s.final_value = final_value;
  return s;
}
inline Signal sine(double amplitude, double frequency, double phase = 0.0, double offset = 0.0) {
  Signal s;
  s.kind = Signal::Kind::sine;
  s.amplitude = amplitude;
  s.frequency = frequency;
  s.phase = phase;
  s.offset = offset;
  return s;
}
inline SimulationSettings settings(double t_end, double output_step, double rtol = 1e-10, double atol = 1e-12) {
  SimulationSettings s;
  s.t_end = t_end;
  s.output_step = output_step;
  s.rtol = rtol;
  s.atol = atol;
  return s;
}

// Column helpers on a Result.
// The first nb bodies' columns of r's per-body array v (nt x r.num_bodies()):
// a model's own bodies, without the rigidly merged ones reported after them.
inline std::vector<double> first_bodies(const Result& r, const std::vector<double>& v, int nb) {
  std::vector<double> out;
  const auto n = static_cast<std::size_t>(r.num_bodies());
  for (std::size_t k = 0; k * n < v.size(); ++k) out.insert(out.end(), v.begin() + k * n, v.begin() + k * n + nb);
  return out;
}
inline double angle(const Result& r, int k, int body) { return r.angle[k * r.num_bodies() + body]; }
inline double velocity(const Result& r, int k, int body) { return r.velocity[k * r.num_bodies() + body]; }
inline double element_torque(const Result& r, int k, int element) { return r.element_torque[k * r.num_elements() + element]; }
inline int element_state(const Result& r, int k, int element) { return r.element_state[k * r.num_elements() + element]; }

}  // namespace luztar::test
