#include "solvers/cvode_integrator.hpp"

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <stdexcept>

namespace luztar {

// One CVODE instance and its vectors and linear solver.
struct CvodeInstance {
  void* mem = nullptr;
  N_Vector y = nullptr, q = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  void free() {
    CVodeFree(&mem);
    SUNLinSolFree(LS);
    SUNMatDestroy(A);
    N_VDestroy(y);
    N_VDestroy(q);
  }
};

struct CvodeIntegrator::Impl {
  OdeSystem* system = nullptr;
  IntegratorOptions options;
  SUNContext ctx = nullptr;
  void* mem = nullptr;
  N_Vector y = nullptr, q = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  int nroots = -1;
  int nq = 0;  // length of CVODE's quadrature vector: options.quadratures, padded (quadrature_length)
  // With uncontrolled quadratures: a CVODE with the controlled ones alone,
  // which computes the initial step after each reset (see first_step).
  CvodeInstance probe;
  bool fresh = false;              // reset since the last advance
  std::vector<double> probe_qdot;  // (options.quadratures) scratch of the probe's quadrature callback
  IntegratorCounters done;  // counters of finished segments (CVodeReInit resets CVODE's)
  std::string* last_error = nullptr;
  std::string callback_error;  // what a callback threw (CVODE is C: nothing may unwind through it)

  IntegratorCounters current() const {
    IntegratorCounters c;
    long v = 0;
    CVodeGetNumSteps(mem, &v);
    c.steps = v;
    CVodeGetNumRhsEvals(mem, &v);
    c.rhs_evals = v;
    CVodeGetNumJacEvals(mem, &v);
    c.jac_evals = v;
    CVodeGetNumGEvals(mem, &v);
    c.root_evals = v;
    CVodeGetNumNonlinSolvIters(mem, &v);
    c.nonlinear_iters = v;
    CVodeGetNumErrTestFails(mem, &v);
    c.error_test_fails = v;
    return c;
  }
};

namespace {

using Impl = CvodeIntegrator::Impl;

// Runs a callback's body: an exception becomes CVODE's "unrecoverable" -1,
// its text kept for advance() to report.
template <class F>
int shielded(void* data, F&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    static_cast<Impl*>(data)->callback_error = e.what();
  } catch (...) {
    static_cast<Impl*>(data)->callback_error = "unknown exception";
  }
  return -1;
}

int rhs_cb(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
  return shielded(data, [&] {
    static_cast<Impl*>(data)->system->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
  });
}

int quad_cb(sunrealtype t, N_Vector y, N_Vector qdot, void* data) {
  return shielded(data, [&] {
    Impl& d = *static_cast<Impl*>(data);
    double* q = N_VGetArrayPointer(qdot);
    d.system->quadrature(t, N_VGetArrayPointer(y), q);
    std::fill(q + d.options.quadratures, q + d.nq, 0.0);  // the padding (quadrature_length)
  });
}

// The probe's: the controlled quadratures only (quadrature_length).
int probe_quad_cb(sunrealtype t, N_Vector y, N_Vector qdot, void* data) {
  return shielded(data, [&] {
    Impl& d = *static_cast<Impl*>(data);
    d.system->quadrature(t, N_VGetArrayPointer(y), d.probe_qdot.data());
    std::copy(d.probe_qdot.begin(), d.probe_qdot.begin() + N_VGetLength(qdot), N_VGetArrayPointer(qdot));
  });
}

int root_cb(sunrealtype t, N_Vector y, sunrealtype* g, void* data) {
  return shielded(data, [&] { static_cast<Impl*>(data)->system->roots(t, N_VGetArrayPointer(y), g); });
}

class DenseSink final : public JacobianSink {
 public:
  explicit DenseSink(SUNMatrix J) : J_(J) {}
  void add(int row, int col, double value) override { SM_ELEMENT_D(J_, row, col) += value; }

 private:
  SUNMatrix J_;
};

class BandSink final : public JacobianSink {
 public:
  explicit BandSink(SUNMatrix J) : J_(J) {}
  void add(int row, int col, double value) override { SM_ELEMENT_B(J_, row, col) += value; }

 private:
  SUNMatrix J_;
};

int jac_cb(sunrealtype t, N_Vector y, N_Vector, SUNMatrix J, void* data, N_Vector, N_Vector, N_Vector) {
  auto* impl = static_cast<Impl*>(data);
  SUNMatZero(J);
  return shielded(data, [&] {
    if (impl->options.band) {
      BandSink sink(J);
      impl->system->jacobian(t, N_VGetArrayPointer(y), sink);
    } else {
      DenseSink sink(J);
      impl->system->jacobian(t, N_VGetArrayPointer(y), sink);
    }
  });
}

// CVODE reports through this instead of printing: the message becomes the run's status text.
void error_cb(int, const char* module, const char* function, char* msg, void* data) {
  auto* impl = static_cast<Impl*>(data);
  *impl->last_error = std::string(module) + " " + function + ": " + msg;
}

// CVODE's name of a return flag (SUNDIALS 6 mallocs it).
std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);
  std::string s = name ? name : "unknown flag";
  std::free(name);
  return s;
}

void check(int flag, const char* what) {
  if (flag < 0) throw std::runtime_error(std::string("CVODE setup failed in ") + what);
}

// Quadratures beyond the k controlled ones (IntegratorOptions) must not change
// a step. CVODE's error test takes the WRMS norm of all n quadratures, sqrt(sum
// (e_i w_i)^2 / n), weights w_i = 1 / (rtol |q_i| + atol_i). The uncontrolled
// ones get atol_i = 1e300, so (e_i w_i)^2 underflows to exactly 0, and the
// vector is padded with zeros to n = k 4^j, the controlled ones' tolerances
// scaled by s = 2^-j: their weights are exactly w_i / s, and sum / n is then
// bit for bit the sum / k of the k controlled ones alone (powers of two scale
// exactly). Returns n and sets s.
int quadrature_length(const IntegratorOptions& o, double& scale) {
  const int k = o.controlled_quadratures < 0 ? o.quadratures : o.controlled_quadratures;
  int n = k;
  scale = 1.0;
  while (n < o.quadratures) {
    n *= 4;
    scale *= 0.5;
  }
  return n;
}

// Error control over the first k quadratures only (quadrature_length).
void set_quadrature_tolerances(Impl& d, double scale) {
  const int k = d.options.controlled_quadratures < 0 ? d.options.quadratures : d.options.controlled_quadratures;
  if (d.nq == k) {
    check(CVodeQuadSStolerances(d.mem, d.options.rtol, d.options.quad_atol), "CVodeQuadSStolerances");
    return;
  }
  N_Vector atol = N_VNew_Serial(d.nq, d.ctx);
  double* a = N_VGetArrayPointer(atol);
  for (int i = 0; i < d.nq; ++i) a[i] = i < k ? d.options.quad_atol * scale : 1e300;
  const int flag = CVodeQuadSVtolerances(d.mem, d.options.rtol * scale, atol);
  N_VDestroy(atol);
  check(flag, "CVodeQuadSVtolerances");
}

}  // namespace

namespace {

// A CVODE instance over d's system with nq quadratures (rhs, Jacobian, linear
// solver, limits as d.options say; tolerances of the quadratures left to the caller).
CvodeInstance make_instance(Impl& d, int method, int nq, CVQuadRhsFn quad) {
  const IntegratorOptions& o = d.options;
  CvodeInstance c;
  c.y = N_VNew_Serial(o.size, d.ctx);
  c.q = N_VNew_Serial(nq, d.ctx);
  N_VConst(0.0, c.y);
  N_VConst(0.0, c.q);
  c.mem = CVodeCreate(method, d.ctx);  // Newton by default
  if (!c.mem) throw std::runtime_error("CVodeCreate failed");
  check(CVodeSetErrHandlerFn(c.mem, error_cb, &d), "CVodeSetErrHandlerFn");
  check(CVodeInit(c.mem, rhs_cb, 0.0, c.y), "CVodeInit");
  check(CVodeSetUserData(c.mem, &d), "CVodeSetUserData");
  check(CVodeSStolerances(c.mem, o.rtol, o.atol), "CVodeSStolerances");
  if (o.band) {
    const int hb = o.half_bandwidth;
    c.A = SUNBandMatrix(o.size, hb, hb, d.ctx);
    c.LS = SUNLinSol_Band(c.y, c.A, d.ctx);
  } else {
    c.A = SUNDenseMatrix(o.size, o.size, d.ctx);
    c.LS = SUNLinSol_Dense(c.y, c.A, d.ctx);
  }
  check(CVodeSetLinearSolver(c.mem, c.LS, c.A), "CVodeSetLinearSolver");
  check(CVodeSetJacFn(c.mem, jac_cb), "CVodeSetJacFn");
  check(CVodeSetMaxNumSteps(c.mem, 1000000), "CVodeSetMaxNumSteps");
  check(CVodeSetMaxHnilWarns(c.mem, -1), "CVodeSetMaxHnilWarns");
  check(CVodeSetNoInactiveRootWarn(c.mem), "CVodeSetNoInactiveRootWarn");
  if (o.max_step > 0.0) check(CVodeSetMaxStep(c.mem, o.max_step), "CVodeSetMaxStep");
  if (nq > 0) {
    check(CVodeQuadInit(c.mem, quad, c.q), "CVodeQuadInit");
    check(CVodeSetQuadErrCon(c.mem, SUNTRUE), "CVodeSetQuadErrCon");
  }
  return c;
}

}  // namespace

CvodeIntegrator::CvodeIntegrator(OdeSystem& system, const IntegratorOptions& options, Method method)
    : impl_(std::make_unique<Impl>()), method_(method) {
  Impl& d = *impl_;
  d.system = &system;
  d.options = options;
  d.last_error = &last_error_;
  check(SUNContext_Create(nullptr, &d.ctx), "SUNContext_Create");
  double scale = 1.0;
  d.nq = options.quadratures > 0 ? quadrature_length(options, scale) : 0;
  const int lmm = method == Method::bdf ? CV_BDF : CV_ADAMS;
  CvodeInstance main = make_instance(d, lmm, d.nq, quad_cb);
  d.mem = main.mem;
  d.y = main.y;
  d.q = main.q;
  d.A = main.A;
  d.LS = main.LS;
  if (d.nq > 0) set_quadrature_tolerances(d, scale);
  const int k = options.controlled_quadratures < 0 ? options.quadratures : options.controlled_quadratures;
  if (d.nq > k) {  // uncontrolled quadratures: the initial steps come from a probe without them
    d.probe_qdot.assign(static_cast<std::size_t>(options.quadratures), 0.0);
    d.probe = make_instance(d, lmm, k, probe_quad_cb);
    check(CVodeQuadSStolerances(d.probe.mem, options.rtol, options.quad_atol), "CVodeQuadSStolerances");
  }
}

CvodeIntegrator::~CvodeIntegrator() {
  Impl& d = *impl_;
  if (d.probe.mem) d.probe.free();
  CVodeFree(&d.mem);
  SUNLinSolFree(d.LS);
  SUNMatDestroy(d.A);
  N_VDestroy(d.y);
  N_VDestroy(d.q);
  SUNContext_Free(&d.ctx);
}

void CvodeIntegrator::reset(double t0, const double* y0, const double* q0, const std::vector<int>& directions) {
  Impl& d = *impl_;
  const IntegratorCounters c = d.current();
  d.done.steps += c.steps;
  d.done.rhs_evals += c.rhs_evals;
  d.done.jac_evals += c.jac_evals;
  d.done.root_evals += c.root_evals;
  d.done.nonlinear_iters += c.nonlinear_iters;
  d.done.error_test_fails += c.error_test_fails;

  double* yd = N_VGetArrayPointer(d.y);
  for (int i = 0; i < d.options.size; ++i) yd[i] = y0[i];
  check(CVodeReInit(d.mem, t0, d.y), "CVodeReInit");
  if (d.options.quadratures > 0) {
    double* qd = N_VGetArrayPointer(d.q);
    for (int i = 0; i < d.nq; ++i) qd[i] = i < d.options.quadratures ? q0[i] : 0.0;
    check(CVodeQuadReInit(d.mem, d.q), "CVodeQuadReInit");
  }
  if (d.probe.mem) {
    double* py = N_VGetArrayPointer(d.probe.y);
    for (int i = 0; i < d.options.size; ++i) py[i] = y0[i];
    check(CVodeReInit(d.probe.mem, t0, d.probe.y), "CVodeReInit");
    double* pq = N_VGetArrayPointer(d.probe.q);
    for (sunindextype i = 0; i < N_VGetLength(d.probe.q); ++i) pq[i] = q0[i];
    check(CVodeQuadReInit(d.probe.mem, d.probe.q), "CVodeQuadReInit");
    d.fresh = true;
  }
  const int n = static_cast<int>(directions.size());
  if (n != d.nroots) {
    check(CVodeRootInit(d.mem, n, n > 0 ? root_cb : nullptr), "CVodeRootInit");
    d.nroots = n;
    roots_found_.assign(n, 0);
  }
  if (n > 0)  // CVODE copies the directions; its C signature is just not const
    check(CVodeSetRootDirection(d.mem, const_cast<int*>(directions.data())), "CVodeSetRootDirection");
}

namespace {

// CVODE's initial step after a reset depends on the quadratures' tolerances
// other than through the error norm that quadrature_length keeps exact (its
// upper bound divides by them directly). So the probe, a CVODE with the
// controlled quadratures alone, reset to the same state, computes it as
// CVODE would without the others (it takes its first step to do so), and the
// main instance starts with that step: its steps are then those of a run
// without the uncontrolled quadratures.
void first_step(Impl& d, double tout, double tstop) {
  d.fresh = false;
  check(CVodeSetStopTime(d.probe.mem, tstop), "CVodeSetStopTime");
  double t = 0.0;
  CVode(d.probe.mem, tout, d.probe.y, &t, CV_ONE_STEP);  // its outcome is the main instance's to meet
  double h0 = 0.0;
  check(CVodeGetActualInitStep(d.probe.mem, &h0), "CVodeGetActualInitStep");
  check(CVodeSetInitStep(d.mem, h0), "CVodeSetInitStep");
}

}  // namespace

CvodeIntegrator::Outcome CvodeIntegrator::advance(double tout, double tstop, double& t, double* y) {
  Impl& d = *impl_;
  check(CVodeSetStopTime(d.mem, tstop), "CVodeSetStopTime");
  d.callback_error.clear();
  if (d.fresh) first_step(d, tout, tstop);
  const int flag = CVode(d.mem, tout, d.y, &t, CV_NORMAL);
  const double* yd = N_VGetArrayPointer(d.y);
  for (int i = 0; i < d.options.size; ++i) y[i] = yd[i];
  switch (flag) {
    case CV_SUCCESS:
      return Outcome::reached;
    case CV_ROOT_RETURN:
      return Outcome::root;
    case CV_TSTOP_RETURN:
      return Outcome::stop_time;
    default:
      if (!d.callback_error.empty()) last_error_ = d.callback_error + " (" + flag_name(flag) + ")";
      else if (last_error_.empty()) last_error_ = flag_name(flag);
      return Outcome::failure;
  }
}

const std::vector<int>& CvodeIntegrator::roots_found() {
  if (impl_->nroots > 0) CVodeGetRootInfo(impl_->mem, roots_found_.data());
  return roots_found_;
}

void CvodeIntegrator::quadratures(double t, double* q) {
  Impl& d = *impl_;
  if (d.options.quadratures == 0) return;
  double tret = t;
  CVodeGetQuad(d.mem, &tret, d.q);
  const double* qd = N_VGetArrayPointer(d.q);
  for (int i = 0; i < d.options.quadratures; ++i) q[i] = qd[i];
}

IntegratorCounters CvodeIntegrator::counters() const {
  IntegratorCounters c = impl_->current();
  const IntegratorCounters& d = impl_->done;
  c.steps += d.steps;
  c.rhs_evals += d.rhs_evals;
  c.jac_evals += d.jac_evals;
  c.root_evals += d.root_evals;
  c.nonlinear_iters += d.nonlinear_iters;
  c.error_test_fails += d.error_test_fails;
  return c;
}

}  // namespace luztar
