#include "solvers/exact/event_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "solvers/exact/matrix_exponential.hpp"

namespace luztar::exact {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxDepth = 80;
// balance(): entries below this fraction of the largest in their row are roundoff.
constexpr double kRowRoundoff = 1e-14;

using Coefficients = std::array<double, kTaylorTerms>;

// The functions below read the first n coefficients only (EventFunction::
// degree: the rest are zero, and skipping them changes no result).

// Coefficients of p(x + u) in u (Taylor shift, O(n^2)).
Coefficients shifted(const Coefficients& a, double x, int n) {
  Coefficients b = a;
  for (int k = 0; k < n - 1; ++k)
    for (int j = n - 2; j >= k; --j) b[static_cast<std::size_t>(j)] += x * b[static_cast<std::size_t>(j + 1)];
  return b;
}

double poly_value(const Coefficients& a, double s, int n) {
  double r = 0.0;
  for (int k = n - 1; k >= 0; --k) r = r * s + a[static_cast<std::size_t>(k)];
  return r;
}

double poly_slope(const Coefficients& a, double s, int n) {
  double r = 0.0;
  for (int k = n - 1; k >= 1; --k) r = r * s + k * a[static_cast<std::size_t>(k)];
  return r;
}

int sign_of(double x) { return x > 0.0 ? 1 : x < 0.0 ? -1 : 0; }

// Bounds of p(u) = sum c_k u^k on [0, w]: a positive term adds at most c_k w^k,
// a negative one at least c_k w^k.
void polynomial_range(const Coefficients& c, double w, double& lo, double& hi, int n) {
  lo = hi = c[0];
  double wk = 1.0;
  for (int k = 1; k < n; ++k) {
    wk *= w;
    const double term = c[static_cast<std::size_t>(k)] * wk;
    (term < 0.0 ? lo : hi) += term;
  }
}

// The Taylor model of enclose() (b) is used while |lambda| w stays below this:
// its remainder (|lambda| w)^16 / 16! is then below 2e-4 of the fast amplitude.
constexpr double kTaylorModelReach = 4.0;

// The range of Re(b e^{lambda s}) on [lo, hi] (b = beta, or beta lambda for
// the slope: amp = |b|, phase = arg b), from e^{sigma s} and e^{i omega s} at
// the ends (FastTerm::at).
void fast_range(double amp, double phase, std::complex<double> b, std::complex<double> lambda, double lo, double hi,
                double e_lo, double c_lo, double s_lo, double e_hi, double c_hi, double s_hi, double& fmin,
                double& fmax) {
  const double omega = lambda.imag();
  const double small = std::min(e_lo, e_hi), large = std::max(e_lo, e_hi);
  if (omega == 0.0) {  // real: b e^{lambda s}, monotone
    const double a = b.real() * e_lo, c = b.real() * e_hi;
    fmin = std::min(a, c);
    fmax = std::max(a, c);
    return;
  }
  if (!(amp > 0.0)) {
    fmin = fmax = 0.0;
    return;
  }
  // cos(omega s + phase) at the ends: Re(b e^{i omega s}) / |b|
  const double cos_lo = (b.real() * c_lo - b.imag() * s_lo) / amp, cos_hi = (b.real() * c_hi - b.imag() * s_hi) / amp;
  double cmin = std::min(cos_lo, cos_hi), cmax = std::max(cos_lo, cos_hi);
  const double t0 = omega * lo + phase, t1 = omega * hi + phase;
  constexpr double two_pi = 2.0 * std::numbers::pi;
  if (t1 - t0 >= two_pi) {
    cmin = -1.0;
    cmax = 1.0;
  } else {  // a maximum at 2 pi k, a minimum at pi + 2 pi k inside [t0, t1]
    if (std::ceil(t0 / two_pi) <= std::floor(t1 / two_pi)) cmax = 1.0;
    if (std::ceil((t0 - std::numbers::pi) / two_pi) <= std::floor((t1 - std::numbers::pi) / two_pi)) cmin = -1.0;
  }
  fmax = amp * (cmax >= 0.0 ? cmax * large : cmax * small);
  fmin = amp * (cmin >= 0.0 ? cmin * small : cmin * large);
}

// The left-to-right bisection of [0, h] into enclosed intervals (see the header).
class Search {
 public:
  Search(const EventFunction& p, int direction, int sign, double resolution, SearchCounters* counters)
      : p_(p), tol_(p.tol()), direction_(direction), sign_(sign), resolution_(resolution), counters_(counters) {}

  std::optional<Crossing> run() {
    visit(0.0, p_.h, 0);
    approach_ = sign_;
    if (found_) return found_;
    // g reaches zero at h without a known sign there: the sign it leaves h in
    if (sign_ != 0 && std::abs(p_.value(p_.h)) <= tol_) {
      Coefficients d;
      p_.derivatives(p_.h, d);
      double hk = 1.0;
      for (int k = 1; k < kTaylorTerms; ++k) {
        hk *= p_.h;
        const double term = d[static_cast<std::size_t>(k)] * hk;
        if (std::abs(term) > tol_) {
          known(p_.h, p_.h, sign_of(term));
          break;
        }
      }
    }
    return found_;
  }
  int sign() const { return sign_; }
  int approach() const { return approach_; }

 private:
  void visit(double a, double b, int depth) {
    if (found_) return;
    if (counters_) ++counters_->intervals;
    double lo, hi;
    const Coefficients& p_a = about(a);
    p_.enclose(p_a, a, b, lo, hi, 0, tol_);
    if (lo > tol_) return known(a, b, 1);
    if (hi < -tol_) return known(a, b, -1);
    if (hi - lo <= 4.0 * tol_ || depth >= kMaxDepth || b - a <= resolution_) {
      const double gb = p_.value(b);
      if (std::abs(gb) > tol_) known(b, b, sign_of(gb));
      return;
    }
    // monotone on [a, b] (g' enclosed away from 0): at most one root, so the
    // sign at b (beyond tol) settles the interval; a change is located from
    // where the sign was last known
    if (double dlo, dhi; p_.enclose(p_a, a, b, dlo, dhi, 1, 0.0), dlo > 0.0 || dhi < 0.0) {
      const double gb = p_.value(b);
      if (std::abs(gb) > tol_) return known(b, b, sign_of(gb));
    }
    const double mid = a + 0.5 * (b - a);
    visit(a, mid, depth + 1);
    visit(mid, b, depth + 1);
  }

  // p's coefficients about x, kept for the next interval from the same x
  // (the bisection runs left to right: each left half starts where its
  // parent did).
  const Coefficients& about(double x) {
    if (x != about_at_) {
      about_ = p_.about(x);
      about_at_ = x;
    }
    return about_;
  }

  // g has sign `s` on [a, b].
  void known(double a, double b, int s) {
    if (sign_ != 0 && s != sign_) {
      const double root = locate(anchor_, a, s);
      if (direction_ == 0 || direction_ == s) {
        found_ = Crossing{root, s};
        sign_ = s;
        return;
      }
    }
    sign_ = s;
    anchor_ = b;
  }

  // The first point of [l, r] at which g has sign s (s g > 0 counts as the
  // new sign; r when it has it nowhere before r), to `resolution_`.
  double locate(double l, double r, int s) {
    auto is_new = [&](double x) { return s * p_.value(x) > 0.0; };
    if (is_new(l)) return l;
    if (!is_new(r)) return r;
    // safeguarded Newton (rtsafe): Newton while it stays in the bracket and
    // its steps at least halve, bisection otherwise; once the step is below
    // the resolution, probe just across the root to close the bracket
    double x = 0.5 * (l + r), dx = r - l, dx_old = r - l;
    for (int i = 0; i < 200 && r - l > resolution_; ++i) {
      if (counters_) ++counters_->iterations;
      const double g = p_.value(x);
      if (s * g > 0.0)
        r = x;
      else
        l = x;
      const double d = p_.slope(x);
      const double newton = d != 0.0 ? x - g / d : x;
      dx_old = dx;
      if (d == 0.0 || !(newton > l && newton < r) || std::abs(2.0 * g) > std::abs(dx_old * d)) {
        dx = 0.5 * (r - l);
        x = l + dx;
      } else {
        dx = x - newton;
        x = newton;
      }
      if (std::abs(dx) < 0.5 * resolution_) x = s * g > 0.0 ? r - 0.5 * resolution_ : l + 0.5 * resolution_;
      if (!(x > l && x < r)) x = 0.5 * (l + r);
    }
    return r;
  }

  const EventFunction& p_;
  double tol_;
  int direction_;
  int sign_;
  double resolution_;
  SearchCounters* counters_;
  double anchor_ = 0.0;  // where the sign was last known
  int approach_ = 0;     // the sign known last before h (run())
  std::optional<Crossing> found_;
  Coefficients about_{};
  double about_at_ = NAN;
};

}  // namespace

Eigen::VectorXd balance(const Eigen::MatrixXd& A, double roundoff, Eigen::Index fixed) {
  const Eigen::Index n = A.rows();
  const Eigen::Index scaled = fixed < 0 ? n : std::min(fixed, n);
  Eigen::VectorXd D = Eigen::VectorXd::Ones(n);
  // Entries at roundoff level count as zeros: balancing them would scale
  // their coordinates by powers of two far beyond the matrix's own range.
  // The level is relative to each row, not to the largest entry of A: a
  // stiff contact's k / I = 1e14 beside the kinematic 1 of q' = w is no
  // roundoff (against the largest entry the 1 was dropped, nothing was
  // balanced and the unbalanced norm 1e14 made the split fail and the
  // sub-step 2e-12 s: issue 17, tests/exact_stiff_test.cpp).
  Eigen::VectorXd negligible = Eigen::VectorXd::Constant(n, roundoff);
  for (Eigen::Index i = 0; i < n; ++i) negligible(i) = std::max(roundoff, kRowRoundoff * A.row(i).cwiseAbs().maxCoeff());
  auto entry = [&](Eigen::Index i, Eigen::Index j) { return std::abs(A(i, j)) > negligible(i) ? std::abs(A(i, j)) : 0.0; };
  for (int sweep = 0; sweep < 20; ++sweep) {
    bool changed = false;
    for (Eigen::Index i = 0; i < scaled; ++i) {
      double c = 0.0, r = 0.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (j == i) continue;
        c += entry(j, i) * D(i) / D(j);
        r += entry(i, j) * D(j) / D(i);
      }
      if (c == 0.0 || r == 0.0) continue;
      const double f = std::exp2(std::round(0.5 * std::log2(r / c)));
      if (f != 1.0 && c * f + r / f < 0.95 * (c + r)) {
        D(i) *= f;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return D;
}

double balanced_norm(const Eigen::MatrixXd& A, const Eigen::VectorXd& D) {
  double norm = 0.0;
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    double r = 0.0;
    for (Eigen::Index j = 0; j < A.cols(); ++j) r += std::abs(A(i, j)) * D(j) / D(i);
    norm = std::max(norm, r);
  }
  return norm;
}

void GrowthBound::set(const Eigen::MatrixXd& A, const Eigen::VectorXd& D) {
  const Eigen::MatrixXd B = D.cwiseInverse().asDiagonal() * A * D.asDiagonal();
  Eigen::MatrixXd P = Eigen::MatrixXd::Identity(A.rows(), A.cols()), next(A.rows(), A.cols());
  for (int k = 0; k <= kTaylorTerms; ++k) {
    if (k > 0) {
      next.noalias() = B.lazyProduct(P);  // (lazy: far too small for gemm's blocking)
      P.swap(next);
    }
    n_[static_cast<std::size_t>(k)] = P.rows() > 0 ? P.cwiseAbs().rowwise().sum().maxCoeff() : 0.0;
  }
}

double GrowthBound::over(double h) const {
  double sum = 0.0, term = 1.0;  // h^k / k!
  for (int k = 0; k < kTaylorTerms; ++k) {
    if (k > 0) term *= h / k;
    sum += n_[static_cast<std::size_t>(k)] * term;
  }
  term *= h / kTaylorTerms;
  return sum + n_[kTaylorTerms] * term * std::exp(n_[1] * h);
}

void TaylorData::start(const Eigen::MatrixXd& A, const Eigen::VectorXd& D, Eigen::Index rows) {
  D_ = &D;
  A_ = &A;
  rows_ = rows;
  if (V_.rows() < rows_) V_.resize(rows_, kTaylorTerms + 1);
  computed_ = 0;
}

void TaylorData::build(const Eigen::MatrixXd& A, const Eigen::VectorXd& D, double growth,
                       const Eigen::Ref<const Eigen::VectorXd>& z0, double h) {
  start(A, D, z0.size());
  V_.col(0).head(rows_) = z0;
  given_ = 1;
  shorten(growth, h);
}

void TaylorData::build_from_terms(const Eigen::MatrixXd& A, const Eigen::VectorXd& D, double growth,
                                  const Eigen::Ref<const Eigen::MatrixXd>& first, double h) {
  start(A, D, first.rows());
  if (first.cols() < 1) throw std::invalid_argument("TaylorData::build_from_terms: v_0 at least");
  given_ = static_cast<int>(std::min<Eigen::Index>(first.cols(), kTaylorTerms + 1));
  V_.topLeftCorner(rows_, given_) = first.leftCols(given_);
  shorten(growth, h);
}

bool TaylorData::starts_at(const Eigen::Ref<const Eigen::VectorXd>& z0) const {
  return computed_ > 0 && z0.size() == rows_ && (V_.col(0).head(rows_).array() == z0.array()).all();
}

// (v_k and their scaled norms are computed on first need: computed_ of them
// are built; a build resets the count)
void TaylorData::shorten(double growth, double h) {
  h_ = h;
  growth_ = growth;
  auto V = V_.topRows(rows_);
  double term = 1.0, largest = 0.0;  // h^k / k!, the largest ||D^-1 v_k|| h^k / k!
  order_ = kTaylorTerms;
  for (int k = 0; k <= kTaylorTerms; ++k) {
    if (k > 0) term *= h / k;
    if (k >= computed_) {
      if (k >= given_) V.col(k).noalias() = A_->lazyProduct(V.col(k - 1));
      scaled_norm_[static_cast<std::size_t>(k)] = V.col(k).cwiseQuotient(*D_).lpNorm<Eigen::Infinity>();
      computed_ = k + 1;
    }
    const double n = scaled_norm_[static_cast<std::size_t>(k)];
    largest = std::max(largest, n * term);
    if (k >= 2 && n * term <= 1e-20 * largest) {
      order_ = k;
      break;
    }
  }
}

void FastTerm::at(double s, double& e, double& c, double& sn) const {
  for (int i = 0; i < 2; ++i)
    if (s_[static_cast<std::size_t>(i)] == s) {
      e = e_[static_cast<std::size_t>(i)];
      c = c_[static_cast<std::size_t>(i)];
      sn = sn_[static_cast<std::size_t>(i)];
      return;
    }
  e = std::exp(lambda.real() * s);
  c = lambda.imag() == 0.0 ? 1.0 : std::cos(lambda.imag() * s);
  sn = lambda.imag() == 0.0 ? 0.0 : std::sin(lambda.imag() * s);
  const auto i = static_cast<std::size_t>(next_);
  s_[i] = s;
  e_[i] = e;
  c_[i] = c;
  sn_[i] = sn;
  next_ = 1 - next_;
}

namespace {

// beta e^{lambda s} in real arithmetic (std::complex's exp and product call
// cexp and __muldc3, whose care for infinities the search does not need)
std::complex<double> scaled_exp(const FastTerm& f, double s) {
  double e, c, sn;
  f.at(s, e, c, sn);
  if (f.lambda.imag() == 0.0) return f.beta * e;
  c *= e;
  sn *= e;
  return {f.beta.real() * c - f.beta.imag() * sn, f.beta.real() * sn + f.beta.imag() * c};
}

}  // namespace

double EventFunction::value(double s) const {
  double g = poly_value(a, s, degree);
  for (int k = 0; k < nfast; ++k) g += scaled_exp(fast[k], s).real();
  return g;
}

double EventFunction::slope(double s) const {
  double d = poly_slope(a, s, degree);
  for (int k = 0; k < nfast; ++k) {
    const std::complex<double> t = scaled_exp(fast[k], s), l = fast[k].lambda;
    d += t.real() * l.real() - t.imag() * l.imag();
  }
  return d;
}

void EventFunction::derivatives(double s, std::array<double, kTaylorTerms>& d) const {
  d = shifted(a, s, degree);
  for (int k = 0; k < nfast; ++k) {
    std::complex<double> term = fast[k].beta * std::exp(fast[k].lambda * s);  // lambda^j e^{lambda s} beta / j!
    for (int j = 0; j < kTaylorTerms; ++j) {
      if (j > 0) term *= fast[k].lambda / static_cast<double>(j);
      d[static_cast<std::size_t>(j)] += term.real();
    }
  }
}

std::array<double, kTaylorTerms> EventFunction::about(double lo) const { return shifted(a, lo, degree); }

void EventFunction::enclose(const Coefficients& p_lo, double lo, double hi, double& gmin, double& gmax, int order,
                            double conclusive) const {
  const double w = hi - lo;
  // (a) p's range plus each fast term's exact range: good on long intervals
  Coefficients c = p_lo;
  if (order == 1) {
    for (int k = 0; k + 1 < degree; ++k) c[static_cast<std::size_t>(k)] = (k + 1) * c[static_cast<std::size_t>(k + 1)];
    c[static_cast<std::size_t>(degree - 1)] = 0.0;
  }
  polynomial_range(c, w, gmin, gmax, degree);
  double fast_rate = 0.0;
  for (int k = 0; k < nfast; ++k) {
    const FastTerm& f = fast[k];
    const bool d = order == 1;  // g': beta lambda
    double e_lo, c_lo, s_lo, e_hi, c_hi, s_hi, fmin, fmax;
    f.at(lo, e_lo, c_lo, s_lo);
    f.at(hi, e_hi, c_hi, s_hi);
    fast_range(d ? f.amplitude * f.rate : f.amplitude, d ? f.phase + f.angle : f.phase, d ? f.beta * f.lambda : f.beta,
               f.lambda, lo, hi, e_lo, c_lo, s_lo, e_hi, c_hi, s_hi, fmin, fmax);
    gmin += fmin;
    gmax += fmax;
    fast_rate = std::max(fast_rate, f.rate);
  }
  if (nfast == 0 || fast_rate * w > kTaylorModelReach || gmin > conclusive || gmax < -conclusive) return;
  // (b) one Taylor polynomial of all of g about lo, the fast terms' Lagrange
  // remainders added: it keeps the cancellations between the slow and fast
  // parts (g leaving a root with g' = 0 while both parts move), which (a)
  // cannot see on short intervals. Both enclose g: keep their intersection.
  double rest = 0.0;
  for (int k = 0; k < nfast; ++k) {
    const FastTerm& f = fast[k];
    const std::complex<double> beta = order == 1 ? f.beta * f.lambda : f.beta;
    double e_lo, c_lo, s_lo;
    f.at(lo, e_lo, c_lo, s_lo);
    const std::complex<double> growth(e_lo * c_lo, e_lo * s_lo);  // e^{lambda lo}
    std::complex<double> term = beta * growth;
    const double r = f.rate * w;
    double bound = (order == 1 ? f.amplitude * f.rate : f.amplitude) * e_lo * std::max(1.0, std::exp(f.lambda.real() * w));
    for (int j = 0; j < kTaylorTerms; ++j) {
      if (j > 0) term *= fast[k].lambda / static_cast<double>(j);  // beta e^{lambda lo} lambda^j / j!
      c[static_cast<std::size_t>(j)] += term.real();
      bound *= r / static_cast<double>(j + 1);
    }
    rest += bound;
  }
  double bmin, bmax;
  polynomial_range(c, w, bmin, bmax, kTaylorTerms);  // (the fast terms fill all)
  gmin = std::max(gmin, bmin - rest);
  gmax = std::min(gmax, bmax + rest);
}

EventFunction event_polynomial(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& c,
                               const TaylorData& data) {
  EventFunction p;
  p.h = data.h();
  p.degree = data.order();
  const double cnorm = c.cwiseProduct(data.D().transpose()).lpNorm<1>();
  double factorial = 1.0, hk = 1.0, scale = 0.0;
  const int order = data.order();
  for (int k = 0; k < order; ++k) {
    if (k > 0) {
      factorial *= k;
      hk *= data.h();
    }
    p.a[static_cast<std::size_t>(k)] = c.dot(data.v(k)) / factorial;
    scale += c.cwiseAbs().dot(data.v(k).cwiseAbs()) * hk / factorial;
  }
  p.remainder = cnorm * data.growth() * data.scaled_norm(order) * hk * data.h() / (factorial * order);
  p.roundoff = 64.0 * kEps * scale;
  return p;
}

int leaving_sign(const EventFunction& p) {
  const double tol = p.tol();
  const double g0 = p.value(0.0);
  if (std::abs(g0) > tol) return sign_of(g0);
  Coefficients d;
  p.derivatives(0.0, d);
  double hk = 1.0;
  for (int k = 1; k < kTaylorTerms; ++k) {
    hk *= p.h;
    const double term = d[static_cast<std::size_t>(k)] * hk;
    if (std::abs(term) > tol) return sign_of(term);
  }
  return 0;
}

std::optional<Crossing> first_crossing(const EventFunction& p, int direction, int& sign, double resolution,
                                       SearchCounters* counters, int* approach) {
  Search search(p, direction, sign, resolution, counters);
  const std::optional<Crossing> found = search.run();
  sign = search.sign();
  if (approach) *approach = search.approach();
  return found;
}

std::optional<Crossing> first_root(const Eigen::MatrixXd& A, const Eigen::RowVectorXd& c, const Eigen::VectorXd& z0,
                                   double h, int direction, double resolution, SearchCounters* counters) {
  const Eigen::VectorXd D = balance(A);
  const double norm = balanced_norm(A, D);
  const int pieces = norm * h <= kMaxNormStep ? 1 : static_cast<int>(std::ceil(norm * h / kMaxNormStep));
  const double piece = h / pieces;
  const Eigen::MatrixXd step = expm(A * piece);
  Eigen::VectorXd z = z0;
  TaylorData data;
  int sign = 0;
  for (int i = 0; i < pieces; ++i) {
    data.build(A, D, std::exp(norm * piece), z, piece);
    const EventFunction p = event_polynomial(c, data);
    if (i == 0) sign = leaving_sign(p);
    if (auto found = first_crossing(p, direction, sign, resolution, counters)) {
      found->s += i * piece;
      return found;
    }
    z = step * z;
  }
  return std::nullopt;
}

}  // namespace luztar::exact
