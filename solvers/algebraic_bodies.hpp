#pragma once
// Massless frictionless bodies that no theorem of Part 1 eliminates (a node
// joining three or more springs, or such nodes joined to each other): their
// angles solve the piecewise-linear torque balance
//
//   sum_s G_s,j k_s luz(x_s, a_s) = 0   for every such body j,
//
// i.e. they minimise the elastic energy E = sum_s 1/2 k_s luz(x_s, a_s)^2 over
// their angles with the other bodies held (the LCP of the PL system, in its
// convex-minimisation form). E is convex and piecewise quadratic, so a
// semismooth Newton iteration with a minimum-norm step and a backtracking line
// search reaches the exact minimiser once it has found the region of engaged
// springs (warm-started, usually one step). Inside freeplay the minimiser is a
// set; the torques on the other bodies are the same for all its points, and the
// reported angle is the one nearest the previous solution.
#include <vector>

#include "core/model.hpp"

namespace luztar {

struct Workspace;

// Overwrites ws.q of the algebraic bodies (warm start: ws.algebraic_q).
void solve_algebraic_bodies(const Model& m, Workspace& ws);

// Velocities of the algebraic bodies into ws.w (for outputs): q_A' = -K_AA^+ K_AO w_O
// in the current region.
void algebraic_velocities(const Model& m, Workspace& ws);

// d(force_o1)/d(q_o2) for the bodies around each group, with the group's angles
// eliminated (Schur complement of the current region's stiffness).
struct Coupling {
  int on, of;    // body indices
  double value;  // [N m/rad]
};
void algebraic_stiffness(const Model& m, const Workspace& ws, std::vector<Coupling>& out);

}  // namespace luztar
