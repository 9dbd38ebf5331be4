#include "io/yaml_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>

#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "io/atomic_file.hpp"

namespace luztar::io {

namespace {

// A number as YAML: its shortest round-trip text (core/number_text.hpp); the
// non-finite in YAML's spelling.
std::string num(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  return shortest(v);
}

// key: value, always.
void put(YAML::Emitter& out, const char* key, double v) { out << YAML::Key << key << YAML::Value << num(v); }
// key: value, only when it differs from the reader's default (luztar reduce
// writes what the model sets, not what the reader would fill in).
void put(YAML::Emitter& out, const char* key, double v, double fallback) {
  if (v != fallback || std::signbit(v) != std::signbit(fallback)) put(out, key, v);
}

void emit_signal(YAML::Emitter& out, const Signal& s) {
  auto open = [&](const char* kind) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << kind << YAML::Value << YAML::BeginMap;
  };
  auto close = [&] { out << YAML::EndMap << YAML::EndMap; };
  switch (s.kind) {
    case Signal::Kind::constant:
      out << num(s.value);
      return;
    case Signal::Kind::reference:
      out << s.reference;
      return;
    case Signal::Kind::input:
      open("input");
      put(out, "initial", s.value, 0.0);
      if (std::isfinite(s.lower)) put(out, "lower", s.lower);
      if (std::isfinite(s.upper)) put(out, "upper", s.upper);
      close();
      return;
    case Signal::Kind::sine:
      open("sine");
      put(out, "amplitude", s.amplitude);
      put(out, "frequency", s.frequency);
      put(out, "phase", s.phase, 0.0);
      put(out, "offset", s.offset, 0.0);
      close();
      return;
    case Signal::Kind::step:
      open("step");
      put(out, "time", s.time);
      put(out, "initial", s.initial, 0.0);
      put(out, "final", s.final_value);
      close();
      return;
    case Signal::Kind::ramp:
      open("ramp");
      put(out, "start", s.start);
      put(out, "end", s.end);
      put(out, "initial", s.initial, 0.0);
      put(out, "final", s.final_value);
      close();
      return;
    case Signal::Kind::table:
      open("table");
      out << YAML::Key << "points" << YAML::Value << YAML::BeginSeq;
      for (std::size_t i = 0; i < s.table_t.size(); ++i)
        out << YAML::Flow << YAML::BeginSeq << num(s.table_t[i]) << num(s.table_v[i]) << YAML::EndSeq;
      out << YAML::EndSeq;
      close();
      return;
    case Signal::Kind::sum:
    case Signal::Kind::product:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << (s.kind == Signal::Kind::sum ? "sum" : "product")
          << YAML::Value << YAML::BeginSeq;
      for (const Signal& t : s.terms) emit_signal(out, t);
      out << YAML::EndSeq << YAML::EndMap;
      return;
    case Signal::Kind::angle:
    case Signal::Kind::velocity:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << kind_name(s.kind) << YAML::Value << s.reference
          << YAML::EndMap;
      return;
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
    case Signal::Kind::hold:
    case Signal::Kind::play:
    case Signal::Kind::saturated_integrator:
    case Signal::Kind::relay: {
      open(kind_name(s.kind));
      out << YAML::Key << "of" << YAML::Value;
      emit_signal(out, s.terms.at(0));
      switch (s.kind) {
        case Signal::Kind::dead_zone:
        case Signal::Kind::saturation:
          put(out, "lower", s.lower);
          put(out, "upper", s.upper);
          break;
        case Signal::Kind::play:
          put(out, "width", s.width);
          put(out, "initial", s.initial, 0.0);
          break;
        case Signal::Kind::saturated_integrator:
          put(out, "lower", s.lower);
          put(out, "upper", s.upper);
          put(out, "initial", s.initial, 0.0);
          break;
        case Signal::Kind::relay:
          put(out, "threshold", s.threshold);
          put(out, "value", s.value);
          put(out, "initial", s.initial, 1.0);
          break;
        default:
          break;
      }
      if (is_sampled_block(s.kind)) put(out, "period", s.period);
      close();
      return;
    }
  }
}

void emit_bodies(YAML::Emitter& out, const std::string& key, const std::string& a, const std::string& b) {
  if (b.empty()) {
    out << YAML::Key << "body" << YAML::Value << a;
  } else {
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq << a << b << YAML::EndSeq;
  }
}

// `coordinate: {a: c_a, ...}` in the order of its terms.
void emit_coordinate(YAML::Emitter& out, const std::vector<CoordinateTerm>& terms) {
  out << YAML::Key << "coordinate" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const CoordinateTerm& t : terms) out << YAML::Key << t.body << YAML::Value << num(t.c);
  out << YAML::EndMap;
}

// A coordinate that is today's form, q_a (1) or q_a - p q_b (1, -p; a friction
// element or a one-way clutch: p = 1), as `body` or `bodies` (+ `ratio`): so
// that reduced files keep the form they had.
template <class S>
void as_bodies(S& s) {
  std::vector<CoordinateTerm>& t = s.coordinate;
  if (t.empty() || t.size() > 2 || t[0].c != 1.0) return;
  double p = 1.0;
  if (t.size() == 2) {
    p = -t[1].c;
    if constexpr (requires { s.ratio; }) {
      if (p != 1.0) s.ratio = p;
    } else if (p != 1.0) {
      return;
    }
  }
  s.body_a = t[0].body;
  s.body_b = t.size() == 2 ? t[1].body : std::string();
  t.clear();
}
template <>
void as_bodies(TorqueSpec&) {}
template <>
void as_bodies(ForceSpec&) {}
template <>
void as_bodies(RackPinionSpec&) {}
template <>
void as_bodies(PlanetarySpec&) {}
template <>
void as_bodies(LossyGearSpec&) {}

// True when the element is between two bodies (its attachment has a second).
template <class S>
bool between_two_bodies(const S& s) {
  for (const auto& f : spec_fields(s))
    if (f.type == FieldType::attachment && !(s.*f.second).empty()) return true;
  return false;
}

// A table as `key: {points: [[x, y], ...]}` (a speed table or a spring's
// characteristic; one read from a file is written inline).
void emit_points(YAML::Emitter& out, const char* key, const std::vector<double>& x, const std::vector<double>& y) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "points" << YAML::Value
      << YAML::BeginSeq;
  for (std::size_t i = 0; i < x.size(); ++i) out << YAML::BeginSeq << num(x[i]) << num(y[i]) << YAML::EndSeq;
  out << YAML::EndSeq << YAML::EndMap;
}

// Whether field f of s is part of the description: a table when it has
// points; a field of an alternative (core/model_spec.hpp) when no table of
// its alternative has points (the signal is the choice then); a field that
// goes `with` another when that one is.
template <class S>
bool written(const SpecField<S>& f, const S& s) {
  if (f.type == FieldType::speed_table) return !(s.*f.table).empty();
  for (const auto& g : spec_fields(s)) {
    if (f.with && std::string(g.key) == f.with) return written(g, s);
    if (f.alternative != 0 && g.alternative == f.alternative && g.type == FieldType::speed_table &&
        !(s.*g.table).empty())
      return false;
  }
  return true;
}

// True when a field given instead of `f` holds a value (a stiffness table: no stiffness).
template <class S>
bool replaced(const SpecField<S>& f, const S& s) {
  for (const auto& other : spec_fields(s))
    if (other.instead_of && std::string(other.instead_of) == f.key && other.points && !(s.*other.points).empty())
      return true;
  return false;
}

// `key: a`, or `key: {lower, upper}` for bounds that are not symmetric about 0.
template <class S>
void emit_bounds(YAML::Emitter& out, const SpecField<S>& f, const S& s, const S& d) {
  const double lower = s.*f.lower, upper = s.*f.upper;
  if (!(s.*f.bounds)) {
    put(out, f.key, s.*f.number, d.*f.number);
  } else if (lower == -upper) {
    put(out, f.key, upper);
  } else {
    out << YAML::Key << f.key << YAML::Value << YAML::Flow << YAML::BeginMap;
    put(out, "lower", lower);
    put(out, "upper", upper);
    out << YAML::EndMap;
  }
}

// One field of an element by its kind's table (core/model_spec.hpp); `d`: the
// kind's defaults, which optional fields are left out at.
template <class S>
void emit_field(YAML::Emitter& out, const SpecField<S>& f, const S& s, const S& d) {
  if (!written(f, s)) return;
  switch (f.type) {
    case FieldType::speed_table:
      emit_points(out, f.key, (s.*f.table).speed, (s.*f.table).value);
      return;
    case FieldType::attachment:
      if (f.coordinate && !(s.*f.coordinate).empty()) emit_coordinate(out, s.*f.coordinate);
      else emit_bodies(out, f.key, s.*f.text, s.*f.second);
      return;
    case FieldType::body:
      out << YAML::Key << f.key << YAML::Value << s.*f.text;
      return;
    case FieldType::signal:
      out << YAML::Key << f.key << YAML::Value;
      emit_signal(out, s.*f.signal);
      return;
    case FieldType::number:
      if (f.between_bodies && !between_two_bodies(s)) return;
      if (replaced(f, s)) return;
      if (f.required) put(out, f.key, s.*f.number);
      else put(out, f.key, s.*f.number, d.*f.number);
      return;
    case FieldType::text:
      if (s.*f.text != d.*f.text) out << YAML::Key << f.key << YAML::Value << s.*f.text;
      return;
    case FieldType::bounds:
      emit_bounds(out, f, s, d);
      return;
    case FieldType::points:
      if (!(s.*f.points).empty()) emit_points(out, f.key, (s.*f.points).x, (s.*f.points).y);
      return;
  }
}

void emit_element(YAML::Emitter& out, const ElementSpec& e) {
  std::visit([&](const auto& s) {
    using S = std::decay_t<decltype(s)>;
    const S defaults;
    S w = s;
    as_bodies(w);
    out << YAML::Key << "type" << YAML::Value << S::kType;
    for (const auto& f : spec_fields(w)) emit_field(out, f, w, defaults);
  }, e);
}

// An element as the reader takes it back. A reduction carries a rack and
// pinion as its spring, and a load from a merged pinion onto the rack as a
// torque; the reader takes neither across kinds, so a spring from a
// translational to a rotational body is written as its rack_pinion (one from
// a rotational to a translational body, e.g. from a shaft to a pinion merged
// into the rack, first with its bodies swapped), and a torque on a
// translational body as the force it is (the SI values alike).
ElementSpec carried_across(const ElementSpec& e, const std::set<std::string>& translational) {
  if (const auto* s = std::get_if<SpringSpec>(&e); s && !s->body_b.empty()) {
    const bool rack_a = translational.count(s->body_a) > 0, rack_b = translational.count(s->body_b) > 0;
    SpringSpec swapped;
    RackPinionSpec g;
    if (rack_a && !rack_b && rack_pinion_of(*s, g)) return g;
    if (rack_b && !rack_a && swap_bodies(*s, swapped) && rack_pinion_of(swapped, g)) return g;
  }
  if (const auto* t = std::get_if<TorqueSpec>(&e); t && translational.count(t->body))
    return ForceSpec{t->name, t->body, t->torque};
  return e;
}

// carried_across, refusing what no element of a file can hold: any other
// element on bodies of both kinds (the reduction avoids it where it can:
// core/reduce.cpp crosses_kinds), never a file the reader refuses.
ElementSpec as_written(const ElementSpec& e, const std::set<std::string>& translational) {
  ElementSpec w = carried_across(e, translational);
  if (std::holds_alternative<LinkSpec>(w) || std::holds_alternative<RackPinionSpec>(w)) return w;
  std::string shaft, rack;
  for (const std::string& b : element_bodies(w)) (translational.count(b) ? rack : shaft) = b;
  if (!shaft.empty() && !rack.empty())
    throw ModelError("elements." + std::visit([](const auto& s) { return s.name; }, w),
                     "would join the rotational body '" + shaft + "' and the translational body '" + rack +
                         "' in the reduced model (a rigid rack_pinion merged one into the other), which no model "
                         "file can hold; luztar run reduces the model itself");
  return w;
}

}  // namespace

std::string to_yaml(const ModelSpec& spec, const std::vector<std::string>& comment) {
  const SimulationSettings d;  // the reader's defaults: a field that keeps its default is left out
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!spec.name.empty()) out << YAML::Key << "name" << YAML::Value << spec.name;
  if (!spec.description.empty()) out << YAML::Key << "description" << YAML::Value << spec.description;
  const SimulationSettings& s = spec.simulation;
  out << YAML::Key << "simulation" << YAML::Value << YAML::BeginMap;
  put(out, "t_start", s.t_start, d.t_start);
  put(out, "t_end", s.t_end);
  put(out, "output_step", s.output_step);
  put(out, "rtol", s.rtol, d.rtol);
  put(out, "atol", s.atol, d.atol);
  put(out, "max_step", s.max_step, d.max_step);
  if (s.max_events != d.max_events) out << YAML::Key << "max_events" << YAML::Value << s.max_events;
  if (s.storm_events != d.storm_events || s.storm_span != d.storm_span) {
    out << YAML::Key << "event_storm" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (s.storm_events != d.storm_events) out << YAML::Key << "events" << YAML::Value << s.storm_events;
    put(out, "span", s.storm_span, d.storm_span);
    out << YAML::EndMap;
  }
  put(out, "rest_velocity", s.rest_velocity, d.rest_velocity);
  if (s.linear_solver != d.linear_solver) out << YAML::Key << "linear_solver" << YAML::Value << s.linear_solver;
  if (s.integrator != d.integrator) out << YAML::Key << "integrator" << YAML::Value << s.integrator;
  if (s.solver != d.solver) out << YAML::Key << "solver" << YAML::Value << s.solver;
  put(out, "step", s.step, d.step);
  put(out, "theta", s.theta, d.theta);
  out << YAML::EndMap;
  if (!spec.signals.empty()) {
    out << YAML::Key << "signals" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, sig] : spec.signals) {
      out << YAML::Key << name << YAML::Value;
      emit_signal(out, sig);
    }
    out << YAML::EndMap;
  }
  out << YAML::Key << "bodies" << YAML::Value << YAML::BeginMap;
  for (const BodySpec& b : spec.bodies) {
    out << YAML::Key << b.name << YAML::Value << YAML::Flow << YAML::BeginMap;
    const bool moves = is_translational(b);  // in SI, as every value written
    if (moves) out << YAML::Key << "kind" << YAML::Value << b.kind;
    put(out, moves ? "mass" : "inertia", b.inertia);
    using D = BodySpec::Drive;  // a drive's signal gives what it prescribes and its derivatives
    if (b.prescribed != D::angle) put(out, moves ? "position" : "angle", b.angle, 0.0);
    if (b.prescribed == D::none || b.prescribed == D::acceleration) put(out, "velocity", b.velocity, 0.0);
    if (b.prescribed != D::none) {
      out << YAML::Key << "prescribed" << YAML::Value << YAML::BeginMap << YAML::Key
          << drive_key(b.prescribed, moves) << YAML::Value;
      emit_signal(out, b.motion);
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!spec.elements.empty()) {
    std::set<std::string> translational;
    for (const BodySpec& b : spec.bodies)
      if (is_translational(b)) translational.insert(b.name);
    out << YAML::Key << "elements" << YAML::Value << YAML::BeginMap;
    for (const ElementSpec& e : spec.elements) {
      out << YAML::Key << element_name(e) << YAML::Value << YAML::BeginMap;
      emit_element(out, as_written(e, translational));
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  std::ostringstream text;
  for (const std::string& line : comment) text << "# " << line << "\n";
  text << out.c_str() << "\n";
  return text.str();
}

void write_yaml(AtomicOutput& out, const ModelSpec& spec, const std::vector<std::string>& comment) {
  const std::string text = to_yaml(spec, comment);
  const std::string& path = out.path();
  std::FILE* f = std::fopen(out.temp_path().c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot open the output file for writing");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error(path + ": error while writing");
}

void write_yaml(const std::string& path, const ModelSpec& spec, const std::vector<std::string>& comment) {
  AtomicOutput out(path);
  write_yaml(out, spec, comment);
  out.commit();
}

}  // namespace luztar::io
