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

double friction_witness(const Model& m, const Witness& w, const WitnessInputs& in) {
  // The index is a link (friction element i is link i; a one-way clutch's,
  // OneWayClutch::link): its rate, limit and torque.
  switch (w.kind) {
    case WitnessKind::slip_velocity: return friction_link_rate(m.links[w.index], in.w) - w.level;
    // (the reserve less its level: 0 for a friction element, a margin below 0
    // for a one-way clutch, elements/one_way_clutch.hpp)
    case WitnessKind::stick_upper: return in.limit[w.index] - in.lambda[w.index] - w.level;
    case WitnessKind::stick_lower: return in.limit[w.index] + in.lambda[w.index] - w.level;
    default: return 0.0;  // not a friction witness (kinds.cpp dispatches by kind)
  }
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

bool relation_of(const Model& m, int i, Relation& out) {
  const Friction& f = m.frictions[i];
  out = {f.a, f.b, 1.0};
  return true;
}

std::int8_t mode_of(const Model&, int i, const State& modes) {
  return static_cast<std::int8_t>(mode_code(modes.friction_mode[i]));
}

// Slipping: the kinetic torque; stuck: only its limit (its static torque is
// the structure's, solvers/static_friction); on a massless body: only its
// limit (it is part of the body's first-order law, elements/massless_bearing.hpp).
void forces(const Model& m, int i, const ModeFrame& f, const ForceTargets& out) {
  const Friction& fr = m.frictions[i];
  const double mt0 = f.sigma[fr.slot];
  out.limit[i] = static_friction_limit(fr, mt0);
  const FrictionMode mode = f.modes->friction_mode[i];
  if (m.massless(fr.a) || mode == FrictionMode::stuck) return;
  out.lambda[i] = kinetic_friction_torque(fr, friction_rate(fr, f.w), mode, mt0);
  apply_friction_torque(fr, out.lambda[i], out.force);
}

bool tangent(const Model& m, int i, const State& modes, Tangent& out) {
  if (modes.friction_mode[i] == FrictionMode::stuck || m.massless(m.frictions[i].a)) return false;
  out = {0.0, friction_damping(m.frictions[i])};  // lambda = mu v + MT0 dir
  return true;
}

void witnesses(const Model& m, int i, const WitnessContext& c, std::vector<Witness>& out) {
  if (can_stick(m, m.frictions[i]) && !c.in_group[i])
    friction_witnesses(i, c.modes->friction_mode[i], c.slip_margin, out);
}

double dissipation(const Model& m, int i, const ModeFrame& f) {
  const FrictionMode mode = f.modes->friction_mode[i];
  if (mode == FrictionMode::stuck) return 0.0;  // v = 0: static friction does no work
  const Friction& fr = m.frictions[i];
  return friction_dissipation(fr, friction_rate(fr, f.w), mode, f.sigma[fr.slot]);
}

ElementOutput output(const Model&, int i, const ModeFrame& f) {
  return friction_output(f.lambda[i], f.modes->friction_mode[i]);
}

Tangent step_tangent(const Model& m, int i, const StepFrame&) { return {0.0, friction_damping(m.frictions[i])}; }

void step_forces(const Model& m, int i, const StepFrame& f, double* rhs) {  // the dry part is its link's row
  const Friction& fr = m.frictions[i];
  apply_friction_torque(fr, viscous_friction_torque(fr, friction_rate(fr, f.v)), rhs);
}

double step_dissipation(const Model& m, int i, const double*, const double* v_theta, const double* v_mid) {
  const Friction& fr = m.frictions[i];
  return viscous_friction_dissipation(fr, friction_rate(fr, v_theta), friction_rate(fr, v_mid));
}

// Stuck when its impulse stayed within its bound; else the direction of its
// slip (of the impulse when it ends the step at rest).
ElementOutput step_output(const Model& m, int i, const StepFrame& f) {
  const Friction& fr = m.frictions[i];
  const double u = friction_rate(fr, f.v), P = f.link_impulse[i];
  return {viscous_friction_torque(fr, u) - P / f.h,
          static_cast<std::int8_t>(f.link_held[i] ? 0 : u > 0.0 ? 1 : u < 0.0 ? -1 : P > 0.0 ? -1 : 1)};
}

}  // namespace

const ElementKindInfo kFrictionKind = {
    .kind = ElementKind::friction,
    .event = friction_event,
    .sticks = true,
    .max_witnesses = kMaxFrictionWitnesses,
    .relation = relation_of,
    .state = mode_of,
    .forces = forces,
    .tangent = tangent,
    .witnesses = witnesses,
    .dissipation = dissipation,
    .output = output,
    .step_tangent = step_tangent,
    .step_forces = step_forces,
    .step_dissipation = step_dissipation,
    .step_output = step_output,
};

}  // namespace luztar
