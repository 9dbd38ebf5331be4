#include "solvers/dynamics.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/energy.hpp"
#include "core/projections.hpp"
#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "solvers/filed_entries.hpp"
#include "solvers/structure_links.hpp"

namespace luztar {

Workspace::Workspace(const Model& m)
    : q(m.num_bodies()), w(m.num_bodies()), force(m.num_bodies()), mt0(m.frictions.size()),
      limit(num_links(m)), lambda(num_links(m)), acc(m.num_bodies()), group_utilisation(num_links(m)), massless_mt0(m.num_bodies()) {}

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

int max_root_count(const Model& m) {
  // friction: two reserves while stuck, or one velocity, or its group's one;
  // freeplay springs and massless bodies with dry friction: two kinks each,
  // a rigid freeplay in its gap a turnaround besides
  return static_cast<int>(3 * m.frictions.size() + 3 * m.springs.size()) + 2 * m.num_bodies();
}

void build_mode_structure(const Model& m, const State& modes, double t, const double* inputs, double slip_margin,
                          ModeStructure& ms) {
  const int nf = static_cast<int>(m.frictions.size()), nl = num_links(m);
  ms.stuck.clear();
  ms.contacts.clear();
  ms.link_ids.clear();
  ms.stuck_links.clear();
  ms.stuck.reserve(nf);
  ms.contacts.reserve(m.springs.size());
  ms.link_ids.reserve(nl);
  ms.stuck_links.reserve(nl);
  for (int i = 0; i < nf; ++i) {
    if (modes.friction_mode[i] != FrictionMode::stuck) continue;
    ms.stuck.push_back(i);
    ms.link_ids.push_back(i);
    ms.stuck_links.push_back(link_of(m, i));
  }
  for (int s = 0; s < static_cast<int>(m.springs.size()); ++s) {
    if (!m.springs[s].rigid() || modes.spring_side[s] == 0) continue;
    ms.contacts.push_back(s);
    ms.link_ids.push_back(contact_link(m, s));
    ms.stuck_links.push_back(link_of(m, contact_link(m, s)));
  }
  lock_clusters(m.inertia, ms.stuck_links, ms.clusters);
  group_by_cluster(ms.clusters, ms.stuck_links, ms.link_ids, ms.stuck_by_cluster);
  const int nc = ms.clusters.num_clusters();
  // Static splits, from those filed before where possible.
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

  using K = RootSpec::Kind;
  ms.roots.clear();
  ms.roots.reserve(max_root_count(m));
  // A group with one loop is watched as a whole (its split is not unique).
  ms.in_group.assign(nl, 0);
  for (int s = 0; s < ms.num_splits(); ++s) {
    if (ms.split(s).nullity != 1) continue;
    ms.roots.push_back({K::group_reserve, s, -1});
    for (int i : ms.split(s).links) ms.in_group[i] = 1;
  }
  for (int i = 0; i < nf; ++i) {
    if (!can_stick(m, m.frictions[i]) || ms.in_group[i]) continue;
    switch (modes.friction_mode[i]) {
      case FrictionMode::stuck:
        ms.roots.push_back({K::stick_upper, i, -1});
        ms.roots.push_back({K::stick_lower, i, -1});
        break;
      case FrictionMode::slip_positive:
        ms.roots.push_back({K::slip_velocity, i, -1, -slip_margin});
        break;
      case FrictionMode::slip_negative:
        ms.roots.push_back({K::slip_velocity, i, +1, slip_margin});
        break;
    }
  }
  // A piecewise-linear branch between two kinks (side 0) watches both; on an outer
  // branch only the kink it came through.
  auto kinks = [&](K upper, K lower, int index, int side) {
    if (side >= 0) ms.roots.push_back({upper, index, side == 0 ? +1 : -1});
    if (side <= 0) ms.roots.push_back({lower, index, side == 0 ? -1 : +1});
  };
  bool massless_roots = false;
  for (int j = 0; j < m.num_bodies(); ++j) {
    if (!m.massless(j) || !massless_has_kinks(m, j)) continue;
    kinks(K::massless_upper, K::massless_lower, j, modes.massless_side[j]);
    massless_roots = true;
  }
  for (int s = 0; s < static_cast<int>(m.springs.size()); ++s) {
    if (!has_freeplay_events(m.springs[s]) || m.spring_algebraic[s]) continue;
    if (!m.springs[s].rigid()) kinks(K::freeplay_upper, K::freeplay_lower, s, modes.spring_side[s]);
    else if (modes.spring_side[s] == 0) {  // the teeth strike
      kinks(K::freeplay_upper, K::freeplay_lower, s, 0);
      // No turnaround to watch while the structure holds x' at 0 (both sides
      // held, or locked together at the mesh ratio): x' would be 0 throughout.
      // Within one cluster x' = (g_a - p g_b) v; gains are 0 on held bodies.
      const Spring& sp = m.springs[s];
      const LockedClusters& c = ms.clusters;
      const double ga = c.gain[sp.a], pgb = sp.b == kGround ? 0.0 : sp.ratio * c.gain[sp.b];
      const bool held = (ga == 0.0 && pgb == 0.0) || (sp.b != kGround && c.cluster_of[sp.a] == c.cluster_of[sp.b] &&
                                                      std::abs(ga - pgb) <= 1e-12 * std::abs(ga));
      // The flank the teeth are nearer is the one a short flight returns to;
      // the root sits slip_margin past 0 so that teeth that leave a flank at
      // rest (x' = 0 there) do not start on it.
      if (!held) {
        const bool upper = spring_deflection(sp, modes.q) >= 0.0;
        ms.roots.push_back({K::gap_turnaround, s, upper ? +1 : -1, upper ? slip_margin : -slip_margin});
      }
    }
    else if (!ms.in_group[contact_link(m, s)]) ms.roots.push_back({K::contact_force, s, -1});
  }
  ms.roots_need_forces = !ms.stuck_links.empty() || massless_roots;
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

void applied_forces(const Model& m, const State& modes, double t, Workspace& ws) {
  if (!m.algebraic_groups.empty()) solve_algebraic_bodies(m, ws);
  std::fill(ws.force.begin(), ws.force.end(), 0.0);
  // The signals must be finite here (core/signal.hpp: require_finite_at), named
  // after their element: a NaN torque would end as a CVODE convergence failure.
  for (std::size_t l = 0; l < m.loads.size(); ++l)
    ws.force[m.loads[l].body] += require_finite_at(evaluate(m.signals[m.loads[l].signal], t, ws.inputs.data()), t,
                                                   "element", m.element_names[m.load_element[l]], "torque");
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    const Spring& sp = m.springs[s];
    const double x = spring_deflection(sp, ws.q);
    const double rate = ws.w[sp.a] - (sp.b == kGround ? 0.0 : sp.ratio * ws.w[sp.b]);
    // Springs at algebraic bodies follow their exact luz (the balance was solved
    // with it); a rigid freeplay's contact torque is a link's (static_friction).
    const double T = sp.rigid()              ? sp.damping * rate
                     : m.spring_algebraic[s] ? sp.stiffness * luz(x, sp.freeplay) + sp.damping * rate
                                             : spring_torque(sp, x, rate, modes.spring_side[s]);
    ws.force[sp.a] -= T;
    if (sp.b != kGround) ws.force[sp.b] += sp.ratio * T;
  }
  bool any_massless = false;
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    ws.mt0[i] = require_finite_at(evaluate(m.signals[f.coulomb], t, ws.inputs.data()), t, "element",
                                  m.element_names[m.friction_element[i]], "coulomb");
    ws.limit[i] = static_friction_limit(f, ws.mt0[i]);
    if (m.massless(f.a)) {  // part of the body's first-order equation below
      any_massless = true;
      continue;
    }
    if (modes.friction_mode[i] == FrictionMode::stuck) continue;
    const double lam = kinetic_friction_torque(f, slip_velocity(f, ws.w), modes.friction_mode[i], ws.mt0[i]);
    ws.lambda[i] = lam;
    ws.force[f.a] -= lam;
    if (f.b != kGround) ws.force[f.b] += lam;
  }
  if (any_massless) massless_velocities(m, modes, ws);
}

bool massless_has_kinks(const Model& m, int body) {
  for (const Friction& f : m.frictions)
    if (f.a == body && can_have_dry_friction(m, f)) return true;
  return false;
}

void massless_velocities(const Model& m, const State& modes, Workspace& ws) {
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (m.massless(m.frictions[i].a)) ws.massless_mt0[m.frictions[i].a] = 0.0;
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    if (m.massless(m.frictions[i].a)) ws.massless_mt0[m.frictions[i].a] += ws.mt0[i];
  for (int j = 0; j < m.num_bodies(); ++j)
    if (m.massless(j))
      ws.w[j] = massless_velocity(ws.force[j], ws.massless_mt0[j], m.massless_viscous[j], modes.massless_side[j]);
  // Bearing torques: kinetic while moving; held (v = 0), the balancing torque M
  // shared in proportion to the limits MT0_i (Theorem 3.5 read backwards).
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    if (!m.massless(f.a)) continue;
    const int side = modes.massless_side[f.a];
    const double total = ws.massless_mt0[f.a];
    ws.lambda[i] = side != 0 ? f.viscous * ws.w[f.a] + side * ws.mt0[i]
                             : (total > 0.0 ? ws.force[f.a] * ws.mt0[i] / total : 0.0);
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
  unpack(ms, y, ws);
  applied_forces(m, modes, t, ws);
  cluster_accelerations(m, ms, ws);
  const int nb = m.num_bodies();
  for (int j = 0; j < nb; ++j) {
    ydot[2 * j] = m.algebraic[j] ? 0.0 : ws.w[j];  // algebraic angles come from the balance
    ydot[2 * j + 1] = ms.clusters.rep[j] == j ? ws.acc[ms.clusters.cluster_of[j]] : 0.0;  // 0 when massless
  }
}

void jacobian(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
              JacobianSink& jac, Workspace& ws) {
  const LockedClusters& c = ms.clusters;
  const int nb = m.num_bodies();
  for (int j = 0; j < nb; ++j)
    if (c.rep[j] >= 0 && !m.massless(j)) jac.add(2 * j, 2 * c.rep[j] + 1, c.gain[j]);
  // d(force_j)/d(q_i or w_i) mapped onto the representative's acceleration row,
  // or for a massless body onto its angle row: q_j' = (M_j - side MT0) / mu_j.
  auto dforce = [&](int j, bool wrt_velocity, int i, double value) {
    if (m.massless(j)) {
      if (!wrt_velocity && modes.massless_side[j] != 0 && value != 0.0)
        jac.add(2 * j, 2 * i, value / m.massless_viscous[j]);
      return;
    }
    const int k = c.cluster_of[j];
    if (c.grounded[k] || value == 0.0) return;
    int col = 2 * i;
    if (wrt_velocity) {
      if (c.rep[i] < 0) return;  // velocity fixed at 0
      col = 2 * c.rep[i] + 1;
      value *= c.gain[i];  // w_i = g_i v
    }
    jac.add(2 * c.members(k).front() + 1, col, c.gain[j] * value / c.inertia[k]);
  };
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    if (m.spring_algebraic[s]) continue;  // through the group's Schur complement below
    const Spring& sp = m.springs[s];
    const double k = sp.rigid() ? 0.0 : (sp.freeplay == 0.0 || modes.spring_side[s] != 0) ? sp.stiffness : 0.0;
    // T = k (q_a - p q_b - side a) + c (w_a - p w_b); force_a -= T, force_b += p T.
    const double p = sp.ratio;
    dforce(sp.a, false, sp.a, -k);
    dforce(sp.a, true, sp.a, -sp.damping);
    if (sp.b != kGround) {
      dforce(sp.a, false, sp.b, p * k);
      dforce(sp.a, true, sp.b, p * sp.damping);
      dforce(sp.b, false, sp.a, p * k);
      dforce(sp.b, true, sp.a, p * sp.damping);
      dforce(sp.b, false, sp.b, -p * p * k);
      dforce(sp.b, true, sp.b, -p * p * sp.damping);
    }
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    if (modes.friction_mode[i] == FrictionMode::stuck || m.massless(f.a)) continue;
    // lambda = mu (w_a - w_b) + MT0 dir; force_a -= lambda, force_b += lambda.
    dforce(f.a, true, f.a, -f.viscous);
    if (f.b != kGround) {
      dforce(f.a, true, f.b, f.viscous);
      dforce(f.b, true, f.a, f.viscous);
      dforce(f.b, true, f.b, -f.viscous);
    }
  }
  if (!m.algebraic_groups.empty()) {
    unpack(ms, y, ws);
    applied_forces(m, modes, t, ws);  // solves the groups at this state
    algebraic_stiffness(m, ws, ws.couplings);
    for (const Coupling& c2 : ws.couplings) dforce(c2.on, false, c2.of, c2.value);
  }
}

void root_functions(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
                    double* g, Workspace& ws) {
  unpack(ms, y, ws);
  if (ms.roots_need_forces) applied_forces(m, modes, t, ws);
  if (!ms.stuck_links.empty()) {
    cluster_accelerations(m, ms, ws);
    static_friction(m, modes, ms, ws);
  }
  for (std::size_t r = 0; r < ms.roots.size(); ++r) {
    const RootSpec& spec = ms.roots[r];
    switch (spec.kind) {
      case RootSpec::Kind::slip_velocity:
        g[r] = slip_velocity(m.frictions[spec.index], ws.w) - spec.level;
        break;
      case RootSpec::Kind::stick_upper:
      case RootSpec::Kind::stick_lower: {
        const double limit = ws.limit[spec.index], lam = ws.lambda[spec.index];
        g[r] = spec.kind == RootSpec::Kind::stick_upper ? limit - lam : limit + lam;
        break;
      }
      case RootSpec::Kind::group_reserve:
        g[r] = 1.0 - ws.group_utilisation[spec.index];
        break;
      case RootSpec::Kind::massless_upper:
        g[r] = ws.force[spec.index] - ws.massless_mt0[spec.index];
        break;
      case RootSpec::Kind::massless_lower:
        g[r] = ws.force[spec.index] + ws.massless_mt0[spec.index];
        break;
      case RootSpec::Kind::gap_turnaround: {
        g[r] = spring_deflection(m.springs[spec.index], ws.w) - spec.level;  // x' (x is linear in q)
        break;
      }
      case RootSpec::Kind::contact_force:
        g[r] = modes.spring_side[spec.index] * ws.lambda[contact_link(m, spec.index)];
        break;
      case RootSpec::Kind::freeplay_upper:
      case RootSpec::Kind::freeplay_lower: {
        const Spring& s = m.springs[spec.index];
        const double x = spring_deflection(s, ws.q);
        g[r] = spec.kind == RootSpec::Kind::freeplay_upper ? x - s.freeplay : x + s.freeplay;
        break;
      }
    }
  }
}

double input_power(const Model& m, double t, const Workspace& ws) {
  double p = 0.0;
  for (const Load& l : m.loads) p += evaluate(m.signals[l.signal], t, ws.inputs.data()) * ws.w[l.body];
  return p;
}

double dissipation_power(const Model& m, const State& modes, const Workspace& ws) {
  double p = 0.0;
  for (const Spring& s : m.springs) {
    if (s.damping == 0.0) continue;
    const double rate = ws.w[s.a] - (s.b == kGround ? 0.0 : s.ratio * ws.w[s.b]);
    p += s.damping * rate * rate;
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    if (modes.friction_mode[i] == FrictionMode::stuck) continue;  // v = 0: static friction does no work
    const Friction& f = m.frictions[i];
    const double v = slip_velocity(f, ws.w);
    p += kinetic_friction_torque(f, v, modes.friction_mode[i], ws.mt0[i]) * v;
  }
  return p;
}

void element_outputs(const Model& m, const State& modes, double t, const Workspace& ws, double* torque,
                     std::int8_t* state) {
  for (int e = 0; e < m.num_elements(); ++e) {
    const int i = m.element_index[e];
    switch (m.element_kind[e]) {
      case ElementKind::spring: {
        const Spring& s = m.springs[i];
        const double x = spring_deflection(s, ws.q);
        const double rate = ws.w[s.a] - (s.b == kGround ? 0.0 : s.ratio * ws.w[s.b]);
        if (m.spring_algebraic[i]) {
          torque[e] = s.stiffness * luz(x, s.freeplay) + s.damping * rate;
          state[e] = s.freeplay > 0.0 ? freeplay_side(x, s.freeplay, 0.0) : 0;
        } else if (s.rigid()) {  // the contact torque while the teeth touch
          torque[e] = (modes.spring_side[i] != 0 ? ws.lambda[contact_link(m, i)] : 0.0) + s.damping * rate;
          state[e] = modes.spring_side[i];
        } else {
          torque[e] = spring_torque(s, x, rate, modes.spring_side[i]);
          state[e] = modes.spring_side[i];
        }
        break;
      }
      case ElementKind::friction:
        torque[e] = ws.lambda[i];
        state[e] = static_cast<std::int8_t>(mode_code(modes.friction_mode[i]));
        break;
      case ElementKind::torque:
        torque[e] = evaluate(m.signals[m.loads[i].signal], t, ws.inputs.data());
        state[e] = 0;
        break;
    }
  }
}

int jacobian_half_bandwidth(const Model& m) {
  const int nb = m.num_bodies();
  int reach = 0;  // largest index distance coupled by one element
  for (const Spring& s : m.springs)
    if (s.b != kGround) reach = std::max(reach, std::abs(s.a - s.b));
  // Bodies that clutches may lock together: their span bounds how far a
  // representative sits from its members.
  std::vector<Link> clutches;  // and rigid freeplays, whose contacts lock too
  for (const Friction& f : m.frictions)
    if (f.b != kGround) {
      clutches.push_back({f.a, f.b});
      reach = std::max(reach, std::abs(f.a - f.b));
    }
  for (const Spring& s : m.springs)
    if (s.rigid() && s.b != kGround) clutches.push_back({s.a, s.b, s.ratio});
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
