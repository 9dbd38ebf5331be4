#pragma once
// Kinematics of bodies locked together by the links of the variable structure:
// stuck friction elements and rigid freeplays in persistent contact. Each
// locked link holds the rate of its coordinate row at zero (core/coordinate.hpp).
//
// A stuck bearing fixes its body to the base; a stuck clutch makes two bodies
// turn as one; a gear mesh of ratio p in contact makes them turn as w_a = p w_b.
// The bodies fall into clusters. Rows of at most two bodies (the fast path)
// join them by a weighted union-find: a cluster tied to the base does not
// move, a free cluster moves with one coordinate, the velocity v of its
// representative, each member at w_j = g_j v (gain g_j, 1 for the
// representative). Its inertia is the reflected inertia sum I_j g_j^2 and its
// generalised torque sum g_j f_j. A loop of links whose ratios multiply to
// anything but 1 admits no motion: that cluster is held like one tied to the
// base. This is the variable structure of the S-S procedure in reduced
// coordinates: relative velocities of the links are zero by construction.
//
// A locked row of three or more bodies (a stuck clutch on a differential's
// coordinate) makes its connected bodies a dense cluster (issue 19, design
// 2.2): with C the cluster's locked rows over its members (r x m), a
// column-pivoting QR (relative threshold 1e-12) takes rank(C) pivot columns as
// the dependent members and the other d = m - rank(C) as the free ones, whose
// own velocities are the cluster's coordinates v: w = N v with N = [I;
// -C_dep^+ C_free]. d = 0 holds the cluster still. Its dynamics are
// N^T M N v' = N^T f, its redundancy r - rank(C). The fast path is untouched
// by it: a model without such rows locks exactly as before.
#include <Eigen/Dense>
#include <vector>

#include "core/model.hpp"

namespace luztar {

// The locked rows of the structure: each link's coordinate row (Model::links).
using LockedRows = std::vector<CoordinateRow>;

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

// The motion of a dense cluster (see above). Built once per composition
// (members and rows) and kept: meeting the composition again allocates nothing.
struct DenseBasis {
  std::vector<double> key;       // members, then each row's terms: what it was built for
  std::vector<int> members;      // (m) ascending
  std::vector<int> slots;        // (d) the free members, ascending: their velocity slots carry v
  Eigen::MatrixXd basis;         // N (m x d): w_members = N v, in members' order
  Eigen::MatrixXd accel_map;     // (N^T M N)^-1 N^T (d x m): v' = accel_map f_members
  Eigen::LLT<Eigen::MatrixXd> reduced;  // of N^T M N (d x d) [kg m^2]
  int redundancy = 0;            // r - rank(C): > 0, the static torques are not unique
  mutable Eigen::VectorXd mw, v; // scratch (m), (d): evaluations allocate nothing
  long used = 0;                 // build number of its last use (least recently used is replaced)
  int dof() const { return static_cast<int>(slots.size()); }
  // Index of body j among the members (j must be one).
  int local(int j) const;
};

struct LockedClusters {
  std::vector<int> cluster_of;            // (nb) cluster id of each body
  // (nb) representative body (lowest index), or -1 when held or in a dense cluster
  std::vector<int> rep;
  // (nb) w_j = gain_j * w_rep (1 for the representative, 0 when held or in a dense cluster)
  std::vector<double> gain;
  std::vector<bool> grounded;             // (nc) tied to the base, jammed by a loop of ratios, or dense with d = 0
  std::vector<double> inertia;            // (nc) reflected inertia sum I_j gain_j^2 [kg m^2] (0 for a dense cluster)
  // (nc) stuck links beyond a spanning tree (a dense cluster: r - rank(C)):
  // > 0 means the static torques of that cluster are not unique (the motion still is).
  std::vector<int> redundancy;
  // (nc) index into `pool` of a dense cluster's basis, -1 for a cluster of the fast path
  std::vector<int> dense_of;
  // Bodies of cluster k, ascending: member_list[member_start[k] .. member_start[k+1]).
  std::vector<int> member_list;   // (nb)
  std::vector<int> member_start;  // (nc + 1)
  std::vector<int> scratch;       // (3 nb) union-finds and numbering, kept to reuse its storage
  std::vector<double> relative;   // (nb) union-find: w_j = relative_j * w_parent(j)
  std::vector<DenseBasis> pool;   // the dense bases built so far (at most kDensePool)
  bool has_dense = false;         // some cluster is dense (the loops over them are skipped otherwise)
  long builds = 0;                // lock_clusters calls into this object (for the pool's ages)
  std::vector<double> key;        // scratch: the key of the dense cluster being looked up

  static constexpr std::size_t kDensePool = 16;

  int num_clusters() const { return static_cast<int>(inertia.size()); }
  IndexRange members(int k) const {
    return {member_list.data() + member_start[k], member_list.data() + member_start[k + 1]};
  }
  bool dense(int k) const { return dense_of[k] >= 0; }
  // The basis of dense cluster k.
  const DenseBasis& basis(int k) const { return pool[dense_of[k]]; }
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
void group_by_cluster(const LockedClusters& c, const LockedRows& rows, const std::vector<int>& items,
                      ClusterGroups& out);

// Clusters of the bodies (inertia: nb) joined by the locked rows.
LockedClusters lock_clusters(const std::vector<double>& inertia, const LockedRows& rows);
// The same into `out`, reusing its storage (no allocation once reserved, and
// for dense clusters once their composition has been met).
void lock_clusters(const std::vector<double>& inertia, const LockedRows& rows, LockedClusters& out);

// The acceleration of body j [rad/s^2] from the clusters' accelerations: acc
// (nc) of the fast path's clusters (their representatives'), slot_acc (nb)
// of a dense cluster's coordinates, at its free members' indices.
inline double body_acceleration(const LockedClusters& c, int j, const double* acc, const double* slot_acc) {
  const int k = c.cluster_of[j];
  if (!c.dense(k)) return c.gain[j] * acc[k];
  const DenseBasis& b = c.basis(k);
  const int l = b.local(j);
  double a = 0.0;
  for (int q = 0; q < b.dof(); ++q) a += b.basis(l, q) * slot_acc[b.slots[q]];
  return a;
}

// True when the clusters hold the rate of `row` at zero identically (every
// velocity they admit gives x' = 0): a rigid freeplay whose teeth the
// structure keeps still relative to each other.
bool holds_rate(const LockedClusters& c, const CoordinateRow& row);

}  // namespace luztar

namespace luztar {

// Makes the velocities w consistent with the clusters: bodies tied to the base
// stop, the bodies of a free cluster take w_j = g_j v with
// v = sum I_j g_j w_j / sum I_j g_j^2 (the M-orthogonal projection, a plastic
// impact of the links: it conserves the cluster's generalised momentum); a
// dense cluster's w = N v with v = (N^T M N)^-1 N^T M w.
// Returns the kinetic energy removed [J] (>= 0).
double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w);

}  // namespace luztar
