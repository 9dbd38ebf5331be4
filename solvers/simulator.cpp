#include "solvers/simulator.hpp"
#include "solvers/time_stepping.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "core/energy.hpp"
#include "core/number_text.hpp"
#include "core/run_frame.hpp"
#include "core/times.hpp"
#include "solvers/algebraic_bodies.hpp"
#include "solvers/dynamics.hpp"
#include "solvers/energy_quadratures.hpp"
#include "solvers/event_pipeline.hpp"
#include "solvers/integrator.hpp"
#include "solvers/mode_system.hpp"
#include "solvers/next_stop.hpp"
#include "solvers/output_map.hpp"
#include "solvers/sampling_loop.hpp"

namespace luztar {

namespace {

// Steps per turning time of the signals (solvers/simulator.hpp): a stick
// reserve window shorter than this fraction of a sine period (a sine of
// amplitude within 0.12 % of the limit, cos(pi / 64) = 0.9988) could still
// hide inside one step.
constexpr double kStepsPerTurn = 64.0;

// The longest integrator step [s]: simulation.max_step (0 = none) and the
// signals' turning times; 0 when neither bounds it.
double max_integrator_step(const Model& m, double user_max_step) {
  double turn = INFINITY;
  for (const Signal& s : m.signals) turn = std::min(turn, turning_time(s));
  double h = std::isfinite(turn) ? turn / kStepsPerTurn : 0.0;
  if (user_max_step > 0.0) h = h > 0.0 ? std::min(h, user_max_step) : user_max_step;
  return h;
}

IntegratorOptions integrator_options(const Model& m, const SimulationSettings& s) {
  IntegratorOptions o;
  o.size = 2 * m.num_bodies();
  o.quadratures = ModeSystem::quadrature_count(m);
  o.controlled_quadratures = 2;  // the global accounts steer the steps; the elements' shares follow them
  o.rtol = s.rtol;
  o.atol = s.atol;
  // the energies' absolute tolerance: what an angle error of atol costs under
  // the model's torques (at torques of 1e40 N m an absolute 1e-10 J would
  // stop CVODE at the first step where energy flows)
  o.quad_atol = s.atol * signal_scale(m);
  o.max_step = max_integrator_step(m, s.max_step);
  o.grid_step = s.output_step;
  o.max_substep = s.max_step;
  const int hb = jacobian_half_bandwidth(m);
  o.band = s.linear_solver == "band" || (s.linear_solver == "auto" && o.size > 64 && 2 * hb + 1 < o.size / 2);
  o.half_bandwidth = hb;
  return o;
}

// The simulation's state at t_start before the first stop (EventPipeline::start).
SimData initial_data(const Model& m, const SimulationSettings& s) {
  SimData d;
  d.inputs = m.initial_input_values();
  d.blocks = BlockSampler(m, s.t_start);
  d.time_stuck.assign(m.num_elements(), 0.0);
  d.algebraic_q = m.angle0;
  return d;
}

}  // namespace

// The simulator's parts: its state (SimData), scratch, the integrator of the
// segments between stops, and the event pipeline at the stops.
class Simulator::Impl {
 public:
  Impl(const Model& m, const SimulationSettings& s)
      : model(m), settings(s), data(initial_data(m, s)), ws(m), y(2 * m.num_bodies()),
        system(m, data.state, ms, ws, max_root_count(m)),
        affine(m, data.state, ms, ws, max_root_count(m)),
        integrator(make_integrator(resolve_integrator(m, s), {system, affine, slot_signals(m), data.inputs.data()},
                                   integrator_options(m, s))),
        pipeline(m, settings, {data, ws, ms, y, *integrator, log}) {
    bind_workspace();
    // A stage failing at t_start (a block's LCP, the S-S selection) is a run
    // outcome like one failing later: the simulator starts stopped, and
    // advance_to reports it (a bad model was refused before, by validate()).
    try {
      pipeline.start();
      record_start_energies();
    } catch (const std::exception& e) {
      stop_on_error(e);
    }
  }

  // The balance's base, as a run's sample 0 gives it (core/energy.hpp,
  // kinetic_at_start): the state after t_start's stop (an algebraic body
  // placed at its balance, teeth struck) with what that stop dissipated added back.
  void record_start_energies() {
    const State& st = data.state;
    kinetic0 = kinetic_energy(model, st.w) + st.dissipated - st.input_work;
    elastic0 = elastic_energy(model, st.q);
    const OutputSample& o = refresh_outputs();
    roundoff0 = energy_roundoff(o.torque.data(), o.relative.data(), model.num_elements());
    peak_energy = 0.0;
  }

  // The table of contents of a step: stops until the target.
  StepStatus advance_to(double target) {
    message.clear();
    if (over_event_limit()) return event_limit();  // stays stopped there: no event more
    if (storm_detected()) return StepStatus::event_storm;  // likewise (its events are still the last ones)
    outputs_valid = false;
    apply_input_change();
    enter_mode();
    while (earlier(data.state.t, target)) {
      const Integrator::Outcome outcome = segment(target);
      if (outcome == Integrator::Outcome::failure) return integrator_failed();
      at_stop(outcome, target);
      enter_mode();
      if (const StepStatus limit = limit_reached(); limit != StepStatus::reached_time) return limit;
    }
    return StepStatus::reached_time;
  }

  // Integrates from now towards the next stop (a breakpoint, a sample
  // instant, t_end or the target) in the current modes; the state where the
  // integrator stopped is synced into data.state.
  Integrator::Outcome segment(double target) {
    // A target at the same instant as the next stop (core/times.hpp) is that
    // stop. With inputs, the integrator never steps past the caller's time: an
    // input set there then acts from exactly there, with its history intact.
    const double stop = next_stop(model, data.blocks, settings.t_end, data.state.t, target);
    const double tout = same_time(target, stop) ? stop : std::min(target, stop);
    const double tstop = model.inputs.empty() ? stop : tout;
    double t = data.state.t;
    const Integrator::Outcome outcome = integrator->advance(tout, tstop, t, y.data());
    sync(t);
    return outcome;
  }

  // Where the integrator stopped: a root goes through the event pipeline;
  // then the blocks due sample, and one test decides whether the structure
  // may have changed (reselect and restart) or the integrator goes on.
  void at_stop(Integrator::Outcome outcome, double target) {
    double& t = data.state.t;
    // A stop only for a sample instant whose outputs did not change (a relay
    // holding its state) keeps the integrator's history.
    const bool instant_only = same_time(data.blocks.next_instant(), t) && !is_breakpoint(t) && !same_time(t, target);
    if (outcome == Integrator::Outcome::root) {
      // A root at the same instant as a breakpoint is at the breakpoint: the
      // jump is taken there (no stop can be placed a few ulp later).
      if (const double* bp = breakpoint_near(t)) t = *bp;
      energies_valid = false;
      pipeline.at_roots();
    }
    const bool resampled = pipeline.sample_blocks();
    // After a root the pipeline has just selected; otherwise a stuck element
    // over its limit or a missed strike is repaired here.
    if (resampled || is_breakpoint(t) || (outcome == Integrator::Outcome::stop_time && !instant_only) ||
        (outcome != Integrator::Outcome::root && (!pipeline.stuck_consistent() || pipeline.has_missed_strike()))) {
      energies_valid = false;
      pipeline.reselect();
    }
  }

  // The integrator failed (a state no longer finite, CVODE's error test or
  // convergence): the run stops as after a stage that threw, its state not
  // trusted until restore() (every advance_to answers the same, snapshot() throws).
  StepStatus integrator_failed() {
    std::ostringstream os;
    os << integrator->name() << " failed at t = " << shortest(data.state.t) << " s: " << integrator->last_error();
    message = os.str();
    broken = true;
    return StepStatus::solver_failure;
  }

  // The event limit and the event storm watch (reached_time: neither).
  StepStatus limit_reached() {
    if (over_event_limit()) return event_limit();
    return storm_detected() ? StepStatus::event_storm : StepStatus::reached_time;
  }

  // More events than simulation.max_events since t_start: the simulator stops
  // at the event that passed the limit and stays there (every advance_to
  // answers event_limit with the same message and time, handling no event
  // more), as a run does; the state is sound, so snapshot() works, and
  // restore() of a snapshot from before goes on from there.
  bool over_event_limit() const { return data.stats.events > settings.max_events; }
  StepStatus event_limit() {
    std::ostringstream os;
    os << "more than " << settings.max_events << " events (simulation.max_events) by t = " << shortest(data.state.t)
       << " s";
    message = os.str();
    return StepStatus::event_limit;
  }

  // After set_input: a jump of an applied torque or a friction limit. The
  // state stays continuous, the right-hand side jumps: every integrator
  // restarts there (CVODE's multistep history is of the old torques: carried
  // across the jump, BDF's error test failed at once and Adams lost 2000 times
  // its rtol). Where the jump changes the structure (a stuck element over its
  // new limit, or massless bodies whose branch depends on the forces) it is
  // handled like a breakpoint: S-S selection and a restart. Returns whether
  // it restarted (always, after a change).
  bool apply_input_change() {
    if (!data.inputs_changed) return false;
    data.inputs_changed = false;
    energies_valid = false;
    if (!pipeline.has_massless() && pipeline.stuck_consistent(true)) {
      // The structure stays: a restart with the new inputs, without
      // rebuilding the structure where nothing it depends on changed (exact
      // keeps its identified mode: the inputs are states of its exosystem).
      if (!input_fast_path || !pipeline.restart_for_inputs()) pipeline.restart();
      return true;
    }
    pipeline.reselect();
    return true;
  }

  // After a stage threw: the message, and no step until restore().
  void stop_on_error(const std::exception& e) {
    std::ostringstream os;
    os << "stopped by an error at t = " << shortest(data.state.t) << " s: " << e.what();
    message = os.str();
    broken = true;
  }

  // The workspace reads the simulation's inputs and algebraic angles in place.
  void bind_workspace() {
    ws.inputs = data.inputs;
    ws.algebraic_q = data.algebraic_q;
  }

  // State at the current time into the public State (angles, velocities, energy accounts).
  void sync(double t) {
    State& state = data.state;
    state.t = t;
    if (!model.driven_bodies.empty()) signal_values(model, t, ws);  // the drives' motion at t
    unpack(ms, y.data(), ws);
    if (pipeline.has_massless()) {  // velocities of massless bodies, angles of algebraic ones
      applied_forces(model, state, t, ws);
      algebraic_velocities(model, ws);
    }
    state.q = ws.q;
    state.w = ws.w;
    integrator->quadratures(t, energies.buffer());
    energies.store(state);
    energies_valid = false;
    note_energy_peak();
  }

  // The balance's terms now (check_energy), and their peak so far: a drive
  // cycle that ends at rest has terms of roundoff at its end (core/energy.hpp,
  // energy_peak).
  double note_energy_peak() {
    const State& st = data.state;
    energies_at_state();
    peak_energy = std::max({peak_energy, std::abs(st.input_work), std::abs(kinetic_now - kinetic0),
                            std::abs(elastic_now - elastic0), std::abs(st.dissipated)});
    return peak_energy;
  }

  // The kinetic and elastic energy at the state, once per state: each sync
  // takes them for the balance's peak, and a sample there reads them back.
  // A stage that moves the state (a root's pipeline, a reselection, an input
  // change, a restore) marks them stale.
  void energies_at_state() {
    if (energies_valid) return;
    kinetic_now = kinetic_energy(model, data.state.w);
    elastic_now = elastic_energy(model, data.state.q);
    energies_valid = true;
  }

  // Element and body outputs at the current state, computed once per time.
  const OutputSample& refresh_outputs() {
    if (outputs_valid) return out;
    evaluate_outputs(out);
    outputs_valid = true;
    return out;
  }

  // After a restart (a new structure, or the same one restarted): the output
  // maps file the mode's storage while its integrator files its own.
  void enter_mode() {
    if (data.stats.reinits == entered_at) return;
    entered_at = data.stats.reinits;
    output_maps.enter(data.state);
  }

  // Every output at the current state: through the mode's affine map when
  // it has one (solvers/output_map.hpp), else by the element tables.
  void evaluate_outputs(OutputSample& o) {
    signal_values(model, data.state.t, ws);
    output_maps.outputs(data.state, ws.sigma.data(), tables, o, !broken && data.stats.reinits == entered_at);
  }

  // The element tables at (q, w, sigma) in the current modes: forces and
  // static friction, then every output (and the maps' probes).
  void tables_at(const double* q, const double* w, const double* sigma, OutputSample& o) {
    const State& s = data.state;
    std::copy(q, q + model.num_bodies(), ws.q.begin());
    std::copy(w, w + model.num_bodies(), ws.w.begin());
    if (sigma != ws.sigma.data()) std::copy(sigma, sigma + ws.sigma.size(), ws.sigma.begin());
    static_torques(model, s, ms, ws);
    o.resize(model);
    luztar::element_outputs(model, s, ws, o.torque.data(), o.state.data());
    element_coordinates(coordinate_rows, q, w, o.relative.data(), o.rate.data());
    element_powers(model, o.torque.data(), o.rate.data(), o.power.data());
    o.dissipated = s.element_dissipated;
    body_accelerations(model, ms, ws, o.acceleration.data());
    drive_torques(model, ws, o.drive_torque);
  }

  // Breakpoints are compared as instants (core/times.hpp): t a few ulp off
  // one is at it.
  bool is_breakpoint(double t) const { return breakpoint_near(t) != nullptr; }
  // The breakpoint at the same instant as t, or null.
  const double* breakpoint_near(double t) const { return instant_near(model.breakpoints, t); }

  bool storm_detected() {
    const std::vector<double>& recent = data.recent_events;
    if (static_cast<int>(recent.size()) < settings.storm_events) return false;
    if (recent.back() - recent.front() > settings.storm_span) return false;
    std::ostringstream os;
    os << "event storm: " << settings.storm_events << " events within " << shortest(recent.back() - recent.front())
       << " s (limit simulation.event_storm: " << settings.storm_events << " events in "
       << shortest(settings.storm_span) << " s) at t = " << shortest(data.state.t) << " s; last elements involved:";
    std::vector<int> seen;
    for (auto it = log.rbegin(); it != log.rend() && seen.size() < 4; ++it)
      if (std::find(seen.begin(), seen.end(), it->element) == seen.end()) {
        seen.push_back(it->element);
        os << " " << model.element_names[it->element] << " (" << to_string(it->kind) << ")";
      }
    message = os.str();
    return true;
  }

  RunStats collect_stats() const {
    RunStats s = data.stats;
    const IntegratorCounters c = integrator->counters();
    s.steps = counted.steps + c.steps;
    s.rhs_evals = counted.rhs_evals + c.rhs_evals;
    s.jac_evals = counted.jac_evals + c.jac_evals;
    s.root_evals = counted.root_evals + c.root_evals;
    s.nonlinear_iters = counted.nonlinear_iters + c.nonlinear_iters;
    s.error_test_fails = counted.error_test_fails + c.error_test_fails;
    return s;
  }
  // The integrator's counters as a restore set them: those of the snapshot,
  // less what the integrator had counted then (collect_stats adds them on).
  void count_from(const RunStats& snap) {
    const IntegratorCounters c = integrator->counters();
    counted = {snap.steps - c.steps,           snap.rhs_evals - c.rhs_evals,
               snap.jac_evals - c.jac_evals,   snap.root_evals - c.root_evals,
               snap.nonlinear_iters - c.nonlinear_iters, snap.error_test_fails - c.error_test_fails};
  }
  IntegratorCounters counted;  // (count_from)

  // The energy balance from the initial condition to now (core/energy.hpp),
  // against the largest term at the stops so far: an embedded loop has no
  // Result whose samples could be checked (a run's check reads them all).
  // Not after a stage threw: its state may be unfinished (the error is the flag).
  void check_energy(RunStats& s) {
    if (broken) return;
    const State& st = data.state;
    const OutputSample& o = refresh_outputs();
    const double roundoff = energy_roundoff(o.torque.data(), o.relative.data(), model.num_elements());
    energies_at_state();
    const double kinetic_change = kinetic_now - kinetic0, elastic_change = elastic_now - elastic0;
    const EnergyBalance b = energy_balance(st.input_work, kinetic_change, elastic_change, st.dissipated,
                                           std::max(kinetic0 + elastic0, note_energy_peak()), std::max(roundoff0, roundoff));
    s.energy_residual = b.relative;
    s.energy_residual_exceeded = !(b.relative <= energy_residual_limit(integrator->name()));  // NaN is flagged too
  }

  const Model& model;
  const SimulationSettings settings;
  SimData data;                      // the state (the snapshot)
  Workspace ws;                      // scratch of evaluations (views data.inputs, data.algebraic_q)
  ModeStructure ms;                  // derived from data.state.modes at each restart
  std::vector<double> y;             // (2 nb) the integrator's reduced state
  ModeSystem system;                 // the equations the integrator sees (CVODE)
  ExactModeSystem affine;            // the same over the signal slots (exact); data.inputs keeps its storage
  std::unique_ptr<Integrator> integrator;  // between stops (solvers/integrator.hpp)
  std::vector<EventRecord> log;      // the event log
  EventPipeline pipeline;            // at stops (solvers/event_pipeline.hpp)
  std::string message;
  bool input_fast_path = true;  // EventPipeline::restart_for_inputs after an input change (set_input_fast_path)
  bool broken = false;  // a stage threw or the integrator failed: the state is not trusted until restore()
  double kinetic0 = 0.0, elastic0 = 0.0, roundoff0 = 0.0;  // [J] the energy balance's base (record_start_energies)
  double peak_energy = 0.0;  // [J] the largest term of the balance at the checks so far (check_energy)
  bool outputs_valid = false;
  double kinetic_now = 0.0, elastic_now = 0.0;  // [J] at the state, when energies_valid (energies_at_state)
  bool energies_valid = false;
  OutputSample out;                     // cache of the outputs at state.t
  const std::vector<ElementCoordinate> coordinate_rows = element_coordinate_rows(model);  // (tables_at)
  OutputMaps output_maps{model, signal_slot_count(model),
                         settings.output_maps && std::strcmp(integrator->name(), "exact") == 0};
  long entered_at = -1;  // data.stats.reinits when the maps last heard of a restart (enter_mode)
  const OutputMaps::Evaluate tables = [this](const double* q, const double* w, const double* sigma, OutputSample& o) {
    tables_at(q, w, sigma, o);
  };
  EnergyQuadratures energies{model};  // the integrator's quadratures, read at each sync
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

// A stage that throws (a block's LCP without a solution, an integrator callback,
// out of memory) stops the run as a solver failure with the exception's text,
// and so does a failure of the integrator (Impl::integrator_failed); the state
// left half updated is not trusted until restore().
StepStatus Simulator::advance_to(double t) {
  Impl& s = *impl_;
  if (!std::isfinite(t) || earlier(t, s.data.state.t)) {  // a few ulp before now is now (core/times.hpp)
    std::ostringstream os;
    os << "advance_to: t = " << t << " must be a finite time not before the simulator's time " << s.data.state.t;
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
const State& Simulator::state() const { return impl_->data.state; }
std::vector<double> Simulator::body_angles() const {
  std::vector<double> q;
  append_reported_bodies(impl_->model, impl_->data.state.q, {}, q);
  return q;
}
std::vector<double> Simulator::body_velocities() const {
  std::vector<double> w;
  append_reported_bodies(impl_->model, impl_->data.state.q, impl_->data.state.w, w);
  return w;
}
double Simulator::time() const { return impl_->data.state.t; }
const std::string& Simulator::message() const { return impl_->message; }
RunStats Simulator::stats() const {
  RunStats s = impl_->collect_stats();
  impl_->check_energy(s);
  return s;
}
const char* Simulator::integrator_name() const { return impl_->integrator->name(); }
const std::vector<EventRecord>& Simulator::events() const { return impl_->log; }

std::vector<double> Simulator::time_stuck() const {
  const SimData& d = impl_->data;
  std::vector<double> ts = d.time_stuck;
  for (int e : impl_->ms.held_elements) ts[e] += d.state.t - d.segment_start;
  return ts;
}

void Simulator::element_outputs(std::vector<double>& torque, std::vector<std::int8_t>& state) const {
  const OutputSample& o = impl_->refresh_outputs();
  torque = o.torque;
  state = o.state;
}

const OutputSample& Simulator::outputs() const { return impl_->refresh_outputs(); }

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
  double& held = impl_->data.inputs[id.index];
  if (held == value) return;
  held = value;
  impl_->data.inputs_changed = true;
  impl_->outputs_valid = false;
}

void Simulator::set_input_fast_path(bool enabled) { impl_->input_fast_path = enabled; }

double Simulator::input_value(InputId id) const { return impl_->data.inputs.at(static_cast<std::size_t>(id.index)); }

OutputId Simulator::output(const std::string& name) const {
  return resolve_signal_path(impl_->model, name, SignalNames::with_aliases, "output");
}

double Simulator::value(OutputId id) const {
  Impl& s = *impl_;
  switch (id.kind) {
    case OutputId::Kind::angle: return reported_body_value(s.model, s.data.state.q.data(), nullptr, id.index);
    case OutputId::Kind::velocity:
      return reported_body_value(s.model, s.data.state.q.data(), s.data.state.w.data(), id.index);
    case OutputId::Kind::input: return s.data.inputs.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::torque: return s.refresh_outputs().torque.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::state: return s.refresh_outputs().state.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::relative_angle: return s.refresh_outputs().relative.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::relative_velocity: return s.refresh_outputs().rate.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::power: return s.refresh_outputs().power.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::element_dissipated:
      return s.data.state.element_dissipated.at(static_cast<std::size_t>(id.index));
    case OutputId::Kind::acceleration:
      return s.refresh_outputs().acceleration.at(static_cast<std::size_t>(id.index));  // (reported bodies)
    case OutputId::Kind::drive_torque: {
      const std::vector<double>& r = s.refresh_outputs().drive_torque;
      return r.empty() ? 0.0 : r.at(static_cast<std::size_t>(id.index));
    }
    case OutputId::Kind::input_work: return s.data.state.input_work;
    case OutputId::Kind::kinetic: return s.energies_at_state(), s.kinetic_now;
    case OutputId::Kind::elastic: return s.energies_at_state(), s.elastic_now;
    case OutputId::Kind::dissipated: return s.data.state.dissipated;
  }
  return 0.0;
}

Snapshot Simulator::snapshot() {
  Impl& s = *impl_;
  if (s.broken) throw std::logic_error("snapshot: the simulator stopped on an error (" + s.message + "); restore an earlier snapshot");
  if (!s.apply_input_change()) s.pipeline.restart();
  s.outputs_valid = false;
  s.energies_valid = false;
  s.data.events = s.log.size();
  Snapshot snap = s.data;
  snap.stats = s.collect_stats();  // (with the integrator's counters: a restore goes on from them)
  return snap;
}

void Simulator::restore(const Snapshot& snap) {
  Impl& s = *impl_;
  const SimData& d = s.data;
  if (snap.state.q.size() != d.state.q.size() || snap.inputs.size() != d.inputs.size() ||
      snap.time_stuck.size() != d.time_stuck.size() || snap.state.friction_mode.size() != d.state.friction_mode.size() ||
      snap.blocks.counts().size() != d.blocks.counts().size() || snap.algebraic_q.size() != d.algebraic_q.size())
    throw std::invalid_argument("restore: the snapshot is of another model");
  s.data = snap;
  s.bind_workspace();
  s.data.inputs_changed = false;
  s.data.segment_start = snap.state.t;  // stuck time is booked up to the snapshot already
  if (s.log.size() > snap.events) s.log.resize(snap.events);
  s.outputs_valid = false;
  s.energies_valid = false;
  s.entered_at = -1;     // (the snapshot's restart count: the maps hear of this mode afresh)
  s.pipeline.restart();  // the same fresh start as the snapshot made
  s.broken = false;
  s.message.clear();
  s.data.stats = snap.stats;  // the restart's counts are the snapshot's
  s.count_from(snap.stats);    // and so are the integrator's (they went on from the later state)
}

Result simulate(const Model& model) { return simulate(model, model.simulation); }

namespace {

// The Simulator as the sampling loop (solvers/sampling_loop.hpp) drives it.
class EventDrivenRun {
 public:
  EventDrivenRun(const Model& model, const SimulationSettings& settings) : model_(model), sim_(model, settings) {}
  StepStatus advance_to(double t) { return sim_.advance_to(t); }
  const std::string& message() const { return sim_.message(); }
  void sample(double, Result& r) {
    const State& s = sim_.state();
    r.time.push_back(s.t);
    append_reported_bodies(model_, s.q, {}, r.angle);
    append_reported_bodies(model_, s.q, s.w, r.velocity);
    append_sample(sim_.outputs(), r);
    r.input_work.push_back(s.input_work);
    r.kinetic.push_back(sim_.value({OutputId::Kind::kinetic, -1}));  // (computed at the sync already)
    r.elastic.push_back(sim_.value({OutputId::Kind::elastic, -1}));
    r.dissipated.push_back(s.dissipated);
    for (const Signal& b : model_.sampled) r.block_output.push_back(sim_.value({OutputId::Kind::input, b.input}));
  }
  // The event log, stuck times, statistics and integrator of the run.
  void finish(Result& r) const {
    r.events = sim_.events();
    r.time_stuck = sim_.time_stuck();
    r.stats = sim_.stats();
    r.integrator = sim_.integrator_name();
  }

 private:
  const Model& model_;
  Simulator sim_;
};

// A failure while setting up at t_start leaves no sample.
Result simulate_event_driven(const Model& model, const SimulationSettings& settings, const SampleHook& keep_going) {
  const auto wall0 = std::chrono::steady_clock::now();
  Result r = labelled_result(model);
  EventDrivenRun run(model, settings);
  sample_on_grid(run, output_times(settings), r, keep_going);
  run.finish(r);
  r.stats.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

// One run by the settings' solver and integrator, its energy balance checked.
Result simulate_once(const Model& model, const SimulationSettings& settings, const SampleHook& keep_going) {
  Result r = settings.solver == "time_stepping" ? simulate_time_stepping(model, settings, keep_going)
                                                : simulate_event_driven(model, settings, keep_going);
  if (settings.solver == "time_stepping") r.integrator = "moreau_jean";
  check_energy_balance(r);
  return r;
}

// Why auto's exact run r must be repeated with cvode_bdf, "" when it stands:
// exact stopped with an error (a mode it cannot serve, or a failure of its
// own: a state no longer finite, where a growing mode ran past an event it
// missed), or its energy self-check failed (its residual is roundoff,
// core/energy.hpp; not a fall of the dissipated energy alone, no integrator's). The whole run is repeated: a switch mid-run would splice
// two integrators' roundoff. A failure CVODE shares is CVODE's to report.
std::string exact_unfit(const Result& r) {
  if (r.status == StepStatus::solver_failure)  // ("exact failed at ..." or "stopped by an error at ...")
    return r.message.rfind("exact", 0) == 0 ? r.message : "exact " + r.message;
  if (r.status != StepStatus::reached_time || !r.stats.energy_residual_exceeded) return "";
  // Flagged by a fall of the dissipated energy alone (core/energy.hpp): an
  // impulse made energy, which cvode_bdf would strike the same; the warning names it.
  if (r.stats.energy_residual <= kExactEnergyResidualLimit) return "";
  std::ostringstream why;
  why.precision(3);
  why << "exact's energy self-check failed (relative residual " << r.stats.energy_residual << " > "
      << kExactEnergyResidualLimit << ")";
  return why.str();
}

}  // namespace

Result simulate(const Model& model, const SimulationSettings& settings) { return simulate(model, settings, {}); }

Result simulate(const Model& model, const SimulationSettings& settings, const SampleHook& keep_going) {
  Result r = simulate_once(model, settings, keep_going);
  if (settings.integrator != "auto" || r.integrator != std::string("exact")) return r;
  const std::string why = exact_unfit(r);
  if (why.empty()) return r;
  SimulationSettings cvode = settings;
  cvode.integrator = "cvode_bdf";
  const double exact_wall_time = r.stats.wall_time;
  r = simulate_once(model, cvode, keep_going);
  r.stats.wall_time += exact_wall_time;
  r.integrator_note = "auto ran cvode_bdf, since " + why;
  return r;
}

}  // namespace luztar
