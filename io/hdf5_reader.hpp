#pragma once
// HDF5 file written by write_hdf5 -> Result (trajectories, energies, events,
// status and statistics), for round trips and post-processing in C++.
#include <map>
#include <string>

#include "core/model_spec.hpp"
#include "core/result.hpp"

namespace luztar::io {

struct StoredRun {
  Result result;  // with every /run statistic the file holds
  std::string model_text;
  std::string luztar_version;
  std::string model_name;                // / attr model_name
  std::string source_path;               // /model attr source_path
  std::vector<std::string> reductions;   // /model/reductions
  std::vector<std::string> overrides;    // /model/overrides ("--set PATH=VALUE")
  SimulationSettings settings;           // /run attrs (t_start, t_end, output_step, tolerances, solver, ...)
  // The `units` attribute of every dataset that has one, by its path in the
  // file ("time" -> "s", "bodies/disk/angle" -> "rad"; core/units.hpp).
  std::map<std::string, std::string> units;
};

// Throws std::runtime_error naming the file and the missing item (a sweep
// file: "PATH: a luztar sweep file, not the result of a run ...").
StoredRun read_hdf5(const std::string& path);

// Throws std::runtime_error "PATH: not a readable HDF5 file" unless HDF5 opens
// the file (a run or a sweep file, before `luztar plot` hands it to its script).
void require_hdf5_file(const std::string& path);

}  // namespace luztar::io
