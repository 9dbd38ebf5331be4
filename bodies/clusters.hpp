#pragma once
// Kinematics of bodies locked together by stuck friction elements.
//
// A stuck bearing fixes its body to the base; a stuck clutch makes two bodies
// turn as one. The bodies fall into clusters (union-find over the stuck links):
// a cluster tied to the base does not move, a free cluster moves with one
// velocity and the summed inertia (the reflected inertia of the locked group).
// This is the variable structure of the S-S procedure in reduced coordinates:
// relative velocities of stuck elements are exactly zero by construction.
#include <vector>

namespace luztar {

struct Link {
  int a;  // body index
  int b;  // body index or kGround (-1)
};

struct LockedClusters {
  std::vector<int> cluster_of;            // (nb) cluster id of each body
  std::vector<int> rep;                   // (nb) representative body, or -1 when tied to the base
  std::vector<std::vector<int>> members;  // (nc) bodies of each cluster, ascending
  std::vector<bool> grounded;             // (nc) tied to the base
  std::vector<double> inertia;            // (nc) summed inertia [kg m^2]
  // (nc) stuck links beyond a spanning tree: > 0 means the static torques of
  // that cluster are not unique (the motion still is).
  std::vector<int> redundancy;

  int num_clusters() const { return static_cast<int>(members.size()); }
};

LockedClusters lock_clusters(const std::vector<double>& inertia, const std::vector<Link>& stuck_links);

}  // namespace luztar

namespace luztar {

// Makes the velocities w consistent with the clusters: bodies tied to the base
// stop, bodies of a free cluster take the cluster's momentum-weighted mean
// velocity (the M-orthogonal projection, which conserves momentum). Returns the
// kinetic energy removed [J] (>= 0).
double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w);

}  // namespace luztar
