#pragma once
// Static friction torques of stuck elements (the s* of the S-S procedure).
//
// In a locked cluster every body j satisfies I_j a_j = f_j - sum_e F_ej lambda_e,
// where a_j is the cluster's acceleration and F_e = e_a - e_b is the element's
// relative-velocity row. The torques lambda therefore solve F^T lambda = r with
// r_j = f_j - I_j a_j. When the stuck links of a cluster form a tree the solution
// is unique. When they close loops (two stuck bearings on bodies that a stuck
// clutch locks together) it is not; the motion still is. luztar then reports
// the split of minimum weighted norm, min sum lambda_e^2 / L_e with L_e the
// break-away limit when the cluster locked: the torque divides like current in
// a network of conductances L_e, so parallel paths carry load in proportion to
// their capacity. Break-away is watched on that split.
#include <Eigen/Dense>
#include <vector>

#include "bodies/clusters.hpp"
#include "core/model.hpp"

namespace luztar {

struct StaticSplit {
  std::vector<int> bodies;   // cluster members (rows)
  std::vector<int> links;    // stuck friction indices (columns)
  Eigen::VectorXd sqrt_weight;                                    // (links) sqrt(L_e)
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solver;  // of F^T diag(sqrt_weight)
  bool redundant = false;
  // Scratch buffers for evaluations (sized at construction, so solving allocates nothing).
  mutable Eigen::VectorXd rhs;  // (bodies)
  mutable Eigen::VectorXd sol;  // (links)
};

// Prepares the split of cluster `cluster` whose stuck links are `links` (friction
// indices); weights are the break-away limits at time t.
StaticSplit make_static_split(const Model& m, const LockedClusters& c, int cluster, const std::vector<int>& links,
                              double t);

// lambda[links] from the applied torques `force` (nb) and cluster accelerations `acc` (nc).
void solve_static_split(const StaticSplit& sp, const Model& m, const LockedClusters& c,
                        const std::vector<double>& force, const std::vector<double>& acc, std::vector<double>& lambda);

}  // namespace luztar
