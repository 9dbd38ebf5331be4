#include "apps/cli/result_commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "apps/cli/summary.hpp"
#include "core/number_text.hpp"
#include "core/times.hpp"
#include "core/signal.hpp"
#include "core/units.hpp"
#include "io/hdf5_reader.hpp"
#include "core/signal_paths.hpp"
#include "luztar/version.hpp"

namespace luztar::app {

namespace {

struct NamedSignal {
  std::string path;  // bodies.psi.angle, the sweep metrics' names
  const char* unit;
  std::vector<double> values;
};

// Column j of a (nt x n) row-major matrix.
template <class T>
std::vector<double> column(const std::vector<T>& m, int n, int j) {
  std::vector<double> c(n ? m.size() / static_cast<std::size_t>(n) : 0);
  for (std::size_t k = 0; k < c.size(); ++k) c[k] = static_cast<double>(m[k * n + j]);
  return c;
}

// Owner j's quantities of `table` that the run holds (a file written before
// luztar stored some lacks them: compare then goes over the common ones).
// `translational`: Result::body_translational or element_translational (the units of the owner's kind).
template <std::size_t N>
void owner_signals(const Result& r, const std::string& path, const OwnerQuantity (&table)[N], int n, int j,
                   const std::vector<std::uint8_t>& translational, std::vector<NamedSignal>& out) {
  for (const OwnerQuantity& q : table) {
    const char* unit = Result::of_kind(translational, j, q.unit);
    if (!q.values) {
      out.push_back({path + q.name, unit, column(r.element_state, n, j)});
      continue;
    }
    const std::vector<double>& values = r.*(q.values);
    if (values.size() == r.time.size() * static_cast<std::size_t>(n)) out.push_back({path + q.name, unit, column(values, n, j)});
  }
}

// Every stored signal of a run but the time grid.
std::vector<NamedSignal> signals(const Result& r) {
  std::vector<NamedSignal> out;
  for (int j = 0; j < r.num_bodies(); ++j)
    owner_signals(r, "bodies." + r.body_names[j] + ".", kBodyQuantities, r.num_bodies(), j, r.body_translational, out);
  for (int e = 0; e < r.num_elements(); ++e)
    owner_signals(r, "elements." + r.element_names[e] + ".", kElementQuantities, r.num_elements(), e, r.element_translational, out);
  for (int b = 0; b < r.num_blocks(); ++b)
    out.push_back({"blocks." + r.block_names[b], r.block_unit(b), column(r.block_output, r.num_blocks(), b)});
  out.push_back({"energy.input_work", unit::energy, r.input_work});
  out.push_back({"energy.kinetic", unit::energy, r.kinetic});
  out.push_back({"energy.elastic", unit::energy, r.elastic});
  out.push_back({"energy.dissipated", unit::energy, r.dissipated});
  return out;
}

// Whether a run holds the quantity of `path` (bodies.b.acceleration: any
// body's acceleration) at all: a file written before luztar stored it does not.
bool holds_quantity(const std::vector<NamedSignal>& run, const std::string& path) {
  if (path.rfind("bodies.", 0) != 0 && path.rfind("elements.", 0) != 0) return true;
  const std::string group = path.substr(0, path.find('.') + 1), quantity = path.substr(path.find_last_of('.'));
  return std::any_of(run.begin(), run.end(), [&](const NamedSignal& s) {
    return s.path.rfind(group, 0) == 0 && s.path.size() >= quantity.size() &&
           s.path.compare(s.path.size() - quantity.size(), quantity.size(), quantity) == 0;
  });
}

std::string event_text(const Result& r, const EventRecord& e) {
  return "t = " + shortest(e.t) + " s  " + (e.element >= 0 ? r.element_names[e.element] : std::string("?")) + "  " +
         to_string(e.kind) + "  " + std::to_string(e.before) + " -> " + std::to_string(e.after);
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

}  // namespace

void print_info(std::ostream& out, const std::string& path, std::optional<double> around,
                std::optional<double> window) {
  const io::StoredRun run = io::read_hdf5(path);
  const Result& r = run.result;
  out << "file " << path << " (written by luztar " << run.luztar_version << ")\n";
  for (const std::string& o : run.overrides) out << "  model field " << o << "\n";
  print_summary(out, SummarySource{run.model_name, run.source_path, run.reductions}, run.settings, r);
  if (!around) return;
  const double w = window ? *window : run.settings.output_step;
  if (!(w >= 0.0)) throw std::runtime_error("--window must be >= 0 (got " + shortest(w) + ")");
  std::vector<const EventRecord*> near;
  for (const EventRecord& e : r.events)
    if (std::abs(e.t - *around) <= w) near.push_back(&e);
  out << "  events within " << shortest(w) << " " << unit::time << " of " << shortest(*around) << " " << unit::time
      << ": " << near.size() << "\n";
  for (const EventRecord* e : near) out << "    " << event_text(r, *e) << "\n";
}

int compare_results(std::ostream& out, const std::string& a_path, const std::string& b_path,
                    const CompareOptions& o) {
  const Result a = io::read_hdf5(a_path).result, b = io::read_hdf5(b_path).result;
  // one grid: the same instants (core/times.hpp), sample by sample
  const auto differ = std::mismatch(a.time.begin(), a.time.end(), b.time.begin(), b.time.end(), same_time);
  const bool same_grid = a.time.size() == b.time.size() && differ.first == a.time.end();
  if (!same_grid && !o.interpolate) {
    std::string how = std::to_string(a.num_samples()) + " samples over [" +
                      (a.time.empty() ? "" : shortest(a.time.front()) + ", " + shortest(a.time.back())) + "] s against " +
                      std::to_string(b.num_samples()) + " over [" +
                      (b.time.empty() ? "" : shortest(b.time.front()) + ", " + shortest(b.time.back())) + "] s";
    if (a.time.size() == b.time.size())
      how = "sample " + std::to_string(differ.first - a.time.begin()) + " is at " + shortest(*differ.first) +
            " s against " + shortest(*differ.second) + " s";
    throw std::runtime_error("the time grids differ (" + how + "): compare on A's grid with --interpolate");
  }
  if (!same_grid && (a.time.empty() || b.time.empty())) throw std::runtime_error("a result without samples");
  // The samples of A compared: all, or (interpolating) those within B's span.
  std::vector<std::size_t> at;
  for (std::size_t k = 0; k < a.time.size(); ++k)
    if (same_grid || (a.time[k] >= b.time.front() && a.time[k] <= b.time.back())) at.push_back(k);
  out << "luztar compare: " << a_path << " (A) against " << b_path << " (B), tolerance " << shortest(o.tolerance)
      << (same_grid ? ", the same time grid" : ", B interpolated at " + std::to_string(at.size()) + " times of A")
      << "\n";
  out << "  signal                                  max |A-B|   relative   unit\n";
  int failures = 0;
  const std::vector<NamedSignal> sa = signals(a), sb = signals(b);
  for (const NamedSignal& x : sa) {
    const auto y = std::find_if(sb.begin(), sb.end(), [&](const NamedSignal& s) { return s.path == x.path; });
    if (y == sb.end()) {
      const bool older = !holds_quantity(sb, x.path);  // compared over the common signals
      out << "  " << x.path << ": only in A" << (older ? " (B's file does not store it)" : "") << "\n";
      failures += older ? 0 : 1;
      continue;
    }
    // Values in different units are not compared as numbers (a reduced model's
    // rack_pinion in N where the original's shaft spring was in N m read as a
    // difference of values: a new-user hunt)
    if (std::string_view(x.unit) != std::string_view(y->unit)) {
      out << "  " << x.path << ": in " << x.unit << " in A, in " << y->unit << " in B: not comparable   DIFFERS\n";
      ++failures;
      continue;
    }
    // NaN against NaN is the same value (a massless body's acceleration);
    // NaN against a number differs (std::max would drop it: NaN compares false)
    double diff = 0.0, scale = 0.0;
    for (const std::size_t k : at) {
      const double av = x.values[k], bv = same_grid ? y->values[k] : interpolate(b.time, y->values, a.time[k]);
      if (std::isnan(av) && std::isnan(bv)) continue;
      const double d = av == bv ? 0.0 : std::abs(av - bv);  // (equal infinities: 0, not inf - inf)
      diff = std::isnan(d) || std::isnan(diff) ? NAN : std::max(diff, d);
      if (!std::isnan(av)) scale = std::max(scale, std::abs(av));
    }
    const bool within = diff <= o.tolerance * std::max(1.0, scale);  // (false for NaN)
    if (!within) ++failures;
    const double rel = scale > 0.0 ? diff / scale : (diff > 0.0 ? INFINITY : diff);
    char line[256];  // the verdict in a column of its own
    std::snprintf(line, sizeof line, within ? "  %-38s %10s %10s   %s\n" : "  %-38s %10s %10s   %-8s DIFFERS\n",
                  x.path.c_str(), sci(diff).c_str(), sci(rel).c_str(), x.unit);
    out << line;
  }
  for (const NamedSignal& y : sb)
    if (std::none_of(sa.begin(), sa.end(), [&](const NamedSignal& s) { return s.path == y.path; })) {
      const bool older = !holds_quantity(sa, y.path);
      out << "  " << y.path << ": only in B" << (older ? " (A's file does not store it)" : "") << "\n";
      failures += older ? 0 : 1;
    }
  // Events, pair by pair until the first that differs.
  const std::size_t n = std::min(a.events.size(), b.events.size());
  std::size_t first = n;
  double dt = 0.0;
  for (std::size_t i = 0; i < n && first == n; ++i) {
    const EventRecord &x = a.events[i], &y = b.events[i];
    const std::string xe = x.element >= 0 ? a.element_names[x.element] : "", ye = y.element >= 0 ? b.element_names[y.element] : "";
    if (xe != ye || x.kind != y.kind || x.before != y.before || x.after != y.after) first = i;
    else dt = std::max(dt, std::abs(x.t - y.t));
  }
  const double t_end = a.time.empty() ? 0.0 : std::abs(a.time.back());
  const bool events_ok = first == n && a.events.size() == b.events.size() && dt <= o.tolerance * std::max(1.0, t_end);
  out << "  events: " << a.events.size() << " in A, " << b.events.size() << " in B; largest time difference "
      << sci(dt) << " s over the first " << first << " (the same element, kind and states)\n";
  if (first < n) {
    out << "    first difference, event " << first << ":\n      A: " << event_text(a, a.events[first])
        << "\n      B: " << event_text(b, b.events[first]) << "\n";
  } else if (a.events.size() != b.events.size()) {
    const Result& longer = a.events.size() > b.events.size() ? a : b;
    out << "    first difference, event " << n << ": only in " << (&longer == &a ? "A" : "B") << ": "
        << event_text(longer, longer.events[n]) << "\n";
  }
  if (!events_ok) ++failures;
  if (failures == 0) {
    out << "  within the tolerance\n";
    return 0;
  }
  out << "  NOT within the tolerance (" << failures << (failures == 1 ? " item" : " items") << ")\n";
  return 1;
}

}  // namespace luztar::app
