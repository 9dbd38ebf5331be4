#include "solvers/integrator.hpp"

#include <stdexcept>

#include "solvers/cvode_integrator.hpp"

namespace luztar {

std::string resolve_integrator(const Model&, const SimulationSettings& settings) {
  return settings.integrator == "auto" ? std::string("cvode_bdf") : settings.integrator;
}

std::unique_ptr<Integrator> make_integrator(const std::string& kind, OdeSystem& system,
                                            const IntegratorOptions& options) {
  if (kind == "cvode_bdf") return std::make_unique<CvodeIntegrator>(system, options, CvodeIntegrator::Method::bdf);
  if (kind == "cvode_adams")
    return std::make_unique<CvodeIntegrator>(system, options, CvodeIntegrator::Method::adams);
  throw std::invalid_argument("unknown integrator '" + kind + "' (cvode_bdf, cvode_adams)");
}

}  // namespace luztar
