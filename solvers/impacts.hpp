#pragma once
// Impacts of rigid freeplays (seed 002, eq. 12-14): when teeth meet, the
// velocities jump by impulses Pi >= 0 of all contacts at once,
// w+ = w- + M^-1 N^T Pi, with n_c = -side_c (e_a - p e_b) the separating
// velocity of contact c (u = N w >= 0 opens the gap) and A = N M^-1 N^T.
// The impulses follow Poisson's law in two phases, compression and expansion
// (Glocker, "Energetic consistency conditions for standard impacts", Part I:
// Newton-type laws, Part II: Poisson-type laws, Multibody Syst. Dyn. 2013,
// doi 10.1007/s11044-013-9387-2), each an LCP on A solved by Lemke's pivoting
// (PGS if Lemke fails):
//   compression  Pc >= 0,  u- + A Pc >= 0,  complementary (every row plastic);
//   expansion    D >= 0,   u+ = u- + A (Pc + s E Pc + D) >= 0,  complementary,
// Pi = Pc + s E Pc + D, E = diag(e_c), s = 1. For one contact this is
// Newton's law u+ = -e u-. For several the kinetic energy drops by
// Pc^T A Pc / 2 - s^2 (E Pc)^T A (E Pc) / 2 + D^T A D / 2, >= 0 for a common
// e and, by Glocker's Part II, for frictionless rows such as these; a guard
// holds it (impacts.cpp, apply_impulses): a gain beyond the LCPs' tolerance
// takes s = sqrt(Pc^T A Pc / (E Pc)^T A (E Pc)) < 1, then the compression
// alone (plastic), and says so (ImpactOutcome::restitution_limited). Newton's
// law on all rows at once, u+ >= -E u- ⊥ Pi, is what this replaced: it
// created energy where a row with u- > 0 (an overrunning one-way clutch) took
// an impulse (Glocker's Part I; a 76 % gain in tests/impact_energy_test.cpp).
// Every rigid freeplay whose teeth touch takes part: a contact that is already
// closed passes the impulse on (plastic: u- = 0 rebounds at 0), and teeth in
// their gap within `rest_depth` of a flank (or the roundoff of x) take part
// as contacts on it, so that a body wedged between two stops strikes both
// at once instead of in an endless sequence of ever shorter flights.
//
// Dry friction carries no impulse (its torque is bounded), so M is the
// bodies' own inertia: a stuck clutch between bodies that the impulse sets
// apart slips afterwards. A one-way clutch's lock does carry impulses (a
// sprag engages against any approach): every one-way clutch is a row
// n = o (e_a - e_b) with restitution 0 (u = o v >= 0 before; afterwards it
// stays >= 0, and the row's impulse is > 0 only where it ends at 0).
//
// Accumulation: a contact struck so slowly that its rebound e |u-| would be
// below `rest_velocity`, or whose rebound flight against the relative
// acceleration pressing it back (from the applied torques) would rise less
// than `rest_depth` off the flank (a flight the integrator cannot resolve), is
// taken as plastic (e = 0). A bouncing gear so comes to rest in contact after
// finitely many impacts instead of an endless sequence of ever shorter flights.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "core/model.hpp"

namespace luztar {

// Storage kept between impacts. Lemke's tableau is built per impact, so an
// impact allocates (an impact is a rare event next to the allocation-free
// stick/slip and freeplay events).
// One row of the impact: u = dir (w_a - ratio w_b) >= 0 separates.
struct ImpactRow {
  CoordinateRow row;             // the element's coordinate row (core/coordinate.hpp)
  double dir = 1.0;              // -side (a contact), o (a one-way clutch)
  double restitution = 0.0;      // e (0 for a one-way clutch)
  int spring = -1;               // the rigid freeplay spring, -1 for a one-way clutch
  int element = -1;              // its element id
};
struct ImpactWorkspace {
  std::vector<int> contacts;     // springs taking part (rigid, side != 0)
  std::vector<int> joined;       // of those, the ones in their gap that touched a flank (side set here)
  std::vector<std::int8_t> joined_side;  // (joined) the flank each touched
  std::vector<ImpactRow> rows;   // the contacts' rows, then every one-way clutch's
  std::vector<int> bodies;       // their bodies, ascending
  Eigen::MatrixXd n_minv;        // N M^-1 (rows x bodies)
  Eigen::MatrixXd delassus;      // N M^-1 N^T
  Eigen::VectorXd before, q, impulse;  // u-, the LCP's right-hand side (scratch), Pi
  Eigen::VectorXd restitution;         // e of each row at this impact (0: plastic, see approach_rows)
  Eigen::VectorXd compression;         // Pc, the compression phase's impulses
  std::vector<double> approach;        // (ns) approach speed -u- of each spring at the last impact (0: none)
  std::vector<double> jump;            // (nb) per body: sum_r |(M^-1 N^T)_kr| Pi_r, the size of the impulses'
                                       // terms in its w+ (0: no impulse reached it); their roundoff is its own
};

struct ImpactOutcome {
  bool struck = false;       // some contact approached: the velocities jumped
  double energy_lost = 0.0;  // kinetic energy removed [J] (>= 0 but for the LCP's roundoff)
  bool restitution_limited = false;  // the energy guard scaled the restitution impulses (s < 1) or,
                                     // the expansion gaining energy beyond its tolerance, dropped them
  bool solved = true;        // the LCP was solved (Lemke or PGS) to its tolerance
  bool fallback = false;     // Lemke failed or missed its tolerance: PGS was run
};

// Applies the impact to w. `side` holds each spring's side (rigid freeplays
// whose teeth touch: +-1); contacts that rebound (separating velocity after
// the impact) are set to side 0, the others stay in contact. The angles q are
// moved (by the event location's roundoff, mass-weighted) so that every
// contact sits exactly on its flank, x = side * a.
// `force` (nb) holds the applied torques at the impact (dynamics.hpp: applied_forces).
// `rest` is in the bodies' units: a contact's row x = sum c_k q_k compares
// row_scale(row) times it (core/coordinate.hpp) with its x' and its depth.
struct RestThreshold {
  double velocity = 0.0;  // [rad/s] of the bodies
  double depth = 0.0;     // [rad] of the bodies
};
ImpactOutcome resolve_impacts(const Model& m, std::vector<std::int8_t>& side, const RestThreshold& rest,
                              const std::vector<double>& force, std::vector<double>& q, std::vector<double>& w,
                              ImpactWorkspace& ws);
// After resolve_impacts (ws, and w the velocities after it): books the loss
// energy_lost [J] into element_dissipated (ne) by element, each contact's
// share -Pi_c (u_c- + u_c+) / 2 (its impulse times its mean separating
// velocity), scaled so that the shares add up to energy_lost.
void book_impact_shares(const ImpactWorkspace& ws, const std::vector<double>& w, double energy_lost,
                        std::vector<double>& element_dissipated);

}  // namespace luztar
