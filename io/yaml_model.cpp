// Strict reader of the model schema: unknown keys, missing fields, wrong types
// and broken rules are reported with file:line:col and the field's dotted path.
// Here: the file's sections (simulation, signals, bodies, elements) and the
// public entries with their overrides; the reader's parts are listed in
// io/yaml_reader.hpp, the override paths in io/yaml_paths.hpp.
#include "io/yaml_model.hpp"

#include <filesystem>
#include <set>

#include "core/errors.hpp"
#include "core/reduce.hpp"
#include "io/text_file.hpp"
#include "io/yaml_paths.hpp"
#include "io/yaml_reader.hpp"
#include "io/yaml_source.hpp"

namespace luztar::io {

namespace model_file {

void Reader::simulation(const YAML::Node& n, SimulationSettings& s) {
  const std::string f = "simulation";
  remember(f, n);
  require_map(n, f);
  check_keys(n, f, {"t_start", "t_end", "output_step", "rtol", "atol", "max_step", "max_events", "event_storm",
                    "rest_velocity", "linear_solver", "integrator", "solver", "step", "theta"});
  s.t_start = number_or(n, "t_start", f, s.t_start);
  s.t_end = number(required(n, "t_end", f), f + ".t_end");
  s.output_step = number(required(n, "output_step", f), f + ".output_step");
  s.rtol = number_or(n, "rtol", f, s.rtol);
  s.atol = number_or(n, "atol", f, s.atol);
  s.max_step = number_or(n, "max_step", f, s.max_step);
  if (n["max_events"]) s.max_events = integer(n["max_events"], f + ".max_events");
  if (const YAML::Node st = n["event_storm"]) {
    const std::string sf = f + ".event_storm";
    require_map(st, sf);
    check_keys(st, sf, {"events", "span"});
    if (st["events"]) s.storm_events = integer(st["events"], sf + ".events");
    s.storm_span = number_or(st, "span", sf, s.storm_span);
  }
  s.rest_velocity = number_or(n, "rest_velocity", f, s.rest_velocity);
  if (n["linear_solver"]) s.linear_solver = text(n["linear_solver"], f + ".linear_solver");
  if (n["integrator"]) s.integrator = text(n["integrator"], f + ".integrator");
  if (n["solver"]) s.solver = text(n["solver"], f + ".solver");
  s.step = number_or(n, "step", f, s.step);
  s.theta = number_or(n, "theta", f, s.theta);
}

// Iterates a name -> entry mapping, checking each name where it is
// declared (name_problem; `column`: names that are result columns) and
// rejecting repeated names.
template <class F>
void Reader::named_entries(const YAML::Node& map, const std::string& field, bool column, F&& each) {
  require_map(map, field);
  remember(field, map);
  for_each_entry(map, field, origin_, Names{true},
                 [&](const std::string& name, const YAML::Node& k, const YAML::Node& v) {
    remember(field + "." + name, k);
    if (const std::string problem = name_problem(name, column); !problem.empty())
      fail(k, field + "." + name, problem);
    each(name, v, field + "." + name);
  });
}

// A body: rotational {inertia, angle, velocity} or translational {kind:
// translational, mass, position, velocity} (core/model_spec.hpp BodySpec).
void Reader::body(const std::string& name, const YAML::Node& n, const std::string& f, BodySpec& b) {
  require_map(n, f);
  check_keys(n, f, {"kind", "inertia", "mass", "angle", "position", "velocity", "prescribed"});
  b.name = name;
  if (n["kind"]) b.kind = text(n["kind"], f + ".kind");
  const bool moves = b.kind == "translational";
  if (!moves && b.kind != "rotational")
    fail(n["kind"], f + ".kind", "unknown body kind '" + b.kind + "' (expected one of: rotational, translational)");
  // the other kind's keys
  for (const auto& [key, own] : moves ? std::vector<std::pair<const char*, const char*>>{{"inertia", "mass' [kg]"},
                                                                                         {"angle", "position' [m]"}}
                                      : std::vector<std::pair<const char*, const char*>>{{"mass", "inertia' [kg m^2]"},
                                                                                         {"position", "angle' [rad]"}})
    if (n[key])
      fail(n[key], f + "." + key,
           std::string("a ") + (moves ? "translational" : "rotational") + " body has '" + own + ", not '" + key +
               "'" + (moves ? "" : " (a translational body says 'kind: translational')"));
  if (moves) translational_owner_ = "body '" + name + "' is translational";
  b.inertia = number(required(n, moves ? "mass" : "inertia", f), f + (moves ? ".mass" : ".inertia"));
  b.angle = number_or(n, moves ? "position" : "angle", f, 0.0);
  b.velocity = number_or(n, "velocity", f, 0.0);
  if (n["prescribed"]) prescribed(n["prescribed"], f + ".prescribed", b);
  translational_owner_.clear();
  if (moves) translational_bodies_.insert(name);
}

// A body's prescribed motion: a mapping with one of angle (position),
// velocity, acceleration, whose value is a signal.
void Reader::prescribed(const YAML::Node& n, const std::string& f, BodySpec& b) {
  remember(f, n);
  require_map(n, f);
  const bool moves = b.kind == "translational";
  using D = BodySpec::Drive;
  const D drives[] = {D::angle, D::velocity, D::acceleration};
  check_keys(n, f, {drive_key(D::angle, moves), "velocity", "acceleration"});
  if (n.size() != 1)
    fail(n, f, std::string("give exactly one of ") + drive_key(D::angle, moves) + ", velocity, acceleration (found " +
                   std::to_string(n.size()) + ")");
  for (D d : drives)
    if (const char* key = drive_key(d, moves); n[key]) {
      b.prescribed = d;
      b.motion = signal(n[key], f + "." + key);
    }
}

ModelSpec Reader::model(const YAML::Node& root) {
  require_map(root, "");
  remember("", root);
  // `sweep` belongs to `luztar sweep` (io/yaml_sweep.hpp); a model file may carry one.
  check_keys(root, "", {"name", "description", "simulation", "signals", "bodies", "elements", "sweep"});
  ModelSpec spec;
  if (root["name"]) spec.name = text(root["name"], "name");
  if (root["description"]) spec.description = text(root["description"], "description");
  simulation(required(root, "simulation", "simulation"), spec.simulation);
  if (const YAML::Node sig = root["signals"]) {
    named_entries(sig, "signals", true, [&](const std::string& name, const YAML::Node& n, const std::string& f) {
      spec.signals[name] = signal(n, f);
    });
  }
  std::set<std::string> body_names;
  named_entries(required(root, "bodies", "bodies"), "bodies", false,
                [&](const std::string& name, const YAML::Node& n, const std::string& f) {
                  BodySpec b;
                  body(name, n, f, b);
                  spec.bodies.push_back(b);
                  body_names.insert(name);
                });
  if (const YAML::Node el = root["elements"]) {
    named_entries(el, "elements", false, [&](const std::string& name, const YAML::Node& n, const std::string& f) {
      if (body_names.count(name)) fail(el, f, "the name '" + name + "' is already used by a body");
      spec.elements.push_back(element(name, n, f));
    });
  }
  spec.locations = locations_;
  return spec;
}

}  // namespace model_file

namespace {

using model_file::apply_override;
using model_file::Reader;

// True when `field` is `path` or lies under it (a key or an index below it).
bool within(const std::string& field, const std::string& path) {
  return field == path || (field.size() > path.size() && field.compare(0, path.size(), path) == 0 &&
                           (field[path.size()] == '.' || field[path.size()] == '['));
}

// A model file read (nothing checked beyond its schema) with the fields its
// overrides replaced, as each is written in the file (with the signal kind, if
// one was skipped).
struct Read {
  ModelSpec spec;
  std::vector<std::string> resolved;  // resolved[i]: the path overrides[i] replaced
};

// The reader; `files`: the table files' snapshot, or null.
Read read_model(const std::string& text, const std::string& origin, const std::string& base_dir,
                const std::vector<FieldOverride>& overrides, InputFiles* files);

// Runs `f` (a check of r.spec), reporting a rule that an overridden value breaks
// where the value came from; any other error keeps the location it has.
template <class F>
auto at_overrides(const Read& r, const std::vector<FieldOverride>& overrides, F&& f) {
  try {
    return f();
  } catch (const ModelError& e) {
    for (std::size_t i = 0; i < overrides.size(); ++i)
      if (within(e.field(), r.resolved[i]) || within(r.resolved[i], e.field()))
        throw ModelError(e.field(), e.detail() + " (value " + overrides[i].value + ")", overrides[i].where);
    throw;
  }
}

// Reads and checks every rule of assemble() (core::validate_and_reduce, once).
ModelSpec checked(const std::string& text, const std::string& origin, const std::string& base_dir,
                  const std::vector<FieldOverride>& overrides, InputFiles* files) {
  Read r = read_model(text, origin, base_dir, overrides, files);
  at_overrides(r, overrides, [&] { return validate_and_reduce(r.spec); });
  return std::move(r.spec);
}

Model assembled(const std::string& text, const std::string& origin, const std::string& base_dir,
                const std::vector<FieldOverride>& overrides, InputFiles* files) {
  const Read r = read_model(text, origin, base_dir, overrides, files);
  return at_overrides(r, overrides, [&] { return assemble(r.spec); });
}

std::string base_dir_of(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}
}  // namespace

ModelSpec parse_model_spec(const std::string& text, const std::string& origin, const std::string& base_dir) {
  return parse_model_spec(text, origin, base_dir, {});
}

ModelSpec parse_model_spec(const std::string& text, const std::string& origin, const std::string& base_dir,
                           const std::vector<FieldOverride>& overrides) {
  return checked(text, origin, base_dir, overrides, nullptr);
}

ModelSpec parse_model_spec(const std::string& text, const std::string& origin, const std::string& base_dir,
                           const std::vector<FieldOverride>& overrides, InputFiles& files) {
  return checked(text, origin, base_dir, overrides, &files);
}

Model parse_model(const std::string& text, const std::string& origin, const std::string& base_dir,
                  const std::vector<FieldOverride>& overrides) {
  return assembled(text, origin, base_dir, overrides, nullptr);
}

Model parse_model(const std::string& text, const std::string& origin, const std::string& base_dir,
                  const std::vector<FieldOverride>& overrides, InputFiles& files) {
  return assembled(text, origin, base_dir, overrides, &files);
}

namespace {

Read read_model(const std::string& text, const std::string& origin, const std::string& base_dir,
                const std::vector<FieldOverride>& overrides, InputFiles* files) {
  Reader reader(origin, base_dir, files);
  const YAML::Node root = parse_yaml(text, origin, "model file");
  Read r;
  for (const FieldOverride& o : overrides) {
    if (!root.IsMap()) throw ModelError("", "the model file is not a mapping", location(origin, root.Mark()));
    r.resolved.push_back(yaml_guard(origin, [&] { return apply_override(root, o); }));
  }
  // A schema error in an overridden value is reported where the value came from.
  r.spec = at_overrides(r, overrides, [&] { return yaml_guard(origin, [&] { return reader.model(root); }); });
  r.spec.source_text = text;
  r.spec.source_path = origin;
  return r;
}

}  // namespace

ModelSpec read_model_spec(const std::string& path) {
  return read_model(read_text_file(path, "model file"), path, base_dir_of(path), {}, nullptr).spec;
}

ModelSpec load_model_spec(const std::string& path) {
  return parse_model_spec(read_text_file(path, "model file"), path, base_dir_of(path));
}

ModelSpec load_model_spec(const std::string& path, const std::vector<FieldOverride>& overrides) {
  return parse_model_spec(read_text_file(path, "model file"), path, base_dir_of(path), overrides);
}

ModelSpec read_model_spec(const std::string& path, InputFiles& files) {
  return read_model(read_text_file(path, "model file"), path, base_dir_of(path), {}, &files).spec;
}

ModelSpec load_model_spec(const std::string& path, const std::vector<FieldOverride>& overrides, InputFiles& files) {
  return parse_model_spec(read_text_file(path, "model file"), path, base_dir_of(path), overrides, files);
}

Model load_model(const std::string& path) { return assemble(read_model_spec(path)); }

Model load_model(const std::string& path, const std::vector<FieldOverride>& overrides) {
  return assembled(read_text_file(path, "model file"), path, base_dir_of(path), overrides, nullptr);
}

}  // namespace luztar::io
