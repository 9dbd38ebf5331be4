#pragma once
// The exact piecewise-linear integrator (issue 17): closed-form propagation of
// a fixed mode between two stops of the event pipeline.
//
// The state. z = [y; xi], y the model's state (n), xi the exosystem of the slot
// signals (solvers/exact/exosystem.hpp, xi[0] = 1). In a mode,
//   z' = Abar z,  Abar = [[J, B C + b0 e1^T], [0, S]],   g = G z,   qdot_j = z^T Q_j z,
// with J, B C, b0 (rhs), the root rows and the quadratic forms identified from
// the AffineModeSystem by probing in z (the slots at a probe are C xi):
// b0 = rhs(0), A e_i = rhs(e_i) - b0 (+ b0 in the column of xi[0]), the same
// for the roots, and the quadratures' forms by polarisation (q(0), q(+-e_i),
// q(e_i + e_j)). The identified mode is cached by (mode key, exosystem
// pieces) in a bounded LRU (ExactOptions::cache_modes).
//
// Fast modes. Each identified mode's fast eigenvalues are split off in closed
// form (solvers/exact/modal_split.hpp: z = T x, x = [x_s; x_f]): those beyond
// kSlowRadius / L0, where L0 = min(ExactOptions::grid_step, max_substep) is the
// sub-step the integrator aims at. The regular sub-step is h = L0 / n with n the
// smallest count that keeps the slow block's Taylor remainder (in its balanced
// norm, D: Osborne balancing) below 1e-20, so h divides the output grid and a
// run between events moves from grid point to grid point. Nothing split (no
// fast eigenvalue, or a split that fails its checks): A_s = A, the plain
// Taylor integrator with correspondingly short sub-steps.
//
// A sub-step moves x, not z (solvers/exact/modal_propagator.hpp): x_s by the
// cached exp(A_s h) (its series), each fast coordinate by e^{lambda h}, the
// quadratures by their closed forms (slow-slow W_ss, fast-fast and slow-fast
// through the resolvents (A_s + mu I)^-1); a shorter step s (to tout, tstop, a
// breakpoint or a root) uses the Taylor data of x_s the event search built and
// the same closed forms at s. The absolute angles of freely turning groups
// (the inert directions) stay out of x, as an offset, so that tens of radians
// never pass through T^-1. z = T x is formed only for the pipeline.
//
// The event search on a sub-step (event_search.hpp) sees each event function
// g = G z(s) as the Taylor polynomial of its slow part plus one closed-form
// term Re(beta e^{lambda s}) per fast eigenvalue. First a cheap bound (the
// slow part's slope, each fast term's largest change) rules out the functions
// that cannot reach zero on the sub-step; only the others are searched.
//
// What is exact: the propagation, outputs at any tout (never interpolated, and
// independent of the sub-step), the quadratures, and the root times, each up to
// roundoff: in the slow block's series (relative ~1e-16 per step, accumulating
// linearly over sub-steps), in the modal split (its condition number, at most
// 1e6, times eps enters the event functions' roundoff bound, never the state),
// and in the identification by probing (the differences rhs(e_i) - rhs(0) lose the digits
// of b0 against J's entries; exact when the maps are affine, as every luztar law
// is in a fixed mode; a system that is not affine is caught by a self-check at
// the state of the identification, check_identified, and refused).
// What is certified: no watched root is missed (solvers/exact/event_search.hpp):
// every crossing whose excursion beyond zero exceeds 4 tol (tol ~ 64 eps times
// the function's scale on the sub-step, at least its terms' in z, plus a
// Taylor remainder below it) is
// found, the first one located by safeguarded Newton; a touch (double root,
// grazing reserve) is no crossing; a root at the instant of a reset is not
// reported again, but a function at 0 there (within roundoff) that leaves it
// in its watched direction is (restart_signs: another element's crossing a
// few roundoff units of time away), and so is one that had not crossed at the
// root stop the reset follows and leaves 0 that way (restart_signs: x,
// re-entered from z, takes in z's absolute angles only to eps of them, and
// can put a value the stop left short of 0 past it by more than its
// roundoff band). The state returned at a root has the root's new sign in z
// as the pipeline reads it (settle_roots: a wait of a few roundoff units of
// time past the root found in x), so a break-away is never read as not yet due. What is not: roundoff itself (a crossing smaller than 4 tol
// may pass for a touch), and speed at large sizes: the dense exponential and
// the eigen-decomposition are O(N^3) per mode and the identification O(N^2)
// probes (the simulator's `auto` chooses CVODE above kAutoExactMaxBodies,
// solvers/integrator.hpp).
//
// Signals: the pipeline stops at every breakpoint of the slot signals; if it
// does not, the integrator re-reads xi there itself (not a root). Kinks of
// dead_zone and saturation blocks are watched internally: crossing one switches
// the block's piece (a new Abar, cached) without reporting a model event.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include <Eigen/Dense>

#include "core/signal.hpp"
#include "solvers/exact/affine_mode_system.hpp"
#include "solvers/exact/event_search.hpp"
#include "solvers/exact/exosystem.hpp"
#include "solvers/exact/modal_propagator.hpp"
#include "solvers/exact/modal_split.hpp"
#include "solvers/integrator.hpp"

namespace luztar::exact {

// Relative tolerance of the identification self-check (check_identified):
// probing loses a few ulp per entry (rhs(e_i) - rhs(0) against b0).
inline constexpr double kIdentificationTolerance = 1e-12;

// Fast eigenvalues: |lambda| > kSlowRadius / L0 (see above).
inline constexpr double kSlowRadius = 0.25;

// The cheap bound of the event search: exact Taylor terms of the slow part
// below this order, Lagrange's remainder at it.
inline constexpr int kBoundOrder = 4;

struct ExactOptions {
  double grid_step = 0.0;    // spacing of the output grid [s], the sub-step aimed at (0: none)
  double max_substep = 1.0;  // cap on h [s] (also h of a mode with Abar = 0)
  std::size_t cache_modes = 256;  // identified modes kept (least recently used dropped)
};

// Work done, summed over resets (the Integrator counters map onto these).
struct ExactStatistics {
  long substeps = 0;         // propagations (regular and shortened)
  long identifications = 0;  // modes identified by probing (cache misses)
  long probes = 0;           // rhs / roots / quadrature evaluations in identifications
  long searches = 0;         // event functions searched in full (not excluded by the first-order bound)
  long kinks = 0;            // dead_zone / saturation pieces switched
  long split = 0;            // identified modes with fast eigenvalues split off
  long settles = 0;          // short moves past a root so that z has its new sign (settle_roots)
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
  // (only for a watched function near 0 at the reset: its first Taylor term
  // beyond roundoff; 0 for the others, whose sign says nothing of leaving)
  int leaving_sign(int r) const override { return leaving_[static_cast<std::size_t>(r)]; }
  double slip_margin(double) const override { return 0.0; }
  Resolution resolution(double, double, double) const override { return {}; }  // roundoff alone
  void quadratures(double t, double* q) override;
  // steps: sub-steps; rhs_evals: probes; jac_evals: identifications (each
  // with its sub-step's exponential: what allocates in a warm run);
  // root_evals: full event searches; nonlinear_iters: root-locating iterations.
  IntegratorCounters counters() const override;
  const std::string& last_error() const override { return last_error_; }
  bool holds_inputs() const override { return true; }  // read at reset and at breakpoints
  // reset() in the mode of the last reset, when the exosystem's pieces at t0
  // are those of the current mode: the mode's lookup is skipped, every
  // number is computed as reset() computes it (bit-identical).
  void reset_inputs(double t0, const double* y0, const double* q0, const std::vector<int>& directions) override;

  const ExactStatistics& statistics() const { return stats_; }
  int state_size() const { return static_cast<int>(z_.size()); }  // N = n + exosystem states

 private:
  struct Mode {
    std::int64_t id = 0;
    Eigen::MatrixXd A;              // Abar, N x N
    Eigen::MatrixXd G;              // root rows then kink rows, x N
    Eigen::MatrixXd G_terms;        // per root row and column: the size of the terms behind G (its roundoff / eps)
    std::vector<Eigen::MatrixXd> Q;  // per quadrature, N x N symmetric
    ModalSplit split;               // z = T x; the slow block and the fast eigenvalues
    ModalPropagator propagator;     // the closed-form step of x
    std::vector<int> watched;       // rows of G not constant in this mode (G A != 0): the ones searched
    std::vector<int> constant;      // the other rows, but for the zero ones (unused root slots: sign 0)
    std::vector<int> zero;
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Gc;  // the constant rows of G (restart_signs)
    Eigen::MatrixXd Gw;             // those rows of G (watched x N)
    Eigen::MatrixXd GT;             // Gw T: the watched rows in x
    Eigen::MatrixXd GT_abs;         // |Gw T| and |Gw|: the scale of each watched value in x and in z (restart_signs)
    Eigen::MatrixXd Gw_abs;
    Eigen::MatrixXd GT_Tinv_abs;    // |Gw T| |T^-1| and |Gw (T T^-1 - I)|: how far x = T^-1 z moves each
    Eigen::MatrixXd G_split_abs;    // watched value (event_function)
    Eigen::LDLT<Eigen::MatrixXd> inert_fit;  // of Kz^T Kz, Kz the inert columns of T: c0 from z (enter_mode)
    Eigen::VectorXd Ds;             // balancing of the slow block
    double slow_norm = 0.0;         // ||Ds^-1 As Ds||_inf
    GrowthBound slow_growth;        // of ||Ds^-1 e^{As s} Ds||
    Eigen::VectorXd cs_norm;        // per watched row: ||(G T)_slow Ds||_1
    Eigen::MatrixXcd fast_c;        // watched x fast: beta_wk = fast_c(w, k) xi_k
    Eigen::MatrixXd fast_c_abs;     // |fast_c|, for the cheap bound
    Eigen::VectorXd fast_rate, fast_angle;  // |lambda_k|, arg lambda_k
    double h = 0.0;                 // regular sub-step [s]
  };
  void select_mode();
  void identify(Mode& mode);
  // identify()'s parts: A and G from the affine rhs and roots (by columns),
  // the quadratic forms Q by polarisation (in z), the modal split and the
  // sub-step with its propagators.
  void identify_affine(Mode& mode);
  // Counts a probe at u = (y, xi) and sets probe_sigma_ = C xi.
  void probe_at(const Eigen::VectorXd& u);
  void identify_quadratures(Mode& mode);
  void identify_split(Mode& mode);
  // The slow block's balancing, growth bound and sub-step, and the propagator
  // (false when the propagator refuses the split).
  bool identify_slow(Mode& mode, double aim);
  // A mode whose slow block needs more than kMaxPieces sub-steps per aim:
  // std::runtime_error naming the fastest eigenvalue (never a silent crawl).
  [[noreturn]] void refuse_substep(const Mode& mode, double aim) const;
  // x from z on entering a mode, z from x when it is read.
  void enter_mode();
  void sync_z();
  // advance()'s parts on one sub-step of length `step` from t_: the first
  // crossing of any watched function (INFINITY when none; cross_s_, cross_dir_
  // per function, signs_ updated for those ruled out), and the stop there
  // (signs, roots_found_, kinks switched; true when a model root was crossed).
  double first_crossing_on(double step, double resolution);
  // first_crossing_on()'s cheap bound: its data from the state (into
  // bound_v_, bound_terms_, bound_, fast_abs_) and over a span (into bound_,
  // fast_change_, fast_reach_), and whether it rules out a crossing of
  // watched function w (value g now) over that span.
  void bound_state();
  void bound_span(double step);
  bool ruled_out(Eigen::Index w, double g) const;
  // The cheap bound over `span` (beyond the sub-step): whether it rules out
  // a crossing of every watched function there (their signs then set).
  bool all_ruled_out(double span);
  bool stop_at_crossing(double best, double step, bool last, double end, double resolution);
  void settle_roots(double end, double resolution);
  // The modal coordinates x = T^-1 z of the current state, the fast ones as
  // complex xi_k (into x_, xi_), and the watched values Gw z (into gz_).
  void modal_state();
  // Watched function w on [0, step] (slow Taylor data built on first use per step).
  const EventFunction& event_function(std::size_t w, double step);
  // Self-check of a fresh identification: the maps reproduce the system's rhs
  // and roots at the current state to kIdentificationTolerance relative (to
  // the sum of the magnitudes of each row's terms, each state taken at least
  // 1, the identification's own probes), else std::logic_error: a
  // system that is not affine in its mode is refused, never linearised.
  void check_identified(const Mode& mode);
  void restart_signs();
  // |T x| into ztx_: z without its inert part, the scale of the values the pipeline reads.
  void modal_z_scale();
  void record_reported();
  bool reported_at_stop(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& row, int direction) const;
  bool uncrossed_at_stop(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& row, int direction) const;
  bool reads_reported_bodies(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& row) const;
  // The exosystem's state at t_ into z, then the mode (kept when `same_mode`
  // and its pieces are unchanged: reset_inputs), the signs, the next breakpoint.
  void read_signals(bool same_mode = false);
  bool same_pieces() const;
  // t_, z's model part and the quadratures of a reset; no root found yet.
  void start_at(double t0, const double* y0, const double* q0);
  double next_breakpoint();  // (uses break_scratch_)
  // Moves x, q and t by s <= h inside the current mode (the propagator's
  // step, or its partial step from the slow Taylor data).
  void propagate(double s);
  void slow_taylor_over(double s);

  AffineModeSystem& system_;
  Exosystem exo_;
  const double* inputs_;
  ExactOptions options_;
  int n_ = 0, p_ = 0, roots_ = 0, quads_ = 0;

  std::list<Mode> modes_;  // most recent first
  std::unordered_map<std::string, std::list<Mode>::iterator> mode_index_;
  std::int64_t next_mode_id_ = 0;
  Mode* mode_ = nullptr;

  double t_ = 0.0, next_break_ = INFINITY;
  Eigen::VectorXd z_, q_;
  // z_ holds sync_z()'s T x_ + K c0 of the current x_ and mode: a root stop
  // reads z at each round of its settle and again on returning, mostly
  // without a step between them.
  bool z_current_ = false;
  std::vector<int> directions_;  // roots (given) then kinks (both)
  std::vector<int> signs_;       // sign of each watched function just before t_
  std::vector<int> leaving_;     // at the last reset: the sign a function near 0 leaves it with, else 0
  std::vector<int> roots_found_;
  std::vector<std::int8_t> key_scratch_;
  std::string key_;
  TaylorData slow_taylor_;       // of the slow block (event functions)
  std::int64_t taylor_mode_ = -1;  // the id of the mode slow_taylor_ was last built in
  bool slow_built_ = false;      // slow_taylor_ holds the current sub-step
  // The state before the last sub-step (x_, q_, t_), put back when the sub-step
  // overflowed (a state no longer finite): a failure reports the last finite
  // state it reached, never a NaN (propagate). overflow_at_: the time the
  // overflowing sub-step went to (NaN: none since the last reset).
  Eigen::VectorXd before_x_, before_q_;
  double before_t_ = 0.0;
  double overflow_at_ = std::numeric_limits<double>::quiet_NaN();
  // Look-ahead: the cheap bound rules out every crossing of the current mode
  // for clear_left_ more seconds of propagation from this state (0: not
  // known), so the sub-steps within it need no search; span_ sub-steps are
  // tried next time (first_crossing_on). enter_mode() clears it.
  double clear_left_ = 0.0;
  double span_ = 2.0;
  bool last_clear_ = false;  // the last search ruled every function out
  Eigen::VectorXd gz_, x_, fast_abs_, fast_change_, fast_reach_;  // x_: the state in the current mode's coordinates (z_ = T x_ when synced)
  Eigen::VectorXd offset_;  // c0: the inert part of z on entering the mode (z_ = T x_ + K c0)
  Eigen::VectorXd zscratch_, xabs_, gscale_, gzscale_, gconst_;
  Eigen::VectorXd ztx_;          // |T x| at the sub-step's start (built with slow_taylor_: modal_z_scale)
  Eigen::VectorXd zrate_;        // A z (settle_roots)
  // The roots reported at the last root stop (their rows in z and
  // directions) and its time: record_reported, reported_at_stop; and the
  // roots watched there that had not crossed in their direction (their sign
  // at the stop the other one): uncrossed_at_stop.
  Eigen::MatrixXd reported_rows_, uncrossed_rows_;
  std::vector<int> reported_dirs_, uncrossed_dirs_;
  Eigen::Index reported_count_ = 0, uncrossed_count_ = 0;
  double reported_time_ = NAN;
  Eigen::VectorXd probe_sigma_;  // the slots at a probe
  Eigen::MatrixXd bound_v_;      // N x (kBoundOrder + 1): As^k xs (first_crossing_on)
  bool bound_current_ = false;   // bound_v_ is of the current x_ and mode (slow_taylor_over starts from it)
  Eigen::MatrixXd bound_terms_;  // functions x (kBoundOrder - 1): their slow Taylor terms
  struct SlowBound {
    std::array<double, kBoundOrder> powers{};  // s^k / k!
    double rest = 0.0;                         // Lagrange's remainder factor (times ||c Ds||_1)
    double xs_scale = 0.0;                     // ||Ds^-1 xs||_inf (roundoff)
    double last_term = 0.0;                    // ||Ds^-1 v_P||_inf (the remainder's)
    double roundings = 1.0;                    // sub-steps whose rounding the roundoff terms cover
  } bound_;
  Eigen::VectorXcd xi_;           // fast coordinates of the current state
  std::vector<FastTerm> fast_terms_;  // (functions x fast) beta_jk of the searched functions
  Eigen::VectorXd xi_state_;          // exosystem state at the last read (kept: no allocation per reset)
  std::vector<double> break_scratch_;  // breakpoints collected by next_breakpoint
  std::vector<double> cross_s_;  // per watched function: its first crossing on the sub-step
  std::vector<int> cross_dir_, before_;
  std::vector<EventFunction> polys_;
  std::vector<char> searched_;
  ExactStatistics stats_;
  std::string last_error_;
};

}  // namespace luztar::exact
