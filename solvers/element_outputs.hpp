#pragma once
// Per-element and per-body outputs (core/result.hpp): each element's torque and
// state, the coordinate each element acts on and its rate, the power it takes from the
// bodies, the bodies' accelerations, and the split of the dissipated power by
// element that the integrators book beside the global one (README, "Energy
// balance"). Each reads the element kinds' rows (elements/kinds.hpp), never a kind.
#include <cstdint>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"
#include "core/state.hpp"
#include "solvers/dynamics.hpp"

namespace luztar {

// Every per-element and per-body output at one instant (Result conventions,
// core/result.hpp; sized by resize).
struct OutputSample {
  std::vector<double> torque;             // (ne) [N m]
  std::vector<std::int8_t> state;         // (ne)
  std::vector<double> relative, rate;     // (ne) x [rad], x' [rad/s]
  std::vector<double> power;              // (ne) [W]
  std::vector<double> dissipated;         // (ne) [J]
  std::vector<double> acceleration;       // (reported bodies: nb, then removed ones) [rad/s^2]
  std::vector<double> drive_torque;       // (reported bodies) [N m] when the model has drives, else empty
  void resize(const Model& m);
};
// Appends the sample to the Result's per-element and per-body arrays.
void append_sample(const OutputSample& s, Result& r);
// The drives' torques (ws.drive_torque after cluster_accelerations) of the
// reported bodies into out (0 for free and removed bodies).
void drive_torques(const Model& m, const Workspace& ws, std::vector<double>& out);

// Element torques and states (Result conventions) from ws after applied_forces,
// cluster_accelerations and static_friction (ne each).
void element_outputs(const Model& m, const State& modes, const Workspace& ws, double* torque,
                     std::int8_t* state);
// Each element's coordinate row and the scale it is written with (by
// element id; built once, read at every sample).
struct ElementCoordinate {
  CoordinateRow row;
  bool has = false;    // a kind with neither a row nor a body: x = x' = 0
  double scale = 1.0;  // output_scale
};
std::vector<ElementCoordinate> element_coordinate_rows(const Model& m);
// The coordinate x of every element (ne) at angles q and its rate x' at
// velocities w (nb each): its coordinate row's sum c_k q_k, a one-body
// element's body angle (elements/kinds.hpp ElementKindInfo::relation, ::body),
// as written (divided by output_scale: an element a rigid merge carried reads
// in its own bodies' terms).
void element_coordinates(const std::vector<ElementCoordinate>& rows, const double* q, const double* w, double* x,
                         double* rate);
// The rate x' of element e's coordinate at velocities w (nb) [rad/s].
double element_rate(const Model& m, int e, const double* w);
// The power each element takes from the bodies (ne) [W], -sum_i f_i w_i, from its
// torque T and its coordinate's rate: T x' for a row (-c_k T on body k), -T w
// for a one-body element (+T on its body).
void element_powers(const Model& m, const double* torque, const double* rate, double* power);
// Each element's sign s of its power s T x' (by element id: +1 a row, -1 a
// one-body element, 0 neither), element_powers' factors.
std::vector<double> power_signs(const Model& m);
// Body accelerations (nb) [rad/s^2] from the cluster accelerations in ws.acc
// and ws.slot_acc (cluster_accelerations in the structure ms): a member's
// through its cluster's motion (bodies/clusters.hpp body_acceleration), a held
// body's 0, a massless body's NaN (its velocity is algebraic in the mode: not
// an integrated state).
// acc holds every reported body (Model::reported_body_names): removed ones after.
void body_accelerations(const Model& m, const ModeStructure& ms, const Workspace& ws, double* acc);

// The elements whose kinds dissipate (ElementKindInfo::dissipation), element
// ids in the order of the sum of dissipation_power (kSumOrder): the order of
// the per-element quadratures (solvers/mode_system.hpp).
std::vector<int> dissipative_elements(const Model& m);
// Their number (without building the list).
int dissipative_element_count(const Model& m);
// Their dissipated powers [W] at the state in ws (after applied_forces), in
// dissipative_elements order; they add up to dissipation_power (summed in
// this order from 0: to the bit). Returns their count.
int element_dissipation_powers(const Model& m, const State& modes, const Workspace& ws, double* power);

}  // namespace luztar
