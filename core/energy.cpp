#include "core/energy.hpp"

#include <algorithm>
#include <cmath>

namespace luztar {

double kinetic_energy(const Model& m, const std::vector<double>& w) {
  double e = 0.0;
  for (int j = 0; j < m.num_bodies(); ++j) e += 0.5 * m.inertia[j] * w[j] * w[j];
  return e;
}

}  // namespace luztar

namespace luztar {

double kinetic_at_start(const Result& r) { return r.kinetic[0] + r.dissipated[0] - r.input_work[0]; }

EnergyBalance energy_balance(const Result& r, int k) {
  EnergyBalance b;
  b.input = r.input_work[k];
  b.kinetic_change = r.kinetic[k] - kinetic_at_start(r);
  b.elastic_change = r.elastic[k] - r.elastic[0];
  b.dissipated = r.dissipated[k];
  b.residual = b.input - (b.kinetic_change + b.elastic_change + b.dissipated);
  const double scale = std::max({std::abs(b.input), std::abs(b.kinetic_change), std::abs(b.elastic_change),
                                 std::abs(b.dissipated), kinetic_at_start(r) + r.elastic[0], 1e-300});
  b.relative = std::abs(b.residual) / scale;
  return b;
}

double energy_residual_limit(const Result& r) {
  return r.integrator == "exact" ? kExactEnergyResidualLimit : kEnergyResidualLimit;
}

void check_energy_balance(Result& r) {
  if (r.num_samples() == 0) return;
  r.stats.energy_residual = energy_balance(r, r.num_samples() - 1).relative;
  r.stats.energy_residual_exceeded = !(r.stats.energy_residual <= energy_residual_limit(r));  // NaN is flagged too
}

}  // namespace luztar
