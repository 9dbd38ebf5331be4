#include "solvers/algebraic_bodies.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "core/energy.hpp"
#include "core/projections.hpp"
#include "elements/freeplay_spring.hpp"
#include "solvers/dynamics.hpp"

namespace luztar {

namespace {

// One group in local coordinates: angles q_A of its bodies, q_O of the bodies around it.
struct Local {
  const AlgebraicGroup& g;
  Eigen::MatrixXd GA, GO;  // (springs x nA), (springs x nO): x = GA q_A + GO q_O
  Eigen::VectorXd k, a;    // (springs)
  std::vector<const Spring*> springs;  // (springs) their laws (elements/freeplay_spring.hpp)

  Local(const Model& m, const AlgebraicGroup& group) : g(group) {
    const int ns = static_cast<int>(g.springs.size());
    GA = Eigen::MatrixXd::Zero(ns, static_cast<int>(g.bodies.size()));
    GO = Eigen::MatrixXd::Zero(ns, static_cast<int>(g.boundary.size()));
    k.resize(ns);
    a.resize(ns);
    auto put = [&](int row, int body, double c) {
      const auto in = std::find(g.bodies.begin(), g.bodies.end(), body);
      if (in != g.bodies.end()) GA(row, in - g.bodies.begin()) += c;
      else GO(row, std::find(g.boundary.begin(), g.boundary.end(), body) - g.boundary.begin()) += c;
    };
    for (int r = 0; r < ns; ++r) {
      const Spring& s = m.springs[g.springs[r]];
      springs.push_back(&s);
      for (int t = 0; t < s.row.n; ++t) put(r, s.row.body[t], s.row.c[t]);
      k[r] = s.stiffness;
      a[r] = s.freeplay;
    }
  }
  Eigen::VectorXd outer(const std::vector<double>& v) const {
    Eigen::VectorXd o(g.boundary.size());
    for (std::size_t i = 0; i < g.boundary.size(); ++i) o[i] = v[g.boundary[i]];
    return o;
  }
  double energy(const Eigen::VectorXd& x) const {
    double e = 0.0;
    for (int r = 0; r < x.size(); ++r) e += spring_elastic_energy(*springs[r], x[r]);
    return e;
  }
  // Stiffness weights of the springs engaged at x (0 for slack ones).
  Eigen::VectorXd engaged(const Eigen::VectorXd& x) const {
    Eigen::VectorXd w(x.size());
    for (int r = 0; r < x.size(); ++r) w[r] = spring_stiffness(*springs[r], spring_state_at(*springs[r], x[r], 0.0));
    return w;
  }
  // Stiffness blocks of the region the solved angles (in q) are in.
  struct Region {
    Eigen::MatrixXd KAA, KAO, KOO;
  };
  Region region(const std::vector<double>& q) const {
    Eigen::VectorXd qA(g.bodies.size());
    for (std::size_t i = 0; i < g.bodies.size(); ++i) qA[i] = q[g.bodies[i]];
    const Eigen::VectorXd w = engaged(GA * qA + GO * outer(q));
    return {GA.transpose() * w.asDiagonal() * GA, GA.transpose() * w.asDiagonal() * GO,
            GO.transpose() * w.asDiagonal() * GO};
  }
};

}  // namespace

void solve_algebraic_bodies(const Model& m, Workspace& ws) {
  for (const AlgebraicGroup& group : m.algebraic_groups) {
    const Local L(m, group);
    const int nA = static_cast<int>(group.bodies.size());
    Eigen::VectorXd q(nA);
    for (int i = 0; i < nA; ++i) q[i] = ws.algebraic_q[group.bodies[i]];
    const Eigen::VectorXd base = L.GO * L.outer(ws.q);
    double scale = 1e-300;
    for (int r = 0; r < L.k.size(); ++r) scale = std::max(scale, L.k[r] * (std::abs(base[r]) + L.a[r] + std::abs(L.springs[r]->center)));
    for (int it = 0; it < 100; ++it) {
      const Eigen::VectorXd x = L.GA * q + base;
      Eigen::VectorXd t(x.size());
      for (int r = 0; r < x.size(); ++r) t[r] = spring_elastic_torque(*L.springs[r], x[r]);
      const Eigen::VectorXd grad = L.GA.transpose() * t;
      if (grad.cwiseAbs().maxCoeff() <= 1e-13 * scale) break;
      const Eigen::MatrixXd H = L.GA.transpose() * L.engaged(x).asDiagonal() * L.GA;
      const Eigen::VectorXd d = -H.completeOrthogonalDecomposition().solve(grad);
      const double slope = grad.dot(d), e0 = L.energy(x);
      double alpha = 1.0;
      while (alpha > 1e-12 && L.energy(L.GA * (q + alpha * d) + base) > e0 + 1e-4 * alpha * slope) alpha *= 0.5;
      q += alpha * d;
    }
    for (int i = 0; i < nA; ++i) ws.q[group.bodies[i]] = ws.algebraic_q[group.bodies[i]] = q[i];
  }
}

void algebraic_velocities(const Model& m, Workspace& ws) {
  for (const AlgebraicGroup& group : m.algebraic_groups) {
    const Local L(m, group);
    const Local::Region K = L.region(ws.q);
    const Eigen::VectorXd vA = -K.KAA.completeOrthogonalDecomposition().solve(K.KAO * L.outer(ws.w));
    for (std::size_t i = 0; i < group.bodies.size(); ++i) ws.w[group.bodies[i]] = vA[i];
  }
}

void algebraic_stiffness(const Model& m, const Workspace& ws, std::vector<Coupling>& out) {
  out.clear();
  for (const AlgebraicGroup& group : m.algebraic_groups) {
    const Local L(m, group);
    const Local::Region K = L.region(ws.q);
    const Eigen::MatrixXd S = K.KOO - K.KAO.transpose() * K.KAA.completeOrthogonalDecomposition().solve(K.KAO);
    for (std::size_t i = 0; i < group.boundary.size(); ++i)
      for (std::size_t j = 0; j < group.boundary.size(); ++j)
        if (S(i, j) != 0.0) out.push_back({group.boundary[i], group.boundary[j], -S(i, j)});
  }
}

}  // namespace luztar
