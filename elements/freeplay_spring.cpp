#include "elements/freeplay_spring.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace luztar {

std::int8_t freeplay_side(double x, double a, double rate) {
  if (x > a || (x == a && rate > 0.0)) return 1;
  if (x < -a || (x == -a && rate < 0.0)) return -1;
  return 0;
}

std::int8_t table_segment(const SpringTable& t, double x, double rate) {
  long k = std::upper_bound(t.knot.begin(), t.knot.end(), x) - t.knot.begin();  // knots <= x
  if (k > 0 && t.knot[k - 1] == x && !(rate > 0.0)) --k;
  return static_cast<std::int8_t>(k);
}

std::int8_t spring_state_at(const Spring& s, double x, double rate) {
  if (s.has_table()) return table_segment(s.table, x, rate);
  if (s.freeplay == 0.0) return 0;  // a linear spring: one branch
  const double U = upper_flank(s), L = lower_flank(s);
  if (x > U || (x == U && rate > 0.0)) return 1;
  if (x < L || (x == L && rate < 0.0)) return -1;
  return 0;
}

double branch_torque(const Spring& s, double x, std::int8_t state) {
  if (s.has_table()) return table_torque(s.table, state, x);
  if (s.rigid()) return 0.0;  // the contact torque is the link's
  if (s.freeplay == 0.0) return s.stiffness * (x - s.center);  // a linear spring: no kinks
  if (state == 0) return 0.0;
  return s.stiffness * (x - (state > 0 ? upper_flank(s) : lower_flank(s)));
}

double branch_anchor(const Spring& s, std::int8_t state) {
  if (s.has_table()) return s.table.knot[state > 0 ? state - 1 : 0];
  if (s.rigid() || s.freeplay == 0.0 || state == 0) return s.center;
  return state > 0 ? upper_flank(s) : lower_flank(s);
}

namespace {
// |T_el| on the branch of state (T_el != 0 there), continued linearly.
double contact_elastic_magnitude(const Spring& s, double x, std::int8_t state) {
  return branch_sign(s, state) * branch_torque(s, x, state);
}
}  // namespace

std::int8_t damping_clamp(const Spring& s, const SpringRelation& r, std::int8_t state) {
  if (!s.contact_damping || branch_sign(s, state) == 0) return 0;
  const double d = s.damping * r.rate, limit = contact_elastic_magnitude(s, r.x, state);
  if (d > limit) return 1;
  if (d < -limit) return -1;
  return 0;
}

double spring_damping_torque(const Spring& s, const SpringRelation& r, std::int8_t state, std::int8_t clamp) {
  if (!s.contact_damping) return s.damping * r.rate;
  if (branch_sign(s, state) == 0) return 0.0;
  return clamp == 0 ? s.damping * r.rate : clamp * contact_elastic_magnitude(s, r.x, state);
}

double spring_torque(const Spring& s, const SpringRelation& r, std::int8_t state, std::int8_t clamp) {
  return branch_torque(s, r.x, state) + spring_damping_torque(s, r, state, clamp);
}

double spring_elastic_torque(const Spring& s, double x) {
  if (s.has_table()) return table_torque(s.table, table_segment(s.table, x, 0.0), x);
  return s.rigid() ? 0.0 : s.stiffness * luz(x - s.center, s.freeplay);
}

double spring_elastic_energy(const Spring& s, double x) {
  if (s.has_table()) {
    const SpringTable& t = s.table;
    const int k = table_segment(t, x, 0.0), anchor = k > 0 ? k - 1 : 0;
    const double d = x - t.knot[anchor];
    return t.energy[anchor] + d * (t.torque[anchor] + 0.5 * t.slope[k] * d);
  }
  if (s.rigid()) return 0.0;
  const double d = luz(x - s.center, s.freeplay);
  return 0.5 * s.stiffness * d * d;
}

double spring_torque_exact(const Spring& s, const SpringRelation& r) {
  if (s.rigid()) return s.damping * r.rate;
  if (s.contact_damping) {
    const std::int8_t state = spring_state_at(s, r.x, r.rate);
    return spring_torque(s, r, state, damping_clamp(s, r, state));
  }
  return spring_elastic_torque(s, r.x) + s.damping * r.rate;
}

double spring_dissipation_exact(const Spring& s, const SpringRelation& r, double rate2) {
  if (!s.contact_damping) return spring_dissipation(s, r.rate, rate2);
  const std::int8_t state = spring_state_at(s, r.x, r.rate);
  return spring_dissipation(s, r, state, damping_clamp(s, r, state), rate2);
}

double spring_stiffness(const Spring& s, std::int8_t state, std::int8_t clamp) {
  if (s.rigid()) return 0.0;
  if (s.has_table()) {
    const double slope = s.table.slope[state];
    return s.contact_damping ? (1.0 + clamp * s.table.sign[state]) * slope : slope;
  }
  if (s.contact_damping) return s.stiffness * (state == 0 ? 0.0 : 1.0 + clamp * state);
  return (s.freeplay == 0.0 || state != 0) ? s.stiffness : 0.0;
}

double spring_coordinate_roundoff(const Spring& s, std::int8_t state, const double* q) {
  const double k = spring_stiffness(s, state);
  if (k == 0.0) return 0.0;
  double terms = std::abs(branch_anchor(s, state));
  for (int i = 0; i < s.row.n; ++i)
    if (s.row.body[i] != kGround) terms += std::abs(s.row.c[i] * q[s.row.body[i]]);
  return std::numeric_limits<double>::epsilon() * std::abs(k) * terms;
}

namespace {
// A table segment's knots: the one below (unless the first segment) and the one above (unless the last).
void stage_witnesses(const SpringTable& t, int index, std::int8_t k, std::vector<Witness>& out) {
  if (k > 0) out.push_back({WitnessKind::stage_lower, index, -1, t.knot[k - 1]});
  if (k < t.segments() - 1) out.push_back({WitnessKind::stage_upper, index, +1, t.knot[k]});
}
}  // namespace

void spring_witnesses(const Spring& s, int index, std::int8_t state, double x, bool rate_held, bool in_group,
                      double slip_margin, std::vector<Witness>& out, std::int8_t clamp) {
  using K = WitnessKind;
  if (s.rigid() && state != 0) {  // teeth in contact: the structure holds x, its contact torque may unload
    if (!in_group) out.push_back({K::contact_force, index, -1});
    return;
  }
  if (s.has_table()) {
    stage_witnesses(s.table, index, state, out);
  } else {
    // A branch between two kinks (side 0) watches both; an outer branch only
    // the kink it came through.
    if (state >= 0) out.push_back({K::freeplay_upper, index, state == 0 ? +1 : -1});
    if (state <= 0) out.push_back({K::freeplay_lower, index, state == 0 ? -1 : +1});
  }
  if (s.contact_damping && branch_sign(s, state) != 0 && s.damping > 0.0) {  // the clamp's corners
    if (clamp >= 0) out.push_back({K::damping_upper, index, clamp == 0 ? +1 : -1});
    if (clamp <= 0) out.push_back({K::damping_lower, index, clamp == 0 ? -1 : +1});
  }
  if (s.rigid() && !rate_held) {  // the flank the teeth are nearer is the one a short flight returns to
    const bool upper = x - s.center >= 0.0;
    out.push_back({K::gap_turnaround, index, upper ? +1 : -1, upper ? slip_margin : -slip_margin});
  }
}

double spring_witness(const Model& m, const Witness& w, const WitnessInputs& in) {
  const Spring& s = m.springs[w.index];
  switch (w.kind) {
    case WitnessKind::freeplay_upper: return spring_deflection(s, in.q) - upper_flank(s);
    case WitnessKind::freeplay_lower: return spring_deflection(s, in.q) - lower_flank(s);
    case WitnessKind::stage_upper:
    case WitnessKind::stage_lower: return spring_deflection(s, in.q) - w.level;  // level: the knot
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

SolvedReach spring_reach(const Model& m, const Witness& w, const WitnessInputs&) {
  return {&m.springs[w.index].row, -1, 0.0};
}

}  // namespace luztar

// --- its row in the table of kinds (elements/kinds.hpp) ----------------------

namespace luztar {

namespace {

std::int8_t clamp_of(const Model& m, int s, const State& modes) { return modes.element_mode[m.spring_element[s]]; }

const CoordinateRow& relation_of(const Model& m, int s) { return m.springs[s].row; }

// Its stored state: the side, or the table segment's index in the model's table.
std::int8_t side_of(const Model& m, int s, const State& modes) {
  return spring_state_code(m.springs[s], modes.spring_side[s]);
}

EventKind event_of(const Model& m, int s, std::int8_t before, std::int8_t after) {
  return spring_event(m.springs[s], before, after);
}

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

void witnesses(const Model& m, int s, const WitnessContext& c, std::vector<Witness>& out) {
  const Spring& sp = m.springs[s];
  if (!has_freeplay_events(sp) || m.spring_algebraic[s]) return;
  const State& modes = *c.modes;
  const std::int8_t side = modes.spring_side[s];
  const bool contact_in_group = sp.rigid() && c.in_group[m.spring_link[s]];
  // x' held at 0 by the structure (both sides held, or locked together at the
  // mesh ratio): no turnaround to watch.
  const bool held = sp.rigid() && side == 0 && c.rate_held[m.spring_link[s]];
  spring_witnesses(sp, s, side, spring_deflection(sp, modes.q.data()), held, contact_in_group,
                   c.slip_margin * row_scale(sp.row), out, clamp_of(m, s, modes));
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
    return spring_output_exact(sp, r, spring_state_at(sp, r.x, 0.0), 0.0);
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
// (unless the teeth parted at the same instant); a table's knot reads it in
// the new segment (|T_el| is continuous there; at the knot where T_el is 0,
// the corner of the approach).
std::int8_t mode_after(const Model& m, int s, const State& st, const Witness& w) {
  const Spring& sp = m.springs[s];
  const std::int8_t side = st.spring_side[s], clamp = clamp_of(m, s, st);
  const WitnessKindInfo& info = witness_kind_info(w.kind);
  switch (info.crossing) {
    case Crossing::freeplay_flank: return sp.contact_damping && sp.damping > 0.0 ? side : 0;
    case Crossing::segment: return damping_clamp(sp, spring_relation(sp, st.q.data(), st.w.data()), side);
    case Crossing::own_mode:
      return branch_sign(sp, side) != 0 ? static_cast<std::int8_t>(clamp == 0 ? info.sign : 0) : clamp;
    default: return clamp;
  }
}

// The kink of the spring's law (a gap's flank, a table's knot) that x is on
// within `tolerance` [rad]; NaN when none is.
double kink_near(const Spring& sp, double x, double tolerance) {
  if (sp.has_table()) {
    const std::vector<double>& knot = sp.table.knot;
    const auto above = std::lower_bound(knot.begin(), knot.end(), x);  // the nearest knot is this one or the one below
    if (above != knot.end() && *above - x <= tolerance) return *above;
    if (above != knot.begin() && x - *(above - 1) <= tolerance) return *(above - 1);
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (sp.freeplay == 0.0) return std::numeric_limits<double>::quiet_NaN();  // a linear spring: no kinks
  for (const double flank : {upper_flank(sp), lower_flank(sp)})
    if (std::abs(x - flank) <= tolerance) return flank;
  return std::numeric_limits<double>::quiet_NaN();
}

// The kink a spring at rest sits on: x within its roundoff of a kink and x'
// within its own (row_at_rest, no integrator tolerance). Roundoff, not
// exactly: a spring whose bodies a stuck element holds together moves with
// them, and x = sum c_k q_k of bodies integrated one by one drifts by ulps of
// their angles (exact integrator, F4 of the kink-stuck finding: q = -4e-7,
// x = 3e-22 past the flank) while x' stays 0; the kink's witness then starts
// just past 0 and the break-away crossed it unseen. 64 eps row_magnitude:
// the bound row_at_rest takes for the rate's roundoff (measured: 4 eps of
// |q| after 1e4 stops of a stuck phase, exact integrator). NaN when it is
// not at rest on a kink.
double resting_kink(const Spring& sp, const double* q, const double* w) {
  if (!row_at_rest(sp.row, w, 0.0)) return std::numeric_limits<double>::quiet_NaN();
  const double x = spring_deflection(sp, q);
  return kink_near(sp, x, 64 * std::numeric_limits<double>::epsilon() * row_magnitude(sp.row, q));
}

// A spring at rest on a kink (resting_kink) of its law, not rigid (rigid
// teeth on a flank are in contact, struck at the start) and between inertial
// bodies (x'' is defined).
bool at_rest_on_kink(const Model& m, int s, const State& st) {
  const Spring& sp = m.springs[s];
  if (!has_freeplay_events(sp) || m.spring_algebraic[s] || sp.rigid()) return false;
  for (int k = 0; k < sp.row.n; ++k)
    if (m.massless(sp.row.body[k])) return false;
  return !std::isnan(resting_kink(sp, st.q.data(), st.w.data()));
}

// ... takes the branch its relative acceleration `acc` (x'' a moment later)
// enters from the kink; with the contact law, where T_el is 0 there (a
// flank), the clamp at the corner of that direction (c x' ~ t outgrows
// |T_el| ~ t^2).
bool enter_from_rest(const Model& m, int s, State& st, const double* acc) {
  const Spring& sp = m.springs[s];
  const double kink = resting_kink(sp, st.q.data(), st.w.data()), xdd = spring_deflection(sp, acc);
  double scale = row_magnitude(sp.row, acc);
  if (!(std::abs(xdd) > 64 * std::numeric_limits<double>::epsilon() * scale)) return false;  // at rest there
  const std::int8_t state = spring_state_at(sp, kink, xdd);
  std::int8_t& clamp = st.element_mode[m.spring_element[s]];
  const std::int8_t c = branch_torque(sp, kink, state) == 0.0 && sp.contact_damping && sp.damping > 0.0 &&
                                branch_sign(sp, state) != 0
                            ? static_cast<std::int8_t>(xdd > 0.0 ? 1 : -1)
                            : 0;
  const bool changed = state != st.spring_side[s] || c != clamp;
  st.spring_side[s] = state;
  clamp = c;
  return changed;
}

Tangent step_tangent(const Model& m, int s, const StepFrame& f) {
  const Spring& sp = m.springs[s];
  const std::int8_t side = spring_state_at(sp, spring_deflection(sp, f.q), 0.0);
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
  return spring_output_exact(sp, r, has_freeplay_events(sp) ? spring_state_at(sp, r.x, r.rate) : 0, 0.0);
}

// Sides reversed: a table's segments count from the other end (0 .. n for n
// points), a gap's side flips.
std::int8_t reversed_state(const Model& m, int s, std::int8_t state) {
  const Spring& sp = m.springs[s];
  if (!sp.has_table()) return static_cast<std::int8_t>(-state);
  const std::vector<std::int8_t>& label = sp.table.label;  // the model's segment numbers (a split keeps them)
  return static_cast<std::int8_t>(*std::max_element(label.begin(), label.end()) - state);
}

}  // namespace

const ElementKindInfo kSpringKind = {
    .kind = ElementKind::spring,
    .event = event_of,
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
    .at_rest_on_kink = at_rest_on_kink,
    .enter_from_rest = enter_from_rest,
    .step_tangent = step_tangent,
    .step_forces = step_forces,
    .step_dissipation = step_dissipation,
    .step_output = step_output,
    .reversed_state = reversed_state,
};

}  // namespace luztar
