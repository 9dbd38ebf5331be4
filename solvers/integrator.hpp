#pragma once
// The integrator interface of the event pipeline: what integrates the state
// between two stops (CVODE BDF / Adams in solvers/cvode_integrator.hpp, the
// exact piecewise-linear propagator in solvers/exact/exact_integrator.hpp).
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

// What integrates the state between two stops of the event pipeline. The
// pipeline stops at every root and breakpoint, changes the structure and
// calls reset(); modes never change inside an integrator.
class Integrator {
 public:
  enum class Outcome { reached, root, stop_time, failure };
  virtual ~Integrator() = default;
  virtual const char* name() const = 0;   // "cvode_bdf", "cvode_adams", "exact"
  // (Re)starts at t0 with state y0 and quadratures q0, watching directions.size()
  // root functions, each counting only crossings in its direction (+1, -1, 0 both).
  virtual void reset(double t0, const double* y0, const double* q0, const std::vector<int>& directions) = 0;
  // Integrates towards tout, never past tstop; on return t and y hold the time
  // reached and the state there (at tout exactly when reached).
  virtual Outcome advance(double tout, double tstop, double& t, double* y) = 0;
  // After Outcome::root: per root function +1 / -1 (crossed increasing / decreasing), else 0.
  virtual const std::vector<int>& roots_found() = 0;
  virtual void quadratures(double t, double* q) = 0;   // at the last returned time
  virtual IntegratorCounters counters() const = 0;     // summed over resets
  virtual const std::string& last_error() const = 0;
};

}  // namespace luztar
