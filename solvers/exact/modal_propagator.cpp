#include "solvers/exact/modal_propagator.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace luztar::exact {

namespace {

using cd = std::complex<double>;

// E1(m, s) with e^{m s} from exp_ms() (called only when |m s| > 1/2, where
// e^{m s} - 1 loses no digits: a product of cached exponentials will do).
template <class Exp>
cd exp_integral(cd m, double s, Exp exp_ms) {
  const cd z = m * s;
  // (norms, not std::abs: hypot's care for overflow is not needed here)
  if (std::norm(z) > 0.25) return (exp_ms() - 1.0) / m;
  // s (1 + z/2! + z^2/3! + ...)
  cd term = 1.0, sum = 1.0;
  for (int k = 2; k < 40 && std::norm(term) > 1e-36 * std::norm(sum); ++k) {
    term *= z / static_cast<double>(k);
    sum += term;
  }
  return s * sum;
}


// A block-diagonal matrix over the fast coordinates: a real mode's block is 1,
// a pair's the 2 x 2 {M(j,j), M(j,j+1), M(j+1,j), M(j+1,j+1)}. The amplitude
// basis B (x_f = B eta: a pair's (Re xi, Im xi) = [[1/2, 1/2], [-i/2, i/2]]
// (xi, conj xi)) and its inverse are such, so a product with either costs
// O(nf) per row, not O(nf^2).
using PairBlock = std::array<cd, 4>;
const PairBlock kAmplitudeBasis = {0.5, 0.5, cd(0.0, -0.5), cd(0.0, 0.5)};
const PairBlock kAmplitudeBasisInverse = {1.0, cd(0.0, 1.0), 1.0, cd(0.0, -1.0)};

// Y = X M, M the block-diagonal matrix with the pairs' block `pair` (m: the
// first fast coordinate's index, X has nf columns; Y sized as X already, so
// that nothing is allocated).
template <class Matrix>
void times_blocks(const Matrix& X, const std::vector<FastMode>& fast, int m, const PairBlock& pair,
                  Eigen::MatrixXcd& Y) {
  for (const FastMode& f : fast) {
    const int j = f.index - m;
    if (f.pair()) {
      Y.col(j) = X.col(j).template cast<cd>() * pair[0] + X.col(j + 1).template cast<cd>() * pair[2];
      Y.col(j + 1) = X.col(j).template cast<cd>() * pair[1] + X.col(j + 1).template cast<cd>() * pair[3];
    } else {
      Y.col(j) = X.col(j).template cast<cd>();
    }
  }
}

template <class Matrix>
Eigen::MatrixXcd times_blocks(const Matrix& X, const std::vector<FastMode>& fast, int m, const PairBlock& pair) {
  Eigen::MatrixXcd Y(X.rows(), X.cols());
  times_blocks(X, fast, m, pair, Y);
  return Y;
}

// Z = (M^T X M)^T for the block-diagonal M above (X nf x nf; XM, XMt
// scratch of that size: nothing is allocated).
template <class Matrix>
void congruence_transposed(const Matrix& X, const std::vector<FastMode>& fast, int m, const PairBlock& pair,
                           Eigen::MatrixXcd& XM, Eigen::MatrixXcd& XMt, Eigen::MatrixXcd& Z) {
  times_blocks(X, fast, m, pair, XM);
  XMt = XM.transpose();
  times_blocks(XMt, fast, m, pair, Z);
}

// M^T X M for the block-diagonal M above (X nf x nf).
template <class Matrix>
Eigen::MatrixXcd congruence(const Matrix& X, const std::vector<FastMode>& fast, int m, const PairBlock& pair) {
  Eigen::MatrixXcd XM(X.rows(), X.cols()), XMt(X.cols(), X.rows()), Z(X.rows(), X.cols());
  congruence_transposed(X, fast, m, pair, XM, XMt, Z);
  return Z.transpose();
}

// H_ik = 1 / (i + k + 1): int_0^1 u^i u^k du.
Eigen::Matrix<double, kTaylorTerms + 1, kTaylorTerms + 1> hilbert() {
  Eigen::Matrix<double, kTaylorTerms + 1, kTaylorTerms + 1> H;
  for (int i = 0; i <= kTaylorTerms; ++i)
    for (int k = 0; k <= kTaylorTerms; ++k) H(i, k) = 1.0 / (i + k + 1);
  return H;
}

// The number of products y_a y_b, a <= b, of n coordinates.
Eigen::Index packed_size(int n) { return static_cast<Eigen::Index>(n) * (n + 1) / 2; }

// Column `col` of `out` from row `row` on: the symmetric M's upper triangle
// from coordinate `from` on, column by column, off-diagonal entries doubled,
// times `sign` (so that the column dotted with the products gives
// sign * y^T M y). (The forms are columns: the stacked product is then a dot
// product per form over contiguous memory, not a product of few rows.)
template <class Matrix>
void pack_form(const Matrix& M, int from, double sign, Eigen::MatrixXd& out, Eigen::Index col, Eigen::Index row) {
  for (Eigen::Index b = from; b < M.cols(); ++b)
    for (Eigen::Index a = from; a <= b; ++a) out(row++, col) = (a == b ? sign : 2.0 * sign) * M(a, b);
}

// The products y_a y_b, a <= b, from coordinate `from` on, in pack_form's order.
void pack_products(const double* y, int from, int n, double* out) {
  for (int b = from; b < n; ++b)
    for (int a = from; a <= b; ++a) *out++ = y[a] * y[b];
}

// The upper triangle of the symmetric n x n M, a <= b, in pack_form's order:
// M_ab plays the product y_a y_b (a Gram matrix of the slow Taylor terms).
template <class Matrix>
Eigen::Index pack_upper(const Matrix& M, int n, double* out) {
  Eigen::Index i = 0;
  for (int b = 0; b < n; ++b)
    for (int a = 0; a <= b; ++a) out[i++] = M(a, b);
  return i;
}

}  // namespace

cd integral_of_exp(cd m, double s) { return exp_integral(m, s, [&] { return std::exp(m * s); }); }

// g_k = (A_s + mu_k I)^-T (Q_sf B)_k for every live form at once, with the
// resolvent's conditioning checked (for every fast eigenvalue, whether or not
// a live form needs it: the split is only used with resolvents it can trust).
// A pair's conjugate needs no solve of its own: mu, A_s, Q_sf B's column and
// so g are the conjugates of its partner's.
bool ModalPropagator::resolvent_rows(const std::vector<Eigen::MatrixXd>& Qsf) {
  const auto live = static_cast<Eigen::Index>(live_.size());
  std::vector<Eigen::MatrixXcd> QB;
  for (const Eigen::MatrixXd& q : Qsf) QB.push_back(times_blocks(q, fast_, m_, kAmplitudeBasis));
  for (Eigen::Index l = 0; l < live; ++l) G_.emplace_back(m_, nf_);
  if (m_ == 0) return true;
  const Eigen::MatrixXcd Asc = As_.transpose().cast<cd>();
  Eigen::MatrixXcd rhs(m_, live);
  for (const FastMode& f : fast_) {
    const int k = f.index - m_;
    // (partial pivoting: the fast mu dominates the slow block's diagonal, and
    // only the quadratures read g)
    const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(Asc + mu_(k) * Eigen::MatrixXcd::Identity(m_, m_));
    if (!(lu.rcond() > 1e-10)) return false;
    if (live == 0) continue;
    for (Eigen::Index l = 0; l < live; ++l) rhs.col(l) = QB[static_cast<std::size_t>(l)].col(k);
    const Eigen::MatrixXcd g = lu.solve(rhs);
    for (Eigen::Index l = 0; l < live; ++l) {
      G_[static_cast<std::size_t>(l)].col(k) = g.col(l);
      if (f.pair()) G_[static_cast<std::size_t>(l)].col(k + 1) = g.col(l).conjugate();
    }
  }
  return true;
}

bool ModalPropagator::build(const ModalSplit& split, const std::vector<Eigen::MatrixXd>& Q, double h) {
  n_ = static_cast<int>(split.T.rows());
  m_ = split.slow;
  nf_ = n_ - m_;
  quads_ = static_cast<int>(Q.size());
  inert_ = split.inert;
  h_ = h;
  fast_ = split.fast;
  As_ = split.As;
  // the fast eigenvalues over the real fast coordinates: a pair (lambda, conj lambda)
  mu_.resize(nf_);
  for (const FastMode& f : fast_) {
    const int j = f.index - m_;
    mu_(j) = f.lambda;
    if (f.pair()) mu_(j + 1) = std::conj(f.lambda);
  }
  // Q' = T^T Q T in blocks, the inert coordinates' rows and columns zero;
  // only the forms that are not identically zero in this mode are kept
  live_.clear();
  Qss_.clear();
  H_.clear();
  G_.clear();
  std::vector<Eigen::MatrixXd> Qsf;
  std::vector<int> rows;
  Eigen::MatrixXd Tr, Qr, QT, Qx;
  for (int j = 0; j < quads_; ++j) {
    // T^T Q T over the coordinates z the form reads (velocities and signals,
    // rarely angles): Q's nonzero rows only
    const Eigen::MatrixXd& q = Q[static_cast<std::size_t>(j)];
    rows.clear();
    for (Eigen::Index i = 0; i < q.rows(); ++i)
      if (!q.row(i).isZero(0.0)) rows.push_back(static_cast<int>(i));
    if (rows.empty()) continue;
    Tr = split.T(rows, Eigen::all);  // (gathered: a product with an indexed view takes Eigen's slow path)
    Qr = q(rows, rows);
    QT.noalias() = Qr * Tr;
    Qx.noalias() = Tr.transpose() * QT;
    Qx = 0.5 * (Qx + Qx.transpose());
    Qx.topRows(inert_).setZero();
    Qx.leftCols(inert_).setZero();
    if (Qx.isZero(0.0)) continue;
    live_.push_back(j);
    Qss_.push_back(Qx.topLeftCorner(m_, m_));
    Qsf.push_back(Qx.topRightCorner(m_, nf_));
    H_.push_back(congruence(Qx.bottomRightCorner(nf_, nf_), fast_, m_, kAmplitudeBasis));
  }
  const auto live = static_cast<Eigen::Index>(live_.size());
  if (!resolvent_rows(Qsf)) return false;
  Gx_.resize(2 * nf_ * live, m_);
  Qu_.resize(packed_size(m_ - inert_), live);
  Hu_.resize(2 * packed_size(nf_), live);
  for (Eigen::Index l = 0; l < live; ++l) {
    const auto ul = static_cast<std::size_t>(l);
    Gx_.middleRows(2 * nf_ * l, nf_) = G_[ul].real().transpose();
    Gx_.middleRows(2 * nf_ * l + nf_, nf_) = G_[ul].imag().transpose();
    pack_form(Qss_[ul], inert_, 1.0, Qu_, l, 0);
    // Re(H_ab P_ab) = Re H_ab Re P_ab - Im H_ab Im P_ab
    pack_form(H_[ul].real(), 0, 1.0, Hu_, l, 0);
    pack_form(H_[ul].imag(), 0, -1.0, Hu_, l, packed_size(nf_));
  }
  size_regular();
  eta_.resize(nf_);
  emu_.resize(nf_);
  etas_.resize(nf_);
  gx0_.resize(Gx_.rows());
  gx1_.resize(Gx_.rows());
  xs0_.resize(m_);
  xs1_.resize(m_);
  gram_.resize(m_ - inert_, m_ - inert_);
  products_.resize(std::max({packed_size(n_ - inert_), packed_size(m_ - inert_), 2 * packed_size(nf_)}));
  ql_.resize(live);
  return true;
}

// The storage of the regular step's data (prepare_regular), sized once at
// build: filling it later allocates nothing.
void ModalPropagator::size_regular() {
  regular_ready_ = false;
  const auto live = static_cast<Eigen::Index>(live_.size());
  Es_.resize(m_, m_);
  Wss_.resize(m_, m_ * live);
  emu_h_.resize(nf_);
  Wu_.resize(packed_size(n_ - inert_), live);
  RegularScratch& r = regular_scratch_;
  r.Ah.resize(m_, m_);
  r.term.resize(m_, m_);
  r.next.resize(m_, m_);
  r.t.resize(m_, m_ * live);
  r.prod.resize(m_, m_ * live);
  r.E1h.resize(nf_, nf_);
  r.W.resize(n_, n_);
  r.EsT.resize(m_, m_);
  r.HE.resize(nf_, nf_);
  r.XM.resize(nf_, nf_);
  r.XMt.resize(nf_, nf_);
  r.Z.resize(nf_, nf_);
  r.re.resize(m_, nf_);
  r.im.resize(m_, nf_);
  r.M.resize(m_, nf_);
  r.C.resize(m_, nf_);
}

// The regular sub-step's data, at a mode's first regular step: more than
// half of the modes a run meets live shorter than one sub-step (52 of the
// gear train's 97 in 10 s) and never take one, and these series were a
// tenth of a run.
void ModalPropagator::prepare_regular() {
  slow_series();
  for (int k = 0; k < nf_; ++k) emu_h_(k) = std::exp(mu_(k) * h_);
  regular_forms();
  regular_ready_ = true;
}

// exp(A_s h) and, per live form, int_0^h e^{A_s^T u} Q_ss e^{A_s u} du by
// their series (the norm of A_s times h is moderate by the choice of h), each
// summed until its terms fall below 1e-18 of the sum.
void ModalPropagator::slow_series() {
  RegularScratch& r = regular_scratch_;
  const Eigen::Index m = m_;
  r.Ah = As_ * h_;
  r.term.setIdentity();
  Es_ = r.term;
  for (int k = 1; k < 200 && r.term.cwiseAbs().maxCoeff() > 1e-18 * Es_.cwiseAbs().maxCoeff(); ++k) {
    r.next.noalias() = r.term.lazyProduct(r.Ah);  // (lazy: far too small for gemm's blocking)
    r.term = r.next / k;
    Es_ += r.term;
  }
  // d/du e^{A^T u} Q e^{A u} = L(.), L(X) = A^T X + X A: W = sum_n L^n(Q) h^(n+1) / (n+1)!;
  // every L^n(Q) is symmetric, so X A = (A^T X)^T: one product a term, and
  // that for all forms at once (side by side: one product of useful size).
  // The series runs until every form's terms fall below 1e-18 of its sum.
  const auto L = static_cast<Eigen::Index>(live_.size());
  if (L == 0 || m == 0) {
    Wss_.setZero();
    return;
  }
  for (Eigen::Index l = 0; l < L; ++l) r.t.middleCols(l * m, m) = Qss_[static_cast<std::size_t>(l)] * h_;
  Wss_ = r.t;
  auto converged = [&]() {
    for (Eigen::Index l = 0; l < L; ++l)
      if (r.t.middleCols(l * m, m).cwiseAbs().maxCoeff() > 1e-18 * Wss_.middleCols(l * m, m).cwiseAbs().maxCoeff())
        return false;
    return true;
  };
  for (int k = 1; k < 400 && !converged(); ++k) {
    r.prod.noalias() = r.Ah.transpose() * r.t;
    for (Eigen::Index l = 0; l < L; ++l) {
      const auto p = r.prod.middleCols(l * m, m);
      r.t.middleCols(l * m, m) = (p + p.transpose()) / (k + 1);
    }
    Wss_ += r.t;
  }
}

// The regular step's quadratures as real forms x^T W_j x of its start: the
// three parts above with eta = B^-1 x_f (a pair: xi = x_j + i x_j+1 and its
// conjugate) and x_s(h) = Es x_s, so fast-fast Re(B^-T Fh B^-1), Fh = H o
// E1(mu_j + mu_l, h), and slow-fast 2 Re(M B^-1), M's column k = e^{mu_k h}
// Es^T g_k - g_k: the same integrals, one stacked product a step instead of
// nf^2 complex ones and the resolvent terms.
void ModalPropagator::regular_forms() {
  RegularScratch& r = regular_scratch_;
  for (int a = 0; a < nf_; ++a)  // (symmetric; e^{(mu_a + mu_b) h} itself: a product of cached
    for (int b = a; b < nf_; ++b)  // factors could be 0 * inf where the sum is finite)
      r.E1h(a, b) = r.E1h(b, a) = integral_of_exp(mu_(a) + mu_(b), h_);
  Eigen::MatrixXd& W = r.W;
  r.EsT = Es_.transpose();
  for (std::size_t l = 0; l < live_.size(); ++l) {
    W.setZero();
    W.topLeftCorner(m_, m_) = Wss_.middleCols(static_cast<Eigen::Index>(l) * m_, m_);
    r.HE = H_[l].cwiseProduct(r.E1h);
    congruence_transposed(r.HE, fast_, m_, kAmplitudeBasisInverse, r.XM, r.XMt, r.Z);
    W.bottomRightCorner(nf_, nf_) = 0.5 * (r.Z.real().transpose() + r.Z.real());
    if (m_ > 0 && nf_ > 0) {
      r.re.noalias() = r.EsT * G_[l].real();
      r.im.noalias() = r.EsT * G_[l].imag();
      r.M.real() = r.re;
      r.M.imag() = r.im;
      r.M.array().rowwise() *= emu_h_.transpose().array();
      r.M -= G_[l];
      times_blocks(r.M, fast_, m_, kAmplitudeBasisInverse, r.C);
      W.topRightCorner(m_, nf_) = r.C.real();
      W.bottomLeftCorner(nf_, m_) = r.C.real().transpose();
    }
    pack_form(W, inert_, 1.0, Wu_, static_cast<Eigen::Index>(l), 0);
  }
}

void ModalPropagator::add_live(Eigen::Ref<Eigen::VectorXd> q) const {
  for (std::size_t l = 0; l < live_.size(); ++l) q(live_[l]) += ql_(static_cast<Eigen::Index>(l));
}

void ModalPropagator::amplitudes(const Eigen::Ref<const Eigen::VectorXd>& x) {
  for (const FastMode& f : fast_) {
    const int j = f.index - m_;
    if (f.pair()) {
      eta_(j) = cd(x(f.index), x(f.index + 1));
      eta_(j + 1) = std::conj(eta_(j));
    } else {
      eta_(j) = x(f.index);
    }
  }
}

void ModalPropagator::store(Eigen::Ref<Eigen::VectorXd> x) const {
  for (const FastMode& f : fast_) {
    const int j = f.index - m_;
    x(f.index) = etas_(j).real();
    if (f.pair()) x(f.index + 1) = etas_(j).imag();
  }
}

void ModalPropagator::cross_terms(const Eigen::Ref<const Eigen::VectorXd>& xs0,
                                  const Eigen::Ref<const Eigen::VectorXd>& xs1, double s,
                                  Eigen::Ref<Eigen::VectorXd> q) {
  if (nf_ == 0 || live_.empty()) return;
  // fast-fast: sum_ab H_ab P_ab, P_ab = eta_a eta_b E1(mu_a + mu_b, s) (bilinear:
  // no conjugation), P's real and imaginary upper triangles once for all forms
  const Eigen::Index np = packed_size(nf_);
  Eigen::Index i = 0;
  for (int b = 0; b < nf_; ++b)
    for (int a = 0; a <= b; ++a, ++i) {  // e^{(mu_a + mu_b) s} = e^{mu_a s} e^{mu_b s}, both in emu_
      const cd p = exp_integral(mu_(a) + mu_(b), s, [&] { return emu_(a) * emu_(b); }) * eta_(a) * eta_(b);
      products_(i) = p.real();
      products_(np + i) = p.imag();
    }
  ql_.noalias() = Hu_.transpose() * products_.head(2 * np);
  if (m_ > 0) {
    gx0_.noalias() = Gx_ * xs0;
    gx1_.noalias() = Gx_ * xs1;
    // slow-fast: 2 sum_k eta_k g_k^T (e^{mu_k s} x_s(s) - x_s(0)), g_k^T x_s
    // from the real products Gx_ x_s (x_s is real)
    for (Eigen::Index l = 0; l < ql_.size(); ++l) {
      cd sf = 0.0;
      for (int k = 0, re = 2 * nf_ * static_cast<int>(l), im = re + nf_; k < nf_; ++k)
        sf += eta_(k) * (emu_(k) * cd(gx1_(re + k), gx1_(im + k)) - cd(gx0_(re + k), gx0_(im + k)));
      ql_(l) += 2.0 * sf.real();
    }
  }
  add_live(q);
}

void ModalPropagator::step(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> q) {
  if (!regular_ready_) prepare_regular();
  auto xs = x.head(m_);
  xs0_ = xs;
  if (!live_.empty()) {
    pack_products(x.data(), inert_, n_, products_.data());
    ql_.noalias() = Wu_.transpose() * products_.head(Wu_.rows());
    add_live(q);
  }
  xs1_.noalias() = Es_ * xs0_;
  amplitudes(x);
  etas_ = eta_.cwiseProduct(emu_h_);
  xs = xs1_;
  store(x);
}

// The terms of the slow series that matter over s <= h: those up to the
// last one above 1e-20 of the largest, ||D^-1 v_k|| s^k / k! (the build's own
// cut-off, at s: a short step, a settle or a step to a root, needs few).
int ModalPropagator::terms_over(const TaylorData& slow, double s) {
  const int order = slow.order();
  std::array<double, kTaylorTerms + 1> size{};
  double term = 1.0, largest = 0.0;
  for (int k = 0; k <= order; ++k) {
    if (k > 0) term *= s / k;
    size[static_cast<std::size_t>(k)] = slow.scaled_norm(k) * term;
    largest = std::max(largest, size[static_cast<std::size_t>(k)]);
  }
  int last = order;
  while (last > 1 && size[static_cast<std::size_t>(last)] <= 1e-20 * largest) --last;
  return last + 1;
}

void ModalPropagator::partial(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> q, double s,
                              const TaylorData& slow) {
  if (s <= 0.0) return;
  auto xs = x.head(m_);
  xs0_ = xs;
  // x_s(s) = sum_k c_k, c_k = v_k s^k / k!, and the slow-slow integral
  //   int_0^s x_s^T Q x_s = s sum_ik c_i^T Q c_k / (i + k + 1) = s sum (Q C) o (C H),
  // H_ik = 1 / (i + k + 1) (lazy products: these are far too small for gemm)
  const int terms = terms_over(slow, s);
  if (cv_.rows() != m_) {
    cv_.resize(m_, kTaylorTerms + 1);
    ch_.resize(m_, kTaylorTerms + 1);
  }
  auto C = cv_.leftCols(terms);
  double f = 1.0;  // s^k / k!
  for (int k = 0; k < terms; ++k) {
    if (k > 0) f *= s / k;
    C.col(k) = slow.v(k) * f;
  }
  xs1_.setZero();
  for (int k = terms - 1; k >= 0; --k) xs1_ += C.col(k);
  const int r = m_ - inert_;
  if (r > 0 && !live_.empty()) {
    // = s sum_j <Q_j, C H C^T> over the non-inert rows: the Gram matrix once
    static const Eigen::Matrix<double, kTaylorTerms + 1, kTaylorTerms + 1> H = hilbert();
    const auto Cr = cv_.block(inert_, 0, r, terms);
    auto P = ch_.block(0, 0, r, terms);
    P.noalias() = Cr.lazyProduct(H.topLeftCorner(terms, terms));
    gram_.noalias() = P.lazyProduct(Cr.transpose());
    const Eigen::Index packed = pack_upper(gram_, r, products_.data());
    ql_.noalias() = Qu_.transpose() * products_.head(packed);
    ql_ *= s;
    add_live(q);
  }
  amplitudes(x);
  for (const FastMode& f : fast_) {  // a pair's conjugate: e^{conj(mu) s} = conj(e^{mu s})
    const int j = f.index - m_;
    emu_(j) = std::exp(mu_(j) * s);
    if (f.pair()) emu_(j + 1) = std::conj(emu_(j));
  }
  cross_terms(xs0_, xs1_, s, q);
  etas_ = eta_.cwiseProduct(emu_);
  xs = xs1_;
  store(x);
}

}  // namespace luztar::exact
