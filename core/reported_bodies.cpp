// The motion of the bodies the reduction removed (core/model.hpp
// Model::RemovedBody), computed from the model bodies' at one instant.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/model.hpp"

namespace luztar {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Motion {
  double angle, rate;
};

// Reported body j's angle and rate (rate 0 without `rate`) from the model
// bodies' q and rate. A removed body refers only to bodies that were still in
// the model when it was removed, so the recursion ends; it recomputes rather
// than stores (no allocation: the solvers sample without allocating), and a
// chain of n eliminated bodies costs n^2 at most.
Motion motion(const Model& m, const double* q, const double* rate, int j);

Motion merged(const Model& m, const double* q, const double* rate, const Model::RemovedBody& b) {
  if (b.kept == kGround) return {0.0, 0.0};
  const Motion k = motion(m, q, rate, b.kept);
  return {b.factor * k.angle, b.factor * k.rate};
}

// sum_i k_i luz(x - d_i; [L_i, U_i]) = 0 with d_i = u_i q_other_i. The sum
// is continuous and nondecreasing in x; its zeros are one point or, when
// every spring can be inside its gap at once, the common gap
// [max(d_i + L_i), min(d_i + U_i)]: of positive length, x is undetermined.
// Otherwise the zero lies in (min(d_i + U_i), max(d_i + L_i)), where the sum
// rises strictly and is linear between the springs' edges.
Motion balanced(const Model& m, const double* q, const double* rate, const Model::RemovedBody& b) {
  struct Engaged {
    double d, d_rate, k, lower, upper;
  };
  std::array<Engaged, Model::RemovedBody::kMaxSprings> s{};
  std::size_t n = 0;
  bool determined = true;
  for (const Model::RemovedBody::Spring& sp : b.springs) {
    if (sp.k == 0.0) continue;  // carries no torque
    const Motion o = sp.other == kGround ? Motion{0.0, 0.0} : motion(m, q, rate, sp.other);
    // (an infinite stiffness is no spring a massless body may have: validate)
    if (!std::isfinite(o.angle) || !std::isfinite(sp.k)) determined = false;
    s[n++] = {sp.u * o.angle, sp.u * o.rate, sp.k, sp.lower, sp.upper};
  }
  if (n == 0 || !determined) return {kNaN, kNaN};
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    lo = std::max(lo, s[i].d + s[i].lower);
    hi = std::min(hi, s[i].d + s[i].upper);
  }
  if (lo < hi) return {kNaN, kNaN};  // at rest inside every gap: anywhere in [lo, hi]
  double x = lo;
  if (lo > hi) {
    auto torque = [&](double y) {
      double sum = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        const double X = y - s[i].d;
        sum += X > s[i].upper ? s[i].k * (X - s[i].upper) : X < s[i].lower ? s[i].k * (X - s[i].lower) : 0.0;
      }
      return sum;
    };
    // the sum is < 0 at hi and > 0 at lo; the springs' edges between them
    std::array<double, 2 + 2 * Model::RemovedBody::kMaxSprings> edges{};
    std::size_t ne = 0;
    edges[ne++] = hi;
    edges[ne++] = lo;
    for (std::size_t i = 0; i < n; ++i)
      for (double e : {s[i].d + s[i].lower, s[i].d + s[i].upper})
        if (e > hi && e < lo) edges[ne++] = e;
    for (std::size_t i = 1; i < ne; ++i)  // (insertion sort: at most six)
      for (std::size_t j = i; j > 0 && edges[j] < edges[j - 1]; --j) std::swap(edges[j], edges[j - 1]);
    double x0 = edges[0], f0 = torque(x0);
    x = x0;
    for (std::size_t i = 1; i < ne; ++i) {  // the segment where the sum changes sign
      const double x1 = edges[i], f1 = torque(x1);
      if (f1 >= 0.0) {
        x = f1 == 0.0 ? x1 : x0 - f0 * (x1 - x0) / (f1 - f0);
        break;
      }
      x0 = x1;
      f0 = f1;
    }
  }
  // x moves with the engaged springs (at or beyond an edge of their gap):
  // sum k_i (x' - d_i') = 0 over them
  double k = 0.0, kd = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double X = x - s[i].d;
    if (X > s[i].lower && X < s[i].upper) continue;
    k += s[i].k;
    kd += s[i].k * s[i].d_rate;
  }
  return {x, k > 0.0 ? kd / k : kNaN};
}

Motion motion(const Model& m, const double* q, const double* rate, int j) {
  const int nb = m.num_bodies();
  if (j < nb) return {q[j], rate ? rate[j] : 0.0};
  const Model::RemovedBody& b = m.removed_bodies[static_cast<std::size_t>(j - nb)];
  return b.balanced ? balanced(m, q, rate, b) : merged(m, q, rate, b);
}

}  // namespace

void reported_bodies(const Model& m, const double* q, const double* rate, double* angle, double* rate_out) {
  const int n = static_cast<int>(m.reported_body_names.size());
  for (int j = m.num_bodies(); j < n; ++j) {  // (the model bodies' first nb values stay, and may be q or rate)
    const Motion v = motion(m, q, rate, j);
    if (angle) angle[j] = v.angle;
    if (rate && rate_out) rate_out[j] = v.rate;
  }
  for (int j = 0; j < m.num_bodies(); ++j) {
    if (angle) angle[j] = q[j];
    if (rate && rate_out) rate_out[j] = rate[j];
  }
}

double reported_body_value(const Model& m, const double* q, const double* rate, int j) {
  const Motion v = motion(m, q, rate, j);
  return rate ? v.rate : v.angle;
}

void append_reported_bodies(const Model& m, const std::vector<double>& q, const std::vector<double>& rate,
                            std::vector<double>& out) {
  const std::size_t at = out.size();
  out.resize(at + m.reported_body_names.size());
  if (rate.empty()) reported_bodies(m, q.data(), nullptr, out.data() + at, nullptr);
  else reported_bodies(m, q.data(), rate.data(), nullptr, out.data() + at);
}

}  // namespace luztar
