#include "bodies/clusters.hpp"

#include <algorithm>

namespace luztar {

void LockedClusters::reserve(int nb) {
  const auto n = static_cast<std::size_t>(nb);
  cluster_of.reserve(n);
  rep.reserve(n);
  grounded.reserve(n);
  inertia.reserve(n);
  redundancy.reserve(n);
  member_list.reserve(n);
  member_start.reserve(n + 1);
  scratch.reserve(2 * n);
}

void group_by_cluster(const LockedClusters& c, const std::vector<Link>& links, const std::vector<int>& items,
                      ClusterGroups& out) {
  const int nc = c.num_clusters();
  out.start.assign(static_cast<std::size_t>(nc) + 1, 0);
  for (const Link& l : links) ++out.start[c.cluster_of[l.a] + 1];
  for (int k = 0; k < nc; ++k) out.start[k + 1] += out.start[k];
  out.items.resize(items.size());
  out.fill.assign(out.start.begin(), out.start.end() - 1);
  for (std::size_t n = 0; n < links.size(); ++n) out.items[out.fill[c.cluster_of[links[n].a]]++] = items[n];
}

LockedClusters lock_clusters(const std::vector<double>& inertia, const std::vector<Link>& stuck_links) {
  LockedClusters c;
  lock_clusters(inertia, stuck_links, c);
  return c;
}

void lock_clusters(const std::vector<double>& inertia, const std::vector<Link>& stuck_links, LockedClusters& c) {
  const int nb = static_cast<int>(inertia.size());
  c.reserve(nb);
  c.scratch.resize(2 * static_cast<std::size_t>(nb));
  int* parent = c.scratch.data();
  int* cluster_of_root = parent + nb;
  for (int j = 0; j < nb; ++j) parent[j] = j;
  auto find = [&](int i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  // Union-find over bodies. The base is not a node: it has infinite inertia and
  // couples nothing, so two groups tied to the base stay separate groups.
  for (const Link& l : stuck_links)
    if (l.b >= 0) {
      const int ra = find(l.a), rb = find(l.b);
      if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;  // keep the lowest index as root
    }
  c.cluster_of.assign(nb, -1);
  c.rep.assign(nb, -1);
  c.grounded.clear();
  c.inertia.clear();
  c.redundancy.clear();
  for (int j = 0; j < nb; ++j) cluster_of_root[j] = -1;
  for (int j = 0; j < nb; ++j) {
    const int r = find(j);
    if (cluster_of_root[r] < 0) {
      cluster_of_root[r] = c.num_clusters();
      c.grounded.push_back(false);
      c.inertia.push_back(0.0);
      c.redundancy.push_back(0);  // counts the cluster's links first
    }
    const int id = cluster_of_root[r];
    c.cluster_of[j] = id;
    c.inertia[id] += inertia[j];
  }
  const int nc = c.num_clusters();
  // Flat member lists by counting sort; bodies stay ascending within a cluster.
  c.member_start.assign(static_cast<std::size_t>(nc) + 1, 0);
  for (int j = 0; j < nb; ++j) ++c.member_start[c.cluster_of[j] + 1];
  for (int k = 0; k < nc; ++k) c.member_start[k + 1] += c.member_start[k];
  c.member_list.resize(static_cast<std::size_t>(nb));
  int* next = cluster_of_root;  // reused: fill position of each cluster
  for (int k = 0; k < nc; ++k) next[k] = c.member_start[k];
  for (int j = 0; j < nb; ++j) c.member_list[next[c.cluster_of[j]]++] = j;
  // Links per cluster; a spanning tree of a cluster's members (plus the base
  // when tied to it) has nodes - 1 links, any more close loops.
  for (const Link& l : stuck_links) {
    const int id = c.cluster_of[l.a];
    ++c.redundancy[id];
    if (l.b < 0) c.grounded[id] = true;
  }
  for (int id = 0; id < nc; ++id) {
    const IndexRange mem = c.members(id);
    const int nodes = static_cast<int>(mem.size()) + (c.grounded[id] ? 1 : 0);
    c.redundancy[id] = std::max(0, c.redundancy[id] - (nodes - 1));
    for (int j : mem) c.rep[j] = c.grounded[id] ? -1 : mem.front();
  }
}

}  // namespace luztar

namespace luztar {

double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w) {
  double lost = 0.0;
  for (int k = 0; k < c.num_clusters(); ++k) {
    if (c.inertia[k] == 0.0) continue;  // massless: velocity given by its first-order equation
    double momentum = 0.0, before = 0.0;
    for (int j : c.members(k)) {
      momentum += inertia[j] * w[j];
      before += 0.5 * inertia[j] * w[j] * w[j];
    }
    const double v = c.grounded[k] ? 0.0 : momentum / c.inertia[k];
    for (int j : c.members(k)) w[j] = v;
    lost += before - 0.5 * c.inertia[k] * v * v;
  }
  return lost > 0.0 ? lost : 0.0;
}

}  // namespace luztar
