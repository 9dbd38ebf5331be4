// The CVODE wrapper (solvers/cvode_integrator.hpp): an exception thrown by a
// callback must not unwind through CVODE's C code; it ends the segment as a
// failure whose message is the exception's text and CVODE's flag.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
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

// A free body (I = 1) under a torque F: q' = w, w' = F, with the input work
// as a quadrature, W' = F w. Under F = 1e300 N m, w = F t and W = F^2 t^2 / 2
// overflow at once (W'' = F^2 = inf), so CVODE's first step size is 0: it
// returned CV_SUCCESS at tout = 0.25 s without a step, its output unwritten
// (w = 0 reported as reached), and the next return read an uninitialised
// time (a new-user hunt). Now the return is a failure that says so, with
// the state advance() started from.
class Pushed final : public OdeSystem {
 public:
  explicit Pushed(double torque) : torque_(torque) {}
  void rhs(double, const double* y, double* ydot) override {
    ydot[0] = y[1];
    ydot[1] = torque_;
  }
  void jacobian(double, const double*, JacobianSink& jac) override { jac.add(0, 1, 1.0); }
  void roots(double, const double*, double*) override {}
  void quadrature(double, const double* y, double* q) override { q[0] = torque_ * y[1]; }

 private:
  double torque_;
};

struct PushedSegment {
  CvodeIntegrator::Outcome outcome;
  double t;
  std::vector<double> y, q;
  std::string error;
};

PushedSegment push(double torque, double tout, CvodeIntegrator::Method method) {
  Pushed system(torque);
  IntegratorOptions o;
  o.size = 2;
  o.quadratures = 1;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  CvodeIntegrator cvode(system, o, method);
  std::vector<double> y = {0.0, 0.0}, q = {0.0};
  double t = 0.0;
  cvode.reset(0.0, y.data(), q.data(), {});
  const CvodeIntegrator::Outcome outcome = cvode.advance(tout, tout, t, y.data());
  cvode.quadratures(t, q.data());
  return {outcome, t, y, q, cvode.last_error()};
}

TEST(CvodeIntegrator, AStepSizeOfZeroIsAFailureNotAReachedTime) {
  for (const auto method : {CvodeIntegrator::Method::bdf, CvodeIntegrator::Method::adams}) {
    const PushedSegment r = push(1e300, 0.25, method);
    EXPECT_EQ(r.outcome, CvodeIntegrator::Outcome::failure);
    EXPECT_EQ(r.t, 0.0);
    EXPECT_EQ(r.y, (std::vector<double>{0.0, 0.0}));
    EXPECT_EQ(r.q, (std::vector<double>{0.0}));
    EXPECT_EQ(r.error.rfind("CVODE returned t = 0.25 s without reaching it (its steps stopped at t = 0 s, next step "
                            "size 0 s: a derivative of the solution overflows double precision)",
                            0),
              0u)
        << r.error;
  }
}

// The same system under 1 N m reaches tout: w = t, q = t^2 / 2, W = t^2 / 2
// (BDF and Adams are exact on a quadratic up to roundoff and the start-up
// error; 1e-8 is rtol at t = 0.25 s).
TEST(CvodeIntegrator, TheSameSystemUnderAModestTorqueReachesTout) {
  for (const auto method : {CvodeIntegrator::Method::bdf, CvodeIntegrator::Method::adams}) {
    const PushedSegment r = push(1.0, 0.25, method);
    ASSERT_EQ(r.outcome, CvodeIntegrator::Outcome::reached) << r.error;
    EXPECT_EQ(r.t, 0.25);
    EXPECT_NEAR(r.y[0], 0.03125, 1e-8);
    EXPECT_NEAR(r.y[1], 0.25, 1e-8);
    EXPECT_NEAR(r.q[0], 0.03125, 1e-8);
  }
}

}  // namespace
}  // namespace luztar
