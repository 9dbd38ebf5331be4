#pragma once
// Event-driven simulation of a Model with exact stick-slip and freeplay.
//
// Between stops an integrator (solvers/integrator.hpp; simulation.integrator:
// CVODE's BDF or Adams-Moulton) integrates the current modes; at every stop
// one event pipeline (solvers/event_pipeline.hpp) changes the structure. The
// state is plain data (SimData, solvers/sim_data.hpp), which is the snapshot.
//
// What happens at an event (a root of one of the mode's root functions, see
// solvers/dynamics.hpp, located by the integrator to its time tolerance):
//   t-  the integrator stops at the root; the state there is the end of the old structure.
//   1.  Freeplay sides of springs whose kink was crossed are switched.
//   2.  If a friction element was involved (slip velocity reached 0, or rather
//       crossed it by 1e-3 atol, see build_mode_structure; or a stuck
//       element's reserve reached 0), every friction element at zero relative
//       velocity (the stuck ones, the one that just arrived, any other within
//       atol) is a candidate. Their relative velocities are set exactly to 0 by
//       the momentum-conserving projection (the energy this removes, of the order
//       of the tolerance squared, is booked as dissipated and reported), and the
//       S-S procedure (solvers/mode_selection.hpp) picks stuck/slip for all of
//       them at once.
//   3.  Every element whose state changed is written to the event log
//       (time, element, kind, state before and after).
//   Rigid freeplays whose teeth meet are struck before step 2: the velocities
//   jump by the impulses of Poisson's restitution law (solvers/impacts.hpp).
//   The solvers of steps 2 and the impact report how they fared; a fallback
//   (Lemke after the box QP, PGS after Lemke) or a miss of the tolerance is
//   counted in RunStats (selection_fallbacks, selection_unsolved,
//   impact_fallbacks, impacts_unsolved), never dropped.
//   t+  the integrator is restarted at the same time in the new structure.
// Outputs are sampled on the fixed output grid only (never at event instants);
// the event log gives the exact instants. Signal discontinuities (steps, ramp
// corners, table knots) are integration stops: the integrator restarts there
// and the friction modes are checked again.
//
// No step of the integrator is longer than 1/64 of the shortest turning time of the
// model's signals (core/signal.hpp: a sine's period, ...), nor than
// simulation.max_step when set: a root function changes sign only at step
// ends as the integrator sees it, and while nothing moves the error test alone would
// let a step grow over a whole stick reserve window (a break-away and the
// return below the limit). So the results do not depend on the output grid or
// on how a host chops time. Instants are compared as in core/times.hpp: a
// target, a breakpoint and a sample instant a few ulp apart are one instant.
//
// advance_to() never throws for outcomes: it returns a status (reached time,
// event limit, event storm, solver failure) with a message. It prints nothing
// and does not allocate: workspaces are sized at construction, and the static
// splits and Delassus blocks of each structure are kept once met (the event
// log grows by doubling past 1024 entries).
//
// Embedding (a host loop stepping the model, e.g. at 1 kHz):
//   luztar::Model model = luztar::io::load_model("steering.yaml");  // shared, read-only
//   luztar::Simulator sim(model);
//   const auto torque = sim.input("driver_torque");     // names resolved once
//   const auto angle = sim.output("wheel.angle");
//   every step:  sim.set_input(torque, host_torque);    // held until set again
//                if (sim.advance_to(t_k) != StepStatus::reached_time) host_fault(sim.message());
//                publish(sim.value(angle));
// An input that changes is a jump in the forces, not in the state: at the next
// advance_to the stuck elements are checked against their new limits; if one
// is exceeded (or the model has massless bodies) the S-S selection runs and the
// integrator restarts there, as at a signal breakpoint; otherwise integration
// goes on. Setting the same value again costs nothing.
#include <memory>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"
#include "core/signal_paths.hpp"
#include "core/run_frame.hpp"
#include "core/state.hpp"
#include "solvers/element_outputs.hpp"
#include "solvers/sim_data.hpp"

namespace luztar {

// A named input resolved once (Simulator::input).
struct InputId {
  int index = -1;
};

// A named output resolved once (Simulator::output): a signal path of
// core/signal_paths.hpp, canonical ("bodies.<body>.angle" [rad],
// "elements.<element>.torque" [N m], "inputs.<input>", "blocks.<block>",
// "energy.kinetic" [J], ...) or a short name ("<body>.angle", "<body>.velocity",
// "<element>.torque", "<element>.state" (friction -1/0/+1 slip-/stuck/slip+,
// spring freeplay side), "<input>", a sampled block's name; an inline block
// answers to its field, e.g. "elements.motor.torque.saturation.of").
using OutputId = SignalPath;

// Everything a simulator needs to continue from a point in time: state, modes,
// input values, accounts, statistics (Simulator::snapshot / restore): the
// simulation's state itself, as one value (solvers/sim_data.hpp).
using Snapshot = SimData;

class Simulator {
 public:
  // Uses model.simulation for tolerances and limits; starts at t_start in a
  // consistent mode (the S-S selection runs at t_start too). Event-driven
  // only: throws std::invalid_argument for solver time_stepping (run that
  // through simulate()). Rigid freeplays run here: their impacts are events
  // (solvers/impacts.hpp), and teeth that touch join the S-S selection.
  explicit Simulator(const Model& model);
  Simulator(const Model& model, const SimulationSettings& settings);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Integrates to time t, handling every event in (now, t]. Throws
  // std::invalid_argument for a t that is not finite or before time(). An
  // exception from a stage of the step (a block's LCP without a solution, a
  // CVODE callback, out of memory) ends it with solver_failure and the
  // exception's text in message(), and so does a failure of the integrator
  // (a state no longer finite, CVODE's error test or convergence: "<integrator>
  // failed at t = ..."); the simulator then stays stopped (every advance_to
  // returns solver_failure with the same message and time, snapshot() throws
  // std::logic_error) until restore() of a snapshot taken before; its state
  // is the last finite one it reached (where the integrator failed). More
  // events than settings.max_events since t_start stop it likewise at the
  // event that passed the limit (every advance_to returns event_limit with
  // the same message and time, handling no event more), but in a sound state:
  // snapshot() works there, and restore() of an earlier snapshot goes on; and
  // so does an event storm (event_storm, at the event that made it).
  StepStatus advance_to(double t);

  const State& state() const;
  // Every body a Result reports, now, in the order and with the values it
  // records (Model::reported_body_names: the model's bodies, then the
  // bodies the reduction removed, each with the motion the model leaves it:
  // core/model.hpp RemovedBody, reported_bodies): angles [rad] (a translational body's position [m])
  // and velocities [rad/s] ([m/s]). state() holds the model's bodies alone.
  std::vector<double> body_angles() const;
  std::vector<double> body_velocities() const;
  double time() const;
  const std::string& message() const;  // why the last advance_to stopped early
  // Counters so far, and the energy balance from the initial condition to now
  // (energy_residual, energy_residual_exceeded: at the current state; a run's
  // Result reads every sample).
  RunStats stats() const;
  // What integrates between events: "exact", "cvode_bdf" or "cvode_adams"
  // (simulation.integrator, "auto" resolved; solvers/integrator.hpp).
  const char* integrator_name() const;
  const std::vector<EventRecord>& events() const;
  // Seconds each element has spent stuck so far (ne; 0 for non-friction elements).
  std::vector<double> time_stuck() const;

  // Element torques and states at the current time (Result conventions; ne each).
  void element_outputs(std::vector<double>& torque, std::vector<std::int8_t>& state) const;
  // Every element and body output at the current time (solvers/element_outputs.hpp),
  // valid until the simulator next changes.
  const OutputSample& outputs() const;

  // Resolves a named input (a signal declared {input: ...}, or a torque
  // element whose torque is such a signal). Throws std::invalid_argument
  // listing the inputs the model has.
  InputId input(const std::string& name) const;
  // Sets an input from now on (held). Throws std::invalid_argument for an
  // unknown id, a value that is not finite or outside the input's bounds.
  void set_input(InputId id, double value);
  double input_value(InputId id) const;
  // Diagnostics: with the exact integrator an input change that leaves every
  // mode consistent restarts without rebuilding the mode structure
  // (EventPipeline::restart_for_inputs; on by default). Off, it rebuilds it
  // as any restart does; the results are the same bit for bit.
  void set_input_fast_path(bool enabled);

  // Resolves a named output (see OutputId). Throws std::invalid_argument
  // ("no output '<name>' (...)" listing the paths and the model's names).
  OutputId output(const std::string& name) const;
  // Its value at the current time.
  double value(OutputId id) const;

  // The full state now, for rollback. Taking it restarts the integrator at
  // the current time (as an event does), so that continuing and restoring
  // both go on from the same fresh start: a restored run repeats the
  // continued one bit for bit.
  Snapshot snapshot();
  // Returns to a snapshot of a simulator of the same model; the event log is
  // cut back to its length then. (The snapshot holds no events: restored into
  // another simulator, that one's log goes on, without the earlier events.)
  void restore(const Snapshot& s);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Runs t_start -> t_end and samples every output_step, with the solver that
// settings.solver names (time_stepping: solvers/time_stepping.hpp). The
// energy balance at the last sample is booked in Result::stats
// (check_energy_balance, core/energy.hpp).
Result simulate(const Model& model);
Result simulate(const Model& model, const SimulationSettings& settings);
// Same, asking keep_going after every output sample (core/run_frame.hpp:
// false ends the run there with the samples so far).
Result simulate(const Model& model, const SimulationSettings& settings, const SampleHook& keep_going);

}  // namespace luztar
