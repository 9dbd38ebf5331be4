#pragma once
// Static friction torques of stuck elements (the s* of the S-S procedure).
//
// In a locked cluster every body j satisfies I_j a_j = f_j - sum_e F_ej lambda_e,
// where a_j is the cluster's acceleration and F_e = e_a - e_b is the element's
// relative-velocity row. The torques lambda therefore solve F^T lambda = r with
// r_j = f_j - I_j a_j.
//
// When the stuck links of a cluster form a tree the solution is unique. When
// they close a loop (two stuck bearings on bodies that a stuck clutch locks
// together) it is not, though the motion is. The group then holds as long as
// some split keeps every |lambda_e| <= L_e (L_e = static limit), so luztar
// reports the Chebyshev split, the one whose largest utilisation |lambda_e|/L_e
// is smallest, and watches that utilisation u*: the group breaks away when
// u* reaches 1 (one root function per group), and the elements at their limit
// then are the ones that slip. u* is exact for one independent loop per
// cluster (nullity 1). With more loops the reported split is the minimum
// weighted norm one (weights L_e, current-divider like) and break-away is
// watched per element on that split (RunStats::redundant_splits counts them).
#include <Eigen/Dense>
#include <vector>

#include "bodies/clusters.hpp"
#include "core/model.hpp"

namespace luztar {

struct StaticSplit {
  std::vector<int> bodies;  // cluster members (rows)
  std::vector<int> links;   // stuck friction indices (columns)
  int nullity = 0;          // independent loops among the links
  Eigen::VectorXd null_dir;                                        // (links) loop direction (nullity 1)
  Eigen::VectorXd sqrt_weight;                                     // (links) sqrt(L_e) at locking (nullity >= 2)
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solver;  // of F^T diag(sqrt_weight)
  Eigen::MatrixXd ft;  // (bodies x links) F^T restricted to the cluster
  // Scratch buffers for evaluations (sized at construction, so solving allocates nothing).
  mutable Eigen::VectorXd rhs;    // (bodies)
  mutable Eigen::VectorXd sol;    // (links)
  mutable Eigen::VectorXd bound;  // (links) limits (nullity 1)
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

// lambda[links] from the applied torques `force` (nb), cluster accelerations
// `acc` (nc) and static limits `limit` (nf). Returns the group utilisation u*
// (nullity 1) or the largest element utilisation (otherwise).
double solve_static_split(const StaticSplit& sp, const Model& m, const LockedClusters& c,
                          const std::vector<double>& force, const std::vector<double>& acc,
                          const std::vector<double>& limit, std::vector<double>& lambda);

// Minimises max_i |l0_i + n_i z| / L_i over the scalar z exactly (the optimum
// lies where two of the 2m lines +-(l0_i + n_i z)/L_i cross). Returns z; `value`
// receives the minimum.
double chebyshev_offset(const Eigen::VectorXd& l0, const Eigen::VectorXd& n, const Eigen::VectorXd& L,
                        double& value);

}  // namespace luztar
