#include "core/energy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace luztar {

double kinetic_energy(const Model& m, const std::vector<double>& w) {
  double e = 0.0;
  for (int j = 0; j < m.num_bodies(); ++j) e += 0.5 * m.inertia[j] * w[j] * w[j];
  return e;
}

}  // namespace luztar

namespace luztar {

namespace {

// The roundoff of r's energies at samples 0 and k [J]: 64 eps times the
// largest sum over the elements of |torque x| (x the coordinate each acts on),
// the work its torques can do over their angles; an energy is a sum of such
// products and carries their roundoff. A balance whose terms are all below it
// (a body held stuck far from 0: 1e-70 J of kinetic energy from its projected
// velocity) is roundoff, not a residual of 100 %. 0 without element outputs.
double energy_roundoff(const Result& r, int k) {
  const int ne = r.num_elements();
  if (ne == 0 || r.element_torque.size() < static_cast<std::size_t>(k + 1) * ne ||
      r.element_relative.size() < static_cast<std::size_t>(k + 1) * ne)
    return 0.0;
  double largest = 0.0;
  for (const int j : {0, k}) {
    double sum = 0.0;
    for (int e = 0; e < ne; ++e) {
      const std::size_t at = static_cast<std::size_t>(j) * ne + e;
      sum += std::abs(r.element_torque[at] * r.element_relative[at]);
    }
    if (std::isfinite(sum)) largest = std::max(largest, sum);
  }
  return 64 * std::numeric_limits<double>::epsilon() * largest;
}

}  // namespace

double kinetic_at_start(const Result& r) { return r.kinetic[0] + r.dissipated[0] - r.input_work[0]; }

EnergyBalance energy_balance(const Result& r, int k) {
  EnergyBalance b;
  b.input = r.input_work[k];
  b.kinetic_change = r.kinetic[k] - kinetic_at_start(r);
  b.elastic_change = r.elastic[k] - r.elastic[0];
  b.dissipated = r.dissipated[k];
  b.residual = b.input - (b.kinetic_change + b.elastic_change + b.dissipated);
  const double scale = std::max({std::abs(b.input), std::abs(b.kinetic_change), std::abs(b.elastic_change),
                                 std::abs(b.dissipated), kinetic_at_start(r) + r.elastic[0], energy_roundoff(r, k),
                                 1e-300});
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
