// The model reader's elements (io/yaml_reader.hpp): an element's kind by its
// `type`, then the fields of its kind's table (core/model_spec.hpp): bodies or
// a coordinate, numbers, bounds, point and speed tables, signals, and the keys
// that go together.
#include "io/yaml_reader.hpp"

#include <stdexcept>

#include "core/errors.hpp"
#include "io/yaml_source.hpp"

namespace luztar::io::model_file {

// A speed table: {points: [[speed, value], ...]} (speeds in `speed_dim`,
// values in `value_dim`, each may carry a unit) or {file: a.csv} (two columns
// in SI, speed and value). Its rules (first speed 0, increasing, ...) are
// validate()'s, so that a description built in code meets them too.
SpeedTable Reader::speed_table(const YAML::Node& body, const std::string& f, Dimension speed_dim, Dimension value_dim) {
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

// `key: a` or `key: {lower, upper}` (FieldType::bounds).
template <class S>
void Reader::bounds(const YAML::Node& n, const std::string& at, const SpecField<S>& f, S& s) {
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
void Reader::points(const YAML::Node& n, const std::string& at, const SpecField<S>& f, S& s) {
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
bool Reader::one_of_two(const YAML::Node& e, const std::string& field, const SpecField<S>& f, const S& s) {
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
void Reader::attachment(const YAML::Node& e, const std::string& field, std::string& a, std::string& b,
                std::vector<CoordinateTerm>* coordinate) {
  const YAML::Node one = e["body"], two = e["bodies"], terms = e["coordinate"];
  const bool has_terms = coordinate && terms;  // (a kind without a coordinate: a lossy gear)
  if (has_terms && (one || two))
    fail(e, field, "give one of 'body' (to the base), 'bodies' (between two bodies) or 'coordinate' (a "
                   "combination of bodies), not two");
  if (has_terms) {
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
void Reader::read_coordinate(const YAML::Node& n, const std::string& at, std::vector<CoordinateTerm>& out) {
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

// The keys of a kind that go together (core/model_spec.hpp, SpecField):
// exactly one of each alternative, and a field with `with` only beside that
// key, which needs it.
template <class Fields>
void Reader::written_together(const YAML::Node& e, const std::string& field, const Fields& fields) const {
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
void Reader::read_field(const YAML::Node& e, const std::string& field, const SpecField<S>& f, S& s) {
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

ElementSpec Reader::element(const std::string& name, const YAML::Node& e, const std::string& field) {
  require_map(e, field);
  const std::string type = text(required(e, "type", field), field + ".type");
  ElementSpec spec;
  if (!element_spec_of_type(type, spec))
    fail(e["type"], field + ".type",
         "unknown element type '" + type + "' (expected one of: " + element_types() + ")");
  std::visit([&]<class S>(S& s) {
    s.name = name;
    std::vector<const char*> keys = {"type"};
    for (const auto& f : spec_fields(s)) {
      if (f.type == FieldType::attachment) keys.push_back("body");
      keys.push_back(f.key);
      if (f.type == FieldType::attachment && f.coordinate) keys.push_back("coordinate");
    }
    check_keys(e, field, keys);
    written_together(e, field, spec_fields(s));
    // an element on translational bodies reads its fields in their units (N/m, m, N s/m, N)
    // (a load's field names its own quantity: a torque on a translational body is validate()'s error)
    bool attached = false;
    for (const auto& f : spec_fields(s)) attached = attached || f.type == FieldType::attachment;
    if constexpr (requires { S::kTranslational; }) attached = true;  // its coordinate is in m, whatever its bodies
    if (attached && (on_translational_bodies(e) || requires { S::kTranslational; })) translational_owner_ = "element '" + name + "' acts on a translational coordinate";
    for (const auto& f : spec_fields(s)) read_field(e, field, f, s);
    translational_owner_.clear();
  }, spec);
  return spec;
}

bool Reader::on_translational_bodies(const YAML::Node& e) const {
  std::vector<std::string> names;
  auto add = [&](const YAML::Node& n) {
    if (n && n.IsScalar()) names.push_back(n.Scalar());
  };
  add(e["body"]);
  if (const YAML::Node two = e["bodies"]; two && two.IsSequence())
    for (const auto& b : two) add(b);
  if (const YAML::Node c = e["coordinate"]; c && c.IsMap())
    for (const auto& kv : c) add(kv.first);
  if (names.empty()) return false;
  for (const std::string& b : names)
    if (!translational_bodies_.count(b)) return false;  // rotational, unknown (validate names it) or mixed
  return true;
}

}  // namespace luztar::io::model_file
