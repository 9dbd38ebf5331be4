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
  // Friction element i is link i (Model::links): its limit and torque.
  switch (w.kind) {
    case WitnessKind::slip_velocity: return friction_rate(m.frictions[w.index], in.w) - w.level;
    case WitnessKind::stick_upper: return in.limit[w.index] - in.lambda[w.index];
    case WitnessKind::stick_lower: return in.limit[w.index] + in.lambda[w.index];
    default: return 0.0;  // not a friction witness (kinds.cpp dispatches by kind)
  }
}

EventKind friction_event(std::int8_t before, std::int8_t after) {
  if (after == 0) return EventKind::stick;
  return before == 0 ? EventKind::break_away : EventKind::reversal;
}

}  // namespace luztar
