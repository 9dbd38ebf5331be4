#pragma once
// One address space for every quantity a run records or a simulator reports:
// runs (Result, HDF5 groups), metrics, sweeps, the Simulator, the C API and the
// C++ facade all name a signal by the same path, resolved here only.
//
// Canonical paths (README, "Signal paths"):
//   bodies.<body>.angle [rad]        bodies.<body>.velocity [rad/s]
//   bodies.<body>.acceleration [rad/s^2]
//   elements.<element>.torque [N m]  elements.<element>.state [1] (friction -1/0/+1
//                                    slip-/stuck/slip+, spring freeplay side)
//   elements.<element>.relative_angle [rad]  .relative_velocity [rad/s]  (its coordinate)
//   elements.<element>.power [W]     elements.<element>.dissipated [J] (core/result.hpp)
//   inputs.<input>                   a named input's value (unit of the signal)
//   blocks.<block>                   a sampled block's held output (Model::sampled_names;
//                                    an inline block is named by its field, e.g.
//                                    blocks.elements.motor.torque.saturation.of)
//   energy.input_work | energy.kinetic | energy.elastic | energy.dissipated [J]
// Short names (aliases, accepted with SignalNames::with_aliases, as hosts of the
// Simulator and the C API have always written them):
//   <body>.<quantity>  <element>.<quantity>  <input>  <block>
// Body and element names hold no dots and are distinct, so neither form is ambiguous.
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"

namespace luztar {

struct SignalPath {
  enum class Kind {
    angle, velocity,  // index: body
    torque, state,    // index: element
    input,            // index: into the input values (Model::num_input_values): a named input,
                      // or a sampled block's held output at Model::sampled[k].input
    input_work, kinetic, elastic, dissipated,  // index -1
    acceleration,                                          // index: body
    relative_angle, relative_velocity, power, element_dissipated,  // index: element
    drive_torque,                                          // index: body (a prescribed body's drive)
  };
  Kind kind = Kind::angle;
  int index = -1;
};

inline bool operator==(const SignalPath& a, const SignalPath& b) { return a.kind == b.kind && a.index == b.index; }

enum class SignalNames { canonical, with_aliases };

// A quantity every body or every element has, as stored (Result arrays,
// HDF5 datasets /bodies/<b>/<name> and /elements/<e>/<name>, CSV columns
// <owner>.<name> [unit]), in their order of storage.
struct OwnerQuantity {
  const char* name;                   // e.g. "relative_velocity"
  SignalPath::Kind kind;
  const char* unit;                   // SI (core/units.hpp)
  std::vector<double> Result::*values;  // (nt x nb or ne); nullptr: the element state (int8)
};
extern const OwnerQuantity kBodyQuantities[4];
extern const OwnerQuantity kElementQuantities[6];
// The quantity of kind k (nullptr for inputs, blocks and energies).
const OwnerQuantity* owner_quantity(SignalPath::Kind k);

// The names a path is resolved against: a Model's, or a Result's (which records
// no inputs: pass none, and its blocks are then input values 0.. nsb-1).
struct SignalSpace {
  const std::vector<std::string>& bodies;
  const std::vector<std::string>& elements;
  const std::vector<std::string>& inputs;
  const std::vector<std::string>& blocks;  // block k is input value inputs.size() + k
  // Some body's motion is prescribed: signal_paths lists bodies.<b>.drive_torque
  // (the path resolves in any model, to 0 where no drive acts).
  bool drives = false;
};
SignalSpace signal_space(const Model& model);

// The signal at `path`. Throws std::invalid_argument:
//   "'bodies.nope.velocity': the model has no body 'nope'" (a canonical path naming
//   something the model lacks, or a quantity the group has not), or, for any other
//   text, "no <noun> '<path>' (" followed by the grammar and every valid path of the model.
// `noun` names what the caller looks up ("signal", "output").
SignalPath resolve_signal_path(const SignalSpace& space, const std::string& path, SignalNames names,
                               const char* noun = "signal");
SignalPath resolve_signal_path(const Model& model, const std::string& path, SignalNames names,
                               const char* noun = "signal");

// Every canonical path of the model, in the order bodies, elements, inputs,
// blocks, energies.
std::vector<std::string> signal_paths(const Model& model);
std::vector<std::string> signal_paths(const SignalSpace& space);

// The names a run's Result records (no inputs).
SignalSpace signal_space(const Result& r);

// The values of the signal at a canonical path at every output sample of a run
// (nt). Throws std::invalid_argument as resolve_signal_path, and for inputs.*:
// "'inputs.u': a run does not record its inputs (...), only what they drive: ..."
// for an input of the model (or any, where r.input_names is not known),
// "'inputs.x': the model has no input 'x' (inputs: u)" for a name it lacks.
std::vector<double> recorded_signal(const Result& r, const std::string& path);

// The canonical path of a signal (inverse of resolve_signal_path).
std::string signal_path_name(const Model& model, const SignalPath& s);

// The SI unit of a signal at a canonical path: signal_unit() in core/units.hpp.

}  // namespace luztar
