// A spring's description -> its assembled law (core/model.hpp, Spring): the
// gap as its middle and half-width, the stiffness table as knots, slopes,
// signs and energies.
#include <cmath>

#include "core/model.hpp"

namespace luztar {

namespace {

std::int8_t sign_of(double v) { return v > 0.0 ? 1 : v < 0.0 ? -1 : 0; }

// Inserts a knot at x with torque 0 before knot i, in the segment labelled
// `label` (split in two); not when x rounds onto a knot beside it.
void insert_zero_knot(SpringTable& t, std::size_t i, double x, std::int8_t label) {
  if ((i > 0 && !(x > t.knot[i - 1])) || (i < t.knot.size() && !(x < t.knot[i]))) return;
  t.knot.insert(t.knot.begin() + static_cast<long>(i), x);
  t.torque.insert(t.torque.begin() + static_cast<long>(i), 0.0);
  t.label.insert(t.label.begin() + static_cast<long>(i), label);
}

// The contact law clamps the damping to |T_el|; its corners c x' = +-|T_el|
// are linear only where T_el keeps its sign. T_el is nondecreasing, so it
// changes sign strictly inside at most one segment: split it at the zero.
void split_at_zero(SpringTable& t) {
  const std::size_t n = t.knot.size();
  const double first = t.torque.front(), last = t.torque.back();
  const double below = (t.torque[1] - first) / (t.knot[1] - t.knot[0]);
  const double above = (last - t.torque[n - 2]) / (t.knot[n - 1] - t.knot[n - 2]);
  if (first > 0.0 && below > 0.0) {
    insert_zero_knot(t, 0, t.knot[0] - first / below, 0);
    return;
  }
  if (last < 0.0 && above > 0.0) {
    insert_zero_knot(t, n, t.knot[n - 1] - last / above, static_cast<std::int8_t>(n));
    return;
  }
  for (std::size_t k = 1; k < n; ++k)
    if (t.torque[k - 1] < 0.0 && t.torque[k] > 0.0) {
      const double slope = (t.torque[k] - t.torque[k - 1]) / (t.knot[k] - t.knot[k - 1]);
      insert_zero_knot(t, k, t.knot[k - 1] - t.torque[k - 1] / slope, static_cast<std::int8_t>(k));
      return;
    }
}

// Slopes and signs of the n + 1 segments (the end segments continue the first and last ones).
void segments(SpringTable& t) {
  const std::size_t n = t.knot.size();
  t.slope.assign(n + 1, 0.0);
  for (std::size_t k = 1; k < n; ++k) t.slope[k] = (t.torque[k] - t.torque[k - 1]) / (t.knot[k] - t.knot[k - 1]);
  t.slope[0] = t.slope[1];
  t.slope[n] = t.slope[n - 1];
  t.sign.assign(n + 1, 0);
  for (std::size_t k = 1; k < n; ++k) t.sign[k] = sign_of(t.torque[k - 1] + t.torque[k]);
  t.sign[0] = t.torque[0] != 0.0 ? sign_of(t.torque[0]) : t.slope[0] > 0.0 ? -1 : 0;
  t.sign[n] = t.torque[n - 1] != 0.0 ? sign_of(t.torque[n - 1]) : t.slope[n] > 0.0 ? 1 : 0;
}

// The elastic energy at each knot, the integral of T_el from x0 (quadratic on each segment).
void energies(SpringTable& t, double x0) {
  const std::size_t n = t.knot.size();
  std::vector<double> F(n, 0.0);  // the integral from the first knot
  for (std::size_t k = 1; k < n; ++k) F[k] = F[k - 1] + 0.5 * (t.torque[k - 1] + t.torque[k]) * (t.knot[k] - t.knot[k - 1]);
  std::size_t seg = 0;  // the segment of x0
  while (seg < n && x0 >= t.knot[seg]) ++seg;
  const std::size_t anchor = seg > 0 ? seg - 1 : 0;
  const double d = x0 - t.knot[anchor];
  const double at_x0 = F[anchor] + t.torque[anchor] * d + 0.5 * t.slope[seg] * d * d;
  t.energy.resize(n);
  for (std::size_t k = 0; k < n; ++k) t.energy[k] = F[k] - at_x0;
}

}  // namespace

SpringTable spring_table(const SpringSpec& s) {
  SpringTable t;
  const double x0 = spring_offset(s);
  const std::size_t n = s.stiffness_table.x.size();
  for (std::size_t k = 0; k < n; ++k) {
    t.knot.push_back(x0 + s.stiffness_table.x[k]);
    t.torque.push_back(s.stiffness_table.y[k]);
  }
  t.label.resize(n + 1);
  for (std::size_t k = 0; k <= n; ++k) t.label[k] = static_cast<std::int8_t>(k);
  if (s.damping_law == "contact") split_at_zero(t);
  segments(t);
  energies(t, x0);
  return t;
}

Spring spring_law(const SpringSpec& s, const CoordinateRow& row) {
  Spring sp;
  sp.row = row;
  sp.stiffness = s.stiffness;
  sp.damping = s.damping;
  sp.restitution = s.restitution;
  sp.contact_damping = s.damping_law == "contact";
  sp.offset = spring_offset(s);
  if (!s.stiffness_table.empty()) {
    sp.table = spring_table(s);
    return sp;
  }
  const auto [lower, upper] = spring_gap(s);
  sp.freeplay = 0.5 * (upper - lower);
  sp.center = sp.offset + 0.5 * (lower + upper);
  return sp;
}

}  // namespace luztar
