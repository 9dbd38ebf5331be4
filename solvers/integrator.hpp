#pragma once
// What integrates the state of the event-driven solver between two stops of
// its event pipeline (solvers/simulator.hpp), behind one small interface, so
// that the event logic does not depend on how a segment is integrated.
// Implementations: CVODE's BDF and Adams methods (solvers/cvode_integrator.hpp)
// and the exact piecewise-linear integrator (solvers/exact/exact_integrator.hpp).
// make_integrator() is the one place that builds one.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/signal.hpp"
#include "solvers/dynamics.hpp"
#include "solvers/exact/affine_mode_system.hpp"

namespace luztar {

// The system an integrator integrates, in a fixed mode: y' = rhs(t, y), its
// Jacobian, the mode's root functions g(t, y) and the quadratures q' (input
// work, dissipated energy) at (t, y).
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
  // The first this many quadratures steer the steps (CVODE's error control);
  // the others are integrated on the same steps, so that adding them changes
  // no step (the per-element dissipated energies). -1: all of them.
  int controlled_quadratures = -1;
  double rtol = 1e-8;
  double atol = 1e-10;
  double quad_atol = 1e-10;  // absolute tolerance of the quadratures [J]
  double max_step = 0.0;     // 0 = no limit (CVODE: simulation.max_step and the signals' turning times)
  double grid_step = 0.0;    // output grid spacing [s] (exact: the sub-step it aims at; 0 = none)
  double max_substep = 0.0;  // simulation.max_step alone [s] (exact: the cap on its sub-step; 0 = none)
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
  // Right after reset(): the sign root function r takes as it leaves its value
  // at t0, where the integrator knows it to every order (exact: from the
  // function's Taylor coefficients, so a function at 0 whose first nonzero
  // derivative is the second or a higher one); 0 where it cannot tell (CVODE)
  // or the function stays at 0. A function that leaves 0 downwards never
  // crosses 0 afterwards: the pipeline must act on it at t0.
  virtual int leaving_sign(int r) const {
    (void)r;
    return 0;
  }
  // How far past 0 a slipping element's velocity root is watched [rad/s of
  // the bodies] (solvers/dynamics.hpp, build_mode_structure): a hysteresis
  // against roots of roundoff after a break-away at the threshold. CVODE's
  // error in v is of the order of atol, so 1e-3 atol; the exact integrator's
  // values are closed forms and its root finding starts from the sign a
  // function leaves 0 with, so it watches 0 itself (its arrivals do not
  // depend on atol, which it does not use).
  virtual double slip_margin(double atol) const { return 1e-3 * atol; }
  // What the pipeline takes as rest at an event, in the bodies' units: a
  // relative velocity within `velocity` [rad/s] of 0, and a rebound whose
  // flight would rise less than `depth` [rad] off its flank (the impact is
  // then plastic: solvers/impacts.hpp); `gap` [rad] is the size of the
  // struck freeplays' angles. The roundoff of the rates and angles always
  // counts beside these (core/coordinate.hpp, row_at_rest). CVODE cannot
  // tell velocities within atol from 0 nor see a flight below 1000 angle
  // tolerances; the exact integrator resolves both to roundoff, so its rest
  // does not depend on atol and rtol, which it does not use.
  struct Resolution {
    double velocity = 0.0;  // [rad/s]
    double depth = 0.0;     // [rad]
  };
  virtual Resolution resolution(double atol, double rtol, double gap) const {
    return {atol, 1e3 * (atol + rtol * gap)};
  }
  virtual void quadratures(double t, double* q) = 0;   // at the last returned time
  virtual IntegratorCounters counters() const = 0;     // summed over resets
  virtual const std::string& last_error() const = 0;
  // True when the integrator took the input values at its last reset (exact:
  // they are constants of its exosystem), so that a changed input needs a
  // reset; false when it reads them at every evaluation (CVODE).
  virtual bool holds_inputs() const { return false; }
  // A restart after a change of input values alone, in the structure of the
  // last reset (the same root functions, `directions` as then): the same as
  // reset(), which is what it does unless the integrator can keep what
  // depends on the structure alone (exact: the mode it identified).
  virtual void reset_inputs(double t0, const double* y0, const double* q0, const std::vector<int>& directions) {
    reset(t0, y0, q0, directions);
  }
};

// The integrator that simulation.integrator names for this model. "auto"
// resolves to "exact" when the exact integrator serves the model
// (exact_integrator_refusal in core/model.hpp) and it has at most
// kAutoExactMaxBodies bodies, else to "cvode_bdf". An explicit "exact" is
// refused (std::invalid_argument with the reason) for a model it cannot
// serve; a large model it serves is run as asked.
std::string resolve_integrator(const Model& model, const SimulationSettings& settings);
// The size above which cvode_bdf is faster than exact (each new mode is
// identified by O(n^2) probes and split in O(n^3)); measured figures in
// solvers/integrator.cpp and in `bash bootstrap.sh bench`.
extern const int kAutoExactMaxBodies;

// The current mode's equations in the two forms the integrators take, with the
// slot signals and the input values they read (exact: its exosystem).
struct SegmentSystem {
  OdeSystem& ode;                       // CVODE
  exact::AffineModeSystem& affine;      // exact
  std::vector<const Signal*> slots;     // (affine.slot_count()) the slot signals, outliving the integrator
  const double* inputs = nullptr;       // (Model::num_input_values), read at each reset
};

// Thrown by an integrator that meets a mode it cannot integrate as promised
// (exact: fast eigenvalues that could not be split off in closed form, which
// would need millions of sub-steps; a mode whose identified affine system
// fails its self-check at the state, i.e. a law that is not affine there). simulate() repeats a run whose
// simulation.integrator is auto with cvode_bdf; an embedded Simulator stops
// with it (solver_failure).
struct IntegratorCannotServe : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Builds the integrator `kind` ("exact", "cvode_bdf" or "cvode_adams"; "auto"
// is resolved first by the caller) over `system`. Throws std::invalid_argument
// for an unknown kind.
std::unique_ptr<Integrator> make_integrator(const std::string& kind, const SegmentSystem& system,
                                            const IntegratorOptions& options);

}  // namespace luztar
