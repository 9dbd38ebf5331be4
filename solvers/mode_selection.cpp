#include "solvers/mode_selection.hpp"

#include <algorithm>
#include <cmath>

#include "elements/friction.hpp"
#include "solvers/box_qp.hpp"

namespace luztar {

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
  const int nb = m.num_bodies();
  while (!open.empty()) {
    // Forces without the friction of the open elements (they are marked stuck).
    applied_forces(m, modes, t, ws);
    const int n = static_cast<int>(open.size());
    Eigen::MatrixXd FMinv = Eigen::MatrixXd::Zero(n, nb);  // F M^-1
    Eigen::MatrixXd F = Eigen::MatrixXd::Zero(n, nb);
    for (int r = 0; r < n; ++r) {
      const Friction& f = m.frictions[open[r]];
      F(r, f.a) = 1.0;
      if (f.b != kGround) F(r, f.b) = -1.0;
    }
    for (int j = 0; j < nb; ++j) FMinv.col(j) = F.col(j) / m.inertia[j];
    const Eigen::MatrixXd A = FMinv * F.transpose();
    const Eigen::VectorXd b = FMinv * Eigen::Map<const Eigen::VectorXd>(ws.force.data(), nb);
    Eigen::VectorXd hi(n);
    for (int r = 0; r < n; ++r) hi[r] = static_friction_limit(m.frictions[open[r]], ws.mt0[open[r]]);
    const BoxQpSolution qp = solve_box_qp(A, b, -hi, hi);
    ++report.qp_solves;
    report.converged = report.converged && qp.converged;

    // Classify by the relative accelerations, which Gauss's principle fixes uniquely.
    double scale = b.cwiseAbs().maxCoeff();
    for (int r = 0; r < n; ++r) scale = std::max(scale, A(r, r) * hi[r]);
    const double tol = 1e-10 * scale;
    std::vector<int> still_stuck;
    bool any_slip = false;
    for (int r = 0; r < n; ++r) {
      const double acc = qp.residual[r];
      if (acc > tol) {
        modes.friction_mode[open[r]] = FrictionMode::slip_positive;
        any_slip = true;
      } else if (acc < -tol) {
        modes.friction_mode[open[r]] = FrictionMode::slip_negative;
        any_slip = true;
      } else if (const int dir = exhausted_direction(open[r]);
                 dir != 0 && dir * qp.x[r] >= hi[r] * (1.0 - 1e-9)) {
        modes.friction_mode[open[r]] = dir > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative;
        any_slip = true;
      } else {
        still_stuck.push_back(open[r]);
      }
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
