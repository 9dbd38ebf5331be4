#include "elements/one_way_clutch.hpp"

namespace luztar {

void one_way_witnesses(const OneWayClutch& c, bool locked, double slip_margin, double reserve_margin,
                       std::vector<Witness>& out) {
  if (locked) {
    // r D - o lambda reaching -reserve_margin (friction_witness:
    // stick_upper is limit - lambda, stick_lower limit + lambda, less the level)
    out.push_back({c.overrun > 0 ? WitnessKind::stick_upper : WitnessKind::stick_lower, c.link, -1, -reserve_margin});
    return;
  }
  // o v falling through 0, slip_margin past it (elements/friction.cpp, friction_witnesses)
  out.push_back({WitnessKind::slip_velocity, c.link, -c.overrun, -c.overrun * slip_margin});
}

EventKind one_way_event(std::int8_t, std::int8_t after) { return after == 0 ? EventKind::lock : EventKind::overrun; }

}  // namespace luztar

// --- its row in the table of kinds (elements/kinds.hpp) ----------------------
// Its link (OneWayClutch::link) holds its static limit and torque.

namespace luztar {

namespace {

const CoordinateRow& relation_of(const Model& m, int i) { return m.one_way_clutches[i].law.row; }

// Overrunning: its drag; locked: only its limit (its torque is the
// structure's, solvers/static_friction).
void forces(const Model& m, int i, const ModeFrame& f, const ForceTargets& out) {
  const OneWayClutch& c = m.one_way_clutches[i];
  const double drag = f.sigma[c.law.slot];
  out.limit[c.link] = one_way_limit(c, drag);
  if (one_way_locked(m, i, *f.modes)) return;
  out.lambda[c.link] = one_way_drag(c, one_way_rate(c, f.w), drag);
  apply_friction_torque(c.law, out.lambda[c.link], out.force);
}

bool tangent(const Model& m, int i, const State& modes, const double*, Tangent& out) {
  if (one_way_locked(m, i, modes)) return false;
  out = {0.0, friction_damping(m.one_way_clutches[i].law)};  // lambda = o D + mu v
  return true;
}

void witnesses(const Model& m, int i, const WitnessContext& c, std::vector<Witness>& out) {
  const OneWayClutch& clutch = m.one_way_clutches[i];
  if (!c.in_group[clutch.link]) {
    const double torque_scale = margin_scale(c.torque_scale ? c.torque_scale[clutch.link] : 1.0);
    one_way_witnesses(clutch, one_way_locked(m, i, *c.modes), c.slip_margin * row_scale(clutch.law.row),
                      kOneWayReserveMargin * torque_scale, out);
  }
}

double dissipation(const Model& m, int i, const ModeFrame& f) {
  if (one_way_locked(m, i, *f.modes)) return 0.0;  // v = 0: the lock does no work
  const OneWayClutch& c = m.one_way_clutches[i];  // its drag's power, lambda v
  return friction_dissipation(c.law, one_way_rate(c, f.w), static_cast<FrictionMode>(c.overrun), f.sigma[c.law.slot]);
}

ElementOutput output(const Model& m, int i, const ModeFrame& f) {
  return {f.lambda[m.one_way_clutches[i].link], one_way_state(m, i, *f.modes)};
}

// At the start: overrunning when it turns in its overrun direction; at rest
// as well, until the S-S selection at t_start decides (validate() refuses a
// start in the locked direction).
std::int8_t initial_mode(const Model& m, int i, const State&) {
  return static_cast<std::int8_t>(m.one_way_clutches[i].overrun);
}

Tangent step_tangent(const Model& m, int i, const StepFrame&) {
  return {0.0, friction_damping(m.one_way_clutches[i].law)};
}

void step_forces(const Model& m, int i, const StepFrame& f, double* rhs) {  // the drag's dry part is its link's row
  const Friction& law = m.one_way_clutches[i].law;
  apply_friction_torque(law, viscous_friction_torque(law, friction_rate(law, f.v)), rhs);
}

double step_dissipation(const Model& m, int i, const StepFrame&, const double* v_theta, const double* v_mid) {
  const Friction& law = m.one_way_clutches[i].law;
  return viscous_friction_dissipation(law, friction_rate(law, v_theta), friction_rate(law, v_mid));
}

// Locked when its impulse stayed inside its bound against overrun, or it
// ends the step at rest; else overrunning.
ElementOutput step_output(const Model& m, int i, const StepFrame& f) {
  const OneWayClutch& c = m.one_way_clutches[i];
  const double u = one_way_rate(c, f.v), P = f.link_impulse[c.link];
  const bool locked = f.link_held[c.link] || c.overrun * u <= 0.0;
  return {viscous_friction_torque(c.law, u) - P / f.h, static_cast<std::int8_t>(locked ? 0 : c.overrun)};
}

EventKind event_of(const Model&, int, std::int8_t before, std::int8_t after) { return one_way_event(before, after); }

}  // namespace

const ElementKindInfo kOneWayClutchKind = {
    .kind = ElementKind::one_way_clutch,
    .event = event_of,
    .sticks = true,
    .max_witnesses = kMaxOneWayWitnesses,
    .relation = relation_of,
    .state = one_way_state,
    .forces = forces,
    .tangent = tangent,
    .witnesses = witnesses,
    .dissipation = dissipation,
    .output = output,
    .initial_mode = initial_mode,
    .step_tangent = step_tangent,
    .step_forces = step_forces,
    .step_dissipation = step_dissipation,
    .step_output = step_output,
};

}  // namespace luztar
