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
inline bool can_stick(const Model& m, const Friction& f) {
  const Signal& s = m.signals[f.coulomb];
  return !(is_constant(s) && evaluate(s, m.simulation.t_start) == 0.0);
}

// Element state code stored in results: -1, 0, +1.
inline int mode_code(FrictionMode m) { return static_cast<int>(m); }

}  // namespace luztar
