#include "elements/freeplay_spring.hpp"

namespace luztar {

std::int8_t freeplay_side(double x, double a, double rate) {
  if (x > a || (x == a && rate > 0.0)) return 1;
  if (x < -a || (x == -a && rate < 0.0)) return -1;
  return 0;
}

double spring_torque(const Spring& s, const SpringRelation& r, std::int8_t side) {
  double elastic = 0.0;
  if (s.rigid()) {
    elastic = 0.0;  // the contact torque is the link's
  } else if (s.freeplay == 0.0) {
    elastic = s.stiffness * r.x;  // a plain linear spring: no kinks
  } else if (side != 0) {
    elastic = s.stiffness * (r.x - side * s.freeplay);
  }
  return elastic + s.damping * r.rate;
}

double spring_torque_exact(const Spring& s, const SpringRelation& r) {
  if (s.rigid()) return s.damping * r.rate;
  return spring_elastic_torque(s, r.x) + s.damping * r.rate;
}

double spring_stiffness(const Spring& s, std::int8_t side) {
  if (s.rigid()) return 0.0;
  return (s.freeplay == 0.0 || side != 0) ? s.stiffness : 0.0;
}

void spring_witnesses(const Spring& s, int index, std::int8_t side, double x, bool rate_held, bool in_group,
                      double slip_margin, std::vector<Witness>& out) {
  using K = WitnessKind;
  if (s.rigid() && side != 0) {  // teeth in contact: the structure holds x, its contact torque may unload
    if (!in_group) out.push_back({K::contact_force, index, -1});
    return;
  }
  // A branch between two kinks (side 0) watches both; an outer branch only the
  // kink it came through.
  if (side >= 0) out.push_back({K::freeplay_upper, index, side == 0 ? +1 : -1});
  if (side <= 0) out.push_back({K::freeplay_lower, index, side == 0 ? -1 : +1});
  if (s.rigid() && !rate_held) {  // the flank the teeth are nearer is the one a short flight returns to
    const bool upper = x >= 0.0;
    out.push_back({K::gap_turnaround, index, upper ? +1 : -1, upper ? slip_margin : -slip_margin});
  }
}

double spring_witness(const Model& m, const Witness& w, const WitnessInputs& in) {
  const Spring& s = m.springs[w.index];
  switch (w.kind) {
    case WitnessKind::freeplay_upper: return spring_deflection(s, in.q) - s.freeplay;
    case WitnessKind::freeplay_lower: return spring_deflection(s, in.q) + s.freeplay;
    case WitnessKind::gap_turnaround: return spring_rate(s, in.w) - w.level;  // x' (x is linear in q)
    case WitnessKind::contact_force: return in.spring_side[w.index] * in.lambda[m.spring_link[w.index]];
    default: return 0.0;  // not a spring witness (kinds.cpp dispatches by kind)
  }
}

}  // namespace luztar
