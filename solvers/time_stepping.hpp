#pragma once
// Moreau-Jean time stepping: the second solver, independent of event location
// (seed 003, Moreau's catching-up at the velocity level; Jean's theta scheme).
// It takes the same Model and writes the same Result as the event-driven
// solver, so the two are compared with the same tools. Selected by
// `simulation.solver: time_stepping` with `step` (h) and `theta`.
//
// One step t_k -> t_k+1 = t_k + h, with velocities v (nb) and impulses P on
// constraint rows G (one row per dry friction element, one per closing rigid
// freeplay):
//   W (v_k+1 - v_k) = h (F_theta + f(q_k, v_k) - h theta K v_k) + G^T P
//   W = M + h theta C + h^2 theta^2 K
//   q_k+1 = q_k + h ((1 - theta) v_k + theta v_k+1)
// f: spring torques T_el(x) + c x' and viscous bearing torques mu v at the
// start of the step; K: the springs' tangent stiffness on their side of luz at
// q_k (0 inside the gap, k outside: elastic freeplay stays in this smooth
// part; a stiffness table: the slope of the segment of q_k; the contact law:
// its clamp's factor); C: spring damping and bearing viscosity; F_theta: the loads at
// (1 - theta) t_k + theta t_k+1 (as a theta-weighted mean).
//
// The impulses solve one box-LCP per step (solvers/numerics/box_qp) on the Delassus
// matrix D = G W^-1 G^T, with u = G v_k+1:
//   dry friction (row e_a - e_b): P in h [-L, L]; u > 0 => P = -h L,
//     u < 0 => P = h L, |P| < h L => u = 0 (stuck). L = MT0(t_k+1), or
//     static_ratio MT0 when the element ended the previous step stuck.
//   rigid freeplay (stiffness .inf): gap functions g+ = a - (x - x_c) (row
//     -G_s) and g- = a + (x - x_c) (row G_s), x_c the gap's middle (its stops
//     at x_c -+ a: the offset and the bounds [lower, upper]). A side is in the index set when its gap predicted
//     half a step ahead, g + h/2 g', is <= 0; then Poisson's impact law at
//     velocity level holds (the event-driven impacts' law, solvers/impacts.hpp):
//     the step solved with every contact plastic (P >= 0 ⊥ u_k+1 >= 0) is
//     the compression Pc, and the contacts' impulses are then bounded below by
//     Pc + e P0 (P0 the impact's own compression on u_k), u_k+1 >= 0
//     complementary to the excess. One contact:
//     u_k+1 = -e u_k, Newton's law; several: never more energy back than the
//     compression took (Newton's law over several rows could create it).
// Accumulating impacts (e < 1 bouncing to rest in the gap) need no special
// treatment: once the rebound is too small to open the gap within a step,
// the law keeps the contact closed (persistent contact).
//
// Results: states on the output grid are interpolated linearly between steps;
// element torques are the step's mean (impulse / h for friction and rigid
// contacts) and states those of the step that contains the sample. Element
// state changes between steps are logged as events at the step's end time
// (resolution h). Energy: input work and dissipation (spring and bearing
// viscosity, friction and impact impulses) are booked with the step's mean
// velocity; with theta = 1/2 the balance closes up to the steps in which a
// spring crosses a kink of luz, theta > 1/2 adds numerical damping that the
// balance shows as its residual.
//
// Prescribed bodies (Model::drives) are data, not unknowns: each step takes
// a driven body's velocity at its end and its displacement from the drive,
// solves W's free block with the drives' known motion in the free rows
// (the coupling W_fd times the driven change the forces see, (dq/h - v_k) /
// theta), keeps impulses off the driven bodies (the LCP's rows still see their
// velocities), and books the driven body's own equation as its drive torque
// (the step's mean) and its work as input work. Friction on driven bodies
// alone is a known torque, not a row.
//
// Requirements: every body inertial (no massless bodies: their first-order
// dynamics belongs to the event-driven solver); h > 0, theta in [0.5, 1].
#include "core/model.hpp"
#include "core/result.hpp"
#include "core/run_frame.hpp"

namespace luztar {

// Runs settings.t_start -> t_end with step settings.step and samples every
// output_step; the last step is cut to end at t_end. Status reached_time only
// when t_end was reached with every output sample. Throws ModelError (field
// simulation.solver) when the model has massless bodies, std::invalid_argument
// for settings out of range (h not > 0, more than kMaxTimeSteps steps).
// keep_going: asked after every output sample (core/run_frame.hpp).
Result simulate_time_stepping(const Model& model, const SimulationSettings& settings,
                              const SampleHook& keep_going = {});

}  // namespace luztar
