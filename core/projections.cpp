#include "core/projections.hpp"

#include <cassert>
#include <cmath>

namespace luztar {

Interval operator+(Interval x, Interval y) { return {x.lo + y.lo, x.hi + y.hi}; }
Interval operator-(Interval x, Interval y) { return {x.lo - y.hi, x.hi - y.lo}; }
Interval operator*(double k, Interval x) {
  return k >= 0.0 ? Interval{k * x.lo, k * x.hi} : Interval{k * x.hi, k * x.lo};
}
Interval operator+(Interval x, double c) { return {x.lo + c, x.hi + c}; }

bool intersects(Interval x, Interval y, double tol) {
  return x.lo <= y.hi + tol && y.lo <= x.hi + tol;
}

double luz(double x, double a) {
  assert(a >= 0.0);
  // Piecewise form of x + (|x - a| - |x + a|)/2: exact in floating point
  // (the closed formula loses the zero inside the dead zone to rounding).
  if (x > a) return x - a;
  if (x < -a) return x + a;
  return 0.0;
}

Interval luz(Interval x, double a) { return {luz(x.lo, a), luz(x.hi, a)}; }

Interval tar(double x, double a) {
  assert(a >= 0.0);
  if (x > 0.0) return Interval::point(x + a);
  if (x < 0.0) return Interval::point(x - a);
  return {-a, a};
}

Interval tar(Interval x, double a) {
  // tar is monotone: the image of [lo, hi] runs from the bottom of tar(lo) to
  // the top of tar(hi).
  return {tar(x.lo, a).lo, tar(x.hi, a).hi};
}

double tar_slip(double x, double a) {
  assert(x != 0.0);
  return x > 0.0 ? x + a : x - a;
}

Interval tal(double x, double a1, double a2) { return tar(luz(x, a1), a2); }
Interval tal(Interval x, double a1, double a2) { return tar(luz(x, a1), a2); }

}  // namespace luztar
