#include "solvers/event_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/energy.hpp"
#include "core/times.hpp"
#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "elements/lossy_gear.hpp"
#include "elements/one_way_clutch.hpp"
#include "solvers/element_outputs.hpp"
#include "solvers/mode_system.hpp"
#include "solvers/next_stop.hpp"
#include "elements/kinds.hpp"

namespace luztar {

EventPipeline::EventPipeline(const Model& m, const SimulationSettings& s, const PipelineTargets& t)
    : model(m), settings(s), data(t.data), state(t.data.state), ws(t.ws), ms(t.ms), y(t.y), integrator(t.integrator),
      events(t.log),
      has_massless_(std::any_of(m.inertia.begin(), m.inertia.end(), [](double i) { return i == 0.0; })),
      energies(m) {
  directions.assign(max_root_count(m), 0);
  leaving.assign(max_root_count(m), 0);
  g_now.assign(max_root_count(m), 0.0);
  g_probe.assign(max_root_count(m), 0.0);
  g_scale.assign(max_root_count(m), 0.0);
  g_roundoff.assign(max_root_count(m), 0.0);
  flat.assign(max_root_count(m), 0);
  touched.assign(max_root_count(m), 0);
  const std::size_t nl = static_cast<std::size_t>(m.num_links());
  arrived.reserve(nl);
  candidates.reserve(nl);
  exhausted.reserve(nl);
  links.reserve(nl);
  struck.reserve(m.springs.size());
  struck_side.assign(m.springs.size(), 0);
  torque_scale.assign(nl, 1.0);
  signal_scale_ = signal_scale(m);
  locked.reserve(m.num_bodies());
  events.reserve(1024);  // the event log grows by doubling beyond this
  share.reserve(nl);
  data.recent_events.reserve(static_cast<std::size_t>(std::max(s.storm_events, 0L)) + 1);
}

// ---- entry points ----------------------------------------------------------

void EventPipeline::start() {
  const int nb = model.num_bodies();
  const std::size_t logged = events.size();
  state.t = settings.t_start;
  state.q = model.angle0;
  state.w = model.velocity0;
  initial_modes();
  state.input_work = 0.0;
  state.dissipated = 0.0;
  state.element_dissipated.assign(model.num_elements(), 0.0);
  state.massless_side.assign(nb, 0);
  sample_blocks();  // the first instant is t_start: outputs before forces
  place_massless_bodies();
  y.assign(2 * nb, 0.0);
  ws.q = state.q;
  ws.w = state.w;
  arrived.clear();
  if (!struck.empty()) strike();  // teeth approaching at t_start
  // The S-S selection at t_start: bodies that start at rest start in a consistent mode.
  candidates.clear();
  links.clear();
  add_lock_candidates(0.0);
  add_contact_candidates();
  exhausted.clear();
  if (!candidates.empty()) select_modes();
  restart();
  leave_rest(false);
  if (events.size() > logged) count_instant(false);  // teeth that struck at t_start (logged by strike)
  before = state;  // sizes the kept copy: later events copy without allocating
}

void EventPipeline::at_roots() {
  arrived.clear();
  exhausted.clear();
  struck.clear();
  const std::vector<int>& found = integrator.roots_found();
  if (!collect_roots(found)) return;  // nothing changed: the integrator goes on with its history
  before = state;                     // copy into kept storage
  mark_touched_reserves(found);
  bool friction_event = apply_crossings(found);
  // (the marks are this root stop's alone: break_away_at_limits applies its
  // own crossings, at this restart and later ones, and a touched reserve that
  // left 0 at a later breakpoint was skipped there: a review finding)
  std::fill(touched.begin(), touched.end(), 0);
  find_missed_strikes();
  count_instant(true);  // (every root stop: a loop of roots at one instant still counts towards max_events)
  record_event_time();
  if (!struck.empty()) {
    strike();
    friction_event = true;
  }
  if (friction_event) select_at_event();
  log_changes();
  restart();
  leave_rest(true);
}

void EventPipeline::reselect() {
  before = state;
  place_massless_bodies();
  arrived.clear();
  exhausted.clear();
  struck.clear();
  if (find_missed_strikes()) strike();
  select_at_event();
  restart();
  leave_rest(false);
  log_changes();
}

void EventPipeline::restart() {
  for_each_element(model, kListOrder, [&](const ElementKindInfo& row, int i) {
    if (row.restart_mode) state.element_mode[model.elements_of(row.kind)[i]] = row.restart_mode(model, i, state);
  });
  close_segment();
  link_torque_scales();
  build_mode_structure(model, state, state.t, ws.inputs.data(), integrator.slip_margin(settings.atol), ms, torque_scale.data());
  // The integrator watches a fixed number of root functions (re-registering
  // them would allocate); the unused ones are constant and never cross.
  std::fill(directions.begin(), directions.end(), 0);
  for (std::size_t r = 0; r < ms.roots.size(); ++r) directions[r] = ms.roots[r].direction;
  restart_integrator(false);
}

// Each link's torque scale at the state (applied_scale), or, where nothing
// acts on it yet (a load rising from 0), the largest number of the model's
// signals: the units of the one-way clutches' reserve margins.
void EventPipeline::link_torque_scales() {
  ws.q = state.q;
  ws.w = state.w;
  applied_forces(model, state, state.t, ws);
  for (int l = 0; l < model.num_links(); ++l) {
    const double s = applied_scale(l);
    torque_scale[static_cast<std::size_t>(l)] = s > 0.0 ? s : signal_scale_;
  }
}

// The time stuck of the structure's held elements booked up to state.t.
void EventPipeline::close_segment() {
  for (int e : ms.held_elements) data.time_stuck[e] += state.t - data.segment_start;
  data.segment_start = state.t;
}

// The integrator restarted at state.t in the structure ms (after a change of
// inputs alone: reset_inputs, the structure as at its last reset).
void EventPipeline::restart_integrator(bool inputs_only) {
  for (int s = 0; s < ms.num_splits(); ++s) data.stats.redundant_splits += ms.split(s).nullity > 0 ? 1 : 0;
  pack(ms, state.q, state.w, y.data());
  if (!model.driven_bodies.empty()) signal_values(model, state.t, ws);  // the drives' motion at state.t
  unpack(ms, y.data(), ws);
  // Massless bodies carry no velocity in y: theirs follows from the forces in
  // the new modes (as the Simulator's sync does between stops), so that the
  // state at a restart (t_start, a breakpoint's jump) reports it, not the
  // velocity written in the model or left from before the stop.
  if (has_massless()) {
    applied_forces(model, state, state.t, ws);
    algebraic_velocities(model, ws);
  }
  state.w = ws.w;
  const double* quad = energies.load(state);
  if (inputs_only) integrator.reset_inputs(state.t, y.data(), quad, directions);
  else integrator.reset(state.t, y.data(), quad, directions);
  ++data.stats.reinits;
}

// After a change of input values with every mode consistent (the caller
// checked what reselect would: no massless body, stuck_consistent): with an
// integrator that holds the inputs (exact: they are states of its
// exosystem, so only z changes), the restart restart() makes, without
// rebuilding the structure, which depends on the modes alone, unless
//  - an element's restart_mode would change its mode, or
//  - a stuck cluster with more than one loop weighs its static split by the
//    limits MT0(t, inputs) (make_static_split).
// Then it does nothing and returns false: restart() is due. The numbers are
// restart()'s, bit for bit (tests/input_fast_path_test.cpp).
bool EventPipeline::restart_for_inputs() {
  bool same = true;
  for_each_element(model, kListOrder, [&](const ElementKindInfo& row, int i) {
    same = same && (!row.restart_mode ||
                    state.element_mode[model.elements_of(row.kind)[i]] == row.restart_mode(model, i, state));
  });
  for (int s = 0; s < ms.num_splits() && same; ++s) same = ms.split(s).nullity < 2;
  if (!same) return false;
  close_segment();
  restart_integrator(true);
  ++data.stats.input_restarts;
  return true;
}

// The modes at t_start: freeplay sides from the angles (rigid teeth that
// start touching are in contact, and struck if they approach), slip
// directions from the velocities, then the elements' own modes (their rows).
void EventPipeline::initial_modes() {
  state.spring_side.assign(model.springs.size(), 0);
  struck.clear();
  for (std::size_t s = 0; s < model.springs.size(); ++s) {
    const Spring& sp = model.springs[s];
    if (!has_freeplay_events(sp) || model.spring_algebraic[s]) continue;
    const double x = spring_deflection(sp, state.q);
    if (sp.rigid()) {
      if (std::abs(x - sp.center) >= sp.freeplay * (1.0 - 1e-12)) {
        state.spring_side[s] = x - sp.center > 0.0 ? 1 : -1;
        struck.push_back(static_cast<int>(s));
      }
      continue;
    }
    state.spring_side[s] = spring_state_at(sp, x, spring_rate(sp, state.w.data()));
  }
  state.friction_mode.assign(model.frictions.size(), FrictionMode::slip_positive);
  for (std::size_t i = 0; i < model.frictions.size(); ++i)
    if (slip_velocity(model.frictions[i], state.w) < 0.0) state.friction_mode[i] = FrictionMode::slip_negative;
  state.element_mode.assign(model.num_elements(), 0);
  for_each_element(model, kListOrder, [&](const ElementKindInfo& row, int i) {
    if (row.initial_mode) state.element_mode[model.elements_of(row.kind)[i]] = row.initial_mode(model, i, state);
  });
}

// ---- collect roots, apply crossings -----------------------------------------

// Whether the roots found change anything: turnarounds in a gap alone (and
// no missed strike) do not.
bool EventPipeline::collect_roots(const std::vector<int>& found) const {
  bool structural = false;
  for (std::size_t r = 0; r < ms.roots.size(); ++r)
    structural = structural || (found[r] != 0 && luztar::structural(ms.roots[r].kind));
  return structural || has_missed_strike();
}

// The roots found, applied to the modes: freeplay sides and massless branches
// switch; friction arrivals and break-aways (and unloading contacts) are noted
// for the selection, teeth that met for the impact. Returns whether a friction
// element or a contact was involved (a selection is due).
bool EventPipeline::apply_crossings(const std::vector<int>& found) {
  bool friction_event = false;
  for (std::size_t r = 0; r < ms.roots.size(); ++r) {
    if (found[r] == 0) continue;
    const Witness& spec = ms.roots[r];
    const WitnessKindInfo& info = witness_kind_info(spec.kind);
    switch (info.crossing) {
      case Crossing::none:
        break;
      case Crossing::freeplay_flank:
        state.spring_side[spec.index] = state.spring_side[spec.index] == 0 ? info.sign : 0;
        if (model.springs[spec.index].rigid()) struck.push_back(spec.index);
        break;
      case Crossing::own_mode:  // the element's row below
        break;
      case Crossing::segment:
        if (at_rest_at_knot(model.springs[spec.index], state.w.data(), rest_velocity())) resting_knots.push_back(spec);
        else state.spring_side[spec.index] = static_cast<std::int8_t>(state.spring_side[spec.index] + info.sign);
        break;
      case Crossing::contact_unloads: {  // (its scale: the torques now may all pass through 0 with it)
        const int l = model.spring_link[spec.index];
        exhausted.push_back({l, FrictionMode::stuck, std::max(link_torque_scale(l), torque_scale[std::size_t(l)])});
        friction_event = true;
        break;
      }
      case Crossing::arrives_at_rest:
        arrived.push_back(spec.index);
        friction_event = true;
        break;
      case Crossing::reserve_exhausted:
        if (touched[r]) break;  // (mark_touched_reserves: no break-away)
        // with its scale (ws at the state: mark_touched_reserves and
        // find_leaving_reserves leave it there) and 64 roundings of its
        // reading from the angles: the selection's tie (BreakAway)
        exhausted.push_back({spec.index, info.sign > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative,
                             reserve_scale(spec), 64.0 * g_roundoff[r]});
        friction_event = true;
        break;
      case Crossing::group_exhausted:
        exhausted_in_group(ms.split(spec.index), exhausted);
        friction_event = true;
        break;
      case Crossing::massless_kink:
        set_massless_side(spec.index, state.massless_side[spec.index] == 0 ? info.sign : 0);
        break;
    }
    if (spec.element >= 0) apply_own_mode(spec);
  }
  if (!resting_knots.empty()) cross_knots_from_rest();
  return friction_event;
}

// The reserve roots in `found` that the reserve only touches: a moment later
// (kProbe, along the motion of the structure it was found in) it has not
// dropped beyond its roundoff, nor, flat to first order, under the
// second-order probes (probe_reserves at a root). They are no break-away (marked
// in `touched`): CVODE finds the reserve's roundoff below 0 where a load's
// peaks graze the limit (a sine of amplitude MT0), and the element broke away
// and stuck again 1e-6 s later at every peak; a load that rises to the limit
// and stays there broke away and stuck at one instant (a new-user hunt). The
// restart that follows (at_roots) looks at them again, as at any restart
// (break_away_at_limits), so a tie at the limit is the selection's as ever.
void EventPipeline::mark_touched_reserves(const std::vector<int>& found) {
  std::fill(touched.begin(), touched.end(), 0);
  auto is_reserve_root = [&](std::size_t r) {
    return found[r] != 0 && witness_kind_info(ms.roots[r].kind).crossing == Crossing::reserve_exhausted;
  };
  bool any = false;
  for (std::size_t r = 0; r < ms.roots.size(); ++r) any = any || is_reserve_root(r);
  if (!any) return;
  root_functions(model, state, ms, state.t, y.data(), g_now.data(), ws);
  solved_torque_roundoffs(model, state, ms, ws, g_roundoff.data());  // (at the state: apply_crossings' BreakAway::band)
  for (std::size_t r = 0; r < ms.roots.size(); ++r) g_scale[r] = is_reserve_root(r) ? reserve_scale(ms.roots[r]) : -1.0;
  probe_reserves(ReserveProbe::at_root);
  for (std::size_t r = 0; r < ms.roots.size(); ++r) touched[r] = is_reserve_root(r) && leaving[r] == 0 ? 1 : 0;
}

// Knots whose roots came at rest (at_rest_at_knot): the segment beyond is
// entered only when x'' points there a moment later; a knot touched at a
// turning point, or crept across by the integrator's error while the motion
// leaves it the other way, keeps the segment.
void EventPipeline::cross_knots_from_rest() {
  probe_accelerations();
  for (const Witness& w : resting_knots) {
    const int sign = witness_kind_info(w.kind).sign;
    if (spring_deflection(model.springs[w.index], probe_acc.data()) * sign > 0.0)
      state.spring_side[w.index] = static_cast<std::int8_t>(state.spring_side[w.index] + sign);
    if (w.element >= 0) apply_own_mode(w);
  }
  resting_knots.clear();
}

// The mode of its own of the element that watches `w`, after its crossing
// (its kind's row: elements/kinds.hpp, mode_after).
void EventPipeline::apply_own_mode(const Witness& w) {
  const ElementKindInfo& row = element_kind_info(model.element_kind[w.element]);
  if (row.mode_after) state.element_mode[w.element] = row.mode_after(model, model.element_index[w.element], state, w);
}

// ---- the other stages and their helpers --------------------------------------

// The luz branch of a massless body; its bearings report it as their mode.
void EventPipeline::set_massless_side(int body, int side) {
  state.massless_side[body] = static_cast<std::int8_t>(side);
  for (std::size_t i = 0; i < model.frictions.size(); ++i)
    if (bearing_body(model.frictions[i]) == body)
      state.friction_mode[i] = side > 0 ? FrictionMode::slip_positive
                               : side < 0 ? FrictionMode::slip_negative
                                          : FrictionMode::stuck;
}

// Branches of all massless bodies from the torque balance at the current state
// (at t_start and at signal discontinuities; at a kink the event decides).
void EventPipeline::place_massless_bodies() {
  ws.q = state.q;
  ws.w = state.w;
  applied_forces(model, state, state.t, ws);
  for (int j = 0; j < model.num_bodies(); ++j)
    if (model.algebraic[j]) state.q[j] = ws.q[j];
  for (int j = 0; j < model.num_bodies(); ++j) {
    if (!model.massless(j) || model.algebraic[j]) continue;
    const double M = ws.force[j], L = ws.massless_mt0[j];
    set_massless_side(j, !massless_has_kinks(model, j) ? 1 : M > L ? 1 : M < -L ? -1 : 0);
  }
}

// Elements of a stuck group at their limit when the group's utilisation
// reached 1, and its contacts whose torque is (about) zero.
void EventPipeline::exhausted_in_group(const StaticSplit& sp, std::vector<BreakAway>& out) {
  evaluate_static_torques();
  double scale = 0.0;
  for (int i : sp.links) scale = std::max(scale, std::abs(ws.lambda[i]));
  for (int i : sp.links) {
    if (model.is_permanent_link(i)) continue;  // no limit
    if (model.is_gear_loss_link(i)) {  // a gear's cone in its half (the split's rows): the reserve at 0
      const LossyGear& g = model.lossy_gears[model.links[i].element];
      const int sigma = lossy_sigma_of(state.element_mode[model.lossy_gear_element[model.links[i].element]]);
      const double lambda = ws.lambda[g.mesh_link], loss = ws.lambda[i];
      const double tol = 1e-6 * std::max({g.law.bearing, std::abs(lambda), std::abs(loss)});
      if (lossy_half_max(g.law, sigma, lambda) - loss <= tol) out.push_back({i, FrictionMode::slip_positive});
      else if (loss - lossy_half_min(g.law, sigma, lambda) <= tol) out.push_back({i, FrictionMode::slip_negative});
      continue;
    }
    if (model.is_contact_link(i)) {
      if (state.spring_side[model.links[i].element] * ws.lambda[i] <= 1e-6 * scale) out.push_back({i, FrictionMode::stuck});
      continue;
    }
    if (model.is_one_way_link(i)) {  // only against overrun
      const int o = model.one_way_clutches[model.links[i].element].overrun;
      if (o * ws.lambda[i] >= ws.limit[i] * (1.0 - 1e-6)) out.push_back({i, static_cast<FrictionMode>(o)});
      continue;
    }
    if (std::abs(ws.lambda[i]) >= ws.limit[i] * (1.0 - 1e-6))
      out.push_back({i, ws.lambda[i] > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative});
  }
}

// The impact of the rigid freeplays in `struck` (their side set to the
// struck side): Poisson's restitution over all contacts at once, one-way
// clutches engaging plastically (solvers/impacts.hpp). Teeth that rebound
// leave the contact; friction elements set moving by the impulse slip (dry
// friction carries no impulse) and one-way clutches set apart overrun; those
// left at zero relative velocity join `arrived` for the S-S selection.
void EventPipeline::strike() {
  for (int s : struck) struck_side[s] = state.spring_side[s];
  ws.q = state.q;
  ws.w = state.w;
  applied_forces(model, state, state.t, ws);  // the acceleration that presses a rebound back
  // A flight rising less than the integrator resolves off the flank (CVODE:
  // 1000 angle tolerances; any integrator: 1000 times the roundoff of the
  // angles) is not seen: that impact is plastic (solvers/impacts.hpp).
  double gap = 0.0, angles = 0.0;
  for (int s : struck) {  // (in the bodies' units, as RestThreshold)
    const Spring& sp = model.springs[s];
    gap = std::max(gap, (std::abs(sp.center) + sp.freeplay) / row_scale(sp.row));
    angles = std::max(angles, row_magnitude(sp.row, state.q.data()) / row_scale(sp.row));
  }
  const double depth = integrator.resolution(settings.atol, settings.rtol, gap).depth;
  const double roundoff = 16 * std::numeric_limits<double>::epsilon() * (gap + angles);
  const RestThreshold rest{settings.rest_velocity, std::max(depth, 1e3 * roundoff)};
  const ImpactOutcome out = resolve_impacts(model, state.spring_side, rest, ws.force, state.q, state.w, impact);
  if (!out.struck) return;  // touching but not approaching (at t_start): nothing jumped
  ++data.stats.impacts;
  data.stats.impact_fallbacks += out.fallback ? 1 : 0;
  data.stats.impacts_unsolved += out.solved ? 0 : 1;
  data.stats.impact_loss += out.energy_lost;
  state.dissipated += out.energy_lost;
  book_impact_shares(impact, state.w, out.energy_lost, state.element_dissipated);
  for (std::size_t k = 0; k < impact.joined.size(); ++k) {  // teeth that touched a flank struck too
    struck.push_back(impact.joined[k]);
    struck_side[impact.joined[k]] = impact.joined_side[k];
  }
  for (int s : struck)
    if (impact.approach[s] > 0.0) {
      const ElementKindInfo& row = element_kind_info(ElementKind::spring);
      const int e = model.spring_element[s];
      // x'- (the approach u- = -side x' < 0), as written
      events.push_back({state.t, e, EventKind::impact, state_as_written(model, row, s, e, struck_side[s]),
                        state_as_written(model, row, s, e, state.spring_side[s]),
                        struck_side[s] * impact.approach[s] / output_scale(model, e)});
    }
  // At rest after the jump: within the rest velocity, or within the
  // roundoff of its bodies' w+ = w- + M^-1 N^T Pi, whose terms are the
  // velocities before (ws.w) and the impulses' (impact.jump), in the link's
  // own row. A one-way clutch the impact brought to 0 (a sprag engaging,
  // its row's impulses cancelling) holds the roundoff of impulses the size
  // of the strike, not of its own 0: read against its own velocities, a
  // backstop engaged by a gear striking its wheel (or a locked one struck
  // through a rigid lash) was taken for overrunning, and the wheel turned
  // backwards through its lock, exit 0 (a new-user hunt; CVODE's rest band,
  // atol, hid it). A link no impulse reached keeps its own roundoff.
  const double eps64 = 64 * std::numeric_limits<double>::epsilon();
  for (int l = 0; l < model.num_links(); ++l) {
    if (model.is_contact_link(l) || model.is_permanent_link(l)) continue;  // (a permanent link is a row of the impact)
    const CoordinateRow& r = model.links[l].row;
    const bool at_rest = row_at_rest(r, state.w.data(), rest_velocity()) ||
                         std::abs(row_value(r, state.w.data())) <=
                             eps64 * (row_magnitude(r, ws.w.data()) + row_magnitude(r, impact.jump.data()));
    if (!at_rest)
      set_moving(l, friction_link_rate(model.links[l], state.w.data()));
    else if (can_lock(l)) arrived.push_back(l);
  }
}

// A friction element or a one-way clutch moving at relative velocity v
// (|v| > 0): it slips (overruns) that way.
void EventPipeline::set_moving(int link, double v) {
  const ModelLink& l = model.links[link];
  if (l.kind == LinkKind::one_way) {
    set_one_way_locked(model, l.element, false, state);
  } else if (l.kind == LinkKind::gear_loss) {  // (its quadrant: the selection that follows, through its mesh)
    std::int8_t& mode = state.element_mode[model.lossy_gear_element[l.element]];
    mode = lossy_mode(v > 0.0 ? 1 : -1, lossy_sigma_of(mode));
  } else {
    state.friction_mode[l.element] = v > 0.0 ? FrictionMode::slip_positive : FrictionMode::slip_negative;
  }
}

// Teeth found beyond their flank while in the gap: a rebound so slight that
// its flight (depth (e u)^2 / 2 a_rel) is below the integration tolerance
// went unseen, and the teeth turned back through the flank within one
// step. They are struck where they are found (usually at a turnaround, at
// relative velocity ~0: a plastic contact; the angles move back by the
// overshoot, within the tolerance). Adds them to `struck`.
bool EventPipeline::find_missed_strikes() {
  bool any = false;
  for (std::size_t s = 0; s < model.springs.size(); ++s) {
    if (!past_flank(s)) continue;
    state.spring_side[s] = spring_deflection(model.springs[s], state.q) - model.springs[s].center > 0.0 ? 1 : -1;
    struck.push_back(static_cast<int>(s));
    ++data.stats.missed_strikes;
    any = true;
  }
  return any;
}

bool EventPipeline::has_missed_strike() const {
  for (std::size_t s = 0; s < model.springs.size(); ++s)
    if (past_flank(s)) return true;
  return false;
}

// A rigid freeplay in its gap whose teeth are past a flank by more than the
// band within which an event search places them on it: teeth that just left
// a flank sit on it. The band is the exact search's (README, "Guarantee on
// events": 4 x 64 eps of the flank distance's terms): a contact is entered
// once the teeth are past the flank by their roundoff, so after a
// separation at rest they can stay there, 6.5e-17 rad past a flank at 1e-3
// rad (300 eps of it), and a band of 16 eps took them for a missed strike at
// the next output sample: a contact and a separation logged that the same
// run at a finer output step did not (a new-user hunt). A real missed
// strike (a rebound below CVODE's tolerance) is past by ~atol.
bool EventPipeline::past_flank(std::size_t s) const {
  const Spring& sp = model.springs[s];
  if (!sp.rigid() || state.spring_side[s] != 0) return false;
  const double roundoff = 4 * 64 * std::numeric_limits<double>::epsilon() *
                          (row_magnitude(sp.row, state.q.data()) + std::abs(sp.center) + sp.freeplay);
  return std::abs(row_value(sp.row, state.q.data()) - sp.center) > sp.freeplay + roundoff;
}

// The friction elements and one-way clutches that can lock and are at rest:
// locked already, arrived at rest (`arrived`), or with |v| <= tolerance
// (a tolerance of the bodies' velocities, beside the rate's roundoff:
// core/coordinate.hpp, row_at_rest).
void EventPipeline::add_lock_candidates(double tolerance) {
  for (int l = 0; l < model.num_links(); ++l) {
    if (!can_lock(l)) continue;
    const ModelLink& link = model.links[l];
    const bool is_candidate = link_locked(model, state, l) ||
                              std::find(arrived.begin(), arrived.end(), l) != arrived.end() ||
                              row_at_rest(link.row, state.w.data(), tolerance);
    if (!is_candidate) continue;
    candidates.push_back(l);
    links.push_back(model.links[l].row);
  }
}

// Rigid freeplays whose teeth touch are decided with the friction elements.
void EventPipeline::add_contact_candidates() {
  for (std::size_t s = 0; s < model.springs.size(); ++s)
    if (model.springs[s].rigid() && state.spring_side[s] != 0) {
      const int link = model.spring_link[s];
      candidates.push_back(link);
      links.push_back(model.links[link].row);
    }
}

// Forces, accelerations and static torques at the current state into ws.
void EventPipeline::evaluate_static_torques() {
  ws.q = state.q;
  ws.w = state.w;
  signal_values(model, state.t, ws);
  static_torques(model, state, ms, ws);
}

// Each candidate link's weight in the loss of the velocity projection: its
// impulse times its velocity before, Lambda u- / 2 with Lambda = u- / sum_k
// c_k^2 / I_k, the impulse that stops the row between its own bodies alone
// (exact when a cluster locks one row; a share of the same order otherwise).
void EventPipeline::projection_weights() {
  share.clear();
  for (const CoordinateRow& r : links) {
    const double u = row_value(r, state.w.data());
    double inv = 0.0;
    for (int k = 0; k < r.n; ++k) {
      const double inertia = model.inertia[r.body[k]];
      if (model.prescribed(r.body[k])) continue;  // its drive moves it: no impulse does
      inv += inertia > 0.0 ? r.c[k] * r.c[k] / inertia : INFINITY;
    }
    share.push_back(inv > 0.0 ? u * u / (2.0 * inv) : 0.0);  // (0: a row of prescribed bodies alone)
  }
}

// The projection's loss by element, in proportion to the weights (equal parts
// when they vanish), so that the shares add up to `lost`.
void EventPipeline::book_projection_shares(double lost) {
  if (!(lost > 0.0) || candidates.empty()) return;
  double sum = 0.0;
  for (double w : share) sum += w;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    state.element_dissipated[model.link_element(candidates[k])] +=
        lost * (sum > 0.0 ? share[k] / sum : 1.0 / static_cast<double>(candidates.size()));
}

namespace {

// project_velocities where a cluster holds a prescribed body P (gain g_P): it
// moves at the drive's velocity, v = w_P / g_P, as if P were infinitely
// heavy; the drive's impulse J (g_P J = I_k v - sum I_j g_j w_j) does the work
// J w_P, booked in `input`; the loss is that work less the kinetic energy
// gained. Other clusters as project_velocities. Returns the loss [J] (>= 0).
double project_with_drives(const Model& m, const LockedClusters& c, std::vector<double>& w, double& input) {
  std::vector<char> driven(static_cast<std::size_t>(c.num_clusters()), 0);
  double lost = 0.0;
  for (int p : m.driven_bodies) {
    const int k = c.cluster_of[p];
    if (c.grounded[k] || c.dense(k) || driven[k]) continue;
    driven[k] = 1;
    const double v = w[p] / c.gain[p];
    double momentum = 0.0, gained = 0.0;
    for (int j : c.members(k)) {
      momentum += m.inertia[j] * c.gain[j] * w[j];
      gained += 0.5 * m.inertia[j] * (c.gain[j] * v * c.gain[j] * v - w[j] * w[j]);
      if (j != p) w[j] = c.gain[j] * v;
    }
    const double work = v * (c.inertia[k] * v - momentum);
    input += work;
    lost += work - gained;
  }
  // the clusters without a drive (a drive's are consistent now: at most
  // roundoff, and each prescribed body keeps its drive's velocity exactly)
  std::vector<double> drive_velocity;
  for (int p : m.driven_bodies) drive_velocity.push_back(w[p]);
  lost += project_velocities(c, m.inertia, w);
  for (std::size_t i = 0; i < m.driven_bodies.size(); ++i) w[m.driven_bodies[i]] = drive_velocity[i];
  return lost > 0.0 ? lost : 0.0;
}

}  // namespace

// S-S selection for the elements at zero relative velocity (with `arrived`
// and `exhausted` of the event).
void EventPipeline::select_at_event() {
  candidates.clear();
  links.clear();
  add_lock_candidates(rest_velocity());
  add_contact_candidates();
  if (candidates.empty()) return;
  lock_clusters(model.inertia, links, locked);
  projection_weights();  // before the projection: the rows' velocities u-
  const double lost = model.driven_bodies.empty() ? project_velocities(locked, model.inertia, state.w)
                                                 : project_with_drives(model, locked, state.w, state.input_work);
  state.dissipated += lost;
  book_projection_shares(lost);
  data.stats.velocity_projection_loss += lost;
  ws.q = state.q;
  ws.w = state.w;
  select_modes();
}

// The S-S selection of `candidates` (with `exhausted`), its fallbacks and
// misses counted in the run statistics.
void EventPipeline::select_modes() {
  const ModeSelectionReport report =
      select_friction_modes(model, state, state.t, candidates, ws, exhausted, selection);
  data.stats.selection_fallbacks += report.lemke_solves;
  data.stats.selection_unsolved += report.unsolved;
}

// A stuck element whose static torque exceeds its limit at an output point
// (a reserve that reached zero without a sign change the integrator could
// see, e.g. a clutch opening to MT0 = 0 while unloaded) triggers a
// re-selection; so does a locked one-way clutch over its limit against overrun.
// Between stops the integrator goes on with the signs it had, and a band of
// 1e-9 keeps a reserve it is about to report from being decided early; a
// restart (at_restart) reads every sign afresh from the state, so there the
// band is the torques' roundoff: a reserve past 0 beyond it would be taken
// as crossed already and its break-away lost (a host that set a load 1e-9
// over a bearing's static limit left it stuck for good, and a load rising to
// 42 % over it at the next call; a new-user hunt).
bool EventPipeline::stuck_consistent(bool at_restart) {
  if (ms.stuck_links.empty()) return true;
  evaluate_static_torques();
  const double relative = at_restart ? 0.0 : 1e-9;
  const double roundoff = at_restart ? 64 * std::numeric_limits<double>::epsilon() : 1e-12;
  for (int l : ms.link_ids) {
    if (model.links[l].kind == LinkKind::gear_mesh) {
      if (!gear_consistent(model.links[l].element, relative, roundoff)) return false;
      continue;
    }
    if (model.is_contact_link(l) || model.is_permanent_link(l) || model.is_gear_loss_link(l)) continue;
    const double against = model.is_one_way_link(l)  // the locking side has no limit
                               ? model.one_way_clutches[model.links[l].element].overrun * ws.lambda[l]
                               : std::abs(ws.lambda[l]);
    if (against > ws.limit[l] * (1.0 + relative) + roundoff * link_torque_scale(l)) return false;
  }
  double scale = 0.0;  // a contact pulling (beyond roundoff) must let go
  for (int s : ms.contacts) scale = std::max(scale, std::abs(ws.lambda[model.spring_link[s]]));
  for (int s : ms.contacts) {
    const int l = model.spring_link[s];
    if (state.spring_side[s] * ws.lambda[l] < -relative * scale - roundoff * link_torque_scale(l)) return false;
  }
  return true;
}

// A lossy gear in its mode at the torques in ws (after evaluate_static_torques):
// its mesh torque on the side its mode says (moving: its quadrant; stuck: the
// half of its cone) and, stuck, its loss in its cone, to roundoff. A load that
// jumps at a breakpoint can move either past a witness that never saw it.
bool EventPipeline::gear_consistent(int gear, double relative, double roundoff) const {
  const LossyGear& g = model.lossy_gears[gear];
  const std::int8_t mode = state.element_mode[model.lossy_gear_element[gear]];
  const double tol = relative * std::max(std::abs(ws.lambda[g.mesh_link]), std::abs(ws.lambda[g.loss_link])) +
                     roundoff * std::max(link_torque_scale(g.mesh_link), link_torque_scale(g.loss_link));
  if (lossy_sigma_of(mode) * ws.lambda[g.mesh_link] < -tol) return false;
  return lossy_motion_of(mode) != 0 || lossy_holds(g.law, ws.lambda[g.mesh_link], ws.lambda[g.loss_link], tol);
}

// The scale of link l's torque [N m] at the state in ws: its limit, its
// torque and the applied torques on its bodies carried to its coordinate
// (|T_k / c_k|). A static torque's roundoff is relative to these, never
// absolute: a model whose inertias and torques are all scaled by 1e-19 (or a
// row scaled by 1e20) is the same model.
double EventPipeline::link_torque_scale(int l) const {
  return std::max(applied_scale(l), ws.limit[l] + std::abs(ws.lambda[l]));
}

// Its limit and the applied torques on its bodies carried to its coordinate
// (|T_k / c_k|) [N m], at the state in ws.
double EventPipeline::applied_scale(int l) const {
  const CoordinateRow& row = model.links[l].row;
  double scale = ws.limit[l];
  for (int k = 0; k < row.n; ++k) scale = std::max(scale, std::abs(ws.force[row.body[k]] / row.c[k]));
  return scale;
}

// Every element whose state (its kind's row: state) changed since `before`.
void EventPipeline::log_changes() {
  const std::size_t logged = events.size();
  for_each_element(model, kListOrder, [&](const ElementKindInfo& row, int i) {
    if (!row.event) return;
    const std::int8_t a = row.state(model, i, before), b = row.state(model, i, state);
    if (a == b) return;
    const int e = model.elements_of(row.kind)[i];
    events.push_back({state.t, e, row.event(model, i, a, b), state_as_written(model, row, i, e, a),
                      state_as_written(model, row, i, e, b), element_rate(model, e, state.w.data())});
  });
  // a change at a breakpoint, a sample instant or a limit is an instant too
  if (events.size() > logged) count_instant(false);
}

// RunStats::events: each instant once, whether a root stopped the
// integrator there or the pipeline changed modes at a stop of its own; with
// `every_root` (a root stop) also again at the same instant.
void EventPipeline::count_instant(bool every_root) {
  if (!every_root && state.t == last_instant_) return;
  ++data.stats.events;
  last_instant_ = state.t;
}

// The last stages of every stop (t_start, a root, a re-selection), after
// the restart in the modes selected there: what is at rest and starts to
// move without a witness to see it. Elements on a kink enter the branch of
// their motion, stuck elements at their limit break away, and the elements
// on a kink that the break-away sets moving enter theirs: a spring held on
// its flank or knot by a stuck clutch rests there until the clutch breaks
// away, and its x'' was 0 at every decision before (F4, F7 of the
// kink-stuck finding: the spring kept the branch it started in). Each change
// restarts the integrator; with `own_log` the stages log their changes
// themselves (after a stop that logged already), else the caller logs.
void EventPipeline::leave_rest(bool own_log) {
  if (enter_kinks_from_rest(own_log)) restart();
  if (!break_away_at_limits(own_log)) return;
  restart();
  if (enter_kinks_from_rest(own_log)) restart();
}

// Elements at rest on a kink of their law (a spring's flank or knot, to the
// roundoff of its relation): the witness of the kink is 0 now, and a root
// function that leaves 0 counts no crossing (CVODE's and the exact
// integrator's root finding alike), so the branch the motion enters is
// decided here, from the accelerations of the structure just built (each
// row's enter_from_rest). Returns whether a mode changed (a restart is due).
bool EventPipeline::enter_kinks_from_rest(bool own_log) {
  bool due = false;
  for_each_element(model, kListOrder, [&](const ElementKindInfo& row, int i) {
    due = due || (row.at_rest_on_kink && row.at_rest_on_kink(model, i, state));
  });
  if (!due) return false;
  if (own_log) before = state;
  probe_accelerations();
  bool changed = false;
  for_each_element(model, kListOrder, [&](const ElementKindInfo& row, int i) {
    if (row.at_rest_on_kink && row.at_rest_on_kink(model, i, state))
      changed = row.enter_from_rest(model, i, state, probe_acc.data()) || changed;
  });
  if (changed && own_log) log_changes();
  return changed;
}

// Stuck elements exactly at their limit when the clock stops, their load
// still rising: the reserve witness is 0 now and negative a moment later, but
// a root function that leaves 0 counts no crossing (CVODE's and the exact
// integrator's root finding alike: the exact one takes the sign it leaves 0
// with as its sign), and the selection cannot tell from the accelerations
// (the torque at the bound, relative acceleration 0). Without this stage the
// element stayed stuck until stuck_consistent caught it at the next output
// point. A reserve leaves through 0 here when now it is within roundoff (or
// half the probe's drop, 1e-9 of its scale at most) of 0 and it drops: a
// moment later (kProbe, along the motion of the structure just built) it is
// negative beyond roundoff, or its first nonzero Taylor term is (where the
// integrator knows them: exact), or, flat to first order, it moves down
// under the second-order probes (decide_by_curvature). Its crossing is then
// applied as a root's, the S-S
// selection decides with it in `exhausted`. Returns whether a mode changed
// (a restart is due). With `own_log` it logs its changes itself (after a
// stop that logged already), else the caller logs (or, at t_start, nothing).
bool EventPipeline::break_away_at_limits(bool own_log) {
  if (ms.stuck_links.empty() || !find_leaving_reserves()) return false;
  if (own_log) before = state;
  arrived.clear();
  struck.clear();
  // `exhausted` keeps the reserves exhausted at this instant already: an
  // element that broke away in the selection before is a candidate again (it
  // is at rest), and without its exhausted reserve the tie at its limit (a
  // relative acceleration 0) read as stuck: a bearing that broke away as a
  // freewheel beside it began to overrun stuck again until the next output
  // sample.
  apply_crossings(leaving);
  select_at_event();
  if (own_log) log_changes();
  return true;
}

// The scale of reserve witness w at the state in ws: [N m] of a link's
// reserve, 1 for a group's 1 - u; a contact's torque and the applied torques
// on its bodies carried to its coordinate (applied_scale without a limit,
// which a contact has not), at least its torque scale at the restart
// (link_torque_scales); 0 where nothing acts on it at all.
double EventPipeline::reserve_scale(const Witness& w) const {
  if (w.kind == WitnessKind::group_reserve) return 1.0;
  if (w.kind != WitnessKind::contact_force) return ws.limit[w.index] + std::abs(ws.lambda[w.index]);
  const int l = model.spring_link[w.index];
  const CoordinateRow& row = model.links[l].row;
  double scale = std::max(std::abs(ws.lambda[l]), torque_scale[static_cast<std::size_t>(l)]);
  for (int k = 0; k < row.n; ++k) scale = std::max(scale, std::abs(ws.force[row.body[k]] / row.c[k]));
  return scale;
}

// The roundoff of reserve witness r, from its scale read by find_leaving_reserves,
// and at least that of its reading from the angles (4 g_roundoff: 4 eps k |q|
// of the springs on its clusters; both readings of a probe carry it). Twin
// gear trains shifted 1e6 rad: a reserve the exact integrator found dropping
// through 0 read -1.76e-6 N m, and 1e-9 s later 4e-8 higher; against the
// scale's roundoff alone (5.7e-16) that was a rise, a touch, and the
// break-away came at the next output instant (3 of 29 amplitudes). Within
// this roundoff the second-order probes decide, reaching far enough to move
// it beyond it.
double EventPipeline::reserve_roundoff(std::size_t r) const {
  return std::max(64 * std::numeric_limits<double>::epsilon() * g_scale[r], 4.0 * g_roundoff[r]);
}

// The reserve witnesses (stick_upper, stick_lower, group_reserve) and the
// contact torques (contact_force) of the current structure that leave 0
// downwards at state.t, marked -1 in `leaving`: a contact carrying no torque
// when another element's event starts pulling its teeth apart (a stop
// touched at zero deflection) parts there, not at the next output point
// where stuck_consistent caught it. The probe is taken only when some
// watched witness is within 1e-9 of its scale of 0 (unwatched: scale -1).
// (Its roundoff from the angles, 64 g_roundoff, only widens the selection's tie for
// those found leaving: as a test of nearness here it would take a reserve
// up to 64 eps k |q| short of 0, 2.8e-4 N m beside a 1e4 N m/rad shaft
// spring turned 1e5 rad, as at 0 and break it away early.)
bool EventPipeline::find_leaving_reserves() {
  auto is_watched = [](const Witness& w) {
    const Crossing c = witness_kind_info(w.kind).crossing;
    return c == Crossing::reserve_exhausted || c == Crossing::group_exhausted || c == Crossing::contact_unloads;
  };
  root_functions(model, state, ms, state.t, y.data(), g_now.data(), ws);
  bool near = false;  // (the scales at the state, before a probe moves ws)
  for (std::size_t r = 0; r < ms.roots.size(); ++r) {
    g_scale[r] = is_watched(ms.roots[r]) ? reserve_scale(ms.roots[r]) : -1.0;
    near = near || (g_scale[r] >= 0.0 && g_now[r] <= 1e-9 * g_scale[r]);
  }
  if (!near) return false;
  solved_torque_roundoffs(model, state, ms, ws, g_roundoff.data());  // (at the state: apply_crossings' BreakAway::band)
  return probe_reserves(ReserveProbe::at_restart);
}

// ---- whether a reserve leaves 0: one probe for a root and a restart ----------
//
// Two stages ask whether a reserve witness at 0 (a stuck element's or group's
// reserve, a contact's torque) leaves it downwards or only touches it: at a
// root the integrator found (mark_touched_reserves: is the crossing real?)
// and at a restart, where a witness that leaves 0 counts no crossing
// (find_leaving_reserves). Both answer by the same probe: the witness a
// moment later along the motion (kProbe), and, flat to first order there,
// under the second-order probes (decide_by_curvature). The probe, its
// reading and the return of ws to the state are written here once, so that
// the two stages cannot drift apart; they differ only in which witnesses
// they watch and in the first-order test (classify_reserve), for the reasons
// given there.

// Probes the watched reserve witnesses (g_scale[r] >= 0; g_now holds the root
// functions at the state, g_scale their scales there) and marks those that
// leave 0 downwards with -1 in `leaving` (classify_reserve; the flat ones by
// decide_by_curvature). Leaves ws at the state. Returns whether any leaves.
bool EventPipeline::probe_reserves(ReserveProbe at) {
  const double dt = probe_state();
  root_functions(model, state, ms, state.t + dt, probe_y.data(), g_probe.data(), ws);
  // A contact that carries nothing now gets its scale (its roundoff's) from
  // the torques a moment later, which a real parting makes of the order of
  // its drop: a drop of roundoff does not part it.
  for (std::size_t r = 0; r < ms.roots.size(); ++r)
    if (g_scale[r] >= 0.0 && ms.roots[r].kind == WitnessKind::contact_force)
      g_scale[r] = std::max(g_scale[r], reserve_scale(ms.roots[r]));
  bool any = false, undecided = false;
  std::fill(leaving.begin(), leaving.end(), 0);
  std::fill(flat.begin(), flat.end(), 0);
  for (std::size_t r = 0; r < ms.roots.size(); ++r) {
    if (g_scale[r] < 0.0) continue;
    switch (classify_reserve(r, at)) {
      case ReserveExit::leaves:
        leaving[r] = -1;
        any = true;
        break;
      case ReserveExit::flat:
        flat[r] = 1;
        undecided = true;
        break;
      case ReserveExit::stays:
        break;
    }
  }
  if (undecided) {
    any = decide_by_curvature(dt) || any;
    rhs(model, state, ms, state.t, y.data(), probe_ydot.data(), ws);  // ws back at the state (its rhs too)
  }
  root_functions(model, state, ms, state.t, y.data(), g_now.data(), ws);  // ws back at the state
  return any;
}

// How watched reserve witness r leaves 0, from its value now (g_now) and a
// moment later (g_probe): it leaves, it stays, or it is flat to first order
// (decide_by_curvature decides). The tests differ by where the probe stands:
// - at a root, the integrator saw the witness cross, so it may stand a little
//   past 0 already: it leaves when it goes on dropping from where it is now,
//   beyond roundoff. The integrator's Taylor signs (leaving_sign) are of no
//   use there: they hold right after a restart, and the segment has ended.
// - at a restart, only a witness within roundoff (or half the probe's drop,
//   1e-9 of its scale at most) of 0 is asked: it leaves when a moment later it
//   is below 0 beyond roundoff, or (exact) its first nonzero Taylor term is
//   negative; where the integrator cannot tell (CVODE), flat to first order
//   is left to the curvature.
EventPipeline::ReserveExit EventPipeline::classify_reserve(std::size_t r, ReserveProbe at) const {
  const double noise = reserve_roundoff(r);
  if (at == ReserveProbe::at_root) {
    const double moved = g_probe[r] - g_now[r];
    return moved < -noise ? ReserveExit::leaves : moved <= noise ? ReserveExit::flat : ReserveExit::stays;
  }
  const double at_zero = std::min(std::max(0.5 * (g_now[r] - g_probe[r]), 1e-12 * g_scale[r]), 1e-9 * g_scale[r]);
  if (g_now[r] > at_zero) return ReserveExit::stays;
  const int order_sign = integrator.leaving_sign(static_cast<int>(r));
  if (g_probe[r] < -noise || order_sign < 0) return ReserveExit::leaves;
  if (order_sign == 0 && g_probe[r] <= g_now[r] + noise) return ReserveExit::flat;
  return ReserveExit::stays;
}

// The reserves flat to first order (`flat`), where the integrator cannot
// tell their higher orders (CVODE): the state a little later along the
// motion to second order, y + D y' + D^2/2 y'' (y'' from y' a moment later,
// exact to roundoff in an affine mode; the signals read at t + D
// themselves), for D from 1e-6 s up tenfold until the reserve has moved
// beyond 16 times its roundoff, never past half the way to the next stop (a
// breakpoint's jump is the pipeline's, not the probe's). A reserve that moved
// down leaves 0 now; one that stays within roundoff (a load held at the
// limit) does not. Marks `leaving`; returns whether any leaves.
bool EventPipeline::decide_by_curvature(double dt) {
  probe_curve.resize(y.size());
  rhs(model, state, ms, state.t + dt, probe_y.data(), probe_curve.data(), ws);
  for (std::size_t k = 0; k < y.size(); ++k) probe_curve[k] = (probe_curve[k] - probe_ydot[k]) / dt;  // y''
  const double reach = 0.5 * (next_stop(model, data.blocks, settings.t_end, state.t, settings.t_end) - state.t);
  bool any = false, open = true;
  for (double D = 1e-6; open && D <= 1e-2 * (1.0 + 1e-9) && D <= reach; D *= 10.0) {
    for (std::size_t k = 0; k < y.size(); ++k) probe_y[k] = y[k] + D * probe_ydot[k] + 0.5 * D * D * probe_curve[k];
    root_functions(model, state, ms, state.t + D, probe_y.data(), g_probe.data(), ws);
    open = false;
    for (std::size_t r = 0; r < ms.roots.size(); ++r) {
      if (!flat[r]) continue;
      const double moved = g_probe[r] - g_now[r], noise = reserve_roundoff(r);
      if (std::abs(moved) <= 16 * noise) {
        open = true;
        continue;
      }
      flat[r] = 0;
      if (moved < 0.0) {
        leaving[r] = -1;
        any = true;
      }
    }
  }
  return any;
}

// The bodies' accelerations a moment (kProbe) after state.t along the motion
// (y + dt y', the signals at t + dt): where x'' is 0 at the instant (a torque
// rising from 0), its sign a moment later is that of x'''.
void EventPipeline::probe_accelerations() {
  const double dt = probe_state();
  rhs(model, state, ms, state.t + dt, probe_y.data(), probe_ydot.data(), ws);
  probe_acc.assign(model.num_bodies(), 0.0);
  body_velocities(ms, probe_ydot.data(), probe_acc.data());  // (of y': accelerations)
  rhs(model, state, ms, state.t, y.data(), probe_ydot.data(), ws);  // ws back at the state
}

// The state a moment later along the motion, y + dt y' into probe_y; returns
// dt (kProbe, or a few ulp of state.t when that is larger).
double EventPipeline::probe_state() {
  constexpr double kProbe = 1e-9;  // [s], far below any time scale the models resolve
  const double dt = std::max(kProbe, 16 * std::numeric_limits<double>::epsilon() * std::abs(state.t));
  probe_ydot.resize(y.size());
  rhs(model, state, ms, state.t, y.data(), probe_ydot.data(), ws);
  probe_y.resize(y.size());
  for (std::size_t k = 0; k < y.size(); ++k) probe_y[k] = y[k] + dt * probe_ydot[k];
  return dt;
}

void EventPipeline::record_event_time() {
  data.recent_events.push_back(state.t);
  std::vector<double>& recent = data.recent_events;
  if (static_cast<int>(recent.size()) > settings.storm_events) recent.erase(recent.begin());
}

// Sampled blocks due at state.t read the system there and set their held
// outputs; a changed output is a jump of the torques it drives, handled by
// the caller like a breakpoint. Returns whether an output changed.
bool EventPipeline::sample_blocks() {
  if (!at_or_before(data.blocks.next_instant(), state.t)) return false;
  return data.blocks.sample(model, state.t, state.q.data(), state.w.data(), ws.inputs.data());
}

// A friction element that can stick (elements/friction.hpp: can_stick), any
// one-way clutch (a pure freewheel, drag 0, still locks), every permanent
// link and lossy gear's mesh (locked always: a candidate of every selection,
// which keeps its row held while the others are decided, and settles a moving
// gear's quadrant), and a lossy gear's loss (it sticks).
bool EventPipeline::can_lock(int link) const {
  const ModelLink& l = model.links[link];
  switch (l.kind) {
    case LinkKind::friction: return luztar::can_stick(model, model.frictions[l.element]);
    case LinkKind::one_way: return true;
    case LinkKind::permanent: return true;  // locked always
    case LinkKind::gear_mesh: return true;  // locked always
    case LinkKind::gear_loss: return true;
    case LinkKind::contact: return false;
  }
  return false;
}

}  // namespace luztar
