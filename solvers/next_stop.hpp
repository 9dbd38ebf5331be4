#pragma once
// The next instant the event-driven clock must stop at of its own: a signal
// breakpoint, a sampled block's instant or t_end. Shared by the Simulator's
// main loop and the event pipeline's probes (which must not reach past it: a
// breakpoint's jump is the pipeline's, not a probe's).
#include <algorithm>

#include "core/model.hpp"
#include "core/times.hpp"
#include "solvers/blocks/sampled_blocks.hpp"

namespace luztar {

// The first of: the breakpoint after t (not at the same instant), the blocks'
// next instant after t, t_end when t is before it, else `target` (a stop past
// t_end asked for by a caller stepping beyond it) [s].
inline double next_stop(const Model& m, const BlockSampler& blocks, double t_end, double t, double target) {
  double stop = std::max(t_end, target);
  if (earlier(t, t_end)) stop = t_end;
  auto it = std::upper_bound(m.breakpoints.begin(), m.breakpoints.end(), t);
  while (it != m.breakpoints.end() && same_time(*it, t)) ++it;
  if (it != m.breakpoints.end()) stop = std::min(stop, *it);
  if (earlier(t, blocks.next_instant())) stop = std::min(stop, blocks.next_instant());
  return stop;
}

}  // namespace luztar
