// The rules a model description must satisfy, each reported with the dotted
// path of the field (io adds file:line:col to it).
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "core/model.hpp"
#include "core/run_frame.hpp"

namespace luztar {

namespace {

std::string show(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

void require_finite(double v, const std::string& field) {
  if (!std::isfinite(v)) throw ModelError(field, "must be a finite number (got " + show(v) + ")");
}
// A body's or an element's number is 0 or of a magnitude in [1e-100, 1e100]:
// the model's laws multiply them in twos and threes (p^2 I, k / p^2, k x x),
// which outside that range leaves double precision's (a subnormal inertia, a
// ratio of 1e160) and would end a run in an internal error instead of naming
// the field. (Signals may hold any finite value: a block's overflow is a run
// error of its own, at its instant.)
constexpr double kSmallestMagnitude = 1e-100, kLargestMagnitude = 1e100;
void require_in_range(double v, const std::string& field) {
  if (std::isfinite(v) && v != 0.0 && (std::abs(v) < kSmallestMagnitude || std::abs(v) > kLargestMagnitude))
    throw ModelError(field, "must be 0 or of a magnitude between 1e-100 and 1e100 (got " + show(v) + ")");
}
void require_nonnegative(double v, const std::string& field) {
  require_finite(v, field);
  if (v < 0.0) throw ModelError(field, "must be >= 0 (got " + show(v) + ")");
}
void require_positive(double v, const std::string& field) {
  require_finite(v, field);
  if (v <= 0.0) throw ModelError(field, "must be > 0 (got " + show(v) + ")");
}

// Tolerances: rtol in (0, kMaxRtol], atol in (0, kMaxAtol]; larger ones make
// the integrator's error control meaningless (a "converged" step may be wrong
// by more than the state itself).
constexpr double kMaxRtol = 0.1;
constexpr double kMaxAtol = 1.0;

// lo < v <= hi.
void require_in(double v, double lo, double hi, const std::string& field) {
  require_finite(v, field);
  if (!(v > lo && v <= hi))
    throw ModelError(field, "must be in (" + show(lo) + ", " + show(hi) + "] (got " + show(v) + ")");
}

// A count lo <= n <= hi.
void require_count(long n, long lo, long hi, const std::string& field) {
  if (n < lo || n > hi)
    throw ModelError(field, "must be a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "] (got " + std::to_string(n) + ")");
}

// The output grid fits in memory: samples x values per sample <= kMaxStoredValues.
void require_stored_values(const SimulationSettings& sim, std::size_t bodies, std::size_t elements) {
  const double samples = output_sample_count(sim);
  const double values = samples * stored_values_per_sample(bodies, elements);
  if (!(values <= kMaxStoredValues))
    throw ModelError("simulation.output_step",
                     "(t_end - t_start) / output_step gives " + show(samples) + " output samples x " +
                         show(stored_values_per_sample(bodies, elements)) + " values per sample = " + show(values) +
                         " stored values, more than the limit " + show(kMaxStoredValues) + " (got output_step " +
                         show(sim.output_step) + "; raise it or shorten the run)");
}

// time_stepping: 0 < step <= t_end - t_start, at most kMaxTimeSteps steps.
void require_step_count(const SimulationSettings& sim) {
  const double span = sim.t_end - sim.t_start;
  if (!(sim.step <= span))
    throw ModelError("simulation.step", "must be <= t_end - t_start = " + show(span) + " s (got " + show(sim.step) + ")");
  const double steps = span / sim.step;
  if (!(steps <= kMaxTimeSteps))
    throw ModelError("simulation.step", "(t_end - t_start) / step gives " + show(steps) + " steps, more than the limit " +
                                            show(kMaxTimeSteps) + " (got step " + show(sim.step) + ")");
}

// Bounds of a signal over all time, by interval arithmetic (used to prove that
// a friction limit never goes negative).
struct Range {
  double lo, hi;
};
Range signal_range(const Signal& s, const std::map<std::string, Signal>& named, int depth) {
  switch (s.kind) {
    case Signal::Kind::constant:
      return {s.value, s.value};
    case Signal::Kind::sine:
      return {s.offset - std::abs(s.amplitude), s.offset + std::abs(s.amplitude)};
    case Signal::Kind::step:
    case Signal::Kind::ramp:
      return {std::min(s.initial, s.final_value), std::max(s.initial, s.final_value)};
    case Signal::Kind::table: {
      Range r{s.table_v.front(), s.table_v.front()};
      for (double v : s.table_v) r = {std::min(r.lo, v), std::max(r.hi, v)};
      return r;
    }
    case Signal::Kind::sum: {
      Range r{0.0, 0.0};
      for (const Signal& t : s.terms) {
        const Range x = signal_range(t, named, depth + 1);
        r = {r.lo + x.lo, r.hi + x.hi};
      }
      return r;
    }
    case Signal::Kind::product: {
      Range r{1.0, 1.0};
      for (const Signal& t : s.terms) {
        const Range x = signal_range(t, named, depth + 1);
        const double c[4] = {r.lo * x.lo, r.lo * x.hi, r.hi * x.lo, r.hi * x.hi};
        r = {std::min(std::min(c[0], c[1]), std::min(c[2], c[3])),
             std::max(std::max(c[0], c[1]), std::max(c[2], c[3]))};
      }
      return r;
    }
    case Signal::Kind::input:
      return {s.lower, s.upper};
    case Signal::Kind::reference:
      return signal_range(named.at(s.reference), named, depth + 1);
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation: {  // both maps are monotone
      const Range x = signal_range(s.terms[0], named, depth + 1);
      return {memoryless_block(s, x.lo), memoryless_block(s, x.hi)};
    }
    case Signal::Kind::hold:
      return signal_range(s.terms[0], named, depth + 1);
    case Signal::Kind::play: {  // within half the width of the input once sampled, or its initial output
      const Range x = signal_range(s.terms[0], named, depth + 1);
      return {std::min(s.initial, x.lo - 0.5 * s.width), std::max(s.initial, x.hi + 0.5 * s.width)};
    }
    case Signal::Kind::saturated_integrator:
      return {s.lower, s.upper};
    case Signal::Kind::relay:
      return {-std::abs(s.value), std::abs(s.value)};
    case Signal::Kind::angle:
    case Signal::Kind::velocity:
      return {-INFINITY, INFINITY};
  }
  return {0.0, 0.0};
}

// A block's finite bounds lower <= upper (f: the block's field).
void require_bounds(const Signal& s, const std::string& f) {
  require_finite(s.lower, f + ".lower");
  require_finite(s.upper, f + ".upper");
  if (!(s.lower <= s.upper))
    throw ModelError(f + ".upper", "must be >= lower (got lower " + show(s.lower) + ", upper " + show(s.upper) + ")");
}

// Where a signal is read: in continuous time (a torque, a friction limit),
// at sample instants (inside a sampled block's `of`), or not known (a named
// signal checked on its own; its uses are checked where they are).
enum class Reading { continuous, sampled, unknown };

struct SignalRules {
  const std::map<std::string, Signal>& named;
  const std::set<std::string>& bodies;
  std::vector<std::string> chain;  // references being followed (cycle check)
  // Named signals found valid, with where they are read: each is checked once
  // per reading, however many references lead to it (a shared DAG stays linear).
  std::set<std::pair<std::string, Reading>> checked;
};

void validate_signal(const Signal& s, const std::string& path, SignalRules& rules, Reading reading) {
  const std::map<std::string, Signal>& named = rules.named;
  std::vector<std::string>& chain = rules.chain;
  auto block_input = [&](const char* kind, Reading r) {
    const std::string f = path + "." + kind;
    if (s.terms.size() != 1) throw ModelError(f + ".of", "a block needs one input signal 'of'");
    validate_signal(s.terms[0], f + ".of", rules, r);
  };
  auto sampled_block = [&](const char* kind) {
    const std::string f = path + "." + kind;
    require_positive(s.period, f + ".period");
    block_input(kind, Reading::sampled);
  };
  switch (s.kind) {
    case Signal::Kind::constant:
      require_finite(s.value, path);
      break;
    case Signal::Kind::sine:
      require_finite(s.amplitude, path + ".sine.amplitude");
      require_nonnegative(s.frequency, path + ".sine.frequency");
      require_finite(s.phase, path + ".sine.phase");
      require_finite(s.offset, path + ".sine.offset");
      break;
    case Signal::Kind::step:
      require_finite(s.time, path + ".step.time");
      require_finite(s.initial, path + ".step.initial");
      require_finite(s.final_value, path + ".step.final");
      break;
    case Signal::Kind::ramp:
      require_finite(s.start, path + ".ramp.start");
      require_finite(s.end, path + ".ramp.end");
      require_finite(s.initial, path + ".ramp.initial");
      require_finite(s.final_value, path + ".ramp.final");
      if (!(s.end > s.start))
        throw ModelError(path + ".ramp.end", "must be later than ramp.start (got start " + show(s.start) +
                                                 ", end " + show(s.end) + ")");
      break;
    case Signal::Kind::table: {
      const std::string f = path + ".table";
      if (s.table_t.empty()) throw ModelError(f, "the table has no samples");
      if (s.table_t.size() != s.table_v.size()) throw ModelError(f, "times and values differ in length");
      for (std::size_t i = 0; i < s.table_t.size(); ++i) {
        require_finite(s.table_t[i], f + ".time[" + std::to_string(i) + "]");
        require_finite(s.table_v[i], f + ".value[" + std::to_string(i) + "]");
        if (i > 0 && !(s.table_t[i] > s.table_t[i - 1]))
          throw ModelError(f, "times must increase strictly (sample " + std::to_string(i) + " at t = " +
                                  show(s.table_t[i]) + " follows t = " + show(s.table_t[i - 1]) + ")");
      }
      break;
    }
    case Signal::Kind::sum:
    case Signal::Kind::product: {
      const char* op = s.kind == Signal::Kind::sum ? ".sum" : ".product";
      if (s.terms.empty()) throw ModelError(path + op, "needs at least one term");
      for (std::size_t i = 0; i < s.terms.size(); ++i)
        validate_signal(s.terms[i], path + op + "[" + std::to_string(i) + "]", rules, reading);
      break;
    }
    case Signal::Kind::input:
      if (path.rfind("signals.", 0) != 0 || path.find_first_of(".[", 8) != std::string::npos)
        throw ModelError(path, "an input needs a name: declare it under signals (name: {input: initial}) and refer "
                               "to it by name");
      require_finite(s.value, path + ".input");
      if (std::isnan(s.lower) || std::isnan(s.upper) || !(s.lower <= s.value && s.value <= s.upper))
        throw ModelError(path + ".input", "the initial value " + show(s.value) + " lies outside [lower, upper] = [" +
                                              show(s.lower) + ", " + show(s.upper) + "]");
      break;
    case Signal::Kind::reference: {
      const auto it = named.find(s.reference);
      if (it == named.end()) throw ModelError(path, "no signal named '" + s.reference + "' in signals");
      for (const std::string& c : chain)
        if (c == s.reference) throw ModelError(path, "signal '" + s.reference + "' refers to itself");
      if (rules.checked.count({s.reference, reading})) break;
      chain.push_back(s.reference);
      validate_signal(it->second, "signals." + s.reference, rules, reading);
      chain.pop_back();
      rules.checked.insert({s.reference, reading});
      break;
    }
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
      require_bounds(s, path + "." + kind_name(s.kind));
      block_input(kind_name(s.kind), reading);
      break;
    case Signal::Kind::hold:
      sampled_block("hold");
      break;
    case Signal::Kind::play:
      require_nonnegative(s.width, path + ".play.width");
      require_finite(s.initial, path + ".play.initial");
      sampled_block("play");
      break;
    case Signal::Kind::saturated_integrator: {
      const std::string f = path + ".saturated_integrator";
      require_bounds(s, f);
      require_finite(s.initial, f + ".initial");
      if (s.initial < s.lower || s.initial > s.upper)
        throw ModelError(f + ".initial", "the initial output " + show(s.initial) + " lies outside [lower, upper] = [" +
                                             show(s.lower) + ", " + show(s.upper) + "]");
      sampled_block("saturated_integrator");
      break;
    }
    case Signal::Kind::relay:
      require_nonnegative(s.threshold, path + ".relay.threshold");
      require_positive(s.value, path + ".relay.value");
      if (s.initial != 1.0 && s.initial != -1.0)
        throw ModelError(path + ".relay.initial", "the relay's initial state is 1 or -1 (got " + show(s.initial) + ")");
      sampled_block("relay");
      break;
    case Signal::Kind::angle:
    case Signal::Kind::velocity: {
      const std::string f = path + "." + kind_name(s.kind);
      if (!rules.bodies.count(s.reference)) throw ModelError(f, "no body named '" + s.reference + "'");
      if (reading == Reading::continuous)
        throw ModelError(f, std::string("measures body '") + s.reference +
                                "', which a continuous signal cannot: measurements are taken at sample instants, "
                                "inside the 'of' of a sampled block (hold, play, saturated_integrator, relay)");
      break;
    }
  }
}

void validate_signal(const Signal& s, const std::string& path, const std::map<std::string, Signal>& named,
                     const std::set<std::string>& bodies, Reading reading = Reading::continuous) {
  SignalRules rules{named, bodies, {}, {}};
  validate_signal(s, path, rules, reading);
}

// assemble() inlines references: every use of a named signal becomes a copy of
// it. A file can so describe a tree exponentially larger than itself (a signal
// summing a named signal twice, named and summed again, 30 levels deep: 2^30
// nodes). The inlined size is counted here with each named signal counted once
// (linear in the file) and capped, before anything walks the inlined tree.
struct Inlined {
  std::size_t nodes = 0;    // signal nodes
  std::size_t samples = 0;  // table samples, copied with their table
  std::size_t depth = 0;    // nesting: signals on the longest path from this one down
};

class InlinedSize {
 public:
  explicit InlinedSize(const std::map<std::string, Signal>& named) : named_(named) {}

  // The size of s with its references inlined; `level`: the nesting of s in
  // the walk (1 at its start), `field`: where to report a nesting too deep
  // (the named signal being entered, else the walk's start). A named signal
  // over a limit is reported at its own field; an unknown name or a cycle
  // counts nothing here (validate_signal reports it).
  Inlined of(const Signal& s, std::size_t level, const std::string& field) {
    if (level > kMaxSignalDepth) too_deep(field);  // before the recursion can exhaust the stack
    if (s.kind == Signal::Kind::reference) {  // a hop to a named signal is a level of every walk too
      Inlined n = named(s.reference, level + 1);
      ++n.depth;
      return n;
    }
    Inlined n{1, s.kind == Signal::Kind::table ? s.table_t.size() : 0, 1};
    for (const Signal& t : s.terms) {
      const Inlined x = of(t, level + 1, field);
      n.nodes += x.nodes;
      n.samples += x.samples;
      n.depth = std::max(n.depth, x.depth + 1);
    }
    return n;
  }

  Inlined named(const std::string& name, std::size_t level = 1) {
    const auto it = named_.find(name);
    if (it == named_.end()) return {};
    const std::string field = "signals." + name;
    const auto [m, fresh] = memo_.try_emplace(name);
    if (!fresh) {  // counted, or being counted (a cycle)
      if (level - 1 + m->second.depth > kMaxSignalDepth) too_deep(field);  // as deep as counting it again
      return m->second;
    }
    const Inlined n = of(it->second, level, field);
    require_within(n, field);
    m->second = n;
    return n;
  }

  [[noreturn]] static void too_deep(const std::string& field) {
    throw ModelError(field, "signals nest more than " + std::to_string(kMaxSignalDepth) +
                                " deep here (a signal's terms and each hop to a named signal count as a level)");
  }

  static void require_within(const Inlined& n, const std::string& field) {
    if (n.nodes > kMaxInlinedSignalNodes)
      throw ModelError(field, "has " + std::to_string(n.nodes) + " signal nodes once its references are inlined (limit " +
                                  std::to_string(kMaxInlinedSignalNodes) + "; each reference copies the named signal)");
    if (n.samples > kMaxInlinedTableSamples)
      throw ModelError(field, "has " + std::to_string(n.samples) +
                                  " table samples once its references are inlined (limit " +
                                  std::to_string(kMaxInlinedTableSamples) +
                                  "; each reference copies the named signal)");
  }

 private:
  const std::map<std::string, Signal>& named_;
  std::map<std::string, Inlined> memo_;
};

// The signals of the elements, inlined, stay within the limits together: the
// first signal that takes the model over one is reported.
void require_inlined_within_limits(const ModelSpec& spec) {
  InlinedSize size(spec.signals);
  Inlined total;
  auto add = [&](const Signal& s, const std::string& field) {
    const Inlined n = size.of(s, 1, field);
    total.nodes += n.nodes;
    total.samples += n.samples;
    InlinedSize::require_within(total, field);
  };
  for (const ElementSpec& e : spec.elements) {
    const std::string p = "elements." + element_name(e);
    for_each_element_signal(e, [&](const Signal& s, const std::string& key) { add(s, p + "." + key); });
  }
  for (const auto& entry : spec.signals) size.named(entry.first);
}

const BodySpec* find_body(const ModelSpec& spec, const std::string& name) {
  for (const BodySpec& b : spec.bodies)
    if (b.name == name) return &b;
  return nullptr;
}

// The initial value of an element's coordinate from its bodies' field `of`
// (angle or velocity): sum c q over a coordinate's terms, else q_a - ratio q_b.
double initial_coordinate(const ModelSpec& spec, const std::string& a, const std::string& b, double ratio,
                          const std::vector<CoordinateTerm>& terms, double BodySpec::*of) {
  double x = 0.0;
  for (const CoordinateTerm& t : terms)
    if (const BodySpec* body = find_body(spec, t.body)) x += t.c * (body->*of);
  if (!terms.empty()) return x;
  const BodySpec* pa = find_body(spec, a);
  const BodySpec* pb = b.empty() ? nullptr : find_body(spec, b);
  return (pa ? pa->*of : 0.0) - ratio * (pb ? pb->*of : 0.0);
}

// `coordinate: {body: c, ...}` (issue 19 item 1): 1 to kMaxCoordinateTerms
// terms on distinct known bodies with finite nonzero coefficients. Its bodies
// must have inertia: the massless reductions (core/reduce.hpp) are written for
// the two-body form, which `body`/`bodies` keep.
void coordinate_rules(const ModelSpec& spec, const std::vector<CoordinateTerm>& terms, const std::string& p,
                      const std::set<std::string>& bodies) {
  const std::string f = p + ".coordinate";
  if (terms.size() > static_cast<std::size_t>(kMaxCoordinateTerms))
    throw ModelError(f, "has " + std::to_string(terms.size()) + " terms, more than the limit of " +
                            std::to_string(kMaxCoordinateTerms));
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const CoordinateTerm& t = terms[i];
    const std::string at = f + "." + t.body;
    if (!bodies.count(t.body)) throw ModelError(at, "no body named '" + t.body + "'");
    for (std::size_t j = 0; j < i; ++j)
      if (terms[j].body == t.body) throw ModelError(at, "names the body '" + t.body + "' twice");
    if (!std::isfinite(t.c)) throw ModelError(at, "must be a finite number (got " + show(t.c) + ")");
    if (t.c == 0.0) throw ModelError(at, "must not be 0 (leave the body out)");
    if (std::abs(t.c) < kSmallestMagnitude || std::abs(t.c) > kLargestMagnitude)  // as a ratio's: c^2 I stays in range
      throw ModelError(at, "must be of a magnitude between 1e-100 and 1e100 (got " + show(t.c) + ")");
  }
  for (const CoordinateTerm& t : terms)
    if (find_body(spec, t.body)->inertia == 0.0)
      throw ModelError(f, "includes the massless body '" + t.body + "': " +
                              (terms.size() >= 3 ? std::string("a coordinate of 3 or more bodies needs inertial bodies")
                                                 : std::string("give it an inertia, or attach the element with "
                                                               "'body' or 'bodies' (the massless rules are theirs)")));
}

// damping_law: contact (elements/freeplay_spring.hpp) needs teeth that meet
// elastically: a gap (upper > lower) with a finite stiffness k > 0 (a rigid
// freeplay's contact is an impact), or a stiffness table (the law is 0 where
// its torque is), and inertial bodies (a massless body's springs are combined
// and solved with the law everywhere).
void contact_damping_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const std::string f = p + ".damping_law";
  if (s.stiffness_table.empty()) {
    if (!spring_has_gap(s))
      throw ModelError(f, "contact needs a gap (freeplay > 0 or lower < upper) or a stiffness_table (a spring "
                          "without a gap is always in contact)");
    if (std::isinf(s.stiffness) || s.stiffness == 0.0)
      throw ModelError(f, "contact needs a finite stiffness > 0 (got " + show(s.stiffness) + ")");
  }
  for (const std::string& name : {s.body_a, s.body_b})
    if (const BodySpec* body = name.empty() ? nullptr : find_body(spec, name); body && body->inertia == 0.0)
      throw ModelError(f, "contact needs inertial bodies; '" + body->name + "' is massless (inertia 0)");
}

// A rigid freeplay (stiffness .inf with a gap [l, u] around the offset x0) is
// a pair of unilateral constraints x0 + l <= q_a - p q_b <= x0 + u between
// inertial bodies.
void rigid_freeplay_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const BodySpec* a = find_body(spec, s.body_a);
  const BodySpec* b = s.body_b.empty() ? nullptr : find_body(spec, s.body_b);
  for (const BodySpec* body : {a, b})
    if (body && body->inertia == 0.0)
      throw ModelError(p + ".bodies", "a rigid freeplay (stiffness .inf) needs inertial bodies; '" + body->name +
                                          "' is massless (inertia 0)");
  const double x = initial_coordinate(spec, s.body_a, s.body_b, s.ratio, s.coordinate, &BodySpec::angle);
  const auto [lower, upper] = spring_gap(s);
  if (!s.freeplay_bounds && s.offset == 0.0) {  // [-a, a]
    if (std::abs(x) > s.freeplay * (1.0 + 1e-12))
      throw ModelError(p + ".freeplay", "the initial relative angle " + show(x) +
                                            " rad lies outside the rigid freeplay [-" + show(s.freeplay) + ", " +
                                            show(s.freeplay) + "]");
    return;
  }
  const double xt = x - s.offset, slack = 1e-12 * (upper - lower);
  if (xt < lower - slack || xt > upper + slack)
    throw ModelError(p + ".freeplay", "the initial relative angle " + show(x) + " rad lies outside the rigid stops [" +
                                          show(lower) + ", " + show(upper) + "] around the offset " + show(s.offset));
}

// A rigid connection (stiffness .inf without a gap) holds q_a = p q_b from
// the start: initial angles or velocities that break it would be overwritten
// when the bodies merge (a preload lost, kinetic energy gone from the
// balance), so they are refused. Relative 1e-9 leaves room for the roundoff
// of ratios such as 1/0.07; a massless body's velocity is not checked (it
// carries no momentum: the merge does not use it). To the base: see reduce().
void rigid_connection_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const BodySpec* a = find_body(spec, s.body_a);
  const BodySpec* b = s.body_b.empty() ? nullptr : find_body(spec, s.body_b);
  if (!a || !b) return;
  auto check = [&](double xa, double xb, const char* what, const char* unit) {
    const double pb = s.ratio * xb;
    if (std::abs(xa - pb) <= 1e-9 * std::max(std::abs(xa), std::abs(pb))) return;
    throw ModelError(p, std::string("the initial ") + what + " break the rigid connection " + a->name + " = " +
                            show(s.ratio) + " * " + b->name + " (" + a->name + ": " + show(xa) + " " + unit +
                            ", ratio * " + b->name + ": " + show(pb) + " " + unit + "): give consistent initial " +
                            what + ", or a freeplay or finite stiffness");
  };
  check(a->angle, b->angle, "angles", "rad");
  if (a->inertia > 0.0 && b->inertia > 0.0) check(a->velocity, b->velocity, "velocities", "rad/s");
}

// The offset or the preload of a spring: one of them, the preload on a linear
// spring only; a rigid connection (stiffness .inf, no gap) has neither.
void offset_rules(const SpringSpec& s, const std::string& p) {
  if (s.preload != 0.0 && s.offset != 0.0) throw ModelError(p + ".preload", "give 'offset' or 'preload', not both");
  if (s.preload != 0.0 &&
      (!s.stiffness_table.empty() || spring_has_gap(s) || !(s.stiffness > 0.0) || std::isinf(s.stiffness)))
    throw ModelError(p + ".preload", "needs a linear spring (a finite stiffness > 0 and no freeplay): preload is its "
                                     "torque at x = 0; with a gap or a stiffness table, give the offset");
  if (std::isinf(s.stiffness) && !spring_has_gap(s)) {
    if (s.offset != 0.0)
      throw ModelError(p + ".offset", "a rigid connection (stiffness .inf without freeplay) holds q_a = ratio q_b and "
                                      "takes no offset");
    if (spring_gap(s).first != 0.0)  // {lower: u, upper: u}: a shifted rigid connection
      throw ModelError(p + ".freeplay", "a rigid connection (stiffness .inf without freeplay) holds q_a = ratio q_b: "
                                        "its bounds must be 0 or span a gap (got lower = upper = " +
                                            show(spring_gap(s).first) + ")");
  }
}

// A stiffness table: 2 to kMaxTablePoints finite points, deflections
// increasing, torques not falling; instead of a stiffness and a gap; not at
// a massless body (springs there are combined or solved as gap springs).
void table_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const PointTable& t = s.stiffness_table;
  const std::string f = p + ".stiffness_table";
  if (s.stiffness != 0.0) throw ModelError(p, "give 'stiffness' or 'stiffness_table', not both");
  if (s.freeplay != 0.0 || s.freeplay_bounds)
    throw ModelError(p + ".freeplay", "a stiffness table carries its own gaps (give a zero-torque segment)");
  if (t.x.size() != t.y.size()) throw ModelError(f, "deflections and torques differ in length");
  if (t.x.size() < 2) throw ModelError(f + ".points", "needs at least 2 points (got " + std::to_string(t.x.size()) + ")");
  if (t.x.size() > kMaxTablePoints)
    throw ModelError(f + ".points", "has " + std::to_string(t.x.size()) + " points, more than the limit of " +
                                        std::to_string(kMaxTablePoints));
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    const std::string pf = f + ".points[" + std::to_string(i) + "]";
    if (!std::isfinite(t.x[i]) || !std::isfinite(t.y[i]))
      throw ModelError(pf, "must be finite numbers (got " + show(t.x[i]) + ", " + show(t.y[i]) + ")");
    if (i == 0) continue;
    if (!(t.x[i] > t.x[i - 1]))
      throw ModelError(pf, "deflections must increase (got " + show(t.x[i]) + " after " + show(t.x[i - 1]) + ")");
    if (t.y[i] < t.y[i - 1])
      throw ModelError(pf, "the torque falls from " + show(t.y[i - 1]) + " to " + show(t.y[i]) +
                               " N m: a spring's torque must not fall as it is deflected (negative stiffness)");
  }
  for (const std::string& name : {s.body_a, s.body_b})
    if (const BodySpec* body = name.empty() ? nullptr : find_body(spec, name); body && body->inertia == 0.0)
      throw ModelError(f, "a spring at the massless body '" + body->name + "' must be a gap or linear spring");
}

// --- the rules of an element kind: its field table's, then its own -----------

// The rule of a number field (core/model_spec.hpp, NumberRule).
void number_kind_rule(double v, NumberRule rule, const std::string& field) {
  switch (rule) {
    case NumberRule::finite:
      require_finite(v, field);
      break;
    case NumberRule::nonzero:
      require_finite(v, field);
      if (v == 0.0) throw ModelError(field, "must not be 0");
      break;
    case NumberRule::nonnegative:
      require_nonnegative(v, field);
      break;
    case NumberRule::nonnegative_or_inf:
      if (std::isnan(v) || v < 0.0) throw ModelError(field, "must be >= 0 or .inf (got " + show(v) + ")");
      break;
    case NumberRule::at_least_one:
      require_finite(v, field);
      if (v < 1.0) throw ModelError(field, "must be >= 1 (got " + show(v) + ")");
      break;
  }
}

void number_rule(double v, NumberRule rule, const std::string& field) {
  number_kind_rule(v, rule, field);
  require_in_range(v, field);
}

// A field given as {lower, upper}: both finite, lower <= upper (and its number form unused).
void bound_rules(double lower, double upper, double number, const std::string& field) {
  require_finite(lower, field + ".lower");
  require_finite(upper, field + ".upper");
  if (!(lower <= upper))
    throw ModelError(field + ".upper", "must be >= lower (got lower " + show(lower) + ", upper " + show(upper) + ")");
  if (number != 0.0) throw ModelError(field, "give a number (half the play) or {lower, upper}, not both");
}

// True when `value` is one of "a, b, c".
bool one_of(const std::string& value, const std::string& choices) {
  for (std::size_t start = 0;;) {
    const std::size_t comma = choices.find(", ", start);
    if (choices.compare(start, comma == std::string::npos ? std::string::npos : comma - start, value) == 0) return true;
    if (comma == std::string::npos) return false;
    start = comma + 2;
  }
}

// The rules of a kind's field table at p (elements.<name>): its bodies, then
// its numbers, its words, its signals (read in continuous time).
template <class S>
void field_rules(const ModelSpec& spec, const S& s, const std::string& p, const std::set<std::string>& bodies) {
  auto require_body = [&](const std::string& name, const std::string& field) {
    if (!bodies.count(name)) throw ModelError(field, "no body named '" + name + "'");
  };
  for (const auto& f : spec_fields(s)) {
    const std::string field = p + "." + f.key;
    if (f.type == FieldType::body) require_body(s.*f.text, field);
    if (f.type != FieldType::attachment) continue;
    if (f.coordinate && !(s.*f.coordinate).empty()) {
      coordinate_rules(spec, s.*f.coordinate, p, bodies);
      continue;
    }
    require_body(s.*f.text, field);
    if (!(s.*f.second).empty()) require_body(s.*f.second, field);
    if (s.*f.text == s.*f.second) throw ModelError(field, std::string(S::kNoun) + " needs two different bodies");
  }
  for (const auto& f : spec_fields(s)) {
    if (f.type == FieldType::number || (f.type == FieldType::bounds && !(s.*f.bounds)))
      number_rule(s.*f.number, f.rule, p + "." + f.key);
    if (f.type == FieldType::bounds && s.*f.bounds) bound_rules(s.*f.lower, s.*f.upper, s.*f.number, p + "." + f.key);
  }
  for (const auto& f : spec_fields(s))
    if (f.type == FieldType::text && f.choices && !one_of(s.*f.text, f.choices))
      throw ModelError(p + "." + f.key, std::string("must be one of ") + f.choices + " (got '" + s.*f.text + "')");
  for (const auto& f : spec_fields(s))
    if (f.type == FieldType::signal) validate_signal(s.*f.signal, p + "." + f.key, spec.signals, bodies);
}

// A kind's rules beyond its table (none unless it has an overload below).
template <class S>
void kind_rules(const ModelSpec&, const S&, const std::string&) {}

void kind_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  if (!s.coordinate.empty() && s.ratio != 1.0)
    throw ModelError(p + ".ratio", "applies to 'bodies: [a, b]'; a coordinate carries its own coefficients");
  if (!s.coordinate.empty() && std::isinf(s.stiffness) && !spring_has_gap(s))
    throw ModelError(p + ".stiffness", "a rigid connection (.inf without a gap) on a coordinate is a permanent link, "
                                       "not supported yet: give a finite stiffness, or between two bodies write "
                                       "'bodies' with a 'ratio'");
  if (!s.stiffness_table.empty()) table_rules(spec, s, p);
  offset_rules(s, p);
  const bool rigid_freeplay = std::isinf(s.stiffness) && spring_has_gap(s);
  if (s.restitution != 0.0 && !rigid_freeplay)
    throw ModelError(p + ".restitution",
                     "applies to rigid freeplay only (stiffness .inf with freeplay > 0): an elastic "
                     "spring's impacts follow from its stiffness and damping");
  if (s.restitution < 0.0 || s.restitution > 1.0)
    throw ModelError(p + ".restitution", "must be in [0, 1] (got " + show(s.restitution) + ")");
  if (rigid_freeplay) rigid_freeplay_rules(spec, s, p);
  if (std::isinf(s.stiffness) && !spring_has_gap(s)) rigid_connection_rules(spec, s, p);
  if (s.damping_law == "contact") contact_damping_rules(spec, s, p);
}

// A value with the SI unit of its dimension ("0.5 rad/s", "1 N m"; a plain number when dimensionless).
std::string quantity(double v, Dimension d) {
  const std::string unit = d == Dimension::dimensionless ? "" : si_unit(d);
  return show(v) + (unit.empty() ? "" : " " + unit);
}

// A friction table tau(|v|) at f (elements.b.coulomb_table): at most
// kMaxSpeedTablePoints finite points, the first at speed 0, speeds
// increasing, values >= 0, and a last segment that does not fall (continued
// beyond the last point it would reach 0 and then pull).
void speed_table_rules(const SpeedTable& t, const std::string& f, Dimension value_dim) {
  constexpr Dimension speed_dim = Dimension::angular_velocity;
  if (t.speed.size() != t.value.size()) throw ModelError(f, "speeds and values differ in length");
  if (t.speed.size() > kMaxSpeedTablePoints)
    throw ModelError(f, "has " + std::to_string(t.speed.size()) + " points, more than the limit of " +
                            std::to_string(kMaxSpeedTablePoints) + " (each knot is an event)");
  for (std::size_t i = 0; i < t.speed.size(); ++i) {
    const std::string pf = f + ".points[" + std::to_string(i) + "]";
    require_finite(t.speed[i], pf);
    require_finite(t.value[i], pf);
    if (i == 0 && t.speed[0] != 0.0)
      throw ModelError(pf, "the first speed must be 0 (the table starts at rest; got " + quantity(t.speed[0], speed_dim) +
                               ")");
    if (i > 0 && !(t.speed[i] > t.speed[i - 1]))
      throw ModelError(pf, "speeds must increase (got " + quantity(t.speed[i], speed_dim) + " after " +
                               quantity(t.speed[i - 1], speed_dim) + ")");
    if (t.value[i] < 0.0) throw ModelError(pf, "must be >= 0 (got " + quantity(t.value[i], value_dim) + ")");
  }
  const std::size_t n = t.speed.size();
  if (n >= 2 && t.value[n - 1] < t.value[n - 2]) {
    const double v0 = t.speed[n - 2], v1 = t.speed[n - 1], y0 = t.value[n - 2], y1 = t.value[n - 1];
    const double zero = v1 + y1 * (v1 - v0) / (y0 - y1);
    throw ModelError(f, "the last segment falls (from " + quantity(y0, value_dim) + " at " + quantity(v0, speed_dim) +
                            " to " + show(y1) + " at " + quantity(v1, speed_dim) + "): continued beyond " +
                            quantity(v1, speed_dim) + " it would reach 0 at " + quantity(zero, speed_dim) +
                            "; end the table on a level or rising segment");
  }
}

// A signal that must stay >= 0 at all times (a friction limit, a normal force).
void require_nonnegative_signal(const ModelSpec& spec, const Signal& s, const std::string& field, const char* what) {
  const Range r = signal_range(s, spec.signals, 0);
  if (r.lo < 0.0) throw ModelError(field, std::string(what) + " must stay >= 0 (it can reach " + show(r.lo) + ")");
}

// One friction law (core/model_spec.hpp, FrictionSpec): coulomb, or a table
// (then coulomb is left at 0); mu_table with its radius and normal force.
// The reader checks which keys are written; these are the values' rules, for
// a description built in code too.
void kind_rules(const ModelSpec& spec, const FrictionSpec& f, const std::string& p) {
  const bool coulomb_table = !f.coulomb_table.empty(), mu_table = !f.mu_table.empty();
  const bool coulomb_set = !(f.coulomb.kind == Signal::Kind::constant && f.coulomb.value == 0.0);
  if (int(coulomb_table) + int(mu_table) + int(coulomb_set && (coulomb_table || mu_table)) > 1)
    throw ModelError(p, "give one of 'coulomb', 'coulomb_table' or 'mu_table', not two");
  if (!coulomb_table && !mu_table) require_nonnegative_signal(spec, f.coulomb, p + ".coulomb", "the friction torque limit");
  if (coulomb_table) speed_table_rules(f.coulomb_table, p + ".coulomb_table", Dimension::torque);
  if (mu_table) {
    speed_table_rules(f.mu_table, p + ".mu_table", Dimension::dimensionless);
    if (!(f.radius > 0.0)) throw ModelError(p + ".radius", "must be > 0 (got " + show(f.radius) + ")");
    require_nonnegative_signal(spec, f.normal_force, p + ".normal_force", "the normal force");
    return;
  }
  if (f.radius != 0.0) throw ModelError(p + ".radius", "applies to 'mu_table' only");
  if (!(f.normal_force.kind == Signal::Kind::constant && f.normal_force.value == 0.0))
    throw ModelError(p + ".normal_force", "applies to 'mu_table' only");
}

// A one-way clutch's drag is a friction torque (>= 0 at all times), and it
// never starts turning in its locked direction: o (w_a - w_b) >= 0 at t_start
// (at rest, the S-S selection decides whether it locks or overruns).
void kind_rules(const ModelSpec& spec, const OneWayClutchSpec& c, const std::string& p) {
  const Range r = signal_range(c.coulomb, spec.signals, 0);
  if (r.lo < 0.0) throw ModelError(p + ".coulomb", "the drag must stay >= 0 (it can reach " + show(r.lo) + ")");
  const double v = initial_coordinate(spec, c.body_a, c.body_b, 1.0, c.coordinate, &BodySpec::velocity);
  const double o = c.overrun == "negative" ? -1.0 : 1.0;
  std::string rate = "w_" + c.body_a + (c.body_b.empty() ? std::string() : " - w_" + c.body_b);
  if (!c.coordinate.empty()) rate = "of its coordinate";
  if (o * v < 0.0)
    throw ModelError(p, "the initial relative velocity " + rate +
                            " = " + show(v) + " rad/s turns the one-way clutch in its locked direction (overrun: " +
                            c.overrun + "); start it at rest or overrunning");
}

}  // namespace

void validate(const ModelSpec& spec) {
  const SimulationSettings& sim = spec.simulation;
  require_finite(sim.t_start, "simulation.t_start");
  require_finite(sim.t_end, "simulation.t_end");
  if (!(sim.t_end > sim.t_start))
    throw ModelError("simulation.t_end", "must be later than t_start (got " + show(sim.t_end) + ")");
  require_positive(sim.output_step, "simulation.output_step");
  require_stored_values(sim, spec.bodies.size(), spec.elements.size());
  require_in(sim.rtol, 0.0, kMaxRtol, "simulation.rtol");
  require_in(sim.atol, 0.0, kMaxAtol, "simulation.atol");
  require_nonnegative(sim.max_step, "simulation.max_step");
  require_count(sim.max_events, 1, kMaxEvents, "simulation.max_events");
  require_count(sim.storm_events, 2, kMaxStormEvents, "simulation.event_storm.events");
  require_nonnegative(sim.storm_span, "simulation.event_storm.span");
  require_nonnegative(sim.rest_velocity, "simulation.rest_velocity");
  if (sim.linear_solver != "auto" && sim.linear_solver != "dense" && sim.linear_solver != "band")
    throw ModelError("simulation.linear_solver",
                     "must be one of auto, dense, band (got '" + sim.linear_solver + "')");
  if (sim.integrator != "auto" && sim.integrator != "exact" && sim.integrator != "cvode_bdf" &&
      sim.integrator != "cvode_adams")
    throw ModelError("simulation.integrator",
                     "must be one of auto, exact, cvode_bdf, cvode_adams (got '" + sim.integrator + "')");
  if (sim.solver != "event_driven" && sim.solver != "time_stepping")
    throw ModelError("simulation.solver", "must be event_driven or time_stepping (got '" + sim.solver + "')");
  if (sim.solver == "time_stepping") {
    if (sim.step == 0.0)
      throw ModelError("simulation.step", "solver time_stepping needs a step h [s] (e.g. step: 1.0e-4)");
    require_positive(sim.step, "simulation.step");
    require_step_count(sim);
    require_finite(sim.theta, "simulation.theta");
    if (sim.theta < 0.5 || sim.theta > 1.0)
      throw ModelError("simulation.theta", "must be in [0.5, 1] (got " + show(sim.theta) + ")");
  }

  if (spec.bodies.empty()) throw ModelError("bodies", "the model has no bodies");
  std::set<std::string> names;
  for (const BodySpec& b : spec.bodies) {
    const std::string p = "bodies." + b.name;
    if (b.name.empty()) throw ModelError("bodies", "a body has an empty name");
    if (const std::string problem = name_problem(b.name, false); !problem.empty()) throw ModelError(p, problem);
    if (!names.insert(b.name).second) throw ModelError(p, "the name '" + b.name + "' is used twice");
    require_nonnegative(b.inertia, p + ".inertia");  // 0: massless (reduced, see core/reduce.hpp)
    require_finite(b.angle, p + ".angle");
    require_finite(b.velocity, p + ".velocity");
    for (const auto& [v, key] : {std::pair{b.inertia, ".inertia"}, {b.angle, ".angle"}, {b.velocity, ".velocity"}})
      require_in_range(v, p + key);
  }
  const std::set<std::string> body_names = names;
  require_inlined_within_limits(spec);
  for (const ElementSpec& e : spec.elements) {
    const std::string& name = element_name(e);
    const std::string p = "elements." + name;
    if (name.empty()) throw ModelError("elements", "an element has an empty name");
    if (const std::string problem = name_problem(name, false); !problem.empty()) throw ModelError(p, problem);
    if (!names.insert(name).second) throw ModelError(p, "the name '" + name + "' is used twice");
    std::visit([&](const auto& s) {
      field_rules(spec, s, p, body_names);
      kind_rules(spec, s, p);
    }, e);
  }
  for (const auto& [name, s] : spec.signals) {
    if (const std::string problem = name_problem(name, true); !problem.empty())
      throw ModelError("signals." + name, problem);
  }
  SignalRules rules{spec.signals, body_names, {}, {}};  // one for all: each named signal is checked once
  for (const auto& [name, s] : spec.signals) validate_signal(s, "signals." + name, rules, Reading::unknown);
}

}  // namespace luztar
