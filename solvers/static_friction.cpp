#include "solvers/static_friction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "elements/friction.hpp"
#include "elements/lossy_gear.hpp"
#include "elements/one_way_clutch.hpp"

namespace luztar {

namespace {
// The utilisation l / L of a side with limit L > 0 that torque l loads
// (l > 0), whose roundoff is `roundoff`: a side that holds nothing (L the
// tiny stand-in for 0: a one-way clutch without drag against overrun, a
// friction limit at 0) counts an l within its roundoff as 0. Else the
// roundoff of a torque that is 0 there (1e-16 N m at the offset that unloads
// a drag-free one-way clutch) read as a utilisation of 1e284, that offset
// lost to one of 1e15, and the group's reserve root fired at every step of
// CVODE while the S-S selection held the group (286 stops in 9 ms: a
// planetary with a brake and a freewheel on its ring, a new-user hunt).
double side_utilisation(double l, double L, double roundoff) {
  return (l > 0.0 && l <= roundoff && L < roundoff) ? 0.0 : l / L;
}

// The largest utilisation at offset z: each torque l = l0 + n z as l / upper
// in + and -l / lower in - (a side with an infinite limit counts 0), and 0
// at least. With equal limits, |l| / L.
double utilisation(const Eigen::VectorXd& l0, const Eigen::VectorXd& n, const Eigen::VectorXd& upper,
                   const Eigen::VectorXd& lower, double z) {
  double u = 0.0;
  for (int i = 0; i < l0.size(); ++i) {
    const double l = l0[i] + n[i] * z;
    const double roundoff = 64.0 * std::numeric_limits<double>::epsilon() * (std::abs(l0[i]) + std::abs(n[i] * z));
    u = std::max(u, std::max(side_utilisation(l, upper[i], roundoff), side_utilisation(-l, lower[i], roundoff)));
  }
  return u;
}
}  // namespace

double chebyshev_offset(const Eigen::VectorXd& l0, const Eigen::VectorXd& n, const Eigen::VectorXd& L,
                        double& value, double z_low, double z_high) {
  return chebyshev_offset(l0, n, L, L, value, z_low, z_high);
}

double chebyshev_offset(const Eigen::VectorXd& l0, const Eigen::VectorXd& n, const Eigen::VectorXd& upper,
                        const Eigen::VectorXd& lower, double& value, double z_low, double z_high) {
  const int m = static_cast<int>(l0.size());
  // u is convex in z: over [z_low, z_high] the minimum is a crossing inside or an end.
  double best_z = std::clamp(0.0, z_low, z_high);
  value = utilisation(l0, n, upper, lower, best_z);
  auto consider = [&](double z) {
    if (!std::isfinite(z)) return;
    z = std::clamp(z, z_low, z_high);
    const double u = utilisation(l0, n, upper, lower, z);
    if (u < value || (u == value && std::abs(z) < std::abs(best_z))) {
      value = u;
      best_z = z;
    }
  };
  for (int i = 0; i < m; ++i) {
    if (n[i] != 0.0) consider(-l0[i] / n[i]);  // kink of element i (|.|, or a one-sided line meeting 0)
    for (int j = i + 1; j < m; ++j)
      for (double si : {1.0, -1.0})
        for (double sj : {1.0, -1.0}) {
          // si (l0_i + n_i z)/L_i = sj (l0_j + n_j z)/L_j, L the limit on each one's side (an
          // infinite one: the line 0, which meets the other at its kink)
          const double Li = si > 0.0 ? upper[i] : lower[i], Lj = sj > 0.0 ? upper[j] : lower[j];
          const double slope = si * n[i] / Li - sj * n[j] / Lj;
          if (slope != 0.0) consider((sj * l0[j] / Lj - si * l0[i] / Li) / slope);
        }
  }
  return best_z;
}

StaticSplit make_static_split(const Model& m, const LockedClusters& c, int cluster, const std::vector<int>& links,
                              double t, const double* inputs) {
  StaticSplit sp;
  make_static_split(m, c, cluster, links, t, inputs, sp);
  return sp;
}

void make_static_split(const Model& m, const LockedClusters& c, int cluster, const std::vector<int>& links,
                       double t, const double* inputs, StaticSplit& sp) {
  const IndexRange bodies = c.members(cluster);
  const bool same = sp.links == links && std::equal(bodies.begin(), bodies.end(), sp.bodies.begin(), sp.bodies.end());
  const int nr = static_cast<int>(bodies.size()), nl = static_cast<int>(links.size());
  if (!same) {
    sp.bodies.assign(bodies.begin(), bodies.end());
    sp.links = links;
    auto row_of = [&](int body) {
      return static_cast<int>(std::lower_bound(sp.bodies.begin(), sp.bodies.end(), body) - sp.bodies.begin());
    };
    sp.ft.setZero(nr, nl);
    for (int k = 0; k < nl; ++k) {
      const CoordinateRow& l = m.links[links[k]].row;
      for (int t = 0; t < l.n; ++t) sp.ft(row_of(l.body[t]), k) += l.c[t];
    }
    sp.nullity = c.redundancy[cluster];
    sp.sqrt_weight.setOnes(nl);
    if (sp.nullity == 1) {
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(sp.ft, Eigen::ComputeFullV);
      sp.null_dir = svd.matrixV().col(nl - 1);  // singular values sorted decreasing: the last spans the loop
    }
    sp.gears.clear();
    for (int k = 0; k < nl; ++k)
      if (m.is_gear_loss_link(links[k])) {
        const int gear = m.links[links[k]].element;
        const int mesh = static_cast<int>(std::find(links.begin(), links.end(), m.lossy_gears[gear].mesh_link) - links.begin());
        if (mesh < nl) sp.gears.push_back({gear, mesh, k});
      }
    const int rows = nl + 2 * static_cast<int>(sp.gears.size());
    for (Eigen::VectorXd* v : {&sp.row_l0, &sp.row_n, &sp.row_upper, &sp.row_lower}) v->resize(rows);
    sp.rhs.resize(nr);
    sp.sol.resize(nl);
    sp.bound.resize(nl);
    sp.bound_lower.resize(nl);
  } else if (sp.nullity < 2) {
    return;  // nothing depends on t
  }
  if (sp.nullity >= 2) {
    // Weights: break-away limits when the cluster locked, normalised; a zero
    // limit gets a tiny weight so that the element carries (almost) nothing.
    // A contact, and a one-way clutch (unbounded in its locking direction),
    // is weighted like the strongest friction element.
    auto strong = [&](int link) {
      return m.is_contact_link(link) || m.is_one_way_link(link) || m.is_permanent_link(link) || m.is_gear_loss_link(link);
    };
    for (int k = 0; k < nl; ++k) {
      if (strong(links[k])) {
        sp.bound[k] = 0.0;
        continue;
      }
      const Friction& f = m.frictions[m.links[links[k]].element];
      sp.bound[k] = static_friction_limit(f, evaluate(m.signals[f.coulomb], t, inputs));  // r S tau_0
    }
    const double lmax = sp.bound.maxCoeff();
    for (int k = 0; k < nl; ++k)
      if (strong(links[k])) sp.bound[k] = lmax;
    for (int k = 0; k < nl; ++k) sp.sqrt_weight[k] = std::sqrt(lmax > 0.0 ? std::max(sp.bound[k] / lmax, 1e-12) : 1.0);
  }
  sp.solver.compute(sp.ft * sp.sqrt_weight.asDiagonal());
}

double solve_static_split(const StaticSplit& sp, const Model& m, const LockedClusters& c,
                          const std::vector<double>& force, const std::vector<double>& acc,
                          const std::vector<double>& slot_acc, const std::vector<double>& limit,
                          const std::vector<std::int8_t>& spring_side, const std::vector<std::int8_t>& element_mode,
                          std::vector<double>& lambda) {
  for (std::size_t r = 0; r < sp.bodies.size(); ++r) {
    const int j = sp.bodies[r];
    const int k = c.cluster_of[j];  // (the fast path's product in its own order: results stay identical)
    sp.rhs[r] = force[j] - (c.dense(k) ? m.inertia[j] * body_acceleration(c, j, acc.data(), slot_acc.data())
                                       : m.inertia[j] * c.gain[j] * acc[k]);
  }
  sp.sol = sp.solver.solve(sp.rhs);
  const int nl = static_cast<int>(sp.links.size());
  constexpr double kTiny = 1e-300;  // a zero limit admits (almost) no torque
  double u = 0.0;
  if (sp.nullity == 1) {
    // The loop's offset z is free within the contacts' one-sided bounds
    // side * (l0 + n z) >= 0; a contact carries no utilisation (L = inf), a
    // one-way clutch only against overrun (its locking side: L = inf).
    double z_low = -INFINITY, z_high = INFINITY;
    bool feasible = true;
    for (int k = 0; k < nl; ++k) {
      const int link = sp.links[k];
      if (m.is_one_way_link(link)) {
        const bool positive = m.one_way_clutches[m.links[link].element].overrun > 0;
        sp.bound[k] = positive ? std::max(limit[link], kTiny) : INFINITY;
        sp.bound_lower[k] = positive ? INFINITY : std::max(limit[link], kTiny);
        continue;
      }
      if (m.is_permanent_link(link) || m.is_gear_loss_link(link)) {  // no limit on either side (a gear's: its cone)
        sp.bound[k] = sp.bound_lower[k] = INFINITY;
        continue;
      }
      if (!m.is_contact_link(link)) {
        sp.bound[k] = sp.bound_lower[k] = std::max(limit[link], kTiny);
        continue;
      }
      sp.bound[k] = sp.bound_lower[k] = INFINITY;
      const double side = spring_side[m.links[link].element], a = side * sp.sol[k], b = side * sp.null_dir[k];
      if (b > 0.0) z_low = std::max(z_low, -a / b);
      else if (b < 0.0) z_high = std::min(z_high, -a / b);
      else if (a < 0.0) feasible = false;
    }
    for (const StaticSplit::LoopGear& lg : sp.gears) {
      // A cone without bearing friction (f = 0) has no utilisation to share:
      // its half bounds the offset as a contact does, f - (L - k_hi lambda) >= 0
      // and (L - k_lo lambda) + f >= 0.
      const LossyGear& g = m.lossy_gears[lg.gear];
      if (g.law.bearing > 0.0) continue;
      const int sigma = lossy_sigma_of(element_mode[m.lossy_gear_element[lg.gear]]);
      for (int side : {1, -1}) {
        const double k = side > 0 ? lossy_half_max(g.law, sigma, 1.0) : lossy_half_min(g.law, sigma, 1.0);
        const double a = -side * (sp.sol[lg.loss] - k * sp.sol[lg.mesh]);
        const double b = -side * (sp.null_dir[lg.loss] - k * sp.null_dir[lg.mesh]);
        if (b > 0.0) z_low = std::max(z_low, -a / b);
        else if (b < 0.0) z_high = std::min(z_high, -a / b);
        else if (a < 0.0) feasible = false;
      }
    }
    if (z_low > z_high) feasible = false;
    // Without an admissible offset some contact must let go: utilisation > 1
    // makes the group's reserve root fire where the interval closed.
    if (!feasible) z_low = z_high = std::isfinite(z_low) ? z_low : std::isfinite(z_high) ? z_high : 0.0;
    double z = 0.0;
    if (sp.gears.empty()) {
      z = chebyshev_offset(sp.sol, sp.null_dir, sp.bound, sp.bound_lower, u, z_low, z_high);
    } else {
      sp.row_l0.head(nl) = sp.sol;
      sp.row_n.head(nl) = sp.null_dir;
      sp.row_upper.head(nl) = sp.bound;
      sp.row_lower.head(nl) = sp.bound_lower;
      int r = nl;
      for (const StaticSplit::LoopGear& lg : sp.gears) {
        const LossyGear& g = m.lossy_gears[lg.gear];
        const int sigma = lossy_sigma_of(element_mode[m.lossy_gear_element[lg.gear]]);
        const double f = g.law.bearing > 0.0 ? g.law.bearing : INFINITY;  // (f = 0: bounds on z above)
        const double k_hi = lossy_half_max(g.law, sigma, 1.0) - g.law.bearing;
        const double k_lo = lossy_half_min(g.law, sigma, 1.0) + g.law.bearing;
        for (int side : {1, -1}) {  // L - k lambda: at most f (k_hi), at least -f (k_lo)
          const double k = side > 0 ? k_hi : k_lo;
          sp.row_l0[r] = sp.sol[lg.loss] - k * sp.sol[lg.mesh];
          sp.row_n[r] = sp.null_dir[lg.loss] - k * sp.null_dir[lg.mesh];
          sp.row_upper[r] = side > 0 ? f : INFINITY;
          sp.row_lower[r] = side > 0 ? INFINITY : f;
          ++r;
        }
      }
      z = chebyshev_offset(sp.row_l0, sp.row_n, sp.row_upper, sp.row_lower, u, z_low, z_high);
    }
    for (int k = 0; k < nl; ++k) lambda[sp.links[k]] = sp.sol[k] + sp.null_dir[k] * z;
    return feasible ? u : std::max(u, 2.0);
  }
  for (int k = 0; k < nl; ++k) {
    const int link = sp.links[k];
    const double lam = sp.sqrt_weight[k] * sp.sol[k];
    lambda[link] = lam;
    if (m.is_one_way_link(link))
      u = std::max(u, one_way_utilisation(m.one_way_clutches[m.links[link].element], lam, limit[link]));
    else if (!m.is_contact_link(link) && !m.is_permanent_link(link) && !m.is_gear_loss_link(link))
      u = std::max(u, std::abs(lam) / std::max(limit[link], kTiny));  // (a lossy gear watches its own reserves)
  }
  return u;
}

}  // namespace luztar
