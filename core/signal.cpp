#include "core/signal.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "core/times.hpp"

namespace luztar {

double interpolate(const std::vector<double>& t, const std::vector<double>& v, double x) {
  assert(!t.empty() && t.size() == v.size());
  if (x <= t.front()) return v.front();
  if (x >= t.back()) return v.back();
  const auto it = std::upper_bound(t.begin(), t.end(), x);
  const std::size_t i = static_cast<std::size_t>(it - t.begin());
  const double w = (x - t[i - 1]) / (t[i] - t[i - 1]);
  return v[i - 1] + w * (v[i] - v[i - 1]);
}

double memoryless_block(const Signal& s, double x) {
  if (s.kind == Signal::Kind::saturation) return std::clamp(x, s.lower, s.upper);
  assert(s.kind == Signal::Kind::dead_zone);
  return x > s.upper ? x - s.upper : x < s.lower ? x - s.lower : 0.0;
}

double own_magnitude(const Signal& s) {
  double m = std::max({std::abs(s.value), std::abs(s.amplitude), std::abs(s.offset), std::abs(s.initial),
                       std::abs(s.final_value)});
  for (double v : s.table_v) m = std::max(m, std::abs(v));
  return m;
}

double tree_magnitude(const Signal& s) {
  double m = own_magnitude(s);
  for (const Signal& t : s.terms) m = std::max(m, tree_magnitude(t));
  return m;
}

double initial_output(const Signal& s) {
  switch (s.kind) {
    case Signal::Kind::play:
    case Signal::Kind::saturated_integrator:
      return s.initial;
    case Signal::Kind::relay:
      return s.value * (s.initial < 0.0 ? -1.0 : 1.0);
    default:
      return 0.0;  // hold: sampled at t_start before any use
  }
}

bool is_sampled_block(Signal::Kind k) {
  return k == Signal::Kind::hold || k == Signal::Kind::play || k == Signal::Kind::saturated_integrator ||
         k == Signal::Kind::relay;
}

bool is_measurement(Signal::Kind k) { return k == Signal::Kind::angle || k == Signal::Kind::velocity; }

const char* kind_name(Signal::Kind k) {
  switch (k) {
    case Signal::Kind::constant: return "constant";
    case Signal::Kind::sine: return "sine";
    case Signal::Kind::step: return "step";
    case Signal::Kind::ramp: return "ramp";
    case Signal::Kind::table: return "table";
    case Signal::Kind::sum: return "sum";
    case Signal::Kind::product: return "product";
    case Signal::Kind::input: return "input";
    case Signal::Kind::reference: return "reference";
    case Signal::Kind::dead_zone: return "dead_zone";
    case Signal::Kind::saturation: return "saturation";
    case Signal::Kind::hold: return "hold";
    case Signal::Kind::play: return "play";
    case Signal::Kind::saturated_integrator: return "saturated_integrator";
    case Signal::Kind::relay: return "relay";
    case Signal::Kind::angle: return "angle";
    case Signal::Kind::velocity: return "velocity";
  }
  return "?";
}

// Built by append: GCC 12 sees a false -Wrestrict in the concatenation of temporaries.
std::string term_field(const std::string& field, const Signal& s, std::size_t i) {
  std::string f = field;
  f += '.';
  f += kind_name(s.kind);
  if (s.kind == Signal::Kind::sum || s.kind == Signal::Kind::product) {
    f += '[';
    f += std::to_string(i);
    f += ']';
  } else {
    f += ".of";
  }
  return f;
}

void throw_not_finite(double v, double t, const char* kind, const std::string& name, const char* what) {
  std::ostringstream os;
  os << kind << ' ' << name << ": " << what << " is not finite (" << (std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf")
     << ") at t = " << t << " s";
  throw std::domain_error(os.str());
}

double evaluate(const Signal& s, double t, const double* inputs, const double* q, const double* w) {
  switch (s.kind) {
    case Signal::Kind::constant:
      return s.value;
    case Signal::Kind::sine:
      return s.offset + s.amplitude * std::sin(2.0 * std::numbers::pi * s.frequency * t + s.phase);
    case Signal::Kind::step:
      return earlier(t, s.time) ? s.initial : s.final_value;
    case Signal::Kind::ramp:
      if (t <= s.start) return s.initial;
      if (t >= s.end) return s.final_value;
      return s.initial + (s.final_value - s.initial) * (t - s.start) / (s.end - s.start);
    case Signal::Kind::table:
      return interpolate(s.table_t, s.table_v, t);
    case Signal::Kind::sum: {
      double acc = 0.0;
      for (const Signal& term : s.terms) acc += evaluate(term, t, inputs, q, w);
      return acc;
    }
    case Signal::Kind::product: {
      double acc = 1.0;
      for (const Signal& term : s.terms) acc *= evaluate(term, t, inputs, q, w);
      return acc;
    }
    case Signal::Kind::input:
      return inputs ? inputs[s.input] : s.value;
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
      return memoryless_block(s, evaluate(s.terms[0], t, inputs, q, w));
    case Signal::Kind::hold:
    case Signal::Kind::play:
    case Signal::Kind::saturated_integrator:
    case Signal::Kind::relay:
      return inputs ? inputs[s.input] : initial_output(s);
    case Signal::Kind::angle:
      return q ? q[s.input] : NAN;
    case Signal::Kind::velocity:
      return w ? w[s.input] : NAN;
    case Signal::Kind::reference:
      break;
  }
  assert(false && "unresolved signal reference");
  return 0.0;
}

bool is_constant(const Signal& s) {
  switch (s.kind) {
    case Signal::Kind::constant:
      return true;
    case Signal::Kind::sine:
      return s.amplitude == 0.0 || s.frequency == 0.0;
    case Signal::Kind::step:
    case Signal::Kind::ramp:
      return s.initial == s.final_value;
    case Signal::Kind::table:
      return std::all_of(s.table_v.begin(), s.table_v.end(),
                         [&](double v) { return v == s.table_v.front(); });
    case Signal::Kind::sum:
    case Signal::Kind::product:
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
      return std::all_of(s.terms.begin(), s.terms.end(), [](const Signal& x) { return is_constant(x); });
    case Signal::Kind::input:
    case Signal::Kind::reference:
    case Signal::Kind::hold:
    case Signal::Kind::play:
    case Signal::Kind::saturated_integrator:
    case Signal::Kind::relay:
    case Signal::Kind::angle:
    case Signal::Kind::velocity:
      return false;
  }
  return false;
}

namespace {

// The shortest piece of a piecewise-linear part of s [s] (ramp, table segment).
double shortest_piece(const Signal& s) {
  double piece = INFINITY;
  switch (s.kind) {
    case Signal::Kind::ramp:
      if (!is_constant(s) && s.end > s.start) piece = s.end - s.start;
      break;
    case Signal::Kind::table:
      if (!is_constant(s))
        for (std::size_t i = 1; i < s.table_t.size(); ++i) piece = std::min(piece, s.table_t[i] - s.table_t[i - 1]);
      break;
    case Signal::Kind::sum:
    case Signal::Kind::product:
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
      for (const Signal& term : s.terms) piece = std::min(piece, shortest_piece(term));
      break;
    default:
      break;
  }
  return piece;
}

}  // namespace

double turning_time(const Signal& s) {
  double turn = INFINITY;
  switch (s.kind) {
    case Signal::Kind::sine:
      if (!is_constant(s)) turn = 1.0 / std::abs(s.frequency);
      break;
    case Signal::Kind::sum:
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
      for (const Signal& term : s.terms) turn = std::min(turn, turning_time(term));
      break;
    case Signal::Kind::product: {
      int varying = 0;
      for (const Signal& term : s.terms) {
        turn = std::min(turn, turning_time(term));
        varying += is_constant(term) ? 0 : 1;
      }
      if (varying > 1)
        for (const Signal& term : s.terms) turn = std::min(turn, shortest_piece(term));
      break;
    }
    default:
      break;
  }
  return turn;
}

void collect_breakpoints(const Signal& s, double t0, double t1, std::vector<double>& out) {
  auto add = [&](double t) {
    if (earlier(t0, t) && at_or_before(t, t1)) out.push_back(t);
  };
  switch (s.kind) {
    case Signal::Kind::step:
      add(s.time);
      break;
    case Signal::Kind::ramp:
      add(s.start);
      add(s.end);
      break;
    case Signal::Kind::table:
      for (double t : s.table_t) add(t);
      break;
    case Signal::Kind::sum:
    case Signal::Kind::product:
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
      for (const Signal& term : s.terms) collect_breakpoints(term, t0, t1, out);
      break;
    default:
      break;
  }
}

}  // namespace luztar

namespace luztar {

namespace {

// A step of a ramp's or a table's slope (derivative; `reference` says where
// it came from, for the message of its own derivative).
Signal slope_step(double time, double height) {
  Signal s;
  s.kind = Signal::Kind::step;
  s.time = time;
  s.final_value = height;
  s.reference = "slope";
  return s;
}

Signal sum_of(std::vector<Signal> terms) {
  if (terms.size() == 1) return terms.front();
  Signal s;
  s.kind = Signal::Kind::sum;
  s.terms = std::move(terms);
  return s;
}

[[noreturn]] void no_derivative(const std::string& why) { throw std::domain_error(why); }

std::string seconds(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", t);
  return buf;
}

}  // namespace

Signal derivative(const Signal& s, double t_start) {
  using K = Signal::Kind;
  switch (s.kind) {
    case K::constant: return Signal::make_constant(0.0);
    case K::sine: {  // A w cos(w t + phase) = A w sin(w t + phase + pi/2)
      Signal d = s;
      d.amplitude = s.amplitude * 2.0 * std::numbers::pi * s.frequency;
      d.phase = s.phase + std::numbers::pi / 2.0;
      d.offset = 0.0;
      return d;
    }
    case K::step:
      if (s.initial == s.final_value || !earlier(t_start, s.time)) return Signal::make_constant(0.0);
      no_derivative((s.reference == "slope" ? "the slope of a ramp or a table jumps at t = " : "a step jumps at t = ") +
                    seconds(s.time) + " s: its derivative is an impulse");
    case K::ramp: {  // the slope between start and end: two steps
      const double slope = (s.final_value - s.initial) / (s.end - s.start);
      return sum_of({slope_step(s.start, slope), slope_step(s.end, -slope)});
    }
    case K::table: {  // each segment's slope from its first knot: a step per knot
      const std::size_t n = s.table_t.size();
      if (n < 2) return Signal::make_constant(0.0);
      if (n > kMaxDerivedTablePoints)
        no_derivative("a table of " + std::to_string(n) + " points has a derivative of as many steps; at most " +
                      std::to_string(kMaxDerivedTablePoints) + " points are taken");
      std::vector<Signal> steps;
      double before = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        const double slope = i + 1 < n ? (s.table_v[i + 1] - s.table_v[i]) / (s.table_t[i + 1] - s.table_t[i]) : 0.0;
        steps.push_back(slope_step(s.table_t[i], slope - before));
        before = slope;
      }
      return sum_of(std::move(steps));
    }
    case K::sum: {
      std::vector<Signal> terms;
      for (const Signal& t : s.terms) terms.push_back(derivative(t, t_start));
      return sum_of(std::move(terms));
    }
    case K::product: {  // the product rule: one product per term, that term differentiated
      std::vector<Signal> terms;
      for (std::size_t i = 0; i < s.terms.size(); ++i) {
        Signal p = s;
        p.terms[i] = derivative(s.terms[i], t_start);
        terms.push_back(std::move(p));
      }
      return sum_of(std::move(terms));
    }
    case K::input:
      no_derivative("an input is set from outside while running: it jumps, and its derivative is an impulse");
    case K::hold:
    case K::play:
    case K::saturated_integrator:
    case K::relay:
      no_derivative(std::string("a ") + kind_name(s.kind) +
                    " holds its output between samples: it jumps, and its derivative is an impulse");
    case K::dead_zone:
    case K::saturation:
      no_derivative(std::string("the derivative of a ") + kind_name(s.kind) +
                    " switches where its input crosses a bound: it is no signal of its own");
    case K::reference:
    case K::angle:
    case K::velocity:
      break;
  }
  no_derivative(std::string("a ") + kind_name(s.kind) + " has no derivative here");
}

}  // namespace luztar
