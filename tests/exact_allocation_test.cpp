// The exact integrator's advance() allocates nothing on the heap once warm:
// neither on sub-steps and output stops nor at roots (its scratch is kept).
#include <gtest/gtest.h>

#include <cmath>

#include "apps/bench/allocation_counter.hpp"
#include "solvers/exact/exact_integrator.hpp"
#include "tests/model_builder.hpp"

namespace luztar::exact {
namespace {

// x'' = -w^2 x - c x' + F sin(W t) with the quadratures sigma v and c v^2,
// watching x - 0.05 in both directions (crossed twice a period).
struct Oscillator : AffineModeSystem {
  int size() const override { return 2; }
  int slot_count() const override { return 1; }
  int root_count() const override { return 1; }
  int quadrature_count() const override { return 2; }
  void mode_key(std::vector<std::int8_t>& key) const override { key.assign(1, 0); }
  void rhs(const double* y, const double* s, double* out) override {
    out[0] = y[1];
    out[1] = -400.0 * y[0] - 0.3 * y[1] + s[0];
  }
  void roots(const double* y, const double*, double* g) override { g[0] = y[0] - 0.05; }
  void quadrature(const double* y, const double* s, double* q) override {
    q[0] = s[0] * y[1];
    q[1] = 0.3 * y[1] * y[1];
  }
};

TEST(ExactAllocation, AdvanceAllocatesNothingOnceWarm) {
  Oscillator sys;
  const Signal force = test::sine(30.0, 2.5);
  ExactIntegrator integ(sys, {&force}, nullptr);
  double y[2] = {0.0, 0.0}, q[2] = {0.0, 0.0}, t = 0.0;
  integ.reset(0.0, y, q, {0});
  long roots = 0;
  std::size_t allocations = 0;
  for (int k = 1; k <= 3000; ++k) {
    const std::size_t before = luztar::app::g_allocations;
    while (integ.advance(k * 1e-3, 10.0, t, y) == Integrator::Outcome::root) ++roots;
    integ.quadratures(t, q);
    if (k > 10) allocations += luztar::app::g_allocations - before;
  }
  EXPECT_GT(roots, 10);
  EXPECT_EQ(allocations, 0u);
}

}  // namespace
}  // namespace luztar::exact
