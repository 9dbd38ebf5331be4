#pragma once
// The terminal summary of a run: events by kind, time stuck per friction
// element, energy balance, solver statistics, wall time.
#include <ostream>

#include "core/model.hpp"
#include "core/result.hpp"

namespace luztar::app {

void print_summary(std::ostream& out, const Model& model, const SimulationSettings& settings, const Result& r);

}  // namespace luztar::app
