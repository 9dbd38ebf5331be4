// Reader of sweep descriptions (schema in io/yaml_sweep.hpp).
#include "io/yaml_sweep.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "core/model_spec.hpp"
#include "core/units.hpp"
#include "io/text_file.hpp"
#include "io/yaml_source.hpp"

namespace luztar::io {

namespace {

class SweepReader {
 public:
  explicit SweepReader(std::string origin) : origin_(std::move(origin)) {}

  std::string where(const YAML::Node& n) const { return location(origin_, n.Mark()); }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& detail) const {
    throw ModelError(field, detail, where(n));
  }
  void only_keys(const YAML::Node& map, const std::string& field, std::initializer_list<const char*> allowed) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping of keys to values");
    for_each_entry(map, field, origin_, [&](const std::string& key, const YAML::Node& k, const YAML::Node&) {
      bool ok = false;
      std::string list;
      for (const char* a : allowed) {
        ok = ok || key == a;
        list += std::string(list.empty() ? "" : ", ") + a;
      }
      if (!ok)
        fail(k, field.empty() ? key : field + "." + key, "unknown key '" + key + "' (expected one of: " + list + ")");
    });
  }
  // A number; with `dim` (a swept field's dimension) optionally with a unit, in SI.
  double number(const YAML::Node& n, const std::string& field, Dimension dim = Dimension::plain) const {
    double v = 0.0;
    std::string error;
    if (!n.IsScalar() || (!YAML::convert<double>::decode(n, v) && !to_si(n.Scalar(), dim, v, error)))
      fail(n, field, "expected a number, got " + (n.IsScalar() ? "'" + n.Scalar() + "'" : std::string("a structure")));
    if (!error.empty()) fail(n, field, error);
    if (std::isnan(v)) fail(n, field, "expected a number, got NaN");
    return v;
  }
  long whole(const YAML::Node& n, const std::string& field) const {
    long v = 0;
    if (!n.IsScalar() || !YAML::convert<long>::decode(n, v))
      fail(n, field, "expected a whole number, got " + (n.IsScalar() ? "'" + n.Scalar() + "'" : std::string("a structure")));
    return v;
  }
  std::string text(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "expected a text value");
    return n.Scalar();
  }
  bool log_scale(const YAML::Node& map, const std::string& field) const {
    const YAML::Node s = map["scale"];
    if (!s) return false;
    const std::string v = text(s, field + ".scale");
    if (v != "linear" && v != "log") fail(s, field + ".scale", "expected 'linear' or 'log', got '" + v + "'");
    return v == "log";
  }

  SweepParameter parameter(const std::string& path, const YAML::Node& n) const {
    const std::string field = "sweep.parameters." + path;
    SweepParameter p;
    p.path = path;
    p.where = where(n);
    if (n.IsScalar()) {
      p.values = {n.Scalar()};
    } else if (n.IsSequence()) {
      for (std::size_t i = 0; i < n.size(); ++i) {
        if (!n[i].IsScalar()) fail(n[i], field + "[" + std::to_string(i) + "]", "expected a single value");
        p.values.push_back(n[i].Scalar());
      }
      if (p.values.empty()) fail(n, field, "the list of values is empty");
    } else if (n.IsMap() && (n["uniform"] || n["latin_hypercube"])) {
      only_keys(n, field, {"uniform", "latin_hypercube", "scale"});
      const bool lhs = static_cast<bool>(n["latin_hypercube"]);
      if (lhs && n["uniform"]) fail(n, field, "give either 'uniform' or 'latin_hypercube', not both");
      const YAML::Node b = lhs ? n["latin_hypercube"] : n["uniform"];
      const std::string bf = field + (lhs ? ".latin_hypercube" : ".uniform");
      if (!b.IsSequence() || b.size() != 2) fail(b, bf, "expected the bounds [low, high]");
      p.kind = lhs ? SweepParameter::Kind::latin_hypercube : SweepParameter::Kind::uniform;
      p.from = number(b[0], bf, field_dimension(path));
      p.to = number(b[1], bf, field_dimension(path));
      p.log = log_scale(n, field);
    } else if (n.IsMap()) {
      only_keys(n, field, {"from", "to", "count", "scale"});
      for (const char* k : {"from", "to", "count"})
        if (!n[k]) fail(n, field, std::string("missing field '") + k + "' (a range is {from, to, count[, scale: log]})");
      p.kind = SweepParameter::Kind::range;
      p.from = number(n["from"], field + ".from", field_dimension(path));
      p.to = number(n["to"], field + ".to", field_dimension(path));
      p.count = whole(n["count"], field + ".count");
      p.log = log_scale(n, field);
    } else {
      fail(n, field, "expected a value, a list, a range {from, to, count} or a sampling {uniform|latin_hypercube: [a, b]}");
    }
    return p;
  }

  // A metric's name is declared here: checked as every name (name_problem).
  void check_name(const std::string& name, const YAML::Node& at) const {
    if (const std::string problem = name_problem(name, false); !problem.empty())
      fail(at, "sweep.metrics." + name, problem);
  }

  MetricSpec metric(const std::string& name, const YAML::Node& n) const {
    const std::string field = "sweep.metrics." + name;
    if (!n.IsMap()) fail(n, field, "expected a mapping such as {rms: bodies.psi.velocity, window: [1, 10]}");
    MetricSpec m;
    m.name = name;
    m.where = where(n);
    static const std::pair<const char*, MetricSpec::Kind> kinds[] = {
        {"max", MetricSpec::Kind::max},          {"min", MetricSpec::Kind::min},
        {"mean", MetricSpec::Kind::mean},        {"rms", MetricSpec::Kind::rms},
        {"peak_to_peak", MetricSpec::Kind::peak_to_peak}, {"final", MetricSpec::Kind::final_value},
        {"time_stuck", MetricSpec::Kind::time_stuck}, {"events", MetricSpec::Kind::events},
        {"energy", MetricSpec::Kind::energy},    {"hysteresis", MetricSpec::Kind::hysteresis},
        {"lock_up_time", MetricSpec::Kind::lock_up_time}, {"time_in_state", MetricSpec::Kind::time_in_state},
        {"overrun_time", MetricSpec::Kind::overrun_time}, {"tooth_impacts", MetricSpec::Kind::tooth_impacts},
        {"peak_abs", MetricSpec::Kind::peak_abs}};
    int found = 0;
    std::string list;
    for (const auto& [key, kind] : kinds) {
      list += std::string(list.empty() ? "" : ", ") + key;
      if (!n[key]) continue;
      ++found;
      m.kind = kind;
      const std::string arg = text(n[key], field + "." + key);
      using K = MetricSpec::Kind;
      const bool of_element = kind == K::time_stuck || kind == K::lock_up_time || kind == K::time_in_state ||
                              kind == K::overrun_time || kind == K::tooth_impacts;
      if (of_element) m.element = arg;
      else if (kind == MetricSpec::Kind::events) m.event_kind = arg == "all" ? "" : arg;
      else m.signal = arg;
    }
    if (found != 1) fail(n, field, "give exactly one of: " + list);
    using K = MetricSpec::Kind;
    if (m.kind == K::events) only_keys(n, field, {"events", "element", "window"});
    else if (m.kind == K::hysteresis) only_keys(n, field, {"hysteresis", "against", "at", "window"});
    else if (m.kind == K::time_in_state) only_keys(n, field, {"time_in_state", "state", "window"});
    else if (m.kind == K::tooth_impacts) only_keys(n, field, {"tooth_impacts", "min_speed", "window"});
    else only_keys(n, field, {to_string(m.kind), "window"});
    if (m.kind == K::time_in_state) {
      if (!n["state"]) fail(n, field, "missing field 'state' (the state code, e.g. 0 stuck, 1 slipping forward)");
      const long code = whole(n["state"], field + ".state");
      if (code < -128 || code > 127) fail(n["state"], field + ".state", "must be a state code in [-128, 127]");
      m.state = static_cast<int>(code);
    }
    if (m.kind == K::tooth_impacts && n["min_speed"]) m.min_speed = number(n["min_speed"], field + ".min_speed");
    if (n["element"]) m.element = text(n["element"], field + ".element");
    if (m.kind == K::hysteresis) {
      if (!n["against"]) fail(n, field, "missing field 'against' (the signal the loop is drawn against)");
      m.against = text(n["against"], field + ".against");
      if (n["at"]) m.level = number(n["at"], field + ".at");
    }
    if (const YAML::Node w = n["window"]) {
      if (!w.IsSequence() || w.size() != 2) fail(w, field + ".window", "expected [t0, t1] in seconds");
      m.t0 = number(w[0], field + ".window");
      m.t1 = number(w[1], field + ".window");
      if (!(m.t0 < m.t1)) fail(w, field + ".window", "the window is empty (t0 must be < t1)");
    }
    return m;
  }

  void sweep(const YAML::Node& n, SweepSpec& s) const {
    only_keys(n, "sweep", {"combine", "samples", "seed", "trajectories", "parameters", "metrics"});
    s.where = where(n);
    if (const YAML::Node c = n["combine"]) {
      const std::string v = text(c, "sweep.combine");
      if (v != "grid" && v != "zip") fail(c, "sweep.combine", "expected 'grid' or 'zip', got '" + v + "'");
      s.zip = v == "zip";
    }
    if (n["samples"]) {
      s.samples = whole(n["samples"], "sweep.samples");
      if (s.samples < 1 || s.samples > kMaxSweepRuns)
        fail(n["samples"], "sweep.samples", "must be a whole number in [1, " + std::to_string(kMaxSweepRuns) +
                                                "] (got " + std::to_string(s.samples) + ")");
    }
    if (n["seed"]) {
      const long seed = whole(n["seed"], "sweep.seed");
      if (seed < 0) fail(n["seed"], "sweep.seed", "must be >= 0");
      s.seed = static_cast<std::uint64_t>(seed);
    }
    if (const YAML::Node t = n["trajectories"]) {
      bool v = false;
      if (!t.IsScalar() || !YAML::convert<bool>::decode(t, v)) fail(t, "sweep.trajectories", "expected true or false");
      s.trajectories = v;
    }
    if (const YAML::Node ps = n["parameters"]) {
      if (!ps.IsMap()) fail(ps, "sweep.parameters", "expected a mapping of model paths to values");
      for_each_entry(ps, "sweep.parameters", origin_,
                     [&](const std::string& path, const YAML::Node&, const YAML::Node& v) {
        s.parameters.push_back(parameter(path, v));
      });
    }
    if (const YAML::Node ms = n["metrics"]) {
      if (!ms.IsMap()) fail(ms, "sweep.metrics", "expected a mapping of names to metrics");
      for_each_entry(ms, "sweep.metrics", origin_, Names{true},
                     [&](const std::string& name, const YAML::Node& k, const YAML::Node& v) {
        check_name(name, k);
        s.metrics.push_back(metric(name, v));
      });
    }
  }

 private:
  std::string origin_;
};

std::pair<std::string, std::string> split_assignment(const std::string& s, const std::string& option,
                                                     const char* form) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw ModelError("", "expected " + std::string(form) + ", got '" + s + "'", option);
  return {s.substr(0, eq), s.substr(eq + 1)};
}

bool parse_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return *end == '\0' && errno == 0 && !std::isnan(v);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto k = s.find(sep, start);
    out.push_back(s.substr(start, k - start));
    if (k == std::string::npos) return out;
    start = k + 1;
  }
}

// The short command-line forms; anything else is read as YAML.
bool shorthand(const std::string& path, const std::string& rhs, const std::string& where, SweepParameter& p) {
  auto bad = [&](const std::string& detail) { throw ModelError("sweep.parameters." + path, detail, where); };
  p.path = path;
  p.where = where;
  // A bound: a number, or a number with a unit of the field's dimension ("0.5deg"), in SI.
  auto bound = [&](const std::string& text, double& v) {
    if (parse_double(text, v)) return true;
    std::string error;
    if (!to_si(text, field_dimension(path), v, error)) return false;
    if (!error.empty()) bad(error + ", in '" + rhs + "'");
    return true;
  };
  if (rhs.find(':') != std::string::npos && rhs.front() != '{' && rhs.front() != '[') {
    std::vector<std::string> f = split(rhs, ':');
    const bool sampled = f[0] == "uniform" || f[0] == "lhs" || f[0] == "latin_hypercube";
    if (sampled) f.erase(f.begin());
    if (!f.empty() && f.back() == "log") {
      p.log = true;
      f.pop_back();
    }
    if (sampled) {
      if (f.size() != 2 || !bound(f[0], p.from) || !bound(f[1], p.to))
        bad("expected uniform:LOW:HIGH[:log] or lhs:LOW:HIGH[:log], got '" + rhs + "'");
      p.kind = rhs.rfind("uniform", 0) == 0 ? SweepParameter::Kind::uniform : SweepParameter::Kind::latin_hypercube;
      return true;
    }
    double count = 0.0;
    if (f.size() != 3 || !bound(f[0], p.from) || !bound(f[1], p.to) || !parse_double(f[2], count) ||
        count != std::floor(count))
      bad("expected FROM:TO:COUNT[:log], got '" + rhs + "'");
    if (std::abs(count) > static_cast<double>(kMaxSweepRuns))  // before the conversion, which could overflow
      bad("COUNT must be a whole number in [1, " + std::to_string(kMaxSweepRuns) + "], got '" + f[2] + "'");
    p.kind = SweepParameter::Kind::range;
    p.count = static_cast<long>(count);
    return true;
  }
  if (rhs.front() != '{' && rhs.front() != '[') {
    p.values = split(rhs, ',');
    for (const std::string& v : p.values)
      if (v.empty()) bad("empty value in the list '" + rhs + "'");
    return true;
  }
  return false;
}

SweepInput read_sweep(const std::string& path, const std::string& text, const std::string& dir, const YAML::Node& root) {
  SweepReader reader(path);
  if (!root.IsMap()) reader.fail(root, "", "expected a model file or a sweep file (a mapping)");
  SweepInput in;
  if (root["bodies"]) {  // a model file, maybe with a sweep section
    in.model_path = path;
    in.model_text = text;
    in.model_dir = dir;
  } else {
    reader.only_keys(root, "", {"model", "sweep"});
    if (!root["model"]) reader.fail(root, "model", "missing field 'model' (the model file to sweep)");
    std::filesystem::path mp(reader.text(root["model"], "model"));
    if (mp.is_relative()) mp = std::filesystem::path(dir) / mp;
    in.model_path = mp.lexically_normal().string();
    try {
      in.model_text = read_text_file(in.model_path, "model file");
    } catch (const ModelError& e) {
      reader.fail(root["model"], "model", e.what());
    }
    in.model_dir = mp.has_parent_path() ? mp.parent_path().string() : std::string(".");
  }
  if (const YAML::Node s = root["sweep"]) reader.sweep(s, in.spec);
  if (in.spec.where.empty()) in.spec.where = path;
  return in;
}

}  // namespace

SweepInput load_sweep(const std::string& path) {
  const std::filesystem::path p(path);
  return parse_sweep(read_text_file(path, "sweep or model file"), path,
                     p.has_parent_path() ? p.parent_path().string() : std::string("."));
}

SweepInput parse_sweep(const std::string& text, const std::string& path, const std::string& dir) {
  const YAML::Node root = parse_yaml(text, path, "sweep or model file");
  return yaml_guard(path, [&] { return read_sweep(path, text, dir, root); });
}

void add_parameter_option(SweepSpec& spec, const std::string& assignment) {
  const auto [path, rhs] = split_assignment(assignment, "--set " + assignment, "PATH=VALUES");
  const std::string where = "--set " + assignment;
  SweepParameter p;
  if (!shorthand(path, rhs, where, p)) p = SweepReader(where).parameter(path, parse_yaml(rhs, where, "value"));
  for (SweepParameter& q : spec.parameters)
    if (q.path == path) {
      q = p;
      return;
    }
  spec.parameters.push_back(p);
}

FieldOverride set_option(const std::string& assignment) {
  const std::string where = "--set " + assignment;
  const auto [path, value] = split_assignment(assignment, where, "PATH=VALUE");
  return {path, value, where};
}

void add_metric_option(SweepSpec& spec, const std::string& assignment) {
  const auto [name, rhs] = split_assignment(assignment, "--metric " + assignment, "NAME=SPEC");
  const std::string where = "--metric " + assignment;
  const SweepReader reader(where);
  YAML::Node spec_node;
  try {
    spec_node = parse_yaml(rhs, where, "value");
  } catch (const ModelError& e) {
    // 'c=events: contact, element: mesh' is no YAML: say how it is written
    if (rhs.empty() || rhs.front() == '{' || rhs.find(':') == std::string::npos) throw;
    throw ModelError(e.field(), e.detail() + " (a SPEC of several keys is a mapping in braces: --metric '" + name +
                                    "={" + rhs + "}')", e.where());
  }
  reader.check_name(name, spec_node);
  const MetricSpec m = reader.metric(name, spec_node);
  for (MetricSpec& q : spec.metrics)
    if (q.name == name) {
      q = m;
      return;
    }
  spec.metrics.push_back(m);
}

}  // namespace luztar::io
