#include "core/signal_paths.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "core/units.hpp"

namespace luztar {

namespace {

using Kind = SignalPath::Kind;

struct EnergyName {
  const char* name;
  Kind kind;
};
constexpr EnergyName kEnergies[] = {
    {"input_work", Kind::input_work}, {"kinetic", Kind::kinetic}, {"elastic", Kind::elastic},
    {"dissipated", Kind::dissipated}};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

template <std::size_t N>
const OwnerQuantity* find_quantity(const OwnerQuantity (&table)[N], const std::string& name) {
  for (const OwnerQuantity& q : table)
    if (name == q.name) return &q;
  return nullptr;
}

// "'a', 'b' and 'c'" or "a|b|c" (quoted = false).
template <std::size_t N>
std::string quantity_names(const OwnerQuantity (&table)[N], bool quoted) {
  std::string s;
  for (std::size_t k = 0; k < N; ++k) {
    s += !quoted ? (k ? "|" : "") : k == 0 ? "" : k + 1 == N ? " and " : ", ";
    s += quoted ? std::string("'") + table[k].name + "'" : table[k].name;
  }
  return s;
}

std::string names_of(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? std::string("none") : s;
}

int index_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<int>(k);
  return -1;
}

[[noreturn]] void wrong(const std::string& path, const std::string& detail) {
  throw std::invalid_argument("'" + path + "': " + detail);
}

// A body's or an element's quantity; false when `what` is neither's.
bool owner_quantity(const SignalSpace& m, const std::string& owner, const std::string& what, SignalPath& s) {
  const int b = index_of(m.bodies, owner);
  if (const OwnerQuantity* q = find_quantity(kBodyQuantities, what); b >= 0 && q) {
    s = {q->kind, b};
    return true;
  }
  const int e = index_of(m.elements, owner);
  if (const OwnerQuantity* q = find_quantity(kElementQuantities, what); e >= 0 && q) {
    s = {q->kind, e};
    return true;
  }
  return false;
}

// The held output of sampled block k, as an input value.
SignalPath block(const SignalSpace& m, int k) { return {Kind::input, static_cast<int>(m.inputs.size()) + k}; }

}  // namespace

const OwnerQuantity kBodyQuantities[4] = {
    {"angle", Kind::angle, unit::angle, &Result::angle},
    {"velocity", Kind::velocity, unit::velocity, &Result::velocity},
    {"acceleration", Kind::acceleration, unit::acceleration, &Result::acceleration},
    {"drive_torque", Kind::drive_torque, unit::torque, &Result::drive_torque},
};
const OwnerQuantity kElementQuantities[6] = {
    {"torque", Kind::torque, unit::torque, &Result::element_torque},
    {"state", Kind::state, unit::one, nullptr},
    {"relative_angle", Kind::relative_angle, unit::angle, &Result::element_relative},
    {"relative_velocity", Kind::relative_velocity, unit::velocity, &Result::element_relative_velocity},
    {"power", Kind::power, unit::power, &Result::element_power},
    {"dissipated", Kind::element_dissipated, unit::energy, &Result::element_dissipated},
};

const OwnerQuantity* owner_quantity(SignalPath::Kind k) {
  for (const OwnerQuantity& q : kBodyQuantities)
    if (q.kind == k) return &q;
  for (const OwnerQuantity& q : kElementQuantities)
    if (q.kind == k) return &q;
  return nullptr;
}

static const std::vector<std::string> kNoInputs;  // a Result records none

SignalSpace signal_space(const Result& r) {
  return {r.body_names, r.element_names, kNoInputs, r.block_names, !r.drive_torque.empty()};
}

SignalSpace signal_space(const Model& m) {
  return {m.reported_body_names, m.element_names, m.input_names, m.sampled_names, !m.driven_bodies.empty()};
}

SignalPath resolve_signal_path(const Model& m, const std::string& path, SignalNames names, const char* noun) {
  return resolve_signal_path(signal_space(m), path, names, noun);
}

SignalPath resolve_signal_path(const SignalSpace& m, const std::string& path, SignalNames names, const char* noun) {
  SignalPath s;
  const bool aliases = names == SignalNames::with_aliases;
  const auto dot = path.find_last_of('.');
  if (aliases) {  // an input's or a block's own name (a block's may contain dots), or <owner>.<quantity>
    if (const int k = index_of(m.inputs, path); k >= 0) return {Kind::input, k};
    if (const int k = index_of(m.blocks, path); k >= 0) return block(m, k);
    // Names hold no dots, so a canonical path is never a short name; tried first,
    // a body or element named like a group ("energy") keeps its short names.
    if (dot != std::string::npos && owner_quantity(m, path.substr(0, dot), path.substr(dot + 1), s)) return s;
  }
  if (starts_with(path, "bodies.") && dot > 7) {
    const std::string body = path.substr(7, dot - 7), what = path.substr(dot + 1);
    if (index_of(m.bodies, body) < 0) wrong(path, "the model has no body '" + body + "'");
    if (!owner_quantity(m, body, what, s)) wrong(path, "a body has " + quantity_names(kBodyQuantities, true) + ", not '" + what + "'");
    return s;
  }
  if (starts_with(path, "elements.") && dot > 9 && index_of(m.blocks, path) < 0) {
    const std::string element = path.substr(9, dot - 9), what = path.substr(dot + 1);
    if (index_of(m.elements, element) < 0) wrong(path, "the model has no element '" + element + "'");
    if (!owner_quantity(m, element, what, s)) wrong(path, "an element has " + quantity_names(kElementQuantities, true) + ", not '" + what + "'");
    return s;
  }
  if (starts_with(path, "inputs.")) {
    const int k = index_of(m.inputs, path.substr(7));
    if (k < 0) wrong(path, "the model has no input '" + path.substr(7) + "' (inputs: " + names_of(m.inputs) + ")");
    return {Kind::input, k};
  }
  if (starts_with(path, "blocks.")) {
    const int k = index_of(m.blocks, path.substr(7));
    if (k < 0)
      wrong(path, "the model has no sampled block '" + path.substr(7) + "' (blocks: " + names_of(m.blocks) + ")");
    return block(m, k);
  }
  if (starts_with(path, "energy.")) {
    for (const EnergyName& e : kEnergies)
      if (path.substr(7) == e.name) return {e.kind, -1};
    wrong(path, "energy has input_work, kinetic, elastic and dissipated");
  }
  const std::string body_q = quantity_names(kBodyQuantities, false), element_q = quantity_names(kElementQuantities, false);
  throw std::invalid_argument(
      std::string("no ") + noun + " '" + path + "' (paths are bodies.<body>." + body_q + ", elements.<element>." +
      element_q + ", inputs.<input>, blocks.<block>, energy.input_work|kinetic|elastic|dissipated" +
      (aliases ? ", or the short names <body>." + body_q + ", <element>." + element_q + ", <input>, <block>" : "") +
      "; bodies: " + names_of(m.bodies) + "; elements: " + names_of(m.elements) +
      "; inputs: " + names_of(m.inputs) + "; blocks: " + names_of(m.blocks) + ")");
}

std::vector<std::string> signal_paths(const Model& m) { return signal_paths(signal_space(m)); }

std::vector<std::string> signal_paths(const SignalSpace& m) {
  std::vector<std::string> paths;
  for (const std::string& b : m.bodies)
    for (const OwnerQuantity& q : kBodyQuantities)
      if (q.kind != Kind::drive_torque || m.drives) paths.push_back("bodies." + b + "." + q.name);
  for (const std::string& e : m.elements)
    for (const OwnerQuantity& q : kElementQuantities) paths.push_back("elements." + e + "." + q.name);
  for (const std::string& i : m.inputs) paths.push_back("inputs." + i);
  for (const std::string& b : m.blocks) paths.push_back("blocks." + b);
  for (const EnergyName& e : kEnergies) paths.push_back(std::string("energy.") + e.name);
  return paths;
}

std::string signal_path_name(const Model& m, const SignalPath& s) {
  const auto at = [](const std::vector<std::string>& v, int k) { return v.at(static_cast<std::size_t>(k)); };
  for (const OwnerQuantity& q : kBodyQuantities)
    if (q.kind == s.kind) return "bodies." + at(m.reported_body_names, s.index) + "." + q.name;
  for (const OwnerQuantity& q : kElementQuantities)
    if (q.kind == s.kind) return "elements." + at(m.element_names, s.index) + "." + q.name;
  switch (s.kind) {
    case Kind::input: {
      const int ni = static_cast<int>(m.input_names.size());
      return s.index < ni ? "inputs." + at(m.input_names, s.index) : "blocks." + at(m.sampled_names, s.index - ni);
    }
    default:
      for (const EnergyName& e : kEnergies)
        if (e.kind == s.kind) return std::string("energy.") + e.name;
  }
  return {};
}

namespace {

// Refuses inputs.<name> on a Result: an input of the model is not recorded (and
// what is, of its effect), one the model has not is missing (where the Result
// knows the model's inputs; one read from a file does not).
[[noreturn]] void refuse_input(const Result& r, const std::string& path) {
  const std::string name = path.substr(7);
  if (r.input_names && index_of(*r.input_names, name) < 0)
    wrong(path, "the model has no input '" + name + "' (inputs: " + names_of(*r.input_names) + ")");
  std::vector<std::string> torques;
  for (std::size_t e = 0; e < r.element_kinds.size() && e < r.element_names.size(); ++e)
    if (r.element_kinds[e] == "torque" || r.element_kinds[e] == "force") torques.push_back(r.element_names[e]);
  wrong(path, "a run does not record its inputs (the host sets them; a Simulator reports '" + path +
                  "' as an output), only what they drive: the torque of a torque element an input drives, "
                  "elements.<element>.torque (torque elements: " + names_of(torques) +
                  "), and the work of the applied torques, energy.input_work");
}

}  // namespace

std::vector<double> recorded_signal(const Result& r, const std::string& path) {
  if (starts_with(path, "inputs.")) refuse_input(r, path);
  const SignalPath s = resolve_signal_path(signal_space(r), path, SignalNames::canonical);
  const std::size_t nt = r.time.size(), j = static_cast<std::size_t>(s.index);
  const std::size_t ne = r.element_names.size(), nsb = r.block_names.size();
  std::vector<double> v(nt);
  if (s.kind == Kind::state) {
    for (std::size_t k = 0; k < nt; ++k) v[k] = r.element_state[k * ne + j];
    return v;
  }
  if (const OwnerQuantity* q = owner_quantity(s.kind)) {
    const std::vector<double>& values = r.*(q->values);
    if (s.kind == Kind::drive_torque && values.empty()) return v;  // no drive: 0 (none stored)
    const bool of_body = q >= std::begin(kBodyQuantities) && q < std::end(kBodyQuantities);
    if (values.size() != nt * (of_body ? r.body_names.size() : ne))
      wrong(path, std::string("the result has no '") + q->name + "' (a file written before luztar stored it)");
    const std::size_t n = values.size() / std::max<std::size_t>(nt, 1);
    for (std::size_t k = 0; k < nt; ++k) v[k] = values[k * n + j];
    return v;
  }
  for (std::size_t k = 0; k < nt; ++k) {
    switch (s.kind) {
      case Kind::input: v[k] = r.block_output[k * nsb + j]; break;
      case Kind::input_work: v[k] = r.input_work[k]; break;
      case Kind::kinetic: v[k] = r.kinetic[k]; break;
      case Kind::elastic: v[k] = r.elastic[k]; break;
      case Kind::dissipated: v[k] = r.dissipated[k]; break;
      default: break;
    }
  }
  return v;
}

}  // namespace luztar
