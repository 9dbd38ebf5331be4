#include "solvers/dynamics.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/energy.hpp"
#include "core/projections.hpp"
#include "elements/friction.hpp"
#include "elements/kinds.hpp"
#include "elements/massless_bearing.hpp"
#include "elements/one_way_clutch.hpp"
#include "solvers/filed_entries.hpp"

namespace luztar {

Workspace::Workspace(const Model& m)
    : q(m.num_bodies()), w(m.num_bodies()), sigma(signal_slot_count(m)), force(m.num_bodies()), limit(m.num_links()),
      lambda(m.num_links()), acc(m.num_bodies()), group_utilisation(m.num_links()), massless_mt0(m.num_bodies()),
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
    case LinkKind::friction: return modes.friction_mode[link.element] == FrictionMode::stuck;
    case LinkKind::contact: return modes.spring_side[link.element] != 0;
    case LinkKind::one_way: return one_way_locked(m, link.element, modes);
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
    else ms.held_elements.push_back(m.link_element(l));
    ms.link_ids.push_back(l);
    ms.stuck_links.push_back(link_of(m, l));
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
void watch_witnesses(const Model& m, const State& modes, double slip_margin, ModeStructure& ms) {
  ms.roots.clear();
  ms.roots.reserve(max_witness_count(m));
  ms.in_group.assign(m.num_links(), 0);
  for (int s = 0; s < ms.num_splits(); ++s) {
    if (ms.split(s).nullity != 1) continue;
    ms.roots.push_back({WitnessKind::group_reserve, s, -1});
    for (int l : ms.split(s).links) ms.in_group[l] = 1;
  }
  const WitnessContext context{&modes, ms.clusters.gain.data(), ms.clusters.cluster_of.data(), ms.in_group.data(),
                               slip_margin};
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
                          ModeStructure& ms) {
  lock_structure(m, modes, ms);
  static_splits(m, t, inputs, ms);
  watch_witnesses(m, modes, slip_margin, ms);
}

void unpack(const ModeStructure& ms, const double* y, Workspace& ws) {
  const int nb = static_cast<int>(ws.q.size());
  for (int j = 0; j < nb; ++j) {
    ws.q[j] = y[2 * j];
    const int r = ms.clusters.rep[j];
    ws.w[j] = r < 0 ? 0.0 : ms.clusters.gain[j] * y[2 * r + 1];
  }
}

void pack(const ModeStructure& ms, const std::vector<double>& q, const std::vector<double>& w, double* y) {
  for (std::size_t j = 0; j < q.size(); ++j) {
    const int r = ms.clusters.rep[j];
    y[2 * j] = q[j];
    y[2 * j + 1] = r < 0 ? 0.0 : w[r];
  }
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
    ws.sigma[k] = require_finite_at(evaluate(m.signals[slot.signal], t, inputs), t, "element",
                                    m.element_names[slot.element], slot.field);
  }
}

void applied_forces(const Model& m, const State& modes, double t, Workspace& ws) {
  signal_values(m, t, ws);
  applied_forces(m, modes, ws);
}

void applied_forces(const Model& m, const State& modes, Workspace& ws) {
  if (!m.algebraic_groups.empty()) solve_algebraic_bodies(m, ws);
  std::fill(ws.force.begin(), ws.force.end(), 0.0);
  const ModeFrame frame = mode_frame(&modes, ws);
  const ForceTargets out{ws.force.data(), ws.lambda.data(), ws.limit.data()};
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    if (row.forces) row.forces(m, i, frame, out);
  });
  if (ws.massless_bearings) massless_velocities(m, modes, ws);  // their bearings' law is the body's
}

void massless_velocities(const Model& m, const State& modes, Workspace& ws) {
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (m.massless(m.frictions[i].a)) ws.massless_mt0[m.frictions[i].a] = 0.0;
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (m.massless(m.frictions[i].a)) ws.massless_mt0[m.frictions[i].a] += ws.sigma[m.frictions[i].slot];
  for (int j = 0; j < m.num_bodies(); ++j)
    if (m.massless(j))
      ws.w[j] = massless_velocity(ws.force[j], ws.massless_mt0[j], m.massless_viscous[j], modes.massless_side[j]);
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    if (!m.massless(f.a)) continue;
    ws.lambda[i] = massless_bearing_torque(f, ws.w[f.a], modes.massless_side[f.a], ws.sigma[f.slot],
                                           ws.massless_mt0[f.a], ws.force[f.a]);
  }
}

void cluster_accelerations(const Model&, const ModeStructure& ms, Workspace& ws) {
  const LockedClusters& c = ms.clusters;
  for (int k = 0; k < c.num_clusters(); ++k) {
    if (c.grounded[k] || c.inertia[k] == 0.0) {  // held by the base, or massless (first-order)
      ws.acc[k] = 0.0;
      continue;
    }
    double sum = 0.0;  // the generalised torque on the cluster's coordinate
    for (int j : c.members(k)) sum += c.gain[j] * ws.force[j];
    ws.acc[k] = sum / c.inertia[k];
  }
}

void static_friction(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws) {
  for (int s = 0; s < ms.num_splits(); ++s)
    ws.group_utilisation[s] =
        solve_static_split(ms.split(s), m, ms.clusters, ws.force, ws.acc, ws.limit, modes.spring_side, ws.lambda);
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
}

namespace {

// Entries d(force_j)/d(q_i or w_i) of the applied torques, mapped onto the
// representative's acceleration row, or for a massless body onto its angle
// row: q_j' = (M_j - side MT0) / mu_j.
class ForceJacobian {
 public:
  ForceJacobian(const Model& m, const State& modes, const LockedClusters& c, JacobianSink& jac)
      : m_(m), modes_(modes), c_(c), jac_(jac) {}

  void add(int j, bool wrt_velocity, int i, double value) {
    if (m_.massless(j)) {
      if (!wrt_velocity && modes_.massless_side[j] != 0 && value != 0.0)
        jac_.add(2 * j, 2 * i, value / m_.massless_viscous[j]);
      return;
    }
    const int k = c_.cluster_of[j];
    if (c_.grounded[k] || value == 0.0) return;
    int col = 2 * i;
    if (wrt_velocity) {
      if (c_.rep[i] < 0) return;  // velocity fixed at 0
      col = 2 * c_.rep[i] + 1;
      value *= c_.gain[i];  // w_i = g_i v
    }
    jac_.add(2 * c_.members(k).front() + 1, col, c_.gain[j] * value / c_.inertia[k]);
  }

  // An element on the relation x = q_a - p q_b whose torque T (-T on a, +p T
  // on b) has tangent stiffness k = dT/dx and damping c = dT/dx'.
  void relation(int a, int b, double p, double k, double c) {
    add(a, false, a, -k);
    add(a, true, a, -c);
    if (b == kGround) return;
    add(a, false, b, p * k);
    add(a, true, b, p * c);
    add(b, false, a, p * k);
    add(b, true, a, p * c);
    add(b, false, b, -p * p * k);
    add(b, true, b, -p * p * c);
  }

 private:
  const Model& m_;
  const State& modes_;
  const LockedClusters& c_;
  JacobianSink& jac_;
};

}  // namespace

void jacobian(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
              JacobianSink& jac, Workspace& ws) {
  signal_values(m, t, ws);  // a friction table's tangent reads its scale
  const LockedClusters& c = ms.clusters;
  for (int j = 0; j < m.num_bodies(); ++j)
    if (c.rep[j] >= 0 && !m.massless(j)) jac.add(2 * j, 2 * c.rep[j] + 1, c.gain[j]);
  ForceJacobian dforce(m, modes, c, jac);
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    Tangent t;
    Relation r;
    if (row.tangent && row.tangent(m, i, modes, ws.sigma.data(), t) && row.relation(m, i, r))
      dforce.relation(r.a, r.b, r.ratio, t.stiffness, t.damping);
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
  if (ms.roots_need_forces) signal_values(m, t, ws);
  root_functions(m, modes, ms, y, g, ws);
}

void root_functions(const Model& m, const State& modes, const ModeStructure& ms, const double* y, double* g,
                    Workspace& ws) {
  unpack(ms, y, ws);
  if (ms.roots_need_forces) applied_forces(m, modes, ws);
  if (!ms.stuck_links.empty()) {
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
  for (std::size_t r = 0; r < ms.roots.size(); ++r) g[r] = witness_value(m, ms.roots[r], in);
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
  return power_sum(m, nullptr, ws, &ElementKindInfo::input_power);  // external torques depend on no mode
}

double dissipation_power(const Model& m, const State& modes, const Workspace& ws) {
  return power_sum(m, &modes, ws, &ElementKindInfo::dissipation);
}

void element_outputs(const Model& m, const State& modes, const Workspace& ws, double* torque,
                     std::int8_t* state) {
  const ModeFrame frame = mode_frame(&modes, ws);
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    const int e = m.elements_of(row.kind)[i];
    const ElementOutput o = as_written(m, row, i, e, row.output(m, i, frame));
    torque[e] = o.torque;
    state[e] = o.state;
  });
}

int jacobian_half_bandwidth(const Model& m) {
  const int nb = m.num_bodies();
  int reach = 0;  // largest index distance coupled by one element
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    Relation r;
    if (row.relation && row.relation(m, i, r) && r.b != kGround) reach = std::max(reach, std::abs(r.a - r.b));
  });
  // Bodies that links (clutches, rigid freeplays in contact) may lock
  // together: their span bounds how far a representative sits from its members.
  std::vector<Link> clutches;
  for (int l = 0; l < m.num_links(); ++l) {
    if (m.links[l].b == kGround) continue;
    clutches.push_back(link_of(m, l));
  }
  const LockedClusters c = lock_clusters(m.inertia, clutches);
  int span = 0;
  for (int k = 0; k < c.num_clusters(); ++k) span = std::max(span, c.members(k).back() - c.members(k).front());
  for (const AlgebraicGroup& g : m.algebraic_groups) {  // bodies around a group couple through it
    std::vector<int> all = g.bodies;
    all.insert(all.end(), g.boundary.begin(), g.boundary.end());
    reach = std::max(reach, *std::max_element(all.begin(), all.end()) - *std::min_element(all.begin(), all.end()));
  }
  return std::min(2 * nb - 1, 2 * (span + reach) + 2);
}

}  // namespace luztar
