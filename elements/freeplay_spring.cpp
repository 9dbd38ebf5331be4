#include "elements/freeplay_spring.hpp"

#include <cmath>

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

// --- its row in the table of kinds (elements/kinds.hpp) ----------------------

namespace luztar {

namespace {

std::int8_t clamp_of(const Model& m, int s, const State& modes) { return modes.element_mode[m.spring_element[s]]; }

bool relation_of(const Model& m, int s, Relation& out) {
  const Spring& sp = m.springs[s];
  out = {sp.a, sp.b, sp.ratio};
  return true;
}

std::int8_t side_of(const Model&, int s, const State& modes) { return modes.spring_side[s]; }

// Springs at algebraic bodies follow their exact luz (the balance was solved
// with it); a rigid freeplay's contact torque is its link's (solvers/static_friction).
void forces(const Model& m, int s, const ModeFrame& f, const ForceTargets& out) {
  const Spring& sp = m.springs[s];
  const SpringRelation r = spring_relation(sp, f.q, f.w);
  const double T = m.spring_algebraic[s] ? spring_torque_exact(sp, r)
                                         : spring_torque(sp, r, f.modes->spring_side[s], clamp_of(m, s, *f.modes));
  apply_spring_torque(sp, T, out.force);
}

bool tangent(const Model& m, int s, const State& modes, const double*, Tangent& out) {
  if (m.spring_algebraic[s]) return false;  // through the group's Schur complement (solvers/algebraic_bodies)
  const Spring& sp = m.springs[s];
  const std::int8_t side = modes.spring_side[s], clamp = clamp_of(m, s, modes);
  out = {spring_stiffness(sp, side, clamp), spring_damping(sp, side, clamp)};
  return true;
}

// True when the structure holds a rigid freeplay's x' at 0 (both sides held, or
// locked together at the mesh ratio): x' would be 0 throughout. Within one
// cluster x' = (g_a - p g_b) v; gains are 0 on held bodies.
bool rate_held(const Spring& sp, const WitnessContext& c) {
  const double ga = c.gain[sp.a], pgb = sp.b == kGround ? 0.0 : sp.ratio * c.gain[sp.b];
  return (ga == 0.0 && pgb == 0.0) ||
         (sp.b != kGround && c.cluster_of[sp.a] == c.cluster_of[sp.b] && std::abs(ga - pgb) <= 1e-12 * std::abs(ga));
}

void witnesses(const Model& m, int s, const WitnessContext& c, std::vector<Witness>& out) {
  const Spring& sp = m.springs[s];
  if (!has_freeplay_events(sp) || m.spring_algebraic[s]) return;
  const State& modes = *c.modes;
  const std::int8_t side = modes.spring_side[s];
  const bool contact_in_group = sp.rigid() && c.in_group[m.spring_link[s]];
  const bool held = sp.rigid() && side == 0 && rate_held(sp, c);
  spring_witnesses(sp, s, side, spring_deflection(sp, modes.q.data()), held, contact_in_group, c.slip_margin, out,
                   clamp_of(m, s, modes));
}

double elastic_energy(const Model& m, int s, const double* q) {
  return spring_elastic_energy(m.springs[s], spring_deflection(m.springs[s], q));
}

double dissipation(const Model& m, int s, const ModeFrame& f) {
  const Spring& sp = m.springs[s];
  if (sp.damping == 0.0) return 0.0;
  const SpringRelation r = spring_relation(sp, f.q, f.w);
  return spring_dissipation(sp, r, sp.contact_damping ? f.modes->spring_side[s] : 0, clamp_of(m, s, *f.modes), r.rate);
}

ElementOutput output(const Model& m, int s, const ModeFrame& f) {
  const Spring& sp = m.springs[s];
  const SpringRelation r = spring_relation(sp, f.q, f.w);
  const std::int8_t side = f.modes->spring_side[s];
  if (m.spring_algebraic[s])  // no events: the side read from x
    return spring_output_exact(sp, r, sp.freeplay > 0.0 ? freeplay_side(r.x, sp.freeplay, 0.0) : 0, 0.0);
  // a rigid freeplay's contact torque while the teeth touch
  return spring_output(sp, r, side, sp.rigid() && side != 0 ? f.lambda[m.spring_link[s]] : 0.0,
                       clamp_of(m, s, *f.modes));
}

// The contact law's clamp where the spring starts (0 for the others).
std::int8_t initial_mode(const Model& m, int s, const State& st) {
  const Spring& sp = m.springs[s];
  if (!has_freeplay_events(sp) || m.spring_algebraic[s] || sp.rigid()) return 0;
  return damping_clamp(sp, spring_relation(sp, st.q.data(), st.w.data()), st.spring_side[s]);
}

// The clamp after a crossing: teeth that meet start at the corner of their
// approach (Tc = 0 < |c x'|), teeth that part keep none; a corner switches it
// (unless the teeth parted at the same instant).
std::int8_t mode_after(const Model& m, int s, const State& st, const Witness& w) {
  const Spring& sp = m.springs[s];
  const std::int8_t side = st.spring_side[s], clamp = clamp_of(m, s, st);
  const WitnessKindInfo& info = witness_kind_info(w.kind);
  switch (info.crossing) {
    case Crossing::freeplay_flank: return sp.contact_damping && sp.damping > 0.0 ? side : 0;
    case Crossing::own_mode: return side != 0 ? static_cast<std::int8_t>(clamp == 0 ? info.sign : 0) : clamp;
    default: return clamp;
  }
}

Tangent step_tangent(const Model& m, int s, const StepFrame& f) {
  const Spring& sp = m.springs[s];
  const std::int8_t side = freeplay_side(spring_deflection(sp, f.q), sp.freeplay, 0.0);
  const std::int8_t clamp = damping_clamp(sp, spring_relation(sp, f.q, f.v), side);
  return {spring_stiffness(sp, side, clamp), spring_damping(sp, side, clamp)};
}

void step_forces(const Model& m, int s, const StepFrame& f, double* rhs) {
  const Spring& sp = m.springs[s];
  const SpringRelation r = spring_relation(sp, f.q, f.v);
  double T = spring_torque_exact(sp, r);                                // a rigid freeplay's contact is its row's
  T += f.h_theta * f.tangent[m.spring_element[s]].stiffness * r.rate;  // - h theta K v_k
  apply_spring_torque(sp, T, rhs);
}

double step_dissipation(const Model& m, int s, const StepFrame& start, const double* v_theta, const double* v_mid) {
  const Spring& sp = m.springs[s];
  return spring_dissipation_exact(sp, {spring_deflection(sp, start.q), spring_rate(sp, v_theta)},
                                  spring_rate(sp, v_mid));
}

ElementOutput step_output(const Model& m, int s, const StepFrame& f) {
  const Spring& sp = m.springs[s];
  const SpringRelation r = spring_relation(sp, f.q, f.v);
  if (sp.rigid()) {  // the contact torque of the step's impulses
    const int l = m.spring_link[s];
    return spring_output_exact(sp, r, f.link_held[l], f.link_impulse[l] / f.h);
  }
  return spring_output_exact(sp, r, has_freeplay_events(sp) ? freeplay_side(r.x, sp.freeplay, r.rate) : 0, 0.0);
}

}  // namespace

const ElementKindInfo kSpringKind = {
    .kind = ElementKind::spring,
    .event = spring_event,
    .max_witnesses = kMaxSpringWitnesses,
    .relation = relation_of,
    .state = side_of,
    .forces = forces,
    .tangent = tangent,
    .witnesses = witnesses,
    .elastic_energy = elastic_energy,
    .dissipation = dissipation,
    .output = output,
    .initial_mode = initial_mode,  // the contact law's clamp
    .mode_after = mode_after,
    .step_tangent = step_tangent,
    .step_forces = step_forces,
    .step_dissipation = step_dissipation,
    .step_output = step_output,
};

}  // namespace luztar
