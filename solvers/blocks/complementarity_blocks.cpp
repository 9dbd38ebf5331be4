#include "solvers/blocks/complementarity_blocks.hpp"

#include <cmath>
#include <stdexcept>

#include "solvers/numerics/lcp.hpp"

namespace luztar {

namespace {

// Solves 0 <= z perp M z + q >= 0 (2 x 2) by Lemke. The blocks' LCPs have a
// solution for every finite q (M positive semi-definite, and the bounds keep
// them feasible); a q that is not finite (an input of inf or NaN, or a sum
// that overflowed) has none, and is refused before pivoting on it.
Eigen::Vector2d lcp2(const Eigen::Matrix2d& M, const Eigen::Vector2d& q) {
  if (!q.allFinite()) throw std::domain_error("complementarity block: its LCP data is not finite");
  const LcpSolution s = solve_lcp_lemke(M, q);
  if (s.status != LcpStatus::solved)
    throw std::logic_error(std::string("complementarity block: Lemke failed (") + to_string(s.status) + ")");
  return s.z;
}

// The form shared by saturation, the saturated integrator and the play:
// y = y_free + a - b with 0 <= a perp y - lower >= 0, 0 <= b perp upper - y >= 0:
// z = (a, b), w = (y_free - lower + a - b, upper - y_free - a + b).
// The LCP gives the active set; the output is read from it: b > 0 makes
// upper - y = 0, a > 0 makes y - lower = 0 (exactly the bound, where
// y_free + a - b would lose the bound's digits once |y_free| >> |bound|).
double project_by_lcp(double y_free, double lower, double upper) {
  Eigen::Matrix2d M;
  M << 1.0, -1.0, -1.0, 1.0;
  const Eigen::Vector2d z = lcp2(M, {y_free - lower, upper - y_free});
  return z[1] > 0.0 ? upper : z[0] > 0.0 ? lower : y_free;
}

}  // namespace

double dead_zone(double x, double lower, double upper) {
  // z = (v, l), w = (u, k): u = x - lower + v, k = x - upper + l. From the
  // active set: v > 0 makes u = 0 (v = lower - x), l > 0 makes k = 0.
  const Eigen::Vector2d z = lcp2(Eigen::Matrix2d::Identity(), {x - lower, x - upper});
  const double v = z[0] > 0.0 ? lower - x : 0.0, k = z[1] > 0.0 ? 0.0 : x - upper;
  return k - v;
}

double saturation(double x, double lower, double upper) { return project_by_lcp(x, lower, upper); }

double coulomb_viscous_velocity(double torque, double viscous, double coulomb) {
  if (coulomb == 0.0) return torque / viscous;
  // s = (torque - viscous (u - v)) / coulomb; z = (u, v), w = (1 - s, 1 + s).
  const double g = viscous / coulomb;
  Eigen::Matrix2d M;
  M << g, -g, -g, g;
  const Eigen::Vector2d z = lcp2(M, {1.0 - torque / coulomb, 1.0 + torque / coulomb});
  return z[0] - z[1];
}

double Play::update(double x) {
  // y = y_prev + k - l with 0 <= y - (x - B/2) perp k, 0 <= (x + B/2) - y perp l.
  y_ = project_by_lcp(y_, x - half_, x + half_);
  return y_;
}

double SaturatedIntegrator::update(double x, double h) {
  y_ = project_by_lcp(y_ + h * x, lower_, upper_);
  return y_;
}

double Relay::update(double x) {
  const double z = x + threshold_ * s_;
  // u - v = z with 0 <= u perp v >= 0: the LCP v >= 0, u = z + v >= 0.
  Eigen::Matrix<double, 1, 1> M, q;
  M << 1.0;
  q << z;
  if (!std::isfinite(z)) throw std::domain_error("complementarity block: its LCP data is not finite");
  const LcpSolution sol = solve_lcp_lemke(M, q);
  if (sol.status != LcpStatus::solved) throw std::logic_error("relay: Lemke failed");
  const double v = sol.z[0], u = z + v;
  if (u > 0.0) s_ = 1;        // 0 <= u perp 1 - s: s = 1
  else if (v > 0.0) s_ = -1;  // 0 <= v perp 1 + s: s = -1
  return output();            // u = v = 0: Sgn(0) leaves s open, the relay holds
}

}  // namespace luztar
