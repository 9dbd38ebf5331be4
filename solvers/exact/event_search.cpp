#include "solvers/exact/event_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/exact/matrix_exponential.hpp"

namespace luztar::exact {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxDepth = 80;

using Coefficients = std::array<double, kTaylorTerms>;

// Coefficients of p(x + u) in u (Taylor shift, O(N^2)).
Coefficients shifted(const Coefficients& a, double x) {
  Coefficients b = a;
  for (int k = 0; k < kTaylorTerms - 1; ++k)
    for (int j = kTaylorTerms - 2; j >= k; --j) b[static_cast<std::size_t>(j)] += x * b[static_cast<std::size_t>(j + 1)];
  return b;
}

double value(const Coefficients& a, double s) {
  double r = 0.0;
  for (int k = kTaylorTerms - 1; k >= 0; --k) r = r * s + a[static_cast<std::size_t>(k)];
  return r;
}

double slope(const Coefficients& a, double s) {
  double r = 0.0;
  for (int k = kTaylorTerms - 1; k >= 1; --k) r = r * s + k * a[static_cast<std::size_t>(k)];
  return r;
}

int sign_of(double x) { return x > 0.0 ? 1 : x < 0.0 ? -1 : 0; }

// The left-to-right bisection of [0, h] into enclosed intervals (see the header).
class Search {
 public:
  Search(const EventPolynomial& p, int direction, int sign, double resolution, SearchCounters* counters)
      : p_(p), tol_(p.tol()), direction_(direction), sign_(sign), resolution_(resolution), counters_(counters) {}

  std::optional<Crossing> run() {
    visit(0.0, p_.h, 0);
    if (found_) return found_;
    // g reaches zero at h without a known sign there: the sign it leaves h in
    if (sign_ != 0 && std::abs(value(p_.a, p_.h)) <= tol_) {
      const Coefficients b = shifted(p_.a, p_.h);
      for (int k = 1; k < kTaylorTerms; ++k) {
        const double term = b[static_cast<std::size_t>(k)] * std::pow(p_.h, k);
        if (std::abs(term) > tol_) {
          known(p_.h, p_.h, sign_of(term));
          break;
        }
      }
    }
    return found_;
  }
  int sign() const { return sign_; }

 private:
  void visit(double a, double b, int depth) {
    if (found_) return;
    if (counters_) ++counters_->intervals;
    const Coefficients c = shifted(p_.a, a);
    const double w = b - a;
    double lo = c[0], hi = c[0], wk = 1.0;
    for (int k = 1; k < kTaylorTerms; ++k) {
      wk *= w;
      const double term = c[static_cast<std::size_t>(k)] * wk;
      (term < 0.0 ? lo : hi) += term;
    }
    if (lo > tol_) return known(a, b, 1);
    if (hi < -tol_) return known(a, b, -1);
    if (hi - lo <= 4.0 * tol_ || depth >= kMaxDepth || w <= resolution_) {
      const double gb = value(p_.a, b);
      if (std::abs(gb) > tol_) known(b, b, sign_of(gb));
      return;
    }
    const double mid = a + 0.5 * w;
    visit(a, mid, depth + 1);
    visit(mid, b, depth + 1);
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

  // The first point of [l, r] at which g has sign s (s p > tol counts as the
  // new sign; r when it has it nowhere before r), to `resolution_`.
  double locate(double l, double r, int s) {
    auto is_new = [&](double x) { return s * value(p_.a, x) > 0.0; };
    if (is_new(l)) return l;
    if (!is_new(r)) return r;
    double x = 0.5 * (l + r), width = r - l;
    for (int i = 0; i < 200 && r - l > resolution_; ++i) {
      if (counters_) ++counters_->iterations;
      const double g = value(p_.a, x);
      if (s * g > 0.0)
        r = x;
      else
        l = x;
      // safeguarded Newton: bisection when it left the bracket or the bracket did
      // not halve (near the root g's sign is roundoff noise); once converged,
      // probe just across the root to close the bracket
      const bool halved = r - l <= 0.5 * width;
      width = r - l;
      const double d = slope(p_.a, x);
      double next = halved && d != 0.0 ? x - g / d : 0.5 * (l + r);
      if (std::abs(next - x) < 0.5 * resolution_) next = x == r ? r - 0.5 * resolution_ : l + 0.5 * resolution_;
      if (!(next > l && next < r)) next = 0.5 * (l + r);
      x = next;
    }
    return r;
  }

  const EventPolynomial& p_;
  double tol_;
  int direction_;
  int sign_;
  double resolution_;
  SearchCounters* counters_;
  double anchor_ = 0.0;  // where the sign was last known
  std::optional<Crossing> found_;
};

}  // namespace

Eigen::VectorXd balance(const Eigen::MatrixXd& A) {
  const Eigen::Index n = A.rows();
  Eigen::VectorXd D = Eigen::VectorXd::Ones(n);
  for (int sweep = 0; sweep < 20; ++sweep) {
    bool changed = false;
    for (Eigen::Index i = 0; i < n; ++i) {
      double c = 0.0, r = 0.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (j == i) continue;
        c += std::abs(A(j, i)) * D(i) / D(j);
        r += std::abs(A(i, j)) * D(j) / D(i);
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

void TaylorData::build(const Eigen::MatrixXd& A, const Eigen::VectorXd& D, double norm, const Eigen::VectorXd& z0,
                       double h) {
  D_ = &D;
  h_ = h;
  growth_ = std::exp(norm * h);
  V_.resize(z0.size(), kTaylorTerms + 1);
  V_.col(0) = z0;
  for (int k = 0; k <= kTaylorTerms; ++k) {
    if (k > 0) V_.col(k).noalias() = A * V_.col(k - 1);
    scaled_norm_[static_cast<std::size_t>(k)] = V_.col(k).cwiseQuotient(D).lpNorm<Eigen::Infinity>();
  }
}

EventPolynomial event_polynomial(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& c,
                                 const TaylorData& data) {
  EventPolynomial p;
  p.h = data.h();
  const double cnorm = c.cwiseProduct(data.D().transpose()).lpNorm<1>();
  double factorial = 1.0, hk = 1.0, scale = 0.0;
  for (int k = 0; k < kTaylorTerms; ++k) {
    if (k > 0) {
      factorial *= k;
      hk *= data.h();
    }
    p.a[static_cast<std::size_t>(k)] = c.dot(data.v(k)) / factorial;
    scale += cnorm * data.scaled_norm(k) * hk / factorial;
  }
  p.remainder = cnorm * data.growth() * data.scaled_norm(kTaylorTerms) * hk * data.h() / (factorial * kTaylorTerms);
  p.roundoff = 64.0 * kEps * scale;
  return p;
}

int leaving_sign(const EventPolynomial& p) {
  const double tol = p.tol();
  if (std::abs(p.a[0]) > tol) return sign_of(p.a[0]);
  double hk = 1.0;
  for (int k = 1; k < kTaylorTerms; ++k) {
    hk *= p.h;
    const double term = p.a[static_cast<std::size_t>(k)] * hk;
    if (std::abs(term) > tol) return sign_of(term);
  }
  return 0;
}

std::optional<Crossing> first_crossing(const EventPolynomial& p, int direction, int& sign, double resolution,
                                       SearchCounters* counters) {
  Search search(p, direction, sign, resolution, counters);
  const std::optional<Crossing> found = search.run();
  sign = search.sign();
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
    data.build(A, D, norm, z, piece);
    const EventPolynomial p = event_polynomial(c, data);
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
