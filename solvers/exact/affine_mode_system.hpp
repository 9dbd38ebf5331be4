#pragma once
// How the exact integrator sees a model in one mode (issue 17): every
// right-hand side luztar has is affine in the state y and in the values sigma
// of the model's signal slots (each load's torque, each friction element's
// MT0(t)); the root functions are affine in (y, sigma) too; the quadratures
// (input work, dissipated energy) have integrands that are quadratic forms of
// (y, sigma, 1). The simulator implements this interface in its current mode;
// the integrator identifies the mode's matrices by probing (exact for affine
// maps up to roundoff) and caches them by mode_key().
#include <algorithm>
#include <cstdint>
#include <vector>

namespace luztar::exact {

class AffineModeSystem {
 public:
  virtual ~AffineModeSystem() = default;
  virtual int size() const = 0;              // n, length of y
  virtual int slot_count() const = 0;        // p, length of sigma
  virtual int root_count() const = 0;        // length of g
  virtual int quadrature_count() const = 0;  // length of qdot
  // Identifies the current mode: equal keys mean equal maps below (the
  // integrator caches the identified matrices under it).
  virtual void mode_key(std::vector<std::int8_t>& key) const = 0;
  // ydot (n) = affine in (y (n), sigma (p)).
  virtual void rhs(const double* y, const double* sigma, double* ydot) = 0;
  // g (root_count) = affine in (y, sigma).
  virtual void roots(const double* y, const double* sigma, double* g) = 0;
  // qdot (quadrature_count) = quadratic in (y, sigma, 1).
  virtual void quadrature(const double* y, const double* sigma, double* qdot) = 0;
  // After roots(): per root, the size of the terms its value was computed
  // from (a contact torque solved from the torques on its bodies), so that
  // its roundoff is eps times that; 0 for a root read off the state itself
  // (exact coefficients). The identification takes a probe's coefficient
  // within 64 eps of it for 0: a contact between bodies whose viscous
  // damping is proportional to their inertia carries no torque at all, and
  // its row of roundoff (7e-18) failed the self-check. Default: all 0.
  virtual void root_term_scales(double* scale) const { std::fill(scale, scale + root_count(), 0.0); }
  // The relative coordinates the maps read y through (rows of length n,
  // row-major, appended to `rows`; returns their count): every direction r of
  // y with R r = 0 changes no rhs and no quadrature (the absolute angle of a
  // group of bodies that turns freely). The integrator then steps z less that
  // part, so that a shaft's angle of tens of radians never meets the large
  // entries of exp(A h) (its deflections are known to eps |q| only, and the
  // products would otherwise amplify that at every step). The rows are the
  // laws' own coefficients (1, -ratio), so the directions are exact to eps.
  // Default: y itself (nothing inert).
  virtual int relation_rows(std::vector<double>& rows) const {
    const int n = size();
    rows.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
    for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i) * static_cast<std::size_t>(n + 1)] = 1.0;
    return n;
  }
};

}  // namespace luztar::exact
