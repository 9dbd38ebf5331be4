#pragma once
// Coulomb + viscous friction law (Part 2, section 3): the friction torque on
// relative velocity v is mu tar(v, MT0/mu) = mu v + MT0 sgn(v) while slipping and
// the static torque MT0 s*, s* in [-1, 1], at v = 0. The static value is not
// given by the law: it comes from the S-S procedure (solvers/mode_selection).
// With a static/kinetic ratio r >= 1 the static torque may reach r MT0 before
// the element breaks away.
//
// Events: a slipping element watches v reaching 0; a stuck element watches its
// friction reserve r MT0(t) -+ lambda reaching 0 (never its velocity, which is 0).
#include "core/model.hpp"
#include "core/signal.hpp"
#include "core/state.hpp"

namespace luztar {

// Torque opposing the motion while slipping in direction `mode` (v has that sign
// or is 0 at the instant the slip starts): mu v + MT0 dir.
inline double kinetic_friction_torque(const Friction& f, double v, FrictionMode mode, double mt0) {
  return f.viscous * v + mt0 * static_cast<double>(static_cast<int>(mode));
}

// Largest static torque the element holds [N m].
inline double static_friction_limit(const Friction& f, double mt0) { return f.static_ratio * mt0; }

// False for an element whose MT0 is identically 0 (pure viscous): it never
// sticks and needs no events.
// True unless MT0 is identically 0.
inline bool can_have_dry_friction(const Model& m, const Friction& f) {
  const Signal& s = m.signals[f.coulomb];
  return !(is_constant(s) && evaluate(s, m.simulation.t_start) == 0.0);
}

// Bearings of massless bodies are not S-S elements either: their stick-slip is
// the luz branch of the first-order equation (Theorem 5.3).
inline bool can_stick(const Model& m, const Friction& f) {
  return m.inertia[f.a] > 0.0 && can_have_dry_friction(m, f);
}

// A massless body on viscous bearings: mu_total q' = luz(M, MT0_total) (Theorem 5.3
// with Theorem 3.5 summing the bearings: sum mu_i tar(v, MT0_i/mu_i) = mu tar(v, sum MT0_i / mu)).
// Velocity on a given branch (side) of luz.
inline double massless_velocity(double torque, double mt0_total, double mu_total, int side) {
  return side == 0 ? 0.0 : (torque - side * mt0_total) / mu_total;
}

// Element state code stored in results: -1, 0, +1.
inline int mode_code(FrictionMode m) { return static_cast<int>(m); }

}  // namespace luztar
