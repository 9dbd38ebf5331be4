#pragma once
// A sweep ready to run: its model, its table of runs, its metrics, every run's
// model checked before the first run starts, and how to run one of them.
#include <string>

#include "core/model.hpp"
#include "core/sweep_spec.hpp"
#include "io/sweep_file.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_sweep.hpp"

namespace luztar::app {

struct SweepPlan {
  io::SweepInput input;
  RunTable table;
  std::vector<io::FieldOverride> fixed;  // the same for every run, from the command line (--integrator)
  std::vector<MetricSpec> metrics;  // defaults filled in
  io::InputFiles files;              // the table files of every run, read once (make_plan); the runs read these
  std::vector<io::InputDigest> inputs;  // the same, hashed, by path relative to the model's folder
  std::string fingerprint;          // model text + table files + runs + metrics + settings, hashed
  std::string description;          // readable summary stored in the file

  // The model of run `i` (the base model with the run's values in place).
  Model model(std::size_t i) const;
  // Runs it; never throws (a failure becomes the run's status and message).
  SweepRunResult execute(std::size_t i) const;
  io::SweepLayout layout() const;
};

// Expands the sweep and builds every run's model, so that a bad path or an
// impossible value stops the sweep before any run (ModelError naming the run,
// its values and where the value came from).
// `fixed` overrides every run's model alike (before its swept values).
SweepPlan make_plan(io::SweepInput input, std::vector<io::FieldOverride> fixed = {});

}  // namespace luztar::app
