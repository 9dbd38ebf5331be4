#include "bodies/clusters.hpp"

#include <numeric>

namespace luztar {

namespace {
// Union-find with the base as node nb.
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
  const int base = nb;
  std::vector<int> parent(nb + 1);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<int> extra_links_at_root(nb + 1, 0);
  for (const Link& l : stuck_links) {
    const int ra = find(parent, l.a);
    const int rb = find(parent, l.b < 0 ? base : l.b);
    if (ra == rb) {
      ++extra_links_at_root[ra];  // closes a loop: redundant constraint
    } else {
      // Keep the base (largest index) as root when it is involved.
      const int lo = ra < rb ? ra : rb, hi = ra < rb ? rb : ra;
      parent[lo] = hi;
      extra_links_at_root[hi] += extra_links_at_root[lo];
    }
  }
  LockedClusters c;
  c.cluster_of.assign(nb, -1);
  c.rep.assign(nb, -1);
  std::vector<int> cluster_of_root(nb + 1, -1);
  for (int j = 0; j < nb; ++j) {
    const int r = find(parent, j);
    if (cluster_of_root[r] < 0) {
      cluster_of_root[r] = c.num_clusters();
      c.members.emplace_back();
      c.grounded.push_back(r == base);
      c.inertia.push_back(0.0);
      c.redundancy.push_back(extra_links_at_root[r]);
    }
    const int id = cluster_of_root[r];
    c.cluster_of[j] = id;
    c.members[id].push_back(j);
    c.inertia[id] += inertia[j];
  }
  for (int id = 0; id < c.num_clusters(); ++id)
    for (int j : c.members[id]) c.rep[j] = c.grounded[id] ? -1 : c.members[id].front();
  return c;
}

}  // namespace luztar

namespace luztar {

double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w) {
  double lost = 0.0;
  for (int k = 0; k < c.num_clusters(); ++k) {
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
