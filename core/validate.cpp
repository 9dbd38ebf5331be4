// validate(): the rules a model description must satisfy, each reported with
// the dotted path of the field (io adds file:line:col to it). The parts are
// core/validate_simulation.cpp, validate_signals.cpp, validate_elements.cpp
// and validate_springs.cpp (core/validate_common.hpp).
#include <set>

#include "core/model.hpp"
#include "core/validate_common.hpp"

namespace luztar {

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
  for (const ElementSpec& e : spec.elements) {
    const std::string& name = element_name(e);
    const std::string p = "elements." + name;
    if (name.empty()) throw ModelError("elements", "an element has an empty name");
    if (const std::string problem = name_problem(name, false); !problem.empty()) throw ModelError(p, problem);
    if (!names.insert(name).second) throw ModelError(p, "the name '" + name + "' is used twice");
    validate_element(spec, e, p, body_names, body_kinds);
  }
  validate_named_signals(spec, body_names);
}

}  // namespace luztar
