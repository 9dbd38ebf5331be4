// The CVODE wrapper (solvers/cvode_integrator.hpp): an exception thrown by a
// callback must not unwind through CVODE's C code; it ends the segment as a
// failure whose message is the exception's text and CVODE's flag.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "solvers/cvode_integrator.hpp"

namespace luztar {
namespace {

// y' = -y from y(0) = 1 (y = e^-t); the rhs or the root function throws
// beyond t_throw; the root function y - 0.5 has its root at ln 2.
class Decay final : public OdeSystem {
 public:
  Decay(double rhs_throw, double root_throw) : rhs_throw_(rhs_throw), root_throw_(root_throw) {}
  void rhs(double t, const double* y, double* ydot) override {
    if (t > rhs_throw_) throw std::runtime_error("rhs refused");
    ydot[0] = -y[0];
  }
  void jacobian(double, const double*, JacobianSink& jac) override { jac.add(0, 0, -1.0); }
  void roots(double t, const double* y, double* g) override {
    if (t > root_throw_) throw std::runtime_error("root refused");
    g[0] = y[0] - 0.5;
  }
  void quadrature(double, const double*, double*) override {}

 private:
  double rhs_throw_, root_throw_;
};

struct Segment {
  CvodeIntegrator::Outcome outcome;
  double t, y;
  std::string error;
};

Segment integrate(double rhs_throw, double root_throw) {
  Decay system(rhs_throw, root_throw);
  IntegratorOptions o;
  o.size = 1;
  CvodeIntegrator cvode(system, o);
  double y = 1.0, t = 0.0;
  cvode.reset(0.0, &y, nullptr, {0});
  const CvodeIntegrator::Outcome outcome = cvode.advance(2.0, 2.0, t, &y);
  return {outcome, t, y, cvode.last_error()};
}

TEST(CvodeIntegrator, AThrowingRhsIsAFailureWithItsText) {
  const Segment r = integrate(0.3, 10.0);
  EXPECT_EQ(r.outcome, CvodeIntegrator::Outcome::failure);
  EXPECT_EQ(r.error, "rhs refused (CV_RHSFUNC_FAIL)");
  // CVODE returns the last step it completed (at most t = 0.3), accurate to rtol.
  EXPECT_LE(r.t, 0.3);
  EXPECT_NEAR(r.y, std::exp(-r.t), 1e-6);
}

TEST(CvodeIntegrator, AThrowingRootFunctionIsAFailureWithItsText) {
  const Segment r = integrate(10.0, 0.3);  // throws before the root at ln 2 = 0.693
  EXPECT_EQ(r.outcome, CvodeIntegrator::Outcome::failure);
  EXPECT_EQ(r.error, "root refused (CV_RTFUNC_FAIL)");
  EXPECT_LE(r.t, 0.3);
}

TEST(CvodeIntegrator, WithoutThrowsTheRootIsFound) {  // the system itself is right
  const Segment r = integrate(10.0, 10.0);
  EXPECT_EQ(r.outcome, CvodeIntegrator::Outcome::root);
  EXPECT_NEAR(r.t, std::log(2.0), 1e-6);
}

}  // namespace
}  // namespace luztar
