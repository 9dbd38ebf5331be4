#include "elements/friction.hpp"

namespace luztar {

void friction_witnesses(int index, FrictionMode mode, double slip_margin, std::vector<Witness>& out) {
  using K = WitnessKind;
  switch (mode) {
    case FrictionMode::stuck:
      out.push_back({K::stick_upper, index, -1});
      out.push_back({K::stick_lower, index, -1});
      break;
    case FrictionMode::slip_positive:
      out.push_back({K::slip_velocity, index, -1, -slip_margin});
      break;
    case FrictionMode::slip_negative:
      out.push_back({K::slip_velocity, index, +1, slip_margin});
      break;
  }
}

void friction_witnesses(const FrictionTable& table, int index, FrictionMode mode, int segment, double slip_margin,
                        std::vector<Witness>& out) {
  friction_witnesses(index, mode, slip_margin, out);
  if (mode == FrictionMode::stuck) return;
  const int s = static_cast<int>(mode);
  if (segment + 1 < table.segments())
    out.push_back({WitnessKind::knot_upper, index, s, s * table.speed[segment + 1]});
  if (segment >= 1) out.push_back({WitnessKind::knot_lower, index, -s, s * table.speed[segment]});
}

std::int8_t settled_segment(const FrictionTable& table, FrictionMode mode, int segment, double v, double rate_scale) {
  if (mode == FrictionMode::stuck) return 0;
  const double speed = static_cast<int>(mode) * v;
  // The roundoff a crossing leaves at a knot (the root's location in time
  // times the acceleration): far below any knot spacing that makes sense.
  auto near = [&](double knot) { return 1e-9 * (rate_scale + knot); };
  const bool above_lower = segment == 0 || speed >= table.speed[segment] - near(table.speed[segment]);
  const bool below_upper =
      segment + 1 >= table.segments() || speed <= table.speed[segment + 1] + near(table.speed[segment + 1]);
  if (segment < table.segments() && above_lower && below_upper) return static_cast<std::int8_t>(segment);
  return static_cast<std::int8_t>(table.segment_of(std::max(speed, 0.0)));
}

double friction_witness(const Model& m, const Witness& w, const WitnessInputs& in) {
  // The index is a link (friction element i is link i; a one-way clutch's,
  // OneWayClutch::link): its rate, limit and torque.
  switch (w.kind) {
    case WitnessKind::slip_velocity:
    case WitnessKind::knot_upper:
    case WitnessKind::knot_lower: return friction_link_rate(m.links[w.index], in.w) - w.level;
    // (the reserve less its level: 0 for a friction element, a margin below 0
    // for a one-way clutch, elements/one_way_clutch.hpp)
    case WitnessKind::stick_upper: return in.limit[w.index] - in.lambda[w.index] - w.level;
    case WitnessKind::stick_lower: return in.limit[w.index] + in.lambda[w.index] - w.level;
    default: return 0.0;  // not a friction witness (kinds.cpp dispatches by kind)
  }
}

SolvedReach friction_reach(const Model& m, const Witness& w, const WitnessInputs& in) {
  return {&m.links[w.index].row, -1, in.limit[w.index]};
}

EventKind friction_event(std::int8_t before, std::int8_t after) {
  if (after == 0) return EventKind::stick;
  return before == 0 ? EventKind::break_away : EventKind::reversal;
}

}  // namespace luztar

// --- its row in the table of kinds (elements/kinds.hpp) ----------------------
// Friction element i is link i (Model::links): its static limit and torque.

namespace luztar {

namespace {

const CoordinateRow& relation_of(const Model& m, int i) { return m.frictions[i].row; }

std::int8_t mode_of(const Model&, int i, const State& modes) {
  return static_cast<std::int8_t>(mode_code(modes.friction_mode[i]));
}

// The segment of its table element i is on (its mode of its own).
int segment_of(const Model& m, int i, const State& modes) { return modes.element_mode[m.friction_element[i]]; }

// Slipping: the kinetic torque; stuck: only its limit (its static torque is
// the structure's, solvers/static_friction); on a massless body: only its
// limit (it is part of the body's first-order law, elements/massless_bearing.hpp).
void forces(const Model& m, int i, const ModeFrame& f, const ForceTargets& out) {
  const Friction& fr = m.frictions[i];
  const double scale = law_scale(fr, f.sigma);
  out.limit[i] = static_friction_limit(fr, scale);
  const FrictionMode mode = f.modes->friction_mode[i];
  if (m.massless(bearing_body(fr)) || mode == FrictionMode::stuck) return;
  out.lambda[i] = kinetic_friction_torque(fr, friction_rate(fr, f.w), mode, scale, segment_of(m, i, *f.modes));
  apply_friction_torque(fr, out.lambda[i], out.force);
}

bool tangent(const Model& m, int i, const State& modes, const double* sigma, Tangent& out) {
  if (modes.friction_mode[i] == FrictionMode::stuck || m.massless(bearing_body(m.frictions[i]))) return false;
  const Friction& fr = m.frictions[i];  // lambda = mu v + dir S (tau_k + b_k (dir v - v_k))
  out = {0.0, friction_damping(fr, law_scale(fr, sigma), segment_of(m, i, modes))};
  return true;
}

void witnesses(const Model& m, int i, const WitnessContext& c, std::vector<Witness>& out) {
  const Friction& fr = m.frictions[i];
  if (!can_stick(m, fr) || c.in_group[i]) return;
  const FrictionMode mode = c.modes->friction_mode[i];
  const double margin = c.slip_margin * row_scale(m.links[i].row);  // (friction element i is link i)
  if (fr.speed_dependent) friction_witnesses(fr.table, i, mode, segment_of(m, i, *c.modes), margin, out);
  else friction_witnesses(i, mode, margin, out);  // a level table's knots change nothing
}

double dissipation(const Model& m, int i, const ModeFrame& f) {
  const FrictionMode mode = f.modes->friction_mode[i];
  if (mode == FrictionMode::stuck) return 0.0;  // v = 0: static friction does no work
  const Friction& fr = m.frictions[i];
  return friction_dissipation(fr, friction_rate(fr, f.w), mode, law_scale(fr, f.sigma), segment_of(m, i, *f.modes));
}

ElementOutput output(const Model&, int i, const ModeFrame& f) {
  return friction_output(f.lambda[i], f.modes->friction_mode[i]);
}

// The segment from the state (at the start, and at every restart: a velocity
// jump may have crossed knots); a knot crossing moves it by one.
std::int8_t restart_mode(const Model& m, int i, const State& s) {
  const Friction& fr = m.frictions[i];
  if (!fr.speed_dependent) return 0;  // one segment's law (the knots of a level table change nothing)
  return settled_segment(fr.table, s.friction_mode[i], segment_of(m, i, s), friction_rate(fr, s.w.data()),
                         row_scale(m.links[i].row));
}

std::int8_t mode_after(const Model& m, int i, const State& s, const Witness& w) {
  const int k = segment_of(m, i, s);
  if (w.kind == WitnessKind::knot_upper) return static_cast<std::int8_t>(k + 1);
  if (w.kind == WitnessKind::knot_lower) return static_cast<std::int8_t>(k - 1);
  return static_cast<std::int8_t>(k);
}

// The time stepper: the dry part S tau_0 is its link's row; the smooth part
// is the viscous torque and the table's remainder beyond tau_0, linearised at
// the step's start (tangent damping mu + S b_k in the step matrix).
double step_scale(const Model& m, int i, const StepFrame& f) {
  const Friction& fr = m.frictions[i];
  return fr.speed_dependent ? friction_scale(m, i, f.t, f.inputs) : 0.0;
}

Tangent step_tangent(const Model& m, int i, const StepFrame& f) {
  const Friction& fr = m.frictions[i];
  return {0.0, fr.viscous + friction_table_remainder_slope(fr, friction_rate(fr, f.v), step_scale(m, i, f))};
}

void step_forces(const Model& m, int i, const StepFrame& f, double* rhs) {
  const Friction& fr = m.frictions[i];
  const double u = friction_rate(fr, f.v);
  double T = viscous_friction_torque(fr, u);
  if (fr.speed_dependent) T += friction_table_remainder(fr, u, step_scale(m, i, f));
  apply_friction_torque(fr, T, rhs);
}

// The power of the smooth torque the step applied (at v_theta, linearised at
// the start), at v_mid: the balance of the scheme closes with it.
double step_dissipation(const Model& m, int i, const StepFrame& start, const double* v_theta, const double* v_mid) {
  const Friction& fr = m.frictions[i];
  const double u_theta = friction_rate(fr, v_theta), u_mid = friction_rate(fr, v_mid);
  const double viscous = viscous_friction_dissipation(fr, u_theta, u_mid);
  if (!fr.speed_dependent) return viscous;
  const double u0 = friction_rate(fr, start.v), scale = step_scale(m, i, start);
  const double remainder = friction_table_remainder(fr, u0, scale) +
                           friction_table_remainder_slope(fr, u0, scale) * (u_theta - u0);
  return viscous + remainder * u_mid;
}

// Stuck when its impulse stayed within its bound, or when it ends the step
// at rest carrying nothing (an open clutch between bodies at rest: stuck at
// zero torque, as the event-driven solver has it); else the direction of its
// slip (of the impulse when it ends the step at rest).
ElementOutput step_output(const Model& m, int i, const StepFrame& f) {
  const Friction& fr = m.frictions[i];
  const double u = friction_rate(fr, f.v), P = f.link_impulse[i];
  double smooth = viscous_friction_torque(fr, u);
  if (fr.speed_dependent) smooth += friction_table_remainder(fr, u, step_scale(m, i, f));
  const bool stuck = f.link_held[i] || (u == 0.0 && P == 0.0);
  return {smooth - P / f.h, static_cast<std::int8_t>(stuck ? 0 : u > 0.0 ? 1 : u < 0.0 ? -1 : P > 0.0 ? -1 : 1)};
}

EventKind event_of(const Model&, int, std::int8_t before, std::int8_t after) { return friction_event(before, after); }

}  // namespace

const ElementKindInfo kFrictionKind = {
    .kind = ElementKind::friction,
    .event = event_of,
    .sticks = true,
    .max_witnesses = kMaxFrictionWitnesses,
    .relation = relation_of,
    .state = mode_of,
    .forces = forces,
    .tangent = tangent,
    .witnesses = witnesses,
    .dissipation = dissipation,
    .output = output,
    .initial_mode = restart_mode,  // the segment of its table
    .mode_after = mode_after,
    .restart_mode = restart_mode,
    .step_tangent = step_tangent,
    .step_forces = step_forces,
    .step_dissipation = step_dissipation,
    .step_output = step_output,
};

}  // namespace luztar
