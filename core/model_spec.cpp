#include "core/model_spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace luztar {

std::string where(const ModelSpec& spec, std::string field) {
  while (true) {
    const auto it = spec.locations.find(field);
    if (it != spec.locations.end()) return it->second;
    const auto cut = field.find_last_of(".[");
    if (cut == std::string::npos) break;
    field.erase(cut);
  }
  const auto root = spec.locations.find("");
  return root != spec.locations.end() ? root->second : spec.source_path;
}

std::string name_problem(const std::string& name, bool column) {
  if (name.empty()) return "a name must not be empty";
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
      return std::string("a name must not contain control characters (got byte ") + code + ")";
    }
  const std::string quoted = "the name '" + name + "'";
  for (const char c : name)
    if (c == '/' || c == '.' || c == ',')
      return quoted + " contains '" + c + "', which names must not (they become HDF5 paths and CSV columns)";
  if (std::isspace(static_cast<unsigned char>(name.front())) || std::isspace(static_cast<unsigned char>(name.back())))
    return quoted + " begins or ends with whitespace";
  if (column)
    for (const char* fixed : {"time", "input_work", "kinetic", "elastic", "dissipated"})
      if (name == fixed)
        return quoted + " is taken by a fixed result column (time, input_work, kinetic, elastic, dissipated)";
  return {};
}

std::pair<double, double> spring_gap(const SpringSpec& s) {
  if (s.freeplay_bounds) return {s.freeplay_lower, s.freeplay_upper};
  return {-s.freeplay, s.freeplay};
}

double spring_offset(const SpringSpec& s) { return s.preload != 0.0 ? -s.preload / s.stiffness : s.offset; }

const std::string& element_name(const ElementSpec& e) {
  return std::visit([](const auto& x) -> const std::string& { return x.name; }, e);
}

namespace {

// A default description of every kind, in the order of ElementSpec's alternatives.
template <std::size_t I = 0>
void add_kinds(std::vector<ElementSpec>& out) {
  if constexpr (I < std::variant_size_v<ElementSpec>) {
    out.emplace_back(std::in_place_index<I>);
    add_kinds<I + 1>(out);
  }
}

const std::vector<ElementSpec>& kinds() {
  static const std::vector<ElementSpec> all = [] {
    std::vector<ElementSpec> v;
    add_kinds(v);
    return v;
  }();
  return all;
}

const char* type_of(const ElementSpec& e) {
  return std::visit([](const auto& s) { return std::decay_t<decltype(s)>::kType; }, e);
}

}  // namespace

std::string element_types() {
  std::string list;
  for (const ElementSpec& k : kinds()) list += (list.empty() ? "" : ", ") + std::string(type_of(k));
  return list;
}

bool element_spec_of_type(const std::string& type, ElementSpec& out) {
  for (const ElementSpec& k : kinds())
    if (type == type_of(k)) {
      out = k;
      return true;
    }
  return false;
}

bool element_field(const std::string& key, FieldType& type, Dimension& dimension) {
  for (const ElementSpec& k : kinds()) {
    const bool found = std::visit([&](const auto& s) {
      for (const auto& f : spec_fields(s))
        if (key == f.key) {
          type = f.type;
          dimension = f.dimension;
          return true;
        }
      return false;
    }, k);
    if (found) return true;
  }
  return false;
}

namespace {

// The law a spring and a rack and pinion share (on their coordinate x).
template <class From, class To>
void copy_law(const From& f, To& t) {
  t.name = f.name;
  t.stiffness = f.stiffness;
  t.freeplay = f.freeplay;
  t.freeplay_lower = f.freeplay_lower;
  t.freeplay_upper = f.freeplay_upper;
  t.freeplay_bounds = f.freeplay_bounds;
  t.damping = f.damping;
  t.restitution = f.restitution;
  t.damping_law = f.damping_law;
}

}  // namespace

SpringSpec spring_of(const RackPinionSpec& g) {
  SpringSpec s;
  copy_law(g, s);
  s.offset = g.offset;
  s.preload = g.preload;
  s.stiffness_table = g.stiffness_table;
  if (!g.stiffness_table.empty()) s.stiffness = 0.0;  // (a spring's own value beside a table)
  s.body_a = g.rack;
  s.body_b = g.pinion;
  s.ratio = g.radius;
  return s;
}

bool rack_pinion_of(const SpringSpec& s, RackPinionSpec& g) {
  if (s.body_b.empty() || !s.coordinate.empty() || !(s.ratio > 0.0)) return false;
  g = RackPinionSpec{};
  copy_law(s, g);
  g.offset = s.offset;
  g.preload = s.preload;
  g.stiffness_table = s.stiffness_table;
  if (!s.stiffness_table.empty()) g.stiffness = RackPinionSpec{}.stiffness;  // (left out when written)
  g.rack = s.body_a;
  g.pinion = s.body_b;
  g.radius = s.ratio;
  return true;
}

std::vector<CoordinateTerm> planetary_coordinate(const PlanetarySpec& g) {
  return {{g.sun, 1.0}, {g.ring, g.ratio}, {g.carrier, -(1.0 + g.ratio)}};
}

bool planetary_is_ideal(const PlanetarySpec& g) {
  return std::isinf(g.stiffness) && g.freeplay == 0.0 && !g.freeplay_bounds;
}

LinkSpec link_of(const PlanetarySpec& g) {
  LinkSpec l;
  l.name = g.name;
  l.coordinate = planetary_coordinate(g);
  return l;
}

SpringSpec spring_of(const PlanetarySpec& g) {
  SpringSpec s;
  copy_law(g, s);
  s.coordinate = planetary_coordinate(g);
  return s;
}

// x' = q_b - q_a / p = -x / p and T'(x') = -p T(-p x') (the torque on b,
// -T' before, is p T): the law mirrored, its stiffness and damping p^2
// times, its angles 1 / p times, its torques p times.
bool swap_bodies(const SpringSpec& s, SpringSpec& out) {
  if (s.body_b.empty() || !s.coordinate.empty() || !(s.ratio > 0.0)) return false;
  const double p = s.ratio;
  const auto mirrored = [](double v) { return v == 0.0 ? 0.0 : -v; };  // (no -0 in the file)
  out = s;
  std::swap(out.body_a, out.body_b);
  out.ratio = 1.0 / p;
  out.stiffness = p * p * s.stiffness;
  out.damping = p * p * s.damping;
  out.freeplay = s.freeplay / p;
  out.freeplay_lower = mirrored(s.freeplay_upper / p);
  out.freeplay_upper = mirrored(s.freeplay_lower / p);
  out.offset = mirrored(s.offset / p);
  out.preload = mirrored(p * s.preload);
  const std::size_t n = s.stiffness_table.x.size();
  for (std::size_t k = 0; k < n; ++k) {
    out.stiffness_table.x[k] = mirrored(s.stiffness_table.x[n - 1 - k] / p);
    out.stiffness_table.y[k] = mirrored(p * s.stiffness_table.y[n - 1 - k]);
  }
  return true;
}

std::vector<std::string> element_bodies(const ElementSpec& e) {
  return std::visit([](const auto& s) {
    std::vector<std::string> bodies;
    for (const auto& f : spec_fields(s)) {
      if (f.type == FieldType::body || f.type == FieldType::attachment) bodies.push_back(s.*f.text);
      if (f.type == FieldType::attachment) bodies.push_back(s.*f.second);
      if (f.type == FieldType::attachment && f.coordinate)  // (a lossy gear takes none)
        for (const CoordinateTerm& t : s.*f.coordinate) bodies.push_back(t.body);
    }
    bodies.erase(std::remove(bodies.begin(), bodies.end(), std::string()), bodies.end());
    return bodies;
  }, e);
}

}  // namespace luztar
