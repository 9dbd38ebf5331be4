#pragma once
// Kinematics of bodies locked together by the links of the variable structure:
// stuck friction elements and rigid freeplays in persistent contact.
//
// A stuck bearing fixes its body to the base; a stuck clutch makes two bodies
// turn as one; a gear mesh of ratio p in contact makes them turn as w_a = p w_b.
// The bodies fall into clusters (weighted union-find over the links): a cluster
// tied to the base does not move, a free cluster moves with one coordinate, the
// velocity v of its representative, each member at w_j = g_j v (gain g_j, 1 for
// the representative). Its inertia is the reflected inertia sum I_j g_j^2 and
// its generalised torque sum g_j f_j. A loop of links whose ratios multiply to
// anything but 1 admits no motion: that cluster is held like one tied to the
// base. This is the variable structure of the S-S procedure in reduced
// coordinates: relative velocities of the links are zero by construction.
#include <vector>

#include "core/model.hpp"

namespace luztar {

// The velocity constraint w_a = ratio * w_b (w_b = 0 for the base).
struct Link {
  int a;               // body index
  int b;               // body index or kGround (-1)
  double ratio = 1.0;  // p: 1 for friction, the mesh ratio for a rigid freeplay
};

// The velocity constraint of link `link` of the model (Model::links).
inline Link link_of(const Model& m, int link) {
  const ModelLink& l = m.links[link];
  return {l.a, l.b, l.ratio};
}

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
  std::vector<int> rep;                   // (nb) representative body (lowest index), or -1 when held
  std::vector<double> gain;               // (nb) w_j = gain_j * w_rep (1 for the representative, 0 when held)
  std::vector<bool> grounded;             // (nc) tied to the base, or jammed by a loop of ratios
  std::vector<double> inertia;            // (nc) reflected inertia sum I_j gain_j^2 [kg m^2]
  // (nc) stuck links beyond a spanning tree: > 0 means the static torques of
  // that cluster are not unique (the motion still is).
  std::vector<int> redundancy;
  // Bodies of cluster k, ascending: member_list[member_start[k] .. member_start[k+1]).
  std::vector<int> member_list;   // (nb)
  std::vector<int> member_start;  // (nc + 1)
  std::vector<int> scratch;       // (2 nb) union-find and numbering, kept to reuse its storage
  std::vector<double> relative;   // (nb) union-find: w_j = relative_j * w_parent(j)

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
// stop, the bodies of a free cluster take w_j = g_j v with
// v = sum I_j g_j w_j / sum I_j g_j^2 (the M-orthogonal projection, a plastic
// impact of the links: it conserves the cluster's generalised momentum).
// Returns the kinetic energy removed [J] (>= 0).
double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w);

}  // namespace luztar
