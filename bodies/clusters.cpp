#include "bodies/clusters.hpp"

#include <algorithm>
#include <cassert>
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
  dense_of.reserve(n);
  member_list.reserve(n);
  member_start.reserve(n + 1);
  scratch.reserve(3 * n);
}

int DenseBasis::local(int j) const {
  return static_cast<int>(std::lower_bound(members.begin(), members.end(), j) - members.begin());
}

void group_by_cluster(const LockedClusters& c, const LockedRows& rows, const std::vector<int>& items,
                      ClusterGroups& out) {
  const int nc = c.num_clusters();
  out.start.assign(static_cast<std::size_t>(nc) + 1, 0);
  for (const CoordinateRow& r : rows) ++out.start[c.cluster_of[r.body[0]] + 1];
  for (int k = 0; k < nc; ++k) out.start[k + 1] += out.start[k];
  out.items.resize(items.size());
  out.fill.assign(out.start.begin(), out.start.end() - 1);
  for (std::size_t n = 0; n < rows.size(); ++n) out.items[out.fill[c.cluster_of[rows[n].body[0]]]++] = items[n];
}

LockedClusters lock_clusters(const std::vector<double>& inertia, const LockedRows& rows) {
  LockedClusters c;
  lock_clusters(inertia, rows, c);
  return c;
}

namespace {

// Marks in `dense` (nb) the bodies connected, through the rows' terms, to a
// row of three or more bodies; false when there is none (the fast path alone).
bool mark_dense(int nb, const LockedRows& rows, int* parent, int* dense) {
  bool any = false;
  for (const CoordinateRow& r : rows) any = any || !is_two_body(r);
  if (!any) return false;
  for (int j = 0; j < nb; ++j) parent[j] = j;
  auto root = [&](int j) {
    while (parent[j] != j) j = parent[j] = parent[parent[j]];
    return j;
  };
  for (const CoordinateRow& r : rows)
    for (int k = 1; k < r.n; ++k) parent[root(r.body[k])] = root(r.body[0]);
  for (int j = 0; j < nb; ++j) dense[j] = 0;
  for (const CoordinateRow& r : rows)
    if (!is_two_body(r)) dense[root(r.body[0])] = 1;
  for (int j = 0; j < nb; ++j) dense[j] = dense[root(j)];
  return true;
}

// The key a dense cluster's basis is filed under: its members, then the terms
// of its rows (in the given order).
void dense_key(const IndexRange& members, const LockedRows& rows, const std::vector<int>& cluster_of, int k,
               std::vector<double>& key) {
  key.clear();
  key.push_back(static_cast<double>(members.size()));
  for (int j : members) key.push_back(j);
  for (const CoordinateRow& r : rows) {
    if (cluster_of[r.body[0]] != k) continue;
    key.push_back(r.n);
    for (int t = 0; t < r.n; ++t) {
      key.push_back(r.body[t]);
      key.push_back(r.c[t]);
    }
  }
}

// Builds the basis of a dense cluster (members, rows of cluster k) into b.
void build_dense(const std::vector<double>& inertia, const IndexRange& members, const LockedRows& rows,
                 const std::vector<int>& cluster_of, int k, DenseBasis& b) {
  b.members.assign(members.begin(), members.end());
  const int m = static_cast<int>(b.members.size());
  int r = 0;
  for (const CoordinateRow& row : rows) r += cluster_of[row.body[0]] == k ? 1 : 0;
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(r, m);
  int i = 0;
  for (const CoordinateRow& row : rows) {
    if (cluster_of[row.body[0]] != k) continue;
    for (int t = 0; t < row.n; ++t) C(i, b.local(row.body[t])) = row.c[t];
    ++i;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(C);
  qr.setThreshold(1e-12);
  const int rank = static_cast<int>(qr.rank());
  std::vector<int> dependent(qr.colsPermutation().indices().data(), qr.colsPermutation().indices().data() + rank);
  std::sort(dependent.begin(), dependent.end());
  std::vector<int> free_local;
  for (int j = 0; j < m; ++j)
    if (!std::binary_search(dependent.begin(), dependent.end(), j)) free_local.push_back(j);
  const int d = m - rank;
  b.redundancy = r - rank;
  b.slots.clear();
  for (int j : free_local) b.slots.push_back(b.members[j]);
  b.basis.setZero(m, d);
  for (int q = 0; q < d; ++q) b.basis(free_local[q], q) = 1.0;
  if (d > 0 && rank > 0) {
    Eigen::MatrixXd Cd(r, rank), Cf(r, d);
    for (int q = 0; q < rank; ++q) Cd.col(q) = C.col(dependent[q]);
    for (int q = 0; q < d; ++q) Cf.col(q) = C.col(free_local[q]);
    const Eigen::MatrixXd X = Cd.colPivHouseholderQr().solve(-Cf);  // C_dep X = -C_free, consistent
    for (int q = 0; q < rank; ++q) b.basis.row(dependent[q]) = X.row(q);
  }
  Eigen::MatrixXd ntmn = Eigen::MatrixXd::Zero(d, d);
  for (int j = 0; j < m; ++j) {
    assert(inertia[b.members[j]] > 0.0);  // massless bodies never lock (core/validate, core/reduce)
    ntmn.noalias() += inertia[b.members[j]] * b.basis.row(j).transpose() * b.basis.row(j);
  }
  b.reduced.compute(ntmn);
  b.accel_map = b.reduced.solve(b.basis.transpose());
  b.mw.resize(m);
  b.v.resize(d);
}

// Cluster k (dense) gets its basis: the one filed for its composition, else
// a new or recycled pool entry, built.
void dense_cluster(const std::vector<double>& inertia, const LockedRows& rows, int k, LockedClusters& c) {
  const IndexRange members = c.members(k);
  dense_key(members, rows, c.cluster_of, k, c.key);
  int found = -1, oldest = -1;
  for (int p = 0; p < static_cast<int>(c.pool.size()); ++p) {
    if (c.pool[p].key == c.key) found = p;
    if (oldest < 0 || c.pool[p].used < c.pool[oldest].used) oldest = p;
  }
  if (found < 0) {
    if (c.pool.size() < LockedClusters::kDensePool) {
      found = static_cast<int>(c.pool.size());
      c.pool.emplace_back();
    } else {
      found = oldest;
    }
    DenseBasis& b = c.pool[found];
    b.key = c.key;
    build_dense(inertia, members, rows, c.cluster_of, k, b);
  }
  DenseBasis& b = c.pool[found];
  b.used = c.builds;
  c.dense_of[k] = found;
  c.grounded[k] = b.dof() == 0;
  c.redundancy[k] = b.redundancy;
  c.inertia[k] = 0.0;
  for (int j : members) {
    c.rep[j] = -1;
    c.gain[j] = 0.0;
  }
}

}  // namespace

void lock_clusters(const std::vector<double>& inertia, const LockedRows& rows, LockedClusters& c) {
  const int nb = static_cast<int>(inertia.size());
  c.reserve(nb);
  ++c.builds;
  c.scratch.resize(3 * static_cast<std::size_t>(nb));
  c.relative.assign(static_cast<std::size_t>(nb), 1.0);
  int* parent = c.scratch.data();
  int* root_mark = parent + nb;  // per root: 1 = jammed; then the cluster id encoded as -1 - id
  int* dense = root_mark + nb;   // (nb) 1: in a dense cluster (a row of three or more bodies joins it)
  const bool any_dense = mark_dense(nb, rows, parent, dense);
  c.has_dense = any_dense;
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
  for (const CoordinateRow& row : rows) {
    if (any_dense && dense[row.body[0]]) continue;  // joined below
    if (row.n < 2) continue;
    const int la = row.body[0], lb = row.body[1];
    double ga = 1.0, gb = 1.0;
    const int ra = find(la, ga), rb = find(lb, gb);
    const double want = two_body_ratio(row) * gb;  // the link asks ga w_ra = p gb w_rb
    if (ra == rb) {
      if (std::abs(ga - want) > 1e-12 * std::max(std::abs(ga), std::abs(want))) root_mark[ra] = 1;
      continue;
    }
    const int keep = std::min(ra, rb), gone = std::max(ra, rb);  // the lowest index stays the root
    parent[gone] = keep;
    rel[gone] = gone == rb ? ga / want : want / ga;
    root_mark[keep] |= root_mark[gone];
  }
  if (any_dense)  // a dense cluster's bodies under its lowest one (its gains are unused)
    for (const CoordinateRow& row : rows) {
      if (!dense[row.body[0]]) continue;
      for (int t = 0; t < row.n; ++t) {
        double g = 1.0;
        const int ra = find(row.body[0], g), rt = find(row.body[t], g);
        parent[std::max(ra, rt)] = std::min(ra, rt);
      }
    }
  c.cluster_of.assign(nb, -1);
  c.rep.assign(nb, -1);
  c.gain.assign(nb, 1.0);
  c.grounded.clear();
  c.inertia.clear();
  c.redundancy.clear();
  c.dense_of.clear();
  for (int j = 0; j < nb; ++j) {  // roots in ascending order number the clusters
    double g = 1.0;
    if (find(j, g) != j) continue;
    c.grounded.push_back(root_mark[j] != 0);
    c.inertia.push_back(0.0);
    c.redundancy.push_back(0);  // counts the cluster's links first
    c.dense_of.push_back(-1);
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
  for (const CoordinateRow& row : rows) {
    const int id = c.cluster_of[row.body[0]];
    ++c.redundancy[id];
    if (row.n < 2) c.grounded[id] = true;
  }
  for (int id = 0; id < nc; ++id) {
    const IndexRange mem = c.members(id);
    if (any_dense && dense[mem.front()]) {
      dense_cluster(inertia, rows, id, c);
      continue;
    }
    const int nodes = static_cast<int>(mem.size()) + (c.grounded[id] ? 1 : 0);
    c.redundancy[id] = std::max(0, c.redundancy[id] - (nodes - 1));
    for (int j : mem) {
      c.rep[j] = c.grounded[id] ? -1 : mem.front();
      if (c.grounded[id]) c.gain[j] = 0.0;
    }
  }
}

bool holds_rate(const LockedClusters& c, const CoordinateRow& row) {
  // x' = sum over the clusters the row touches of (its terms' share of that
  // cluster's velocity map) v_cluster: held when every share vanishes.
  for (int t = 0; t < row.n; ++t) {
    const int k = c.cluster_of[row.body[t]];
    bool first = true;  // only the first term of each cluster sums it
    for (int s = 0; s < t; ++s) first = first && c.cluster_of[row.body[s]] != k;
    if (!first || c.grounded[k]) continue;
    if (!c.dense(k)) {
      double sum = row.c[t] * c.gain[row.body[t]], scale = std::abs(sum);
      for (int s = t + 1; s < row.n; ++s)
        if (c.cluster_of[row.body[s]] == k) sum += row.c[s] * c.gain[row.body[s]];
      if (std::abs(sum) > 1e-12 * scale) return false;
      continue;
    }
    const DenseBasis& b = c.basis(k);
    b.v.setZero();
    double scale = 0.0;
    for (int s = t; s < row.n; ++s) {
      if (c.cluster_of[row.body[s]] != k) continue;
      const auto term = row.c[s] * b.basis.row(b.local(row.body[s]));
      b.v += term.transpose();
      scale = std::max(scale, term.cwiseAbs().maxCoeff());
    }
    if (b.v.cwiseAbs().maxCoeff() > 1e-12 * scale) return false;
  }
  return true;
}

}  // namespace luztar

namespace luztar {

namespace {

// w := N v, v = (N^T M N)^-1 N^T M w over a dense cluster's members; returns
// the kinetic energy removed.
double project_dense(const DenseBasis& b, const std::vector<double>& inertia, std::vector<double>& w) {
  const int m = static_cast<int>(b.members.size());
  double before = 0.0, after = 0.0;
  for (int j = 0; j < m; ++j) {
    const double wj = w[b.members[j]];
    b.mw[j] = inertia[b.members[j]] * wj;
    before += 0.5 * inertia[b.members[j]] * wj * wj;
  }
  if (b.dof() == 0) {
    for (int j : b.members) w[j] = 0.0;
    return before;
  }
  b.v.noalias() = b.basis.transpose() * b.mw;
  b.reduced.solveInPlace(b.v);  // N^T M N v = N^T M w
  b.mw.noalias() = b.basis * b.v;
  for (int j = 0; j < m; ++j) {
    w[b.members[j]] = b.mw[j];
    after += 0.5 * inertia[b.members[j]] * b.mw[j] * b.mw[j];
  }
  return before - after;
}

}  // namespace

double project_velocities(const LockedClusters& c, const std::vector<double>& inertia, std::vector<double>& w) {
  double lost = 0.0;
  for (int k = 0; k < c.num_clusters(); ++k) {
    if (c.dense(k)) {
      lost += project_dense(c.basis(k), inertia, w);
      continue;
    }
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
