#pragma once
// Lossy gear (issue 19 item 4): a rigid gear q_a = i q_b with a mesh
// efficiency that depends on the direction of the power flow (forward,
// a drives b: eta_f; back-driven, b drives a: eta_b; a worm or an EPS gear has
// eta_b < eta_f, a self-locking one eta_b <= 0) and a constant bearing friction
// f on shaft a. The law of Modelica's LossyGear (MSL 4,
// Rotational.Components.LossyGear), written on the mesh torque so that it
// stays defined for eta_b <= 0.
//
// Torques. The mesh holds x = q_a - i q_b at x' = 0 with a mesh torque lambda
// [N m, referred to shaft a], acting -lambda on a and +i lambda on b (a
// link's convention on its row (1, -i)). The loss L [N m] acts -L on a,
// against its speed w_a relative to the housing (the base). Modelica's
// flange torques are tau_a = lambda + L, tau_b = -i lambda; its torque balance
// 0 = tau_b + i (tau_a - tauLoss) is L = tauLoss.
//
// Moving (w_a != 0, direction s = sgn w_a): the mesh passes the power lambda w_a
// from a to b. Forward (s lambda > 0, a drives): P_b = eta_f P_a; back-driven
// (s lambda < 0, b drives): P_a = eta_b P_b. Each quadrant is linear,
//
//   L = s f + kappa lambda,  kappa = 1/eta_f - 1 (forward), eta_b - 1 (back),
//
// i.e. L = s (f + c |lambda|) with c_f = 1/eta_f - 1 >= 0, c_b = 1 - eta_b >= 0,
// and L w_a = |w_a| (f + c |lambda|) >= 0 is the power it dissipates; the mesh
// does no work (lambda (w_a - i w_b) = 0). Shaft a then feels -e lambda - s f
// with e = 1 + kappa (1/eta_f forward, eta_b back). With MSL's lossTable
// [0, eta_mf1, eta_mf2, tau_bf1, tau_bf2]: eta_f = eta_mf1, eta_b = eta_mf2,
// and f is MSL's tau_bf_a (the bearing friction on flange a's side):
// tau_bf1 = eta_f f, tau_bf2 = f / eta_b. MSL's bearing on flange b's side
// (tau_bf_b) is a Coulomb friction element on body b beside the gear (below:
// its group's selection), tau_bf1 = eta_f f + tau_bf_b / i and tau_bf2 = f /
// eta_b + tau_bf_b / i.
//
// Two inertias J_a, J_b carrying applied torques f_a, f_b (everything but the
// gear) move with w_a = v, w_b = v / i:
//
//   J_e v' = f_a + e f_b / i - s f,   J_e = J_a + e J_b / i^2,
//   lambda = J_b v' / i^2 - f_b / i = mu_s / J_e,
//   mu_s   = (J_b / i^2)(f_a - s f) - J_a f_b / i,
//
// and mu_s does not depend on the quadrant: while J_e > 0 in both quadrants
// (always for eta_b >= 0; validate J_a + eta_b J_b / i^2 > 0 otherwise, or the
// back-driven motion is ill-posed, a Painleve-like paradox) the sign of the
// mesh torque, hence the quadrant, is decided without iteration, and the
// power-flow reversal is a root of lambda (affine in the state and the
// torques within a mode).
//
// Stuck (w_a = 0, hence w_b = 0): lambda0 = -f_b / i, L0 = f_a - lambda0. The
// admissible loss is the set of losses no start of motion can beat,
//
//   L_min(lambda) <= L <= L_max(lambda),
//   L_max = f + c_f lambda+ + c_b lambda-,   L_min = -(f + c_f lambda- + c_b lambda+),
//
// (lambda+ = max(lambda, 0), lambda- = max(-lambda, 0)): a cone in (lambda, L)
// that widens linearly with the transmitted torque, not a box. It is not
// convex (a double cone), so it is split by the sign of lambda0 into two
// halves in which both bounds are linear: the stuck gear watches its two
// reserves L_max - L0 and L0 - L_min, and lambda0 itself (the half it is in).
// Break-away: L0 - L_max = f_a + e f_b / i - f with e the quadrant of lambda0,
// exactly the numerator of v' for s = +1 (and likewise below L_min for s = -1);
// with J_e > 0 the quadrant mu_s picks then agrees with lambda0's. So the
// selection is unique and explicit: stuck when L0 lies in the cone, else moving
// towards the bound it exceeds (lossy_select). Self-locking: with eta_b <= 0
// (c_b >= 1) and f_a = 0, L0 = f_b / i lies in the cone whatever f_b: a gear
// loaded from b alone stays stuck; driven from a against the load (lambda0 >
// 0) it starts forward once f_a + f_b / (i eta_f) > f.
//
// In the solvers: its mesh is a link locked always (a permanent link to the
// machinery), its loss a link on shaft a locked while stuck; the S-S
// selection leaves their group to lossy_select (solvers/mode_selection.cpp,
// decide_gear), which also settles a moving gear's quadrant; moving, its loss
// is the law's from the other elements' torques on its shafts (its kind sums
// last). The time stepper boxes its loss row by the cone at the mesh torque.
//
// Beside dry friction (a bearing on a shaft, a clutch to a third body: the
// only locking kind validate admits within its shafts' reach) the group is no
// box-LCP and no explicit rule: the selection enumerates the modes of the
// gear (stuck in either half, where the bounds above are linear in lambda, or
// moving in either quadrant, where L = s f + kappa lambda) and of the
// friction elements, and takes the one whose held torques fit (for some split
// of a loop) and whose slipping rows accelerate their way
// (GearGroupSelection). The derivation above then holds for the shafts'
// sides: J_a, f_a (J_b, f_b) sum the bodies stuck clutches lock to shaft a
// (b) (lossy_side_loads). With eta_b >= 0 the consistent mode is unique
// (tests: 600 random loads with a bearing on b against the closed form with
// f_b -+ F); with eta_b < 0 a stuck bearing on b can raise lambda and so widen
// the cone that holds the gear while moving back-driven is consistent too:
// validate refuses friction on b's side of a self-locking gear.
//
// Modes (one byte): the motion s in {-1, 0, +1} and the sign sigma in {-1, +1}
// of the mesh torque (moving: the quadrant, forward when s sigma > 0; stuck:
// the half of the cone), coded 3 s + sigma.
#include <cstdint>
#include <vector>

#include "core/model.hpp"
#include "core/state.hpp"
#include "elements/kinds.hpp"
#include "elements/witness.hpp"

namespace luztar {

// Its row in the table of kinds (elements/kinds.hpp).
extern const ElementKindInfo kLossyGearKind;

// --- modes ------------------------------------------------------------------------
inline std::int8_t lossy_mode(int motion, int sigma) { return static_cast<std::int8_t>(3 * motion + sigma); }
// s: -1, 0 (stuck) or +1.
inline int lossy_motion_of(std::int8_t mode) { return mode >= 2 ? 1 : mode <= -2 ? -1 : 0; }
// sigma: the sign of the mesh torque (+1 or -1).
inline int lossy_sigma_of(std::int8_t mode) { return mode - 3 * lossy_motion_of(mode); }
// Moving forward (a drives b): s sigma > 0.
inline bool lossy_forward(std::int8_t mode) { return lossy_motion_of(mode) * lossy_sigma_of(mode) > 0; }

// --- the law of one quadrant --------------------------------------------------------
// c_f = 1/eta_f - 1 and c_b = 1 - eta_b (both >= 0 for a valid law).
double lossy_forward_factor(const LossyGearLaw& g);
double lossy_back_factor(const LossyGearLaw& g);
// e = 1 + kappa: 1/eta_f forward, eta_b back.
double lossy_mesh_gain(const LossyGearLaw& g, bool forward);
// The loss while moving in direction s in a quadrant, L = s f + kappa lambda [N m].
double lossy_loss(const LossyGearLaw& g, int s, bool forward, double lambda);
// The bounds of the stuck loss at mesh torque lambda [N m].
double lossy_loss_max(const LossyGearLaw& g, double lambda);
double lossy_loss_min(const LossyGearLaw& g, double lambda);
// J_e = J_a + e J_b / i^2 [kg m^2] in a quadrant.
double lossy_effective_inertia(const LossyGearLaw& g, double inertia_a, double inertia_b, bool forward);

// --- two inertias ---------------------------------------------------------------------
// Shaft a's and b's inertias and the torques on them besides the gear's.
struct GearLoads {
  double inertia_a = 1.0, inertia_b = 1.0;  // J_a, J_b > 0 [kg m^2]
  double torque_a = 0.0, torque_b = 0.0;    // f_a, f_b [N m]
};
// The gear's state of motion: v' = w_a', lambda, L.
struct GearMotion {
  double acceleration = 0.0;  // w_a' [rad/s^2]
  double mesh = 0.0;          // lambda [N m]
  double loss = 0.0;          // L [N m]
  bool forward = true;        // the quadrant (moving); stuck: lambda >= 0
};
// mu_s (lambda J_e), whose sign is the mesh torque's whatever the quadrant.
double lossy_mesh_sign_numerator(const LossyGearLaw& g, const GearLoads& l, int s);
// Moving in direction s (+-1), in the quadrant mu_s decides (forward at mu_s = 0).
GearMotion lossy_moving(const LossyGearLaw& g, const GearLoads& l, int s);
// ... in a given quadrant (a mode's law, affine in the torques).
GearMotion lossy_moving_in(const LossyGearLaw& g, const GearLoads& l, int s, bool forward);
// Held: lambda0 = -f_b / i, L0 = f_a - lambda0, w_a' = 0.
GearMotion lossy_stuck(const LossyGearLaw& g, const GearLoads& l);
// The reserves of a stuck gear, L_max - L0 and L0 - L_min [N m] (>= 0: it holds).
double lossy_upper_reserve(const LossyGearLaw& g, const GearMotion& stuck);
double lossy_lower_reserve(const LossyGearLaw& g, const GearMotion& stuck);
// The S-S decision at w_a = 0: 0 when it holds (both reserves >= -tol), else
// the direction it moves. exhausted (+-1, 0 none): a reserve that just reached
// 0 on that side (at the instant of break-away the reserve is 0 up to roundoff
// and the acceleration alone cannot tell): a reserve within tol then moves.
int lossy_select(const LossyGearLaw& g, const GearLoads& l, int exhausted = 0, double tol = 0.0);
// The mode byte after lossy_select: stuck with sigma the sign of lambda0
// (+1 at 0), or moving in its quadrant.
std::int8_t lossy_selected_mode(const LossyGearLaw& g, const GearLoads& l, int s);
// The power it dissipates, L w_a [W] (0 stuck).
inline double lossy_dissipation(double loss, double w_a) { return loss * w_a; }
// The bounds of the stuck loss in the half sigma of the cone (affine in lambda):
// sigma +1: f + c_f lambda and -f - c_b lambda; sigma -1: f - c_b lambda and -f + c_f lambda.
double lossy_half_max(const LossyGearLaw& g, int sigma, double lambda);
double lossy_half_min(const LossyGearLaw& g, int sigma, double lambda);

// --- the element (Model::lossy_gears) ------------------------------------------------
// Its mode byte in `modes`.
inline std::int8_t lossy_gear_mode(const Model& m, int i, const State& modes) {
  return modes.element_mode[m.lossy_gear_element[i]];
}
// Its state code (Result::element_state): 0 stuck; s (+-1) moving forward, a
// driving b; 2 s back-driven, b driving a (s = sgn w_a).
inline std::int8_t lossy_state(std::int8_t mode) {
  const int s = lossy_motion_of(mode);
  return static_cast<std::int8_t>(lossy_forward(mode) || s == 0 ? s : 2 * s);
}
// The torques on its shafts besides its own, from the applied torques `force`
// (nb; the gear sums last, elements/kinds.cpp: kSumOrder).
inline GearLoads lossy_loads(const Model& m, const LossyGear& g, const double* force) {
  return {m.inertia[g.body_a], m.inertia[g.body_b], force[g.body_a], force[g.body_b]};
}
// The same for each side of the moving gear as the stuck friction links
// within its reach (LossyGear::reach_links; `modes`) lock it: every body held
// to shaft a (b) by stuck clutches moves with it at w_j = g_j w_a (g_j w_b),
// so its side is one inertia sum_j J_j g_j^2 under the torque sum_j f_j g_j
// (the stuck clutches' torques are internal to it). Without stuck links there
// it is lossy_loads. A stuck link joining the two sides (a loop through the
// mesh, whose split the law cannot tell) leaves the shafts' own loads, and so
// do bodies beyond kMaxGearReach.
inline constexpr int kMaxGearReach = 32;
GearLoads lossy_side_loads(const Model& m, const LossyGear& g, const State& modes, const double* force);
// How far past 0 its mesh torque and its reserves go before their roots,
// relative to its links' torque scale (as a one-way clutch's reserve,
// elements/one_way_clutch.hpp: kOneWayReserveMargin): an unloaded gear without
// bearing friction holds with both reserves identically 0, and a load that
// starts from 0 would show the integrator no sign change.
inline constexpr double kLossyMargin = 1e-12;
// Its witnesses in `mode` (see the top of this file): its mesh torque
// (gear_mesh, on its mesh link); moving, w_a reaching 0 (slip_velocity on its
// loss link, slip_margin past 0); stuck, its two reserves (gear_upper,
// gear_lower on its loss link). margin: kLossyMargin times the torque scale [N m].
void lossy_gear_witnesses(const LossyGear& g, std::int8_t mode, double slip_margin, double margin,
                          std::vector<Witness>& out);
// The value of witness w (gear_mesh, gear_upper, gear_lower) at `in`.
double lossy_gear_witness(const Model& m, const Witness& w, const WitnessInputs& in);
// Its mesh torque and loss, solved in its shafts' cluster, and (a reserve)
// its bearing friction (WitnessKindInfo::solved).
SolvedReach lossy_gear_reach(const Model& m, const Witness& w, const WitnessInputs& in);
// Whether a stuck gear's torques (mesh lambda, loss L) lie in its cone, within tol [N m].
bool lossy_holds(const LossyGearLaw& g, double lambda, double loss, double tol);
// The event a change of its state (lossy_state: 0, s, 2 s) is: stick, break_away, reversal, or power_flow.
EventKind lossy_event(std::int8_t before, std::int8_t after);

}  // namespace luztar
