#include "solvers/mode_selection.hpp"

#include <algorithm>
#include <cmath>

#include "bodies/clusters.hpp"
#include "elements/friction.hpp"
#include "solvers/box_qp.hpp"

namespace luztar {

namespace {

// Gauss's principle for one group of coupled candidates: box QP on the group's
// Delassus matrix, classification by relative acceleration.
template <class ExhaustedDirection>
void decide_group(const Model& m, State& modes, const std::vector<int>& group, const Workspace& ws,
                  ExhaustedDirection&& exhausted_direction, ModeSelectionReport& report,
                  std::vector<int>& still_stuck, bool& any_slip) {
  // Bodies of the group, numbered locally.
  std::vector<int> bodies;
  for (int i : group) {
    bodies.push_back(m.frictions[i].a);
    if (m.frictions[i].b != kGround) bodies.push_back(m.frictions[i].b);
  }
  std::sort(bodies.begin(), bodies.end());
  bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
  auto local = [&](int body) {
    return static_cast<int>(std::lower_bound(bodies.begin(), bodies.end(), body) - bodies.begin());
  };
  const int n = static_cast<int>(group.size()), nb = static_cast<int>(bodies.size());
  Eigen::MatrixXd F = Eigen::MatrixXd::Zero(n, nb);
  for (int r = 0; r < n; ++r) {
    const Friction& f = m.frictions[group[r]];
    F(r, local(f.a)) = 1.0;
    if (f.b != kGround) F(r, local(f.b)) = -1.0;
  }
  Eigen::MatrixXd FMinv = F;  // F M^-1
  Eigen::VectorXd force(nb);
  for (int j = 0; j < nb; ++j) {
    FMinv.col(j) /= m.inertia[bodies[j]];
    force[j] = ws.force[bodies[j]];
  }
  const Eigen::MatrixXd A = FMinv * F.transpose();
  const Eigen::VectorXd b = FMinv * force;
  Eigen::VectorXd hi(n);
  for (int r = 0; r < n; ++r) hi[r] = static_friction_limit(m.frictions[group[r]], ws.mt0[group[r]]);
  const BoxQpSolution qp = solve_box_qp(A, b, -hi, hi);
  ++report.qp_solves;
  report.converged = report.converged && qp.converged;

  // Classify by the relative accelerations, which Gauss's principle fixes uniquely.
  double scale = b.cwiseAbs().maxCoeff();
  for (int r = 0; r < n; ++r) scale = std::max(scale, A(r, r) * hi[r]);
  const double tol = 1e-10 * scale;
  for (int r = 0; r < n; ++r) {
    const int i = group[r];
    const double acc = qp.residual[r];
    if (acc > tol) {
      modes.friction_mode[i] = FrictionMode::slip_positive;
      any_slip = true;
    } else if (acc < -tol) {
      modes.friction_mode[i] = FrictionMode::slip_negative;
      any_slip = true;
    } else if (const int dir = exhausted_direction(i); dir != 0 && dir * qp.x[r] >= hi[r] * (1.0 - 1e-9)) {
      modes.friction_mode[i] = dir > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative;
      any_slip = true;
    } else {
      still_stuck.push_back(i);
    }
  }
}

}  // namespace

ModeSelectionReport select_friction_modes(const Model& m, State& modes, double t,
                                          const std::vector<int>& candidates, Workspace& ws,
                                          const std::vector<BreakAway>& exhausted) {
  auto exhausted_direction = [&](int i) {
    for (const BreakAway& b : exhausted)
      if (b.friction == i) return static_cast<int>(b.mode);
    return 0;
  };
  ModeSelectionReport report;
  std::vector<int> open = candidates;  // elements still to decide
  for (int i : open) modes.friction_mode[i] = FrictionMode::stuck;
  while (!open.empty()) {
    // Forces without the friction of the open elements (they are marked stuck).
    applied_forces(m, modes, t, ws);
    // M is diagonal, so the Delassus matrix is block-diagonal over groups of
    // candidates that share bodies: one small box QP per group.
    std::vector<Link> links;
    for (int i : open) links.push_back({m.frictions[i].a, m.frictions[i].b});
    const LockedClusters groups = lock_clusters(m.inertia, links);
    std::vector<std::vector<int>> members(groups.num_clusters());
    for (int i : open) members[groups.cluster_of[m.frictions[i].a]].push_back(i);
    std::vector<int> still_stuck;
    bool any_slip = false;
    for (const std::vector<int>& group : members) {
      if (group.empty()) continue;
      decide_group(m, modes, group, ws, exhausted_direction, report, still_stuck, any_slip);
    }
    // With equal static and kinetic limits the slipping torques are the bounds
    // the QP already used: done. Otherwise re-decide the rest with kinetic
    // friction on the elements that slip.
    const bool kinetic_differs = std::any_of(open.begin(), open.end(), [&](int i) {
      return modes.friction_mode[i] != FrictionMode::stuck && m.frictions[i].static_ratio != 1.0;
    });
    if (!any_slip || !kinetic_differs) break;
    open = still_stuck;
  }
  return report;
}

}  // namespace luztar
