#include "solvers/static_friction.hpp"

#include <algorithm>
#include <cmath>

#include "elements/friction.hpp"

namespace luztar {

StaticSplit make_static_split(const Model& m, const LockedClusters& c, int cluster, const std::vector<int>& links,
                       double t) {
  StaticSplit sp;
  sp.bodies = c.members[cluster];
  sp.links = links;
  sp.redundant = c.redundancy[cluster] > 0;
  const int nr = static_cast<int>(sp.bodies.size()), nl = static_cast<int>(links.size());
  auto row_of = [&](int body) {
    return static_cast<int>(std::lower_bound(sp.bodies.begin(), sp.bodies.end(), body) - sp.bodies.begin());
  };
  // Weights: break-away limits at the instant the cluster locked, normalised;
  // a zero limit gets a tiny weight so that the element carries (almost) nothing.
  Eigen::VectorXd limit(nl);
  for (int k = 0; k < nl; ++k) {
    const Friction& f = m.frictions[links[k]];
    limit[k] = static_friction_limit(f, evaluate(m.signals[f.coulomb], t));
  }
  const double lmax = limit.size() ? limit.maxCoeff() : 0.0;
  sp.sqrt_weight.resize(nl);
  for (int k = 0; k < nl; ++k)
    sp.sqrt_weight[k] = std::sqrt(lmax > 0.0 ? std::max(limit[k] / lmax, 1e-12) : 1.0);
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(nr, nl);
  for (int k = 0; k < nl; ++k) {
    const Friction& f = m.frictions[links[k]];
    B(row_of(f.a), k) += sp.sqrt_weight[k];
    if (f.b != kGround) B(row_of(f.b), k) -= sp.sqrt_weight[k];
  }
  sp.solver.compute(B);
  sp.rhs.resize(nr);
  sp.sol.resize(nl);
  return sp;
}

void solve_static_split(const StaticSplit& sp, const Model& m, const LockedClusters& c,
                        const std::vector<double>& force, const std::vector<double>& acc, std::vector<double>& lambda) {
  for (std::size_t r = 0; r < sp.bodies.size(); ++r) {
    const int j = sp.bodies[r];
    sp.rhs[r] = force[j] - m.inertia[j] * acc[c.cluster_of[j]];
  }
  sp.sol = sp.solver.solve(sp.rhs);
  for (std::size_t k = 0; k < sp.links.size(); ++k) lambda[sp.links[k]] = sp.sqrt_weight[k] * sp.sol[k];
}

}  // namespace luztar
