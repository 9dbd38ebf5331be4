#pragma once
// The closed-form step of one mode in the coordinates of its modal split
// (solvers/exact/modal_split.hpp): z = T x, x = [x_s; x_f], T^-1 A T =
// diag(A_s, Lambda).
//
// The state. x_s moves by exp(A_s s), the slow block, whose norm keeps its
// Taylor series short over a sub-step; each fast coordinate by its eigenvalue
// in closed form: a real one x e^{lambda s}, a pair (Re xi, Im xi) as
// xi e^{lambda s}. Nothing is squared or doubled, so a stiff mode (a massless
// body on a viscous bearing, rate 1e6/s) costs no accuracy however long the
// step, and a step of any length costs the same: the regular sub-step h uses
// the cached exp(A_s h), a shorter one (to a root, an output time) the Taylor
// series of x_s that the event search builds anyway.
//
// The quadratures int_0^s x^T Q' x (Q' = T^T Q T, one per quadrature) in three
// parts, each exact:
//   slow-slow  x_s^T W_ss(h) x_s, W_ss(h) = int_0^h e^{A_s^T u} Q_ss e^{A_s u} du
//              (its series, cached); for a shorter step the Gram sum over the
//              Taylor terms v_k of x_s;
//   fast-fast  with x_f = B (eta o e^{mu u}), eta the fast amplitudes over all
//              fast eigenvalues mu (a pair's xi and its conjugate):
//              sum_jl H_jl eta_j eta_l E1(mu_j + mu_l, s), H = B^T Q_ff B,
//              E1(m, s) = (e^{m s} - 1) / m;
//   slow-fast  2 sum_j eta_j g_j^T (e^{mu_j s} x_s(s) - x_s(0)), since
//              int_0^s e^{mu u} x_s(u) du = (A_s + mu I)^-1 (e^{mu s} x_s(s) - x_s(0)),
//              g_j = (A_s + mu_j I)^-T (Q_sf B)_j (fast and slow eigenvalues
//              apart: the resolvent is well conditioned, checked at build).
// Over the regular sub-step h all three are linear in x(0)'s outer product, so
// they are folded at build into one real form x^T W(h) x; a shorter step
// evaluates them as above.
//
// Many forms, one product. A model has a form per dissipative element besides
// the input and the dissipated power, each of rank one or two. So the forms
// are stacked: every sum over a symmetric matrix M of M_ab y_a y_b becomes a
// column of M's upper triangle (off-diagonal entries doubled) dotted with the vector of
// products y_a y_b, a <= b, formed once for all forms. A regular step is then
// one matrix-vector product over N (N + 1) / 2 products; a partial step forms
// the slow series' Gram matrix C Hilb C^T and the fast amplitudes' products
// eta_a eta_b E1 once. A form that is identically zero in the mode (a stuck
// clutch's dissipation, an undamped spring) takes no part at all.
//
// Inert coordinates. The first `inert` slow coordinates are the absolute
// angles of freely turning groups (ModalSplit::inert): nothing depends on them
// (their columns of A_s and their rows and columns of Q' are zero), so the tens
// of radians a shaft turns never enter a product.
#include <complex>
#include <vector>

#include <Eigen/Dense>

#include "solvers/exact/event_search.hpp"
#include "solvers/exact/modal_split.hpp"

namespace luztar::exact {

class ModalPropagator {
 public:
  // False when a resolvent (A_s + mu I) is too ill-conditioned to use (the
  // caller then splits nothing off).
  bool build(const ModalSplit& split, const std::vector<Eigen::MatrixXd>& Q, double h);
  double h() const { return h_; }

  // x (N) over the regular sub-step h; q (quadratures) += their integrals.
  void step(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> q);
  // x over s <= h, from the Taylor data of x_s at its start (built over at
  // least s: TaylorData over A_s, as the event search builds it).
  void partial(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> q, double s, const TaylorData& slow);

 private:
  // The g_j of the slow-fast integrals (false: a resolvent too ill-conditioned).
  bool resolvent_rows(const std::vector<Eigen::MatrixXd>& Qsf);
  // How many terms v_0.. of the slow series a partial step over s needs.
  static int terms_over(const TaylorData& slow, double s);
  // eta (the fast amplitudes) from x, and back.
  void amplitudes(const Eigen::Ref<const Eigen::VectorXd>& x);
  void store(Eigen::Ref<Eigen::VectorXd> x) const;
  // The fast-fast and slow-fast integrals over s (with e^{mu s} in emu_,
  // x_s at both ends given), added to q.
  void cross_terms(const Eigen::Ref<const Eigen::VectorXd>& xs0, const Eigen::Ref<const Eigen::VectorXd>& xs1,
                   double s, Eigen::Ref<Eigen::VectorXd> q);
  // The regular step's data (Es_, Wss_, emu_h_, Wu_), computed at the first
  // regular step in the mode, into storage size_regular() sized at build.
  void size_regular();
  void prepare_regular();
  // exp(A_s h) and the slow-slow integrals over h (Es_, Wss_).
  void slow_series();
  // The regular step's quadratures as real forms of x, stacked (Wu_).
  void regular_forms();
  // Adds the stacked forms' values (ql_, one per live form) to q.
  void add_live(Eigen::Ref<Eigen::VectorXd> q) const;

  int n_ = 0, m_ = 0, nf_ = 0, quads_ = 0;  // N, slow, fast real coordinates, quadratures
  int inert_ = 0;                            // the leading inert slow coordinates (in no form)
  double h_ = 0.0;
  std::vector<FastMode> fast_;
  std::vector<int> live_;               // the quadratures whose form is not identically zero
  Eigen::VectorXcd mu_;                 // (nf) fast eigenvalues, conjugates included
  bool regular_ready_ = false;          // the four below hold the regular step's data (prepare_regular)
  Eigen::MatrixXd Es_;                  // exp(A_s h)
  Eigen::MatrixXd As_;
  std::vector<Eigen::MatrixXd> Qss_;    // per live form, m x m
  Eigen::MatrixXd Wss_;                 // m x (m live): per live form its m x m block
  std::vector<Eigen::MatrixXcd> H_;     // per live form, nf x nf (symmetric, not Hermitian)
  std::vector<Eigen::MatrixXcd> G_;     // per live form, m x nf: the g_j
  Eigen::MatrixXd Wu_;                  // packed(N - inert) x live: the regular step's forms, one a column
  Eigen::MatrixXd Qu_;                  // packed(m - inert) x live: the slow-slow forms
  Eigen::MatrixXd Hu_;                  // 2 packed(nf) x live: [Re H; -Im H] (fast-fast)
  Eigen::MatrixXd Gx_;                  // (2 nf live) x m: per live form Re g^T then Im g^T (real products with x_s)
  Eigen::VectorXcd emu_h_;              // e^{mu h}
  // scratch
  struct RegularScratch {  // of prepare_regular, sized at build
    Eigen::MatrixXd Ah, term, next, t, prod, W, EsT, re, im;
    Eigen::MatrixXcd E1h, HE, XM, XMt, Z, M, C;
  } regular_scratch_;
  Eigen::VectorXcd eta_, emu_, etas_;
  Eigen::VectorXd xs0_, xs1_;
  Eigen::MatrixXd cv_, ch_, gram_;      // C, C Hilb (m x kTaylorTerms + 1), C Hilb C^T (partial)
  Eigen::VectorXd products_, ql_;       // the packed products y_a y_b; the live forms' values
  Eigen::VectorXd gx0_, gx1_;           // Gx_ x_s at both ends
};

// E1(m, s) = int_0^s e^{m u} du = (e^{m s} - 1) / m, accurate for small |m s|.
std::complex<double> integral_of_exp(std::complex<double> m, double s);

}  // namespace luztar::exact
