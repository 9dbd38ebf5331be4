#pragma once
// Freeplay spring law (Part 2, sections 2.1-2.3): torque T = k luz(x, a) + c x'
// on the relative angle x = q_a - p q_b. T acts as -T on body a and +p T on b.
//
// Inside the variable structure the spring is on one side of its freeplay:
// side 0 (|x| < a, no contact, T = c x'), +1 (x >= a, T = k (x - a) + c x') or
// -1 (x <= -a, T = k (x + a) + c x'). The two kinks of luz are events:
// x - a = 0 and x + a = 0. A rigid freeplay (k = inf) has no elastic torque:
// its teeth in contact are a link of the structure (Model::links) whose
// contact torque the solver finds; here it contributes its damping c x' only.
//
// damping_law contact (Spring::contact_damping; 0 < k < inf, a > 0): the
// torque is 0 in the gap and, in contact, T = Tc + clamp(c x', -|Tc|, +|Tc|)
// with Tc = k luz(x, a) (Modelica's ElastoBacklash): no jump as the teeth meet,
// no pull as they part. The clamp is the spring's mode of its own
// (State::element_mode): 0 linear (T = Tc + c x'), +1 at +|Tc|, -1 at -|Tc|;
// in side s != 0 a clamp m gives T = (1 + m s) Tc, so the law stays linear in
// each mode. Its corners c x' = +|Tc| and c x' = -|Tc| are witnesses
// (damping_upper/lower). The teeth meet with Tc = 0 < |c x'|: the clamp
// starts at the corner of their approach, and is 0 in the gap.
#include <cstdint>
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
// Relative angle x = q_a - p q_b [rad] and its rate x' = w_a - p w_b [rad/s].
struct SpringRelation {
  double x = 0.0, rate = 0.0;
};
inline double spring_rate(const Spring& s, const double* w) { return spring_deflection(s, w); }
inline SpringRelation spring_relation(const Spring& s, const double* q, const double* w) {
  return {spring_deflection(s, q), spring_rate(s, w)};
}
// The spring's torque T on the bodies: -T on a, +p T on b (force: (nb)).
inline void apply_spring_torque(const Spring& s, double torque, double* force) {
  force[s.a] -= torque;
  if (s.b != kGround) force[s.b] += s.ratio * torque;
}

// --- law ------------------------------------------------------------------
// Freeplay side for a deflection x and its rate; exactly at a boundary the
// rate tells which side the motion goes to.
std::int8_t freeplay_side(double x, double a, double rate);
// The clamp state of the contact law at (x, x') in `side` (0 for the law
// everywhere and in the gap): +1 when c x' > |Tc|, -1 when c x' < -|Tc|.
std::int8_t damping_clamp(const Spring& s, const SpringRelation& r, std::int8_t side);
// The damping part of the torque in a side and clamp state: c x' (the law
// everywhere); with the contact law 0 in the gap, c x' when linear, clamp |Tc|
// at a corner (Tc on the branch of `side`).
double spring_damping_torque(const Spring& s, const SpringRelation& r, std::int8_t side, std::int8_t clamp);
// Torque in a given side and clamp state (equals the exact law when they match
// (x, x')); a rigid freeplay gives c x' (its contact torque is its link's).
double spring_torque(const Spring& s, const SpringRelation& r, std::int8_t side, std::int8_t clamp = 0);
// Elastic part k luz(x, a) of the exact law (a rigid freeplay: 0).
inline double spring_elastic_torque(const Spring& s, double x) {
  return s.rigid() ? 0.0 : s.stiffness * luz(x, s.freeplay);
}
// Energy stored 1/2 k luz(x, a)^2 [J] (a rigid freeplay, a constraint: 0).
inline double spring_elastic_energy(const Spring& s, double x) {
  if (s.rigid()) return 0.0;
  const double d = luz(x, s.freeplay);
  return 0.5 * s.stiffness * d * d;
}
// Torque on the exact law k luz(x, a) + c x' (a rigid freeplay: c x'; the
// contact law with the side and clamp read from (x, x')).
double spring_torque_exact(const Spring& s, const SpringRelation& r);
// Tangent stiffness dT/dx in a side [N m/rad]: k on a stiff branch (a linear
// spring always), 0 inside the gap and for a rigid freeplay; the contact law:
// (1 + clamp side) k.
double spring_stiffness(const Spring& s, std::int8_t side, std::int8_t clamp = 0);
// Tangent damping dT/dx' [N m s/rad].
inline double spring_damping(const Spring& s) { return s.damping; }
// ... in a side and clamp state: the contact law damps only linear in contact.
inline double spring_damping(const Spring& s, std::int8_t side, std::int8_t clamp) {
  return !s.contact_damping || (side != 0 && clamp == 0) ? s.damping : 0.0;
}
// Dissipated power c x'_1 x'_2 [W] (x'_1 = x'_2 = x': the power c x'^2; the
// time stepper books c x'_theta x'_mid).
inline double spring_dissipation(const Spring& s, double rate1, double rate2) { return s.damping * rate1 * rate2; }
// Dissipated power of the law in a side and clamp state: its damping torque
// (at r) times the rate `rate2` [W] (the elastic part Tc stores energy).
inline double spring_dissipation(const Spring& s, const SpringRelation& r, std::int8_t side, std::int8_t clamp,
                                 double rate2) {
  return spring_damping_torque(s, r, side, clamp) * rate2;
}

// ... with the side and clamp read from r (the time stepper books it at x'_theta).
double spring_dissipation_exact(const Spring& s, const SpringRelation& r, double rate2);

// --- witnesses --------------------------------------------------------------
// True when the spring has kinks to watch (k > 0 and a > 0).
inline bool has_freeplay_events(const Spring& s) { return s.freeplay > 0.0 && s.stiffness > 0.0; }
// Most witnesses a spring watches at once (two kinks and a turnaround; in
// contact with the contact law: one kink and two corners).
inline constexpr int kMaxSpringWitnesses = 3;
// The witnesses of spring `index` on `side` (the caller skips springs without
// freeplay events and those at algebraic bodies): an elastic spring in its gap
// watches both kinks, outside only the kink it came through. A rigid freeplay
// in its gap watches both flanks and, unless the structure holds x' at 0
// (rate_held), the turnaround of x' towards the nearer flank, slip_margin past
// 0 so that teeth that leave a flank at rest do not start on it; in contact it
// watches its contact torque unless its static group watches it (in_group).
// The contact law (c > 0) in contact also watches the corners of its clamp:
// linear both, at a corner the one it leaves through.
void spring_witnesses(const Spring& s, int index, std::int8_t side, double x, bool rate_held, bool in_group,
                      double slip_margin, std::vector<Witness>& out, std::int8_t clamp = 0);
// Value of a spring witness (freeplay_upper/lower, gap_turnaround,
// contact_force, damping_upper/lower: c x' -/+ |Tc|).
double spring_witness(const Model& m, const Witness& w, const WitnessInputs& in);

// --- outputs ----------------------------------------------------------------
// In a side the solver keeps: the law in that side plus a rigid freeplay's
// contact torque `contact` [N m]; state = side.
inline ElementOutput spring_output(const Spring& s, const SpringRelation& r, std::int8_t side, double contact,
                                   std::int8_t clamp = 0) {
  return {spring_torque(s, r, side, clamp) + contact, side};
}
// On the exact law, with the side the caller read (plus a rigid freeplay's contact torque).
inline ElementOutput spring_output_exact(const Spring& s, const SpringRelation& r, std::int8_t side, double contact) {
  return {spring_torque_exact(s, r) + contact, side};
}
// The event a change of side is (core/result.hpp).
inline EventKind spring_event(std::int8_t /*before*/, std::int8_t after) {
  return after == 0 ? EventKind::separation : EventKind::contact;
}

}  // namespace luztar
