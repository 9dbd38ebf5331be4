#include "elements/lossy_gear.hpp"

#include <algorithm>
#include <array>

#include "core/coordinate.hpp"

namespace luztar {

double lossy_forward_factor(const LossyGearLaw& g) { return 1.0 / g.efficiency_forward - 1.0; }
double lossy_back_factor(const LossyGearLaw& g) { return 1.0 - g.efficiency_back; }

double lossy_mesh_gain(const LossyGearLaw& g, bool forward) {
  return forward ? 1.0 / g.efficiency_forward : g.efficiency_back;
}

double lossy_loss(const LossyGearLaw& g, int s, bool forward, double lambda) {
  return s * g.bearing + (lossy_mesh_gain(g, forward) - 1.0) * lambda;
}

double lossy_loss_max(const LossyGearLaw& g, double lambda) {  // f + c_f lambda+ + c_b lambda-
  return g.bearing + (lambda > 0.0 ? lossy_forward_factor(g) * lambda : -lossy_back_factor(g) * lambda);
}

double lossy_loss_min(const LossyGearLaw& g, double lambda) {  // -(f + c_f lambda- + c_b lambda+)
  return -g.bearing + (lambda < 0.0 ? lossy_forward_factor(g) * lambda : -lossy_back_factor(g) * lambda);
}

double lossy_effective_inertia(const LossyGearLaw& g, double inertia_a, double inertia_b, bool forward) {
  return inertia_a + lossy_mesh_gain(g, forward) * inertia_b / (g.ratio * g.ratio);
}

double lossy_mesh_sign_numerator(const LossyGearLaw& g, const GearLoads& l, int s) {
  const double i = g.ratio;
  return l.inertia_b / (i * i) * (l.torque_a - s * g.bearing) - l.inertia_a * l.torque_b / i;
}

GearMotion lossy_moving(const LossyGearLaw& g, const GearLoads& l, int s) {
  return lossy_moving_in(g, l, s, s * lossy_mesh_sign_numerator(g, l, s) >= 0.0);
}

GearMotion lossy_moving_in(const LossyGearLaw& g, const GearLoads& l, int s, bool forward) {
  const double i = g.ratio;
  GearMotion m;
  m.forward = forward;
  const double e = lossy_mesh_gain(g, m.forward);
  m.acceleration = (l.torque_a + e * l.torque_b / i - s * g.bearing) /
                   lossy_effective_inertia(g, l.inertia_a, l.inertia_b, m.forward);
  m.mesh = l.inertia_b * m.acceleration / (i * i) - l.torque_b / i;
  m.loss = lossy_loss(g, s, m.forward, m.mesh);
  return m;
}

GearMotion lossy_stuck(const LossyGearLaw& g, const GearLoads& l) {
  GearMotion m;
  m.mesh = -l.torque_b / g.ratio;
  m.loss = l.torque_a - m.mesh;
  m.forward = m.mesh >= 0.0;
  return m;
}

double lossy_upper_reserve(const LossyGearLaw& g, const GearMotion& stuck) {
  return lossy_loss_max(g, stuck.mesh) - stuck.loss;
}

double lossy_lower_reserve(const LossyGearLaw& g, const GearMotion& stuck) {
  return stuck.loss - lossy_loss_min(g, stuck.mesh);
}

int lossy_select(const LossyGearLaw& g, const GearLoads& l, int exhausted, double tol) {
  const GearMotion held = lossy_stuck(g, l);
  const double upper = lossy_upper_reserve(g, held), lower = lossy_lower_reserve(g, held);
  if (upper < -tol || (exhausted > 0 && upper <= tol)) return 1;
  if (lower < -tol || (exhausted < 0 && lower <= tol)) return -1;
  return 0;
}

std::int8_t lossy_selected_mode(const LossyGearLaw& g, const GearLoads& l, int s) {
  if (s == 0) return lossy_mode(0, lossy_stuck(g, l).mesh >= 0.0 ? 1 : -1);
  const GearMotion m = lossy_moving(g, l, s);
  return lossy_mode(s, m.forward ? s : -s);
}

GearLoads lossy_side_loads(const Model& m, const LossyGear& g, const State& modes, const double* force) {
  GearLoads l = lossy_loads(m, g, force);
  const int n = static_cast<int>(g.reach_bodies.size());
  if (n == 0 || n > kMaxGearReach) return l;
  std::array<int, kMaxGearReach> side{};  // 0 not locked to a shaft, 1 a's side, 2 b's
  std::array<double, kMaxGearReach> gain{};
  auto slot = [&](int body) {  // -1 shaft a, -2 shaft b, else its index in reach_bodies
    if (body == g.body_a) return -1;
    if (body == g.body_b) return -2;
    return static_cast<int>(std::find(g.reach_bodies.begin(), g.reach_bodies.end(), body) - g.reach_bodies.begin());
  };
  auto side_of = [&](int k) { return k == -1 ? 1 : k == -2 ? 2 : side[k]; };
  auto gain_of = [&](int k) { return k < 0 ? 1.0 : gain[k]; };
  for (bool changed = true; changed;) {
    changed = false;
    for (int l : g.reach_links) {
      const ModelLink& link = m.links[l];
      if (modes.friction_mode[link.element] != FrictionMode::stuck || link.row.n != 2) continue;
      const int k0 = slot(link.row.body[0]), k1 = slot(link.row.body[1]);
      const int s0 = side_of(k0), s1 = side_of(k1);
      if (s0 != 0 && s1 != 0) {
        if (s0 != s1) return lossy_loads(m, g, force);  // a loop through the mesh
        continue;
      }
      if (s0 == 0 && s1 == 0) continue;
      const int from = s0 != 0 ? 0 : 1, to = 1 - from, kf = from == 0 ? k0 : k1, kt = from == 0 ? k1 : k0;
      side[kt] = side_of(kf);  // c_f w_f + c_t w_t = 0
      gain[kt] = -link.row.c[from] / link.row.c[to] * gain_of(kf);
      changed = true;
    }
  }
  for (int k = 0; k < n; ++k) {
    if (side[k] == 0) continue;
    const int j = g.reach_bodies[k];
    (side[k] == 1 ? l.inertia_a : l.inertia_b) += m.inertia[j] * gain[k] * gain[k];
    (side[k] == 1 ? l.torque_a : l.torque_b) += force[j] * gain[k];
  }
  return l;
}

double lossy_half_max(const LossyGearLaw& g, int sigma, double lambda) {
  return g.bearing + (sigma > 0 ? lossy_forward_factor(g) : -lossy_back_factor(g)) * lambda;
}

double lossy_half_min(const LossyGearLaw& g, int sigma, double lambda) {
  return -g.bearing + (sigma > 0 ? -lossy_back_factor(g) : lossy_forward_factor(g)) * lambda;
}

void lossy_gear_witnesses(const LossyGear& g, std::int8_t mode, double slip_margin, double margin,
                          std::vector<Witness>& out) {
  const int s = lossy_motion_of(mode), sigma = lossy_sigma_of(mode);
  // sigma lambda falling through -margin (lambda - level, as slip_velocity's rate)
  out.push_back({WitnessKind::gear_mesh, g.mesh_link, -sigma, -sigma * margin});
  if (s != 0) {  // s w_a falling through 0, slip_margin past it (a friction element's)
    out.push_back({WitnessKind::slip_velocity, g.loss_link, -s, -s * slip_margin});
    return;
  }
  out.push_back({WitnessKind::gear_upper, g.loss_link, -1, -margin});
  out.push_back({WitnessKind::gear_lower, g.loss_link, -1, -margin});
}

double lossy_gear_witness(const Model& m, const Witness& w, const WitnessInputs& in) {
  if (w.kind == WitnessKind::gear_mesh) return in.lambda[w.index] - w.level;
  const LossyGear& g = m.lossy_gears[m.links[w.index].element];
  const int sigma = lossy_sigma_of(in.element_mode[w.element]);  // the half of the cone: affine in the mode
  const double lambda = in.lambda[g.mesh_link], loss = in.lambda[g.loss_link];
  const double reserve = w.kind == WitnessKind::gear_upper ? lossy_half_max(g.law, sigma, lambda) - loss
                                                           : loss - lossy_half_min(g.law, sigma, lambda);
  return reserve - w.level;
}

SolvedReach lossy_gear_reach(const Model& m, const Witness& w, const WitnessInputs&) {
  const double own = w.kind == WitnessKind::gear_mesh ? 0.0 : m.lossy_gears[m.links[w.index].element].law.bearing;
  return {&m.links[w.index].row, -1, own};
}

bool lossy_holds(const LossyGearLaw& g, double lambda, double loss, double tol) {
  return loss <= lossy_loss_max(g, lambda) + tol && loss >= lossy_loss_min(g, lambda) - tol;
}

EventKind lossy_event(std::int8_t before, std::int8_t after) {
  const int s0 = (before > 0) - (before < 0), s1 = (after > 0) - (after < 0);
  if (s1 == 0) return EventKind::stick;
  if (s0 == 0) return EventKind::break_away;
  return s0 != s1 ? EventKind::reversal : EventKind::power_flow;
}

}  // namespace luztar

// --- its row in the table of kinds (elements/kinds.hpp) ----------------------
// Its mesh link holds the mesh torque (the static split of its cluster); its
// loss link the loss: moving, the law's (forces); stuck, the split's.

namespace luztar {

namespace {

// Its coordinate: shaft a's angle relative to the housing, the motion its loss
// opposes (its torque the loss L, its power L w_a what it dissipates).
const CoordinateRow& relation_of(const Model& m, int i) { return m.lossy_gears[i].loss; }

// Moving: the loss of its mode's quadrant from the torques on its shafts
// (every other element's: the gear sums last), on shaft a. Stuck: none (its
// loss is its loss link's, from the structure).
void forces(const Model& m, int i, const ModeFrame& f, const ForceTargets& out) {
  const LossyGear& g = m.lossy_gears[i];
  out.limit[g.mesh_link] = out.limit[g.loss_link] = 0.0;  // (its bound is a cone: lossy_holds)
  const std::int8_t mode = lossy_gear_mode(m, i, *f.modes);
  const int s = lossy_motion_of(mode);
  if (s == 0) return;
  const double loss = lossy_moving_in(g.law, lossy_side_loads(m, g, *f.modes, out.force), s, lossy_forward(mode)).loss;
  out.lambda[g.loss_link] = loss;
  out.force[g.body_a] -= loss;
}

// Its loss depends on the torques of the other elements on its shafts, not on
// its own coordinate alone: no tangent on its relation (CVODE's Newton
// iteration takes the Jacobian without it; the exact integrator identifies
// each mode's map by probing, elements/lossy_gear.hpp).
bool tangent(const Model&, int, const State&, const double*, Tangent&) { return false; }

void witnesses(const Model& m, int i, const WitnessContext& c, std::vector<Witness>& out) {
  const LossyGear& g = m.lossy_gears[i];
  const double scale =
      margin_scale(c.torque_scale ? std::max(c.torque_scale[g.mesh_link], c.torque_scale[g.loss_link]) : 1.0);
  lossy_gear_witnesses(g, lossy_gear_mode(m, i, *c.modes), c.slip_margin * row_scale(g.loss), kLossyMargin * scale,
                       out);
}

double dissipation(const Model& m, int i, const ModeFrame& f) {
  const LossyGear& g = m.lossy_gears[i];
  if (lossy_motion_of(lossy_gear_mode(m, i, *f.modes)) == 0) return 0.0;  // w_a = 0: no work
  return lossy_dissipation(f.lambda[g.loss_link], f.w[g.body_a]);
}

ElementOutput output(const Model& m, int i, const ModeFrame& f) {
  return {f.lambda[m.lossy_gears[i].loss_link], lossy_state(lossy_gear_mode(m, i, *f.modes))};
}

std::int8_t state_of(const Model& m, int i, const State& modes) { return lossy_state(lossy_gear_mode(m, i, modes)); }

// At the start: moving the way shaft a turns, in the quadrant its torques
// give; at rest stuck, until the S-S selection at t_start decides.
std::int8_t initial_mode(const Model& m, int i, const State& s) {
  const LossyGear& g = m.lossy_gears[i];
  const double w = s.w[g.body_a];
  return lossy_mode(w > 0.0 ? 1 : w < 0.0 ? -1 : 0, w < 0.0 ? -1 : 1);
}

// A crossing of its mesh torque flips the sign it watches (moving: the
// quadrant; stuck: the half of its cone); the others leave the mode to the
// S-S selection.
std::int8_t mode_after(const Model& m, int i, const State& s, const Witness& w) {
  const std::int8_t mode = lossy_gear_mode(m, i, s);
  if (w.kind != WitnessKind::gear_mesh) return mode;
  return lossy_mode(lossy_motion_of(mode), -lossy_sigma_of(mode));
}

EventKind event_of(const Model&, int, std::int8_t before, std::int8_t after) { return lossy_event(before, after); }

// Time stepping: its loss is its loss row's impulse P (L = -P / h), its mesh
// torque its mesh row's; stuck when its loss row held (inside the cone's box,
// or shaft a at rest at the step's end), else moving the way shaft a turns,
// in the quadrant of its mesh torque.
ElementOutput step_output(const Model& m, int i, const StepFrame& f) {
  const LossyGear& g = m.lossy_gears[i];
  const double loss = -f.link_impulse[g.loss_link] / f.h, lambda = -f.link_impulse[g.mesh_link] / f.h;
  const double w = f.v[g.body_a];
  const int s = f.link_held[g.loss_link] || w == 0.0 ? 0 : w > 0.0 ? 1 : -1;
  return {loss, lossy_state(lossy_mode(s, s * lambda >= 0.0 ? s : -s))};
}

// Its states as written with its sides reversed (a merge through a negative
// ratio): the motion's sign flips, the quadrant stays.
std::int8_t reversed_state(const Model&, int, std::int8_t state) { return static_cast<std::int8_t>(-state); }

}  // namespace

// Time stepping (solvers/time_stepping.cpp): its mesh is an unbounded
// impulse row, its loss a row whose box is its cone at the mesh torque (the
// last step's, then corrected to the step's own); no smooth law of its own.
const ElementKindInfo kLossyGearKind = {
    .kind = ElementKind::lossy_gear,
    .event = event_of,
    .sticks = true,
    .max_witnesses = 3,
    .relation = relation_of,
    .state = state_of,
    .forces = forces,
    .tangent = tangent,
    .witnesses = witnesses,
    .dissipation = dissipation,
    .output = output,
    .initial_mode = initial_mode,
    .mode_after = mode_after,
    .step_output = step_output,
    .reversed_state = reversed_state,
};

}  // namespace luztar
