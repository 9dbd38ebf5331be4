#pragma once
// The integrators' quadratures (solvers/mode_system.hpp: input work, dissipated
// energy, then each dissipative element's, in dissipative_elements order) and
// the State's energies they carry: the one place that knows the layout, for
// the restart that loads them into an integrator and the sync that reads them
// back.
#include <cstddef>
#include <vector>

#include "core/model.hpp"
#include "core/state.hpp"
#include "solvers/element_outputs.hpp"
#include "solvers/mode_system.hpp"

namespace luztar {

class EnergyQuadratures {
 public:
  explicit EnergyQuadratures(const Model& m)
      : dissipative_(dissipative_elements(m)),
        values_(static_cast<std::size_t>(ModeSystem::kQuadElements) + dissipative_.size(), 0.0) {}

  // The State's energies as the quadratures' values (for Integrator::reset).
  const double* load(const State& s) {
    values_[ModeSystem::kQuadInput] = s.input_work;
    values_[ModeSystem::kQuadDissipated] = s.dissipated;
    for (std::size_t k = 0; k < dissipative_.size(); ++k)
      values_[ModeSystem::kQuadElements + k] = s.element_dissipated[static_cast<std::size_t>(dissipative_[k])];
    return values_.data();
  }
  // The buffer Integrator::quadratures fills; store() then hands it to the State.
  double* buffer() { return values_.data(); }
  void store(State& s) const {
    s.input_work = values_[ModeSystem::kQuadInput];
    s.dissipated = values_[ModeSystem::kQuadDissipated];
    for (std::size_t k = 0; k < dissipative_.size(); ++k)
      s.element_dissipated[static_cast<std::size_t>(dissipative_[k])] = values_[ModeSystem::kQuadElements + k];
  }

 private:
  std::vector<int> dissipative_;  // element ids (dissipative_elements)
  std::vector<double> values_;    // (ModeSystem::quadrature_count)
};

}  // namespace luztar
