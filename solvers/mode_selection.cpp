#include "solvers/mode_selection.hpp"

#include <algorithm>
#include <cmath>

#include "bodies/clusters.hpp"
#include "elements/friction.hpp"
#include "elements/lossy_gear.hpp"
#include "elements/one_way_clutch.hpp"
#include "solvers/numerics/box_qp.hpp"
#include "solvers/filed_entries.hpp"
#include "solvers/numerics/lcp.hpp"

namespace luztar {

namespace {

// The cached group of exactly these elements, or a new (or recycled) one
// prepared for them: bodies, F M^-1 and the Delassus matrix.
ModeSelectionScratch::Group& group_for(const Model& m, ModeSelectionScratch& sc, const int* first, const int* last) {
  bool found = false;
  ModeSelectionScratch::Group& g = file_lookup(sc.filed[*first], sc.selections, [&](const ModeSelectionScratch::Group& e) {
    return std::equal(first, last, e.elements.begin(), e.elements.end());
  }, found);
  if (found) return g;
  g.elements.assign(first, last);
  g.bodies.clear();
  for (int i : g.elements) {
    const CoordinateRow& l = m.links[i].row;
    g.bodies.insert(g.bodies.end(), l.body.begin(), l.body.begin() + l.n);
  }
  std::sort(g.bodies.begin(), g.bodies.end());
  g.bodies.erase(std::unique(g.bodies.begin(), g.bodies.end()), g.bodies.end());
  auto local = [&](int body) {
    return static_cast<int>(std::lower_bound(g.bodies.begin(), g.bodies.end(), body) - g.bodies.begin());
  };
  const int n = static_cast<int>(g.elements.size()), nb = static_cast<int>(g.bodies.size());
  g.f_minv.setZero(n, nb);
  for (int r = 0; r < n; ++r) {
    const CoordinateRow& l = m.links[g.elements[r]].row;
    for (int t = 0; t < l.n; ++t)  // a prescribed body's acceleration is its drive's: no torque moves it
      if (!m.prescribed(l.body[t])) g.f_minv(r, local(l.body[t])) += l.c[t] / m.inertia[l.body[t]];
  }
  g.delassus.resize(n, n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {  // (F M^-1 F^T)_rc: F_c has c_t at its bodies
      const CoordinateRow& l = m.links[g.elements[c]].row;
      double a = l.c[0] * g.f_minv(r, local(l.body[0]));
      for (int t = 1; t < l.n; ++t) a += l.c[t] * g.f_minv(r, local(l.body[t]));
      g.delassus(r, c) = a;
    }
  g.force.resize(nb);
  g.b.resize(n);
  g.lo.resize(n);
  g.hi.resize(n);
  return g;
}

// The group's Delassus right-hand side (g.b) and bounds: a friction link
// within its static limit, a contact one-sided (the teeth push, never pull), a
// one-way clutch bounded against overrun only (o lambda <= static_ratio D), a
// permanent link not at all (its rate is held whatever its torque).
void group_bounds(const Model& m, const State& modes, ModeSelectionScratch::Group& g, const Workspace& ws) {
  const int n = static_cast<int>(g.elements.size()), nb = static_cast<int>(g.bodies.size());
  for (int j = 0; j < nb; ++j) g.force[j] = ws.force[g.bodies[j]];
  g.b.noalias() = g.f_minv * g.force;
  for (int r = 0; !m.driven_bodies.empty() && r < n; ++r) {  // the drives' accelerations on the rows
    const CoordinateRow& l = m.links[g.elements[r]].row;
    for (int t = 0; t < l.n; ++t)
      if (m.prescribed(l.body[t])) g.b[r] += l.c[t] * ws.sigma[m.drives[l.body[t]].acceleration_slot];
  }
  for (int r = 0; r < n; ++r) {
    const int i = g.elements[r];
    const ModelLink& link = m.links[i];
    switch (link.kind) {
      case LinkKind::contact: {
        const int side = modes.spring_side[link.element];
        g.lo[r] = side > 0 ? 0.0 : -INFINITY;
        g.hi[r] = side > 0 ? INFINITY : 0.0;
        break;
      }
      case LinkKind::friction:
        g.hi[r] = ws.limit[i];  // static_ratio MT0(t) (applied_forces)
        g.lo[r] = -g.hi[r];
        break;
      case LinkKind::one_way: {
        const bool positive = m.one_way_clutches[link.element].overrun > 0;
        g.lo[r] = positive ? -INFINITY : -ws.limit[i];  // static_ratio D(t) (applied_forces)
        g.hi[r] = positive ? ws.limit[i] : INFINITY;
        break;
      }
      case LinkKind::permanent:  // any torque: the row is held, never released
      case LinkKind::gear_mesh:
      case LinkKind::gear_loss:  // (a lossy gear's group is decided by the gear: decide_gear)
        g.lo[r] = -INFINITY;
        g.hi[r] = INFINITY;
        break;
    }
  }
}

// Gauss's principle as a box QP on the group's Delassus matrix (g.qp); when
// PGS and its polish miss the tolerance (an ill-conditioned group), Lemke's
// pivoting on the same box-LCP (one-sided bounds included), exact up to
// roundoff. Booked in the report.
void solve_group(ModeSelectionScratch::Group& g, ModeSelectionReport& report) {
  solve_box_qp(g.delassus, g.b, g.lo, g.hi, g.qp_workspace, g.qp);
  if (!g.qp.converged) {
    const LcpSolution exact = solve_box_lcp_lemke(g.delassus, g.b, g.lo, g.hi);
    ++report.lemke_solves;
    if (exact.status == LcpStatus::solved &&
        box_qp_kkt_error(g.delassus, g.b, g.lo, g.hi, exact.z) <
            box_qp_kkt_error(g.delassus, g.b, g.lo, g.hi, g.qp.x)) {
      g.qp.x = exact.z;
      g.qp.residual = -exact.w;
      g.qp.converged = true;
    }
  }
  ++report.qp_solves;
  report.unsolved += g.qp.converged ? 0 : 1;
  report.converged = report.converged && g.qp.converged;
}

// The new modes from the relative accelerations, which Gauss's principle fixes uniquely.
template <class ExhaustedDirection, class ExhaustedScale>
void classify_group(const Model& m, State& modes, const ModeSelectionScratch::Group& g,
                    ExhaustedDirection&& exhausted_direction, ExhaustedScale&& exhausted_scale,
                    std::vector<int>& still_stuck, bool& any_slip) {
  const int n = static_cast<int>(g.elements.size());
  const BoxQpSolution& qp = g.qp;
  const Eigen::VectorXd& hi = g.hi;
  const Eigen::MatrixXd& A = g.delassus;
  double scale = g.b.cwiseAbs().maxCoeff(), force_scale = 0.0;
  for (int r = 0; r < n; ++r) {
    for (double bound : {hi[r], -g.lo[r]})  // the finite sides (a friction link's are equal)
      if (std::isfinite(bound)) scale = std::max(scale, A(r, r) * bound);
    force_scale = std::max(force_scale, std::abs(qp.x[r]));
  }
  const double tol = 1e-10 * scale;
  for (int r = 0; r < n; ++r) {
    const int i = g.elements[r];
    const double acc = qp.residual[r];
    if (m.is_contact_link(i)) {
      // Pressed (acceleration zero) it stays; a non-zero acceleration points
      // away from the teeth, and an unloading contact at zero torque lets go.
      const int s = m.links[i].element;
      const bool unloading = exhausted_direction(i) != 0 &&
                             modes.spring_side[s] * qp.x[r] <= 1e-9 * std::max(force_scale, exhausted_scale(i));
      if (std::abs(acc) > tol || unloading) modes.spring_side[s] = 0;
      else still_stuck.push_back(i);
      continue;
    }
    if (m.is_permanent_link(i)) {  // held: its relative acceleration is 0 (unbounded box)
      still_stuck.push_back(i);
      continue;
    }
    if (m.is_one_way_link(i)) {
      // Its relative acceleration can only point the overrun way (the locking
      // side is unbounded): it overruns when it does, or when its exhausted
      // reserve leaves its torque at the bound against overrun; else it locks.
      const int c = m.links[i].element, o = m.one_way_clutches[c].overrun;
      const double limit = o > 0 ? hi[r] : -g.lo[r];
      const bool overruns = o * acc > tol || (exhausted_direction(i) == o && o * qp.x[r] >= limit * (1.0 - 1e-9));
      set_one_way_locked(m, c, !overruns, modes);
      if (overruns) any_slip = true;
      else still_stuck.push_back(i);
      continue;
    }
    FrictionMode& mode = modes.friction_mode[m.links[i].element];
    if (acc > tol) {
      mode = FrictionMode::slip_positive;
      any_slip = true;
    } else if (acc < -tol) {
      mode = FrictionMode::slip_negative;
      any_slip = true;
    } else if (const int dir = exhausted_direction(i); dir != 0 && dir * qp.x[r] >= hi[r] * (1.0 - 1e-9)) {
      mode = dir > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative;
      any_slip = true;
    } else {
      still_stuck.push_back(i);
    }
  }
}

// A lossy gear's group (its mesh link, and its loss link when shaft a is at
// rest): no other link acts on its shafts (validate), so the group is the
// gear's alone and its selection is the gear's own, explicit (its stuck set is
// a cone in its mesh torque, not a box: elements/lossy_gear.hpp,
// lossy_select): stuck when the loss it needs lies in its cone, else moving
// towards the bound it exceeds (at the instant a reserve runs out, `exhausted`
// says which). A moving gear (its loss link not open) gets the quadrant its
// torques give. False when the group holds no gear's link.
template <class ExhaustedDirection>
bool decide_gear(const Model& m, State& modes, const ModeSelectionScratch::Group& g, const Workspace& ws,
                 ExhaustedDirection&& exhausted_direction, std::vector<int>& still_stuck, bool& any_slip) {
  int gear = -1;
  bool at_rest = false;
  for (int l : g.elements) {
    const LinkKind k = m.links[l].kind;
    if (k != LinkKind::gear_mesh && k != LinkKind::gear_loss) continue;
    gear = m.links[l].element;
    at_rest = at_rest || k == LinkKind::gear_loss;
  }
  if (gear < 0) return false;
  const LossyGear& lg = m.lossy_gears[gear];
  GearLoads loads = lossy_loads(m, lg, ws.force.data());
  std::int8_t& mode = modes.element_mode[m.lossy_gear_element[gear]];
  still_stuck.push_back(lg.mesh_link);
  if (!at_rest) {  // moving: the torques besides its own loss (which applied_forces put on shaft a)
    loads.torque_a += ws.lambda[lg.loss_link];
    mode = lossy_selected_mode(lg.law, loads, lossy_motion_of(mode));
    return true;
  }
  const double scale = std::max({std::abs(loads.torque_a), std::abs(loads.torque_b / lg.law.ratio), lg.law.bearing});
  const int s = lossy_select(lg.law, loads, exhausted_direction(lg.loss_link), 1e-9 * scale);
  mode = lossy_selected_mode(lg.law, loads, s);
  if (s == 0) still_stuck.push_back(lg.loss_link);
  else any_slip = true;
  return true;
}

// Gauss's principle for one group of coupled candidates: box QP on the group's
// Delassus matrix, classification by relative acceleration.
template <class ExhaustedDirection, class ExhaustedScale>
void decide_group(const Model& m, State& modes, ModeSelectionScratch::Group& g, const Workspace& ws,
                  ExhaustedDirection&& exhausted_direction, ExhaustedScale&& exhausted_scale,
                  ModeSelectionReport& report, std::vector<int>& still_stuck, bool& any_slip) {
  if (decide_gear(m, modes, g, ws, exhausted_direction, still_stuck, any_slip)) return;
  group_bounds(m, modes, g, ws);
  solve_group(g, report);
  classify_group(m, modes, g, exhausted_direction, exhausted_scale, still_stuck, any_slip);
}

// A link on prescribed bodies alone (a bearing on a driven shaft) at rest:
// its relative acceleration is the drives' sum c_k a_k, whatever its torque.
// It slips that way (a one-way clutch overruns, or locks against it); at
// zero it stays at rest. Returns false for the other links (Gauss's principle).
bool decide_driven_link(const Model& m, State& modes, double t, int i, Workspace& ws) {
  const ModelLink& l = m.links[i];
  if (m.driven_bodies.empty()) return false;
  for (int k = 0; k < l.row.n; ++k)
    if (!m.prescribed(l.row.body[k])) return false;
  signal_values(m, t, ws);
  double a = 0.0;
  for (int k = 0; k < l.row.n; ++k) a += l.row.c[k] * ws.sigma[m.drives[l.row.body[k]].acceleration_slot];
  if (l.kind == LinkKind::one_way) {
    set_one_way_locked(m, l.element, m.one_way_clutches[l.element].overrun * a <= 0.0, modes);
  } else if (l.kind == LinkKind::friction) {
    modes.friction_mode[l.element] = a > 0.0 ? FrictionMode::slip_positive
                                     : a < 0.0 ? FrictionMode::slip_negative
                                               : FrictionMode::stuck;
  } else {
    return false;  // (validate: no rigid teeth or permanent link at a prescribed body alone)
  }
  return true;
}

}  // namespace

ModeSelectionReport select_friction_modes(const Model& m, State& modes, double t,
                                          const std::vector<int>& candidates, Workspace& ws,
                                          const std::vector<BreakAway>& exhausted) {
  ModeSelectionScratch scratch;
  return select_friction_modes(m, modes, t, candidates, ws, exhausted, scratch);
}

ModeSelectionReport select_friction_modes(const Model& m, State& modes, double t,
                                          const std::vector<int>& candidates, Workspace& ws,
                                          const std::vector<BreakAway>& exhausted, ModeSelectionScratch& sc) {
  auto exhausted_direction = [&](int i) {
    for (const BreakAway& b : exhausted)
      if (b.link == i) return m.is_contact_link(i) ? 1 : static_cast<int>(b.mode);
    return 0;
  };
  auto exhausted_scale = [&](int i) {
    for (const BreakAway& b : exhausted)
      if (b.link == i) return b.scale;
    return 0.0;
  };
  ModeSelectionReport report;
  const std::size_t nl = static_cast<std::size_t>(m.num_links());
  for (std::vector<int>* v : {&sc.open, &sc.still_stuck}) v->reserve(nl);
  sc.links.reserve(nl);
  sc.clusters.reserve(m.num_bodies());
  sc.filed.resize(nl);
  sc.open.clear();  // elements still to decide
  for (int i : candidates)
    if (!decide_driven_link(m, modes, t, i, ws)) sc.open.push_back(i);
  std::sort(sc.open.begin(), sc.open.end());
  for (int i : sc.open) {
    const ModelLink& l = m.links[i];
    if (l.kind == LinkKind::friction) modes.friction_mode[l.element] = FrictionMode::stuck;
    if (l.kind == LinkKind::one_way) set_one_way_locked(m, l.element, true, modes);
    if (l.kind == LinkKind::gear_loss) {  // stuck, in the half of its cone it was in
      std::int8_t& mode = modes.element_mode[m.lossy_gear_element[l.element]];
      mode = lossy_mode(0, lossy_sigma_of(mode));
    }
  }
  while (!sc.open.empty()) {
    ++sc.selections;
    // Forces without the friction of the open elements (they are marked stuck).
    applied_forces(m, modes, t, ws);
    // M is diagonal, so the Delassus matrix is block-diagonal over groups of
    // candidates that share bodies: one small box QP per group.
    sc.links.clear();
    for (int i : sc.open) sc.links.push_back(m.links[i].row);
    lock_clusters(m.inertia, sc.links, sc.clusters);
    group_by_cluster(sc.clusters, sc.links, sc.open, sc.open_by_cluster);  // ascending within a group
    const int nc = sc.clusters.num_clusters();
    sc.still_stuck.clear();
    bool any_slip = false;
    for (int k = 0; k < nc; ++k) {
      if (sc.open_by_cluster.empty(k)) continue;
      const IndexRange open = sc.open_by_cluster.of(k);
      ModeSelectionScratch::Group& g = group_for(m, sc, open.begin(), open.end());
      decide_group(m, modes, g, ws, exhausted_direction, exhausted_scale, report, sc.still_stuck, any_slip);
    }
    // With equal static and kinetic limits the slipping torques are the bounds
    // the QP already used: done. Otherwise re-decide the rest with kinetic
    // friction on the elements that slip.
    const bool kinetic_differs = std::any_of(sc.open.begin(), sc.open.end(), [&](int i) {
      const ModelLink& l = m.links[i];
      if (l.kind == LinkKind::one_way)
        return !one_way_locked(m, l.element, modes) && m.one_way_clutches[l.element].law.static_ratio != 1.0;
      return l.kind == LinkKind::friction && modes.friction_mode[l.element] != FrictionMode::stuck &&
             m.frictions[l.element].static_ratio != 1.0;
    });
    if (!any_slip || !kinetic_differs) break;
    sc.open.swap(sc.still_stuck);
    std::sort(sc.open.begin(), sc.open.end());
  }
  return report;
}

}  // namespace luztar
