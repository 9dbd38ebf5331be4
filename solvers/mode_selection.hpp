#pragma once
// The S-S procedure at an event (Part 1, Definition 5.1; Part 2, section 3.1),
// for all friction elements at zero relative velocity at once, and with them
// the rigid freeplays whose teeth touch (seed 002: the contact torque and the
// relative acceleration are complementary, so contacts join the same box-LCP
// with the one-sided bound [0, inf) in the direction of their side) and the
// one-way clutches at rest (bound only against overrun: [-inf, r D] for
// overrun positive, [-r D, inf] for negative; elements/one_way_clutch.hpp).
//
// Candidates are the elements whose relative velocity is zero at the event:
// the stuck ones and the ones whose slip velocity just reached zero. With their
// velocities held at zero, the friction torques lambda (|lambda_i| <= r_i MT0_i)
// that Gauss's principle selects minimise the acceleration energy
// 1/2 (f - F^T lambda)^T M^-1 (f - F^T lambda): a box-constrained QP / box-LCP
// with the Delassus matrix A = F M^-1 F^T, solved by projected Gauss-Seidel
// with an exact polish (solvers/numerics/box_qp); a group where that misses its
// tolerance is solved again by Lemke's pivoting (solvers/numerics/lcp, one-sided
// bounds included). An element whose
// relative acceleration comes out zero stays (or becomes) stuck; one with a
// non-zero relative acceleration slips in its direction, with kinetic friction.
// When static and kinetic limits differ (static_ratio > 1) the choice is
// repeated with the kinetic torques of the elements that slip, until no more
// element leaves the stuck set. Then every element set moving is checked
// against the torques it now meets (the held ones' as solved, the moving
// ones' own: kinetic friction, drag, none for a contact that let go): one set
// slipping by another's static torque, where that other slips too and so
// acts with its smaller kinetic torque, can find its relative acceleration
// pointing against its slip. The most contradicted such element is held
// again and the choice repeated, until none is: every held element within its
// static limit, every moving one accelerating its way. A contact whose relative acceleration comes
// out non-zero (it can only point away from the teeth) separates: its side
// becomes 0. A one-way clutch's can only come out zero (it locks) or in its
// overrun direction (it overruns, with its drag; a static_ratio > 1 is
// re-decided with the drag D as for friction). A lossy gear's links (its mesh,
// held always, and its loss when shaft a is at rest) are decided by the gear
// alone when nothing else is in their group (its bound is a cone in its mesh
// torque, elements/lossy_gear.hpp: lossy_select), and a moving gear gets the
// quadrant of its torques; beside dry friction (a bearing, a clutch) the
// group's modes are enumerated, gear and friction together, and the
// consistent one with the most rows held is taken (mode_selection.cpp,
// GearGroupSelection).
#include <vector>

#include "core/model.hpp"
#include "core/state.hpp"
#include "solvers/numerics/box_qp.hpp"
#include "solvers/dynamics.hpp"

namespace luztar {

// A stuck element whose reserve root just fired: its required static torque
// reached the limit and is about to exceed it, in the direction `mode`; or a
// contact whose torque just fell to zero (it is unloading: mode unused).
struct BreakAway {
  int link;           // link id (Model::links): friction index or contact
  FrictionMode mode;  // the slip direction the exhausted reserve points to
  // A contact's torque scale [N m] (the event pipeline's, from the restart
  // before): its torque within 1e-9 of it is unloaded. At the instant a
  // contact's torque passes through 0 the torques of its group may all be 0
  // too (nothing else loads its bodies then), no scale for their roundoff.
  // A friction element's or one-way clutch's reserve scale [N m] (its limit
  // and static torque, EventPipeline::reserve_scale): its torque within 1e-9
  // of it of its bound is at the bound, the band within which the pipeline
  // takes a reserve as at 0 (find_leaving_reserves); 0: 1e-9 of the bound.
  double scale = 0.0;
  // ... and at least within this much of its bound [N m]: 64 times the
  // roundoff of its reading from the angles (EventPipeline,
  // solved_torque_roundoffs), which outgrows 1e-9 of the scale once the
  // shafts have turned far enough.
  double band = 0.0;
};

struct ModeSelectionReport {
  int qp_solves = 0;
  int lemke_solves = 0;   // groups re-solved by Lemke (solvers/numerics/lcp.hpp) after the box QP missed its tolerance
  int unsolved = 0;       // groups whose box-LCP still missed its KKT tolerance (after Lemke where tried)
  bool converged = true;  // every group's box-LCP met its KKT tolerance (unsolved == 0)
};

// Storage kept between selections (the simulator owns one): the groups'
// Delassus matrices depend on the inertias only, so a group of candidates seen
// before is solved in its old storage, without allocation.
struct ModeSelectionScratch {
  struct Group {
    std::vector<int> elements;  // link ids (ascending)
    std::vector<int> bodies;    // their bodies, ascending
    Eigen::MatrixXd f_minv;     // F M^-1 (elements x bodies), F_e the link's row (e_a - p e_b for two bodies)
    Eigen::MatrixXd delassus;   // A = F M^-1 F^T
    Eigen::VectorXd force, b, lo, hi;
    BoxQpWorkspace qp_workspace;
    BoxQpSolution qp;
    long used = 0;              // selection number of the last use
  };
  // Groups met so far, filed under their lowest element (an element is in one
  // group at a time), a few compositions each, least recently used replaced.
  std::vector<std::vector<Group>> filed;  // (num_links)
  long selections = 0;
  std::vector<int> open, still_stuck;
  // The candidates decided moving (slipping, overrunning, let go) so far, and
  // the direction of each: +-1 for a friction element's slip or a one-way
  // clutch's overrun, minus the side for a contact that let go (its
  // consistent relative acceleration points away from the teeth).
  std::vector<int> moving, moving_dir;
  std::vector<int> side;            // (num_links) a contact candidate's side before the pass
  std::vector<char> in_open;        // (num_links) 1: open in this pass; 2: held after it
  std::vector<double> body_torque;  // (nb) applied torques less the held links' torques of the pass
  std::vector<char> body_known;     // (nb) 0: a lossy gear's group holds it (its torques are its own)
  std::vector<double> body_scale;   // (nb) the largest acceleration scale of the pass's groups on it
  ClusterGroups open_by_cluster;
  LockedRows links;
  LockedClusters clusters;
};

// Decides the modes of `candidates` (link ids: friction elements and one-way
// clutches at relative velocity zero in ws.w at time t, and rigid freeplays in
// contact, their side set); other elements keep their modes. Writes
// modes.friction_mode, a one-way clutch's lock state (its element_mode) and,
// for contacts that let go, modes.spring_side = 0.
//
// At the exact instant of break-away the required torque equals the limit and
// the relative acceleration is zero: the acceleration alone cannot tell. For
// the elements in `exhausted` (their reserve crossed zero, so the torque is
// leaving the admissible set) a torque at the limit means slip in that direction.
ModeSelectionReport select_friction_modes(const Model& m, State& modes, double t,
                                          const std::vector<int>& candidates, Workspace& ws,
                                          const std::vector<BreakAway>& exhausted = {});
ModeSelectionReport select_friction_modes(const Model& m, State& modes, double t,
                                          const std::vector<int>& candidates, Workspace& ws,
                                          const std::vector<BreakAway>& exhausted, ModeSelectionScratch& scratch);

}  // namespace luztar
