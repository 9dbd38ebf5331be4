#pragma once
// How the exact integrator sees a model in one mode (issue 17): every
// right-hand side luztar has is affine in the state y and in the values sigma
// of the model's signal slots (each load's torque, each friction element's
// MT0(t)); the root functions are affine in (y, sigma) too; the quadratures
// (input work, dissipated energy) have integrands that are quadratic forms of
// (y, sigma, 1). The simulator implements this interface in its current mode;
// the integrator identifies the mode's matrices by probing (exact for affine
// maps up to roundoff) and caches them by mode_key().
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
};

}  // namespace luztar::exact
