#pragma once
// Internal to core/validate*.cpp (validate(), core/model.hpp): the rules of a
// number that every part of the check reports through, and the entry of each
// part. A rule throws ModelError at the dotted path of its field (io adds
// file:line:col to it).
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/model_spec.hpp"

namespace luztar::validation {

inline std::string show(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

inline void require_finite(double v, const std::string& field) {
  if (!std::isfinite(v)) throw ModelError(field, "must be a finite number (got " + show(v) + ")");
}
// A body's or an element's number is 0 or of a magnitude in [1e-100, 1e100]:
// the model's laws multiply them in twos and threes (p^2 I, k / p^2, k x x),
// which outside that range leaves double precision's (a subnormal inertia, a
// ratio of 1e160) and would end a run in an internal error instead of naming
// the field. (Signals may hold any finite value: a block's overflow is a run
// error of its own, at its instant.)
constexpr double kSmallestMagnitude = 1e-100, kLargestMagnitude = 1e100;
inline void require_in_range(double v, const std::string& field) {
  if (std::isfinite(v) && v != 0.0 && (std::abs(v) < kSmallestMagnitude || std::abs(v) > kLargestMagnitude))
    throw ModelError(field, "must be 0 or of a magnitude between 1e-100 and 1e100 (got " + show(v) + ")");
}
inline void require_nonnegative(double v, const std::string& field) {
  require_finite(v, field);
  if (v < 0.0) throw ModelError(field, "must be >= 0 (got " + show(v) + ")");
}
inline void require_positive(double v, const std::string& field) {
  require_finite(v, field);
  if (v <= 0.0) throw ModelError(field, "must be > 0 (got " + show(v) + ")");
}

// --- the simulation settings (core/validate_simulation.cpp) -------------------

// The times, output grid, tolerances, limits and solver choices of
// spec.simulation (its output grid against the numbers of bodies and elements).
void validate_simulation(const ModelSpec& spec);

// --- signals (core/validate_signals.cpp) --------------------------------------

// Bounds of a signal over all time, by interval arithmetic (used to prove that
// a friction limit never goes negative).
struct Range {
  double lo, hi;
};
// Bounds of s over all time; references are looked up in `named` (depth: the
// nesting of s, for the recursion).
Range signal_range(const Signal& s, const std::map<std::string, Signal>& named, int depth);

// The rules of a signal at path (its kind's fields, its terms, its references
// into `named`, the bodies it measures) read in continuous time (a torque, a
// friction limit); `span` [s] is the run's t_end - t_start (a sampled block
// samples at most kMaxSampleInstants times over it).
void validate_signal(const Signal& s, const std::string& path, const std::map<std::string, Signal>& named,
                     const std::set<std::string>& bodies, double span);
// The names and rules of every named signal (spec.signals), each checked once.
void validate_named_signals(const ModelSpec& spec, const std::set<std::string>& bodies);
// The signals of the elements, inlined, stay within the limits together (the
// first signal that takes the model over one is reported), and so does each
// named signal (kMaxInlinedSignalNodes, kMaxInlinedTableSamples, kMaxSignalDepth).
void require_inlined_within_limits(const ModelSpec& spec);
// A signal that must stay >= 0 at all times (a friction limit, a normal force).
void require_nonnegative_signal(const ModelSpec& spec, const Signal& s, const std::string& field, const char* what);

// --- elements (core/validate_elements.cpp, core/validate_springs.cpp) ---------

// The rules of element e at p (elements.<name>): its field table's, then its
// kind's own (kind_rules); bodies: the names of the model's bodies.
// body_kinds: whether the kinds of its bodies are checked (validate()).
void validate_element(const ModelSpec& spec, const ElementSpec& e, const std::string& p,
                      const std::set<std::string>& bodies, bool body_kinds);

// The body named `name` in spec, nullptr if there is none.
const BodySpec* find_body(const ModelSpec& spec, const std::string& name);
// The initial value of an element's coordinate from its bodies' field `of`
// (angle or velocity): sum c q over a coordinate's terms, else q_a - ratio q_b.
double initial_coordinate(const ModelSpec& spec, const std::string& a, const std::string& b, double ratio,
                          const std::vector<CoordinateTerm>& terms, double BodySpec::*of);

// A spring's rules beyond its table: ratio and coordinate, stiffness table,
// offset or preload, restitution, rigid freeplay and rigid connection, contact
// damping.
void kind_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p);

}  // namespace luztar::validation
