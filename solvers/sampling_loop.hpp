#pragma once
// The sampling loop of simulate(), one for both solvers (event-driven:
// solvers/simulator.cpp; time stepping: solvers/time_stepping.cpp): the solver
// is advanced to each instant of the output grid (core/run_frame.hpp) and
// sampled there; the first status other than reached_time ends the run with
// the solver's message, the samples before it kept. keep_going (core/run_frame.hpp)
// is asked after every sample but the last: false ends the run there with the
// samples so far and the message stopped_by_caller(t).
//
// A solver here has
//   StepStatus advance_to(double t);    // everything in (now, t]
//   void sample(double t, Result& r);   // appends the sample at the grid instant t
//   const std::string& message() const; // why advance_to stopped early
#include <vector>

#include "core/result.hpp"
#include "core/run_frame.hpp"

namespace luztar {

// Returns false when keep_going stopped the run.
template <class Solver>
bool sample_on_grid(Solver& solver, const std::vector<double>& grid, Result& r, const SampleHook& keep_going) {
  r.reserve_samples(grid.size());
  for (const double t : grid) {
    if (!r.time.empty() && keep_going && !keep_going(r.time.back())) {
      r.message = stopped_by_caller(r.time.back());
      return false;
    }
    r.status = solver.advance_to(t);
    if (r.status != StepStatus::reached_time) {
      r.message = solver.message();
      return true;
    }
    solver.sample(t, r);
  }
  return true;
}

}  // namespace luztar
