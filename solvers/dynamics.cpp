#include "solvers/dynamics.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/energy.hpp"
#include "core/projections.hpp"
#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "elements/kinds.hpp"
#include "elements/massless_bearing.hpp"
#include "elements/torque_load.hpp"
#include "solvers/filed_entries.hpp"

namespace luztar {

Workspace::Workspace(const Model& m)
    : q(m.num_bodies()), w(m.num_bodies()), sigma(signal_slot_count(m)), force(m.num_bodies()), mt0(m.frictions.size()),
      limit(m.num_links()), lambda(m.num_links()), acc(m.num_bodies()), group_utilisation(m.num_links()), massless_mt0(m.num_bodies()) {}

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

namespace {

// The links locked in `modes` (Model::links, in link order: stuck frictions,
// then rigid freeplays in contact) and the clusters they make.
void lock_structure(const Model& m, const State& modes, ModeStructure& ms) {
  const int nl = m.num_links();
  ms.stuck.clear();
  ms.contacts.clear();
  ms.link_ids.clear();
  ms.stuck_links.clear();
  ms.stuck.reserve(m.frictions.size());
  ms.contacts.reserve(m.springs.size());
  ms.link_ids.reserve(nl);
  ms.stuck_links.reserve(nl);
  for (int l = 0; l < nl; ++l) {
    const ModelLink& link = m.links[l];
    const bool locked = link.kind == LinkKind::friction ? modes.friction_mode[link.element] == FrictionMode::stuck
                                                        : modes.spring_side[link.element] != 0;
    if (!locked) continue;
    (link.kind == LinkKind::friction ? ms.stuck : ms.contacts).push_back(link.element);
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

// True when the structure holds a rigid freeplay's x' at 0 (both sides held, or
// locked together at the mesh ratio): x' would be 0 throughout. Within one
// cluster x' = (g_a - p g_b) v; gains are 0 on held bodies.
// The clamp of a contact-law spring in the modes (0 for the others, and for
// modes built without clamps).
std::int8_t clamp_of(const State& modes, std::size_t s) {
  return s < modes.spring_clamp.size() ? modes.spring_clamp[s] : 0;
}

bool rate_held(const Spring& sp, const LockedClusters& c) {
  const double ga = c.gain[sp.a], pgb = sp.b == kGround ? 0.0 : sp.ratio * c.gain[sp.b];
  return (ga == 0.0 && pgb == 0.0) ||
         (sp.b != kGround && c.cluster_of[sp.a] == c.cluster_of[sp.b] && std::abs(ga - pgb) <= 1e-12 * std::abs(ga));
}

// The witnesses of the structure (the elements' own, elements/kinds.hpp): a
// static group with one loop is watched as a whole (its split is not unique),
// its links not one by one.
void watch_witnesses(const Model& m, const State& modes, double slip_margin, ModeStructure& ms) {
  ms.roots.clear();
  ms.roots.reserve(max_witness_count(m));
  ms.in_group.assign(m.num_links(), 0);
  for (int s = 0; s < ms.num_splits(); ++s) {
    if (ms.split(s).nullity != 1) continue;
    ms.roots.push_back({WitnessKind::group_reserve, s, -1});
    for (int l : ms.split(s).links) ms.in_group[l] = 1;
  }
  for (int i = 0; i < static_cast<int>(m.frictions.size()); ++i)  // friction i is link i
    if (can_stick(m, m.frictions[i]) && !ms.in_group[i]) friction_witnesses(i, modes.friction_mode[i], slip_margin, ms.roots);
  bool massless_roots = false;
  for (int j = 0; j < m.num_bodies(); ++j) {
    if (!m.massless(j) || !massless_has_kinks(m, j)) continue;
    massless_witnesses(j, modes.massless_side[j], ms.roots);
    massless_roots = true;
  }
  for (int s = 0; s < static_cast<int>(m.springs.size()); ++s) {
    const Spring& sp = m.springs[s];
    if (!has_freeplay_events(sp) || m.spring_algebraic[s]) continue;
    const bool contact_in_group = sp.rigid() && ms.in_group[m.spring_link[s]];
    const bool held = sp.rigid() && modes.spring_side[s] == 0 && rate_held(sp, ms.clusters);
    spring_witnesses(sp, s, modes.spring_side[s], spring_deflection(sp, modes.q), held, contact_in_group, slip_margin,
                     ms.roots, clamp_of(modes, s));
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

int signal_slot_count(const Model& m) { return static_cast<int>(m.loads.size() + m.frictions.size()); }

std::vector<const Signal*> slot_signals(const Model& m) {
  std::vector<const Signal*> s;
  for (const Load& l : m.loads) s.push_back(&m.signals[l.signal]);
  for (const Friction& f : m.frictions) s.push_back(&m.signals[f.coulomb]);
  return s;
}

void signal_values(const Model& m, double t, Workspace& ws) {
  const double* inputs = ws.inputs.data();
  for (int l = 0; l < static_cast<int>(m.loads.size()); ++l) ws.sigma[load_slot(l)] = load_torque(m, l, t, inputs);
  for (int i = 0; i < static_cast<int>(m.frictions.size()); ++i)
    ws.sigma[coulomb_slot(m, i)] = coulomb_limit(m, i, t, inputs);
}

void applied_forces(const Model& m, const State& modes, double t, Workspace& ws) {
  signal_values(m, t, ws);
  applied_forces(m, modes, ws);
}

void applied_forces(const Model& m, const State& modes, Workspace& ws) {
  if (!m.algebraic_groups.empty()) solve_algebraic_bodies(m, ws);
  std::fill(ws.force.begin(), ws.force.end(), 0.0);
  for (int l = 0; l < static_cast<int>(m.loads.size()); ++l) ws.force[m.loads[l].body] += ws.sigma[load_slot(l)];
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    const Spring& sp = m.springs[s];
    const SpringRelation r = spring_relation(sp, ws.q.data(), ws.w.data());
    // Springs at algebraic bodies follow their exact luz (the balance was solved
    // with it); a rigid freeplay's contact torque is a link's (static_friction).
    const double T = m.spring_algebraic[s] ? spring_torque_exact(sp, r)
                                            : spring_torque(sp, r, modes.spring_side[s], clamp_of(modes, s));
    apply_spring_torque(sp, T, ws.force.data());
  }
  bool any_massless = false;
  for (int i = 0; i < static_cast<int>(m.frictions.size()); ++i) {  // friction i is link i
    const Friction& f = m.frictions[i];
    ws.mt0[i] = ws.sigma[coulomb_slot(m, i)];
    ws.limit[i] = static_friction_limit(f, ws.mt0[i]);
    if (m.massless(f.a)) {  // part of the body's first-order equation below
      any_massless = true;
      continue;
    }
    if (modes.friction_mode[i] == FrictionMode::stuck) continue;
    ws.lambda[i] = kinetic_friction_torque(f, friction_rate(f, ws.w.data()), modes.friction_mode[i], ws.mt0[i]);
    apply_friction_torque(f, ws.lambda[i], ws.force.data());
  }
  if (any_massless) massless_velocities(m, modes, ws);
}

void massless_velocities(const Model& m, const State& modes, Workspace& ws) {
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (m.massless(m.frictions[i].a)) ws.massless_mt0[m.frictions[i].a] = 0.0;
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (m.massless(m.frictions[i].a)) ws.massless_mt0[m.frictions[i].a] += ws.mt0[i];
  for (int j = 0; j < m.num_bodies(); ++j)
    if (m.massless(j))
      ws.w[j] = massless_velocity(ws.force[j], ws.massless_mt0[j], m.massless_viscous[j], modes.massless_side[j]);
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    if (!m.massless(f.a)) continue;
    ws.lambda[i] = massless_bearing_torque(f, ws.w[f.a], modes.massless_side[f.a], ws.mt0[i], ws.massless_mt0[f.a],
                                           ws.force[f.a]);
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
  const LockedClusters& c = ms.clusters;
  for (int j = 0; j < m.num_bodies(); ++j)
    if (c.rep[j] >= 0 && !m.massless(j)) jac.add(2 * j, 2 * c.rep[j] + 1, c.gain[j]);
  ForceJacobian dforce(m, modes, c, jac);
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    if (m.spring_algebraic[s]) continue;  // through the group's Schur complement below
    const Spring& sp = m.springs[s];
    const std::int8_t side = modes.spring_side[s], clamp = clamp_of(modes, s);
    dforce.relation(sp.a, sp.b, sp.ratio, spring_stiffness(sp, side, clamp), spring_damping(sp, side, clamp));
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    if (modes.friction_mode[i] == FrictionMode::stuck || m.massless(f.a)) continue;
    dforce.relation(f.a, f.b, 1.0, 0.0, friction_damping(f));  // lambda = mu v + MT0 dir
  }
  if (!m.algebraic_groups.empty()) {
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

double input_power(const Model& m, const Workspace& ws) {
  double p = 0.0;
  for (int l = 0; l < static_cast<int>(m.loads.size()); ++l) p += load_power(m, l, ws.sigma[load_slot(l)], ws.w.data());
  return p;
}

double dissipation_power(const Model& m, const State& modes, const Workspace& ws) {
  double p = 0.0;
  for (std::size_t i = 0; i < m.springs.size(); ++i) {
    const Spring& s = m.springs[i];
    if (s.damping == 0.0) continue;
    const SpringRelation r = spring_relation(s, ws.q.data(), ws.w.data());
    p += spring_dissipation(s, r, s.contact_damping ? modes.spring_side[i] : 0, clamp_of(modes, i), r.rate);
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    if (modes.friction_mode[i] == FrictionMode::stuck) continue;  // v = 0: static friction does no work
    const Friction& f = m.frictions[i];
    p += friction_dissipation(f, friction_rate(f, ws.w.data()), modes.friction_mode[i], ws.mt0[i]);
  }
  return p;
}

void element_outputs(const Model& m, const State& modes, const Workspace& ws, double* torque,
                     std::int8_t* state) {
  auto put = [&](int e, ElementOutput o) {
    torque[e] = o.torque;
    state[e] = o.state;
  };
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    const Spring& sp = m.springs[s];
    const SpringRelation r = spring_relation(sp, ws.q.data(), ws.w.data());
    const std::int8_t side = modes.spring_side[s];
    if (m.spring_algebraic[s])  // no events: the side read from x
      put(m.spring_element[s], spring_output_exact(sp, r, sp.freeplay > 0.0 ? freeplay_side(r.x, sp.freeplay, 0.0) : 0, 0.0));
    else  // a rigid freeplay's contact torque while the teeth touch
      put(m.spring_element[s], spring_output(sp, r, side, sp.rigid() && side != 0 ? ws.lambda[m.spring_link[s]] : 0.0,
                                             clamp_of(modes, s)));
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    put(m.friction_element[i], friction_output(ws.lambda[i], modes.friction_mode[i]));
  for (int l = 0; l < static_cast<int>(m.loads.size()); ++l) put(m.load_element[l], load_output(ws.sigma[load_slot(l)]));
}

int jacobian_half_bandwidth(const Model& m) {
  const int nb = m.num_bodies();
  int reach = 0;  // largest index distance coupled by one element
  for (const Spring& s : m.springs)
    if (s.b != kGround) reach = std::max(reach, std::abs(s.a - s.b));
  // Bodies that links (clutches, rigid freeplays in contact) may lock
  // together: their span bounds how far a representative sits from its members.
  std::vector<Link> clutches;
  for (int l = 0; l < m.num_links(); ++l) {
    if (m.links[l].b == kGround) continue;
    clutches.push_back(link_of(m, l));
    if (!m.is_contact_link(l)) reach = std::max(reach, std::abs(m.links[l].a - m.links[l].b));
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
