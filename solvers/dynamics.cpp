#include "solvers/dynamics.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/energy.hpp"
#include "core/projections.hpp"
#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "elements/lossy_gear.hpp"
#include "elements/kinds.hpp"
#include "elements/massless_bearing.hpp"
#include "elements/one_way_clutch.hpp"
#include "solvers/filed_entries.hpp"

namespace luztar {

Workspace::Workspace(const Model& m)
    : q(m.num_bodies()), w(m.num_bodies()), sigma(signal_slot_count(m)), force(m.num_bodies()), limit(m.num_links()),
      lambda(m.num_links()), acc(m.num_bodies()), slot_acc(m.num_bodies()), group_utilisation(m.num_links()), massless_mt0(m.num_bodies()),
      cluster_torque(m.num_bodies()), body_roundoff(m.num_bodies()), cluster_roundoff(m.num_bodies()), root_scale(max_root_count(m)),
      drive_torque(m.num_bodies()), drives(m.drives), driven_bodies(m.driven_bodies), drive_cluster(m.num_bodies()),
      massless_bearings(has_massless_bearings(m)) {}

bool has_massless_bearings(const Model& m) {
  for (int j = 0; j < m.num_bodies(); ++j)
    if (m.massless(j) && !m.algebraic[j]) return true;
  return false;
}

ModeFrame mode_frame(const State* modes, const Workspace& ws) {
  return {modes, ws.q.data(), ws.w.data(), ws.sigma.data(), ws.lambda.data()};
}

namespace {

// The split for cluster `cluster` with stuck links `links` (ascending): the
// one filed for the same composition, else a recycled or new entry.
StaticSplit& filed_split(ModeStructure& ms, const LockedClusters& c, int cluster, const std::vector<int>& links) {
  const IndexRange bodies = c.members(cluster);
  bool found = false;
  return file_lookup(ms.filed[links.front()], ms.builds, [&](const ModeStructure::Filed& f) {
           return f.split.links == links &&
                  std::equal(bodies.begin(), bodies.end(), f.split.bodies.begin(), f.split.bodies.end());
         }, found).split;
}

}  // namespace

int max_root_count(const Model& m) { return max_witness_count(m); }

bool link_locked(const Model& m, const State& modes, int l) {
  const ModelLink& link = m.links[l];
  switch (link.kind) {
    case LinkKind::friction:  // (one on prescribed bodies alone never locks: Model::driven_frictions)
      return modes.friction_mode[link.element] == FrictionMode::stuck &&
             !std::binary_search(m.driven_frictions.begin(), m.driven_frictions.end(), link.element);
    case LinkKind::contact: return modes.spring_side[link.element] != 0;
    case LinkKind::one_way: return one_way_locked(m, link.element, modes);
    case LinkKind::permanent: return true;
    case LinkKind::gear_mesh: return true;  // a lossy gear's mesh: held always
    case LinkKind::gear_loss: return lossy_motion_of(lossy_gear_mode(m, link.element, modes)) == 0;
  }
  return false;
}

namespace {

// The links locked in `modes` (Model::links, in link order: stuck frictions,
// then rigid freeplays in contact, then locked one-way clutches) and the
// clusters they make.
void lock_structure(const Model& m, const State& modes, ModeStructure& ms) {
  const int nl = m.num_links();
  ms.contacts.clear();
  ms.held_elements.clear();
  ms.link_ids.clear();
  ms.stuck_links.clear();
  ms.contacts.reserve(m.springs.size());
  ms.held_elements.reserve(nl);
  ms.link_ids.reserve(nl);
  ms.stuck_links.reserve(nl);
  for (int l = 0; l < nl; ++l) {
    const ModelLink& link = m.links[l];
    if (!link_locked(m, modes, l)) continue;
    if (link.kind == LinkKind::contact) ms.contacts.push_back(link.element);
    else if (!m.is_permanent_link(l)) ms.held_elements.push_back(m.link_element(l));  // (time stuck)
    ms.link_ids.push_back(l);
    ms.stuck_links.push_back(link.row);
  }
  lock_clusters(m.inertia, ms.stuck_links, ms.clusters);
  group_by_cluster(ms.clusters, ms.stuck_links, ms.link_ids, ms.stuck_by_cluster);
}

// One static split per cluster with locked links, from those filed before where possible.
void static_splits(const Model& m, double t, const double* inputs, ModeStructure& ms) {
  const int nl = m.num_links(), nc = ms.clusters.num_clusters();
  ms.active.clear();
  ms.active.reserve(nl);
  ms.split_links.reserve(nl);
  ms.filed.resize(nl);
  ++ms.builds;
  for (int k = 0; k < nc; ++k) {
    if (ms.stuck_by_cluster.empty(k)) continue;
    ms.split_links.assign(ms.stuck_by_cluster.of(k).begin(), ms.stuck_by_cluster.of(k).end());
    StaticSplit& sp = filed_split(ms, ms.clusters, k, ms.split_links);
    make_static_split(m, ms.clusters, k, ms.split_links, t, inputs, sp);
    ms.active.push_back(&sp);
  }
}

// The witnesses of the structure: a static group with one loop is watched as
// a whole (its split is not unique), its links not one by one; then each
// element's own (elements/kinds.hpp), then the kinks of massless bodies.
void watch_witnesses(const Model& m, const State& modes, double slip_margin, const double* torque_scale,
                     ModeStructure& ms) {
  ms.roots.clear();
  ms.roots.reserve(max_witness_count(m));
  ms.in_group.assign(m.num_links(), 0);
  ms.rate_held.assign(m.num_links(), 0);
  for (int l = 0; l < m.num_links(); ++l)
    ms.rate_held[l] = m.is_contact_link(l) && holds_rate(ms.clusters, m.links[l].row);
  for (int s = 0; s < ms.num_splits(); ++s) {
    if (ms.split(s).nullity != 1) continue;
    ms.roots.push_back({WitnessKind::group_reserve, s, -1});
    for (int l : ms.split(s).links) ms.in_group[l] = 1;
  }
  const WitnessContext context{&modes, ms.rate_held.data(), ms.in_group.data(), slip_margin, torque_scale};
  for_each_element(m, kListOrder, [&](const ElementKindInfo& row, int i) {
    if (!row.witnesses) return;
    const std::size_t first = ms.roots.size();
    row.witnesses(m, i, context, ms.roots);
    for (std::size_t r = first; r < ms.roots.size(); ++r) ms.roots[r].element = m.elements_of(row.kind)[i];
  });
  bool massless_roots = false;
  for (int j = 0; j < m.num_bodies(); ++j) {
    if (!m.massless(j) || !massless_has_kinks(m, j)) continue;
    massless_witnesses(j, modes.massless_side[j], ms.roots);
    massless_roots = true;
  }
  ms.roots_need_forces = !ms.stuck_links.empty() || massless_roots;
}

}  // namespace

void build_mode_structure(const Model& m, const State& modes, double t, const double* inputs, double slip_margin,
                          ModeStructure& ms, const double* torque_scale) {
  lock_structure(m, modes, ms);
  if (!m.driven_bodies.empty()) check_driven_clusters(m, ms, t);
  static_splits(m, t, inputs, ms);
  watch_witnesses(m, modes, slip_margin, torque_scale, ms);
}

void body_velocities(const ModeStructure& ms, const double* y, double* w) {
  const LockedClusters& c = ms.clusters;
  const int nb = static_cast<int>(c.cluster_of.size());
  for (int j = 0; j < nb; ++j) {
    const int r = c.rep[j];
    w[j] = r < 0 ? 0.0 : c.gain[j] * y[2 * r + 1];
  }
  for (int k = 0; c.has_dense && k < c.num_clusters(); ++k) {  // dense clusters: w = N v, v in the free members' slots
    if (!c.dense(k) || c.grounded[k]) continue;
    const DenseBasis& b = c.basis(k);
    for (std::size_t i = 0; i < b.members.size(); ++i) {
      double wj = 0.0;
      for (int q = 0; q < b.dof(); ++q) wj += b.basis(static_cast<int>(i), q) * y[2 * b.slots[q] + 1];
      w[b.members[i]] = wj;
    }
  }
}

void unpack(const ModeStructure& ms, const double* y, Workspace& ws) {
  const int nb = static_cast<int>(ws.q.size());
  for (int j = 0; j < nb; ++j) ws.q[j] = y[2 * j];
  body_velocities(ms, y, ws.w.data());
  const LockedClusters& c = ms.clusters;
  for (int p : ws.driven_bodies) {  // the drive's own values, not integrated ones
    const Drive& d = ws.drives[p];
    if (d.angle_slot >= 0) ws.q[p] = ws.sigma[d.angle_slot];
    if (d.velocity_slot < 0) continue;
    const int k = c.cluster_of[p];
    if (c.grounded[k] || c.dense(k)) continue;  // (held: check_driven_clusters)
    const double v = ws.sigma[d.velocity_slot];
    if (c.gain[p] == 1.0) {
      for (int j : c.members(k)) ws.w[j] = c.gain[j] * v;
    } else {
      for (int j : c.members(k)) ws.w[j] = c.gain[j] / c.gain[p] * v;
    }
    ws.w[p] = v;
  }
}

void check_driven_clusters(const Model& m, const ModeStructure& ms, double t) {
  const LockedClusters& c = ms.clusters;
  for (std::size_t i = 0; i < m.driven_bodies.size(); ++i) {
    const int p = m.driven_bodies[i], k = c.cluster_of[p];
    if (c.dense(k)) {
      std::ostringstream os;
      os << "prescribed body '" << m.body_names[p] << "' is locked into a cluster of three-body links at t = " << t
         << " s, which a drive cannot move";
      throw std::domain_error(os.str());
    }
    for (std::size_t o = i + 1; o < m.driven_bodies.size(); ++o)
      if (c.cluster_of[m.driven_bodies[o]] == k) {
        std::ostringstream os;
        os << "prescribed body '" << m.body_names[p] << "' and prescribed body '" << m.body_names[m.driven_bodies[o]]
           << "' are locked together at t = " << t << " s: two drives on one locked cluster";
        throw std::domain_error(os.str());
      }
  }
}

void pack(const ModeStructure& ms, const std::vector<double>& q, const std::vector<double>& w, double* y) {
  for (std::size_t j = 0; j < q.size(); ++j) {
    const int r = ms.clusters.rep[j];
    y[2 * j] = q[j];
    y[2 * j + 1] = r < 0 ? 0.0 : w[r];
  }
  const LockedClusters& c = ms.clusters;
  for (int k = 0; c.has_dense && k < c.num_clusters(); ++k)
    if (c.dense(k))
      for (int j : c.basis(k).slots) y[2 * j + 1] = w[j];
}

int signal_slot_count(const Model& m) { return static_cast<int>(m.slots.size()); }

std::vector<const Signal*> slot_signals(const Model& m) {
  std::vector<const Signal*> s;
  for (const SignalSlot& slot : m.slots) s.push_back(&m.signals[slot.signal]);
  return s;
}

void signal_values(const Model& m, double t, Workspace& ws) {
  const double* inputs = ws.inputs.data();
  for (std::size_t k = 0; k < m.slots.size(); ++k) {
    const SignalSlot& slot = m.slots[k];
    ws.sigma[k] = require_finite_at(evaluate(m.signals[slot.signal], t, inputs), t, slot.body < 0 ? "element" : "body",
                                    slot.body < 0 ? m.element_names[slot.element] : m.body_names[slot.body],
                                    slot.field);
  }
}

void applied_forces(const Model& m, const State& modes, double t, Workspace& ws) {
  signal_values(m, t, ws);
  applied_forces(m, modes, ws);
}

void applied_forces(const Model& m, const State& modes, Workspace& ws) {
  if (!m.algebraic_groups.empty()) solve_algebraic_bodies(m, ws);
  std::fill(ws.force.begin(), ws.force.end(), 0.0);
  for (int p : m.driven_bodies) ws.drive_torque[p] = 0.0;
  const ModeFrame frame = mode_frame(&modes, ws);
  const ForceTargets out{ws.force.data(), ws.lambda.data(), ws.limit.data()};
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    if (row.forces) row.forces(m, i, frame, out);
  });
  for (int i : m.driven_frictions)  // at rest with its drives: the drive holds the body
    if (modes.friction_mode[i] == FrictionMode::stuck) ws.lambda[i] = 0.0;
  if (ws.massless_bearings) massless_velocities(m, modes, ws);  // their bearings' law is the body's
}

void massless_velocities(const Model& m, const State& modes, Workspace& ws) {
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (const int j = bearing_body(m.frictions[i]); m.massless(j)) ws.massless_mt0[j] = 0.0;
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (const int j = bearing_body(m.frictions[i]); m.massless(j)) ws.massless_mt0[j] += ws.sigma[m.frictions[i].slot];
  for (int j = 0; j < m.num_bodies(); ++j)
    if (m.massless(j))
      ws.w[j] = massless_velocity(ws.force[j], ws.massless_mt0[j], m.massless_viscous[j], modes.massless_side[j]);
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    const int j = bearing_body(f);
    if (!m.massless(j)) continue;
    ws.lambda[i] = massless_bearing_torque(f, ws.w[j], modes.massless_side[j], ws.sigma[f.slot], ws.massless_mt0[j],
                                           ws.force[j]);
  }
}

namespace {

// v' = (N^T M N)^-1 N^T f of a dense cluster, into its free members' slot_acc.
void dense_accelerations(const DenseBasis& b, Workspace& ws) {
  for (int q = 0; q < b.dof(); ++q) {
    double a = 0.0;
    for (std::size_t i = 0; i < b.members.size(); ++i) a += b.accel_map(q, static_cast<int>(i)) * ws.force[b.members[i]];
    ws.slot_acc[b.slots[q]] = a;
  }
}

// The cluster of prescribed body p moves with it: its acceleration a_p / g_p,
// and the drive's torque R = (I_k acc - sum g_j f_j) / g_p on p (ws.force
// holds the elements' torques and any R set before, which is taken out: the
// same state gives the same R however often this runs). Held by the base
// too (stuck links from p's cluster to the base while its drive rests: the
// split between the drive and those links is not determined by the motion),
// the drive holds p still against its own applied torques, R = -f_p, and the
// links carry the other bodies' loads, as if p were the base.
void drive_cluster(const Model& m, const LockedClusters& c, int p, Workspace& ws) {
  const int k = c.cluster_of[p];
  ws.force[p] -= ws.drive_torque[p];
  ws.drive_torque[p] = 0.0;
  if (c.dense(k)) return;
  if (c.grounded[k]) {
    ws.drive_torque[p] = 0.0 - ws.force[p];  // (+0 without a load)
    ws.force[p] = 0.0;
    return;
  }
  const double a = ws.sigma[m.drives[p].acceleration_slot];
  double sum = 0.0;
  for (int j : c.members(k)) sum += c.gain[j] * ws.force[j];
  const double g = c.gain[p];
  ws.acc[k] = g == 1.0 ? a : a / g;
  const double r = g == 1.0 ? c.inertia[k] * a - sum : (c.inertia[k] * ws.acc[k] - sum) / g;
  ws.drive_torque[p] = r;
  ws.force[p] += r;
}

}  // namespace

void cluster_accelerations(const Model& m, const ModeStructure& ms, Workspace& ws) {
  const LockedClusters& c = ms.clusters;
  for (int k = 0; k < c.num_clusters(); ++k) {
    if (c.dense(k)) {
      ws.acc[k] = 0.0;
      dense_accelerations(c.basis(k), ws);
      continue;
    }
    if (c.grounded[k] || c.inertia[k] == 0.0) {  // held by the base, or massless (first-order)
      ws.acc[k] = 0.0;
      continue;
    }
    double sum = 0.0;  // the generalised torque on the cluster's coordinate
    for (int j : c.members(k)) sum += c.gain[j] * ws.force[j];
    ws.acc[k] = sum / c.inertia[k];
  }
  for (int p : m.driven_bodies) drive_cluster(m, c, p, ws);
}

void static_friction(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws) {
  for (int s = 0; s < ms.num_splits(); ++s)
    ws.group_utilisation[s] = solve_static_split(ms.split(s), m, ms.clusters, ws.force, ws.acc, ws.slot_acc, ws.limit,
                                                 modes.spring_side, modes.element_mode, ws.lambda);
}

void static_torques(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws) {
  applied_forces(m, modes, ws);
  cluster_accelerations(m, ms, ws);
  static_friction(m, modes, ms, ws);
}

void rhs(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y, double* ydot,
         Workspace& ws) {
  signal_values(m, t, ws);
  rhs(m, modes, ms, y, ydot, ws);
}

void rhs(const Model& m, const State& modes, const ModeStructure& ms, const double* y, double* ydot, Workspace& ws) {
  unpack(ms, y, ws);
  applied_forces(m, modes, ws);
  cluster_accelerations(m, ms, ws);
  const int nb = m.num_bodies();
  for (int j = 0; j < nb; ++j) {
    ydot[2 * j] = m.algebraic[j] ? 0.0 : ws.w[j];  // algebraic angles come from the balance
    ydot[2 * j + 1] = ms.clusters.rep[j] == j ? ws.acc[ms.clusters.cluster_of[j]] : 0.0;  // 0 when massless
  }
  const LockedClusters& c = ms.clusters;
  for (int k = 0; c.has_dense && k < c.num_clusters(); ++k)
    if (c.dense(k))
      for (int j : c.basis(k).slots) ydot[2 * j + 1] = ws.slot_acc[j];
}

namespace {

// Entries d(force_j)/d(q_i or w_i) of the applied torques, mapped onto the
// representative's acceleration row (a dense cluster: its coordinates' rows,
// through (N^T M N)^-1 N^T), or for a massless body onto its angle row:
// q_j' = (M_j - side MT0) / mu_j.
class ForceJacobian {
 public:
  // drive_cluster: scratch of (at least) one entry per cluster (Workspace::drive_cluster).
  ForceJacobian(const Model& m, const State& modes, const LockedClusters& c, JacobianSink& jac,
                std::vector<char>& drive_cluster)
      : m_(m), modes_(modes), c_(c), jac_(jac), drive_(m.driven_bodies.empty() ? nullptr : drive_cluster.data()) {
    if (!drive_) return;
    std::fill(drive_cluster.begin(), drive_cluster.end(), 0);
    for (int p : m.driven_bodies) drive_[c.cluster_of[p]] = m.drives[p].velocity_slot >= 0 ? 2 : 1;
  }
  // Cluster k's velocities are a drive's (its signal, not y).
  bool moved(int k) const { return drive_ && drive_[k] == 2; }

  void add(int j, bool wrt_velocity, int i, double value) {
    // A drive fixes its cluster's acceleration, and reads its angle or
    // velocities from its slots: no entries there.
    if (drive_ && (drive_[c_.cluster_of[j]] != 0 ||
                   (wrt_velocity ? drive_[c_.cluster_of[i]] == 2 : m_.drives[i].angle_slot >= 0)))
      return;
    if (m_.massless(j)) {
      if (!wrt_velocity && modes_.massless_side[j] != 0 && value != 0.0)
        jac_.add(2 * j, 2 * i, value / m_.massless_viscous[j]);
      return;
    }
    const int k = c_.cluster_of[j];
    if (c_.grounded[k] || value == 0.0) return;
    if (c_.dense(k) || (wrt_velocity && c_.dense(c_.cluster_of[i]))) {
      add_dense(j, wrt_velocity, i, value);
      return;
    }
    int col = 2 * i;
    if (wrt_velocity) {
      if (c_.rep[i] < 0) return;  // velocity fixed at 0
      col = 2 * c_.rep[i] + 1;
      value *= c_.gain[i];  // w_i = g_i v
    }
    jac_.add(2 * c_.members(k).front() + 1, col, c_.gain[j] * value / c_.inertia[k]);
  }

  // An element on the coordinate x = sum c_k q_k whose torque T (-c_k T on
  // body k) has tangent stiffness s = dT/dx and damping d = dT/dx': entries
  // -c_i c_j s and -c_i c_j d.
  void relation(const CoordinateRow& r, double s, double d) {
    for (int i = 0; i < r.n; ++i)
      for (int j = 0; j < r.n; ++j) {
        const double f = -r.c[i] * r.c[j];
        add(r.body[i], false, r.body[j], f * s);
        add(r.body[i], true, r.body[j], f * d);
      }
  }

 private:
  // The same where body j's cluster, or (a velocity column) body i's, is dense.
  void add_dense(int j, bool wrt_velocity, int i, double value) {
    const int kj = c_.cluster_of[j], ki = c_.cluster_of[i];
    auto columns = [&](double row_factor, int row) {
      if (!wrt_velocity) {
        jac_.add(row, 2 * i, row_factor * value);
      } else if (c_.dense(ki)) {  // w_i = sum_q N_iq v_q
        if (c_.grounded[ki]) return;
        const DenseBasis& b = c_.basis(ki);
        const int l = b.local(i);
        for (int q = 0; q < b.dof(); ++q) jac_.add(row, 2 * b.slots[q] + 1, row_factor * b.basis(l, q) * value);
      } else if (c_.rep[i] >= 0) {  // w_i = g_i v
        jac_.add(row, 2 * c_.rep[i] + 1, row_factor * c_.gain[i] * value);
      }
    };
    if (!c_.dense(kj)) {
      columns(c_.gain[j] / c_.inertia[kj], 2 * c_.members(kj).front() + 1);
      return;
    }
    const DenseBasis& b = c_.basis(kj);
    const int l = b.local(j);
    for (int q = 0; q < b.dof(); ++q) columns(b.accel_map(q, l), 2 * b.slots[q] + 1);
  }

  const Model& m_;
  const State& modes_;
  const LockedClusters& c_;
  JacobianSink& jac_;
  char* drive_;  // (nc) 1: cluster moved by a drive, 2: its velocities the drive's too; null without drives
};

}  // namespace

void jacobian(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
              JacobianSink& jac, Workspace& ws) {
  signal_values(m, t, ws);  // a friction table's tangent reads its scale
  const LockedClusters& c = ms.clusters;
  ForceJacobian dforce(m, modes, c, jac, ws.drive_cluster);
  for (int j = 0; j < m.num_bodies(); ++j)
    if (c.rep[j] >= 0 && !m.massless(j) && !dforce.moved(c.cluster_of[j])) jac.add(2 * j, 2 * c.rep[j] + 1, c.gain[j]);
  for (int k = 0; c.has_dense && k < c.num_clusters(); ++k) {  // q_j' = sum_q N_jq v_q in a dense cluster
    if (!c.dense(k) || c.grounded[k]) continue;
    const DenseBasis& b = c.basis(k);
    for (std::size_t l = 0; l < b.members.size(); ++l)
      for (int q = 0; q < b.dof(); ++q)
        if (b.basis(static_cast<int>(l), q) != 0.0)
          jac.add(2 * b.members[l], 2 * b.slots[q] + 1, b.basis(static_cast<int>(l), q));
  }
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    Tangent t;
    if (row.relation && row.tangent && row.tangent(m, i, modes, ws.sigma.data(), t))
      dforce.relation(row.relation(m, i), t.stiffness, t.damping);
  });
  if (!m.algebraic_groups.empty()) {  // springs at algebraic bodies: the group's Schur complement
    unpack(ms, y, ws);
    applied_forces(m, modes, t, ws);  // solves the groups at this state
    algebraic_stiffness(m, ws, ws.couplings);
    for (const Coupling& c2 : ws.couplings) dforce.add(c2.on, false, c2.of, c2.value);
  }
}

void root_functions(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
                    double* g, Workspace& ws) {
  if (ms.roots_need_forces || !m.driven_bodies.empty()) signal_values(m, t, ws);
  root_functions(m, modes, ms, y, g, ws);
}

void root_functions(const Model& m, const State& modes, const ModeStructure& ms, const double* y, double* g,
                    Workspace& ws) {
  unpack(ms, y, ws);
  if (ms.roots_need_forces) applied_forces(m, modes, ws);
  if (!ms.stuck_links.empty()) {  // (a drive's torque is part of a locked cluster's balance)
    cluster_accelerations(m, ms, ws);
    static_friction(m, modes, ms, ws);
  }
  WitnessInputs in;
  in.q = ws.q.data();
  in.w = ws.w.data();
  in.force = ws.force.data();
  in.massless_mt0 = ws.massless_mt0.data();
  in.limit = ws.limit.data();
  in.lambda = ws.lambda.data();
  in.group_utilisation = ws.group_utilisation.data();
  in.spring_side = modes.spring_side.data();
  in.element_mode = modes.element_mode.data();
  for (std::size_t r = 0; r < ms.roots.size(); ++r) g[r] = witness_value(m, ms.roots[r], in);
}

namespace {

// Per root of ms: the largest of `cluster` over the locked clusters its
// coordinate touches (WitnessKindInfo::solved), and of its own torque |own|
// too `with_own`; 0 for a root that reads no solved torque.
void largest_reached(const Model& m, const ModeStructure& ms, const Workspace& ws, const std::vector<double>& cluster,
                     bool with_own, double* out) {
  const LockedClusters& c = ms.clusters;
  WitnessInputs in;
  in.limit = ws.limit.data();
  in.massless_mt0 = ws.massless_mt0.data();
  for (std::size_t r = 0; r < ms.roots.size(); ++r) {
    const Witness& w = ms.roots[r];
    const auto reach = witness_kind_info(w.kind).solved;
    if (reach == nullptr) {
      out[r] = 0.0;
      continue;
    }
    const SolvedReach at = reach(m, w, in);
    double s = with_own ? std::abs(at.own) : 0.0;
    if (at.row == nullptr) s = std::max(s, cluster[static_cast<std::size_t>(c.cluster_of[at.body])]);
    else
      for (int k = 0; k < at.row->n; ++k)
        if (at.row->body[k] != kGround) s = std::max(s, cluster[static_cast<std::size_t>(c.cluster_of[at.row->body[k]])]);
    out[r] = s;
  }
}

}  // namespace

void solved_torque_scales(const Model& m, const ModeStructure& ms, Workspace& ws, double* scale) {
  const LockedClusters& c = ms.clusters;
  std::vector<double>& cluster = ws.cluster_torque;
  std::fill(cluster.begin(), cluster.begin() + c.num_clusters(), 0.0);
  if (ms.roots_need_forces)
    for (int j = 0; j < m.num_bodies(); ++j) {
      double& s = cluster[static_cast<std::size_t>(c.cluster_of[j])];
      s = std::max(s, std::abs(ws.force[j]));
    }
  if (!ms.stuck_links.empty())
    for (int k = 0; k < c.num_clusters(); ++k)
      for (int l : ms.stuck_by_cluster.of(k)) cluster[k] = std::max(cluster[k], std::abs(ws.lambda[l]));
  largest_reached(m, ms, ws, cluster, true, scale);
}

void solved_torque_roundoffs(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws,
                             double* roundoff) {
  const LockedClusters& c = ms.clusters;
  std::fill(ws.body_roundoff.begin(), ws.body_roundoff.end(), 0.0);
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    const Spring& sp = m.springs[s];
    const double r = spring_coordinate_roundoff(sp, modes.spring_side[s], ws.q.data());
    if (r == 0.0) continue;
    for (int k = 0; k < sp.row.n; ++k)
      if (sp.row.body[k] != kGround) ws.body_roundoff[static_cast<std::size_t>(sp.row.body[k])] += std::abs(sp.row.c[k]) * r;
  }
  std::fill(ws.cluster_roundoff.begin(), ws.cluster_roundoff.begin() + c.num_clusters(), 0.0);
  for (int j = 0; j < m.num_bodies(); ++j)
    ws.cluster_roundoff[static_cast<std::size_t>(c.cluster_of[j])] += ws.body_roundoff[static_cast<std::size_t>(j)];
  largest_reached(m, ms, ws, ws.cluster_roundoff, false, roundoff);
}

namespace {

// The sum of `power` over the elements of the kinds that have it [W].
double power_sum(const Model& m, const State* modes, const Workspace& ws,
                 double (*ElementKindInfo::*power)(const Model&, int, const ModeFrame&)) {
  const ModeFrame frame = mode_frame(modes, ws);
  double p = 0.0;
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    if (row.*power) p += (row.*power)(m, i, frame);
  });
  return p;
}

}  // namespace

double input_power(const Model& m, const Workspace& ws) {
  double p = power_sum(m, nullptr, ws, &ElementKindInfo::input_power);  // external torques depend on no mode
  for (int b : m.driven_bodies) p += ws.drive_torque[b] * ws.w[b];      // the drives' work
  return p;
}

int jacobian_half_bandwidth(const Model& m) {
  const int nb = m.num_bodies();
  int reach = 0;  // largest index distance coupled by one element
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    if (!row.relation) return;
    const CoordinateRow& r = row.relation(m, i);
    const auto [lo, hi] = std::minmax_element(r.body.begin(), r.body.begin() + r.n);
    reach = std::max(reach, *hi - *lo);
  });
  // Bodies that links (clutches, rigid freeplays in contact) may lock
  // together: their span bounds how far a representative sits from its
  // members. A dense cluster's coordinates sit at any of its members.
  LockedRows clutches;
  bool dense = false;
  for (int l = 0; l < m.num_links(); ++l) {
    if (m.links[l].row.n < 2) continue;
    clutches.push_back(m.links[l].row);
    dense = dense || !is_two_body(m.links[l].row);
  }
  const LockedClusters c = lock_clusters(m.inertia, clutches);
  int span = 0;
  for (int k = 0; k < c.num_clusters(); ++k) span = std::max(span, c.members(k).back() - c.members(k).front());
  for (const AlgebraicGroup& g : m.algebraic_groups) {  // bodies around a group couple through it
    std::vector<int> all = g.bodies;
    all.insert(all.end(), g.boundary.begin(), g.boundary.end());
    reach = std::max(reach, *std::max_element(all.begin(), all.end()) - *std::min_element(all.begin(), all.end()));
  }
  return std::min(2 * nb - 1, 2 * ((dense ? 2 : 1) * span + reach) + 2);
}

}  // namespace luztar
