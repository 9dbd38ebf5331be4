#pragma once
// Freeplay spring law (Part 2, sections 2.1-2.3): torque T = T_el(x) + c x'
// on its coordinate x = sum c_k q_k (core/coordinate.hpp; between two bodies
// x = q_a - p q_b). T acts as -c_k T on body k (-T on a and +p T on b).
//
// The elastic law T_el is one of two (core/model.hpp, Spring):
//  - a gap [L, U] = [center - a, center + a] (the offset x0 plus the bounds
//    lower, upper; freeplay a alone: [-a, a]) with stiffness k outside it,
//    T_el = k luz(x - center, a), a shifted luz. Inside the variable structure
//    the spring is on one side of the gap: side 0 (L < x < U, T_el = 0), +1
//    (x >= U, T_el = k (x - U)) or -1 (x <= L, T_el = k (x - L)); the two
//    kinks x = U and x = L are events. A rigid freeplay (k = inf) has no
//    elastic torque: its teeth in contact are a link of the structure
//    (Model::links) whose contact torque the solver finds; here it contributes
//    its damping c x' only.
//  - a stiffness table: T_el piecewise linear through its knots (x_k, T_k),
//    continued along its end segments. Its state is the segment k (between
//    knots k - 1 and k: 0 below the first, n above the last), T_el =
//    T_anchor + s_k (x - x_anchor) there; its knots are events (stage_upper,
//    stage_lower: Crossing::segment, logged as `stage`). Zero-torque segments
//    are gaps; multi-stage clutch dampers, progressive bump stops.
// In every side or segment the law is affine in (x, x'): the exact integrator
// serves it.
//
// damping_law contact (Spring::contact_damping; a gap with 0 < k < inf, or a
// table): T = T_el + clamp(c x', -|T_el|, +|T_el|) (Modelica's ElastoBacklash):
// 0 where T_el = 0 (in the gap), no jump as the teeth meet, no pull as they
// part. The clamp is the spring's mode of its own (State::element_mode): 0
// linear (T = T_el + c x'), +1 at +|T_el|, -1 at -|T_el|; with s the sign of
// T_el on the branch (a gap: its side; a table: SpringTable::sign, constant on
// each segment since assembly splits the one where T_el changes sign) a clamp
// m gives T = (1 + m s) T_el, so the law stays linear in each mode. Its
// corners c x' = +|T_el| and c x' = -|T_el| are witnesses
// (damping_upper/lower). The teeth meet with T_el = 0 < |c x'|: the clamp
// starts at the corner of their approach, and is 0 where T_el is 0.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/energy.hpp"
#include "core/model.hpp"
#include "core/projections.hpp"
#include "core/result.hpp"
#include "elements/kinds.hpp"
#include "elements/witness.hpp"

namespace luztar {

// Its row in the table of kinds (elements/kinds.hpp).
extern const ElementKindInfo kSpringKind;

// --- relation -------------------------------------------------------------
// Its coordinate x = sum c_k q_k [rad] and its rate x' = sum c_k w_k [rad/s].
struct SpringRelation {
  double x = 0.0, rate = 0.0;
};
inline double spring_rate(const Spring& s, const double* w) { return spring_deflection(s, w); }
inline SpringRelation spring_relation(const Spring& s, const double* q, const double* w) {
  return {spring_deflection(s, q), spring_rate(s, w)};
}
// The spring's torque T on the bodies: -c_k T on body k (force: (nb)).
inline void apply_spring_torque(const Spring& s, double torque, double* force) {
  apply_row_effort(s.row, torque, force);
}

// --- law ------------------------------------------------------------------
// The gap's flanks [rad]: x = U (upper) and x = L (lower).
inline double upper_flank(const Spring& s) { return s.center + s.freeplay; }
inline double lower_flank(const Spring& s) { return s.center - s.freeplay; }
// Freeplay side for a deflection x and its rate in a gap [-a, a]; exactly at
// a boundary the rate tells which side the motion goes to.
std::int8_t freeplay_side(double x, double a, double rate);
// The table segment of x (exactly at a knot: above it only when rate > 0).
std::int8_t table_segment(const SpringTable& t, double x, double rate);
// The spring's state at (x, x'): a gap's side (0 for a linear or rigid
// spring without a gap), a table's segment; ties as freeplay_side.
std::int8_t spring_state_at(const Spring& s, double x, double rate);
// Whether a table spring is at rest at a knot's root: |x'| within
// `tolerance` (the integrator's rest velocity, Integrator::resolution) or
// the roundoff of its bodies' speeds (core/coordinate.hpp, row_at_rest).
// Leaving a knot from rest (x' = 0 and x'' = 0 there, x ~ t^3), the
// integrator's x may creep an error tolerance
// across the knot against the motion; such a root is decided by x'' (the
// pipeline's probe), not by the crossing's direction.
inline bool at_rest_at_knot(const Spring& s, const double* w, double tolerance) {
  return row_at_rest(s.row, w, tolerance);
}
// The state a result stores (Result::element_state): the side, or the segment's index in the model's table.
inline std::int8_t spring_state_code(const Spring& s, std::int8_t state) {
  return s.has_table() ? s.table.label[state] : state;
}
// T_el on a table segment, continued linearly [N m].
inline double table_torque(const SpringTable& t, int k, double x) {
  const int anchor = k > 0 ? k - 1 : 0;
  return t.torque[anchor] + t.slope[k] * (x - t.knot[anchor]);
}
// T_el on the branch of `state` (a gap's side, a table's segment), continued
// linearly beyond it [N m]; a rigid freeplay: 0.
double branch_torque(const Spring& s, double x, std::int8_t state);
// The coordinate branch_torque measures x from on the branch of `state` (a
// flank, a table's anchor knot, the centre) [rad]: T_el = T0 + k (x - it), so
// that x - it, formed as the law forms it, keeps T_el's digits near a kink
// (solvers/output_map.hpp).
double branch_anchor(const Spring& s, std::int8_t state);
// The sign of T_el on the branch of `state` (a gap: the side).
inline std::int8_t branch_sign(const Spring& s, std::int8_t state) {
  return s.has_table() ? s.table.sign[state] : state;
}
// The clamp state of the contact law at (x, x') in `state` (0 for the law
// everywhere and where T_el is 0): +1 when c x' > |T_el|, -1 when c x' < -|T_el|.
std::int8_t damping_clamp(const Spring& s, const SpringRelation& r, std::int8_t state);
// The damping part of the torque in a state and clamp state: c x' (the law
// everywhere); with the contact law 0 where T_el = 0, c x' when linear, clamp |T_el|
// at a corner (T_el on the branch of `state`).
double spring_damping_torque(const Spring& s, const SpringRelation& r, std::int8_t state, std::int8_t clamp);
// Torque in a given state and clamp state (equals the exact law when they match
// (x, x')); a rigid freeplay gives c x' (its contact torque is its link's).
double spring_torque(const Spring& s, const SpringRelation& r, std::int8_t state, std::int8_t clamp = 0);
// Elastic part T_el(x) of the exact law (a rigid freeplay: 0).
double spring_elastic_torque(const Spring& s, double x);
// Energy stored [J]: 1/2 k luz(x - center, a)^2 for a gap (0 at rest in it),
// the integral of T_el from the offset for a table (quadratic on each
// segment; only its differences count); a rigid freeplay, a constraint: 0.
double spring_elastic_energy(const Spring& s, double x);
// Torque on the exact law T_el(x) + c x' (a rigid freeplay: c x'; the
// contact law with the state and clamp read from (x, x')).
double spring_torque_exact(const Spring& s, const SpringRelation& r);
// Tangent stiffness dT/dx in a state [N m/rad]: k on a stiff branch (a linear
// spring always), 0 inside the gap and for a rigid freeplay, a table's slope;
// the contact law: (1 + clamp sign) times that.
double spring_stiffness(const Spring& s, std::int8_t state, std::int8_t clamp = 0);
// The roundoff of T_el in `state` from the rounding of its coordinate [N m]:
// x = sum c_k q_k and x - anchor, formed from absolute angles, carry eps
// (sum |c_k q_k| + |anchor|), which the tangent stiffness turns into torque.
// Shafts 27 rad round, a 5000 N m/rad mesh: 6e-11 N m, whatever the torque.
double spring_coordinate_roundoff(const Spring& s, std::int8_t state, const double* q);
// Tangent damping dT/dx' [N m s/rad].
inline double spring_damping(const Spring& s) { return s.damping; }
// ... in a state and clamp state: the contact law damps only linear where T_el != 0.
inline double spring_damping(const Spring& s, std::int8_t state, std::int8_t clamp) {
  return !s.contact_damping || (branch_sign(s, state) != 0 && clamp == 0) ? s.damping : 0.0;
}
// Dissipated power c x'_1 x'_2 [W] (x'_1 = x'_2 = x': the power c x'^2; the
// time stepper books c x'_theta x'_mid).
inline double spring_dissipation(const Spring& s, double rate1, double rate2) { return s.damping * rate1 * rate2; }
// Dissipated power of the law in a state and clamp state: its damping torque
// (at r) times the rate `rate2` [W] (the elastic part T_el stores energy).
inline double spring_dissipation(const Spring& s, const SpringRelation& r, std::int8_t state, std::int8_t clamp,
                                 double rate2) {
  return spring_damping_torque(s, r, state, clamp) * rate2;
}

// ... with the state and clamp read from r (the time stepper books it at x'_theta).
double spring_dissipation_exact(const Spring& s, const SpringRelation& r, double rate2);

// --- witnesses --------------------------------------------------------------
// True when the spring has kinks to watch (k > 0 and a gap of positive width, or a table).
inline bool has_freeplay_events(const Spring& s) {
  return s.has_table() || (s.freeplay > 0.0 && s.stiffness > 0.0);
}
// Most witnesses a spring watches at once (a gap: two kinks and a turnaround;
// in contact with the contact law: one kink and two corners; a table: two
// knots and two corners).
inline constexpr int kMaxSpringWitnesses = 4;
// The witnesses of spring `index` in `state` (the caller skips springs without
// freeplay events and those at algebraic bodies): an elastic spring in its gap
// watches both kinks, outside only the kink it came through; a table segment
// its two knots (one for an end segment). A rigid freeplay in its gap watches
// both flanks and, unless the structure holds x' at 0 (rate_held), the
// turnaround of x' towards the nearer flank, slip_margin past 0 so that teeth
// that leave a flank at rest do not start on it; in contact it watches its
// contact torque unless its static group watches it (in_group). The contact
// law (c > 0) where T_el != 0 also watches the corners of its clamp: linear
// both, at a corner the one it leaves through.
void spring_witnesses(const Spring& s, int index, std::int8_t state, double x, bool rate_held, bool in_group,
                      double slip_margin, std::vector<Witness>& out, std::int8_t clamp = 0);
// Value of a spring witness (freeplay_upper/lower, stage_upper/lower,
// gap_turnaround, contact_force, damping_upper/lower: c x' -/+ |T_el|).
double spring_witness(const Model& m, const Witness& w, const WitnessInputs& in);
// A contact's torque (contact_force), solved in its cluster, and a contact
// damper's clamp (damping_upper, damping_lower): the spring's coordinate
// (WitnessKindInfo::solved).
SolvedReach spring_reach(const Model& m, const Witness& w, const WitnessInputs& in);

// --- outputs ----------------------------------------------------------------
// In a state the solver keeps: the law in that state plus a rigid freeplay's
// contact torque `contact` [N m]; the stored state (spring_state_code).
inline ElementOutput spring_output(const Spring& s, const SpringRelation& r, std::int8_t state, double contact,
                                   std::int8_t clamp = 0) {
  return {spring_torque(s, r, state, clamp) + contact, spring_state_code(s, state)};
}
// On the exact law, with the state the caller read (plus a rigid freeplay's contact torque).
inline ElementOutput spring_output_exact(const Spring& s, const SpringRelation& r, std::int8_t state, double contact) {
  return {spring_torque_exact(s, r) + contact, spring_state_code(s, state)};
}
// The event a change of the stored state is (core/result.hpp): a table's
// `stage`; a gap's contact (0 -> +-1) or separation (back to 0).
inline EventKind spring_event(const Spring& s, std::int8_t /*before*/, std::int8_t after) {
  if (s.has_table()) return EventKind::stage;
  return after == 0 ? EventKind::separation : EventKind::contact;
}

}  // namespace luztar
