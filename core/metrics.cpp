#include "core/metrics.hpp"

#include "core/energy.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "core/signal.hpp"
#include "core/signal_paths.hpp"
#include "core/times.hpp"
#include "core/units.hpp"

namespace luztar {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

[[noreturn]] void bad(const MetricSpec& m, const std::string& detail) {
  throw ModelError("sweep.metrics." + m.name, detail, m.where);
}

// A metric reads what a run records (Result): every signal path but inputs.
void check_signal(const MetricSpec& m, const std::string& path, const Model& model) {
  SignalPath s;
  try {
    s = resolve_signal_path(model, path, SignalNames::canonical);
  } catch (const std::invalid_argument& e) {
    bad(m, e.what());
  }
  if (s.kind == SignalPath::Kind::input && s.index < static_cast<int>(model.input_names.size()))
    bad(m, "'" + path + "': a run does not record its inputs (metrics read bodies, elements, blocks and energy)");
}

// Time element e spends in a state `in(state)` within [a, b], from its state
// at the first sample and the exact times of its events.
template <class In>
double time_in(const Result& r, int e, double a, double b, In in) {
  int state = r.element_state[static_cast<std::size_t>(e)];
  double since = r.time.front(), total = 0.0;
  auto add = [&](double from, double to) {
    const double lo = std::max(from, a), hi = std::min(to, b);
    if (hi > lo) total += hi - lo;
  };
  for (const EventRecord& ev : r.events) {
    if (ev.element != e) continue;
    if (in(state)) add(since, ev.t);
    state = ev.after;
    since = ev.t;
  }
  if (in(state)) add(since, r.time.back());
  return total;
}

// Seconds from a to element e's first stick or lock event in [a, b]; NaN if none.
double lock_up_time(const Result& r, int e, double a, double b) {
  for (const EventRecord& ev : r.events)
    if (ev.element == e && ev.t >= a && ev.t <= b && (ev.kind == EventKind::stick || ev.kind == EventKind::lock))
      return ev.t - a;
  return kNaN;
}

// Contacts of spring e beginning in [a, b] at |x'| >= min_speed: its impacts
// (a rigid freeplay; one that comes to rest in contact is logged as a contact
// too, at the same instant, and counted once) and its contacts from inside the
// gap (elastic).
double tooth_impacts(const Result& r, int e, double a, double b, double min_speed) {
  long n = 0;
  double last_impact = kNaN;
  for (const EventRecord& ev : r.events) {
    if (ev.element != e || ev.t < a || ev.t > b) continue;
    const bool impact = ev.kind == EventKind::impact;
    if (impact) last_impact = ev.t;
    const bool begins = impact || (ev.kind == EventKind::contact && ev.before == 0 && ev.t != last_impact);
    if (begins && std::abs(ev.rate) >= min_speed) ++n;
  }
  return static_cast<double>(n);
}

// The element id of a Result's element named `name`.
int element_of(const Result& r, const std::string& name) {
  const auto it = std::find(r.element_names.begin(), r.element_names.end(), name);
  return static_cast<int>(it - r.element_names.begin());
}

// The model's words for element e: "a friction element", "a spring without freeplay", ...
std::string kind_words(const Model& m, int e) {
  switch (m.element_kind[e]) {
    case ElementKind::spring: {
      const Spring& sp = m.springs[m.element_index[e]];
      return sp.freeplay > 0.0 ? "a spring with freeplay" : "a spring without freeplay";
    }
    case ElementKind::friction: return "a friction element";
    case ElementKind::one_way_clutch: return "a one-way clutch";
    case ElementKind::link: return "a link";
    case ElementKind::lossy_gear: return "a lossy gear";
    case ElementKind::torque: return "a torque element";
  }
  return "an element";
}

// Whether a metric of this kind reads the output samples in its window (the
// others read the event log, or interpolate energies at the window's edges).
bool reads_samples(MetricSpec::Kind k) {
  using K = MetricSpec::Kind;
  return k == K::max || k == K::min || k == K::mean || k == K::rms || k == K::peak_to_peak || k == K::final_value ||
         k == K::peak_abs || k == K::hysteresis;
}

// Whether the output grid of s (core/run_frame.hpp: t_start + k output_step,
// and t_end) has an instant in [a, b], within the run.
bool holds_a_sample(const SimulationSettings& s, double a, double b) {
  if (!(s.output_step > 0.0)) return true;  // (no grid to test: validate() refuses it)
  if (at_or_before(a, s.t_end) && at_or_before(s.t_end, b)) return true;
  const double k = std::ceil((a - s.t_start) / s.output_step);
  // (the division's roundoff: the grid point k - 1 may be a's own instant, or k below a and k + 1 the first in)
  for (const double j : {k - 1.0, k, k + 1.0}) {
    const double g = s.t_start + j * s.output_step;
    if (j >= 0.0 && at_or_before(a, g) && at_or_before(g, b)) return true;
  }
  return false;
}

// The element a metric names, which must exist.
int named_element(const MetricSpec& m, const Model& model) {
  const int e = model.element_id(m.element);
  if (e < 0) bad(m, "the model has no element '" + m.element + "'");
  return e;
}

std::string number(double v) { return shortest(v); }  // exact: the definition is stored as text

}  // namespace

std::string energy_path(const std::string& signal) {
  return signal.rfind("elements.", 0) == 0 ? signal : "energy." + signal;
}

double hysteresis_width(const std::vector<double>& x, const std::vector<double>& y, double level, std::size_t k0,
                        std::size_t k1) {
  double up_sum = 0.0, down_sum = 0.0;
  int up = 0, down = 0;
  bool have_last = false;
  std::size_t last = 0;  // last sample strictly off the level
  double on_sum = 0.0;   // y at the samples exactly on the level since `last`
  int on = 0;
  for (std::size_t k = k0; k < k1; ++k) {
    const double d = x[k] - level;
    if (d == 0.0) {
      on_sum += y[k];
      ++on;
      continue;
    }
    if (have_last) {
      const double d0 = x[last] - level;
      if ((d0 < 0.0) != (d < 0.0)) {
        // a pass through samples on the level is read there (their mean when
        // x dwells on it), not interpolated across them
        const double s = d0 / (d0 - d);
        const double yc = on > 0 ? on_sum / on : y[last] + s * (y[k] - y[last]);
        if (d > 0.0) {
          up_sum += yc;
          ++up;
        } else {
          down_sum += yc;
          ++down;
        }
      }
    }
    last = k;
    have_last = true;
    on_sum = 0.0;
    on = 0;
  }
  if (up == 0 || down == 0) return kNaN;
  return std::fabs(up_sum / up - down_sum / down);
}

const char* to_string(MetricSpec::Kind k) {
  switch (k) {
    case MetricSpec::Kind::max: return "max";
    case MetricSpec::Kind::min: return "min";
    case MetricSpec::Kind::mean: return "mean";
    case MetricSpec::Kind::rms: return "rms";
    case MetricSpec::Kind::peak_to_peak: return "peak_to_peak";
    case MetricSpec::Kind::final_value: return "final";
    case MetricSpec::Kind::time_stuck: return "time_stuck";
    case MetricSpec::Kind::events: return "events";
    case MetricSpec::Kind::energy: return "energy";
    case MetricSpec::Kind::hysteresis: return "hysteresis";
    case MetricSpec::Kind::lock_up_time: return "lock_up_time";
    case MetricSpec::Kind::time_in_state: return "time_in_state";
    case MetricSpec::Kind::overrun_time: return "overrun_time";
    case MetricSpec::Kind::tooth_impacts: return "tooth_impacts";
    case MetricSpec::Kind::peak_abs: return "peak_abs";
  }
  return "?";
}

std::string MetricSpec::describe() const {
  std::string s;
  switch (kind) {
    case Kind::time_stuck: s = "time " + element + " is stuck"; break;
    case Kind::events:
      s = "number of " + (event_kind.empty() ? std::string("events") : event_kind + " events") +
          (element.empty() ? "" : " of " + element);
      break;
    case Kind::energy: s = "change of " + energy_path(signal); break;
    case Kind::lock_up_time: s = "time until " + element + " locks up"; break;
    case Kind::time_in_state: s = "time " + element + " is in state " + std::to_string(state); break;
    case Kind::overrun_time: s = "time " + element + " overruns"; break;
    case Kind::tooth_impacts:
      s = "number of tooth impacts of " + element + (min_speed > 0.0 ? " at >= " + number(min_speed) + " rad/s" : "");
      break;
    case Kind::peak_abs: s = "peak |" + signal + "|"; break;
    case Kind::hysteresis:
      s = "hysteresis width of " + signal + " against " + against + " at " + against + " = " + number(level);
      break;
    default: s = std::string(to_string(kind)) + " of " + signal;
  }
  const bool open0 = std::isinf(t0), open1 = std::isinf(t1);
  if (!open0 || !open1)
    s += " over [" + (open0 ? std::string("t_start") : number(t0)) + ", " + (open1 ? std::string("t_end") : number(t1)) +
         "] s";
  return s;
}

std::string MetricSpec::unit() const {
  switch (kind) {
    case Kind::time_stuck:
    case Kind::lock_up_time:
    case Kind::time_in_state:
    case Kind::overrun_time: return unit::time;
    case Kind::events:
    case Kind::tooth_impacts: return unit::one;
    case Kind::energy: return unit::energy;
    default: return signal_unit(signal);
  }
}

void check_metric(const MetricSpec& m, const Model& model) {
  switch (m.kind) {
    case MetricSpec::Kind::time_stuck: {
      const int e = model.element_id(m.element);
      if (e < 0) bad(m, "the model has no element '" + m.element + "'");
      if (!element_sticks(model.element_kind[e]))
        bad(m, "'" + m.element + "' is not a friction element or a one-way clutch (only these stick)");
      break;
    }
    case MetricSpec::Kind::events: {
      if (!m.element.empty() && model.element_id(m.element) < 0)
        bad(m, "the model has no element '" + m.element + "'");
      bool ok = m.event_kind.empty();
      for (int k = 0; k < kNumEventKinds; ++k) ok = ok || m.event_kind == to_string(static_cast<EventKind>(k));
      if (!ok)
        bad(m, "unknown event kind '" + m.event_kind + "' (expected one of: all, stick, break_away, reversal, contact, "
               "separation, impact, stage, lock, overrun, power_flow)");
      break;
    }
    case MetricSpec::Kind::energy: {
      const std::string path = energy_path(m.signal);
      check_signal(m, path, model);
      if (path.rfind("elements.", 0) == 0 && path.substr(path.find_last_of('.')) != ".dissipated")
        bad(m, "'" + path + "': an element's energy is elements.<element>.dissipated");
      break;
    }
    case MetricSpec::Kind::lock_up_time: {
      const int e = named_element(m, model);
      if (!element_sticks(model.element_kind[e]))
        bad(m, "'lock_up_time' needs a friction element or a one-way clutch; '" + m.element + "' is " +
                   kind_words(model, e));
      break;
    }
    case MetricSpec::Kind::time_in_state: named_element(m, model); break;
    case MetricSpec::Kind::overrun_time: {
      const int e = named_element(m, model);
      if (model.element_kind[e] != ElementKind::one_way_clutch)
        bad(m, "'overrun_time' needs a one-way clutch; '" + m.element + "' is " + kind_words(model, e));
      break;
    }
    case MetricSpec::Kind::tooth_impacts: {
      const int e = named_element(m, model);
      if (model.element_kind[e] != ElementKind::spring || !(model.springs[model.element_index[e]].freeplay > 0.0))
        bad(m, "'tooth_impacts' needs an element with a gap (a spring with freeplay); '" + m.element + "' is " +
                   kind_words(model, e));
      if (!(m.min_speed >= 0.0) || !std::isfinite(m.min_speed))
        bad(m, "min_speed must be a finite number >= 0 [rad/s]");
      break;
    }
    case MetricSpec::Kind::hysteresis:
      check_signal(m, m.signal, model);
      check_signal(m, m.against, model);
      if (!std::isfinite(m.level)) bad(m, "the level must be a finite number");
      break;
    default: check_signal(m, m.signal, model);
  }
  const auto& s = model.simulation;
  if (std::isnan(m.t0) || std::isnan(m.t1)) bad(m, "the window must be two numbers");
  if (!(m.t0 < m.t1)) bad(m, "the window [" + number(m.t0) + ", " + number(m.t1) + "] is empty");
  if (m.t0 > s.t_end || m.t1 < s.t_start)
    bad(m, "the window [" + number(m.t0) + ", " + number(m.t1) + "] lies outside the run [" + number(s.t_start) + ", " +
               number(s.t_end) + "] s");
  // A window written with a bound beyond the run is refused, not cut to it:
  // the metric would be over less than it says ([1, 3] of a run to 1.5 s gave
  // the energy over [1, 1.5] under the name [1, 3]: a new-user hunt). The
  // default window (no bounds) is the whole run.
  if ((std::isfinite(m.t1) && earlier(s.t_end, m.t1)) || (std::isfinite(m.t0) && earlier(m.t0, s.t_start)))
    bad(m, "the window [" + number(m.t0) + ", " + number(m.t1) + "] reaches beyond the run [" + number(s.t_start) +
               ", " + number(s.t_end) + "] s: give a window within it, or lengthen the run");
  if (reads_samples(m.kind) && !holds_a_sample(s, std::max(m.t0, s.t_start), std::min(m.t1, s.t_end)))
    bad(m, "the window [" + number(m.t0) + ", " + number(m.t1) + "] holds no output sample (every " +
               number(s.output_step) + " s from " + number(s.t_start) + " s): widen it or refine simulation.output_step");
}

namespace {

// The metrics of one element's states and events over [a, b] into `value`;
// false for the other kinds.
bool element_metric(const MetricSpec& m, const Result& r, double a, double b, double& value) {
  using K = MetricSpec::Kind;
  if (m.kind != K::time_stuck && m.kind != K::time_in_state && m.kind != K::overrun_time &&
      m.kind != K::lock_up_time && m.kind != K::tooth_impacts)
    return false;
  const int e = element_of(r, m.element);
  switch (m.kind) {
    case K::time_stuck: value = time_in(r, e, a, b, [](int s) { return s == 0; }); break;
    case K::time_in_state: value = time_in(r, e, a, b, [&](int s) { return s == m.state; }); break;
    case K::overrun_time: value = time_in(r, e, a, b, [](int s) { return s != 0; }); break;  // 0 locked, o overrunning
    case K::lock_up_time: value = lock_up_time(r, e, a, b); break;
    default: value = tooth_impacts(r, e, a, b, m.min_speed); break;
  }
  return true;
}

}  // namespace

std::vector<double> compute_metrics(const std::vector<MetricSpec>& metrics, const Result& r) {
  std::vector<double> out(metrics.size(), kNaN);
  if (r.time.empty()) return out;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricSpec& m = metrics[i];
    const double a = std::max(m.t0, r.time.front()), b = std::min(m.t1, r.time.back());
    if (element_metric(m, r, a, b, out[i])) continue;
    if (m.kind == MetricSpec::Kind::events) {
      long n = 0;
      for (const EventRecord& ev : r.events) {
        if (ev.t < a || ev.t > b) continue;
        if (!m.element.empty() && r.element_names[ev.element] != m.element) continue;
        if (!m.event_kind.empty() && m.event_kind != to_string(ev.kind)) continue;
        ++n;
      }
      out[i] = static_cast<double>(n);
      continue;
    }
    if (m.kind == MetricSpec::Kind::energy) {
      // a window from t_start on starts at the initial condition, before the
      // events at t_start (core/energy.hpp: kinetic_at_start), as `events` counts them
      const std::string path = energy_path(m.signal);
      const std::vector<double> v = recorded_signal(r, path);
      const double at_a = a > r.time.front() ? interpolate(r.time, v, a)
                          : path == "energy.kinetic" ? kinetic_at_start(r)
                          : path == "energy.elastic" ? v.front()
                                                     : 0.0;  // the accounts count from the initial condition
      out[i] = interpolate(r.time, v, b) - at_a;
      continue;
    }
    std::vector<std::size_t> window;
    for (std::size_t k = 0; k < r.time.size(); ++k)
      if (r.time[k] >= a && r.time[k] <= b) window.push_back(k);
    if (window.empty()) continue;
    const std::vector<double> v = recorded_signal(r, m.signal);
    if (m.kind == MetricSpec::Kind::hysteresis) {
      out[i] = hysteresis_width(recorded_signal(r, m.against), v, m.level, window.front(), window.back() + 1);
      continue;
    }
    double lo = v[window.front()], hi = lo;
    for (std::size_t k : window) {
      lo = std::min(lo, v[k]);
      hi = std::max(hi, v[k]);
    }
    // Time averages by the trapezoidal rule (a single sample is its own average).
    double integral = 0.0, integral2 = 0.0;
    for (std::size_t w = 1; w < window.size(); ++w) {
      const std::size_t k0 = window[w - 1], k1 = window[w];
      const double dt = r.time[k1] - r.time[k0];
      integral += 0.5 * dt * (v[k0] + v[k1]);
      integral2 += 0.5 * dt * (v[k0] * v[k0] + v[k1] * v[k1]);
    }
    const double span = r.time[window.back()] - r.time[window.front()];
    const double mean = span > 0.0 ? integral / span : v[window.front()];
    const double mean2 = span > 0.0 ? integral2 / span : v[window.front()] * v[window.front()];
    switch (m.kind) {
      case MetricSpec::Kind::max: out[i] = hi; break;
      case MetricSpec::Kind::min: out[i] = lo; break;
      case MetricSpec::Kind::peak_to_peak: out[i] = hi - lo; break;
      case MetricSpec::Kind::mean: out[i] = mean; break;
      case MetricSpec::Kind::rms: out[i] = std::sqrt(mean2); break;
      case MetricSpec::Kind::final_value: out[i] = v[window.back()]; break;
      case MetricSpec::Kind::peak_abs: out[i] = std::max(std::abs(lo), std::abs(hi)); break;
      default: break;
    }
  }
  return out;
}

std::vector<MetricSpec> default_metrics(const Model& model) {
  std::vector<MetricSpec> out;
  MetricSpec d;
  d.name = "dissipated";
  d.kind = MetricSpec::Kind::energy;
  d.signal = "dissipated";
  out.push_back(d);
  for (int e = 0; e < model.num_elements(); ++e) {  // the energy map of the driveline
    if (!element_kind_dissipates(model.element_kind[e])) continue;
    MetricSpec de = d;
    de.signal = "elements." + model.element_names[e] + ".dissipated";
    de.name = "dissipated." + model.element_names[e];
    out.push_back(de);
  }
  for (int k = 0; k < kNumEventKinds; ++k) {
    // lock and overrun only where a one-way clutch can log them, power_flow
    // only where a lossy gear can: a model without one keeps the columns it
    // had before the kind existed
    const EventKind kind = static_cast<EventKind>(k);
    if ((kind == EventKind::lock || kind == EventKind::overrun) && model.one_way_element.empty()) continue;
    if (kind == EventKind::power_flow && model.lossy_gear_element.empty()) continue;
    MetricSpec ev;
    ev.kind = MetricSpec::Kind::events;
    ev.event_kind = to_string(kind);
    ev.name = "events." + ev.event_kind;
    out.push_back(ev);
  }
  for (int e = 0; e < model.num_elements(); ++e) {
    if (!element_sticks(model.element_kind[e])) continue;
    MetricSpec s;
    s.kind = MetricSpec::Kind::time_stuck;
    s.element = model.element_names[e];
    s.name = "time_stuck." + s.element;
    out.push_back(s);
  }
  return out;
}

}  // namespace luztar
