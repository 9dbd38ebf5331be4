#pragma once
// State of a simulation: continuous variables plus the variable structure
// (which freeplay side each spring is on, which friction elements are stuck).
#include <cstdint>
#include <vector>

namespace luztar {

// Friction element structure (the S-S procedure's variable structure).
enum class FrictionMode : std::int8_t { slip_negative = -1, stuck = 0, slip_positive = 1 };

struct State {
  double t = 0.0;                           // [s]
  std::vector<double> q;                    // (nb) angles [rad]
  std::vector<double> w;                    // (nb) velocities [rad/s]
  std::vector<std::int8_t> spring_side;     // (ns) -1 / 0 / +1: below, inside, above the freeplay
  // (ns) clamp of a damping_law contact spring (elements/freeplay_spring.hpp):
  // 0 linear, +1 / -1 damping held at +|Tc| / -|Tc|; 0 for the other springs.
  // A mode: append_mode_key below includes it.
  std::vector<std::int8_t> spring_clamp;
  std::vector<FrictionMode> friction_mode;  // (nf)
  // (nb) for massless bodies: -1 / 0 / +1 = which branch of luz(M, MT0) the
  // bearing torque balance is on (0: held, velocity 0); unused for inertial bodies
  std::vector<std::int8_t> massless_side;
  double input_work = 0.0;                  // work done by external torques since t_start [J]
  double dissipated = 0.0;                  // energy dissipated since t_start [J]
};

// Appends every discrete mode of `s` to `key` (spring sides, damping clamps,
// friction modes, massless sides): equal keys mean the same variable structure. A kind with a
// mode of its own appends its field here (the exact integrator caches each
// mode's matrices under this key, solvers/mode_system.hpp).
inline void append_mode_key(const State& s, std::vector<std::int8_t>& key) {
  key.insert(key.end(), s.spring_side.begin(), s.spring_side.end());
  key.insert(key.end(), s.spring_clamp.begin(), s.spring_clamp.end());
  for (FrictionMode f : s.friction_mode) key.push_back(static_cast<std::int8_t>(f));
  key.insert(key.end(), s.massless_side.begin(), s.massless_side.end());
}

}  // namespace luztar
