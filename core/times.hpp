#pragma once
// The one comparison of instants used wherever times meet: breakpoints, sample
// instants, the output grid, advance_to targets, CVODE stop times. Instants
// computed along different roads (700 * 0.001 is 0.7000000000000001, a host's
// k * 1e-3, a ramp's end 0.7) differ by a few units in the last place; they
// are the same instant. CVODE itself refuses to integrate over less than two
// ulp ("tout too close to t0"), so no stop may be placed that close either.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace luztar {

// Instants closer than this many units in the last place (relative to the
// larger magnitude) are the same instant.
inline constexpr double kSameTimeUlps = 8.0;

// a and b are the same instant [s] (an infinite time only equals itself).
inline bool same_time(double a, double b) {
  const double scale = std::max(std::abs(a), std::abs(b));
  return a == b ||
         (std::isfinite(scale) && std::abs(a - b) <= kSameTimeUlps * std::numeric_limits<double>::epsilon() * scale);
}
// a is strictly before b, and not the same instant.
inline bool earlier(double a, double b) { return a < b && !same_time(a, b); }
// a is before b or the same instant.
inline bool at_or_before(double a, double b) { return a <= b || same_time(a, b); }

// The element of the sorted `instants` at the same instant as t, or null.
inline const double* instant_near(const std::vector<double>& instants, double t) {
  const auto it = std::lower_bound(instants.begin(), instants.end(), t);
  if (it != instants.end() && same_time(*it, t)) return &*it;
  if (it != instants.begin() && same_time(*(it - 1), t)) return &*(it - 1);
  return nullptr;
}
// t as it is reported: a breakpoint at the same instant is that breakpoint
// (a grid point 0.7000000000000001 at a ramp's corner 0.7 is 0.7).
inline double reported_time(const std::vector<double>& breakpoints, double t) {
  const double* at = instant_near(breakpoints, t);
  return at ? *at : t;
}

}  // namespace luztar
