#include "bodies/clusters.hpp"

#include <algorithm>
#include <cmath>

namespace luztar {

void LockedClusters::reserve(int nb) {
  const auto n = static_cast<std::size_t>(nb);
  cluster_of.reserve(n);
  rep.reserve(n);
  gain.reserve(n);
  relative.reserve(n);
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
  c.relative.assign(static_cast<std::size_t>(nb), 1.0);
  int* parent = c.scratch.data();
  int* root_mark = parent + nb;  // per root: 1 = jammed; then the cluster id encoded as -1 - id
  double* rel = c.relative.data();
  for (int j = 0; j < nb; ++j) {
    parent[j] = j;
    root_mark[j] = 0;
  }
  // Root of i with path compression; `to_root` receives w_i / w_root.
  auto find = [&](int i, double& to_root) {
    double g = 1.0;
    int r = i;
    while (parent[r] != r) {
      g *= rel[r];
      r = parent[r];
    }
    double rest = g;  // point every node on the path straight at the root
    while (parent[i] != i) {
      const int next = parent[i];
      const double step = rel[i];
      parent[i] = r;
      rel[i] = rest;
      rest /= step;
      i = next;
    }
    to_root = g;
    return r;
  };
  // Weighted union-find over bodies. The base is not a node: it has infinite
  // inertia and couples nothing, so two groups tied to the base stay separate.
  // A link that closes a loop whose ratios do not multiply to 1 jams the cluster.
  for (const Link& l : stuck_links) {
    if (l.b < 0) continue;
    double ga = 1.0, gb = 1.0;
    const int ra = find(l.a, ga), rb = find(l.b, gb);
    const double want = l.ratio * gb;  // the link asks ga w_ra = p gb w_rb
    if (ra == rb) {
      if (std::abs(ga - want) > 1e-12 * std::max(std::abs(ga), std::abs(want))) root_mark[ra] = 1;
      continue;
    }
    const int keep = std::min(ra, rb), gone = std::max(ra, rb);  // the lowest index stays the root
    parent[gone] = keep;
    rel[gone] = gone == rb ? ga / want : want / ga;
    root_mark[keep] |= root_mark[gone];
  }
  c.cluster_of.assign(nb, -1);
  c.rep.assign(nb, -1);
  c.gain.assign(nb, 1.0);
  c.grounded.clear();
  c.inertia.clear();
  c.redundancy.clear();
  for (int j = 0; j < nb; ++j) {  // roots in ascending order number the clusters
    double g = 1.0;
    if (find(j, g) != j) continue;
    c.grounded.push_back(root_mark[j] != 0);
    c.inertia.push_back(0.0);
    c.redundancy.push_back(0);  // counts the cluster's links first
    root_mark[j] = -c.num_clusters();  // = -1 - id
  }
  for (int j = 0; j < nb; ++j) {
    double g = 1.0;
    const int id = -1 - root_mark[find(j, g)];
    c.gain[j] = g;
    c.cluster_of[j] = id;
    c.inertia[id] += inertia[j] * g * g;
  }
  const int nc = c.num_clusters();
  // Flat member lists by counting sort; bodies stay ascending within a cluster.
  c.member_start.assign(static_cast<std::size_t>(nc) + 1, 0);
  for (int j = 0; j < nb; ++j) ++c.member_start[c.cluster_of[j] + 1];
  for (int k = 0; k < nc; ++k) c.member_start[k + 1] += c.member_start[k];
  c.member_list.resize(static_cast<std::size_t>(nb));
  int* next = root_mark;  // reused: fill position of each cluster
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
    for (int j : mem) {
      c.rep[j] = c.grounded[id] ? -1 : mem.front();
      if (c.grounded[id]) c.gain[j] = 0.0;
    }
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
      momentum += inertia[j] * c.gain[j] * w[j];
      before += 0.5 * inertia[j] * w[j] * w[j];
    }
    const double v = c.grounded[k] ? 0.0 : momentum / c.inertia[k];
    for (int j : c.members(k)) w[j] = c.gain[j] * v;
    lost += before - 0.5 * c.inertia[k] * v * v;
  }
  return lost > 0.0 ? lost : 0.0;
}

}  // namespace luztar
