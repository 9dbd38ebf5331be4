#include "solvers/impacts.hpp"

#include <algorithm>
#include <cmath>

#include "core/energy.hpp"
#include "solvers/numerics/lcp.hpp"

namespace luztar {

ImpactOutcome resolve_impacts(const Model& m, std::vector<std::int8_t>& side, const RestThreshold& rest,
                              const std::vector<double>& force, std::vector<double>& q, std::vector<double>& w,
                              ImpactWorkspace& ws) {
  ImpactOutcome out;
  ws.approach.assign(m.springs.size(), 0.0);
  ws.contacts.clear();
  ws.bodies.clear();
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    const Spring& sp = m.springs[s];
    if (!sp.rigid() || side[s] == 0) continue;
    ws.contacts.push_back(static_cast<int>(s));
    ws.bodies.push_back(sp.a);
    if (sp.b != kGround) ws.bodies.push_back(sp.b);
  }
  std::sort(ws.bodies.begin(), ws.bodies.end());
  ws.bodies.erase(std::unique(ws.bodies.begin(), ws.bodies.end()), ws.bodies.end());
  const int nc = static_cast<int>(ws.contacts.size()), nb = static_cast<int>(ws.bodies.size());
  auto local = [&](int body) {
    return static_cast<int>(std::lower_bound(ws.bodies.begin(), ws.bodies.end(), body) - ws.bodies.begin());
  };
  // Separating velocities before, and the rows of N M^-1.
  ws.before.resize(nc);
  ws.q.resize(nc);
  ws.n_minv.setZero(nc, nb);
  double speed = 0.0;
  for (int c = 0; c < nc; ++c) {
    const Spring& sp = m.springs[ws.contacts[c]];
    const double dir = -side[ws.contacts[c]];
    ws.n_minv(c, local(sp.a)) += dir / m.inertia[sp.a];
    if (sp.b != kGround) ws.n_minv(c, local(sp.b)) -= dir * sp.ratio / m.inertia[sp.b];
    ws.before[c] = dir * spring_deflection(sp, w);  // x' = q_a' - p q_b' (x is linear in q)
    if (ws.before[c] < 0.0) {
      out.struck = true;
      ws.approach[ws.contacts[c]] = -ws.before[c];
    }
    speed = std::max(speed, std::abs(ws.before[c]));
    // Newton's law, plastic when the rebound would be too slow or too shallow
    // (depth v^2 / (2 |acceleration back onto the flank|)) to resolve.
    const double rebound = sp.restitution * -ws.before[c];
    const double back = -dir * (force[sp.a] / m.inertia[sp.a] -
                                (sp.b == kGround ? 0.0 : sp.ratio * force[sp.b] / m.inertia[sp.b]));
    const bool shallow = back > 0.0 && rebound * rebound < 2.0 * back * rest.depth;
    const double e = rebound < rest.velocity || shallow ? 0.0 : sp.restitution;
    ws.q[c] = (1.0 + e) * ws.before[c];
  }
  if (!out.struck) return out;
  ws.delassus.resize(nc, nc);
  for (int r = 0; r < nc; ++r)
    for (int c = 0; c < nc; ++c) {
      const Spring& sp = m.springs[ws.contacts[c]];
      const double dir = -side[ws.contacts[c]];
      ws.delassus(r, c) = dir * (ws.n_minv(r, local(sp.a)) - (sp.b != kGround ? sp.ratio * ws.n_minv(r, local(sp.b)) : 0.0));
    }
  LcpSolution sol = solve_lcp_lemke(ws.delassus, ws.q);
  if (sol.status != LcpStatus::solved || lcp_error(ws.delassus, ws.q, sol.z) > 1e-9 * speed) {
    // Redundant contacts make A singular; projected Gauss-Seidel still converges.
    LcpSolution pgs = solve_lcp_pgs(ws.delassus, ws.q, 1e-14 * speed);
    out.fallback = true;
    if (pgs.status == LcpStatus::solved || lcp_error(ws.delassus, ws.q, pgs.z) < lcp_error(ws.delassus, ws.q, sol.z))
      sol = pgs;
    out.solved = pgs.status == LcpStatus::solved;
  }
  ws.impulse = sol.z.cwiseMax(0.0);
  // w+ = w- + M^-1 N^T Pi, column by column of N M^-1 (M diagonal).
  double before = 0.0, after = 0.0;
  for (int j = 0; j < nb; ++j) {
    const int body = ws.bodies[j];
    before += 0.5 * m.inertia[body] * w[body] * w[body];
    w[body] += ws.n_minv.col(j).dot(ws.impulse);
    after += 0.5 * m.inertia[body] * w[body] * w[body];
  }
  out.energy_lost = std::max(0.0, before - after);
  // Each contact onto its flank: a few mass-weighted sweeps (the offsets are
  // the event location's roundoff; chains of contacts settle in a sweep or two).
  for (int sweep = 0; sweep < 3; ++sweep)
    for (int c = 0; c < nc; ++c) {
      const Spring& sp = m.springs[ws.contacts[c]];
      const double gap = side[ws.contacts[c]] * sp.freeplay - spring_deflection(sp, q);
      const double ia = 1.0 / m.inertia[sp.a], ib = sp.b == kGround ? 0.0 : 1.0 / m.inertia[sp.b];
      const double k = gap / (ia + sp.ratio * sp.ratio * ib);
      q[sp.a] += ia * k;
      if (sp.b != kGround) q[sp.b] -= sp.ratio * ib * k;
    }
  // Teeth that fly apart leave the contact; a rebound is at least
  // rest_velocity fast, a contact that stays has u+ = 0 up to roundoff.
  const double apart = std::max(1e-9 * speed, 0.5 * rest.velocity);
  for (int c = 0; c < nc; ++c) {
    const int s = ws.contacts[c];
    const Spring& sp = m.springs[s];
    if (-side[s] * spring_deflection(sp, w) > apart) side[s] = 0;
  }
  return out;
}

}  // namespace luztar
