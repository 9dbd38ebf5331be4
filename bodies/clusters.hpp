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

// A run of indices in a flat list (the bodies of a cluster, the items of a group).
struct IndexRange {
  const int* first;
  const int* last;
  const int* begin() const { return first; }
  const int* end() const { return last; }
  std::size_t size() const { return static_cast<std::size_t>(last - first); }
  int front() const { return *first; }
  int back() const { return *(last - 1); }
  int operator[](std::size_t i) const { return first[i]; }
};

struct LockedClusters {
  std::vector<int> cluster_of;            // (nb) cluster id of each body
  std::vector<int> rep;                   // (nb) representative body, or -1 when tied to the base
  std::vector<bool> grounded;             // (nc) tied to the base
  std::vector<double> inertia;            // (nc) summed inertia [kg m^2]
  // (nc) stuck links beyond a spanning tree: > 0 means the static torques of
  // that cluster are not unique (the motion still is).
  std::vector<int> redundancy;
  // Bodies of cluster k, ascending: member_list[member_start[k] .. member_start[k+1]).
  std::vector<int> member_list;   // (nb)
  std::vector<int> member_start;  // (nc + 1)
  std::vector<int> scratch;       // (2 nb) union-find and numbering, kept to reuse its storage

  int num_clusters() const { return static_cast<int>(inertia.size()); }
  IndexRange members(int k) const {
    return {member_list.data() + member_start[k], member_list.data() + member_start[k + 1]};
  }
  // Sizes every vector for nb bodies, so that lock_clusters into this object
  // allocates nothing (it is called at every event).
  void reserve(int nb);
};

// Items that belong to links (e.g. the friction element of each stuck link),
// grouped by the cluster of their link: of(k) are cluster k's items, in the
// order given. Kept between uses: regrouping allocates nothing once grown.
struct ClusterGroups {
  std::vector<int> start;  // (nc + 1)
  std::vector<int> items;  // (links)
  std::vector<int> fill;   // (nc) scratch
  IndexRange of(int k) const { return {items.data() + start[k], items.data() + start[k + 1]}; }
  bool empty(int k) const { return start[k] == start[k + 1]; }
};
void group_by_cluster(const LockedClusters& c, const std::vector<Link>& links, const std::vector<int>& items,
                      ClusterGroups& out);

// Clusters of the bodies (inertia: nb) joined by the stuck links.
LockedClusters lock_clusters(const std::vector<double>& inertia, const std::vector<Link>& stuck_links);
// The same into `out`, reusing its storage (no allocation once reserved).
void lock_clusters(const std::vector<double>& inertia, const std::vector<Link>& stuck_links, LockedClusters& out);

}  // namespace luztar

namespace luztar {

// Makes the velocities w consistent with the clusters: bodies tied to the base
// stop, bodies of a free cluster take the cluster's momentum-weighted mean
// velocity (the M-orthogonal projection, which conserves momentum). Returns the
// kinetic energy removed [J] (>= 0).
double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w);

}  // namespace luztar
