// The model reader's signals (io/yaml_reader.hpp): a number with its unit, a
// signal's name, or one of the signal kinds with its keys.
#include "io/yaml_reader.hpp"

#include <stdexcept>

#include "core/errors.hpp"
#include "io/yaml_source.hpp"

namespace luztar::io::model_file {

namespace {

constexpr const char* kSignalKinds =
    "constant, sine, step, ramp, table, sum, product, input, dead_zone, saturation, hold, play, "
    "saturated_integrator, relay, angle, velocity";

}  // namespace

Signal Reader::signal(const YAML::Node& n, const std::string& field) {
  remember(field, n);
  if (n.IsScalar()) {
    double v = 0.0;
    if (YAML::convert<double>::decode(n, v)) return Signal::make_constant(v);
    // A number with a unit ("5 N m", "5Nm"), else a signal's name ("2nd_drive":
    // a name may begin with a digit; a space after the number says it is a quantity).
    std::string error;
    if (to_si(n.Scalar(), in_context(field_dimension(field)), v, error)) {
      if (error.empty()) return Signal::make_constant(v);
      if (n.Scalar().find_first_of(" \t") != std::string::npos)
        fail(n, field, unit_error(n.Scalar(), field_dimension(field), error));
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

void Reader::sampled_block(const YAML::Node& body, const std::string& f, Signal& s) {
  s.terms.push_back(signal(required(body, "of", f), f + ".of"));
  s.period = number(required(body, "period", f), f + ".period");
}

}  // namespace luztar::io::model_file
