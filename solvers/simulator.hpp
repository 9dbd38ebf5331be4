#pragma once
// Event-driven simulation of a Model with exact stick-slip and freeplay.
//
// What happens at an event (a root of one of the mode's root functions, see
// solvers/dynamics.hpp, located by CVODE to its time tolerance):
//   t-  CVODE stops at the root; the state there is the end of the old structure.
//   1.  Freeplay sides of springs whose kink was crossed are switched.
//   2.  If a friction element was involved (slip velocity reached 0, or a stuck
//       element's reserve reached 0), every friction element at zero relative
//       velocity (the stuck ones, the one that just arrived, any other within
//       atol) is a candidate. Their relative velocities are set exactly to 0 by
//       the momentum-conserving projection (the energy this removes, of the order
//       of the tolerance squared, is booked as dissipated and reported), and the
//       S-S procedure (solvers/mode_selection.hpp) picks stuck/slip for all of
//       them at once.
//   3.  Every element whose state changed is written to the event log
//       (time, element, kind, state before and after).
//   t+  CVODE is re-initialised at the same time in the new structure.
// Outputs are sampled on the fixed output grid only (never at event instants);
// the event log gives the exact instants. Signal discontinuities (steps, ramp
// corners, table knots) are integration stops: CVODE restarts there and the
// friction modes are checked again.
//
// advance_to() never throws for outcomes: it returns a status (reached time,
// event limit, event storm, solver failure) with a message.
#include <memory>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"
#include "core/state.hpp"

namespace luztar {

class Simulator {
 public:
  // Uses model.simulation for tolerances and limits; starts at t_start in a
  // consistent mode (the S-S selection runs at t_start too).
  explicit Simulator(const Model& model);
  Simulator(const Model& model, const SimulationSettings& settings);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Integrates to time t, handling every event in (now, t].
  StepStatus advance_to(double t);

  const State& state() const;
  double time() const;
  const std::string& message() const;  // why the last advance_to stopped early
  RunStats stats() const;
  const std::vector<EventRecord>& events() const;
  // Seconds each element has spent stuck so far (ne; 0 for non-friction elements).
  std::vector<double> time_stuck() const;

  // Element torques and states at the current time (Result conventions; ne each).
  void element_outputs(std::vector<double>& torque, std::vector<std::int8_t>& state) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Runs t_start -> t_end and samples every output_step.
Result simulate(const Model& model);
Result simulate(const Model& model, const SimulationSettings& settings);

}  // namespace luztar
