// validate(): the rules a model description must satisfy, each reported with
// the dotted path of the field (io adds file:line:col to it). The parts are
// core/validate_simulation.cpp, validate_signals.cpp, validate_elements.cpp
// and validate_springs.cpp (core/validate_common.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/model.hpp"
#include "core/validate_common.hpp"

namespace luztar {

namespace {

// s with its references replaced by copies of the named signals (validate
// has checked that they exist, close no cycle and stay within the limits).
Signal inlined(const Signal& s, const std::map<std::string, Signal>& named) {
  if (s.kind == Signal::Kind::reference) return inlined(named.at(s.reference), named);
  Signal out = s;
  for (Signal& t : out.terms) t = inlined(t, named);
  return out;
}

// Whether element e can lock its bodies together (a link of the variable
// structure: friction, a one-way clutch, a permanent link, rigid teeth).
bool can_lock(const ElementSpec& e) {
  if (const auto* s = std::get_if<SpringSpec>(&e)) return s->stiffness == INFINITY;
  if (const auto* r = std::get_if<RackPinionSpec>(&e)) return r->stiffness == INFINITY;
  if (const auto* g = std::get_if<PlanetarySpec>(&e)) return g->stiffness == INFINITY;
  return !std::holds_alternative<TorqueSpec>(e) && !std::holds_alternative<ForceSpec>(e);
}

// The rules of prescribed motion (BodySpec::prescribed), first its drives':
// the drive's signal and the derivatives it needs, and the initial conditions
// it gives (not written beside it).
void validate_drives(const ModelSpec& spec, const std::set<std::string>& body_names) {
  using D = BodySpec::Drive;
  for (const BodySpec& b : spec.bodies) {
    if (b.prescribed == D::none) continue;
    const bool moves = is_translational(b);
    const std::string p = "bodies." + b.name, f = p + ".prescribed." + drive_key(b.prescribed, moves);
    validation::validate_signal(b.motion, f, spec.signals, body_names,
                                spec.simulation.t_end - spec.simulation.t_start);
    if (b.inertia == 0.0)
      throw ModelError(p + (moves ? ".mass" : ".inertia"),
                       "a prescribed body takes an inertia > 0 (the drive's torque includes I a; a massless one is "
                       "not supported)");
    // What the signal gives is not written beside it.
    const std::string angle = p + (moves ? ".position" : ".angle"), velocity = p + ".velocity";
    if (b.prescribed == D::angle && spec.locations.count(angle))
      throw ModelError(angle, std::string("the prescribed ") + drive_key(D::angle, moves) +
                                  " gives it (its value at t_start): leave it out");
    if (b.prescribed != D::acceleration && spec.locations.count(velocity))
      throw ModelError(velocity, std::string("the prescribed ") + drive_key(b.prescribed, moves) +
                                     " gives it (its value at t_start): leave it out");
    // The derivatives the drive needs exist: no impulse.
    const double t0 = spec.simulation.t_start;
    const Signal s = inlined(b.motion, spec.signals);
    try {
      if (b.prescribed != D::acceleration) derivative(s, t0);
    } catch (const std::domain_error& e) {
      throw ModelError(f, std::string("a prescribed ") + drive_key(b.prescribed, moves) +
                              " must not jump (the drive's torque would be an impulse): " + e.what());
    }
    try {
      if (b.prescribed == D::angle) derivative(derivative(s, t0), t0);
    } catch (const std::domain_error& e) {
      throw ModelError(f, std::string("a prescribed ") + drive_key(D::angle, moves) +
                              " needs a velocity without jumps (else the drive's torque is an impulse): " + e.what() +
                              " (prescribe the velocity instead)");
    }
  }
}

// The model at t_start as its elements' rules read it: a prescribed body's
// angle and velocity are its drive's there (assemble takes them so too), not
// the 0 of fields left out, so that a link, gear or one-way clutch at a
// driven shaft is checked against the motion it starts with (it was checked
// against rest: a one-way clutch started in its locked direction, exit 0).
// nullopt: no body is prescribed (the spec as written). After validate_drives.
std::optional<ModelSpec> driven_start(const ModelSpec& spec) {
  using D = BodySpec::Drive;
  if (std::none_of(spec.bodies.begin(), spec.bodies.end(), [](const BodySpec& b) { return b.prescribed != D::none; }))
    return std::nullopt;
  ModelSpec started = spec;
  const double t0 = spec.simulation.t_start;
  for (BodySpec& b : started.bodies) {
    if (b.prescribed == D::none) continue;
    Signal s = inlined(b.motion, spec.signals);
    if (b.prescribed == D::angle) {
      b.angle = evaluate(s, t0);
      s = derivative(s, t0);
    }
    if (b.prescribed != D::acceleration) b.velocity = evaluate(s, t0);
  }
  return started;
}

// Then what the solvers serve around a prescribed body.
void validate_driven_elements(const ModelSpec& spec) {
  std::set<std::string> driven;
  for (const BodySpec& b : spec.bodies)
    if (b.prescribed != BodySpec::Drive::none) driven.insert(b.name);
  if (driven.empty()) return;
  for (const ElementSpec& e : spec.elements) {
    const std::vector<std::string> on = element_bodies(e);
    const auto at = std::find_if(on.begin(), on.end(), [&](const std::string& n) { return driven.count(n) > 0; });
    if (at == on.end() || !can_lock(e)) continue;
    const std::string p = "elements." + element_name(e);
    const bool all_driven =
        std::all_of(on.begin(), on.end(), [&](const std::string& n) { return driven.count(n) > 0; });
    if (all_driven && !std::holds_alternative<FrictionSpec>(e))
      throw ModelError(p, "it acts on prescribed bodies alone: it would lock what the drives move (a friction "
                          "element there is a known torque, part of the drive's)");
    if (std::holds_alternative<PlanetarySpec>(e))
      throw ModelError(p, "an ideal or rigid planetary set (it locks three bodies) is not supported at prescribed "
                          "body '" + *at + "'; give its mesh a finite stiffness");
    if (on.size() > 2)
      throw ModelError(p, "an element that can lock three or more bodies is not supported at prescribed body '" +
                              *at + "'");
    const bool rigid_spring = std::holds_alternative<SpringSpec>(e) || std::holds_alternative<RackPinionSpec>(e);
    if (rigid_spring)
      throw ModelError(p + ".stiffness", "a rigid connection or rigid freeplay at prescribed body '" + *at +
                                             "' is not supported (it would merge the body or strike it); give a "
                                             "finite stiffness");
    // Its selection (lossy_select) takes both shafts as free: at a driven
    // shaft it left the drive unfollowed, or took the wrong loss.
    if (std::holds_alternative<LossyGearSpec>(e))
      throw ModelError(p, "a lossy gear at prescribed body '" + *at + "' is not supported yet (its mode selection "
                          "takes both shafts as free); drive it through a compliant shaft (a spring of finite "
                          "stiffness to a free shaft) or by a torque");
  }
}

}  // namespace

void validate(const ModelSpec& spec) { validate(spec, true); }

void validate(const ModelSpec& spec, bool body_kinds) {
  using namespace validation;
  validate_simulation(spec);

  if (spec.bodies.empty()) throw ModelError("bodies", "the model has no bodies");
  std::set<std::string> names;
  for (const BodySpec& b : spec.bodies) {
    const std::string p = "bodies." + b.name;
    if (b.name.empty()) throw ModelError("bodies", "a body has an empty name");
    if (const std::string problem = name_problem(b.name, false); !problem.empty()) throw ModelError(p, problem);
    if (!names.insert(b.name).second) throw ModelError(p, "the name '" + b.name + "' is used twice");
    if (b.kind != "rotational" && b.kind != "translational")
      throw ModelError(p + ".kind", "unknown body kind '" + b.kind + "' (expected one of: rotational, translational)");
    const bool moves = is_translational(b);
    const std::string inertia = p + (moves ? ".mass" : ".inertia"), angle = p + (moves ? ".position" : ".angle");
    require_nonnegative(b.inertia, inertia);  // 0: massless (reduced, see core/reduce.hpp)
    require_finite(b.angle, angle);
    require_finite(b.velocity, p + ".velocity");
    for (const auto& [v, key] : {std::pair{b.inertia, inertia}, {b.angle, angle}, {b.velocity, p + ".velocity"}})
      require_in_range(v, key);
  }
  const std::set<std::string> body_names = names;
  require_inlined_within_limits(spec);
  validate_named_signals(spec, body_names);
  validate_drives(spec, body_names);
  validate_driven_elements(spec);  // (what is not served at a drive, before the rules of what is)
  const std::optional<ModelSpec> started = driven_start(spec);
  for (const ElementSpec& e : spec.elements) {
    const std::string& name = element_name(e);
    const std::string p = "elements." + name;
    if (name.empty()) throw ModelError("elements", "an element has an empty name");
    if (const std::string problem = name_problem(name, false); !problem.empty()) throw ModelError(p, problem);
    if (!names.insert(name).second) throw ModelError(p, "the name '" + name + "' is used twice");
    validate_element(started ? *started : spec, e, p, body_names, body_kinds);
  }
}

}  // namespace luztar
