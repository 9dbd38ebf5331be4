#pragma once
#include <string>
#include <vector>

namespace luztar::app {

// Runs apps/cli/luztar_plot.py (python3 with h5py and matplotlib) on an HDF5 result
// or sweep file; `extra` are further script options (--signals, --units, --xy,
// --list, --metric, ...). An empty `output` writes no picture (--list).
// The picture is written atomically (io::AtomicOutput): `output` must be a new
// path or a regular file. Returns the script's exit code; throws
// std::runtime_error when the output is refused (checked first), the input is
// not an HDF5 file, or the script cannot start.
int run_plot(const std::string& input, const std::string& output, const std::vector<std::string>& extra = {});

}  // namespace luztar::app
