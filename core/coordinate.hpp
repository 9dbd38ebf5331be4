#pragma once
// A coordinate row: the generalised relative coordinate an element acts on,
// x = sum_k c_k q_{body_k} (issue 19, design 2.1). A spring between two
// bodies is the row (1, -p) on (a, b), a bearing the row (1) on its body; a
// differential's side gears and cage, x = q_left + q_right - 2 q_cage, a row
// of three. The fixed base contributes no term.
//
// An element's effort T on its coordinate (a torque) acts on body k as
// -c_k T, and the power it takes from the bodies is T x' (x' = sum c_k w_k).
// A locked row (a stuck friction element, rigid teeth in contact) holds
// x' = 0.
//
// The terms keep the order of the description (`bodies: [a, b]` is a then b,
// a `coordinate:` mapping in its order): the two-body form then evaluates
// exactly as x = q_a - p q_b did, so that results stay identical bit for bit.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace luztar {

inline constexpr int kMaxCoordinateTerms = 8;  // a planetary needs 3; fixed size: no allocation

struct CoordinateRow {
  int n = 0;                                     // terms (1 .. kMaxCoordinateTerms)
  std::array<int, kMaxCoordinateTerms> body{};   // (n) body indices, distinct
  std::array<double, kMaxCoordinateTerms> c{};   // (n) coefficients, finite, != 0 [1]
};

// The row x = q_a - ratio q_b (b = -1, the base: x = q_a).
inline CoordinateRow two_body_row(int a, int b, double ratio) {
  CoordinateRow r;
  r.n = b < 0 ? 1 : 2;
  r.body[0] = a;
  r.c[0] = 1.0;
  if (b >= 0) {
    r.body[1] = b;
    r.c[1] = -ratio;
  }
  return r;
}

// sum_k c_k v[body_k]: the coordinate at angles v [rad], or its rate at
// velocities v [rad/s] (v: one value per body).
inline double row_value(const CoordinateRow& r, const double* v) {
  double x = r.c[0] * v[r.body[0]];
  for (int k = 1; k < r.n; ++k) x += r.c[k] * v[r.body[k]];
  return x;
}

// Adds the effort T on the coordinate to the bodies' torques: -c_k T on body k
// (force: one value per body).
inline void apply_row_effort(const CoordinateRow& r, double effort, double* force) {
  for (int k = 0; k < r.n; ++k) force[r.body[k]] -= r.c[k] * effort;
}

// sum_k |c_k v[body_k]|: the scale of row_value's roundoff.
inline double row_magnitude(const CoordinateRow& r, const double* v) {
  double s = 0.0;
  for (int k = 0; k < r.n; ++k) s += std::abs(r.c[k] * v[r.body[k]]);
  return s;
}

// max_k |c_k|: the row's size as a map from the bodies' velocities to its
// rate. A tolerance on a link's rate x' [rad/s] is this times one on the
// bodies' velocities: the coordinate s x with its torques divided by s is the
// same element for any s, and an absolute 1e-13 rad/s on x' = 1e-20 (w_a +
// w_b - 2 w_c) was 1e7 rad/s of the bodies (its lock never came).
inline double row_scale(const CoordinateRow& r) {
  double s = 0.0;
  for (int k = 0; k < r.n; ++k) s = std::max(s, std::abs(r.c[k]));
  return s;
}

// True when the row's rate at velocities w is at rest: within `tolerance`
// [rad/s of the bodies] (row_scale times it on the rate) or within the
// rate's roundoff, 64 eps row_magnitude (a tolerance of 0: exact arrivals).
inline bool row_at_rest(const CoordinateRow& r, const double* w, double tolerance) {
  const double roundoff = 64 * std::numeric_limits<double>::epsilon() * row_magnitude(r, w);
  return std::abs(row_value(r, w)) <= std::max(tolerance * row_scale(r), roundoff);
}

// True when the row joins at most two bodies: as a locked link it is a ratio
// w_{body_0} = p w_{body_1} (or w_{body_0} = 0), which bodies/clusters locks
// by its weighted union-find (the fast path).
inline bool is_two_body(const CoordinateRow& r) { return r.n <= 2; }
// Its ratio p = -c_1 / c_0 (1 for a row of one term; unused there).
inline double two_body_ratio(const CoordinateRow& r) { return r.n == 2 ? -r.c[1] / r.c[0] : 1.0; }

// True when body j is one of the row's bodies.
inline bool row_has(const CoordinateRow& r, int j) {
  for (int k = 0; k < r.n; ++k)
    if (r.body[k] == j) return true;
  return false;
}

}  // namespace luztar
