#include "core/signal.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

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

double evaluate(const Signal& s, double t, const double* inputs) {
  switch (s.kind) {
    case Signal::Kind::constant:
      return s.value;
    case Signal::Kind::sine:
      return s.offset + s.amplitude * std::sin(2.0 * std::numbers::pi * s.frequency * t + s.phase);
    case Signal::Kind::step:
      return t < s.time ? s.initial : s.final_value;
    case Signal::Kind::ramp:
      if (t <= s.start) return s.initial;
      if (t >= s.end) return s.final_value;
      return s.initial + (s.final_value - s.initial) * (t - s.start) / (s.end - s.start);
    case Signal::Kind::table:
      return interpolate(s.table_t, s.table_v, t);
    case Signal::Kind::sum: {
      double acc = 0.0;
      for (const Signal& term : s.terms) acc += evaluate(term, t, inputs);
      return acc;
    }
    case Signal::Kind::product: {
      double acc = 1.0;
      for (const Signal& term : s.terms) acc *= evaluate(term, t, inputs);
      return acc;
    }
    case Signal::Kind::input:
      return inputs ? inputs[s.input] : s.value;
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
      return std::all_of(s.terms.begin(), s.terms.end(), [](const Signal& x) { return is_constant(x); });
    case Signal::Kind::input:
    case Signal::Kind::reference:
      return false;
  }
  return false;
}

void collect_breakpoints(const Signal& s, double t0, double t1, std::vector<double>& out) {
  auto add = [&](double t) {
    if (t > t0 && t <= t1) out.push_back(t);
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
      for (const Signal& term : s.terms) collect_breakpoints(term, t0, t1, out);
      break;
    default:
      break;
  }
}

}  // namespace luztar
