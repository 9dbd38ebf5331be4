// Strict reader of the model schema: unknown keys, missing fields, wrong types
// and broken rules are reported with file:line:col and the field's dotted path.
#include "io/yaml_model.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "core/reduce.hpp"
#include "core/units.hpp"
#include "io/csv_table.hpp"
#include "io/text_file.hpp"
#include "io/yaml_source.hpp"

namespace luztar::io {

namespace {

constexpr const char* kSignalKinds =
    "constant, sine, step, ramp, table, sum, product, input, dead_zone, saturation, hold, play, "
    "saturated_integrator, relay, angle, velocity";

class Reader {
 public:
  Reader(std::string origin, std::string base_dir, InputFiles* files)
      : origin_(std::move(origin)), base_dir_(std::move(base_dir)), files_(files) {}

  std::string where(const YAML::Mark& m) const { return location(origin_, m); }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& detail) const {
    throw ModelError(field, detail, where(n.Mark()));
  }
  // Records where a field was written, for rule errors found after parsing
  // (ModelSpec::locations, looked up by where(spec, field)).
  void remember(const std::string& field, const YAML::Node& n) { locations_[field] = where(n.Mark()); }

  const YAML::Node& require_map(const YAML::Node& n, const std::string& field) const {
    if (!n.IsMap()) fail(n, field, std::string("expected a mapping of keys to values, got ") + kind(n));
    return n;
  }
  void check_keys(const YAML::Node& map, const std::string& field, const std::vector<const char*>& allowed) const {
    for_each_entry(map, field, origin_, [&](const std::string& key, const YAML::Node& k, const YAML::Node&) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || key == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
        fail(k, field.empty() ? key : field + "." + key, "unknown key '" + key + "' (expected one of: " + list + ")");
      }
    });
  }
  YAML::Node required(const YAML::Node& map, const char* key, const std::string& field) const {
    const YAML::Node n = map[key];
    if (!n) fail(map, field, std::string("missing field '") + key + "'");
    return n;
  }
  // A number, optionally with a unit of the field's dimension (core/units.hpp), in SI.
  double number(const YAML::Node& n, const std::string& field) { return number(n, field, field_dimension(field)); }
  double number(const YAML::Node& n, const std::string& field, Dimension dim) {
    remember(field, n);
    if (!n.IsScalar()) fail(n, field, std::string("expected a number, got ") + kind(n));
    double v = 0.0;
    if (YAML::convert<double>::decode(n, v)) return v;
    std::string error;
    if (!to_si(n.Scalar(), dim, v, error)) fail(n, field, "expected a number, got '" + n.Scalar() + "'");
    if (!error.empty()) fail(n, field, error);
    return v;
  }
  double number_or(const YAML::Node& map, const char* key, const std::string& parent, double fallback) {
    const YAML::Node n = map[key];
    return n ? number(n, parent + "." + key) : fallback;
  }
  long integer(const YAML::Node& n, const std::string& field) {
    remember(field, n);
    try {
      if (n.IsScalar()) return n.as<long>();
    } catch (const YAML::Exception&) {
    }
    fail(n, field, "expected a whole number, got " + (n.IsScalar() ? "'" + n.Scalar() + "'" : std::string(kind(n))));
  }
  std::string text(const YAML::Node& n, const std::string& field) {
    remember(field, n);
    if (!n.IsScalar()) fail(n, field, std::string("expected a text value, got ") + kind(n));
    return n.Scalar();
  }
  static const char* kind(const YAML::Node& n) {
    if (n.IsMap()) return "a mapping";
    if (n.IsSequence()) return "a list";
    if (n.IsNull()) return "nothing (null)";
    return "a scalar";
  }

  Signal signal(const YAML::Node& n, const std::string& field) {
    remember(field, n);
    if (n.IsScalar()) {
      double v = 0.0;
      if (YAML::convert<double>::decode(n, v)) return Signal::make_constant(v);
      // A number with a unit ("5 N m", "5Nm"), else a signal's name ("2nd_drive":
      // a name may begin with a digit; a space after the number says it is a quantity).
      std::string error;
      if (to_si(n.Scalar(), field_dimension(field), v, error)) {
        if (error.empty()) return Signal::make_constant(v);
        if (n.Scalar().find_first_of(" \t") != std::string::npos) fail(n, field, error);
      }
      Signal s;
      s.kind = Signal::Kind::reference;
      s.reference = n.Scalar();
      return s;
    }
    if (!n.IsMap() || n.size() != 1)
      fail(n, field,
           std::string("expected a number, a signal name, or a mapping with one of: ") + kSignalKinds);
    const std::string key = key_of(n.begin()->first, field, origin_);
    const YAML::Node body = n.begin()->second;
    const std::string f = field + "." + key;
    remember(f, body);
    Signal s;
    if (key == "constant") {
      s.value = number(body, f);
    } else if (key == "sine") {
      require_map(body, f);
      check_keys(body, f, {"amplitude", "frequency", "phase", "offset"});
      s.kind = Signal::Kind::sine;
      s.amplitude = number(required(body, "amplitude", f), f + ".amplitude");
      s.frequency = number(required(body, "frequency", f), f + ".frequency");
      s.phase = number_or(body, "phase", f, 0.0);
      s.offset = number_or(body, "offset", f, 0.0);
    } else if (key == "step") {
      require_map(body, f);
      check_keys(body, f, {"time", "initial", "final"});
      s.kind = Signal::Kind::step;
      s.time = number(required(body, "time", f), f + ".time");
      s.initial = number_or(body, "initial", f, 0.0);
      s.final_value = number(required(body, "final", f), f + ".final");
    } else if (key == "ramp") {
      require_map(body, f);
      check_keys(body, f, {"start", "end", "initial", "final"});
      s.kind = Signal::Kind::ramp;
      s.start = number(required(body, "start", f), f + ".start");
      s.end = number(required(body, "end", f), f + ".end");
      s.initial = number_or(body, "initial", f, 0.0);
      s.final_value = number(required(body, "final", f), f + ".final");
    } else if (key == "table") {
      require_map(body, f);
      check_keys(body, f, {"file", "points"});
      s.kind = Signal::Kind::table;
      if (body["file"] && body["points"]) fail(body, f, "give either 'file' or 'points', not both");
      if (body["file"]) {
        const YAML::Node fn = body["file"];
        s.table_file = model_relative(text(fn, f + ".file"));
        try {
          Table t = table(s.table_file);
          s.table_t = std::move(t.t);
          s.table_v = std::move(t.v);
        } catch (const std::runtime_error& e) {
          fail(fn, f + ".file", e.what());
        }
      } else if (body["points"]) {
        const YAML::Node pts = body["points"];
        point_pairs(pts, f + ".points", "[time, value]", Dimension::time, field_dimension(f + ".points"), s.table_t,
                    s.table_v, [&](std::size_t i, const std::string& pf) {
                      if (i > 0 && !(s.table_t[i] > s.table_t[i - 1])) fail(pts[i], pf, "times must increase strictly");
                    });
      } else {
        fail(body, f, "missing field 'file' (or 'points')");
      }
    } else if (key == "input") {
      s.kind = Signal::Kind::input;
      if (body.IsMap()) {
        check_keys(body, f, {"initial", "lower", "upper"});
        s.value = number_or(body, "initial", f, 0.0);
        s.lower = number_or(body, "lower", f, s.lower);
        s.upper = number_or(body, "upper", f, s.upper);
      } else {
        s.value = number(body, f);
      }
    } else if (key == "sum" || key == "product") {
      s.kind = key == "sum" ? Signal::Kind::sum : Signal::Kind::product;
      if (!body.IsSequence()) fail(body, f, "expected a list of signals");
      for (std::size_t i = 0; i < body.size(); ++i) s.terms.push_back(signal(body[i], f + "[" + std::to_string(i) + "]"));
    } else if (key == "dead_zone" || key == "saturation") {
      require_map(body, f);
      check_keys(body, f, {"of", "lower", "upper"});
      s.kind = key == "dead_zone" ? Signal::Kind::dead_zone : Signal::Kind::saturation;
      s.terms.push_back(signal(required(body, "of", f), f + ".of"));
      s.lower = number(required(body, "lower", f), f + ".lower");
      s.upper = number(required(body, "upper", f), f + ".upper");
    } else if (key == "hold") {
      require_map(body, f);
      check_keys(body, f, {"of", "period"});
      s.kind = Signal::Kind::hold;
      sampled_block(body, f, s);
    } else if (key == "play") {
      require_map(body, f);
      check_keys(body, f, {"of", "width", "period", "initial"});
      s.kind = Signal::Kind::play;
      s.width = number(required(body, "width", f), f + ".width");
      s.initial = number_or(body, "initial", f, 0.0);
      sampled_block(body, f, s);
    } else if (key == "saturated_integrator") {
      require_map(body, f);
      check_keys(body, f, {"of", "lower", "upper", "period", "initial"});
      s.kind = Signal::Kind::saturated_integrator;
      s.lower = number(required(body, "lower", f), f + ".lower");
      s.upper = number(required(body, "upper", f), f + ".upper");
      s.initial = number_or(body, "initial", f, 0.0);
      sampled_block(body, f, s);
    } else if (key == "relay") {
      require_map(body, f);
      check_keys(body, f, {"of", "threshold", "value", "period", "initial"});
      s.kind = Signal::Kind::relay;
      s.threshold = number(required(body, "threshold", f), f + ".threshold");
      s.value = number(required(body, "value", f), f + ".value");
      s.initial = number_or(body, "initial", f, 1.0);
      sampled_block(body, f, s);
    } else if (key == "angle" || key == "velocity") {
      s.kind = key == "angle" ? Signal::Kind::angle : Signal::Kind::velocity;
      s.reference = text(body, f);
    } else {
      fail(n.begin()->first, f, "unknown signal kind '" + key + "' (expected one of: " + kSignalKinds + ")");
    }
    return s;
  }

  // A table file, from the snapshot when it holds it, else from disk (kept in
  // the snapshot); `first`: what its first column holds ("time", "speed").
  Table table(const std::string& path, const char* first = "time") {
    if (!files_) return read_csv_table(path, first);
    auto it = files_->find(path);
    if (it == files_->end()) it = files_->emplace(path, read_table_file(path)).first;
    return parse_csv_table(it->second, path, first);
  }

  // A file named in the model: relative to the model's folder.
  std::string model_relative(const std::string& name) const {
    std::filesystem::path p(name);
    if (p.is_relative() && !base_dir_.empty()) p = std::filesystem::path(base_dir_) / p;
    return p.string();
  }

  // A speed table: {points: [[speed, value], ...]} (speeds in `speed_dim`,
  // values in `value_dim`, each may carry a unit) or {file: a.csv} (two columns
  // in SI, speed and value). Its rules (first speed 0, increasing, ...) are
  // validate()'s, so that a description built in code meets them too.
  SpeedTable speed_table(const YAML::Node& body, const std::string& f, Dimension speed_dim, Dimension value_dim) {
    remember(f, body);
    require_map(body, f);
    check_keys(body, f, {"file", "points"});
    if (body["file"] && body["points"]) fail(body, f, "give either 'file' or 'points', not both");
    SpeedTable out;
    if (const YAML::Node fn = body["file"]) {
      try {
        Table t = table(model_relative(text(fn, f + ".file")), "speed");
        out.speed = std::move(t.t);
        out.value = std::move(t.v);
      } catch (const std::runtime_error& e) {
        fail(fn, f + ".file", e.what());
      }
      return out;
    }
    const YAML::Node pts = body["points"];
    if (!pts) fail(body, f, "missing field 'points' (or 'file')");
    if (!pts.IsSequence() || pts.size() == 0)
      fail(pts, f + ".points", "expected a list of [speed, value] pairs, e.g. [[0, 1.2], [0.5 rad/s, 0.8]]");
    point_pairs(pts, f + ".points", "[speed, value]", speed_dim, value_dim, out.speed, out.value,
                [](std::size_t, const std::string&) {});
    return out;
  }

  // The input and the sample period of a sampled block.
  void sampled_block(const YAML::Node& body, const std::string& f, Signal& s) {
    s.terms.push_back(signal(required(body, "of", f), f + ".of"));
    s.period = number(required(body, "period", f), f + ".period");
  }

  // A list of pairs `[x, y]` at `f` (f[i] each) into x and y, x of dimension
  // dx, y of dy; each(i, field) is called after pair i is read.
  template <class Each>
  void point_pairs(const YAML::Node& pts, const std::string& f, const char* pair, Dimension dx, Dimension dy,
                   std::vector<double>& x, std::vector<double>& y, Each&& each) {
    remember(f, pts);
    if (!pts.IsSequence()) fail(pts, f, std::string("expected a list of ") + pair + " pairs");
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const std::string pf = f + "[" + std::to_string(i) + "]";
      if (!pts[i].IsSequence() || pts[i].size() != 2) fail(pts[i], pf, std::string("expected a ") + pair + " pair");
      x.push_back(number(pts[i][0], pf, dx));
      y.push_back(number(pts[i][1], pf, dy));
      each(i, pf);
    }
  }

  // `key: a` or `key: {lower, upper}` (FieldType::bounds).
  template <class S>
  void bounds(const YAML::Node& n, const std::string& at, const SpecField<S>& f, S& s) {
    if (n.IsMap()) {
      remember(at, n);
      check_keys(n, at, {"lower", "upper"});
      s.*f.lower = number(required(n, "lower", at), at + ".lower", f.dimension);
      s.*f.upper = number(required(n, "upper", at), at + ".upper", f.dimension);
      s.*f.bounds = true;
      return;
    }
    if (!n.IsScalar()) fail(n, at, "expected a number (half the play) or {lower, upper}");
    s.*f.number = number(n, at, f.dimension);
  }

  // `key: {points: [[x, y], ...]}` (FieldType::points).
  template <class S>
  void points(const YAML::Node& n, const std::string& at, const SpecField<S>& f, S& s) {
    remember(at, n);
    require_map(n, at);
    check_keys(n, at, {"points"});
    PointTable& t = s.*f.points;
    point_pairs(required(n, "points", at), at + ".points", "[deflection, torque]", f.dimension, f.value_dimension, t.x,
                t.y, [](std::size_t, const std::string&) {});
  }

  // A field that another stands instead of (a stiffness table instead of a
  // stiffness): exactly one of the two is given. Returns whether `f` must be read.
  template <class S>
  bool one_of_two(const YAML::Node& e, const std::string& field, const SpecField<S>& f, const S& s) {
    for (const auto& other : spec_fields(s)) {
      if (!other.instead_of || std::string(other.instead_of) != f.key) continue;
      const std::string both = std::string("'") + f.key + "' or '" + other.key + "'";
      if (e[f.key] && e[other.key]) fail(e, field, "give " + both + ", not both");
      if (!e[f.key] && !e[other.key]) fail(e, field, "missing field " + both);
      return static_cast<bool>(e[f.key]);
    }
    return true;
  }

  // Reads `bodies: [a, b]` (two bodies), `body: a` (to the base) or
  // `coordinate: {a: c_a, ...}` (a combination of bodies, issue 19 item 1;
  // its values are checked by validate(), at their own keys).
  void attachment(const YAML::Node& e, const std::string& field, std::string& a, std::string& b,
                  std::vector<CoordinateTerm>* coordinate) {
    const YAML::Node one = e["body"], two = e["bodies"], terms = coordinate ? e["coordinate"] : YAML::Node();
    if (terms && (one || two))
      fail(e, field, "give one of 'body' (to the base), 'bodies' (between two bodies) or 'coordinate' (a "
                     "combination of bodies), not two");
    if (terms) {
      read_coordinate(terms, field + ".coordinate", *coordinate);
      if (e["ratio"]) fail(e["ratio"], field + ".ratio", "applies to 'bodies: [a, b]'; a coordinate carries its own coefficients");
      return;
    }
    if (one && two) fail(e, field, "give either 'body' (to the fixed base) or 'bodies' (between two bodies), not both");
    if (one) {
      a = text(one, field + ".body");
      remember(field + ".bodies", one);
      return;
    }
    if (!two)
      fail(e, field, coordinate ? "missing field 'body' (to the fixed base), 'bodies' (between two bodies) or "
                                  "'coordinate' (a combination of bodies)"
                                : "missing field 'body' (to the fixed base) or 'bodies' (between two bodies)");
    remember(field + ".bodies", two);
    if (!two.IsSequence() || two.size() != 2) fail(two, field + ".bodies", "expected a list of two body names");
    a = text(two[0], field + ".bodies");
    b = text(two[1], field + ".bodies");
    remember(field + ".bodies", two);
  }

  // `coordinate: {body: coefficient, ...}`: plain numbers (a unit other than
  // 1 or % is an error, through the dimensionless dimension), in file order.
  void read_coordinate(const YAML::Node& n, const std::string& at, std::vector<CoordinateTerm>& out) {
    remember(at, n);
    if (!n.IsMap() || n.size() == 0)
      fail(n, at, "expected a mapping of body names to coefficients, e.g. {sun: 1, ring: -1}");
    out.clear();
    for (const auto& kv : n) {
      if (!kv.first.IsScalar()) fail(kv.first, at, "expected a body name, got " + std::string(kind(kv.first)));
      const std::string body = kv.first.Scalar();
      out.push_back({body, number(kv.second, at + "." + body, Dimension::dimensionless)});
    }
  }

  // An element: its kind by `type`, then its kind's field table
  // (core/model_spec.hpp), keys checked against it.
  ElementSpec element(const std::string& name, const YAML::Node& e, const std::string& field) {
    require_map(e, field);
    const std::string type = text(required(e, "type", field), field + ".type");
    ElementSpec spec;
    if (!element_spec_of_type(type, spec))
      fail(e["type"], field + ".type",
           "unknown element type '" + type + "' (expected one of: " + element_types() + ")");
    std::visit([&](auto& s) {
      s.name = name;
      std::vector<const char*> keys = {"type"};
      for (const auto& f : spec_fields(s)) {
        if (f.type == FieldType::attachment) keys.push_back("body");
        keys.push_back(f.key);
        if (f.type == FieldType::attachment && f.coordinate) keys.push_back("coordinate");
      }
      check_keys(e, field, keys);
      written_together(e, field, spec_fields(s));
      for (const auto& f : spec_fields(s)) read_field(e, field, f, s);
    }, spec);
    return spec;
  }

  // The keys of a kind that go together (core/model_spec.hpp, SpecField):
  // exactly one of each alternative, and a field with `with` only beside that
  // key, which needs it.
  template <class Fields>
  void written_together(const YAML::Node& e, const std::string& field, const Fields& fields) const {
    auto quoted = [](const std::vector<std::string>& keys) {
      std::string list;
      for (std::size_t i = 0; i < keys.size(); ++i)
        list += (i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ") + ("'" + keys[i] + "'");
      return list;
    };
    for (const auto& f : fields) {
      if (f.alternative == 0) continue;
      std::vector<std::string> group;
      int given = 0;
      for (const auto& g : fields)
        if (g.alternative == f.alternative) {
          group.push_back(g.key);
          given += e[g.key] ? 1 : 0;
        }
      if (given == 0) fail(e, field, "missing field " + quoted(group));
      if (given > 1) fail(e, field, "give one of " + quoted(group) + ", not two");
    }
    for (const auto& f : fields) {
      if (!f.with || !e[f.key] || e[f.with]) continue;
      fail(e[f.key], field + "." + f.key, std::string("applies to '") + f.with + "' only");
    }
    for (const auto& owner : fields) {
      if (!e[owner.key]) continue;
      std::string needs;
      bool missing = false;
      for (const auto& f : fields) {
        if (!f.with || std::string(f.with) != owner.key) continue;
        const char* unit = si_unit(f.dimension);
        needs += (needs.empty() ? "'" : " and '") + std::string(f.key) + "'" + (*unit ? std::string(" [") + unit + "]" : "");
        missing = missing || !e[f.key];
      }
      if (missing) fail(e[owner.key], field + "." + owner.key, "needs " + needs);
    }
  }

  template <class S>
  void read_field(const YAML::Node& e, const std::string& field, const SpecField<S>& f, S& s) {
    const std::string at = field + "." + f.key;
    switch (f.type) {
      case FieldType::attachment:
        attachment(e, field, s.*f.text, s.*f.second, f.coordinate ? &(s.*f.coordinate) : nullptr);
        break;
      case FieldType::body:
        s.*f.text = text(required(e, f.key, field), at);
        break;
      case FieldType::signal:
        if (f.required) s.*f.signal = signal(required(e, f.key, field), at);
        else if (e[f.key]) s.*f.signal = signal(e[f.key], at);  // a choice (alternative), or its default
        break;
      case FieldType::speed_table:
        if (e[f.key]) s.*f.table = speed_table(e[f.key], at, Dimension::angular_velocity, f.dimension);
        break;
      case FieldType::number:
        if (f.required && one_of_two(e, field, f, s)) s.*f.number = number(required(e, f.key, field), at, f.dimension);
        else if (e[f.key]) s.*f.number = number(e[f.key], at, f.dimension);
        break;
      case FieldType::text:
        if (e[f.key]) s.*f.text = text(e[f.key], at);
        break;
      case FieldType::bounds:
        if (e[f.key]) bounds(e[f.key], at, f, s);
        break;
      case FieldType::points:
        if (e[f.key]) points(e[f.key], at, f, s);
        break;
    }
  }

  void simulation(const YAML::Node& n, SimulationSettings& s) {
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
  void named_entries(const YAML::Node& map, const std::string& field, bool column, F&& each) {
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

  ModelSpec model(const YAML::Node& root) {
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
                    require_map(n, f);
                    check_keys(n, f, {"inertia", "angle", "velocity"});
                    BodySpec b;
                    b.name = name;
                    b.inertia = number(required(n, "inertia", f), f + ".inertia");
                    b.angle = number_or(n, "angle", f, 0.0);
                    b.velocity = number_or(n, "velocity", f, 0.0);
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

 private:
  std::string origin_, base_dir_;
  std::map<std::string, std::string> locations_;
  InputFiles* files_;  // null: tables are read from disk
};

}  // namespace

namespace {

bool is_signal_kind(const std::string& k) {
  for (const char* s : {"constant", "sine", "step", "ramp", "table", "dead_zone", "saturation", "hold", "play",
                        "saturated_integrator", "relay"})
    if (k == s) return true;
  return false;
}

// A signal written as {kind: {...}}: the mapping one level down.
bool signal_wrapper(const YAML::Node& n, std::string& kind) {
  if (!n.IsMap() || n.size() != 1) return false;
  if (!n.begin()->first.IsScalar()) return false;
  kind = n.begin()->first.Scalar();
  return is_signal_kind(kind) && n.begin()->second.IsMap();
}

std::string keys_of(const YAML::Node& map) {
  std::string s;
  for (const auto& kv : map) s += (s.empty() ? "" : ", ") + (kv.first.IsScalar() ? kv.first.Scalar() : "?");
  return s.empty() ? std::string("nothing") : s;
}

// The names of o.path (a FieldOverride's path syntax), each checked non-empty.
std::vector<std::string> path_parts(const FieldOverride& o) {
  auto fail = [&](const std::string& detail) -> void { throw ModelError(o.path, detail, o.where); };
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = o.path.find('.', start);
    parts.push_back(o.path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const std::string& p : parts)
    if (p.empty()) fail("a path is names joined by dots, e.g. elements.mesh.freeplay");
  return parts;
}

// Walks the tree along o.path as written (a signal's kind may be left out) and
// calls at_last(parent, key) for the last name; returns the path as it is in
// the file (with the signal kind, if one was skipped).
template <class F>
std::string walk_path(YAML::Node root, const FieldOverride& o, F&& at_last) {
  auto fail = [&](const std::string& detail) -> void { throw ModelError(o.path, detail, o.where); };
  const std::vector<std::string> parts = path_parts(o);
  YAML::Node cur = root;
  std::string resolved;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& key = parts[i];
    const std::string here = resolved.empty() ? "the model" : "'" + resolved + "'";
    if (!cur.IsMap()) fail(here + " is a single value; it has no field '" + key + "'");
    std::string kind;
    if (!static_cast<const YAML::Node&>(cur)[key] && signal_wrapper(cur, kind) && kind != key) {
      cur.reset(cur[kind]);  // step into the signal's parameters
      resolved += "." + kind;
    }
    const YAML::Node child = static_cast<const YAML::Node&>(cur)[key];
    resolved += (resolved.empty() ? "" : ".") + key;
    if (i + 1 == parts.size()) {
      at_last(cur, key);
      break;
    }
    if (!child) fail(here + " has no field '" + key + "' (it has: " + keys_of(cur) + ")");
    cur.reset(child);
  }
  return resolved;
}

// Puts o.value at o.path in the tree; returns the path as it is in the file
// (with the signal kind, if one was skipped).
std::string apply_override(YAML::Node root, const FieldOverride& o) {
  auto fail = [&](const std::string& detail) -> void { throw ModelError(o.path, detail, o.where); };
  if (path_parts(o).front() == "sweep") fail("the sweep description itself cannot be swept");
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    fail("the value '" + o.value + "' is not valid YAML: " + e.msg);
  }
  if (!value || value.IsNull()) fail("the value is empty");
  // a missing optional key is added; the reader checks it is allowed
  return walk_path(root, o, [&](YAML::Node parent, const std::string& key) { parent[key] = value; });
}

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

Model load_model(const std::string& path) { return assemble(read_model_spec(path)); }

Model load_model(const std::string& path, const std::vector<FieldOverride>& overrides) {
  return assembled(read_text_file(path, "model file"), path, base_dir_of(path), overrides, nullptr);
}

std::string field_value(const std::string& text, const std::string& origin, const std::string& path,
                        const std::vector<FieldOverride>& overrides) {
  const YAML::Node root = parse_yaml(text, origin, "model file");
  for (const FieldOverride& o : overrides) {
    if (!root.IsMap()) throw ModelError("", "the model file is not a mapping", location(origin, root.Mark()));
    yaml_guard(origin, [&] { return apply_override(root, o); });
  }
  const FieldOverride at{path, "", origin};
  if (!root.IsMap()) throw ModelError("", "the model file is not a mapping", location(origin, root.Mark()));
  YAML::Node found;
  walk_path(root, at, [&](YAML::Node parent, const std::string& key) {
    const YAML::Node child = static_cast<const YAML::Node&>(parent)[key];
    if (!child) throw ModelError(path, "the model sets no field '" + key + "' here (it has: " + keys_of(parent) + ")", origin);
    found.reset(child);
  });
  if (found.IsScalar()) return found.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << found;
  return out.c_str();
}

}  // namespace luztar::io
