#include "solvers/cvode_integrator.hpp"

#include "core/number_text.hpp"

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace luztar {

struct CvodeIntegrator::Impl {
  OdeSystem* system = nullptr;
  IntegratorOptions options;
  SUNContext ctx = nullptr;
  void* mem = nullptr;
  N_Vector y = nullptr, q = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  int nroots = -1;
  IntegratorCounters done;  // counters of finished segments (CVodeReInit resets CVODE's)
  std::string* last_error = nullptr;
  std::string callback_error;  // what a callback threw (CVODE is C: nothing may unwind through it)
  // A right-hand side or quadrature rate that was not finite, refused as a
  // recoverable error (CVODE retries a shorter step): the text a failure
  // that follows reports (no_finite_rate).
  std::string nonfinite_rate;
  bool error_reported = false;  // CVODE reported an error (not a warning) during the current call
  std::vector<double> y_entry;  // (size) the state advance() started from: a failure's state when CVODE's is not its own
  // A restart whose first step tries the last one's size (reset_inputs), kept
  // until that step is taken: if it fails, the restart is made again with
  // CVODE's own estimate (storage sized once: no allocation per restart).
  bool trial = false;
  double trial_t0 = 0.0;
  std::vector<double> trial_y, trial_q;
  std::vector<int> trial_directions;
  // The root functions at the last return (or reset) and now, and the
  // watched directions (catch_missed_roots).
  std::vector<double> g_last, g_now;
  std::vector<int> directions;

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

// A rate that is not finite (a power over 1.8e308 W: a velocity of 1e300 t
// under 1e300 N m overflows the energies' rates at once) is refused as
// CVODE's recoverable error: a shorter step may stay finite; if none does,
// CVODE fails and the failure names the rates (before, CVODE ran on with a
// step of 0, returned success at a tout it never reached and left its output
// unwritten: a new-user hunt).
int finite_rates(Impl& d, const char* what, double t, N_Vector v) {
  const double* x = N_VGetArrayPointer(v);
  const sunindextype n = N_VGetLength(v);
  for (sunindextype i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) {
      d.nonfinite_rate = std::string(what) + " not finite at t = " + shortest(t) + " s";
      return 1;
    }
  return 0;
}

int rhs_cb(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
  auto* impl = static_cast<Impl*>(data);
  const int flag = shielded(data, [&] { impl->system->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot)); });
  return flag != 0 ? flag : finite_rates(*impl, "the right-hand side (the bodies' accelerations) is", t, ydot);
}

int quad_cb(sunrealtype t, N_Vector y, N_Vector qdot, void* data) {
  auto* impl = static_cast<Impl*>(data);
  const int flag =
      shielded(data, [&] { impl->system->quadrature(t, N_VGetArrayPointer(y), N_VGetArrayPointer(qdot)); });
  return flag != 0 ? flag : finite_rates(*impl, "the energy accounts' rates (powers, quadratures) are", t, qdot);
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

// CVODE reports through this instead of printing: the message becomes the
// run's status text. An error (a negative code; CV_WARNING is positive)
// reported during a call that still returns success makes that return a
// failure (advance: CVode ignores a failed interpolation at tout).
void error_cb(int code, const char* module, const char* function, char* msg, void* data) {
  auto* impl = static_cast<Impl*>(data);
  *impl->last_error = std::string(module) + " " + function + ": " + msg;
  if (code < 0) impl->error_reported = true;
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

// Quadratures beyond the k controlled ones (IntegratorOptions) must not
// change the error test. CVODE's error test takes the WRMS norm of all n
// quadratures, sqrt(sum (e_i w_i)^2 / n), weights w_i = 1 / (rtol |q_i| +
// atol_i). The uncontrolled ones get atol_i = 1e300, so (e_i w_i)^2
// underflows to exactly 0, and the controlled ones' tolerances are scaled by
// s = sqrt(k / n): their weights are w_i / s, and the norm is that of the k
// controlled ones alone (to the roundoff of s: steps may differ in the last
// bits from a run without the others). (Padding the vector to n = k 4^j made
// s a power of two, exact to the bit, but every vector operation then costs
// n entries: 60 % more time on the gear train.) Returns the scale s.
double quadrature_scale(const IntegratorOptions& o) {
  const int k = o.controlled_quadratures < 0 ? o.quadratures : o.controlled_quadratures;
  return k < o.quadratures ? std::sqrt(static_cast<double>(k) / o.quadratures) : 1.0;
}

// Error control over the first k quadratures only (quadrature_scale).
void set_quadrature_tolerances(Impl& d) {
  const double scale = quadrature_scale(d.options);
  const int k = d.options.controlled_quadratures < 0 ? d.options.quadratures : d.options.controlled_quadratures;
  if (d.options.quadratures == k) {
    check(CVodeQuadSStolerances(d.mem, d.options.rtol, d.options.quad_atol), "CVodeQuadSStolerances");
    return;
  }
  N_Vector atol = N_VNew_Serial(d.options.quadratures, d.ctx);
  double* a = N_VGetArrayPointer(atol);
  for (int i = 0; i < d.options.quadratures; ++i) a[i] = i < k ? d.options.quad_atol * scale : 1e300;
  const int flag = CVodeQuadSVtolerances(d.mem, d.options.rtol * scale, atol);
  N_VDestroy(atol);
  check(flag, "CVodeQuadSVtolerances");
}

}  // namespace

CvodeIntegrator::CvodeIntegrator(OdeSystem& system, const IntegratorOptions& options, Method method)
    : impl_(std::make_unique<Impl>()), method_(method) {
  Impl& d = *impl_;
  d.system = &system;
  d.options = options;
  d.last_error = &last_error_;
  d.y_entry.assign(static_cast<std::size_t>(options.size), 0.0);
  check(SUNContext_Create(nullptr, &d.ctx), "SUNContext_Create");
  d.y = N_VNew_Serial(options.size, d.ctx);
  d.q = N_VNew_Serial(options.quadratures, d.ctx);
  N_VConst(0.0, d.y);
  N_VConst(0.0, d.q);
  d.mem = CVodeCreate(method == Method::bdf ? CV_BDF : CV_ADAMS, d.ctx);  // Newton by default
  if (!d.mem) throw std::runtime_error("CVodeCreate failed");
  check(CVodeSetErrHandlerFn(d.mem, error_cb, &d), "CVodeSetErrHandlerFn");
  check(CVodeInit(d.mem, rhs_cb, 0.0, d.y), "CVodeInit");
  check(CVodeSetUserData(d.mem, &d), "CVodeSetUserData");
  check(CVodeSStolerances(d.mem, options.rtol, options.atol), "CVodeSStolerances");
  if (options.band) {
    const int hb = options.half_bandwidth;
    d.A = SUNBandMatrix(options.size, hb, hb, d.ctx);
    d.LS = SUNLinSol_Band(d.y, d.A, d.ctx);
  } else {
    d.A = SUNDenseMatrix(options.size, options.size, d.ctx);
    d.LS = SUNLinSol_Dense(d.y, d.A, d.ctx);
  }
  check(CVodeSetLinearSolver(d.mem, d.LS, d.A), "CVodeSetLinearSolver");
  check(CVodeSetJacFn(d.mem, jac_cb), "CVodeSetJacFn");
  check(CVodeSetMaxNumSteps(d.mem, 1000000), "CVodeSetMaxNumSteps");
  check(CVodeSetMaxHnilWarns(d.mem, -1), "CVodeSetMaxHnilWarns");
  check(CVodeSetNoInactiveRootWarn(d.mem), "CVodeSetNoInactiveRootWarn");
  if (options.max_step > 0.0) check(CVodeSetMaxStep(d.mem, options.max_step), "CVodeSetMaxStep");
  if (options.quadratures > 0) {
    check(CVodeQuadInit(d.mem, quad_cb, d.q), "CVodeQuadInit");
    set_quadrature_tolerances(d);
    check(CVodeSetQuadErrCon(d.mem, SUNTRUE), "CVodeSetQuadErrCon");
  }
}

CvodeIntegrator::~CvodeIntegrator() {
  Impl& d = *impl_;
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
  check(CVodeSetInitStep(d.mem, 0.0), "CVodeSetInitStep");  // (CVODE's estimate: reset_inputs may have set one)
  if (d.options.quadratures > 0) {
    double* qd = N_VGetArrayPointer(d.q);
    for (int i = 0; i < d.options.quadratures; ++i) qd[i] = q0[i];
    check(CVodeQuadReInit(d.mem, d.q), "CVodeQuadReInit");
  }
  const int n = static_cast<int>(directions.size());
  if (n != d.nroots) {
    check(CVodeRootInit(d.mem, n, n > 0 ? root_cb : nullptr), "CVodeRootInit");
    d.nroots = n;
    roots_found_.assign(n, 0);
  }
  if (n > 0)  // CVODE copies the directions; its C signature is just not const
    check(CVodeSetRootDirection(d.mem, const_cast<int*>(directions.data())), "CVodeSetRootDirection");
  d.directions.assign(directions.begin(), directions.end());  // (capacity kept: no allocation per reset)
  d.g_last.resize(static_cast<std::size_t>(n));
  d.g_now.resize(static_cast<std::size_t>(n));
  if (n > 0) d.system->roots(t0, y0, d.g_last.data());
}

// A watched function that changed sign in its direction between the last
// return and this one without a root return: CVODE drops a root within its
// root tolerance (100 uround (|t| + |h|), 2e-14 s at t = 1 s) of a stop time,
// and the restart at the stop starts past it, so it was lost (a body on a
// Coulomb bearing slowing to rest at 1 s ran on backwards, its friction
// driving it, when an unrelated step came 2e-14 s later; freewheels and lossy
// gears likewise; a new-user hunt). Such a crossing is returned as a root at
// the stop, as the exact integrator returns one at a sub-step's end.
bool CvodeIntegrator::catch_missed_roots(double t, const double* y) {
  Impl& d = *impl_;
  if (d.nroots <= 0) return false;
  d.system->roots(t, y, d.g_now.data());
  bool any = false;
  for (std::size_t r = 0; r < d.g_now.size(); ++r) {
    const double before = d.g_last[r], now = d.g_now[r];
    const int from = before > 0.0 ? 1 : before < 0.0 ? -1 : 0, to = now > 0.0 ? 1 : now < 0.0 ? -1 : 0;
    const bool crossed = from != 0 && to == -from && (d.directions[r] == 0 || d.directions[r] == to);
    roots_found_[r] = crossed ? to : 0;
    any = any || crossed;
  }
  d.g_last.swap(d.g_now);
  return any;
}

// A jump of the inputs alone: the history of the old right-hand side is
// dropped as at any reset (carried across the jump, BDF's error test failed
// at once and Adams lost 2000 times its rtol), but the first step tries the
// last one's size: the solution's scales have not changed, and CVODE's own
// estimate from scratch made a host loop at 1 kHz take three times as long.
// Its error test still decides the step; where that trial fails (a long last
// step from a quiet state into a large jump of the accelerations: 6 error
// test failures cannot shrink it enough), advance() restarts with CVODE's
// own estimate (a review finding: the run stopped with a solver failure).
void CvodeIntegrator::reset_inputs(double t0, const double* y0, const double* q0, const std::vector<int>& directions) {
  Impl& d = *impl_;
  double last = 0.0;
  if (CVodeGetLastStep(d.mem, &last) != CV_SUCCESS || !std::isfinite(last)) last = 0.0;
  reset(t0, y0, q0, directions);
  if (!(last > 0.0)) return;
  check(CVodeSetInitStep(d.mem, last), "CVodeSetInitStep");
  d.trial = true;
  d.trial_t0 = t0;
  d.trial_y.assign(y0, y0 + d.options.size);
  d.trial_q.assign(q0, q0 + d.options.quadratures);
  d.trial_directions = directions;
}

// A return of CVode that is not what it claims: an error reported during
// the call (a failed interpolation at tout, which CVode ignores), the
// quadratures not read, or a state not finite. Returns why, "" when the
// return stands; the quadratures are read here (quadratures() copies them).
std::string CvodeIntegrator::unsound_return(double t, const double* y) {
  Impl& d = *impl_;
  double tcur = NAN, h = NAN;
  if (CVodeGetCurrentTime(d.mem, &tcur) != CV_SUCCESS || CVodeGetCurrentStep(d.mem, &h) != CV_SUCCESS)
    return "CVodeGetCurrentTime / CVodeGetCurrentStep failed";
  // (a root or tout lies within the last step: t <= tcur up to its roundoff)
  // (CVODE returns at a tstop once tn is within 100 eps (|tn| + |h|) of it, short of it: the same band)
  const bool reached = !(t > tcur + 100.0 * DBL_EPSILON * (std::max(std::abs(t), std::abs(tcur)) + std::abs(h)));
  if (!reached || d.error_reported) {
    std::ostringstream os;
    os << "CVODE returned t = " << shortest(t) << " s without reaching it (its steps stopped at t = " << shortest(tcur)
       << " s, next step size " << shortest(h) << " s";
    if (h == 0.0) os << ": a derivative of the solution overflows double precision";
    os << ")";
    if (!d.nonfinite_rate.empty()) os << "; " << d.nonfinite_rate;
    if (d.error_reported) os << "; " << last_error_;
    return os.str();
  }
  if (d.options.quadratures > 0) {
    double tq = t;
    const int flag = CVodeGetQuad(d.mem, &tq, d.q);
    if (flag < 0) return last_error_.empty() ? "CVodeGetQuad: " + flag_name(flag) : last_error_;
  }
  for (int i = 0; i < d.options.size; ++i)
    if (!std::isfinite(y[i])) return "the state is not finite at t = " + shortest(t) + " s";
  const double* qd = N_VGetArrayPointer(d.q);
  for (int i = 0; i < d.options.quadratures; ++i)
    if (!std::isfinite(qd[i]))
      return "the energy accounts (quadratures) are not finite at t = " + shortest(t) + " s";
  return "";
}

// A failure's time and state: CVODE's last step (tret = tcur past the
// start, a finite state) where it returns one, else those advance() started
// from: never an output CVODE did not write (after CV_ILL_INPUT it sets
// tret = tout; a failure of its first step's estimate writes neither).
void CvodeIntegrator::failure_state(double t_entry, double& t, double* y) {
  Impl& d = *impl_;
  double tcur = NAN;
  bool own = CVodeGetCurrentTime(d.mem, &tcur) == CV_SUCCESS && t == tcur && t > t_entry;
  for (int i = 0; own && i < d.options.size; ++i) own = std::isfinite(y[i]);
  if (own) return;
  t = t_entry;
  for (int i = 0; i < d.options.size; ++i) y[i] = d.y_entry[static_cast<std::size_t>(i)];
}

CvodeIntegrator::Outcome CvodeIntegrator::advance(double tout, double tstop, double& t, double* y) {
  Impl& d = *impl_;
  check(CVodeSetStopTime(d.mem, tstop), "CVodeSetStopTime");
  const double t_entry = t;
  for (int i = 0; i < d.options.size; ++i) d.y_entry[static_cast<std::size_t>(i)] = y[i];
  d.callback_error.clear();
  d.nonfinite_rate.clear();
  d.error_reported = false;
  last_error_.clear();
  int flag = CVode(d.mem, tout, d.y, &t, CV_NORMAL);
  if (d.trial && (flag == CV_ERR_FAILURE || flag == CV_CONV_FAILURE) && d.callback_error.empty()) {
    long steps = 0;  // (no step taken: the trial step failed; reset_inputs)
    if (CVodeGetNumSteps(d.mem, &steps) == CV_SUCCESS && steps == 0) {
      d.trial = false;
      last_error_.clear();  // (the trial's message)
      d.nonfinite_rate.clear();
      d.error_reported = false;
      reset(d.trial_t0, d.trial_y.data(), d.trial_q.data(), d.trial_directions);
      check(CVodeSetStopTime(d.mem, tstop), "CVodeSetStopTime");
      flag = CVode(d.mem, tout, d.y, &t, CV_NORMAL);
    }
  }
  d.trial = false;
  const double* yd = N_VGetArrayPointer(d.y);
  for (int i = 0; i < d.options.size; ++i) y[i] = yd[i];
  if (flag >= 0) {
    std::string why = unsound_return(t, y);
    if (!why.empty()) {
      last_error_ = std::move(why);
      t = t_entry;
      for (int i = 0; i < d.options.size; ++i) y[i] = d.y_entry[static_cast<std::size_t>(i)];
      return Outcome::failure;
    }
  }
  switch (flag) {
    case CV_SUCCESS:
      return catch_missed_roots(t, y) ? Outcome::root : Outcome::reached;
    case CV_ROOT_RETURN:
      // the functions now, those found taking their new sign (they may stand
      // at 0 still): the base for the next return's check
      if (d.nroots > 0) {
        d.system->roots(t, y, d.g_last.data());
        check(CVodeGetRootInfo(d.mem, roots_found_.data()), "CVodeGetRootInfo");
        for (std::size_t r = 0; r < d.g_last.size(); ++r)
          if (roots_found_[r] != 0) d.g_last[r] = roots_found_[r];
      }
      return Outcome::root;
    case CV_TSTOP_RETURN:
      return catch_missed_roots(t, y) ? Outcome::root : Outcome::stop_time;
    default:
      if (!d.callback_error.empty()) last_error_ = d.callback_error + " (" + flag_name(flag) + ")";
      else if (!d.nonfinite_rate.empty()) last_error_ = d.nonfinite_rate + " (" + flag_name(flag) + ")";
      else if (last_error_.empty()) last_error_ = flag_name(flag);
      failure_state(t_entry, t, y);
      return Outcome::failure;
  }
}

const std::vector<int>& CvodeIntegrator::roots_found() { return roots_found_; }  // (filled at the return: advance)

// Those advance() read at its last return (unsound_return), or reset() set;
// after a failure, those of the last return before it.
void CvodeIntegrator::quadratures(double, double* q) {
  Impl& d = *impl_;
  if (d.options.quadratures == 0) return;
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
