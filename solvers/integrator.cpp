#include "solvers/integrator.hpp"

#include <stdexcept>

#include "solvers/cvode_integrator.hpp"
#include "solvers/exact/exact_integrator.hpp"

namespace luztar {

// Measured with luztar_bench (chains of n bodies, 2 s; this 2-core machine), exact / cvode_bdf:
// 4 bodies 0.020 / 0.066 s, 8: 0.17 / 0.20 s, 10: 0.49 / 0.32 s, 16: 2.5 / 0.90 s. A dense
// exponential grows as n^3 while CVODE's banded work grows about linearly, so the crossing lies
// between 8 and 10 bodies.
const int kAutoExactMaxBodies = 8;

std::string resolve_integrator(const Model& model, const SimulationSettings& settings) {
  if (settings.integrator == "exact")
    if (const std::string why = exact_integrator_refusal(model); !why.empty())
      throw std::invalid_argument("simulation.integrator: exact cannot serve this model: " + why);
  if (settings.integrator != "auto") return settings.integrator;
  const bool exact = model.num_bodies() <= kAutoExactMaxBodies && exact_integrator_refusal(model).empty();
  return exact ? "exact" : "cvode_bdf";
}

std::unique_ptr<Integrator> make_integrator(const std::string& kind, const SegmentSystem& system,
                                            const IntegratorOptions& options) {
  if (kind == "exact") {
    exact::ExactOptions exact_options;
    exact_options.grid_step = options.grid_step;
    if (options.max_substep > 0.0) exact_options.max_substep = options.max_substep;
    return std::make_unique<exact::ExactIntegrator>(system.affine, system.slots, system.inputs, exact_options);
  }
  if (kind == "cvode_bdf")
    return std::make_unique<CvodeIntegrator>(system.ode, options, CvodeIntegrator::Method::bdf);
  if (kind == "cvode_adams")
    return std::make_unique<CvodeIntegrator>(system.ode, options, CvodeIntegrator::Method::adams);
  throw std::invalid_argument("unknown integrator '" + kind + "' (exact, cvode_bdf, cvode_adams)");
}

}  // namespace luztar
