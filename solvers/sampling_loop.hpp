#pragma once
// The sampling loop of simulate(), one for both solvers (event-driven:
// solvers/simulator.cpp; time stepping: solvers/time_stepping.cpp): the solver
// is advanced to each instant of the output grid (core/run_frame.hpp) and
// sampled there; the first status other than reached_time ends the run with
// the solver's message, the samples before it kept.
//
// A solver here has
//   StepStatus advance_to(double t);    // everything in (now, t]
//   void sample(double t, Result& r);   // appends the sample at the grid instant t
//   const std::string& message() const; // why advance_to stopped early
#include <vector>

#include "core/result.hpp"

namespace luztar {

template <class Solver>
void sample_on_grid(Solver& solver, const std::vector<double>& grid, Result& r) {
  for (const double t : grid) {
    r.status = solver.advance_to(t);
    if (r.status != StepStatus::reached_time) {
      r.message = solver.message();
      return;
    }
    solver.sample(t, r);
  }
}

}  // namespace luztar
