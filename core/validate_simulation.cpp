// The rules of the simulation settings: times, output grid, tolerances,
// limits on the run's size, and the solver and integrator choices.
#include <algorithm>

#include "core/model.hpp"
#include "core/run_frame.hpp"
#include "core/validate_common.hpp"

namespace luztar::validation {

namespace {

// Tolerances: rtol in (0, kMaxRtol], atol in (0, kMaxAtol]; larger ones make
// the integrator's error control meaningless (a "converged" step may be wrong
// by more than the state itself).
constexpr double kMaxRtol = 0.1;
constexpr double kMaxAtol = 1.0;

// lo < v <= hi.
void require_in(double v, double lo, double hi, const std::string& field) {
  require_finite(v, field);
  if (!(v > lo && v <= hi))
    throw ModelError(field, "must be in (" + show(lo) + ", " + show(hi) + "] (got " + show(v) + ")");
}

// A count lo <= n <= hi.
void require_count(long n, long lo, long hi, const std::string& field) {
  if (n < lo || n > hi)
    throw ModelError(field, "must be a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "] (got " + std::to_string(n) + ")");
}

// The output grid fits in memory: samples x values per sample <= kMaxStoredValues.
void require_stored_values(const SimulationSettings& sim, std::size_t bodies, std::size_t elements, bool drives) {
  const double samples = output_sample_count(sim);
  const double values = samples * stored_values_per_sample(bodies, elements, drives);
  if (!(values <= kMaxStoredValues))
    throw ModelError("simulation.output_step",
                     "(t_end - t_start) / output_step gives " + show(samples) + " output samples x " +
                         show(stored_values_per_sample(bodies, elements, drives)) + " values per sample = " + show(values) +
                         " stored values, more than the limit " + show(kMaxStoredValues) + " (got output_step " +
                         show(sim.output_step) + "; raise it or shorten the run)");
}

// time_stepping: 0 < step <= t_end - t_start, at most kMaxTimeSteps steps.
void require_step_count(const SimulationSettings& sim) {
  const double span = sim.t_end - sim.t_start;
  if (!(sim.step <= span))
    throw ModelError("simulation.step", "must be <= t_end - t_start = " + show(span) + " s (got " + show(sim.step) + ")");
  const double steps = span / sim.step;
  if (!(steps <= kMaxTimeSteps))
    throw ModelError("simulation.step", "(t_end - t_start) / step gives " + show(steps) + " steps, more than the limit " +
                                            show(kMaxTimeSteps) + " (got step " + show(sim.step) + ")");
}

}  // namespace

void validate_simulation(const ModelSpec& spec) {
  const SimulationSettings& sim = spec.simulation;
  require_finite(sim.t_start, "simulation.t_start");
  require_finite(sim.t_end, "simulation.t_end");
  if (!(sim.t_end > sim.t_start))
    throw ModelError("simulation.t_end", "must be later than t_start (got " + show(sim.t_end) + ")");
  require_positive(sim.output_step, "simulation.output_step");
  const bool drives = std::any_of(spec.bodies.begin(), spec.bodies.end(),
                                  [](const BodySpec& b) { return b.prescribed != BodySpec::Drive::none; });
  require_stored_values(sim, spec.bodies.size(), spec.elements.size(), drives);
  require_in(sim.rtol, 0.0, kMaxRtol, "simulation.rtol");
  require_in(sim.atol, 0.0, kMaxAtol, "simulation.atol");
  require_nonnegative(sim.max_step, "simulation.max_step");
  require_count(sim.max_events, 1, kMaxEvents, "simulation.max_events");
  require_count(sim.storm_events, 2, kMaxStormEvents, "simulation.event_storm.events");
  require_nonnegative(sim.storm_span, "simulation.event_storm.span");
  require_nonnegative(sim.rest_velocity, "simulation.rest_velocity");
  if (sim.linear_solver != "auto" && sim.linear_solver != "dense" && sim.linear_solver != "band")
    throw ModelError("simulation.linear_solver",
                     "must be one of auto, dense, band (got '" + sim.linear_solver + "')");
  if (sim.integrator != "auto" && sim.integrator != "exact" && sim.integrator != "cvode_bdf" &&
      sim.integrator != "cvode_adams")
    throw ModelError("simulation.integrator",
                     "must be one of auto, exact, cvode_bdf, cvode_adams (got '" + sim.integrator + "')");
  if (sim.solver != "event_driven" && sim.solver != "time_stepping")
    throw ModelError("simulation.solver", "must be event_driven or time_stepping (got '" + sim.solver + "')");
  if (sim.solver == "time_stepping") {
    if (sim.step == 0.0)
      throw ModelError("simulation.step", "solver time_stepping needs a step h [s] (e.g. step: 1.0e-4)");
    require_positive(sim.step, "simulation.step");
    require_step_count(sim);
    require_finite(sim.theta, "simulation.theta");
    if (sim.theta < 0.5 || sim.theta > 1.0)
      throw ModelError("simulation.theta", "must be in [0.5, 1] (got " + show(sim.theta) + ")");
  }
}

}  // namespace luztar::validation
