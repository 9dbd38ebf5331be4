#include "apps/sweep/sweep_plan.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/errors.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar::app {

namespace {

std::vector<io::FieldOverride> overrides(const SweepPlan& p, std::size_t i) {
  std::vector<io::FieldOverride> o = p.fixed;
  for (std::size_t k = 0; k < p.table.paths.size(); ++k)
    o.push_back({p.table.paths[k], p.table.values[i][k], p.input.spec.parameters[k].where});
  return o;
}

std::string run_label(const SweepPlan& p, std::size_t i) {
  std::string s = "run " + std::to_string(i) + " (";
  for (std::size_t k = 0; k < p.table.paths.size(); ++k)
    s += (k ? ", " : "") + p.table.paths[k] + " = " + p.table.values[i][k];
  return s + ")";
}

// FNV-1a, 64 bits: enough to tell two sweeps apart, stable across platforms.
std::string fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string describe(const SweepPlan& p) {
  std::ostringstream s;
  const SweepSpec& sp = p.input.spec;
  s << "model: " << p.input.model_path << "\n";
  s << "combine: " << (sp.zip ? "zip" : "grid") << "\n";
  if (sp.samples > 0) s << "samples: " << sp.samples << "\nseed: " << sp.seed << "\n";
  s << "trajectories: " << (sp.trajectories ? "true" : "false") << "\nruns: " << p.table.size() << "\nparameters:\n";
  for (const SweepParameter& q : sp.parameters) {
    s << "  " << q.path << ": ";
    switch (q.kind) {
      case SweepParameter::Kind::list: {
        s << "[";
        for (std::size_t k = 0; k < q.values.size(); ++k) s << (k ? ", " : "") << q.values[k];
        s << "]";
        break;
      }
      case SweepParameter::Kind::range:
        s << "{from: " << format_value(q.from) << ", to: " << format_value(q.to) << ", count: " << q.count
          << (q.log ? ", scale: log" : "") << "}";
        break;
      default:
        s << "{" << (q.kind == SweepParameter::Kind::uniform ? "uniform" : "latin_hypercube") << ": ["
          << format_value(q.from) << ", " << format_value(q.to) << "]" << (q.log ? ", scale: log" : "") << "}";
    }
    s << "\n";
  }
  for (const io::FieldOverride& f : p.fixed) s << f.path << ": " << f.value << "  # " << f.where << "\n";
  s << "metrics:\n";
  for (const MetricSpec& m : p.metrics) s << "  " << m.name << ": " << m.describe() << " [" << m.unit() << "]\n";
  return s.str();
}

// The model of run `i`, its table files read through `files`.
Model build(const SweepPlan& p, std::size_t i, io::InputFiles& files) {
  try {
    return io::parse_model(p.input.model_text, p.input.model_path, p.input.model_dir, overrides(p, i), files);
  } catch (const ModelError& e) {
    throw ModelError(e.field(), e.detail() + " [" + run_label(p, i) + "]", e.where());
  }
}

}  // namespace

Model SweepPlan::model(std::size_t i) const {
  io::InputFiles snapshot = files;  // holds every file already; a copy, as runs build models on several threads
  return build(*this, i, snapshot);
}

SweepRunResult SweepPlan::execute(std::size_t i) const {
  SweepRunResult r;
  r.index = i;
  const auto start = std::chrono::steady_clock::now();
  try {
    const Model m = model(i);
    Result res = simulate(m);
    r.status = run_status(res.status);
    r.message = res.message;
    r.metrics = r.status == RunStatus::ok ? compute_metrics(metrics, res)
                                          : std::vector<double>(metrics.size(), std::numeric_limits<double>::quiet_NaN());
    if (input.spec.trajectories) {
      r.has_trajectory = true;
      r.trajectory = std::move(res);
    }
  } catch (const std::exception& e) {
    r.status = RunStatus::error;
    r.message = e.what();
    r.metrics.assign(metrics.size(), std::numeric_limits<double>::quiet_NaN());
  }
  r.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

io::SweepLayout SweepPlan::layout() const {
  io::SweepLayout l;
  l.model_path = input.model_path;
  l.model_text = input.model_text;
  l.description = description;
  l.fingerprint = fingerprint;
  l.inputs = inputs;
  l.parameters = input.spec.parameters;
  l.table = table;
  l.metrics = metrics;
  l.trajectories = input.spec.trajectories;
  return l;
}

SweepPlan make_plan(io::SweepInput input, std::vector<io::FieldOverride> fixed) {
  SweepPlan p;
  p.input = std::move(input);
  p.fixed = std::move(fixed);
  if (p.input.spec.parameters.empty())
    throw ModelError("sweep.parameters",
                     "the sweep has no parameters (add a sweep: parameters: section or --set PATH=VALUES)",
                     p.input.spec.where);
  p.table = expand(p.input.spec);
  // Every run's model first: a bad path or value stops here, before any run.
  for (std::size_t i = 0; i < p.table.size(); ++i) {
    const Model m = build(p, i, p.files);  // reads each table file once, for every run
    if (i == 0) p.metrics = p.input.spec.metrics.empty() ? default_metrics(m) : p.input.spec.metrics;
    for (const MetricSpec& metric : p.metrics) {
      try {
        check_metric(metric, m);
      } catch (const ModelError& e) {
        if (i == 0) throw;  // wrong for every run: no need to name one
        throw ModelError(e.field(), e.detail() + " [" + run_label(p, i) + "]", e.where());
      }
    }
  }
  p.description = describe(p);
  // The model's text, not its path: the same sweep resumed from another directory is the same sweep.
  std::string key = p.input.model_text + "\n\x1f" + p.description.substr(p.description.find('\n') + 1);
  for (const auto& row : p.table.values)
    for (const std::string& v : row) key += v + "\x1f";
  // The table files by their path from the model's folder (the same from any directory).
  for (const auto& [path, text] : p.files) {
    std::string rel = std::filesystem::path(path).lexically_relative(p.input.model_dir).generic_string();
    if (rel.empty()) rel = path;
    p.inputs.push_back({rel, fnv1a(text)});
    key += "\x1e" + rel + "\x1f" + p.inputs.back().digest;
  }
  p.fingerprint = fnv1a(key);
  return p;
}

}  // namespace luztar::app
