#pragma once
// The exact piecewise-linear integrator (issue 17): closed-form propagation of
// a fixed mode between two stops of the event pipeline.
//
// The state. z = [y; xi], y the model's state (n), xi the exosystem of the slot
// signals (solvers/exact/exosystem.hpp, xi[0] = 1). In a mode,
//   z' = Abar z,  Abar = [[J, B C + b0 e1^T], [0, S]],   g = G z,   qdot_j = z^T Q_j z,
// with J, B, b0 (rhs), the root rows and the quadratic forms identified from the
// AffineModeSystem by probing: b0 = rhs(0, 0), J e_i = rhs(e_i, 0) - b0,
// B e_k = rhs(0, e_k) - b0, the same for the roots, and the quadratures'
// forms by polarisation (q(0), q(+-e_i), q(e_i + e_j)). The identified mode is
// cached by (mode key, exosystem pieces) in a bounded LRU (ExactOptions::cache_modes).
//
// A sub-step is z <- exp(Abar h) z with h = norm_step / ||D^-1 Abar D||_inf (D:
// Osborne balancing, so for an oscillator h ~ norm_step / omega, not / k) capped
// at max_substep; the exponential of (mode, h) and its Van Loan integrals
// (matrix_exponential.hpp) are cached (PropagatorCache), and the quadratures
// over a sub-step are z^T W z. A stop at tout, tstop, a breakpoint or a root
// inside a sub-step is a shorter step s: z(s) and the quadratures' integrals
// then come from the Taylor series of z (the same 16 terms A^k z the event
// search uses), whose truncation is below 1e-18 relative (||Abar s|| <= 1/2 in
// the balanced basis): as exact as one more exponential, at a tenth of its cost,
// and no cache entry per odd length.
//
// What is exact: the propagation, outputs at any tout (never interpolated, and
// independent of the sub-step), the quadratures, and the root times, each up to
// roundoff: in the Pade exponential (relative ~1e-15 per step for
// ||Abar h|| <= 1, accumulating linearly over sub-steps), and in the
// identification by probing (the differences rhs(e_i) - rhs(0) lose the digits
// of b0 against J's entries; exact when the maps are affine, as every luztar law
// is in a fixed mode; a system that is not affine is caught by a self-check at
// the state of the identification, check_identified, and refused).
// What is certified: no watched root is missed (solvers/exact/event_search.hpp):
// every crossing whose excursion beyond zero exceeds 4 tol (tol ~ 64 eps times
// the function's scale on the sub-step, plus a Taylor remainder below it) is
// found, the first one located by safeguarded Newton; a touch (double root,
// grazing reserve) is no crossing; a root at the instant of a reset is not
// reported again. What is not: roundoff itself (a crossing smaller than 4 tol
// may pass for a touch), and speed at large sizes: the dense exponential is
// O(N^3). Measured on this 2-core machine (Release, lightly loaded), per new
// (mode, h): exp 3.0 us and propagator with two Van Loan integrals 37 us at
// N = 12 (n = 8), 16 us and 0.3 ms at N = 24 (n = 20); per sub-step with an
// output stop every 1 ms (a 4- and a 10-body chain, 6 and 18 root functions),
// 2.9 us at N = 12 and 7.1 us at N = 24 (Taylor data 0.7 / 1.9 us; an event
// function excluded at once 0.15-0.2 us, one with a root in the sub-step located
// in 2.9 us: 51 enclosures, 3 Newton steps). For the long chains of
// luztar_bench the pipeline should fall back to CVODE above a measured size.
//
// Signals: the pipeline stops at every breakpoint of the slot signals; if it
// does not, the integrator re-reads xi there itself (not a root). Kinks of
// dead_zone and saturation blocks are watched internally: crossing one switches
// the block's piece (a new Abar, cached) without reporting a model event.
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include <Eigen/Dense>

#include "core/signal.hpp"
#include "solvers/exact/affine_mode_system.hpp"
#include "solvers/exact/event_search.hpp"
#include "solvers/exact/exosystem.hpp"
#include "solvers/exact/matrix_exponential.hpp"
#include "solvers/integrator.hpp"

namespace luztar::exact {

// Relative tolerance of the identification self-check (check_identified):
// probing loses a few ulp per entry (rhs(e_i) - rhs(0) against b0).
inline constexpr double kIdentificationTolerance = 1e-12;

struct ExactOptions {
  double norm_step = kMaxNormStep;  // sub-step h = norm_step / ||D^-1 Abar D||_inf (<= kMaxNormStep)
  double max_substep = 1.0;         // cap on h [s] (also h of a mode with Abar = 0)
  std::size_t cache_modes = 256;    // identified modes kept (least recently used dropped)
  std::size_t cache_propagators = 2048;  // exponentials kept over all modes
};

// Work done, summed over resets (the Integrator counters map onto these).
struct ExactStatistics {
  long substeps = 0;         // propagations (regular and shortened)
  long identifications = 0;  // modes identified by probing (cache misses)
  long probes = 0;           // rhs / roots / quadrature evaluations in identifications
  long searches = 0;         // event functions searched in full (not excluded by the first-order bound)
  long kinks = 0;            // dead_zone / saturation pieces switched
  SearchCounters search;
};

class ExactIntegrator : public Integrator {
 public:
  // slots: the slot signals (p = system.slot_count(), outliving the integrator);
  // inputs: the input values they read (named inputs, then sampled outputs; read at
  // every reset and breakpoint), or null for their initial values.
  ExactIntegrator(AffineModeSystem& system, std::vector<const Signal*> slots, const double* inputs,
                  const ExactOptions& options = {});

  const char* name() const override { return "exact"; }
  void reset(double t0, const double* y0, const double* q0, const std::vector<int>& directions) override;
  Outcome advance(double tout, double tstop, double& t, double* y) override;
  const std::vector<int>& roots_found() override { return roots_found_; }
  void quadratures(double t, double* q) override;
  // steps: sub-steps; rhs_evals: probes; jac_evals: identifications (each
  // with its sub-step's exponential: what allocates in a warm run);
  // root_evals: full event searches; nonlinear_iters: root-locating iterations.
  IntegratorCounters counters() const override;
  const std::string& last_error() const override { return last_error_; }
  bool holds_inputs() const override { return true; }  // read at reset and at breakpoints

  const ExactStatistics& statistics() const { return stats_; }
  const PropagatorCache& propagator_cache() const { return propagators_; }
  int state_size() const { return static_cast<int>(z_.size()); }  // N = n + exosystem states

 private:
  struct Mode {
    std::int64_t id = 0;
    Eigen::MatrixXd A;              // Abar, N x N
    Eigen::MatrixXd G;              // root rows then kink rows, x N
    std::vector<Eigen::MatrixXd> Q;  // per quadrature, N x N symmetric
    Eigen::VectorXd D;              // balancing of A
    Eigen::RowVectorXd g_norm;      // ||G_j D||_1 per row
    double norm = 0.0;              // ||D^-1 A D||_inf
    double h = 0.0;                 // sub-step [s]
  };
  void select_mode();
  void identify(Mode& mode);
  // identify()'s parts: A and G from the affine rhs and roots (by columns),
  // the quadratic forms Q by polarisation (in z).
  void identify_affine(Mode& mode);
  void identify_quadratures(Mode& mode);
  // advance()'s parts on one sub-step of length `step` from t_: the first
  // crossing of any watched function (INFINITY when none; cross_s_, cross_dir_
  // per function, signs_ updated for those ruled out), and the stop there
  // (signs, roots_found_, kinks switched; true when a model root was crossed).
  double first_crossing_on(double step, double resolution);
  bool stop_at_crossing(double best, double step, bool last, double end, double resolution);
  // Self-check of a fresh identification: the maps reproduce the system's rhs
  // and roots at the current state to kIdentificationTolerance relative (to
  // the sum of the magnitudes of each row's terms), else std::logic_error: a
  // system that is not affine in its mode is refused, never linearised.
  void check_identified(const Mode& mode);
  void restart_signs();
  void read_signals();
  double next_breakpoint();  // (uses break_scratch_)
  // Moves z, q and t by s inside the current mode: by the cached exponential
  // and Van Loan integrals of (mode, s) (the regular sub-step), or by the
  // Taylor series of z at t (a shortened step, s <= h: its truncation is below
  // 1e-18 relative since ||D^-1 Abar D|| s <= 1/2 with 16 terms).
  void propagate(double s);
  void propagate_partial(double s);

  AffineModeSystem& system_;
  Exosystem exo_;
  const double* inputs_;
  ExactOptions options_;
  int n_ = 0, p_ = 0, roots_ = 0, quads_ = 0;

  std::list<Mode> modes_;  // most recent first
  std::unordered_map<std::string, std::list<Mode>::iterator> mode_index_;
  std::int64_t next_mode_id_ = 0;
  Mode* mode_ = nullptr;
  PropagatorCache propagators_;

  double t_ = 0.0, next_break_ = INFINITY;
  Eigen::VectorXd z_, q_;
  std::vector<int> directions_;  // roots (given) then kinks (both)
  std::vector<int> signs_;       // sign of each watched function just before t_
  std::vector<int> roots_found_;
  std::vector<std::int8_t> key_scratch_;
  std::string key_;
  TaylorData taylor_;
  bool taylor_fresh_ = false;  // taylor_ holds the series of the current z_
  Eigen::MatrixXd qv_, gram_;  // scratch of propagate_partial
  Eigen::VectorXd gz_, zscratch_;
  Eigen::VectorXd xi_;                // exosystem state at the last read (kept: no allocation per reset)
  std::vector<double> break_scratch_;  // breakpoints collected by next_breakpoint
  std::vector<double> cross_s_;  // per watched function: its first crossing on the sub-step
  std::vector<int> cross_dir_, before_;
  std::vector<EventPolynomial> polys_;
  std::vector<char> searched_;
  ExactStatistics stats_;
  std::string last_error_;
};

}  // namespace luztar::exact
