#pragma once
// Torque load: an external torque tau(t) on one body (a signal, core/signal.hpp).
// No relative coordinate, no stiffness, no witnesses; its power is the input
// power tau w of the energy balance.
#include "core/model.hpp"
#include "core/signal.hpp"
#include "elements/kinds.hpp"

namespace luztar {

// Its row in the table of kinds (elements/kinds.hpp).
extern const ElementKindInfo kTorqueKind;

// tau(t) of load l [N m], finite (core/signal.hpp: require_finite_at, named
// after its element: a NaN torque would end as a convergence failure).
inline double load_torque(const Model& m, int l, double t, const double* inputs) {
  return require_finite_at(evaluate(m.signals[m.loads[l].signal], t, inputs), t, "element",
                           m.element_names[m.load_element[l]], "torque");
}
// Input power tau w [W] of load l (w: (nb) velocities).
inline double load_power(const Model& m, int l, double t, const double* inputs, const double* w) {
  return load_torque(m, l, t, inputs) * w[m.loads[l].body];
}
// The same from the load's torque tau [N m] (its signal slot, solvers/dynamics.hpp).
inline double load_power(const Model& m, int l, double tau, const double* w) { return tau * w[m.loads[l].body]; }
inline ElementOutput load_output(const Model& m, int l, double t, const double* inputs) {
  return {load_torque(m, l, t, inputs), 0};
}
inline ElementOutput load_output(double tau) { return {tau, 0}; }

}  // namespace luztar
