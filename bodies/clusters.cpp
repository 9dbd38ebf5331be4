#include "bodies/clusters.hpp"

#include <algorithm>
#include <numeric>

namespace luztar {

namespace {
// Union-find over bodies. The base is not a node: it has infinite inertia and
// couples nothing, so two groups tied to the base stay separate groups.
int find(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}
}  // namespace

LockedClusters lock_clusters(const std::vector<double>& inertia, const std::vector<Link>& stuck_links) {
  const int nb = static_cast<int>(inertia.size());
  std::vector<int> parent(nb);
  std::iota(parent.begin(), parent.end(), 0);
  for (const Link& l : stuck_links)
    if (l.b >= 0) {
      const int ra = find(parent, l.a), rb = find(parent, l.b);
      if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;  // keep the lowest index as root
    }
  LockedClusters c;
  c.cluster_of.assign(nb, -1);
  c.rep.assign(nb, -1);
  std::vector<int> cluster_of_root(nb, -1);
  for (int j = 0; j < nb; ++j) {
    const int r = find(parent, j);
    if (cluster_of_root[r] < 0) {
      cluster_of_root[r] = c.num_clusters();
      c.members.emplace_back();
      c.grounded.push_back(false);
      c.inertia.push_back(0.0);
      c.redundancy.push_back(0);
    }
    const int id = cluster_of_root[r];
    c.cluster_of[j] = id;
    c.members[id].push_back(j);
    c.inertia[id] += inertia[j];
  }
  // Links per cluster; a spanning tree of a cluster's members (plus the base
  // when tied to it) has nodes - 1 links, any more close loops.
  std::vector<int> links(c.num_clusters(), 0);
  for (const Link& l : stuck_links) {
    const int id = c.cluster_of[l.a];
    ++links[id];
    if (l.b < 0) c.grounded[id] = true;
  }
  for (int id = 0; id < c.num_clusters(); ++id) {
    const int nodes = static_cast<int>(c.members[id].size()) + (c.grounded[id] ? 1 : 0);
    c.redundancy[id] = std::max(0, links[id] - (nodes - 1));
    for (int j : c.members[id]) c.rep[j] = c.grounded[id] ? -1 : c.members[id].front();
  }
  return c;
}

}  // namespace luztar

namespace luztar {

double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w) {
  double lost = 0.0;
  for (int k = 0; k < c.num_clusters(); ++k) {
    if (c.inertia[k] == 0.0) continue;  // massless: velocity given by its first-order equation
    double momentum = 0.0, before = 0.0;
    for (int j : c.members[k]) {
      momentum += inertia[j] * w[j];
      before += 0.5 * inertia[j] * w[j] * w[j];
    }
    const double v = c.grounded[k] ? 0.0 : momentum / c.inertia[k];
    for (int j : c.members[k]) w[j] = v;
    lost += before - 0.5 * c.inertia[k] * v * v;
  }
  return lost > 0.0 ? lost : 0.0;
}

}  // namespace luztar
