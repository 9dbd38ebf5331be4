#include "elements/freeplay_spring.hpp"

namespace luztar {

std::int8_t freeplay_side(double x, double a, double rate) {
  if (x > a || (x == a && rate > 0.0)) return 1;
  if (x < -a || (x == -a && rate < 0.0)) return -1;
  return 0;
}

namespace {
// |Tc| on the branch of side (!= 0): k (side x - a), continued linearly.
double contact_elastic_magnitude(const Spring& s, double x, std::int8_t side) {
  return s.stiffness * (side * x - s.freeplay);
}
}  // namespace

std::int8_t damping_clamp(const Spring& s, const SpringRelation& r, std::int8_t side) {
  if (!s.contact_damping || side == 0) return 0;
  const double d = s.damping * r.rate, limit = contact_elastic_magnitude(s, r.x, side);
  if (d > limit) return 1;
  if (d < -limit) return -1;
  return 0;
}

double spring_damping_torque(const Spring& s, const SpringRelation& r, std::int8_t side, std::int8_t clamp) {
  if (!s.contact_damping) return s.damping * r.rate;
  if (side == 0) return 0.0;
  return clamp == 0 ? s.damping * r.rate : clamp * contact_elastic_magnitude(s, r.x, side);
}

double spring_torque(const Spring& s, const SpringRelation& r, std::int8_t side, std::int8_t clamp) {
  double elastic = 0.0;
  if (s.rigid()) {
    elastic = 0.0;  // the contact torque is the link's
  } else if (s.freeplay == 0.0) {
    elastic = s.stiffness * r.x;  // a plain linear spring: no kinks
  } else if (side != 0) {
    elastic = s.stiffness * (r.x - side * s.freeplay);
  }
  return elastic + spring_damping_torque(s, r, side, clamp);
}

double spring_torque_exact(const Spring& s, const SpringRelation& r) {
  if (s.rigid()) return s.damping * r.rate;
  if (s.contact_damping) {
    const std::int8_t side = freeplay_side(r.x, s.freeplay, r.rate);
    return spring_torque(s, r, side, damping_clamp(s, r, side));
  }
  return spring_elastic_torque(s, r.x) + s.damping * r.rate;
}

double spring_dissipation_exact(const Spring& s, const SpringRelation& r, double rate2) {
  if (!s.contact_damping) return spring_dissipation(s, r.rate, rate2);
  const std::int8_t side = freeplay_side(r.x, s.freeplay, r.rate);
  return spring_dissipation(s, r, side, damping_clamp(s, r, side), rate2);
}

double spring_stiffness(const Spring& s, std::int8_t side, std::int8_t clamp) {
  if (s.rigid()) return 0.0;
  if (s.contact_damping) return s.stiffness * (side == 0 ? 0.0 : 1.0 + clamp * side);
  return (s.freeplay == 0.0 || side != 0) ? s.stiffness : 0.0;
}

void spring_witnesses(const Spring& s, int index, std::int8_t side, double x, bool rate_held, bool in_group,
                      double slip_margin, std::vector<Witness>& out, std::int8_t clamp) {
  using K = WitnessKind;
  if (s.rigid() && side != 0) {  // teeth in contact: the structure holds x, its contact torque may unload
    if (!in_group) out.push_back({K::contact_force, index, -1});
    return;
  }
  // A branch between two kinks (side 0) watches both; an outer branch only the
  // kink it came through.
  if (side >= 0) out.push_back({K::freeplay_upper, index, side == 0 ? +1 : -1});
  if (side <= 0) out.push_back({K::freeplay_lower, index, side == 0 ? -1 : +1});
  if (s.contact_damping && side != 0 && s.damping > 0.0) {  // the clamp's corners
    if (clamp >= 0) out.push_back({K::damping_upper, index, clamp == 0 ? +1 : -1});
    if (clamp <= 0) out.push_back({K::damping_lower, index, clamp == 0 ? -1 : +1});
  }
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
    case WitnessKind::damping_upper:
    case WitnessKind::damping_lower: {
      const double d = s.damping * spring_rate(s, in.w);
      const double limit = contact_elastic_magnitude(s, spring_deflection(s, in.q), in.spring_side[w.index]);
      return w.kind == WitnessKind::damping_upper ? d - limit : d + limit;
    }
    default: return 0.0;  // not a spring witness (kinds.cpp dispatches by kind)
  }
}

}  // namespace luztar
