#pragma once
// Thin owner of one CVODE instance (BDF or Adams-Moulton, Newton iteration
// with a dense or banded direct solver, analytic Jacobian, root finding,
// quadratures). The only code that touches SUNDIALS. It is linked against
// CVODES, which is CVODE (the same integrators, same API) plus quadratures:
// the input work and the dissipated energy are integrated as quadratures with
// their own error control, outside the Newton system, so the Jacobian keeps
// its band structure. Modes never change inside CVODE: the caller stops at an
// event, changes the structure and calls reset(), which re-initialises CVODE
// there. Built through make_integrator (solvers/integrator.hpp).
#include <memory>
#include <string>
#include <vector>

#include "solvers/integrator.hpp"

namespace luztar {

class CvodeIntegrator final : public Integrator {
 public:
  // bdf: CV_BDF (max order 5); adams: CV_ADAMS, Adams-Moulton (max order 12).
  // Both iterate with Newton on the same linear solver.
  enum class Method { bdf, adams };

  CvodeIntegrator(OdeSystem& system, const IntegratorOptions& options, Method method = Method::bdf);
  ~CvodeIntegrator() override;
  CvodeIntegrator(const CvodeIntegrator&) = delete;
  CvodeIntegrator& operator=(const CvodeIntegrator&) = delete;

  const char* name() const override { return method_ == Method::bdf ? "cvode_bdf" : "cvode_adams"; }
  void reset(double t0, const double* y0, const double* q0, const std::vector<int>& directions) override;
  // reset(), its first step trying the last one's size (an input's jump).
  void reset_inputs(double t0, const double* y0, const double* q0, const std::vector<int>& directions) override;
  // Interpolated at tout when reached. A return is a success only when
  // CVODE reported no error during it and the state and quadratures there
  // are finite; on a failure t and y are CVODE's last step, or where the
  // call started when CVODE returned none (never a state it did not write).
  Outcome advance(double tout, double tstop, double& t, double* y) override;
  const std::vector<int>& roots_found() override;
  void quadratures(double t, double* q) override;
  IntegratorCounters counters() const override;
  const std::string& last_error() const override { return last_error_; }

  struct Impl;

 private:
  // After a return without a root: whether a watched function crossed in its
  // direction since the last return (then in roots_found_).
  bool catch_missed_roots(double t, const double* y);
  // Why a return CVode called a success is not one ("" when it is); reads the quadratures.
  std::string unsound_return(double t, const double* y);
  // A failure's t and y (advance).
  void failure_state(double t_entry, double& t, double* y);

  std::unique_ptr<Impl> impl_;
  Method method_;
  std::string last_error_;
  std::vector<int> roots_found_;
};

}  // namespace luztar
