#include "solvers/blocks/sampled_blocks.hpp"

#include <stdexcept>

#include "core/times.hpp"
#include "solvers/blocks/complementarity_blocks.hpp"

namespace luztar {

BlockSampler::BlockSampler(const Model& m, double t_start) : t_start_(t_start), count_(m.sampled.size(), 0) {
  for (const Signal& b : m.sampled) period_.push_back(b.period);
  find_next();
}

void BlockSampler::find_next() {
  next_ = INFINITY;
  for (std::size_t k = 0; k < count_.size(); ++k) next_ = std::min(next_, instant(k));
}

void BlockSampler::set_counts(const std::vector<long>& counts) {
  if (counts.size() != count_.size()) throw std::invalid_argument("BlockSampler: counts of another model");
  count_ = counts;
  find_next();
}

bool BlockSampler::sample(const Model& m, double t, const double* q, const double* w, double* values) {
  bool changed = false;
  for (std::size_t k = 0; k < count_.size(); ++k) {
    if (!at_or_before(instant(k), t)) continue;
    const Signal& b = m.sampled[k];
    const double x = evaluate(b.terms[0], t, values, q, w);
    // A complementarity block's LCP has no solution for an input of inf or
    // NaN: named here, before the block refuses it (a hold passes it on).
    if (b.kind != Signal::Kind::hold) require_finite_at(x, t, "complementarity block", m.sampled_names[k], "input");
    double& y = values[b.input];
    const double before = y;
    // A caller that samples late (a time stepper, at the end of the step that
    // holds the instant) gives every instant passed the input it reads now.
    for (; at_or_before(instant(k), t); ++count_[k]) {
      switch (b.kind) {
        case Signal::Kind::hold:
          y = x;
          break;
        case Signal::Kind::play: {
          Play play(b.width, y);
          y = play.update(x);
          break;
        }
        case Signal::Kind::saturated_integrator: {
          SaturatedIntegrator integrator(b.lower, b.upper, y);
          y = integrator.update(x, count_[k] == 0 ? 0.0 : b.period);
          break;
        }
        case Signal::Kind::relay: {
          Relay relay(b.threshold, b.value, y < 0.0 ? -1 : 1);
          y = relay.update(x);
          break;
        }
        default:
          throw std::logic_error("BlockSampler: not a sampled block");
      }
    }
    changed = changed || y != before;
  }
  find_next();
  return changed;
}

}  // namespace luztar
