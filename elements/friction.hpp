#pragma once
// Coulomb + viscous friction law (Part 2, section 3), for bearings (b = base)
// and clutches: the friction torque on relative velocity v is
// mu tar(v, MT0/mu) = mu v + MT0 sgn(v) while slipping and the static torque
// MT0 s*, s* in [-1, 1], at v = 0. The static value is not given by the law:
// it comes from the S-S procedure (solvers/mode_selection). With a
// static/kinetic ratio r >= 1 the static torque may reach r MT0 before the
// element breaks away. The element acts on its coordinate row (core/coordinate.hpp):
// v = sum c_k w_k, and lambda acts as -c_k lambda on body k (a clutch: -lambda
// on body a, +lambda on b).
//
// Friction tables (core/model.hpp, FrictionTable): the Coulomb part is
// S(t) tau(|v|) sgn v, tau piecewise linear in the speed (knots v_k, values
// tau_k, slopes b_k; a Stribeck peak is a falling first segment), S(t) the
// scale (MT0(t) for a plain `coulomb`, whose table is tau = 1; 1 for a
// coulomb_table; radius F_n(t) for a mu_table). As luz/tar (Part 1, Th. 3.5):
//   tau(|v|) sgn v = tau_0 sgh(v) + b_0 v + sum_{k>=1} (b_k - b_{k-1}) luz(v, v_k),
// one piecewise-linear law with kinks at +-v_k, affine in v between them.
// At rest it holds up to r S tau_0; slipping in direction s on segment k
// (the element's mode of its own, State::element_mode) its torque is
//   lambda = mu v + s S (tau_k + b_k (s v - v_k)),
// affine in the state when S is constant (read from Friction::constant_scale)
// or the table level (lambda = mu v + s S tau_0, affine in the slot S).
// A slope times a time-varying S is bilinear: the exact integrator refuses it
// (core/model.hpp, exact_integrator_refusal); CVODE and the time stepper run it.
//
// Events: a slipping element watches v reaching 0 and the knots of its
// segment (knot_upper, knot_lower: its segment changes, nothing else); a
// stuck element watches its friction reserve r S tau_0 -+ lambda reaching 0
// (never its velocity, which is 0). Bearings of massless bodies are part of
// the body's first-order law (elements/massless_bearing.hpp); they take no table.
#include <cmath>
#include <cstdint>
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
// Relative velocity v = sum c_k w_k [rad/s] (a clutch: w_a - w_b, a bearing: w_a).
inline double friction_rate(const Friction& f, const double* w) { return slip_velocity(f, w); }
// The same for a link of a friction element or a one-way clutch (Model::links):
// the rate its slip and reserve witnesses watch.
inline double friction_link_rate(const ModelLink& l, const double* w) { return row_value(l.row, w); }
// The element's torque lambda on the bodies: -c_k lambda on body k (force: (nb)).
inline void apply_friction_torque(const Friction& f, double torque, double* force) {
  apply_row_effort(f.row, torque, force);
}
// The body of a bearing (a row of one term), the only friction element a
// massless body may have (core/reduce.hpp); for any other row its first body.
inline int bearing_body(const Friction& f) { return f.row.body[0]; }

// --- law ------------------------------------------------------------------
// The scale S(t) of friction element i (MT0 [N m], 1, or radius F_n [m N]),
// finite (core/signal.hpp: require_finite_at, named after its element and field).
inline double friction_scale(const Model& m, int i, double t, const double* inputs) {
  const Friction& f = m.frictions[i];
  return require_finite_at(evaluate(m.signals[f.coulomb], t, inputs), t, "element",
                           m.element_names[m.friction_element[i]], f.scale_field);
}
// S as the law reads it from the signal slots sigma: a speed-dependent table
// with a constant scale reads its constant (so that the law stays affine in
// the state when the exact integrator probes it), any other the slot.
inline double law_scale(const Friction& f, const double* sigma) {
  return f.speed_dependent && !std::isnan(f.constant_scale) ? f.constant_scale : sigma[f.slot];
}
// The Coulomb torque at the start of a slip, S tau_0 [N m].
inline double rest_friction_limit(const Friction& f, double scale) { return scale * f.table.value[0]; }
// Largest static torque the element holds, r S tau_0 [N m].
inline double static_friction_limit(const Friction& f, double scale) {
  return f.static_ratio * rest_friction_limit(f, scale);
}
// The S tau_0 of element i at t [N m] (the time stepper's dry row).
inline double rest_friction_limit(const Model& m, int i, double t, const double* inputs) {
  return rest_friction_limit(m.frictions[i], friction_scale(m, i, t, inputs));
}
// Viscous part mu v [N m].
inline double viscous_friction_torque(const Friction& f, double v) { return f.viscous * v; }
// Torque opposing the motion while slipping in direction `mode` on segment
// `segment` of the table (v has that sign or is 0 at the instant the slip
// starts): mu v + S tau(dir v) dir.
inline double kinetic_friction_torque(const Friction& f, double v, FrictionMode mode, double scale,
                                      int segment = 0) {
  const double dir = static_cast<double>(static_cast<int>(mode));
  return f.viscous * v + (scale * f.table.at(segment, dir * v)) * dir;
}
// Tangent damping d lambda / dv while slipping on `segment` [N m s/rad] (stuck: a link, no tangent).
inline double friction_damping(const Friction& f, double scale = 0.0, int segment = 0) {
  const double b = f.table.slope[segment];
  return b == 0.0 ? f.viscous : f.viscous + scale * b;
}
// Dissipated power [W]: slipping, lambda v (static friction does no work: v = 0).
inline double friction_dissipation(const Friction& f, double v, FrictionMode mode, double scale, int segment = 0) {
  return mode == FrictionMode::stuck ? 0.0 : kinetic_friction_torque(f, v, mode, scale, segment) * v;
}
// The viscous part's power mu v_1 v_2 (the time stepper books mu v_theta v_mid).
inline double viscous_friction_dissipation(const Friction& f, double v1, double v2) { return f.viscous * v1 * v2; }
// The part of the table beyond its value at rest, sgn(v) S (tau(|v|) - tau_0):
// continuous through v = 0 (S b_0 v there), so the time stepper integrates it
// with the smooth forces and keeps S tau_0 for its dry row [N m].
inline double friction_table_remainder(const Friction& f, double v, double scale) {
  if (!f.speed_dependent) return 0.0;
  const double speed = std::abs(v);
  const double r = scale * (f.table.at(f.table.segment_of(speed), speed) - f.table.value[0]);
  return v < 0.0 ? -r : r;
}
// Its tangent d/dv at v [N m s/rad].
inline double friction_table_remainder_slope(const Friction& f, double v, double scale) {
  return f.speed_dependent ? scale * f.table.slope[f.table.segment_of(std::abs(v))] : 0.0;
}

// (can_have_dry_friction, core/model.hpp: the Coulomb part not identically 0.)
// Bearings of massless bodies are not S-S elements either: their stick-slip is
// the luz branch of the first-order equation (Theorem 5.3).
inline bool can_stick(const Model& m, const Friction& f) {
  return m.inertia[bearing_body(f)] > 0.0 && can_have_dry_friction(m, f);
}

// --- witnesses --------------------------------------------------------------
// Most witnesses an element watches at once (slipping: its arrival and the two
// knots of its segment; stuck: its two reserves).
inline constexpr int kMaxFrictionWitnesses = 3;
// The witnesses of friction element `index` in `mode` (the caller skips those
// that cannot stick and those watched through their static group): stuck,
// both reserves; slipping, its velocity, slip_margin past 0 (see
// solvers/dynamics.hpp, build_mode_structure).
void friction_witnesses(int index, FrictionMode mode, double slip_margin, std::vector<Witness>& out);
// The same with the knots of its table around `segment` while slipping: the
// speed s v crossing v_{k+1} upwards (knot_upper) or v_k downwards (knot_lower),
// written as v - level with level = s v_knot, so the value is the relative velocity's.
void friction_witnesses(const FrictionTable& table, int index, FrictionMode mode, int segment, double slip_margin,
                        std::vector<Witness>& out);
// Value of a friction witness (slip_velocity, stick_upper/lower, knot_upper/lower),
// of a friction element's or a one-way clutch's: its index is their link.
double friction_witness(const Model& m, const Witness& w, const WitnessInputs& in);
// A stuck link's reserve (stick_upper, stick_lower): its torque, solved in its
// cluster, against its limit (WitnessKindInfo::solved).
SolvedReach friction_reach(const Model& m, const Witness& w, const WitnessInputs& in);
// The segment of the table a slipping element is on after its mode `segment`
// (stuck: 0) met the state: kept while the speed lies in it (to within the
// roundoff of a knot crossing), else the one that holds the speed (a velocity
// jump at an impact crosses knots without their witnesses). rate_scale: the
// element row's row_scale (core/coordinate.hpp), the unit of that roundoff.
std::int8_t settled_segment(const FrictionTable& table, FrictionMode mode, int segment, double v,
                            double rate_scale = 1.0);

// --- outputs ----------------------------------------------------------------
// Element state code stored in results: -1, 0, +1.
inline int mode_code(FrictionMode m) { return static_cast<int>(m); }
inline ElementOutput friction_output(double torque, FrictionMode mode) {
  return {torque, static_cast<std::int8_t>(mode_code(mode))};
}
// The event a change of mode is (core/result.hpp).
EventKind friction_event(std::int8_t before, std::int8_t after);

}  // namespace luztar
