#include "core/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "core/signal.hpp"
#include "core/signal_paths.hpp"
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

// Stuck time of element e within [a, b], from its state at the first sample and
// the exact times of its events.
double stuck_time(const Result& r, int e, double a, double b) {
  int state = r.element_state[static_cast<std::size_t>(e)];
  double since = r.time.front(), total = 0.0;
  auto add = [&](double from, double to) {
    const double lo = std::max(from, a), hi = std::min(to, b);
    if (hi > lo) total += hi - lo;
  };
  for (const EventRecord& ev : r.events) {
    if (ev.element != e) continue;
    if (state == 0) add(since, ev.t);
    state = ev.after;
    since = ev.t;
  }
  if (state == 0) add(since, r.time.back());
  return total;
}

std::string number(double v) { return shortest(v); }  // exact: the definition is stored as text

}  // namespace

double hysteresis_width(const std::vector<double>& x, const std::vector<double>& y, double level, std::size_t k0,
                        std::size_t k1) {
  double up_sum = 0.0, down_sum = 0.0;
  int up = 0, down = 0;
  bool have_last = false;
  std::size_t last = 0;  // last sample strictly off the level
  for (std::size_t k = k0; k < k1; ++k) {
    const double d = x[k] - level;
    if (d == 0.0) continue;
    if (have_last) {
      const double d0 = x[last] - level;
      if ((d0 < 0.0) != (d < 0.0)) {
        const double s = d0 / (d0 - d);
        const double yc = y[last] + s * (y[k] - y[last]);
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
    case Kind::energy: s = "change of energy." + signal; break;
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
    case Kind::time_stuck: return unit::time;
    case Kind::events: return unit::one;
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
               "separation, impact, stage, lock, overrun)");
      break;
    }
    case MetricSpec::Kind::energy: check_signal(m, "energy." + m.signal, model); break;
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
}

std::vector<double> compute_metrics(const std::vector<MetricSpec>& metrics, const Result& r) {
  std::vector<double> out(metrics.size(), kNaN);
  if (r.time.empty()) return out;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricSpec& m = metrics[i];
    const double a = std::max(m.t0, r.time.front()), b = std::min(m.t1, r.time.back());
    if (m.kind == MetricSpec::Kind::time_stuck) {
      const auto it = std::find(r.element_names.begin(), r.element_names.end(), m.element);
      out[i] = stuck_time(r, static_cast<int>(it - r.element_names.begin()), a, b);
      continue;
    }
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
      const std::vector<double> v = recorded_signal(r, "energy." + m.signal);
      out[i] = interpolate(r.time, v, b) - interpolate(r.time, v, a);
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
  for (int k = 0; k < kNumEventKinds; ++k) {
    // lock and overrun only where a one-way clutch can log them: a model
    // without one keeps the columns it had before the kind existed
    const EventKind kind = static_cast<EventKind>(k);
    if ((kind == EventKind::lock || kind == EventKind::overrun) && model.one_way_element.empty()) continue;
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
