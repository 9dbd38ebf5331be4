#pragma once
// The sampler of a model's sampled blocks (Model::sampled; core/signal.hpp):
// digital blocks that read their input at the instants t_start + n period and
// hold their output until the next instant (zero-order hold).
//
// At an instant the due blocks are updated in Model::sampled order (a block
// before the blocks that read it, so that a chain of blocks passes a sample
// through at once, as a direct-feedthrough block diagram does), each solving
// its complementarity form (solvers/blocks/complementarity_blocks.hpp):
//   hold                  y_n = x_n
//   play                  y_n = play(x_n; y_n-1), the catching-up play operator
//   saturated_integrator  y_n = y_n-1 + T x_n projected on [lower, upper] (y_0 = initial)
//   relay                 s_n = +1 above +threshold, -1 below -threshold, s_n-1 between
// where x_n is the block's input at the instant, with the system measured
// there (body angles and velocities at t_n, after any event at t_n).
//
// The held outputs are the sampler's only state besides the sample counts:
// they live in the input values array (SimData::inputs), so a copy of that
// array and of the sampler (a value: SimData::blocks) restores the blocks exactly.
#include <vector>

#include "core/model.hpp"

namespace luztar {

class BlockSampler {
 public:
  BlockSampler() = default;  // no blocks
  BlockSampler(const Model& m, double t_start);

  // The earliest instant not yet sampled [s] (INFINITY without blocks).
  double next_instant() const { return next_; }
  // Updates the blocks whose instant is at or before t (or the same instant,
  // core/times.hpp), reading the input values `values` (named inputs and held
  // outputs) and the state q, w; writes their new outputs into `values`.
  // Returns whether any held output changed.
  bool sample(const Model& m, double t, const double* q, const double* w, double* values);

  // Samples taken per block, to snapshot and restore.
  const std::vector<long>& counts() const { return count_; }
  void set_counts(const std::vector<long>& counts);

 private:
  double instant(std::size_t k) const { return t_start_ + static_cast<double>(count_[k]) * period_[k]; }
  void find_next();

  double t_start_ = 0.0;
  std::vector<double> period_;  // (nsb) [s]
  std::vector<long> count_;     // (nsb) samples taken
  double next_ = INFINITY;
};

}  // namespace luztar
