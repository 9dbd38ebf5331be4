#include "solvers/impacts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/energy.hpp"
#include "solvers/numerics/lcp.hpp"

namespace luztar {

namespace {

// Index of a body among the bodies the rows touch (ws.bodies, sorted).
int local_index(const ImpactWorkspace& ws, int body) {
  return static_cast<int>(std::lower_bound(ws.bodies.begin(), ws.bodies.end(), body) - ws.bodies.begin());
}

// The flank (+-1) that rigid freeplay s in its gap touches at angles q: its
// teeth within rest.depth of it (a flight the integrator cannot resolve; in
// the bodies' units, row_scale times it on x) or within the roundoff of x;
// 0 when they touch neither.
std::int8_t touching_flank(const Spring& sp, const std::vector<double>& q, const RestThreshold& rest) {
  const double dev = row_value(sp.row, q.data()) - sp.center;
  const double roundoff = 16 * std::numeric_limits<double>::epsilon() *
                          (row_magnitude(sp.row, q.data()) + std::abs(sp.center) + sp.freeplay);
  const double near = std::max(rest.depth * row_scale(sp.row), roundoff);
  const bool upper = sp.freeplay - dev <= near, lower = sp.freeplay + dev <= near;
  if (upper && lower) return dev >= 0.0 ? 1 : -1;  // a gap below the resolution: the nearer flank
  return upper ? 1 : lower ? -1 : 0;
}

// The rows of the impact (ws.rows): the rigid freeplays in contact (ws.contacts),
// then every one-way clutch, then each permanent link as a pair of opposite
// plastic rows (its impulse is their difference, of either sign); and the
// bodies they touch (ws.bodies). Teeth in
// their gap but touching a flank (touching_flank) take part as contacts on
// it (ws.joined): a body wedged between two rigid stops strikes both at once
// (struck one at a time, the impacts accumulated in ever shorter flights).
void gather_rows(const Model& m, std::vector<std::int8_t>& side, const std::vector<double>& q,
                 const RestThreshold& rest, ImpactWorkspace& ws) {
  ws.approach.assign(m.springs.size(), 0.0);
  ws.contacts.clear();
  ws.joined.clear();
  ws.joined_side.clear();
  ws.rows.clear();
  ws.bodies.clear();
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    const Spring& sp = m.springs[s];
    if (!sp.rigid()) continue;
    if (side[s] == 0 && (side[s] = touching_flank(sp, q, rest)) != 0) {
      ws.joined.push_back(static_cast<int>(s));
      ws.joined_side.push_back(side[s]);
    }
    if (side[s] == 0) continue;
    ws.contacts.push_back(static_cast<int>(s));
    ws.rows.push_back({sp.row, static_cast<double>(-side[s]), sp.restitution, static_cast<int>(s), m.spring_element[s]});
  }
  for (std::size_t k = 0; k < m.one_way_clutches.size(); ++k) {  // u = o v >= 0, plastic
    const OneWayClutch& c = m.one_way_clutches[k];
    ws.rows.push_back({c.law.row, static_cast<double>(c.overrun), 0.0, -1, m.one_way_element[k]});
  }
  for (std::size_t k = 0; k < m.permanent_links.size(); ++k)  // u = 0 held: two plastic rows, u >= 0 and -u >= 0
    for (double dir : {1.0, -1.0})
      ws.rows.push_back({m.permanent_links[k].row, dir, 0.0, -1, m.permanent_link_element[k]});
  for (const ImpactRow& r : ws.rows) {
    ws.bodies.insert(ws.bodies.end(), r.row.body.begin(), r.row.body.begin() + r.row.n);
  }
  std::sort(ws.bodies.begin(), ws.bodies.end());
  ws.bodies.erase(std::unique(ws.bodies.begin(), ws.bodies.end()), ws.bodies.end());
}

// u = dir sum c_k w_k, the row's separating velocity.
double separating(const ImpactRow& r, const std::vector<double>& w) { return r.dir * row_value(r.row, w.data()); }

// Whether a flight off a flank at separating velocity u [the row's units]
// would rise less than the integrator resolves (rest.depth, in the bodies'
// units: row_scale times it on the row): depth u^2 / (2 back), back the
// acceleration of the applied torques onto the flank (none: it never comes
// back, and the flight is not shallow).
bool shallow_flight(const Model& m, const ImpactRow& r, double u, const RestThreshold& rest,
                    const std::vector<double>& force) {
  const CoordinateRow& row = r.row;
  double accel = row.c[0] * force[row.body[0]] / m.inertia[row.body[0]];  // x'' from the applied torques
  for (int t = 1; t < row.n; ++t) accel += row.c[t] * force[row.body[t]] / m.inertia[row.body[t]];
  const double back = -r.dir * accel;
  return back > 0.0 && u * u < 2.0 * back * rest.depth * row_scale(row);
}

// Separating velocities before (ws.before), the rows of N M^-1 (ws.n_minv) and
// each row's restitution coefficient (ws.restitution): the row's own, 0 for a
// one-way clutch or a permanent link, and 0 where the rebound would be too slow
// or too shallow to resolve. Returns the largest separating speed; out.struck
// when some teeth approach.
double approach_rows(const Model& m, const RestThreshold& rest, const std::vector<double>& force,
                     const std::vector<double>& w, ImpactWorkspace& ws, ImpactOutcome& out) {
  const int nr = static_cast<int>(ws.rows.size()), nb = static_cast<int>(ws.bodies.size());
  ws.before.resize(nr);
  ws.restitution.resize(nr);
  ws.n_minv.setZero(nr, nb);
  double speed = 0.0;
  for (int c = 0; c < nr; ++c) {
    const ImpactRow& r = ws.rows[c];
    const CoordinateRow& row = r.row;
    for (int t = 0; t < row.n; ++t)
      ws.n_minv(c, local_index(ws, row.body[t])) += r.dir * row.c[t] / m.inertia[row.body[t]];
    ws.before[c] = separating(r, w);  // x' = sum c_k w_k (x is linear in q)
    speed = std::max(speed, std::abs(ws.before[c]));
    ws.restitution[c] = 0.0;
    if (r.spring < 0) continue;  // a one-way clutch (a permanent link) engages plastically; it strikes nothing itself
    if (ws.before[c] < 0.0) {
      // (teeth that only touched a flank take part; they strike nothing themselves)
      out.struck = out.struck || std::find(ws.joined.begin(), ws.joined.end(), r.spring) == ws.joined.end();
      ws.approach[r.spring] = -ws.before[c];
    }
    // Plastic when the rebound would be too slow or too shallow (depth
    // v^2 / (2 |acceleration back onto the flank|)) to resolve.
    const double rebound = r.restitution * -ws.before[c];
    const bool slow = rebound < rest.velocity * row_scale(row);  // (rest: the bodies' units)
    ws.restitution[c] = slow || shallow_flight(m, r, rebound, rest, force) ? 0.0 : r.restitution;
  }
  return speed;
}

// The Delassus matrix A = N M^-1 N^T (ws.delassus).
void build_delassus(ImpactWorkspace& ws) {
  const int nr = static_cast<int>(ws.rows.size());
  ws.delassus.resize(nr, nr);
  for (int r = 0; r < nr; ++r)
    for (int c = 0; c < nr; ++c) {
      const CoordinateRow& row = ws.rows[c].row;
      double a = row.c[0] * ws.n_minv(r, local_index(ws, row.body[0]));
      for (int t = 1; t < row.n; ++t) a += row.c[t] * ws.n_minv(r, local_index(ws, row.body[t]));
      ws.delassus(r, c) = ws.rows[c].dir * a;
    }
}

// The impulses z >= 0 of the Delassus LCP  z ⊥ A z + q >= 0: Lemke, or
// projected Gauss-Seidel when Lemke fails or misses the tolerance (out.fallback, out.solved).
Eigen::VectorXd solve_delassus_lcp(double speed, const ImpactWorkspace& ws, const Eigen::VectorXd& q, ImpactOutcome& out) {
  LcpSolution sol = solve_lcp_lemke(ws.delassus, q);
  if (sol.status != LcpStatus::solved || lcp_error(ws.delassus, q, sol.z) > 1e-9 * speed) {
    // Redundant contacts make A singular; projected Gauss-Seidel still converges.
    LcpSolution pgs = solve_lcp_pgs(ws.delassus, q, 1e-14 * speed);
    out.fallback = true;
    if (pgs.status == LcpStatus::solved || lcp_error(ws.delassus, q, pgs.z) < lcp_error(ws.delassus, q, sol.z))
      sol = pgs;
    out.solved = out.solved && pgs.status == LcpStatus::solved;
  }
  return sol.z.cwiseMax(0.0);
}

// The impulses (ws.impulse) by Poisson's law in two phases (impacts.hpp):
//  compression: every row plastic, Pc >= 0 ⊥ u- + A Pc >= 0 (ws.compression);
//  expansion:   D >= 0 ⊥ u+ = u- + A (Pc + s E Pc + D) >= 0, Pi = Pc + s E Pc + D,
// E = diag(e) (ws.restitution), s = 1. With Pc ⊥ u- + A Pc and D ⊥ u+ the
// kinetic energy after is
//   T+ = T- - Pc^T A Pc / 2 + s^2 (E Pc)^T A (E Pc) / 2 - D^T A D / 2,
// at most T- for a common coefficient (s = 1), and for frictionless rows in
// general by Glocker's Part II, our rows (contacts, sprags, permanent links)
// being frictionless. The guard (apply_impulses) holds that to the LCPs'
// tolerance: a gain beyond it takes s = min(1, sqrt(Pc^T A Pc / (E Pc)^T A
// (E Pc))), which bounds T+ by T- through the identity itself, and past that
// the compression alone (plastic). A single contact has Pc = -u-/A, D = 0,
// u+ = -e u-: Newton's law.
void expansion(double speed, double s, ImpactWorkspace& ws, ImpactOutcome& out) {
  const Eigen::VectorXd target = ws.compression + s * ws.compression.cwiseProduct(ws.restitution);  // Pc + s E Pc
  ws.q = ws.before + ws.delassus * target;  // u+ without D
  ws.impulse = target + solve_delassus_lcp(speed, ws, ws.q, out);
}

// Kinetic energy of the rows' bodies at w + M^-1 N^T Pi [J].
double kinetic_after(const Model& m, const ImpactWorkspace& ws, const std::vector<double>& w) {
  double after = 0.0;
  for (int j = 0; j < static_cast<int>(ws.bodies.size()); ++j) {
    const int body = ws.bodies[j];
    const double wj = w[body] + ws.n_minv.col(j).dot(ws.impulse);
    after += 0.5 * m.inertia[body] * wj * wj;
  }
  return after;
}

// The impulses of Poisson's law with its energy guard (out.restitution_limited
// when it acted), then w+ = w- + M^-1 N^T Pi, column by column of N M^-1 (M
// diagonal); the kinetic energy lost into out.energy_lost.
void apply_impulses(const Model& m, double speed, ImpactWorkspace& ws, std::vector<double>& w, ImpactOutcome& out) {
  build_delassus(ws);
  ws.compression = solve_delassus_lcp(speed, ws, ws.before, out);
  expansion(speed, 1.0, ws, out);
  double before = 0.0;
  for (const int body : ws.bodies) before += 0.5 * m.inertia[body] * w[body] * w[body];
  const double tolerance = 1e-9 * before;  // (the LCPs' tolerance, 1e-9 of the speed, on velocities)
  if (kinetic_after(m, ws, w) - before > tolerance) {
    out.restitution_limited = true;
    const Eigen::VectorXd back = ws.compression.cwiseProduct(ws.restitution);
    const double lost = ws.compression.dot(ws.delassus * ws.compression), returned = back.dot(ws.delassus * back);
    if (returned > lost) expansion(speed, std::sqrt(lost / returned), ws, out);
    if (!(returned > lost) || kinetic_after(m, ws, w) - before > tolerance) ws.impulse = ws.compression;
  }
  ws.jump.assign(static_cast<std::size_t>(m.num_bodies()), 0.0);
  out.energy_lost = before - kinetic_after(m, ws, w);
  for (int j = 0; j < static_cast<int>(ws.bodies.size()); ++j) {
    const int body = ws.bodies[j];
    w[body] += ws.n_minv.col(j).dot(ws.impulse);
    // (the impulses are >= 0: each LCP's solution is clamped at 0)
    ws.jump[static_cast<std::size_t>(body)] = ws.n_minv.col(j).cwiseAbs().dot(ws.impulse);
  }
}

// The teeth that touched a flank and took no impulse leave the impact as
// they came, in their gap (side 0), and out of ws.joined: only those the
// impact pressed onto their flank are contacts now.
void release_idle_joined(std::vector<std::int8_t>& side, ImpactWorkspace& ws) {
  std::size_t kept = 0;
  for (std::size_t k = 0; k < ws.joined.size(); ++k) {
    const int s = ws.joined[k];
    const auto c = std::find(ws.contacts.begin(), ws.contacts.end(), s) - ws.contacts.begin();
    if (!(ws.impulse[c] > 0.0)) {
      side[s] = 0;
      continue;
    }
    ws.joined[kept] = s;
    ws.joined_side[kept++] = ws.joined_side[k];
  }
  ws.joined.resize(kept);
  ws.joined_side.resize(kept);
}

// Each contact onto its flank: a few mass-weighted sweeps (the offsets are
// the event location's roundoff, or for teeth that joined the impact the
// integrator's depth resolution at most; chains of contacts settle in a
// sweep or two).
void settle_on_flanks(const Model& m, const std::vector<std::int8_t>& side, const ImpactWorkspace& ws,
                      std::vector<double>& q) {
  for (int sweep = 0; sweep < 3; ++sweep)
    for (const int s : ws.contacts) {
      if (side[s] == 0) continue;  // (released: in its gap)
      const Spring& sp = m.springs[s];
      const CoordinateRow& row = sp.row;
      const double gap = side[s] * sp.freeplay - (spring_deflection(sp, q) - sp.center);  // to the flank
      double weight = 1.0 / m.inertia[row.body[0]] * (row.c[0] * row.c[0]);  // sum c_k^2 / I_k
      for (int t = 1; t < row.n; ++t) weight += row.c[t] * row.c[t] * (1.0 / m.inertia[row.body[t]]);
      const double k = gap / weight;
      for (int t = 0; t < row.n; ++t) q[row.body[t]] += row.c[t] * (1.0 / m.inertia[row.body[t]]) * k;
    }
}

}  // namespace

ImpactOutcome resolve_impacts(const Model& m, std::vector<std::int8_t>& side, const RestThreshold& rest,
                              const std::vector<double>& force, std::vector<double>& q, std::vector<double>& w,
                              ImpactWorkspace& ws) {
  ImpactOutcome out;
  gather_rows(m, side, q, rest, ws);
  const double speed = approach_rows(m, rest, force, w, ws, out);
  if (!out.struck) {
    for (const int s : ws.joined) side[s] = 0;
    ws.joined.clear();
    return out;
  }
  apply_impulses(m, speed, ws, w, out);
  release_idle_joined(side, ws);
  settle_on_flanks(m, side, ws, q);
  // Teeth that fly apart leave the contact; a rebound is at least
  // rest_velocity fast, a contact that stays has u+ = 0 up to roundoff.
  for (const int s : ws.contacts) {
    if (side[s] == 0) continue;
    const double apart = std::max(1e-9 * speed, 0.5 * rest.velocity * row_scale(m.springs[s].row));
    if (-side[s] * spring_deflection(m.springs[s], w) > apart) side[s] = 0;
  }
  return out;
}

void book_impact_shares(const ImpactWorkspace& ws, const std::vector<double>& w, double energy_lost,
                        std::vector<double>& element_dissipated) {
  // Row c's share -Pi_c (u_c- + u_c+)/2: the kinetic energy change of an impulse
  // through the Delassus matrix is Pi^T (u- + u+)/2, so the shares add up to the
  // loss; scaled to energy_lost (computed from the velocities) they do so to roundoff.
  double sum = 0.0;
  const int nr = static_cast<int>(ws.rows.size());
  for (int c = 0; c < nr; ++c) sum += std::max(0.0, -ws.impulse[c] * (ws.before[c] + separating(ws.rows[c], w)) / 2.0);
  if (!(sum > 0.0) || !(energy_lost > 0.0)) return;
  for (int c = 0; c < nr; ++c) {
    const double share = std::max(0.0, -ws.impulse[c] * (ws.before[c] + separating(ws.rows[c], w)) / 2.0);
    element_dissipated[ws.rows[c].element] += energy_lost * (share / sum);
  }
}

}  // namespace luztar
