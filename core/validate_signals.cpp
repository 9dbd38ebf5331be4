// The rules of signals: each kind's fields, references (unknown names,
// cycles), where bodies may be measured, the size of the inlined tree, and a
// signal's bounds over all time.
#include <algorithm>

#include "core/model.hpp"
#include "core/run_frame.hpp"
#include "core/validate_common.hpp"

namespace luztar::validation {

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

namespace {

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
  double span;                     // [s] t_end - t_start
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
    // (an instant costs about a microsecond: 1e9 of them are a quarter of an hour)
    if (!(rules.span / s.period <= kMaxSampleInstants))
      throw ModelError(f + ".period", "(t_end - t_start) / period gives " + show(rules.span / s.period) +
                                          " sample instants, more than the limit " + show(kMaxSampleInstants) +
                                          " (got period " + show(s.period) + " s)");
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
      if (std::isnan(s.lower)) throw ModelError(path + ".input.lower", "is not a number");
      if (std::isnan(s.upper)) throw ModelError(path + ".input.upper", "is not a number");
      if (!(s.lower <= s.upper))
        throw ModelError(path + ".input.lower", "the bounds are reversed: lower " + show(s.lower) + " > upper " + show(s.upper));
      if (!(s.lower <= s.value && s.value <= s.upper))
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

}  // namespace

void validate_signal(const Signal& s, const std::string& path, const std::map<std::string, Signal>& named,
                     const std::set<std::string>& bodies, double span) {
  SignalRules rules{named, bodies, span, {}, {}};
  validate_signal(s, path, rules, Reading::continuous);
}

void validate_named_signals(const ModelSpec& spec, const std::set<std::string>& bodies) {
  for (const auto& [name, s] : spec.signals) {
    if (const std::string problem = name_problem(name, true); !problem.empty())
      throw ModelError("signals." + name, problem);
  }
  // one for all: each named signal is checked once
  SignalRules rules{spec.signals, bodies, spec.simulation.t_end - spec.simulation.t_start, {}, {}};
  for (const auto& [name, s] : spec.signals) validate_signal(s, "signals." + name, rules, Reading::unknown);
}

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
  for (const BodySpec& b : spec.bodies)
    if (b.prescribed != BodySpec::Drive::none)
      add(b.motion, "bodies." + b.name + ".prescribed." + drive_key(b.prescribed, is_translational(b)));
  for (const auto& entry : spec.signals) size.named(entry.first);
}

// A signal that must stay >= 0 at all times (a friction limit, a normal force).
void require_nonnegative_signal(const ModelSpec& spec, const Signal& s, const std::string& field, const char* what) {
  const Range r = signal_range(s, spec.signals, 0);
  if (r.lo < 0.0) throw ModelError(field, std::string(what) + " must stay >= 0 (it can reach " + show(r.lo) + ")");
}

}  // namespace luztar::validation
