#pragma once
// A massless body on viscous bearings (Theorem 5.3 with Theorem 3.5 summing
// the bearings: sum mu_i tar(v, MT0_i/mu_i) = mu tar(v, sum MT0_i / mu)):
// mu_total q' = luz(M, MT0_total), M the applied torque on the body. The body
// is on one branch (side) of luz: -1 / +1 moving, 0 held (|M| <= MT0_total).
// Its bearings are not S-S elements: their stick-slip is this branch, and the
// kinks M -+ MT0_total = 0 are its witnesses.
#include <vector>

#include "core/model.hpp"
#include "elements/witness.hpp"

namespace luztar {

// --- law ------------------------------------------------------------------
// Velocity on a given branch (side) of luz [rad/s].
inline double massless_velocity(double torque, double mt0_total, double mu_total, int side) {
  return side == 0 ? 0.0 : (torque - side * mt0_total) / mu_total;
}
// Torque of one bearing (viscous mu, limit mt0) of a body on branch `side`
// moving at w: kinetic while moving; held (v = 0), the balancing torque M
// shared in proportion to the limits MT0_i (Theorem 3.5 read backwards).
inline double massless_bearing_torque(const Friction& f, double w, int side, double mt0, double mt0_total,
                                      double torque) {
  return side != 0 ? f.viscous * w + side * mt0 : (mt0_total > 0.0 ? torque * mt0 / mt0_total : 0.0);
}
// Tangent: on a moving branch q' = (M - side MT0) / mu, so dq'/dx = (dM/dx) / mu;
// held (side 0), q' = 0.

// --- witnesses --------------------------------------------------------------
// True when a massless body has dry friction (its luz has kinks to watch).
bool massless_has_kinks(const Model& m, int body);
inline constexpr int kMaxMasslessWitnesses = 2;
// The kinks a body on branch `side` watches: both from the held branch, the
// one it came through from a moving branch.
void massless_witnesses(int body, int side, std::vector<Witness>& out);
// Value of a massless witness (massless_upper/lower): M -+ MT0_total.
double massless_witness(const Model& m, const Witness& w, const WitnessInputs& in);
// The torques on the massless body against its MT0 (WitnessKindInfo::solved).
SolvedReach massless_reach(const Model& m, const Witness& w, const WitnessInputs& in);

}  // namespace luztar
