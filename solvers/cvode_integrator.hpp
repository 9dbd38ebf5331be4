#pragma once
// Thin owner of one CVODE instance (BDF, Newton, dense or banded direct solver,
// analytic Jacobian, root finding, quadratures). The only code that touches
// SUNDIALS. It is linked against CVODES, which is CVODE (the same BDF
// integrator, same API) plus quadratures: the input work and the dissipated
// energy are integrated as quadratures with their own error control, outside the
// Newton system, so the Jacobian keeps its band structure. Modes never change inside CVODE: the caller stops at an event,
// changes the structure and calls reset(), which re-initialises CVODE there.
#include <memory>
#include <string>
#include <vector>

#include "solvers/dynamics.hpp"

namespace luztar {

// The system CVODE integrates, seen through its callbacks.
class OdeSystem {
 public:
  virtual ~OdeSystem() = default;
  virtual void rhs(double t, const double* y, double* ydot) = 0;
  virtual void jacobian(double t, const double* y, JacobianSink& jac) = 0;
  virtual void roots(double t, const double* y, double* g) = 0;
  virtual void quadrature(double t, const double* y, double* qdot) = 0;
};

struct IntegratorOptions {
  int size = 0;              // state length
  int quadratures = 0;       // quadrature length
  double rtol = 1e-8;
  double atol = 1e-10;
  double quad_atol = 1e-10;  // absolute tolerance of the quadratures [J]
  double max_step = 0.0;     // 0 = no limit
  bool band = false;         // banded instead of dense linear solver
  int half_bandwidth = 0;    // for band
};

struct IntegratorCounters {
  long steps = 0, rhs_evals = 0, jac_evals = 0, root_evals = 0, nonlinear_iters = 0, error_test_fails = 0;
};

class CvodeIntegrator {
 public:
  enum class Outcome { reached, root, stop_time, failure };

  CvodeIntegrator(OdeSystem& system, const IntegratorOptions& options);
  ~CvodeIntegrator();
  CvodeIntegrator(const CvodeIntegrator&) = delete;
  CvodeIntegrator& operator=(const CvodeIntegrator&) = delete;

  // (Re)starts at t0 with state y0 and quadratures q0, watching `directions.size()`
  // root functions, each counting only crossings in its direction (+1, -1, or 0 both).
  void reset(double t0, const double* y0, const double* q0, const std::vector<int>& directions);

  // Integrates towards tout, never past tstop. On return t and y hold the time
  // reached and the state there (interpolated at tout when reached).
  Outcome advance(double tout, double tstop, double& t, double* y);

  // After Outcome::root: for each root function, +1 / -1 when it crossed
  // increasing / decreasing, 0 otherwise.
  const std::vector<int>& roots_found();
  // Quadratures at the last returned time.
  void quadratures(double t, double* q);

  // Counters summed over all resets.
  IntegratorCounters counters() const;
  const std::string& last_error() const { return last_error_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::string last_error_;
  std::vector<int> roots_found_;
};

}  // namespace luztar
