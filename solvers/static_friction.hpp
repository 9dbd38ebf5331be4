#pragma once
// Static friction torques of stuck elements (the s* of the S-S procedure) and
// the contact torques of rigid freeplays in persistent contact.
//
// In a locked cluster every body j satisfies I_j a_j = f_j - sum_e F_ej lambda_e,
// where a_j = g_j a is its share of the cluster's acceleration (a dense
// cluster's: a = N v') and F_e the link's coordinate row (e_a - e_b for a
// clutch, e_a - p e_b for a mesh in contact, any row; Model::links). The
// torques lambda therefore solve
// F^T lambda = r with r_j = f_j - I_j a_j. A contact's torque is one-sided
// (side * lambda >= 0); it has no upper limit. A locked one-way clutch's
// torque is bounded against overrun only (o lambda <= static_ratio D), and a
// loop with one weighs it like a contact (its locking side is unbounded). A
// permanent link's torque has no bound on either side (and no sign): a loop
// weighs it like a contact too, and it carries no utilisation. A lossy
// gear's mesh is a permanent link here; its loss link (stuck) has no limit
// of its own: its bound is a cone in its mesh torque, which the gear's own
// witnesses watch (elements/lossy_gear.hpp). In a loop (a bearing on shaft b
// beside the stuck gear holds shaft b twice) the cone's half (the gear's
// mode) bounds the split by two linear rows, the loss against the half's
// upper bound, L - k_hi lambda <= f, and lower one, L - k_lo lambda >= -f,
// each with the utilisation (L - k lambda) / f: the Chebyshev split then
// spreads the load over the bearing and the cone, and the group's
// utilisation reaches 1 where no split holds (a cone without bearing
// friction, f = 0, bounds the split from both sides as a contact does).
//
// When the stuck links of a cluster form a tree the solution is unique. When
// they close a loop (two stuck bearings on bodies that a stuck clutch locks
// together) it is not, though the motion is. The group then holds as long as
// some split keeps every |lambda_e| <= L_e (L_e = static limit), so luztar
// reports the Chebyshev split, the one whose largest utilisation |lambda_e|/L_e
// is smallest, and watches that utilisation u*: the group breaks away when
// u* reaches 1 (one root function per group), and the elements at their limit
// then are the ones that slip. Contacts in the loop bound the split from one
// side each; when no split keeps them all pressed, u* is reported above 1. u* is exact for one independent loop per
// cluster (nullity 1). With more loops the reported split is the minimum
// weighted norm one (weights L_e, current-divider like) and break-away is
// watched per element on that split (RunStats::redundant_splits counts them).
#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <vector>

#include "bodies/clusters.hpp"
#include "core/model.hpp"

namespace luztar {

struct StaticSplit {
  std::vector<int> bodies;  // cluster members (rows)
  std::vector<int> links;   // link ids (columns; Model::links)
  int nullity = 0;          // independent loops among the links
  Eigen::VectorXd null_dir;                                        // (links) loop direction (nullity 1)
  Eigen::VectorXd sqrt_weight;                                     // (links) sqrt(L_e) at locking (nullity >= 2)
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solver;  // of F^T diag(sqrt_weight)
  Eigen::MatrixXd ft;  // (bodies x links) F^T restricted to the cluster
  // Scratch buffers for evaluations (sized at construction, so solving allocates nothing).
  mutable Eigen::VectorXd rhs;    // (bodies)
  mutable Eigen::VectorXd sol;    // (links)
  mutable Eigen::VectorXd bound;        // (links) limits in + (nullity 1)
  mutable Eigen::VectorXd bound_lower;  // (links) limits in - (nullity 1; a one-way clutch's differ)
  // Lossy gears stuck in the loop (nullity 1): each its gear and the columns
  // of its mesh and loss links; their cones join the Chebyshev split as two
  // rows each (the loss against the half's upper and lower bound).
  struct LoopGear {
    int gear, mesh, loss;
  };
  std::vector<LoopGear> gears;
  mutable Eigen::VectorXd row_l0, row_n, row_upper, row_lower;  // (links + 2 gears) the rows of the split
};

// Prepares the split of cluster `cluster` whose stuck links are `links` (friction
// indices); weights are the break-away limits at time t (with the current input values).
StaticSplit make_static_split(const Model& m, const LockedClusters& c, int cluster, const std::vector<int>& links,
                              double t, const double* inputs);
// The same into `sp`. When sp already holds the split of the same bodies and
// links (the structure a cluster returns to at the next stick), only the
// time-dependent weights are redone, into the existing storage: no allocation.
void make_static_split(const Model& m, const LockedClusters& c, int cluster, const std::vector<int>& links,
                       double t, const double* inputs, StaticSplit& sp);

// lambda[links] (indexed by link id) from the applied torques `force` (nb),
// cluster accelerations `acc` (nc) and `slot_acc` (nb, dense clusters'; see
// body_acceleration in bodies/clusters.hpp), static limits `limit` (by link
// id; contacts' entries unused) and the contacts' sides. Returns the group
// utilisation u* (nullity 1) or the largest friction element utilisation
// (otherwise).
double solve_static_split(const StaticSplit& sp, const Model& m, const LockedClusters& c,
                          const std::vector<double>& force, const std::vector<double>& acc,
                          const std::vector<double>& slot_acc, const std::vector<double>& limit,
                          const std::vector<std::int8_t>& spring_side, const std::vector<std::int8_t>& element_mode,
                          std::vector<double>& lambda);

// Minimises max_i |l0_i + n_i z| / L_i over the scalar z in [z_low, z_high]
// exactly (the optimum lies where two of the 2m lines +-(l0_i + n_i z)/L_i
// cross, or at an end). Returns z; `value` receives the minimum.
double chebyshev_offset(const Eigen::VectorXd& l0, const Eigen::VectorXd& n, const Eigen::VectorXd& L,
                        double& value, double z_low = -INFINITY, double z_high = INFINITY);
// The same with a limit for each sign: minimises the largest of 0,
// (l0_i + n_i z) / upper_i and -(l0_i + n_i z) / lower_i (an infinite limit
// leaves that side free: a one-way clutch's locking side).
double chebyshev_offset(const Eigen::VectorXd& l0, const Eigen::VectorXd& n, const Eigen::VectorXd& upper,
                        const Eigen::VectorXd& lower, double& value, double z_low = -INFINITY,
                        double z_high = INFINITY);

}  // namespace luztar
