#pragma once
// Coulomb + viscous friction law (Part 2, section 3), for bearings (b = base)
// and clutches: the friction torque on relative velocity v is
// mu tar(v, MT0/mu) = mu v + MT0 sgn(v) while slipping and the static torque
// MT0 s*, s* in [-1, 1], at v = 0. The static value is not given by the law:
// it comes from the S-S procedure (solvers/mode_selection). With a
// static/kinetic ratio r >= 1 the static torque may reach r MT0 before the
// element breaks away. The torque lambda acts as -lambda on body a, +lambda on b.
//
// Events: a slipping element watches v reaching 0; a stuck element watches its
// friction reserve r MT0(t) -+ lambda reaching 0 (never its velocity, which is 0).
// Bearings of massless bodies are part of the body's first-order law
// (elements/massless_bearing.hpp).
#include <vector>

#include "core/energy.hpp"
#include "core/model.hpp"
#include "core/result.hpp"
#include "core/signal.hpp"
#include "core/state.hpp"
#include "elements/kinds.hpp"
#include "elements/witness.hpp"

namespace luztar {

// Its row in the table of kinds (elements/kinds.hpp).
extern const ElementKindInfo kFrictionKind;

// --- relation -------------------------------------------------------------
// Relative velocity v = w_a - w_b [rad/s] (w_b = 0 for the base).
inline double friction_rate(const Friction& f, const double* w) { return slip_velocity(f, w); }
// The same for a link of a friction element or a one-way clutch (Model::links:
// ratio 1): the rate its slip and reserve witnesses watch.
inline double friction_link_rate(const ModelLink& l, const double* w) {
  return w[l.a] - (l.b == kGround ? 0.0 : w[l.b]);
}
// The element's torque lambda on the bodies: -lambda on a, +lambda on b (force: (nb)).
inline void apply_friction_torque(const Friction& f, double torque, double* force) {
  force[f.a] -= torque;
  if (f.b != kGround) force[f.b] += torque;
}

// --- law ------------------------------------------------------------------
// MT0(t) of friction element i [N m], finite (core/signal.hpp: require_finite_at,
// named after its element).
inline double coulomb_limit(const Model& m, int i, double t, const double* inputs) {
  return require_finite_at(evaluate(m.signals[m.frictions[i].coulomb], t, inputs), t, "element",
                           m.element_names[m.friction_element[i]], "coulomb");
}
// Viscous part mu v [N m].
inline double viscous_friction_torque(const Friction& f, double v) { return f.viscous * v; }
// Torque opposing the motion while slipping in direction `mode` (v has that sign
// or is 0 at the instant the slip starts): mu v + MT0 dir.
inline double kinetic_friction_torque(const Friction& f, double v, FrictionMode mode, double mt0) {
  return f.viscous * v + mt0 * static_cast<double>(static_cast<int>(mode));
}
// Largest static torque the element holds [N m].
inline double static_friction_limit(const Friction& f, double mt0) { return f.static_ratio * mt0; }
// Tangent damping d lambda / dv while slipping [N m s/rad] (stuck: a link, no tangent).
inline double friction_damping(const Friction& f) { return f.viscous; }
// Dissipated power [W]: slipping, lambda v (static friction does no work: v = 0).
inline double friction_dissipation(const Friction& f, double v, FrictionMode mode, double mt0) {
  return mode == FrictionMode::stuck ? 0.0 : kinetic_friction_torque(f, v, mode, mt0) * v;
}
// The viscous part's power mu v_1 v_2 (the time stepper books mu v_theta v_mid).
inline double viscous_friction_dissipation(const Friction& f, double v1, double v2) { return f.viscous * v1 * v2; }

// (can_have_dry_friction, core/model.hpp: MT0 not identically 0.)
// Bearings of massless bodies are not S-S elements either: their stick-slip is
// the luz branch of the first-order equation (Theorem 5.3).
inline bool can_stick(const Model& m, const Friction& f) {
  return m.inertia[f.a] > 0.0 && can_have_dry_friction(m, f);
}

// --- witnesses --------------------------------------------------------------
// Most witnesses an element watches at once (its two reserves while stuck).
inline constexpr int kMaxFrictionWitnesses = 3;
// The witnesses of friction element `index` in `mode` (the caller skips those
// that cannot stick and those watched through their static group): stuck,
// both reserves; slipping, its velocity, slip_margin past 0 (see
// solvers/dynamics.hpp, build_mode_structure).
void friction_witnesses(int index, FrictionMode mode, double slip_margin, std::vector<Witness>& out);
// Value of a friction witness (slip_velocity, stick_upper/lower), of a
// friction element's or a one-way clutch's: its index is their link.
double friction_witness(const Model& m, const Witness& w, const WitnessInputs& in);

// --- outputs ----------------------------------------------------------------
// Element state code stored in results: -1, 0, +1.
inline int mode_code(FrictionMode m) { return static_cast<int>(m); }
inline ElementOutput friction_output(double torque, FrictionMode mode) {
  return {torque, static_cast<std::int8_t>(mode_code(mode))};
}
// The event a change of mode is (core/result.hpp).
EventKind friction_event(std::int8_t before, std::int8_t after);

}  // namespace luztar
