#include "core/units.hpp"

#include <charconv>
#include <cmath>
#include <numbers>

#include "core/model.hpp"
#include "core/model_spec.hpp"
#include "core/signal.hpp"
#include "core/signal_paths.hpp"

namespace luztar {

namespace {

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

struct UnitDef {
  const char* name;
  Dimension dim;
  double factor;  // SI value of 1 unit
};

constexpr double kDeg = std::numbers::pi / 180.0;

// Every unit a model value may carry; the first of each dimension is its SI unit.
constexpr UnitDef kUnits[] = {
    {"1", Dimension::dimensionless, 1.0},
    {"%", Dimension::dimensionless, 0.01},
    {"s", Dimension::time, 1.0},
    {"ms", Dimension::time, 1e-3},
    {"us", Dimension::time, 1e-6},
    {"min", Dimension::time, 60.0},
    {"h", Dimension::time, 3600.0},
    {"Hz", Dimension::frequency, 1.0},
    {"kHz", Dimension::frequency, 1e3},
    {"1/s", Dimension::frequency, 1.0},
    {"rad", Dimension::angle, 1.0},
    {"mrad", Dimension::angle, 1e-3},
    {"deg", Dimension::angle, kDeg},
    {"rev", Dimension::angle, 2.0 * std::numbers::pi},
    {"rad/s", Dimension::angular_velocity, 1.0},
    {"deg/s", Dimension::angular_velocity, kDeg},
    {"rpm", Dimension::angular_velocity, 2.0 * std::numbers::pi / 60.0},
    {"rev/s", Dimension::angular_velocity, 2.0 * std::numbers::pi},
    {"N m", Dimension::torque, 1.0},
    {"Nm", Dimension::torque, 1.0},
    {"N mm", Dimension::torque, 1e-3},
    {"kN m", Dimension::torque, 1e3},
    {"N m/rad", Dimension::stiffness, 1.0},
    {"Nm/rad", Dimension::stiffness, 1.0},
    {"N m/deg", Dimension::stiffness, 1.0 / kDeg},
    {"Nm/deg", Dimension::stiffness, 1.0 / kDeg},
    {"kN m/rad", Dimension::stiffness, 1e3},
    {"N m s/rad", Dimension::damping, 1.0},
    {"Nm s/rad", Dimension::damping, 1.0},
    {"N m s/deg", Dimension::damping, 1.0 / kDeg},
    {"kg m^2", Dimension::inertia, 1.0},
    {"kg m2", Dimension::inertia, 1.0},
    {"kg cm^2", Dimension::inertia, 1e-4},
    {"kg mm^2", Dimension::inertia, 1e-6},
    {"g cm^2", Dimension::inertia, 1e-7},
    {"m", Dimension::length, 1.0},
    {"mm", Dimension::length, 1e-3},
    {"cm", Dimension::length, 1e-2},
    {"N", Dimension::force, 1.0},
    {"kN", Dimension::force, 1e3},
    {"mN", Dimension::force, 1e-3},
    {"um", Dimension::length, 1e-6},
    {"km", Dimension::length, 1e3},
    {"kg", Dimension::mass, 1.0},
    {"g", Dimension::mass, 1e-3},
    {"t", Dimension::mass, 1e3},
    {"m/s", Dimension::velocity, 1.0},
    {"mm/s", Dimension::velocity, 1e-3},
    {"km/h", Dimension::velocity, 1.0 / 3.6},
    {"N/m", Dimension::linear_stiffness, 1.0},
    {"N/mm", Dimension::linear_stiffness, 1e3},
    {"kN/m", Dimension::linear_stiffness, 1e3},
    {"kN/mm", Dimension::linear_stiffness, 1e6},
    {"N s/m", Dimension::linear_damping, 1.0},
    {"N s/mm", Dimension::linear_damping, 1e3},
    {"kN s/m", Dimension::linear_damping, 1e3},
};

// A signal kind's YAML name (core/signal.hpp); a reference or a measurement
// (angle, velocity) holds a name, not numbers, and is never a path's kind here.
bool is_signal_kind(const std::string& k) {
  for (int i = 0; i <= static_cast<int>(Signal::Kind::velocity); ++i) {
    const auto kind = static_cast<Signal::Kind>(i);
    if (kind != Signal::Kind::reference && !is_measurement(kind) && k == kind_name(kind)) return true;
  }
  return false;
}

Dimension signal_part(const std::vector<std::string>& p, std::size_t i, Dimension value);

// p[i] is a key of a signal of kind `kind` ("" when the path leaves it out).
Dimension signal_key(const std::vector<std::string>& p, std::size_t i, const std::string& kind, Dimension value) {
  const std::string& key = p[i];
  if (key == "of")  // a relay switches on, an integrator integrates, a value of another unit
    return signal_part(p, i + 1, kind == "relay" || kind == "saturated_integrator" ? Dimension::plain : value);
  if (i + 1 != p.size()) return Dimension::plain;
  if (key == "frequency") return Dimension::frequency;
  if (key == "phase") return Dimension::angle;
  if (key == "time" || key == "start" || key == "end" || key == "period") return Dimension::time;
  if (key == "threshold") return Dimension::plain;  // in the unit of the relay's input
  if (key == "initial" && kind == "relay") return Dimension::dimensionless;  // +1 or -1
  return value;  // amplitude, offset, initial, final, lower, upper, width, value, points
}

// p[i..]: a signal whose values have dimension `value`.
Dimension signal_part(const std::vector<std::string>& p, std::size_t i, Dimension value) {
  if (i == p.size()) return value;  // a constant
  const std::string& kind = p[i];
  if (kind == "sum") return signal_part(p, i + 1, value);
  if (kind == "product") return signal_part(p, i + 1, Dimension::plain);
  if (!is_signal_kind(kind)) return signal_key(p, i, "", value);  // the kind left out
  if (i + 1 == p.size()) return value;                            // {constant: 5}, {input: 5}
  return signal_key(p, i + 1, kind, value);
}

// The dotted path's parts, list indices ("sum[1]", "points[0]") dropped.
std::vector<std::string> parts_of(const std::string& path) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    parts.push_back(part.substr(0, part.find('[')));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Spaces collapsed, '*' as a space: "N*m / rad" -> "N m/rad".
std::string normalized(const std::string& u) {
  std::string out;
  for (char c : u) {
    if (c == '*') c = ' ';
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      if (c == '/' && !out.empty() && out.back() == ' ') out.pop_back();
      if (!out.empty() && out.back() == ' ' && out.size() >= 2 && out[out.size() - 2] == '/') out.pop_back();
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

const char* signal_unit(const std::string& path) {
  if (path == "time") return unit::time;
  const bool body = starts_with(path, "bodies."), element = starts_with(path, "elements.");
  if (body || element) {
    const std::string what = path.substr(path.find_last_of('.') + 1);
    for (const OwnerQuantity& q : kBodyQuantities)
      if (body && what == q.name) return q.unit;
    for (const OwnerQuantity& q : kElementQuantities)
      if (element && what == q.name) return q.unit;
    return "";
  }
  if (starts_with(path, "energy.")) return unit::energy;
  return "";  // inputs.<i>, blocks.<b>: the unit of the signal they carry
}

namespace {

// Marks the blocks of `s` whose output reaches a torque (`torque`: s's own value is one).
void mark_torque_blocks(const Model& m, const Signal& s, bool torque, std::vector<std::string>& units) {
  if (torque && is_sampled_block(s.kind)) units.at(static_cast<std::size_t>(s.input) - m.inputs.size()) = unit::torque;
  using K = Signal::Kind;
  const bool keeps = s.kind == K::sum || s.kind == K::dead_zone || s.kind == K::saturation || s.kind == K::hold ||
                     s.kind == K::play;  // their terms (a sum's, the `of` of the others) are in their unit
  for (const Signal& term : s.terms) mark_torque_blocks(m, term, torque && keeps, units);
}

}  // namespace

std::vector<std::string> block_units(const Model& m) {
  std::vector<std::string> units(m.sampled.size(), unit::of_signal);
  for (const Signal& s : m.signals) mark_torque_blocks(m, s, true, units);
  return units;
}

const char* dimension_name(Dimension d) {
  switch (d) {
    case Dimension::plain: return "a value whose unit depends on its use";
    case Dimension::dimensionless: return "dimensionless";
    case Dimension::time: return "time";
    case Dimension::frequency: return "frequency";
    case Dimension::angle: return "angle";
    case Dimension::angular_velocity: return "angular velocity";
    case Dimension::torque: return "torque";
    case Dimension::stiffness: return "torsional stiffness";
    case Dimension::damping: return "torsional damping";
    case Dimension::inertia: return "inertia";
    case Dimension::length: return "length";
    case Dimension::force: return "force";
    case Dimension::mass: return "mass";
    case Dimension::velocity: return "velocity";
    case Dimension::linear_stiffness: return "linear stiffness";
    case Dimension::linear_damping: return "linear damping";
  }
  return "?";
}

Dimension translational(Dimension d) {
  switch (d) {
    case Dimension::angle: return Dimension::length;
    case Dimension::angular_velocity: return Dimension::velocity;
    case Dimension::torque: return Dimension::force;
    case Dimension::stiffness: return Dimension::linear_stiffness;
    case Dimension::damping: return Dimension::linear_damping;
    default: return d;
  }
}

const char* translational_unit(const char* u) {
  const std::string s = u;
  if (s == unit::angle) return unit::position;
  if (s == unit::velocity) return unit::linear_velocity;
  if (s == unit::acceleration) return unit::linear_acceleration;
  if (s == unit::torque) return unit::force;
  return u;
}

const char* si_unit(Dimension d) {
  for (const UnitDef& u : kUnits)
    if (u.dim == d) return u.name;
  return "";
}

std::string accepted_units(Dimension d) {
  std::string s;
  for (const UnitDef& u : kUnits)
    if (u.dim == d) s += (s.empty() ? "" : ", ") + std::string(u.name);
  return s;
}

Dimension field_dimension(const std::string& path) {
  const std::vector<std::string> p = parts_of(path);
  const std::string& last = p.back();
  if (p[0] == "simulation") {
    if (last == "rtol" || last == "atol" || last == "theta" || last == "max_events" || last == "events")
      return Dimension::dimensionless;
    if (last == "rest_velocity") return Dimension::angular_velocity;
    return Dimension::time;  // t_start, t_end, output_step, max_step, step, event_storm.span
  }
  if (p[0] == "bodies" && p.size() >= 4 && p[2] == "prescribed") {  // a drive's signal
    const std::string& q = p[3];
    const Dimension d = q == "angle"      ? Dimension::angle
                        : q == "position" ? Dimension::length
                        : q == "velocity" ? Dimension::angular_velocity
                                          : Dimension::plain;  // acceleration: SI numbers
    return signal_part(p, 4, d);
  }
  if (p[0] == "bodies" && p.size() == 3) {
    if (last == "inertia") return Dimension::inertia;
    if (last == "mass") return Dimension::mass;
    if (last == "position") return Dimension::length;
    if (last == "angle") return Dimension::angle;
    if (last == "velocity") return Dimension::angular_velocity;
  }
  FieldType type;
  Dimension dim;
  if (p[0] == "elements" && p.size() >= 3 && element_field(p[2], type, dim)) {  // the kinds' field tables
    if (type == FieldType::signal) return signal_part(p, 3, dim);
    if (type == FieldType::number && p.size() == 3) return dim;
    if (type == FieldType::bounds && (p.size() == 3 || (p.size() == 4 && (p[3] == "lower" || p[3] == "upper"))))
      return dim;
  }
  if (p[0] == "signals" && p.size() >= 2) return signal_part(p, 2, Dimension::plain);
  return Dimension::plain;
}

bool to_si(const std::string& text, Dimension d, double& si, std::string& error) {
  const char* b = text.data();
  const char* e = b + text.size();
  while (b < e && (*b == ' ' || *b == '\t')) ++b;
  if (b < e && *b == '+') ++b;
  double v = 0.0;
  const auto [rest, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || rest == b) return false;
  const std::string u = normalized(std::string(rest, e));
  if (u.empty()) {
    si = v;
    return true;
  }
  const UnitDef* found = nullptr;
  for (const UnitDef& def : kUnits)
    if (u == def.name) found = &def;
  if (d == Dimension::plain) {
    error = "a unit ('" + u + "') is not taken here: the unit of this value depends on where it is used; give a "
            "plain number in SI units";
  } else if (!found) {
    error = "unknown unit '" + u + "' (" + dimension_name(d) + " units: " + accepted_units(d) + ")";
  } else if (found->dim != d) {
    error = "'" + u + "' is a unit of " + dimension_name(found->dim) + ", not of " + dimension_name(d) + " (" +
            dimension_name(d) + " units: " + accepted_units(d) + ")";
  } else {
    si = v * found->factor;
    return true;
  }
  return true;
}

}  // namespace luztar
