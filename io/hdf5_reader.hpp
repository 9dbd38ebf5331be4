#pragma once
// HDF5 file written by write_hdf5 -> Result (trajectories, energies, events,
// status and statistics), for round trips and post-processing in C++.
#include <string>

#include "core/result.hpp"

namespace luztar::io {

struct StoredRun {
  Result result;
  std::string model_text;
  std::string luztar_version;
};

// Throws std::runtime_error naming the file and the missing item.
StoredRun read_hdf5(const std::string& path);

}  // namespace luztar::io
