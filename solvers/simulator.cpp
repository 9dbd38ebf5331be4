#include "solvers/simulator.hpp"
#include "solvers/time_stepping.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "bodies/clusters.hpp"
#include "core/energy.hpp"
#include "core/run_frame.hpp"
#include "core/times.hpp"
#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "solvers/cvode_integrator.hpp"
#include "solvers/dynamics.hpp"
#include "solvers/mode_selection.hpp"
#include "solvers/impacts.hpp"
#include "solvers/sampled_blocks.hpp"

namespace luztar {

namespace {
constexpr int kQuadInput = 0, kQuadDissipated = 1;

// Steps per turning time of the signals (solvers/simulator.hpp): a stick
// reserve window shorter than this fraction of a sine period (a sine of
// amplitude within 0.12 % of the limit, cos(pi / 64) = 0.9988) could still
// hide inside one step.
constexpr double kStepsPerTurn = 64.0;

// The longest CVODE step [s]: simulation.max_step (0 = none) and the signals'
// turning times; 0 when neither bounds it.
double max_cvode_step(const Model& m, double user_max_step) {
  double turn = INFINITY;
  for (const Signal& s : m.signals) turn = std::min(turn, turning_time(s));
  double h = std::isfinite(turn) ? turn / kStepsPerTurn : 0.0;
  if (user_max_step > 0.0) h = h > 0.0 ? std::min(h, user_max_step) : user_max_step;
  return h;
}
}  // namespace

class Simulator::Impl final : public OdeSystem {
 public:
  Impl(const Model& m, const SimulationSettings& s)
      : model(m), settings(s), ws(m), y(2 * m.num_bodies()), time_stuck(m.num_elements(), 0.0),
        sampler(m, s.t_start) {
    IntegratorOptions o;
    o.size = 2 * m.num_bodies();
    o.quadratures = 2;
    o.rtol = s.rtol;
    o.atol = s.atol;
    o.quad_atol = s.atol;
    o.max_step = max_cvode_step(m, s.max_step);
    const int hb = jacobian_half_bandwidth(m);
    o.band = s.linear_solver == "band" || (s.linear_solver == "auto" && o.size > 64 && 2 * hb + 1 < o.size / 2);
    o.half_bandwidth = hb;
    cvode = std::make_unique<CvodeIntegrator>(*this, o);
    // Event handling reuses these; sized here so that it allocates nothing.
    directions.assign(max_root_count(m), 0);
    const std::size_t nf = m.frictions.size(), nl = static_cast<std::size_t>(m.num_links());
    arrived.reserve(nf);
    candidates.reserve(nl);
    exhausted.reserve(nl);
    links.reserve(nl);
    struck.reserve(m.springs.size());
    struck_side.assign(m.springs.size(), 0);
    locked.reserve(m.num_bodies());
    events.reserve(1024);  // the event log grows by doubling beyond this
    recent.reserve(static_cast<std::size_t>(std::max(s.storm_events, 0L)) + 1);
    // A stage failing at t_start (a block's LCP, the S-S selection) is a run
    // outcome like one failing later: the simulator starts stopped, and
    // advance_to reports it (a bad model was refused before, by validate()).
    try {
      initialise();
    } catch (const std::exception& e) {
      stop_on_error(e);
    }
    before = state;
  }

  // After a stage threw: the message, and no step until restore().
  void stop_on_error(const std::exception& e) {
    std::ostringstream os;
    os << "stopped by an error at t = " << state.t << " s: " << e.what();
    message = os.str();
    broken = true;
  }

  // OdeSystem
  void rhs(double t, const double* yy, double* ydot) override { luztar::rhs(model, state, ms, t, yy, ydot, ws); }
  void jacobian(double t, const double* yy, JacobianSink& jac) override {
    luztar::jacobian(model, state, ms, t, yy, jac, ws);
  }
  void roots(double t, const double* yy, double* g) override {
    root_functions(model, state, ms, t, yy, g, ws);
    std::fill(g + ms.roots.size(), g + directions.size(), 1.0);
  }
  void quadrature(double t, const double* yy, double* qdot) override {
    unpack(ms, yy, ws);
    applied_forces(model, state, t, ws);
    qdot[kQuadInput] = input_power(model, t, ws);
    qdot[kQuadDissipated] = dissipation_power(model, state, ws);
  }

  StepStatus advance_to(double target) {
    message.clear();
    outputs_valid = false;
    apply_input_change();
    while (earlier(state.t, target)) {
      // A target at the same instant as the next stop (core/times.hpp) is that
      // stop. With inputs, CVODE never steps past the caller's time: an input
      // set there then acts from exactly there, with CVODE's history intact.
      const double stop = next_stop(state.t, target);
      const double tout = same_time(target, stop) ? stop : std::min(target, stop);
      const double tstop = model.inputs.empty() ? stop : tout;
      double t = state.t;
      const auto outcome = cvode->advance(tout, tstop, t, y.data());
      sync(t);
      switch (outcome) {
        case CvodeIntegrator::Outcome::reached: {
          const bool resampled = sample_blocks();
          if (resampled || is_breakpoint(t) || !stuck_consistent() || has_missed_strike()) reselect_and_restart();
          break;
        }
        case CvodeIntegrator::Outcome::root:
          // A root at the same instant as a breakpoint is at the breakpoint:
          // the jump is taken there (no stop can be placed a few ulp later).
          if (const double* bp = breakpoint_near(t)) state.t = *bp;
          handle_roots();
          if (sample_blocks() || is_breakpoint(state.t)) reselect_and_restart();
          break;
        case CvodeIntegrator::Outcome::stop_time: {
          // A stop only for a sample instant whose outputs did not change
          // (a relay holding its state) keeps CVODE's history.
          const bool instant_only = same_time(sampler.next_instant(), t) && !is_breakpoint(t) && !same_time(t, target);
          const bool resampled = sample_blocks();
          if (resampled || !instant_only || !stuck_consistent() || has_missed_strike()) reselect_and_restart();
          break;
        }
        case CvodeIntegrator::Outcome::failure: {
          std::ostringstream os;
          os << "CVODE failed at t = " << t << ": " << cvode->last_error();
          message = os.str();
          return StepStatus::solver_failure;
        }
      }
      if (stats.events > settings.max_events) {
        std::ostringstream os;
        os << "more than " << settings.max_events << " events (simulation.max_events) by t = " << state.t;
        message = os.str();
        return StepStatus::event_limit;
      }
      if (storm_detected()) return StepStatus::event_storm;
    }
    return StepStatus::reached_time;
  }

  // Sampled blocks due at state.t read the system there and set their held
  // outputs; a changed output is a jump of the torques it drives, handled by
  // the caller like a breakpoint. Returns whether an output changed.
  bool sample_blocks() {
    if (!at_or_before(sampler.next_instant(), state.t)) return false;
    outputs_valid = false;
    return sampler.sample(model, state.t, state.q.data(), state.w.data(), ws.inputs.data());
  }

  // After set_input: a jump of an applied torque or a friction limit. The
  // state stays continuous, so CVODE goes on with its history (its error test
  // absorbs the kink) unless the jump changes the structure: a stuck element
  // over its new limit, or massless bodies whose branch depends on the forces.
  // Then it is handled like a breakpoint: S-S selection and a restart.
  // Returns whether it restarted.
  bool apply_input_change() {
    if (!inputs_changed) return false;
    inputs_changed = false;
    if (!has_massless && stuck_consistent()) return false;
    reselect_and_restart();
    return true;
  }

  // State at the current time into the public State (angles, velocities, energy accounts).
  void sync(double t) {
    state.t = t;
    unpack(ms, y.data(), ws);
    if (has_massless) {  // velocities of massless bodies, angles of algebraic ones
      applied_forces(model, state, t, ws);
      algebraic_velocities(model, ws);
    }
    state.q = ws.q;
    state.w = ws.w;
    double quad[2];
    cvode->quadratures(t, quad);
    state.input_work = quad[kQuadInput];
    state.dissipated = quad[kQuadDissipated];
  }

  // Element outputs at the current state, computed once per time.
  void refresh_outputs() {
    if (outputs_valid) return;
    evaluate_outputs(out_torque, out_state);
    outputs_valid = true;
  }

  // Evaluates forces and static friction at the current state (for outputs).
  void evaluate_outputs(std::vector<double>& torque, std::vector<std::int8_t>& st) {
    evaluate_static_torques();
    torque.resize(model.num_elements());
    st.resize(model.num_elements());
    luztar::element_outputs(model, state, state.t, ws, torque.data(), st.data());
  }

  void initialise() {
    const int nb = model.num_bodies();
    state.t = settings.t_start;
    state.q = model.angle0;
    state.w = model.velocity0;
    state.spring_side.assign(model.springs.size(), 0);
    struck.clear();
    for (std::size_t s = 0; s < model.springs.size(); ++s) {
      const Spring& sp = model.springs[s];
      if (!has_freeplay_events(sp) || model.spring_algebraic[s]) continue;
      const double x = spring_deflection(sp, state.q);
      if (sp.rigid()) {  // teeth that start touching are in contact, and struck if they approach
        if (std::abs(x) >= sp.freeplay * (1.0 - 1e-12)) {
          state.spring_side[s] = x > 0.0 ? 1 : -1;
          struck.push_back(static_cast<int>(s));
        }
        continue;
      }
      state.spring_side[s] = freeplay_side(x, sp.freeplay, spring_rate(sp, state.w.data()));
    }
    state.friction_mode.assign(model.frictions.size(), FrictionMode::slip_positive);
    for (std::size_t i = 0; i < model.frictions.size(); ++i)
      if (slip_velocity(model.frictions[i], state.w) < 0.0) state.friction_mode[i] = FrictionMode::slip_negative;
    state.input_work = 0.0;
    state.dissipated = 0.0;
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
    for (std::size_t i = 0; i < model.frictions.size(); ++i)
      if (can_stick(i) && (slip_velocity(model.frictions[i], state.w) == 0.0 ||
                           std::find(arrived.begin(), arrived.end(), static_cast<int>(i)) != arrived.end()))
        candidates.push_back(static_cast<int>(i));
    add_contact_candidates();
    exhausted.clear();
    if (!candidates.empty()) select_modes();
    restart();
  }

  bool can_stick(std::size_t i) const { return luztar::can_stick(model, model.frictions[i]); }

  // Breakpoints are compared as instants (core/times.hpp): t a few ulp off
  // one is at it.
  bool is_breakpoint(double t) const { return breakpoint_near(t) != nullptr; }
  // The breakpoint at the same instant as t, or null.
  const double* breakpoint_near(double t) const {
    const auto it = std::lower_bound(model.breakpoints.begin(), model.breakpoints.end(), t);
    if (it != model.breakpoints.end() && same_time(*it, t)) return &*it;
    if (it != model.breakpoints.begin() && same_time(*(it - 1), t)) return &*(it - 1);
    return nullptr;
  }

  // The next instant after t (not the same instant) where CVODE must stop:
  // a breakpoint, a sample instant, t_end, or else past the target.
  double next_stop(double t, double target) const {
    double stop = std::max(settings.t_end, target);
    if (earlier(t, settings.t_end)) stop = settings.t_end;
    auto it = std::upper_bound(model.breakpoints.begin(), model.breakpoints.end(), t);
    while (it != model.breakpoints.end() && same_time(*it, t)) ++it;
    if (it != model.breakpoints.end()) stop = std::min(stop, *it);
    if (earlier(t, sampler.next_instant())) stop = std::min(stop, sampler.next_instant());
    return stop;
  }

  // Rebuilds the structure for the current modes and restarts CVODE at state.t.
  void restart() {
    for (int i : ms.stuck) time_stuck[model.friction_element[i]] += state.t - segment_start;
    segment_start = state.t;
    build_mode_structure(model, state, state.t, ws.inputs.data(), 1e-3 * settings.atol, ms);
    for (int s = 0; s < ms.num_splits(); ++s) stats.redundant_splits += ms.split(s).nullity > 0 ? 1 : 0;
    pack(ms, state.q, state.w, y.data());
    unpack(ms, y.data(), ws);
    state.w = ws.w;
    // CVODE watches a fixed number of root functions (re-registering them
    // would allocate); the unused ones are constant and never cross.
    std::fill(directions.begin(), directions.end(), 0);
    for (std::size_t r = 0; r < ms.roots.size(); ++r) directions[r] = ms.roots[r].direction;
    const double quad[2] = {state.input_work, state.dissipated};
    cvode->reset(state.t, y.data(), quad, directions);
    ++stats.reinits;
  }

  void handle_roots() {
    const std::vector<int>& found = cvode->roots_found();
    arrived.clear();
    exhausted.clear();
    struck.clear();
    bool friction_event = false;
    // Turnarounds in a gap change nothing: CVODE goes on with its history.
    bool structural = false;
    for (std::size_t r = 0; r < ms.roots.size(); ++r)
      structural = structural || (found[r] != 0 && luztar::structural(ms.roots[r].kind));
    if (!structural && !has_missed_strike()) return;
    before = state;  // copy into kept storage
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
        case Crossing::contact_unloads:
          exhausted.push_back({model.spring_link[spec.index], FrictionMode::stuck});
          friction_event = true;
          break;
        case Crossing::arrives_at_rest:
          arrived.push_back(spec.index);
          friction_event = true;
          break;
        case Crossing::reserve_exhausted:
          exhausted.push_back({spec.index, info.sign > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative});
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
    }
    find_missed_strikes();
    ++stats.events;
    record_event_time();
    if (!struck.empty()) {
      strike();
      friction_event = true;
    }
    if (friction_event) select_at_event();
    log_changes(before);
    restart();
  }

  // The luz branch of a massless body; its bearings report it as their mode.
  void set_massless_side(int body, int side) {
    state.massless_side[body] = static_cast<std::int8_t>(side);
    for (std::size_t i = 0; i < model.frictions.size(); ++i)
      if (model.frictions[i].a == body)
        state.friction_mode[i] = side > 0 ? FrictionMode::slip_positive
                                 : side < 0 ? FrictionMode::slip_negative
                                            : FrictionMode::stuck;
  }

  // Branches of all massless bodies from the torque balance at the current state
  // (at t_start and at signal discontinuities; at a kink the event decides).
  void place_massless_bodies() {
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
  void exhausted_in_group(const StaticSplit& sp, std::vector<BreakAway>& out) {
    evaluate_static_torques();
    double scale = 0.0;
    for (int i : sp.links) scale = std::max(scale, std::abs(ws.lambda[i]));
    for (int i : sp.links) {
      if (model.is_contact_link(i)) {
        if (state.spring_side[model.links[i].element] * ws.lambda[i] <= 1e-6 * scale) out.push_back({i, FrictionMode::stuck});
        continue;
      }
      if (std::abs(ws.lambda[i]) >= ws.limit[i] * (1.0 - 1e-6))
        out.push_back({i, ws.lambda[i] > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative});
    }
  }

  // The impact of the rigid freeplays in `struck` (their side set to the
  // struck side): Newton's restitution over all contacts at once (solvers/
  // impacts.hpp). Teeth that rebound leave the contact; friction elements set
  // moving by the impulse slip (dry friction carries no impulse), those left
  // at zero relative velocity join `arrived` for the S-S selection.
  void strike() {
    for (int s : struck) struck_side[s] = state.spring_side[s];
    ws.q = state.q;
    ws.w = state.w;
    applied_forces(model, state, state.t, ws);  // the acceleration that presses a rebound back
    // A flight rising less than 1000 angle tolerances off the flank is below
    // what the integrator resolves: that impact is plastic (solvers/impacts.hpp).
    double gap = 0.0;
    for (int s : struck) gap = std::max(gap, model.springs[s].freeplay);
    const RestThreshold rest{settings.rest_velocity, 1e3 * (settings.atol + settings.rtol * gap)};
    const ImpactOutcome out = resolve_impacts(model, state.spring_side, rest, ws.force, state.q, state.w, impact);
    if (!out.struck) return;  // touching but not approaching (at t_start): nothing jumped
    ++stats.impacts;
    stats.impact_fallbacks += out.fallback ? 1 : 0;
    stats.impacts_unsolved += out.solved ? 0 : 1;
    stats.impact_loss += out.energy_lost;
    state.dissipated += out.energy_lost;
    for (int s : struck)
      if (impact.approach[s] > 0.0)
        events.push_back({state.t, model.spring_element[s], EventKind::impact, struck_side[s], state.spring_side[s]});
    for (std::size_t i = 0; i < model.frictions.size(); ++i) {
      const double v = slip_velocity(model.frictions[i], state.w);
      if (std::abs(v) > settings.atol) state.friction_mode[i] = v > 0.0 ? FrictionMode::slip_positive : FrictionMode::slip_negative;
      else if (can_stick(i)) arrived.push_back(static_cast<int>(i));
    }
  }

  // Teeth found beyond their flank while in the gap: a rebound so slight that
  // its flight (depth (e u)^2 / 2 a_rel) is below the integration tolerance
  // went unseen, and the teeth turned back through the flank within one
  // step. They are struck where they are found (usually at a turnaround, at
  // relative velocity ~0: a plastic contact; the angles move back by the
  // overshoot, within the tolerance). Adds them to `struck`.
  bool find_missed_strikes() {
    bool any = false;
    for (std::size_t s = 0; s < model.springs.size(); ++s) {
      if (!past_flank(s)) continue;
      state.spring_side[s] = spring_deflection(model.springs[s], state.q) > 0.0 ? 1 : -1;
      struck.push_back(static_cast<int>(s));
      ++stats.missed_strikes;
      any = true;
    }
    return any;
  }
  bool has_missed_strike() const {
    for (std::size_t s = 0; s < model.springs.size(); ++s)
      if (past_flank(s)) return true;
    return false;
  }
  // A rigid freeplay in its gap whose teeth are past a flank by more than the
  // roundoff of x = q_a - p q_b (teeth that just left a flank sit on it).
  bool past_flank(std::size_t s) const {
    const Spring& sp = model.springs[s];
    if (!sp.rigid() || state.spring_side[s] != 0) return false;
    const double pb = sp.b == kGround ? 0.0 : sp.ratio * state.q[sp.b];
    const double roundoff = 16 * std::numeric_limits<double>::epsilon() * (std::abs(state.q[sp.a]) + std::abs(pb) + sp.freeplay);
    return std::abs(state.q[sp.a] - pb) > sp.freeplay + roundoff;
  }

  // Rigid freeplays whose teeth touch are decided with the friction elements.
  void add_contact_candidates() {
    for (std::size_t s = 0; s < model.springs.size(); ++s)
      if (model.springs[s].rigid() && state.spring_side[s] != 0) {
        const int link = model.spring_link[s];
        candidates.push_back(link);
        links.push_back(link_of(model, link));
      }
  }

  // Forces, accelerations and static torques at the current state into ws.
  void evaluate_static_torques() {
    ws.q = state.q;
    ws.w = state.w;
    applied_forces(model, state, state.t, ws);
    cluster_accelerations(model, ms, ws);
    static_friction(model, state, ms, ws);
  }

  // Breakpoints and consistency repairs: re-decide the zero-velocity elements.
  void reselect_and_restart() {
    before = state;
    place_massless_bodies();
    arrived.clear();
    exhausted.clear();
    struck.clear();
    if (find_missed_strikes()) strike();
    select_at_event();
    log_changes(before);
    restart();
  }

  // S-S selection for the elements at zero relative velocity (with `arrived`
  // and `exhausted` of the event).
  void select_at_event() {
    candidates.clear();
    links.clear();
    for (std::size_t i = 0; i < model.frictions.size(); ++i) {
      if (!can_stick(i)) continue;
      const bool is_candidate = state.friction_mode[i] == FrictionMode::stuck ||
                                std::find(arrived.begin(), arrived.end(), static_cast<int>(i)) != arrived.end() ||
                                std::abs(slip_velocity(model.frictions[i], state.w)) <= settings.atol;
      if (!is_candidate) continue;
      candidates.push_back(static_cast<int>(i));
      links.push_back(link_of(model, static_cast<int>(i)));
    }
    add_contact_candidates();
    if (candidates.empty()) return;
    lock_clusters(model.inertia, links, locked);
    const double lost = project_velocities(locked, model.inertia, state.w);
    state.dissipated += lost;
    stats.velocity_projection_loss += lost;
    ws.q = state.q;
    ws.w = state.w;
    select_modes();
  }

  // The S-S selection of `candidates` (with `exhausted`), its fallbacks and
  // misses counted in the run statistics.
  void select_modes() {
    const ModeSelectionReport report =
        select_friction_modes(model, state, state.t, candidates, ws, exhausted, selection);
    stats.selection_fallbacks += report.lemke_solves;
    stats.selection_unsolved += report.unsolved;
  }

  // A stuck element whose static torque exceeds its limit at an output point
  // (a reserve that reached zero without a sign change CVODE could see, e.g. a
  // clutch opening to MT0 = 0 while unloaded) triggers a re-selection.
  bool stuck_consistent() {
    if (ms.stuck_links.empty()) return true;
    evaluate_static_torques();
    for (int i : ms.stuck)
      if (std::abs(ws.lambda[i]) > ws.limit[i] * (1.0 + 1e-9) + 1e-12) return false;
    double scale = 0.0;  // a contact pulling (beyond roundoff) must let go
    for (int s : ms.contacts) scale = std::max(scale, std::abs(ws.lambda[model.spring_link[s]]));
    for (int s : ms.contacts)
      if (state.spring_side[s] * ws.lambda[model.spring_link[s]] < -1e-9 * scale - 1e-12) return false;
    return true;
  }

  void log_changes(const State& before) {
    for (std::size_t i = 0; i < model.frictions.size(); ++i) {
      const FrictionMode a = before.friction_mode[i], b = state.friction_mode[i];
      if (a == b) continue;
      const auto code_a = static_cast<std::int8_t>(mode_code(a)), code_b = static_cast<std::int8_t>(mode_code(b));
      events.push_back({state.t, model.friction_element[i], friction_event(code_a, code_b), code_a, code_b});
    }
    for (std::size_t s = 0; s < model.springs.size(); ++s) {
      const std::int8_t a = before.spring_side[s], b = state.spring_side[s];
      if (a == b) continue;
      events.push_back({state.t, model.spring_element[s], spring_event(a, b), a, b});
    }
  }

  void record_event_time() {
    recent.push_back(state.t);
    if (static_cast<int>(recent.size()) > settings.storm_events) recent.erase(recent.begin());
  }

  bool storm_detected() {
    if (static_cast<int>(recent.size()) < settings.storm_events) return false;
    if (recent.back() - recent.front() > settings.storm_span) return false;
    std::ostringstream os;
    os << "event storm: " << settings.storm_events << " events within " << recent.back() - recent.front()
       << " s (limit simulation.event_storm: " << settings.storm_events << " events in " << settings.storm_span
       << " s) at t = " << state.t << "; last elements involved:";
    std::vector<int> seen;
    for (auto it = events.rbegin(); it != events.rend() && seen.size() < 4; ++it)
      if (std::find(seen.begin(), seen.end(), it->element) == seen.end()) {
        seen.push_back(it->element);
        os << " " << model.element_names[it->element] << " (" << to_string(it->kind) << ")";
      }
    message = os.str();
    return true;
  }

  RunStats collect_stats() const {
    RunStats s = stats;
    const IntegratorCounters c = cvode->counters();
    s.steps = c.steps;
    s.rhs_evals = c.rhs_evals;
    s.jac_evals = c.jac_evals;
    s.root_evals = c.root_evals;
    s.nonlinear_iters = c.nonlinear_iters;
    s.error_test_fails = c.error_test_fails;
    return s;
  }

  const Model& model;
  const bool has_massless = std::any_of(model.inertia.begin(), model.inertia.end(), [](double i) { return i == 0.0; });
  SimulationSettings settings;
  State state;
  ModeStructure ms;
  Workspace ws;
  std::vector<double> y;
  std::unique_ptr<CvodeIntegrator> cvode;
  std::vector<EventRecord> events;
  std::vector<double> time_stuck;  // (ne)
  double segment_start = 0.0;
  std::vector<double> recent;  // times of the latest events (storm watch)
  RunStats stats;
  std::string message;
  bool broken = false;  // an exception stopped advance_to mid-step: the state is not trusted until restore()
  bool inputs_changed = false;
  bool outputs_valid = false;
  std::vector<double> out_torque;       // (ne) cache of element outputs at state.t
  std::vector<std::int8_t> out_state;   // (ne)
  // Storage kept between events, so that handling one allocates nothing.
  State before;                      // modes before the event (log_changes)
  std::vector<int> arrived;          // friction elements whose slip velocity reached 0
  std::vector<BreakAway> exhausted;  // stuck elements whose reserve reached 0, unloading contacts
  std::vector<int> struck;           // rigid freeplays whose teeth just met
  std::vector<std::int8_t> struck_side;  // (ns) the side each was struck at
  ImpactWorkspace impact;            // the impact LCP's storage
  std::vector<int> candidates;       // elements the S-S selection decides
  std::vector<Link> links;           // their links
  LockedClusters locked;             // their clusters (velocity projection)
  ModeSelectionScratch selection;
  std::vector<int> directions;       // (max_root_count) root directions for CVODE
  BlockSampler sampler;              // sampled blocks: instants, counts (held outputs are in ws.inputs)
};

Simulator::Simulator(const Model& model) : Simulator(model, model.simulation) {}
namespace {
// The stepping API runs the event-driven solver; refuse what it cannot do
// before any state is built.
const SimulationSettings& event_driven_settings(const Model&, const SimulationSettings& settings) {
  if (settings.solver == "time_stepping")
    throw std::invalid_argument("Simulator runs the event-driven solver; solver time_stepping runs through simulate()");
  // The storm window is reserved up front (validate() bounds it for models from a file).
  if (settings.storm_events < 2 || settings.storm_events > kMaxStormEvents)
    throw std::invalid_argument("simulation.event_storm.events must be in [2, " + std::to_string(kMaxStormEvents) +
                                "] (got " + std::to_string(settings.storm_events) + ")");
  return settings;
}
}  // namespace

Simulator::Simulator(const Model& model, const SimulationSettings& settings)
    : impl_(std::make_unique<Impl>(model, event_driven_settings(model, settings))) {}
Simulator::~Simulator() = default;

// A stage that throws (a block's LCP without a solution, a CVODE callback,
// out of memory) stops the run as a solver failure with the exception's text;
// the state it left half updated is not trusted until restore().
StepStatus Simulator::advance_to(double t) {
  Impl& s = *impl_;
  if (!std::isfinite(t) || earlier(t, s.state.t)) {  // a few ulp before now is now (core/times.hpp)
    std::ostringstream os;
    os << "advance_to: t = " << t << " must be a finite time not before the simulator's time " << s.state.t;
    throw std::invalid_argument(os.str());
  }
  if (s.broken) return StepStatus::solver_failure;  // the message of the failure stays
  try {
    return s.advance_to(t);
  } catch (const std::exception& e) {
    s.stop_on_error(e);
    return StepStatus::solver_failure;
  }
}
const State& Simulator::state() const { return impl_->state; }
double Simulator::time() const { return impl_->state.t; }
const std::string& Simulator::message() const { return impl_->message; }
RunStats Simulator::stats() const { return impl_->collect_stats(); }
const std::vector<EventRecord>& Simulator::events() const { return impl_->events; }

std::vector<double> Simulator::time_stuck() const {
  std::vector<double> ts = impl_->time_stuck;
  for (int i : impl_->ms.stuck) ts[impl_->model.friction_element[i]] += impl_->state.t - impl_->segment_start;
  return ts;
}

void Simulator::element_outputs(std::vector<double>& torque, std::vector<std::int8_t>& state) const {
  impl_->evaluate_outputs(torque, state);
}

namespace {

std::string names_of(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? std::string("none") : s;
}

}  // namespace

InputId Simulator::input(const std::string& name) const {
  const Model& m = impl_->model;
  int k = m.input_id(name);
  if (k < 0) {  // a torque element driven by an input
    const int e = m.element_id(name);
    if (e >= 0 && m.element_kind[e] == ElementKind::torque) {
      const Signal& s = m.signals[m.loads[m.element_index[e]].signal];
      if (s.kind == Signal::Kind::input) k = s.input;
      else
        throw std::invalid_argument("torque element '" + name +
                                    "' is not driven by an input (declare signals: <name>: {input: 0} and use it as "
                                    "its torque)");
    }
  }
  if (k < 0) throw std::invalid_argument("no input '" + name + "' (the model's inputs: " + names_of(m.input_names) + ")");
  return {k};
}

void Simulator::set_input(InputId id, double value) {
  const Model& m = impl_->model;
  if (id.index < 0 || id.index >= static_cast<int>(m.inputs.size()))
    throw std::invalid_argument("set_input: unknown input id " + std::to_string(id.index));
  const Signal& decl = m.inputs[id.index];
  if (!std::isfinite(value) || value < decl.lower || value > decl.upper) {
    std::ostringstream os;
    os << "set_input: " << m.input_names[id.index] << " = " << value << " is not a number within [" << decl.lower
       << ", " << decl.upper << "]";
    throw std::invalid_argument(os.str());
  }
  double& held = impl_->ws.inputs[id.index];
  if (held == value) return;
  held = value;
  impl_->inputs_changed = true;
  impl_->outputs_valid = false;
}

double Simulator::input_value(InputId id) const { return impl_->ws.inputs.at(static_cast<std::size_t>(id.index)); }

OutputId Simulator::output(const std::string& name) const {
  const Model& m = impl_->model;
  const int k = m.input_id(name);
  if (k >= 0) return {OutputId::Kind::input, k};
  for (std::size_t b = 0; b < m.sampled.size(); ++b)  // a sampled block's held output
    if (m.sampled_names[b] == name) return {OutputId::Kind::input, m.sampled[b].input};
  const auto dot = name.find_last_of('.');
  if (dot != std::string::npos) {
    const std::string owner = name.substr(0, dot), what = name.substr(dot + 1);
    const int b = m.body_index(owner);
    if (b >= 0 && what == "angle") return {OutputId::Kind::angle, b};
    if (b >= 0 && what == "velocity") return {OutputId::Kind::velocity, b};
    const int e = m.element_id(owner);
    if (e >= 0 && what == "torque") return {OutputId::Kind::torque, e};
    if (e >= 0 && what == "state") return {OutputId::Kind::state, e};
  }
  throw std::invalid_argument("no output '" + name + "' (outputs are <body>.angle, <body>.velocity, "
                              "<element>.torque, <element>.state, an input's or a sampled block's name; bodies: " +
                              names_of(m.body_names) + "; elements: " + names_of(m.element_names) + ")");
}

double Simulator::value(OutputId id) const {
  Impl& s = *impl_;
  switch (id.kind) {
    case OutputId::Kind::angle: return s.state.q.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::velocity: return s.state.w.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::input: return s.ws.inputs.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::torque:
      s.refresh_outputs();
      return s.out_torque.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::state:
      s.refresh_outputs();
      return s.out_state.at(static_cast<std::size_t>(id.index));
  }
  return 0.0;
}

Snapshot Simulator::snapshot() {
  Impl& s = *impl_;
  if (s.broken) throw std::logic_error("snapshot: the simulator stopped on an error (" + s.message + "); restore an earlier snapshot");
  if (!s.apply_input_change()) s.restart();
  s.outputs_valid = false;
  Snapshot snap;
  snap.state = s.state;
  snap.inputs = s.ws.inputs;
  snap.samples_taken = s.sampler.counts();
  snap.time_stuck = s.time_stuck;
  snap.algebraic_q = s.ws.algebraic_q;
  snap.recent_events = s.recent;
  snap.segment_start = s.segment_start;
  snap.events = s.events.size();
  snap.stats = s.stats;
  return snap;
}

void Simulator::restore(const Snapshot& snap) {
  Impl& s = *impl_;
  if (snap.state.q.size() != s.state.q.size() || snap.inputs.size() != s.ws.inputs.size() ||
      snap.time_stuck.size() != s.time_stuck.size() || snap.state.friction_mode.size() != s.state.friction_mode.size() ||
      snap.samples_taken.size() != s.sampler.counts().size())
    throw std::invalid_argument("restore: the snapshot is of another model");
  s.state = snap.state;
  s.ws.inputs = snap.inputs;
  s.sampler.set_counts(snap.samples_taken);
  s.time_stuck = snap.time_stuck;
  s.ws.algebraic_q = snap.algebraic_q;
  s.recent = snap.recent_events;
  if (s.events.size() > snap.events) s.events.resize(snap.events);
  s.inputs_changed = false;
  s.outputs_valid = false;
  s.segment_start = snap.state.t;  // stuck time is booked up to the snapshot already
  s.restart();                     // the same fresh start as the snapshot made
  s.broken = false;
  s.message.clear();
  s.stats = snap.stats;
}

Result simulate(const Model& model) { return simulate(model, model.simulation); }

namespace {
Result simulate_event_driven(const Model& model, const SimulationSettings& settings) {
  const auto wall0 = std::chrono::steady_clock::now();
  Result r = labelled_result(model);
  Simulator sim(model, settings);
  const std::vector<double> grid = output_times(settings);
  std::vector<double> torque;
  std::vector<std::int8_t> est;
  auto sample = [&] {
    const State& s = sim.state();
    r.time.push_back(s.t);
    r.angle.insert(r.angle.end(), s.q.begin(), s.q.end());
    r.velocity.insert(r.velocity.end(), s.w.begin(), s.w.end());
    sim.element_outputs(torque, est);
    r.element_torque.insert(r.element_torque.end(), torque.begin(), torque.end());
    r.element_state.insert(r.element_state.end(), est.begin(), est.end());
    r.input_work.push_back(s.input_work);
    r.kinetic.push_back(kinetic_energy(model, s.w));
    r.elastic.push_back(elastic_energy(model, s.q));
    r.dissipated.push_back(s.dissipated);
    for (const Signal& b : model.sampled) r.block_output.push_back(sim.value({OutputId::Kind::input, b.input}));
  };
  r.status = sim.advance_to(settings.t_start);  // a failure while setting up at t_start: no sample
  if (r.status != StepStatus::reached_time) r.message = sim.message();
  else sample();
  for (std::size_t k = 1; k < grid.size() && r.status == StepStatus::reached_time; ++k) {
    r.status = sim.advance_to(grid[k]);
    if (r.status != StepStatus::reached_time) r.message = sim.message();
    else sample();
  }
  r.events = sim.events();
  r.time_stuck = sim.time_stuck();
  r.stats = sim.stats();
  r.stats.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}
}  // namespace

Result simulate(const Model& model, const SimulationSettings& settings) {
  Result r = settings.solver == "time_stepping" ? simulate_time_stepping(model, settings)
                                                : simulate_event_driven(model, settings);
  check_energy_balance(r);
  return r;
}

}  // namespace luztar
