#pragma once
// What every solver's run shares before it computes anything: the output
// instants and a Result labelled with the model's names (solvers/simulator
// and solvers/time_stepping fill it the same way).
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"

namespace luztar {

// t_start, t_start + output_step, ... up to t_end, and t_end itself when the
// grid does not land on it; a grid point at the same instant as t_end
// (core/times.hpp) is t_end.
std::vector<double> output_times(const SimulationSettings& s);

// A Result with body and element names and element kinds, no samples yet.
Result labelled_result(const Model& m);

}  // namespace luztar
