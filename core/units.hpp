#pragma once
// Units: the one table of what luztar stores (output) and of what each model
// field measures (input).
//
// Output: every stored quantity has one SI unit string, written beside it (the
// `units` attribute of an HDF5 dataset, `[unit]` in a CSV header, the CLI
// summary). "1" marks states, counts and ratios.
//
// Input: every numeric model field has one Dimension (field_dimension); a value
// may carry a unit ("1.2e4 N m/rad", "10 deg", "1500 rpm"), converted to SI on
// reading (to_si); a plain number is SI already.
#include <string>
#include <vector>

namespace luztar {

// Units of the stored quantities.
namespace unit {
inline constexpr const char* time = "s";
inline constexpr const char* angle = "rad";
inline constexpr const char* velocity = "rad/s";
inline constexpr const char* acceleration = "rad/s^2";
inline constexpr const char* torque = "N m";
inline constexpr const char* energy = "J";
inline constexpr const char* power = "W";
inline constexpr const char* one = "1";  // states, counts, ratios
// A translational body's and coordinate's (issue 19 item 8).
inline constexpr const char* position = "m";
inline constexpr const char* linear_velocity = "m/s";
inline constexpr const char* linear_acceleration = "m/s^2";
inline constexpr const char* force = "N";
// A sampled block's held output has the unit of the signal it holds, which the
// model does not declare.
inline constexpr const char* of_signal = "unit of the signal";
}  // namespace unit

// Unit of a stored signal by its path: bodies.<b>.<quantity>,
// elements.<e>.<quantity> (core/signal_paths.hpp), energy.<kind>, time; ""
// for any other path.
const char* signal_unit(const std::string& path);
// The unit a stored rotational quantity's unit `u` becomes on a translational
// body or coordinate: rad -> m, rad/s -> m/s, rad/s^2 -> m/s^2, N m -> N; any
// other (W, J, 1) is `u` itself.
const char* translational_unit(const char* u);

struct Model;
// The unit of each sampled block's held output (Model::sampled order). A block
// whose output reaches an applied torque or a friction limit (the signals of
// Model::signals, [N m]) through sums and the blocks that keep their input's
// unit (dead zone, saturation, hold, play) holds a torque, whatever its own
// kind (a relay's value and an integrator's bounds are then torques too); any
// other (inside a product, or the input of a relay or an integrator) carries
// a unit the model does not declare: unit::of_signal.
std::vector<std::string> block_units(const Model& m);

// What a numeric model field measures.
enum class Dimension {
  plain,             // unit depends on use (a named signal, a controller input): plain numbers only
  dimensionless,     // ratios, tolerances [1]
  time,              // [s]
  frequency,         // [Hz]
  angle,             // [rad]
  angular_velocity,  // [rad/s]
  torque,            // [N m]
  stiffness,         // torsional stiffness [N m/rad]
  damping,           // torsional damping [N m s/rad]
  inertia,           // [kg m^2]
  length,            // [m] (a friction radius, a translational body's position)
  force,             // [N] (a clutch's normal force, a force on a translational body)
  mass,              // [kg] (a translational body)
  velocity,          // [m/s] (a translational body)
  linear_stiffness,  // [N/m]
  linear_damping,    // [N s/m]
};

// The dimension a rotational field's dimension `d` takes on a translational
// body or an element on translational bodies (core/model_spec.hpp BodySpec::kind):
// angle -> length, angular velocity -> velocity, torque -> force, torsional
// stiffness -> linear stiffness, torsional damping -> linear damping; any other is d.
Dimension translational(Dimension d);

// "torsional stiffness", "angle", ...
const char* dimension_name(Dimension d);
// SI unit of the dimension ("N m/rad"); "" for plain.
const char* si_unit(Dimension d);
// The units a value of the dimension may carry, SI first ("N m/rad, Nm/rad, N m/deg, ...").
std::string accepted_units(Dimension d);

// The dimension of the model field at a dotted path as the reader names it
// ("elements.mesh.stiffness", "elements.motor.torque.sine.frequency",
// "signals.drive.amplitude"; a signal's kind may be left out, as sweep paths
// do). Signals of element torques and Coulomb limits carry torques; named
// signals (`signals:`) and the input of a product, a relay or a saturated
// integrator have no declared unit (plain). Table points ("...table.points[i]")
// give the dimension of the values; their times are in [s].
// The path's dimension is that of a rotational body or element: a reader
// that knows the element's bodies are translational converts it (translational()).
Dimension field_dimension(const std::string& path);

// A number with an optional unit -> SI. Returns false for text that does not
// start with a number (not a quantity: a name). Otherwise true, with `si` set,
// or with `error` set ("unknown unit 'furlong' (torque units: N m, ...)",
// "'deg' is a unit of angle, not of torsional stiffness (torsional stiffness units: ...)")
// when the unit is unknown, of another dimension, or given to a plain field.
bool to_si(const std::string& text, Dimension d, double& si, std::string& error);

}  // namespace luztar
