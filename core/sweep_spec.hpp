#pragma once
// A parameter sweep: which model fields vary and how, how they combine, and
// what to record per run. Reading it from YAML or the command line is
// io/yaml_sweep.hpp; running it is `luztar sweep` (apps/sweep/sweep_command.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "core/metrics.hpp"

namespace luztar {

// One swept model field, addressed by its path in the model file
// ("elements.mesh.freeplay", "bodies.psi.inertia", "signals.drive.amplitude").
struct SweepParameter {
  enum class Kind {
    list,             // the values as given
    range,            // `count` values from `from` to `to`, evenly spaced (log: geometrically)
    uniform,          // `samples` independent uniform draws in [from, to] (log: log-uniform)
    latin_hypercube,  // `samples` draws, one in each of `samples` equal strata, strata shuffled
  };
  std::string path;
  Kind kind = Kind::list;
  std::vector<std::string> values;  // list: as written (numbers keep their text)
  double from = 0.0, to = 0.0;
  long count = 0;
  bool log = false;
  std::string where;  // where it was defined, for messages ("file:line:col" or "--set")

  bool sampled() const { return kind == Kind::uniform || kind == Kind::latin_hypercube; }
};

struct SweepSpec {
  std::vector<SweepParameter> parameters;
  bool zip = false;        // false: every combination of the listed/ranged values (grid);
                           // true: their i-th values together (all must have the same length)
  long samples = 0;        // draws of the sampled parameters (crossed with the grid)
  std::uint64_t seed = 1;  // random stream of the sampled parameters
  std::vector<MetricSpec> metrics;  // empty: default_metrics(model)
  bool trajectories = false;        // also store every run's full trajectories
  std::string where;                // where the sweep was described
};

// The runs of a sweep: one row of values per run, in the order of `paths`.
// Values are text so that a list value reaches the model exactly as written;
// generated values are printed with 17 significant digits (exact round trip).
struct RunTable {
  std::vector<std::string> paths;
  std::vector<std::vector<std::string>> values;  // [run][parameter]
  std::size_t size() const { return values.size(); }
};

// How one run of a sweep ended.
enum class RunStatus : std::int8_t {
  pending = -1,        // not run yet
  ok = 0,              // reached t_end
  event_limit = 1,     // stopped early (StepStatus of the same name); metrics NaN
  event_storm = 2,
  solver_failure = 3,
  error = 4,           // could not run at all (message says why)
};
const char* to_string(RunStatus s);
RunStatus run_status(StepStatus s);

// One finished run: what a sweep file stores per row.
struct SweepRunResult {
  std::size_t index = 0;
  RunStatus status = RunStatus::pending;
  std::string message;
  double wall_time = 0.0;        // [s]
  std::vector<double> metrics;   // in the order of the sweep's metrics
  bool has_trajectory = false;
  Result trajectory;             // when the sweep stores trajectories
};

// Most runs a sweep may have (grid or zip rows x samples); also the most
// values of one range and the most samples. The run table holds every run's
// values as text, about 0.1-1 kB per run.
inline constexpr long kMaxSweepRuns = 1000000;

// Expands the sweep. Throws ModelError (field "sweep.parameters.<path>") for an
// empty list or range, a count below 1 or above kMaxSweepRuns, a log scale over
// values <= 0, sampled parameters without `samples`, zipped lists of different
// lengths, or a path given twice; (field "sweep") for more than kMaxSweepRuns
// runs, counted before any run is built. The same spec always gives the same table (the random streams
// are defined here, not by the standard library).
RunTable expand(const SweepSpec& spec);

// Text of a generated value: shortest form that reads back to the same double.
std::string format_value(double v);

}  // namespace luztar
