#pragma once
// The table of kinds: what the solvers iterate instead of switching on kinds.
//
// Element kinds (core/model.hpp ElementKind), one file each with the same free
// functions (relation, law: torque and tangent stiffness/damping, witnesses,
// outputs, power):
//   spring    elements/freeplay_spring.hpp   k luz(x, a) + c x' (rigid freeplay: a link)
//   friction  elements/friction.hpp          mu tar(v, MT0/mu), bearings and clutches (a link)
//   torque    elements/torque_load.hpp       tau(t) on one body
// and the first-order law of a massless body on its bearings,
// elements/massless_bearing.hpp.
//
// Witness kinds (elements/witness.hpp): each row names the root function,
// says what its crossing means, and evaluates it.
#include <cstdint>

#include "core/model.hpp"
#include "core/result.hpp"
#include "elements/witness.hpp"

namespace luztar {

struct ElementKindInfo {
  ElementKind kind;  // (its name: core/model.hpp, to_string)
  // The event a change of the element's state from `before` to `after` is;
  // nullptr for a kind whose state never changes.
  EventKind (*event)(std::int8_t before, std::int8_t after);
};
const ElementKindInfo& element_kind_info(ElementKind k);

struct WitnessKindInfo {
  WitnessKind kind;
  const char* name;     // e.g. "stick_upper"
  const char* meaning;  // what its crossing means, in words
  Crossing crossing;    // ... and for the event pipeline
  int sign;             // the side or direction the crossing leads to (+1 / -1; 0 when none)
  // Its value at the state in `in` (the root is where it crosses 0).
  double (*value)(const Model& m, const Witness& w, const WitnessInputs& in);
};
extern const WitnessKindInfo kWitnessKinds[kNumWitnessKinds];
inline const WitnessKindInfo& witness_kind_info(WitnessKind k) { return kWitnessKinds[static_cast<int>(k)]; }
// False when a crossing changes no mode (a gap turnaround).
inline bool structural(WitnessKind k) { return witness_kind_info(k).crossing != Crossing::none; }
inline double witness_value(const Model& m, const Witness& w, const WitnessInputs& in) {
  return witness_kind_info(w.kind).value(m, w, in);
}

// Upper bound of the number of witnesses any variable structure of the model watches.
int max_witness_count(const Model& m);

}  // namespace luztar
