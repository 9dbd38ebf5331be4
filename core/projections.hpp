#pragma once
// Żardecki's piecewise-linear projections (Part 1, Definitions 2.1 and 2.2).
//
//   luz(x, a) = x + (|x - a| - |x + a|) / 2        dead zone of half-width a >= 0
//   tar(x, a) = x + a sgh(x)                        sgh(0) = s* in [-1, 1]
//   tal(x, a1, a2) = tar(luz(x, a1), a2)            (Theorem 3.3)
//
// luz is a function. tar is set-valued at x = 0 (the Coulomb law with stiction:
// any static torque in [-a, a]); tal is set-valued on [-a1, a1]. They are
// returned as an Interval so that no caller gets a silent 0 where the law
// leaves the value open; for x != 0 the interval is a single point.
// Parameters a, a1, a2 are non-negative (asserted).
#include <algorithm>

namespace luztar {

// Closed interval [lo, hi]; a point when lo == hi.
struct Interval {
  double lo = 0.0;
  double hi = 0.0;

  static Interval point(double v) { return {v, v}; }
  bool is_point() const { return lo == hi; }
  bool contains(double v, double tol = 0.0) const { return v >= lo - tol && v <= hi + tol; }
  double width() const { return hi - lo; }
};

Interval operator+(Interval x, Interval y);
Interval operator-(Interval x, Interval y);
Interval operator*(double k, Interval x);  // k of either sign
Interval operator+(Interval x, double c);
// True when the two intervals share a point (within tol): the honest meaning of
// an identity between set-valued expressions.
bool intersects(Interval x, Interval y, double tol = 0.0);

// Dead-zone projection: 0 on [-a, a], x - a above, x + a below.
double luz(double x, double a);
// Image of an interval under luz (luz is monotone).
Interval luz(Interval x, double a);

// Friction projection: x + a sgn(x) for x != 0, the set [-a, a] at x = 0.
Interval tar(double x, double a);
// Image of an interval under the (monotone, set-valued) tar.
Interval tar(Interval x, double a);
// tar away from 0, where it is a function; precondition x != 0.
double tar_slip(double x, double a);

// Combined projection tal(x, a1, a2) = tar(luz(x, a1), a2).
Interval tal(double x, double a1, double a2);
Interval tal(Interval x, double a1, double a2);

}  // namespace luztar
