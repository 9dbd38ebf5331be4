#pragma once
#include <string>

namespace luztar::app {

// Runs apps/luztar_plot.py (python3 with h5py and matplotlib) on an HDF5 result.
// Returns the script's exit code; throws std::runtime_error when it cannot start.
int run_plot(const std::string& input, const std::string& output);

}  // namespace luztar::app
