#pragma once
// `luztar sweep`: runs a parameter sweep on every core (or over MPI ranks when
// started by mpirun) and writes one HDF5 file (layout in io/sweep_file.hpp).
#include <string>
#include <vector>

namespace luztar::app {

struct SweepOptions {
  std::string input;                 // model file with a sweep: section, or a sweep file
  std::vector<std::string> sets;     // --set PATH=VALUES
  std::vector<std::string> metrics;  // --metric NAME=SPEC
  std::string output;                // default: <input stem>_sweep.h5
  int threads = 0;                   // 0: every core (1 per rank under MPI)
  bool zip = false;
  long samples = -1, seed = -1;      // -1: as in the file
  bool trajectories = false;
  bool resume = false;
  bool overwrite = false;
  bool quiet = false;
  bool dry_run = false;              // check and list the runs, run nothing
  std::string integrator;            // --integrator: simulation.integrator of every run ("" = as in the file)
};

// Exit codes as in main.cpp: 0 every run reached t_end; 1 bad input (nothing
// run); 3 some runs did not finish (recorded in the file); 130 interrupted
// (finished runs kept; --resume continues).
int run_sweep(const SweepOptions& o);

}  // namespace luztar::app
