#pragma once
// One-way clutch (freewheel, sprag or roller clutch; to the base, a backstop)
// on the relative velocity v = w_a - w_b, with overrun direction o (+1: v may
// be positive, -1: negative). The law, one case at a time:
//
//   - o v >= 0 always: it never turns in its locked direction;
//   - overrunning (o v > 0, or v = 0 at the instant it starts to): the drag
//     lambda = o D(t) + mu v, the friction law of its `law` (elements/friction.hpp)
//     slipping in direction o, with D(t) >= 0 its coulomb signal;
//   - locked (v = 0): any lambda with o lambda <= r D(t), r = static_ratio:
//     the sprags take any torque in the locking direction, at most r D against
//     overrun; the value comes from the S-S procedure (solvers/mode_selection)
//     or the static split of its locked cluster (solvers/static_friction).
//
// lambda acts as -lambda on body a and +lambda on body b (a friction element's
// convention: it resists positive v when positive). Its state (its element's
// byte of State::element_mode): 0 locked, o overrunning; never -o. Events:
// lock (o -> 0) and overrun (0 -> o).
//
// Witnesses: overrunning, v reaching 0 from the overrun side (slip_velocity,
// slip_margin past 0 as a friction element's); locked, only the reserve
// against overrun, r D - o lambda, kOneWayReserveMargin past 0 (stick_upper
// for o = +1, stick_lower for o = -1): the locking side has no reserve. Both
// watch its link (their index).
//
// Impacts: unlike dry friction the lock carries impulses (a sprag engages
// against any approach): every one-way clutch is a row of the impact LCP with
// restitution 0 (solvers/impacts.hpp). The time stepper gives it an impulse
// row bounded on one side (solvers/time_stepping.cpp).
#include <algorithm>
#include <vector>

#include "core/model.hpp"
#include "core/signal.hpp"
#include "core/state.hpp"
#include "elements/friction.hpp"
#include "elements/kinds.hpp"
#include "elements/witness.hpp"

namespace luztar {

// Its row in the table of kinds (elements/kinds.hpp).
extern const ElementKindInfo kOneWayClutchKind;

// --- relation and state -------------------------------------------------------
// Relative velocity v = w_a - w_b [rad/s] (w_b = 0 for the base).
inline double one_way_rate(const OneWayClutch& c, const double* w) { return slip_velocity(c.law, w); }
// Its state in `modes`: 0 locked, c.overrun overrunning.
inline std::int8_t one_way_state(const Model& m, int i, const State& modes) {
  return modes.element_mode[m.one_way_element[i]];
}
inline bool one_way_locked(const Model& m, int i, const State& modes) { return one_way_state(m, i, modes) == 0; }
// Sets its state: locked, or overrunning (in its direction).
inline void set_one_way_locked(const Model& m, int i, bool locked, State& modes) {
  modes.element_mode[m.one_way_element[i]] = static_cast<std::int8_t>(locked ? 0 : m.one_way_clutches[i].overrun);
}

// --- law ------------------------------------------------------------------------
// D(t) of one-way clutch i [N m], finite (core/signal.hpp: require_finite_at,
// named after its element).
inline double one_way_drag_at(const Model& m, int i, double t, const double* inputs) {
  return require_finite_at(evaluate(m.signals[m.one_way_clutches[i].law.coulomb], t, inputs), t, "element",
                           m.element_names[m.one_way_element[i]], "coulomb");
}
// The drag while overrunning, o D + mu v [N m] (D: its coulomb signal's value).
inline double one_way_drag(const OneWayClutch& c, double v, double drag) {
  return kinetic_friction_torque(c.law, v, static_cast<FrictionMode>(c.overrun), drag);
}
// The largest torque it holds against overrun while locked, r D [N m].
inline double one_way_limit(const OneWayClutch& c, double drag) { return static_friction_limit(c.law, drag); }
// Its torque's utilisation while locked: o lambda / (r D) against overrun, 0
// in the locking direction (a limit 0 takes the smallest positive denominator).
inline double one_way_utilisation(const OneWayClutch& c, double lambda, double limit) {
  const double against = c.overrun * lambda;
  return against <= 0.0 ? 0.0 : against / std::max(limit, 1e-300);
}

// --- witnesses --------------------------------------------------------------------
// Most witnesses it watches at once (one).
inline constexpr int kMaxOneWayWitnesses = 1;
// How far past 0 its reserve r D - o lambda goes before the reserve's root,
// relative to the link's torque scale (WitnessContext::torque_scale): the
// roundoff floor of a static torque against its limit (solvers/
// event_pipeline.cpp, stuck_consistent). Absolute (1e-12 N m), it held a
// clutch of a model scaled by 1e-19 locked until an output point. Without it the reserve of
// a pure freewheel (D = 0) locked unloaded is identically 0, and one that
// starts at 0 and falls (the load turning it forward from the instant it
// locked, e.g. from rest at t_start) shows the integrator no sign change:
// the clutch would stay locked, pulling, until an output point noticed.
inline constexpr double kOneWayReserveMargin = 1e-12;
// The witness of one-way clutch `c` (its link `c.link`) locked or overrunning
// (see the top of this file); slip_margin as a friction element's.
// reserve_margin: kOneWayReserveMargin times its link's torque scale [N m].
void one_way_witnesses(const OneWayClutch& c, bool locked, double slip_margin, double reserve_margin,
                       std::vector<Witness>& out);

// --- outputs --------------------------------------------------------------------
// The event a change of its state is (core/result.hpp): lock or overrun.
EventKind one_way_event(std::int8_t before, std::int8_t after);

}  // namespace luztar
