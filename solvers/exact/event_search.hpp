#pragma once
// Finding the first root of an event function on a sub-step of the exact
// integrator (issue 17): g(s) = c . z(s), z(s) = exp(A s) z0, s in [0, h].
//
// Taylor data. v_k = A^k z0 (k <= kTaylorTerms); g's Taylor polynomial
// p(s) = sum_{k < kTaylorTerms} (c . v_k) s^k / k! differs from g on [0, h] by
// at most the remainder bound
//   R = ||c D||_1 e^{||D^-1 A D||_inf h} ||D^-1 v_N||_inf h^N / N!      (N = kTaylorTerms)
// (Lagrange's remainder with ||e^{A u}|| <= e^{||A|| u}), in a basis balanced by
// the diagonal D of powers of two (balance(): Osborne's iteration) so that
// ||D^-1 A D|| is near the spectral radius of an oscillator, not its largest
// entry. The sub-step must keep ||D^-1 A D|| h <= kMaxNormStep (then R is below
// 1e-13 of the function's scale, mostly far below); first_root() splits a
// longer interval into such pieces.
//
// Fast terms. When the integrator splits the fast eigenvalues off
// (solvers/exact/modal_split.hpp), only the slow part of g is a Taylor
// polynomial (in the slow block A_s, whose norm bounds the sub-step); each fast
// eigenvalue adds a term Re(beta e^{lambda s}) in closed form, valid for any s.
//
// What is certified (up to roundoff in the v_k and the split, bounded by
// `roundoff`): on an interval [a, b] the range of p is enclosed by its Taylor
// coefficients about a (a positive coefficient adds at most c_k w^k, a negative
// one at least c_k w^k), and each fast term's by the exact range of
// |beta| e^{sigma s} cos(omega s + arg beta) there; if the sum is beyond
// tol = R + roundoff, g has no root there.
// The search bisects [0, h] from the left, so the first excursion of g through
// zero is found however short (a dip through zero and back inside one sub-step).
//
// What a crossing is. The sign of g is known where |g| > tol. A crossing is a
// change between known signs, located to roundoff by safeguarded Newton on p
// inside the bracket (bisection when Newton leaves it); the reported root is the
// first instant of the bracket's resolution at which g has its new sign (or the
// bracket's end when g only reaches zero there). So:
//   - a touch (a double root, a grazing stick reserve touching zero from below)
//     returns to the sign it had: it is no crossing and is never reported;
//   - an excursion beyond zero by more than 4 tol is always found; a smaller
//     one may be taken for a touch;
//   - at s = 0 after a reset the "sign before" is the sign in which g leaves
//     zero (leaving_sign(): its first derivative beyond tol), so a root at the
//     restart instant is not reported again and cannot loop at zero step; a
//     grazing reserve whose leaving sign is 0 (flat to all orders) has no
//     known sign until it moves away, and that first known sign is no crossing;
//   - a root exactly at h is reported on this sub-step (its leaving sign at h
//     differs from the sign before) with s = h, and the next sub-step, which
//     starts from the new sign, does not report it again.
#include <array>
#include <cmath>
#include <complex>
#include <optional>

#include <Eigen/Dense>

namespace luztar::exact {

inline constexpr int kTaylorTerms = 16;
inline constexpr double kMaxNormStep = 0.5;

// The powers of two D (as a vector) of Osborne's balancing of A: the rows and
// columns of D^-1 A D have similar norms (the diagonal is ignored). Entries
// at or below `roundoff` [A's unit], or below 1e-14 of the largest entry in
// their row (the roundoff of an identified row), are taken as zeros: a matrix
// built by similarity (the slow block of a modal split) passes the roundoff
// of its construction, which is relative to the whole matrix it came from.
// Coordinates from `fixed` on keep the scale 1 (the exosystem's states in a
// modal split: see solvers/exact/modal_split.hpp).
Eigen::VectorXd balance(const Eigen::MatrixXd& A, double roundoff = 0.0, Eigen::Index fixed = -1);
// ||D^-1 A D||_inf.
double balanced_norm(const Eigen::MatrixXd& A, const Eigen::VectorXd& D);

// A bound of ||D^-1 e^{A s} D||_inf over s in [0, h] from the norms of the
// powers n_k = ||D^-1 A^k D||_inf (k <= kTaylorTerms):
//   sum_{k < K} n_k h^k / k! + n_K h^K / K! e^{n_1 h}
// (Taylor's formula, its remainder bounded with e^{||A|| h}). For a
// non-normal matrix with small eigenvalues (the slow block of a modal split)
// it is near 1 where e^{||A|| h} alone would be astronomical.
class GrowthBound {
 public:
  void set(const Eigen::MatrixXd& A, const Eigen::VectorXd& D);
  double over(double h) const;
  double power_norm(int k) const { return n_[static_cast<std::size_t>(k)]; }

 private:
  std::array<double, kTaylorTerms + 1> n_{};
};

// v_k = A^k z0 for k = 0..kTaylorTerms, and the scaled norms the bounds use.
class TaylorData {
 public:
  // A (N x N) with its balancing D; growth: a bound of ||D^-1 e^{A s} D||_inf
  // over [0, h] (GrowthBound, or e^{||D^-1 A D|| h}); h with a Taylor series
  // that converges there. (Storage is kept at the largest N seen: no
  // allocation once warm.)
  void build(const Eigen::MatrixXd& A, const Eigen::VectorXd& D, double growth,
             const Eigen::Ref<const Eigen::VectorXd>& z0, double h);
  // The same from v_0 .. v_k given (the columns of `first`, at least v_0:
  // A^j z0 as this class forms them, A.lazyProduct of the one before), the
  // rest built on. Bit for bit build()'s data where the products round alike
  // wherever the columns lie in memory: not with FMA (-march=native), where
  // Eigen's scalar head and vector body of a column round differently.
  // (tests/event_search_test.cpp: TaylorData.FromGivenTermsAsFromTheState)
  void build_from_terms(const Eigen::MatrixXd& A, const Eigen::VectorXd& D, double growth,
                        const Eigen::Ref<const Eigen::MatrixXd>& first, double h);
  // Whether the data were built from this z0 (bit for bit).
  bool starts_at(const Eigen::Ref<const Eigen::VectorXd>& z0) const;
  // The same data over h2 <= h() with its growth bound: the order cut again
  // from the v_k already built (the A of the last build must still be alive);
  // bit for bit what build(A, D, growth, z0, h2) gives, without its products.
  void shorten(double growth, double h2);
  double h() const { return h_; }
  // The order the series was carried to: v_0 .. v_order are built, the
  // polynomial has the terms below it and Lagrange's remainder at it. The
  // build stops where ||D^-1 v_k|| h^k / k! falls below 1e-20 of the largest
  // term (at most kTaylorTerms).
  int order() const { return order_; }
  auto v(int k) const { return V_.col(k).head(rows_); }
  auto V() const { return V_.topRows(rows_); }  // N x (kTaylorTerms + 1): the v_k as columns
  double scaled_norm(int k) const { return scaled_norm_[static_cast<std::size_t>(k)]; }  // ||D^-1 v_k||_inf
  double growth() const { return growth_; }  // bound of ||D^-1 e^{A s} D|| on [0, h]
  const Eigen::VectorXd& D() const { return *D_; }

 private:
  // A build's common part: its matrices, its size, nothing computed yet.
  void start(const Eigen::MatrixXd& A, const Eigen::VectorXd& D, Eigen::Index rows);

  Eigen::MatrixXd V_;
  Eigen::Index rows_ = 0;
  int computed_ = 0;
  int given_ = 1;  // the v_k given by the build (v_0: z0), not formed again
  const Eigen::MatrixXd* A_ = nullptr;
  int order_ = kTaylorTerms;
  std::array<double, kTaylorTerms + 1> scaled_norm_{};
  const Eigen::VectorXd* D_ = nullptr;
  double h_ = 0.0, growth_ = 1.0;
};

// A fast term of an event function: Re(beta e^{lambda s}) (solvers/exact/
// modal_split.hpp: one per fast eigenvalue, real or the representative of a
// conjugate pair; for a real one beta and lambda are real).
struct FastTerm {
  FastTerm() = default;
  FastTerm(std::complex<double> b, std::complex<double> l)
      // (sqrt of the norm, not std::abs: hypot's care for overflow costs 7 % of a run)
      : beta(b), lambda(l), amplitude(std::sqrt(std::norm(b))), phase(std::arg(b)), rate(std::sqrt(std::norm(l))),
        angle(std::arg(l)) {}
  // (with |lambda| and arg lambda given: they are the mode's, computed once)
  FastTerm(std::complex<double> b, std::complex<double> l, double lambda_rate, double lambda_angle)
      : beta(b), lambda(l), amplitude(std::sqrt(std::norm(b))), phase(std::arg(b)), rate(lambda_rate),
        angle(lambda_angle) {}
  std::complex<double> beta, lambda;
  double amplitude = 0.0, phase = 0.0;  // |beta|, arg beta
  double rate = 0.0, angle = 0.0;       // |lambda|, arg lambda

  // e^{sigma s}, cos(omega s) and sin(omega s) (lambda = sigma + i omega) at
  // s: kept for the last two points asked for, the ends of an enclosure,
  // which its value and slope bounds share with the neighbouring intervals
  // of the bisection and with the values at the ends.
  void at(double s, double& e, double& c, double& sn) const;

 private:
  mutable std::array<double, 2> s_{NAN, NAN}, e_{}, c_{}, sn_{};
  mutable int next_ = 0;
};

// One event function on the sub-step [0, h]:
//   g(s) = p(s) + sum_k Re(beta_k e^{lambda_k s}),
// p the Taylor polynomial of its slow part (coefficients a_k = p^(k)(0) / k!),
// within `remainder` of it on [0, h], and its fast terms in closed form (none
// when nothing is split off). The enclosure of g on an interval adds the exact
// range of each fast term (an exponentially scaled cosine) to p's.
struct EventFunction {
  std::array<double, kTaylorTerms> a{};
  int degree = kTaylorTerms;  // a_k = 0 for k >= degree (1 <= degree <= kTaylorTerms)
  const FastTerm* fast = nullptr;  // (nfast) the caller's storage, alive while the function is used
  int nfast = 0;
  double remainder = 0.0;  // R of p
  double roundoff = 0.0;   // of the coefficients and of evaluating g
  double h = 0.0;
  double tol() const { return remainder + roundoff; }
  double value(double s) const;
  double slope(double s) const;
  // d_k = g^(k)(s) / k!, k < kTaylorTerms.
  void derivatives(double s, std::array<double, kTaylorTerms>& d) const;
  // p's coefficients about lo (those of p(lo + u) in u), what enclose()
  // starts from: a search enclosing g and g' on an interval, and its left
  // half after it, shifts them once.
  std::array<double, kTaylorTerms> about(double lo) const;
  // Lower and upper bounds of g (order 0) or of g' (order 1) on [lo, hi]
  // (p_lo = about(lo)), its tolerance aside; the tighter Taylor model is
  // skipped when the first bounds are already beyond `conclusive` (gmin > it
  // or gmax < -it).
  void enclose(const std::array<double, kTaylorTerms>& p_lo, double lo, double hi, double& gmin, double& gmax,
               int order = 0, double conclusive = INFINITY) const;
};
// The slow polynomial of g = c . z on [0, data.h()] (no fast terms).
EventFunction event_polynomial(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& c,
                               const TaylorData& data);

// The sign in which g leaves s = 0 (see above): sign(g(0)) beyond tol, else
// the first term a_k h^k beyond tol, else 0.
int leaving_sign(const EventFunction& p);

struct Crossing {
  double s;       // root [same unit as h], in [0, h]
  int direction;  // +1 crossed increasing, -1 decreasing
};

struct SearchCounters {
  long intervals = 0;    // enclosures computed
  long iterations = 0;   // Newton / bisection steps in locating roots
};

// A direction that watches no crossing: first_crossing() then only carries the sign to h.
inline constexpr int kWatchNone = 2;

// The first crossing of g in [0, h] in `direction` (+1, -1, 0 both, kWatchNone), given
// `sign`, the sign of g just before 0 (0 unknown). Returns std::nullopt when
// there is none, and updates `sign` to the sign of g at h (after a returned
// crossing: its new sign). resolution: bracket width at which a root is
// located [unit of h] (the caller's time resolution, a few ulp of t).
// approach (when given): the sign g had last before h, where it is at 0
// within tol: the sign it reaches h from (`sign` is the one it leaves h in).
std::optional<Crossing> first_crossing(const EventFunction& p, int direction, int& sign, double resolution,
                                       SearchCounters* counters = nullptr, int* approach = nullptr);

// The first crossing of c . exp(A s) z0 on [0, h] for any h: splits it into
// pieces with norm * piece <= kMaxNormStep (z at each piece start by one
// exponential), and starts from the sign in which g leaves 0.
std::optional<Crossing> first_root(const Eigen::MatrixXd& A, const Eigen::RowVectorXd& c, const Eigen::VectorXd& z0,
                                   double h, int direction, double resolution, SearchCounters* counters = nullptr);

}  // namespace luztar::exact
