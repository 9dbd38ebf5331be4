#pragma once
// The rule a host's advance_to(t) obeys in every embedding face (the C++
// facade and so the C API, the Python package): a finite time from the
// simulator's time to simulation.t_end. Not installed.
#include <cmath>
#include <string>
#include <stdexcept>

#include "core/number_text.hpp"
#include "core/times.hpp"

namespace luztar::app {

// Throws std::invalid_argument unless `t` is finite and within [now, t_end];
// instants a few ulp apart are one (core/times.hpp), so k * 1e-3 may end a hair
// past t_end.
inline void check_host_time(double t, double now, double t_end) {
  if (std::isfinite(t) && !earlier(t, now) && !earlier(t_end, t)) return;
  // (shortest texts that read back: 2.0000001 printed as 2 read as a valid time)
  throw std::invalid_argument("advance_to: t = " + shortest(t) + " must be a finite time in [" + shortest(now) + ", " +
                              shortest(t_end) + "] (from the simulator's time to simulation.t_end)");
}

}  // namespace luztar::app
