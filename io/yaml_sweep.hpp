#pragma once
// Sweep descriptions, from YAML and from the command line. Either a model file
// carries a `sweep:` section, or a sweep file names its model:
//
//   model: gear_train.yaml            # relative to the sweep file
//   sweep:
//     combine: grid                   # grid (default) | zip
//     samples: 50                     # draws of the sampled parameters
//     seed: 7                         # their random stream (default 1)
//     trajectories: false             # also store every run's trajectories
//     parameters:
//       elements.mesh.freeplay: {from: 0.001, to: 0.02, count: 20}
//       signals.drive.amplitude: {from: 0.1, to: 10, count: 5, scale: log}
//       elements.bearing_phi.coulomb: [0.1, 0.2, 0.4]
//       bodies.gamma.inertia: {latin_hypercube: [2e-4, 8e-4]}   # or uniform; scale: log
//     metrics:
//       psi_rms: {rms: bodies.psi.velocity, window: [2, 10]}
//       stuck_phi: {time_stuck: bearing_phi}
//       contacts: {events: contact, element: mesh}
//       heat: {energy: dissipated}
//       dead_band: {hysteresis: bodies.phi.angle, against: elements.mesh.torque, at: 0}
//
// Command line (same meaning): --set PATH=VALUES with VALUES one of
//   0.1,0.2,0.4        a list          0.001:0.02:20      a range of 20 values
//   0.1:10:5:log       a log range     uniform:0.1:0.4    sampled (also lhs:A:B, :log)
//   or any YAML value as in the file, e.g. '{from: 0, to: 1, count: 3}';
// and --metric NAME=SPEC with SPEC as in the file, e.g. 'rms: bodies.psi.velocity'.
// Mistakes are ModelErrors with "file:line:col" (or the option) and the field.
#include <string>

#include "core/sweep_spec.hpp"
#include "io/yaml_model.hpp"

namespace luztar::io {

struct SweepInput {
  std::string model_path;  // the model file
  std::string model_text;  // its text
  std::string model_dir;   // where its table files are found
  SweepSpec spec;          // empty when the file has no sweep section
};

// Reads `path`: a model file (with or without a `sweep:` section) or a sweep
// file with `model:` and `sweep:`.
SweepInput load_sweep(const std::string& path);
// Same, from text: `path` names it in messages, `dir` is where the files it
// names (`model:`) are found.
SweepInput parse_sweep(const std::string& text, const std::string& path, const std::string& dir);

// Adds or replaces a parameter from "PATH=VALUES".
void add_parameter_option(SweepSpec& spec, const std::string& assignment);
// One value for one field from "PATH=VALUE" (`luztar run --set`): the override
// a sweep run applies (io/yaml_model.hpp), located at "--set PATH=VALUE".
FieldOverride set_option(const std::string& assignment);
// Adds or replaces a metric from "NAME=SPEC".
void add_metric_option(SweepSpec& spec, const std::string& assignment);

}  // namespace luztar::io
