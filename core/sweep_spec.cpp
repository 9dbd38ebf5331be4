#include "core/sweep_spec.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "core/number_text.hpp"

namespace luztar {

namespace {

[[noreturn]] void bad(const SweepParameter& p, const std::string& detail) {
  throw ModelError("sweep.parameters." + p.path, detail, p.where);
}

// Values a listed or ranged parameter contributes, checked before any is made.
std::size_t value_count(const SweepParameter& p) {
  if (p.kind == SweepParameter::Kind::list) {
    if (p.values.empty()) bad(p, "the list of values is empty");
    return p.values.size();
  }
  if (p.count < 1) bad(p, "the range is empty (count " + std::to_string(p.count) + "; give at least 1)");
  if (p.count > kMaxSweepRuns)
    bad(p, "count " + std::to_string(p.count) + " is more than the limit of " + std::to_string(kMaxSweepRuns) +
               " runs per sweep");
  return static_cast<std::size_t>(p.count);
}

// Runs of the sweep, in floating point (exact up to 2^53, beyond any limit,
// and it cannot wrap); with the factors for the message ("1000 x 1000").
double run_count(const SweepSpec& spec, std::string& factors) {
  double runs = 1.0;
  auto factor = [&](long n) {
    factors += (factors.empty() ? "" : " x ") + std::to_string(n);
    runs *= static_cast<double>(n);
  };
  long zipped = -1;
  for (const SweepParameter& p : spec.parameters) {
    if (p.sampled()) continue;
    const long n = static_cast<long>(value_count(p));
    if (!spec.zip) factor(n);
    else if (n != 1 || zipped < 0) zipped = std::max(zipped, n);  // (lengths are checked where they are zipped)
  }
  if (zipped >= 0) factor(zipped);
  if (spec.samples > 0) factor(spec.samples);
  return runs;
}

std::vector<std::string> range_values(const SweepParameter& p) {
  value_count(p);
  if (!std::isfinite(p.from) || !std::isfinite(p.to)) bad(p, "the range ends must be finite numbers");
  if (p.count == 1 && p.from != p.to)
    bad(p, "count 1 between two different ends is ambiguous (give count >= 2, or a list of one value)");
  if (p.log && (p.from <= 0.0 || p.to <= 0.0)) bad(p, "a logarithmic range needs both ends > 0");
  std::vector<std::string> out;
  for (long i = 0; i < p.count; ++i) {
    double v = p.from;
    if (p.count > 1) {
      const double s = static_cast<double>(i) / static_cast<double>(p.count - 1);
      v = p.log ? std::exp(std::log(p.from) + s * (std::log(p.to) - std::log(p.from))) : p.from + s * (p.to - p.from);
      if (i == p.count - 1) v = p.to;  // the end exactly, not up to rounding
    }
    // 15 significant digits: the decimal the range means (0.45, not 0.44999999999999996).
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    out.push_back(format_value(std::strtod(buf, nullptr)));
  }
  return out;
}

// Uniform in [0, 1) from 53 random bits: the same on every platform, unlike
// std::uniform_real_distribution whose algorithm the standard leaves open.
double unit(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

double scale(const SweepParameter& p, double u) {
  if (p.log) return std::exp(std::log(p.from) + u * (std::log(p.to) - std::log(p.from)));
  return p.from + u * (p.to - p.from);
}

std::vector<std::string> sampled_values(const SweepParameter& p, long n, std::mt19937_64& g) {
  if (!std::isfinite(p.from) || !std::isfinite(p.to)) bad(p, "the sampling bounds must be finite numbers");
  if (!(p.from < p.to)) bad(p, "the sampling interval is empty (give [low, high] with low < high)");
  if (p.log && p.from <= 0.0) bad(p, "log-scale sampling needs bounds > 0");
  std::vector<std::string> out;
  if (p.kind == SweepParameter::Kind::uniform) {
    for (long i = 0; i < n; ++i) out.push_back(format_value(scale(p, unit(g))));
    return out;
  }
  // Latin hypercube: stratum i of n holds exactly one draw; strata shuffled
  // (Fisher-Yates) independently per parameter.
  std::vector<long> perm(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) perm[i] = i;
  for (long i = n - 1; i > 0; --i) std::swap(perm[i], perm[g() % static_cast<std::uint64_t>(i + 1)]);
  for (long i = 0; i < n; ++i) out.push_back(format_value(scale(p, (static_cast<double>(perm[i]) + unit(g)) / n)));
  return out;
}

}  // namespace

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::pending: return "pending";
    case RunStatus::ok: return "ok";
    case RunStatus::event_limit: return "event_limit";
    case RunStatus::event_storm: return "event_storm";
    case RunStatus::solver_failure: return "solver_failure";
    case RunStatus::error: return "error";
  }
  return "?";
}

RunStatus run_status(StepStatus s) {
  switch (s) {
    case StepStatus::reached_time: return RunStatus::ok;
    case StepStatus::event_limit: return RunStatus::event_limit;
    case StepStatus::event_storm: return RunStatus::event_storm;
    case StepStatus::solver_failure: return RunStatus::solver_failure;
  }
  return RunStatus::error;
}

std::string format_value(double v) { return shortest(v); }

RunTable expand(const SweepSpec& spec) {
  RunTable t;
  std::set<std::string> seen;
  std::vector<std::vector<std::string>> fixed;  // values of the listed/ranged parameters
  std::vector<std::size_t> fixed_index, sampled_index;
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const SweepParameter& p = spec.parameters[i];
    if (!seen.insert(p.path).second) bad(p, "this parameter is given twice");
    t.paths.push_back(p.path);
    if (p.sampled()) {
      sampled_index.push_back(i);
      continue;
    }
    fixed_index.push_back(i);
    value_count(p);
  }
  if (!sampled_index.empty() && spec.samples < 1)
    throw ModelError("sweep.samples", "sampled parameters need 'samples' (the number of draws, >= 1)", spec.where);
  if (sampled_index.empty() && spec.samples > 0)
    throw ModelError("sweep.samples", "'samples' is given but no parameter is sampled (uniform or latin_hypercube)",
                     spec.where);
  std::string factors;
  const double runs = run_count(spec, factors);
  if (runs > static_cast<double>(kMaxSweepRuns)) {
    std::ostringstream os;
    os << "the sweep has " << factors << " = " << runs << " runs, more than the limit of " << kMaxSweepRuns
       << " (use fewer values, or split it into several sweeps)";
    throw ModelError("sweep", os.str(), spec.where);
  }

  for (std::size_t i : fixed_index) {
    const SweepParameter& p = spec.parameters[i];
    fixed.push_back(p.kind == SweepParameter::Kind::list ? p.values : range_values(p));
  }

  // Rows of the listed/ranged parameters: grid (first parameter slowest) or zip.
  std::vector<std::vector<std::string>> rows(1);
  if (spec.zip && !fixed.empty()) {
    // a parameter of one value goes with every row (the sweep file's
    // `simulation.t_end: [3]` beside a --zip of the command line's lists)
    std::size_t longest = 0;
    for (std::size_t k = 0; k < fixed.size(); ++k)
      if (fixed[k].size() > fixed[longest].size()) longest = k;
    const std::size_t n = fixed[longest].size();
    for (std::size_t k = 0; k < fixed.size(); ++k)
      if (fixed[k].size() != n && fixed[k].size() != 1)
        bad(spec.parameters[fixed_index[k]], "zipped parameters need the same number of values (or one): " +
                                                 std::to_string(fixed[k].size()) + " here, " + std::to_string(n) +
                                                 " for " + spec.parameters[fixed_index[longest]].path);
    rows.assign(n, {});
    for (std::size_t r = 0; r < n; ++r)
      for (const auto& f : fixed) rows[r].push_back(f.size() == 1 ? f[0] : f[r]);
  } else {
    for (const auto& f : fixed) {
      std::vector<std::vector<std::string>> next;
      for (const auto& row : rows)
        for (const std::string& v : f) {
          next.push_back(row);
          next.back().push_back(v);
        }
      rows = std::move(next);
    }
  }

  // Sampled block (one row per draw), crossed with the rows above.
  std::vector<std::vector<std::string>> samples(1);
  if (!sampled_index.empty()) {
    std::mt19937_64 g(spec.seed);
    std::vector<std::vector<std::string>> columns;
    for (std::size_t i : sampled_index) columns.push_back(sampled_values(spec.parameters[i], spec.samples, g));
    samples.assign(static_cast<std::size_t>(spec.samples), {});
    for (std::size_t r = 0; r < samples.size(); ++r)
      for (const auto& c : columns) samples[r].push_back(c[r]);
  }

  for (const auto& row : rows)
    for (const auto& s : samples) {
      std::vector<std::string> v(spec.parameters.size());
      for (std::size_t k = 0; k < fixed_index.size(); ++k) v[fixed_index[k]] = row[k];
      for (std::size_t k = 0; k < sampled_index.size(); ++k) v[sampled_index[k]] = s[k];
      t.values.push_back(std::move(v));
    }
  return t;
}

}  // namespace luztar
