// The motion of the bodies the reduction removed (core/model.hpp
// Model::RemovedBody), computed from the model bodies' at one instant.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/model.hpp"

namespace luztar {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A removed body's angle and rate from its neighbours' (a reported body's,
// evaluated on demand: a removed body refers only to bodies that were still
// in the model when it was removed, so the references form no loop).
class Evaluator {
 public:
  Evaluator(const Model& m, const double* q, const double* rate, double* angle, double* rate_out)
      : m_(m), q_(q), rate_(rate), angle_(angle), rate_out_(rate_out),
        done_(m.removed_bodies.size(), false) {}

  void all() {
    for (int j = 0; j < static_cast<int>(m_.reported_body_names.size()); ++j) evaluate(j);
  }
  void evaluate(int j) {
    const int nb = m_.num_bodies();
    if (j < nb) {
      angle_[j] = q_[j];
      if (rate_out_) rate_out_[j] = rate_[j];
      return;
    }
    const std::size_t r = static_cast<std::size_t>(j - nb);
    if (done_[r]) return;
    const Model::RemovedBody& b = m_.removed_bodies[r];
    if (b.balanced) balance(b, j);
    else merged(b, j);
    done_[r] = true;
  }

 private:
  // (0 for the base)
  double angle_of(int j) {
    if (j == kGround) return 0.0;
    evaluate(j);
    return angle_[j];
  }
  double rate_of(int j) { return j == kGround ? 0.0 : rate_out_[j]; }  // (after angle_of(j))

  void merged(const Model::RemovedBody& b, int j) {
    angle_[j] = b.kept == kGround ? 0.0 : b.factor * angle_of(b.kept);
    if (rate_out_) rate_out_[j] = b.kept == kGround ? 0.0 : b.factor * rate_of(b.kept);
  }

  // sum_i k_i luz(x - d_i; [L_i, U_i]) = 0 with d_i = u_i q_other_i. The sum
  // is continuous and nondecreasing in x; its zeros are one point or, when
  // every spring can be inside its gap at once, the common gap
  // [max(d_i + L_i), min(d_i + U_i)]: of positive length, x is undetermined.
  // Otherwise the zero lies in (min(d_i + U_i), max(d_i + L_i)), where the sum
  // rises strictly and is linear between the springs' edges.
  void balance(const Model::RemovedBody& b, int j) {
    struct Active {
      double d, d_rate, k, lower, upper;
    };
    std::vector<Active> s;
    bool determined = true;
    for (const Model::RemovedBody::Spring& sp : b.springs) {
      if (sp.k == 0.0) continue;  // carries no torque
      const double d = sp.u * angle_of(sp.other);
      const double d_rate = rate_out_ ? sp.u * rate_of(sp.other) : 0.0;
      // (an infinite stiffness is no spring a massless body may have: validate)
      if (!std::isfinite(d) || !std::isfinite(sp.k)) determined = false;
      s.push_back({d, d_rate, sp.k, sp.lower, sp.upper});
    }
    angle_[j] = kNaN;
    if (rate_out_) rate_out_[j] = kNaN;
    if (s.empty() || !determined) return;
    double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
    for (const Active& a : s) {
      lo = std::max(lo, a.d + a.lower);
      hi = std::min(hi, a.d + a.upper);
    }
    if (lo < hi) return;  // at rest inside every gap: anywhere in [lo, hi]
    double x = lo;
    if (lo > hi) {
      auto torque = [&](double y) {
        double sum = 0.0;
        for (const Active& a : s) {
          const double X = y - a.d;
          sum += X > a.upper ? a.k * (X - a.upper) : X < a.lower ? a.k * (X - a.lower) : 0.0;
        }
        return sum;
      };
      std::vector<double> edges = {hi, lo};
      for (const Active& a : s)
        for (double e : {a.d + a.lower, a.d + a.upper})
          if (e > hi && e < lo) edges.push_back(e);
      std::sort(edges.begin(), edges.end());
      // the sum is < 0 at hi and > 0 at lo: the segment where it changes sign
      double x0 = edges.front(), f0 = torque(x0);
      x = x0;
      for (std::size_t i = 1; i < edges.size(); ++i) {
        const double x1 = edges[i], f1 = torque(x1);
        if (f1 >= 0.0) {
          x = f1 == 0.0 ? x1 : x0 - f0 * (x1 - x0) / (f1 - f0);
          break;
        }
        x0 = x1;
        f0 = f1;
      }
    }
    angle_[j] = x;
    if (!rate_out_) return;
    // x moves with the engaged springs (at or beyond an edge of their gap):
    // sum k_i (x' - d_i') = 0 over them
    double k = 0.0, kd = 0.0;
    for (const Active& a : s) {
      const double X = x - a.d;
      if (X > a.lower && X < a.upper) continue;
      k += a.k;
      kd += a.k * a.d_rate;
    }
    if (k > 0.0) rate_out_[j] = kd / k;
  }

  const Model& m_;
  const double* q_;
  const double* rate_;
  double* angle_;
  double* rate_out_;
  std::vector<bool> done_;
};

}  // namespace

void reported_bodies(const Model& m, const double* q, const double* rate, double* angle, double* rate_out) {
  Evaluator(m, q, rate, angle, rate ? rate_out : nullptr).all();
}

double reported_body_value(const Model& m, const double* q, const double* rate, int j) {
  if (j < m.num_bodies()) return rate ? rate[j] : q[j];
  const std::size_t n = m.reported_body_names.size();
  std::vector<double> angle(n), rate_out(n);
  reported_bodies(m, q, rate, angle.data(), rate_out.data());
  return rate ? rate_out[static_cast<std::size_t>(j)] : angle[static_cast<std::size_t>(j)];
}

void append_reported_bodies(const Model& m, const std::vector<double>& q, const std::vector<double>& rate,
                            std::vector<double>& out) {
  const std::size_t n = m.reported_body_names.size();
  std::vector<double> angle(n), rate_out(n);
  reported_bodies(m, q.data(), rate.empty() ? nullptr : rate.data(), angle.data(), rate_out.data());
  const std::vector<double>& v = rate.empty() ? angle : rate_out;
  out.insert(out.end(), v.begin(), v.end());
}

}  // namespace luztar
