#pragma once
// State of a simulation: continuous variables plus the variable structure
// (which freeplay side each spring is on, which friction elements are stuck,
// each element's mode of its own).
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
  // (ne) each element's mode of its own, beside the structure's sides and
  // friction modes: its kind's row (elements/kinds.hpp: initial_mode,
  // mode_after) sets it at the start and at each crossing of the element's
  // witnesses; 0 for kinds without one (the kinds that have one say what it
  // means in elements/<kind>.hpp). A mode: append_mode_key below includes it.
  std::vector<std::int8_t> element_mode;
  std::vector<FrictionMode> friction_mode;  // (nf)
  // (nb) for massless bodies: -1 / 0 / +1 = which branch of luz(M, MT0) the
  // bearing torque balance is on (0: held, velocity 0); unused for inertial bodies
  std::vector<std::int8_t> massless_side;
  double input_work = 0.0;                  // work done by external torques since t_start [J]
  double dissipated = 0.0;                  // energy dissipated since t_start [J]
  // (ne) the same by element (0 for loads); they add up to `dissipated` to roundoff.
  std::vector<double> element_dissipated;
};

// Appends every discrete mode of `s` to `key` (spring sides, the elements' own
// modes, friction modes, massless sides): equal keys mean the same variable
// structure (the exact integrator caches each mode's matrices under this key,
// solvers/mode_system.hpp).
inline void append_mode_key(const State& s, std::vector<std::int8_t>& key) {
  key.insert(key.end(), s.spring_side.begin(), s.spring_side.end());
  key.insert(key.end(), s.element_mode.begin(), s.element_mode.end());
  for (FrictionMode f : s.friction_mode) key.push_back(static_cast<std::int8_t>(f));
  key.insert(key.end(), s.massless_side.begin(), s.massless_side.end());
}

}  // namespace luztar
