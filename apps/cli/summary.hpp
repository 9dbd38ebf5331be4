#pragma once
// The terminal summary of a run: events by kind, time stuck per friction
// element, energy balance, solver statistics, wall time.
#include <ostream>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"

namespace luztar::app {

// The warning for a run whose energy residual exceeds its limit
// (core/energy.hpp energy_residual_limit; RunStats::energy_residual_exceeded),
// one line without a newline.
std::string energy_warning(const Result& r);

// The warning for a run whose event-time solvers fell back or missed their
// tolerance (RunStats selection_fallbacks, selection_unsolved,
// impact_fallbacks, impacts_unsolved), one line without a newline, listing
// the non-zero counters; empty when all are zero.
std::string solver_outcome_warning(const Result& r);

// What the summary says of the model a result came from (a Model, or a stored run's file).
struct SummarySource {
  std::string name;                     // model name ("" = the file's stem)
  std::string source_path;              // the model file
  std::vector<std::string> reductions;  // luz/tar reduction steps
};

void print_summary(std::ostream& out, const SummarySource& model, const SimulationSettings& settings,
                   const Result& r);
void print_summary(std::ostream& out, const Model& model, const SimulationSettings& settings, const Result& r);

}  // namespace luztar::app
