#pragma once
// Scalar figures of one run (what a parameter sweep records per run): extremes,
// averages and the final value of a signal over a time window, time stuck or
// in a state, lock-up and overrun times, tooth impacts, event counts, energy
// changes, and the hysteresis width of one signal against another. Signals are
// addressed by their canonical paths (core/signal_paths.hpp):
//   bodies.<name>.angle | velocity | acceleration
//   elements.<name>.torque | state | relative_angle | relative_velocity | power | dissipated
//   blocks.<name> (a sampled block's held output)
//   energy.input_work | energy.kinetic | energy.elastic | energy.dissipated
// (inputs.<name> is a path too, but a run does not record its inputs).
// Signal statistics use the output grid (simulation.output_step); time stuck
// and event counts use the exact event times.
#include <limits>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"

namespace luztar {

struct MetricSpec {
  enum class Kind {
    max, min, mean, rms, peak_to_peak, final_value,  // of `signal` over the window
    time_stuck,   // seconds friction element `element` is stuck within the window
    events,       // number of events of `event_kind` ("" = any) on `element` ("" = any)
    energy,       // change of energy.<signal> over the window, e.g. dissipated [J]
    hysteresis,   // width in `signal` of its loop against `against`, measured where
                  // `against` passes `level` (mean over the passes up minus down)
    lock_up_time,   // seconds from the window's start to `element`'s first stick (friction) or
                    // lock (one-way clutch) event in the window; NaN if none
    time_in_state,  // seconds `element` spends with state == `state` within the window
    overrun_time,   // seconds one-way clutch `element` overruns within the window
    tooth_impacts,  // contacts of spring `element` (with a gap) beginning in the window with
                    // |x'| >= `min_speed` (elastic: contact events from inside the gap;
                    // rigid: its impacts)
    peak_abs,       // max |signal| over the output samples in the window
  };
  std::string name;      // column name in the results
  Kind kind = Kind::max;
  std::string signal;    // signal path (energy: one of input_work, kinetic, elastic, dissipated,
                         // or an element's elements.<name>.dissipated)
  std::string against;   // hysteresis: the other signal path
  double level = 0.0;    // hysteresis: value of `against` where the width is measured
  std::string element;   // time_stuck, events, lock_up_time, time_in_state, overrun_time, tooth_impacts
  std::string event_kind;
  int state = 0;         // time_in_state: the state code (Result::element_state)
  double min_speed = 0.0;  // tooth_impacts: the least approach speed counted [rad/s]
  double t0 = -std::numeric_limits<double>::infinity();  // window [s], clipped to the run
  double t1 = std::numeric_limits<double>::infinity();
  std::string where;     // where it was defined, for messages

  // "rms of bodies.psi.velocity over [1, 10] s"
  std::string describe() const;
  // SI unit of the value ("rad", "N m", "s", "1", ...)
  std::string unit() const;
};

const char* to_string(MetricSpec::Kind k);
// The path an energy metric's signal names: energy.<signal>, or the element's
// elements.<name>.dissipated as given.
std::string energy_path(const std::string& signal);

// Throws ModelError (field "metrics.<name>") when the metric names a body,
// element, event kind or signal the model does not have, or a window outside
// [t_start, t_end].
void check_metric(const MetricSpec& m, const Model& model);

// The value of each metric for a finished run (NaN where a value does not
// exist, e.g. a hysteresis loop never closed within the window).
std::vector<double> compute_metrics(const std::vector<MetricSpec>& metrics, const Result& r);

// Width of the loop of y against x where x passes `level`, over samples
// [k0, k1): the mean of y at upward passes minus the mean at downward passes,
// in absolute value. A pass is a strict sign change of x - level between two
// samples, y interpolated linearly at the crossing, or, where samples lie
// exactly on the level between them, y there (their mean for a dwell). NaN
// without both an upward and a downward pass.
double hysteresis_width(const std::vector<double>& x, const std::vector<double>& y, double level, std::size_t k0,
                        std::size_t k1);

// What a sweep records when it is not told: energy dissipated (in all and by
// each dissipative element), the number of events of each kind, and the time
// stuck of every friction element.
std::vector<MetricSpec> default_metrics(const Model& model);

}  // namespace luztar
