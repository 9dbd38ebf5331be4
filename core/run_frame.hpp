#pragma once
// What every solver's run shares before it computes anything: the output
// instants and a Result labelled with the model's names (solvers/simulator
// and solvers/time_stepping fill it the same way).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"

namespace luztar {

// Limits on the size of a run, checked by validate() before anything is
// allocated (README, "Limits").
inline constexpr double kMaxTimeSteps = 1e9;  // time_stepping: (t_end - t_start) / step
inline constexpr double kMaxSampleInstants = 1e9;  // each sampled block: (t_end - t_start) / period
// Stored output values: samples on the output grid x values per sample
// (stored_values_per_sample); 1e8 doubles are 0.8 GB.
inline constexpr double kMaxStoredValues = 1e8;
inline constexpr long kMaxEvents = 1000000000;  // simulation.max_events
inline constexpr long kMaxStormEvents = 1000000;  // simulation.event_storm.events (kept in memory)

// Values stored per output sample: time, input work, kinetic, elastic and
// dissipated energy, an angle, a velocity and an acceleration per body (and
// a drive torque per body when the model prescribes a motion: `drives`), a
// torque, a state, a relative angle and velocity, a power and a dissipated
// energy per element (sampled blocks' outputs not counted).
inline double stored_values_per_sample(std::size_t bodies, std::size_t elements, bool drives = false) {
  return 5.0 + (drives ? 4.0 : 3.0) * static_cast<double>(bodies) + 6.0 * static_cast<double>(elements);
}

// At most the number of samples of the output grid (output_times), computed
// without allocating and without overflow; +inf for a grid that is not one
// (t_end <= t_start, output_step <= 0, NaN, overflow).
double output_sample_count(const SimulationSettings& s);

// t_start, t_start + output_step, ... up to t_end, and t_end itself when the
// grid does not land on it; a grid point at the same instant as t_end
// (core/times.hpp) is t_end. Throws std::invalid_argument for a degenerate
// grid or one of more than kMaxStoredValues samples (settings that did not
// pass validate()).
std::vector<double> output_times(const SimulationSettings& s);

// Asked by a run after every output sample but the last, with the sample's time [s]:
// false ends the run there (a host's interrupt, e.g. Ctrl-C in Python). The
// Result then holds the samples up to that time, status reached_time and a
// message "stopped by the caller at t = <t> s". An empty hook never stops.
using SampleHook = std::function<bool(double t)>;

// The message of a run a SampleHook stopped at sample time t.
std::string stopped_by_caller(double t);

// A Result with body and element names and element kinds, no samples yet.
Result labelled_result(const Model& m);

}  // namespace luztar
