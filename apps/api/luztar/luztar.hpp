#pragma once
// luztar C++ API: drivetrains with freeplay (backlash) and dry friction
// (stick-slip), simulated exactly. The one header an embedding program
// includes; every type is opaque (the library's internals stay inside
// libluztar). Link luztar::luztar (CMake) or `pkg-config --libs luztar`.
//
//   namespace lz = luztar::api;
//   const lz::Model model = lz::Model::load("steering.yaml");   // throws lz::Error "file:line:col: field: ..."
//   const lz::Result run = model.simulate();                    // t_start -> t_end, sampled every output_step
//   const std::vector<double> phi = run.signal("bodies.road_wheels.angle");
//   run.write_hdf5("steering.h5");
//
//   lz::Simulator sim(model);                                   // a host loop stepping the model
//   const lz::Input torque = sim.input("driver_torque");        // names resolved once
//   const lz::Output angle = sim.output("bodies.road_wheels.angle");
//   each 1 ms:  sim.set_input(torque, host_torque);             // held until set again
//               if (sim.advance_to(t_k) != lz::Status::reached_time) fault(sim.message());
//               publish(sim.value(angle));
//
// Units are SI: rad, rad/s, rad/s^2, N m, W, J, s. Signals are named by path
// (README, "Signal paths"): bodies.<body>.angle|velocity|acceleration|drive_torque,
// elements.<element>.torque|state|relative_angle|relative_velocity|power|dissipated,
// inputs.<input>, blocks.<block>, energy.input_work|kinetic|elastic|dissipated;
// the stepping Simulator also takes the short names <body>.angle, <element>.power,
// <input>, ... Errors: a model that breaks a rule throws luztar::api::Error; a bad
// argument (unknown name, value out of bounds, time backwards) throws
// std::invalid_argument; a run that stops early is not an exception but a Status
// with a message. Nothing is printed.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "luztar/version.hpp"

// Exported from libluztar. libluztar_c compiles the facade into itself, hidden
// (LUZTAR_FACADE_HIDDEN), so that the C library stays one self-contained file.
#if defined(LUZTAR_FACADE_HIDDEN)
#define LUZTAR_PUBLIC
#else
#define LUZTAR_PUBLIC __attribute__((visibility("default")))
#endif

namespace luztar::api {

// The library's version, e.g. "0.1.0" (the same as luztar::kVersion).
LUZTAR_PUBLIC const char* version();

// A model file or text that breaks a rule. what() is
// "file:line:col: field: detail" (the parts known), e.g.
//   steering.yaml:73:16: elements.tie_rods.stiffness: must be >= 0 or .inf (got -3)
class LUZTAR_PUBLIC Error : public std::runtime_error {
 public:
  Error(const std::string& what, std::string file, int line, int column, std::string field, std::string detail);
  const std::string& file() const { return file_; }      // "" when the model came from text without a name
  int line() const { return line_; }                     // 1-based; 0 when unknown
  int column() const { return column_; }                 // 1-based; 0 when unknown
  const std::string& field() const { return field_; }    // dotted path, e.g. "elements.tie_rods.stiffness"
  const std::string& detail() const { return detail_; }  // the value and the rule it breaks

 private:
  std::string file_;
  int line_ = 0, column_ = 0;
  std::string field_, detail_;
};

// A model field replaced before the model is read, as a sweep varies it: `path`
// is the field's dotted path in the file ("elements.mesh.freeplay"; inside a
// signal the kind may be left out: "signals.drive.amplitude"), `value` its new
// YAML text ("0.02", "[0, 1]").
struct LUZTAR_PUBLIC Override {
  Override(std::string path_, std::string yaml_value) : path(std::move(path_)), value(std::move(yaml_value)) {}
  Override(std::string path_, double number);  // the number, written exactly (17 significant digits)
  std::string path;
  std::string value;
};

// How a run or an advance_to call ended.
enum class Status {
  reached_time,    // done
  event_limit,     // stopped early: more events than simulation.max_events since t_start (stays stopped there)
  event_storm,     // stopped early: events accumulate (simulation.event_storm; stays stopped there)
  solver_failure,  // stopped early: the integrator or another stage failed (message() says which)
};
LUZTAR_PUBLIC const char* to_string(Status s);  // "reached_time", ...

// What changed at an event.
struct Event {
  double time = 0.0;     // [s], exact (located by the integrator to its tolerance)
  std::string element;   // the element's name
  std::string kind;      // stick, break_away, reversal, contact, separation, impact, stage, lock, overrun,
                         // power_flow
  int before = 0;        // element state before: friction -1/0/+1 slip-/stuck/slip+,
  int after = 0;         // spring -1/0/+1 freeplay side (0: inside the gap),
                         // one-way clutch 0 locked, its overrun direction +1/-1 overrunning,
                         // lossy gear 0 stuck, s forward, 2 s back-driven (s = sgn w_a)
};

// Counters of a run or of a simulator so far.
struct Stats {
  long steps = 0, rhs_evals = 0, jac_evals = 0, root_evals = 0;  // integrator work
  long events = 0;              // event instants handled
  long reinits = 0;             // integrator restarts (events, signal breakpoints, snapshots)
  long impacts = 0;             // impact instants of rigid freeplays
  long selection_fallbacks = 0, selection_unsolved = 0;  // stick/slip selections re-solved / missing tolerance
  long impact_fallbacks = 0, impacts_unsolved = 0;       // impacts re-solved / missing tolerance
  double energy_residual = 0.0;  // relative energy residual at the last sample (a Simulator: from the start to now; README "Energy balance")
  double wall_time = 0.0;        // [s] (runs only)
  bool energy_residual_exceeded = false;  // energy_residual above the integrator's limit: the results are suspect
};

class Result;
class Simulator;

// A model, read and checked once, read-only afterwards. Copies are cheap and
// share it; one model serves any number of simulators, on any threads.
class LUZTAR_PUBLIC Model {
 public:
  // Reads a model file (table files resolve against its folder), with fields
  // replaced first. Throws Error (a rule broken, a file that cannot be read,
  // an override naming no field).
  static Model load(const std::string& path, const std::vector<Override>& overrides = {});
  // The same from YAML text; `origin` names it in messages, `base_dir` resolves
  // table files. Throws Error.
  static Model parse(const std::string& yaml, const std::vector<Override>& overrides = {},
                     const std::string& origin = "<text>", const std::string& base_dir = ".");

  const std::string& name() const;            // the file's `name:` ("" when absent)
  // The bodies: those the exact reductions keep, then those they removed,
  // merged or eliminated (README, "Massless bodies and rigid connections"),
  // in the order of a Result's, each with its bodies.<body>.* outputs.
  std::vector<std::string> bodies() const;
  std::vector<std::string> elements() const;  // element names, in file order
  std::vector<std::string> inputs() const;    // named inputs, settable by a Simulator
  std::vector<std::string> outputs() const;   // every signal path of the model (README, "Signal paths")
  double t_start() const;                     // simulation.t_start [s]
  double t_end() const;                       // simulation.t_end [s]

  // Runs t_start -> t_end with the model's settings (either solver), sampling
  // every output_step. A run that stops early (event limit, solver failure)
  // is not an exception: it returns what it has, with Result::status and message.
  Result simulate() const;

  struct Impl;

 private:
  explicit Model(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
  friend class Simulator;
};

// A finished run: samples on the output grid, the event log, status, counters.
class LUZTAR_PUBLIC Result {
 public:
  Status status() const;                    // how the run ended
  const std::string& message() const;       // why the run stopped early ("" when it did not)
  const std::vector<double>& time() const;  // (nt) sample instants [s]
  // The recorded signal paths: bodies, elements, blocks, energies (no inputs).
  std::vector<std::string> signals() const;
  // The values of the signal at `path` at every sample (nt), in its unit.
  // Throws std::invalid_argument for a path that is not recorded, listing those that are;
  // for inputs.<input> of the model, that a run records no inputs and what it records of
  // their effect (a torque element's elements.<element>.torque, energy.input_work).
  std::vector<double> signal(const std::string& path) const;
  std::vector<Event> events() const;  // the event log, in time order
  Stats stats() const;                // the run's counters and wall time
  // Writes the run (with the model text) as HDF5 (README, "Results (HDF5)") or
  // CSV, atomically: the file appears whole or not at all. Throws std::runtime_error.
  void write_hdf5(const std::string& path) const;
  void write_csv(const std::string& path) const;

  struct Impl;

 private:
  explicit Result(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
  friend class Model;
};

// An input or output resolved once by a Simulator; valid for every simulator
// of the same model. An input is its position in Model::inputs().
class Input {
 public:
  Input() = default;
  explicit Input(int position) : index_(position) {}
  int position() const { return index_; }

 private:
  int index_ = -1;
};
class Output {
 public:
  // The same output (however it was named: a path or its short name).
  friend bool operator==(const Output& a, const Output& b) { return a.kind_ == b.kind_ && a.index_ == b.index_; }

 private:
  int kind_ = -1, index_ = -1;
  friend class Simulator;
};

// The state of a simulator at one time, for rollback (Simulator::snapshot).
class LUZTAR_PUBLIC Snapshot {
 public:
  Snapshot() = default;  // empty: Simulator::restore of it throws std::invalid_argument
  double time() const;   // [s]; NaN when empty
  struct Impl;

 private:
  explicit Snapshot(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
  friend class Simulator;
};

// Steps a model from a host loop (event-driven solver). Starts at t_start in a
// consistent stick/slip mode. Not copyable; movable (a moved-from Simulator
// throws std::logic_error from every call but destruction and assignment).
class LUZTAR_PUBLIC Simulator {
 public:
  // Keeps the model alive. Throws std::invalid_argument for a model whose
  // simulation.solver is time_stepping (run that with Model::simulate).
  explicit Simulator(const Model& model);
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  // A named input (a signal declared {input: ...}, or a torque element driven by
  // one). Throws std::invalid_argument listing the model's inputs.
  Input input(const std::string& name) const;
  // Sets an input from now on (held until set again). Throws
  // std::invalid_argument for an input the model has not, a value not finite
  // or outside the input's bounds.
  void set_input(Input input, double value);
  // A signal path or short name. Throws std::invalid_argument listing the paths.
  Output output(const std::string& path) const;
  // The output's value now, in its unit.
  double value(Output output) const;

  // Integrates to time t [s], handling every event in (time(), t]. Returns
  // reached_time, or why it stopped early (message() says more). A stop is
  // final until restore(): after solver_failure (the state where it failed,
  // the last finite one reached, not trusted: snapshot() throws) and after
  // event_limit (at the event that passed simulation.max_events, a sound
  // state: snapshot() works) and event_storm (at the event that made it,
  // likewise) every call answers the same status, message and time() and
  // handles no event more. Throws std::invalid_argument for t not
  // finite, before time() or after t_end.
  Status advance_to(double t);
  double time() const;                     // [s]
  const std::string& message() const;      // why the last advance_to stopped early
  Stats stats() const;                     // counters and the energy balance so far
  std::vector<Event> events() const;       // every event so far, in time order
  std::size_t event_count() const;         // events().size(), without copying the log

  // The state now. Taking it restarts the integrator here (as an event does), so
  // that restore() and then advancing repeats the continued run bit for bit.
  // Throws std::logic_error after a solver failure.
  Snapshot snapshot();
  // Back to a snapshot of a simulator of the same model (the event log is cut
  // back to its length then). Throws std::invalid_argument for another model's.
  void restore(const Snapshot& snapshot);

  struct Impl;

 private:
  Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace luztar::api
