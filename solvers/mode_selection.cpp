#include "solvers/mode_selection.hpp"

#include <algorithm>
#include <cassert>
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

// The scale of a group's relative accelerations: the largest of |b| and of
// A_rr times a finite bound (a friction link's sides are equal).
double group_scale(const ModeSelectionScratch::Group& g) {
  double scale = g.b.cwiseAbs().maxCoeff();
  for (int r = 0; r < static_cast<int>(g.elements.size()); ++r)
    for (double bound : {g.hi[r], -g.lo[r]})
      if (std::isfinite(bound)) scale = std::max(scale, g.delassus(r, r) * bound);
  return scale;
}

// The new modes from the relative accelerations, which Gauss's principle fixes uniquely.
template <class ExhaustedDirection, class ExhaustedEntry>
void classify_group(const Model& m, State& modes, const ModeSelectionScratch::Group& g,
                    ExhaustedDirection&& exhausted_direction, ExhaustedEntry&& exhausted_entry,
                    std::vector<int>& still_stuck, bool& any_slip) {
  const int n = static_cast<int>(g.elements.size());
  const BoxQpSolution& qp = g.qp;
  const Eigen::VectorXd& hi = g.hi;
  double force_scale = 0.0;
  for (int r = 0; r < n; ++r) force_scale = std::max(force_scale, std::abs(qp.x[r]));
  const double tol = 1e-10 * group_scale(g);
  // Where an exhausted reserve's torque counts as at its bound: within 1e-9
  // of the bound or of the reserve's scale (BreakAway::scale), the larger.
  // With the bound's alone, a bearing whose reserve the pipeline read at
  // +2.1e-11 N m (scale 0.04: at 0 and leaving, 1e-9 of the scale) was held
  // by the tie 2e-11 (1e-9 of its limit 0.02), and the integrator, which had
  // found its crossing, took it as made at the restart: the break-away was
  // seen only at the next output instant (twin gear trains at drive
  // amplitude 5.8, 8.9e-5 s after its twin's).
  // And within the roundoff of its reading from the angles (BreakAway::band):
  // shafts 27 rad round put 6e-11 N m into a bearing's reserve beside a
  // 5000 N m/rad mesh, and a reserve read at +2.4e-11 was held by the tie
  // 2e-11 (1e-9 of its scale 0.02) after the integrator had found it
  // crossing (twin gear trains at 4.6 N m: seen at the next output instant,
  // 2.4e-4 s after its twin's).
  auto at_bound = [&](double bound, int i) {
    const BreakAway& b = exhausted_entry(i);
    return bound - std::max(1e-9 * std::max(bound, b.scale), b.band);
  };
  for (int r = 0; r < n; ++r) {
    const int i = g.elements[r];
    const double acc = qp.residual[r];
    if (m.is_contact_link(i)) {
      // Pressed (acceleration zero) it stays; a non-zero acceleration points
      // away from the teeth, and an unloading contact at zero torque lets go.
      const int s = m.links[i].element;
      const bool unloading = exhausted_direction(i) != 0 &&
                             modes.spring_side[s] * qp.x[r] <= 1e-9 * std::max(force_scale, exhausted_entry(i).scale);
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
      const bool overruns = o * acc > tol || (exhausted_direction(i) == o && o * qp.x[r] >= at_bound(limit, i));
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
    } else if (const int dir = exhausted_direction(i); dir != 0 && dir * qp.x[r] >= at_bound(hi[r], i)) {
      mode = dir > 0 ? FrictionMode::slip_positive : FrictionMode::slip_negative;
      any_slip = true;
    } else {
      still_stuck.push_back(i);
    }
  }
}

// A lossy gear's group (its mesh link, and its loss link when shaft a is at
// rest) when it holds no other link (else GearGroupSelection): the fast path,
// the gear's own selection, explicit (its stuck set is
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
    loads = lossy_side_loads(m, lg, modes, ws.force.data());
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

// A lossy gear's group that holds other links too (dry friction beside the
// gear: a bearing on a shaft, a clutch to a third body; validate admits no
// other kind in a gear's reach). Its stuck set is a double cone in (lambda,
// L), not a box, so the group is not a box-LCP: the selection is the mode
// that satisfies every complementarity condition at once, found by
// enumerating the modes. The gear: stuck (s = 0) in either half sigma of its
// cone (both of its bounds linear in lambda there: lossy_half_max,
// lossy_half_min), or (shaft a at rest) moving s = +-1 in the quadrant sigma
// (L = s f + kappa lambda, lossy_loss), or (shaft a moving) its motion in
// either quadrant. Each friction link: stuck, or slipping either way at its
// static limit. Within one mode the torques of the held rows (the mesh, a
// stuck loss, the stuck links) solve "their relative accelerations are 0",
// linear; a loop among them (a bearing on shaft b beside the stuck gear: shaft
// b is held twice) leaves the split free along the null space, and the mode
// is consistent when some split keeps every held torque within its bounds and
// in the half of the cone, and every slipping row's acceleration points its
// way (a gear moving from rest: s a_a > 0). Exhausted reserves (`exhausted`)
// must slip: held, such a row must keep a reserve, and slipping it may start
// at zero acceleration. Of the consistent modes the one with the most rows
// held is taken (stuck wins a tie at zero acceleration, as lossy_select),
// the first in the order stuck, forward, back: a unique choice whenever
// one mode is consistent (the common case, tested); several consistent modes
// with as many held rows (a Painleve-like ambiguity of the non-associated law)
// are not refused but resolved by that order (validate refuses the case known
// to have them: a self-locking gear with friction on shaft b's side). A null
// space of dimension 2 or more (two loops, which validate refuses) would be
// checked at the least-squares split only.
class GearGroupSelection {
 public:
  GearGroupSelection(const Model& m, const ModeSelectionScratch::Group& g, const Workspace& ws, const State& modes)
      : m_(m), g_(g), n_(static_cast<int>(g.elements.size())) {
    for (int r = 0; r < n_; ++r) {
      const ModelLink& l = m.links[g.elements[r]];
      if (l.kind == LinkKind::gear_mesh) {
        gear_ = l.element;
        mesh_ = r;
      } else if (l.kind == LinkKind::gear_loss) {
        loss_ = r;
      } else {
        assert(l.kind == LinkKind::friction && "validate: only dry friction beside a lossy gear");
      }
    }
    const LossyGear& lg = m.lossy_gears[gear_];
    const int a = static_cast<int>(std::lower_bound(g.bodies.begin(), g.bodies.end(), lg.body_a) - g.bodies.begin());
    loss_col_ = loss_ >= 0 ? Eigen::VectorXd(g.delassus.col(loss_)) : Eigen::VectorXd(g.f_minv.col(a));
    // b: the relative accelerations without the held torques, the gear's own
    // loss taken out when it moves (applied_forces put it on shaft a).
    Eigen::VectorXd force(g.bodies.size());
    for (std::size_t j = 0; j < g.bodies.size(); ++j) force[static_cast<int>(j)] = ws.force[g.bodies[j]];
    moving_ = loss_ < 0 ? lossy_motion_of(modes.element_mode[m.lossy_gear_element[gear_]]) : 0;
    if (loss_ < 0) force[a] += ws.lambda[lg.loss_link];
    b_ = g.f_minv * force;
    for (int r = 0; !m.driven_bodies.empty() && r < n_; ++r) {
      const CoordinateRow& l = m.links[g.elements[r]].row;
      for (int t = 0; t < l.n; ++t)
        if (m.prescribed(l.body[t])) b_[r] += l.c[t] * ws.sigma[m.drives[l.body[t]].acceleration_slot];
    }
    limit_.resize(n_);
    double torque = lg.law.bearing;
    for (int r = 0; r < n_; ++r) {
      limit_[r] = m.links[g.elements[r]].kind == LinkKind::friction ? ws.limit[g.elements[r]] : 0.0;
      torque = std::max(torque, limit_[r]);
    }
    for (double f : force) torque = std::max(torque, std::abs(f) * std::max(1.0, std::abs(lg.law.ratio)));
    double acc = b_.cwiseAbs().maxCoeff();
    for (int r = 0; r < n_; ++r) acc = std::max(acc, g.delassus(r, r) * torque);
    torque_tol_ = 1e-9 * torque;
    acc_tol_ = 1e-10 * acc;
  }

  // The gear: its motion s and half sigma. The others: each friction row's
  // mode (0 held, +-1 slipping). Returns whether the mode is consistent.
  template <class ExhaustedDirection>
  bool consistent(int s, int sigma, const std::vector<int>& slip, ExhaustedDirection&& exhausted_direction) {
    const LossyGearLaw& law = m_.lossy_gears[gear_].law;
    const bool gear_moves = loss_ < 0 ? true : s != 0;
    // the held rows' columns: unknowns
    held_.clear();
    for (int r = 0; r < n_; ++r)
      if (r == mesh_ || (r == loss_ && s == 0) || (r != loss_ && r != mesh_ && slip[r] == 0)) held_.push_back(r);
    const int k = static_cast<int>(held_.size());
    const double kappa = lossy_mesh_gain(law, s * sigma > 0) - 1.0;
    // a = a0 + B z_held
    a0_ = b_;
    for (int r = 0; r < n_; ++r)
      if (r != mesh_ && r != loss_ && slip[r] != 0) a0_ -= g_.delassus.col(r) * (slip[r] * limit_[r]);
    if (gear_moves) a0_ -= loss_col_ * (s * law.bearing);
    B_.resize(n_, k);
    for (int c = 0; c < k; ++c) {
      B_.col(c) = -g_.delassus.col(held_[c]);
      if (held_[c] == mesh_ && gear_moves) B_.col(c) -= loss_col_ * kappa;
    }
    Eigen::MatrixXd bk(k, k);
    Eigen::VectorXd rhs(k);
    for (int i = 0; i < k; ++i) {
      rhs[i] = -a0_[held_[i]];
      for (int c = 0; c < k; ++c) bk(i, c) = B_(held_[i], c);
    }
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(bk, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Eigen::VectorXd& sv = svd.singularValues();
    int rank = 0;
    for (int i = 0; i < k; ++i) rank += sv[i] > 1e-10 * sv[0] ? 1 : 0;
    Eigen::VectorXd z = Eigen::VectorXd::Zero(k);
    for (int i = 0; i < rank; ++i) z += svd.matrixV().col(i) * (svd.matrixU().col(i).dot(rhs) / sv[i]);
    if ((bk * z - rhs).norm() > 1e-9 * (rhs.norm() + acc_tol_)) return false;  // (inconsistent held rows)
    Eigen::VectorXd dir = Eigen::VectorXd::Zero(k);  // one loop: the split's free direction
    if (k - rank == 1) dir = svd.matrixV().col(k - 1);
    // each condition value(y) = v0 + v1 y >= -tol over the loop offset y
    lo_ = -INFINITY;
    hi_ = INFINITY;
    ok_ = true;
    auto require = [&](double v0, double v1, double tol) {
      if (std::abs(v1) <= 1e-12 * std::abs(v0) || v1 == 0.0) {
        if (v0 < -tol) ok_ = false;
      } else if (v1 > 0.0) {
        lo_ = std::max(lo_, (-tol - v0) / v1);
      } else {
        hi_ = std::min(hi_, (-tol - v0) / v1);
      }
    };
    auto held_index = [&](int r) {
      return static_cast<int>(std::find(held_.begin(), held_.end(), r) - held_.begin());
    };
    const int km = held_index(mesh_);
    const double lambda0 = z[km], lambda1 = dir[km];
    require(sigma * lambda0, sigma * lambda1, torque_tol_);  // the half (quadrant) of the mesh torque
    const Eigen::VectorXd acc0 = a0_ + B_ * z, acc1 = B_ * dir;
    if (s == 0) {  // the loss in the half sigma of the cone
      const int kl = held_index(loss_);
      const int e = exhausted_direction(g_.elements[loss_]);
      const double k_hi = lossy_half_max(law, sigma, 1.0) - law.bearing, k_lo = lossy_half_min(law, sigma, 1.0) + law.bearing;
      require(law.bearing + k_hi * lambda0 - z[kl], k_hi * lambda1 - dir[kl], e > 0 ? -torque_tol_ : torque_tol_);
      require(z[kl] + law.bearing - k_lo * lambda0, dir[kl] - k_lo * lambda1, e < 0 ? -torque_tol_ : torque_tol_);
    } else if (loss_ >= 0) {  // moving from rest: shaft a's acceleration its way
      const int e = exhausted_direction(g_.elements[loss_]);
      require(s * acc0[loss_], s * acc1[loss_], e == s ? acc_tol_ : -acc_tol_);
    }
    for (int r = 0; r < n_; ++r) {
      if (r == mesh_ || r == loss_) continue;
      const int e = exhausted_direction(g_.elements[r]);
      if (slip[r] == 0) {  // within its limit (an exhausted one strictly below it)
        const int kr = held_index(r);
        for (int side : {1, -1})
          require(limit_[r] - side * z[kr], -side * dir[kr],
                  e == side ? -1e-9 * limit_[r] : torque_tol_);
      } else {  // its acceleration its way (from zero when its reserve ran out that way)
        require(slip[r] * acc0[r], slip[r] * acc1[r], e == slip[r] ? acc_tol_ : -acc_tol_);
      }
    }
    return ok_ && lo_ <= hi_;
  }

  int num_rows() const { return n_; }
  int mesh() const { return mesh_; }
  int loss() const { return loss_; }
  int gear() const { return gear_; }
  int moving() const { return moving_; }

 private:
  const Model& m_;
  const ModeSelectionScratch::Group& g_;
  int n_;
  int gear_ = -1, mesh_ = -1, loss_ = -1, moving_ = 0;
  Eigen::VectorXd loss_col_, b_, a0_;
  Eigen::MatrixXd B_;
  std::vector<double> limit_;
  std::vector<int> held_;
  double torque_tol_ = 0.0, acc_tol_ = 0.0, lo_ = 0.0, hi_ = 0.0;
  bool ok_ = true;
};

// The group of a gear with other links (GearGroupSelection): every mode
// tried, the consistent one with the most rows held applied. Groups of more
// than kMaxGearNeighbours friction rows beside the gear (3^k modes) are not
// enumerated: they count as unsolved and keep the rows held.
constexpr int kMaxGearNeighbours = 6;

template <class ExhaustedDirection>
void decide_gear_group(const Model& m, State& modes, const ModeSelectionScratch::Group& g, const Workspace& ws,
                       ExhaustedDirection&& exhausted_direction, ModeSelectionReport& report,
                       std::vector<int>& still_stuck, bool& any_slip) {
  GearGroupSelection sel(m, g, ws, modes);
  const int n = sel.num_rows();
  std::vector<int> others;
  for (int r = 0; r < n; ++r)
    if (r != sel.mesh() && r != sel.loss()) others.push_back(r);
  const int k = static_cast<int>(others.size());
  std::vector<int> slip(n, 0), best;
  int best_s = 0, best_sigma = 1, best_held = -1;
  ++report.qp_solves;
  if (k <= kMaxGearNeighbours) {
    const std::vector<int> motions = sel.loss() >= 0 ? std::vector<int>{0, 1, -1} : std::vector<int>{sel.moving()};
    int combos = 1;
    for (int i = 0; i < k; ++i) combos *= 3;
    for (int s : motions)
      for (int sigma : {1, -1})
        for (int c = 0; c < combos; ++c) {
          int code = c, held = (sel.loss() >= 0 && s == 0) ? 1 : 0;
          for (int i = 0; i < k; ++i, code /= 3) {
            slip[others[i]] = code % 3 == 0 ? 0 : code % 3 == 1 ? 1 : -1;
            held += slip[others[i]] == 0 ? 1 : 0;
          }
          if (held <= best_held) continue;
          if (!sel.consistent(s, sigma, slip, exhausted_direction)) continue;
          best_held = held;
          best = slip;
          best_s = s;
          best_sigma = sigma;
        }
  }
  const LossyGear& lg = m.lossy_gears[sel.gear()];
  std::int8_t& mode = modes.element_mode[m.lossy_gear_element[sel.gear()]];
  still_stuck.push_back(lg.mesh_link);
  if (best_held < 0) {  // nothing consistent (or too many rows): held, booked unsolved
    ++report.unsolved;
    report.converged = false;
    best.assign(n, 0);
    best_s = sel.loss() >= 0 ? 0 : sel.moving();
    best_sigma = lossy_sigma_of(mode);
  }
  mode = lossy_mode(best_s, best_sigma);
  if (sel.loss() >= 0) {
    if (best_s == 0) still_stuck.push_back(lg.loss_link);
    else any_slip = true;
  }
  for (int r : others) {
    const int i = g.elements[r];
    FrictionMode& f = modes.friction_mode[m.links[i].element];
    f = best[r] > 0 ? FrictionMode::slip_positive : best[r] < 0 ? FrictionMode::slip_negative : FrictionMode::stuck;
    if (best[r] == 0) still_stuck.push_back(i);
    else any_slip = true;
  }
}

// Whether the group holds a lossy gear's link beside other links.
bool gear_with_neighbours(const Model& m, const ModeSelectionScratch::Group& g) {
  bool gear = false, other = false;
  for (int l : g.elements) {
    const LinkKind k = m.links[l].kind;
    (k == LinkKind::gear_mesh || k == LinkKind::gear_loss ? gear : other) = true;
  }
  return gear && other;
}

// Gauss's principle for one group of coupled candidates: box QP on the group's
// Delassus matrix, classification by relative acceleration.
// Returns true when the box QP decided it (its torques are g.qp.x), false
// when a lossy gear's selection did.
template <class ExhaustedDirection, class ExhaustedEntry>
bool decide_group(const Model& m, State& modes, ModeSelectionScratch::Group& g, const Workspace& ws,
                  ExhaustedDirection&& exhausted_direction, ExhaustedEntry&& exhausted_entry,
                  ModeSelectionReport& report, std::vector<int>& still_stuck, bool& any_slip) {
  if (gear_with_neighbours(m, g)) {
    decide_gear_group(m, modes, g, ws, exhausted_direction, report, still_stuck, any_slip);
    return false;
  }
  if (decide_gear(m, modes, g, ws, exhausted_direction, still_stuck, any_slip)) return false;
  group_bounds(m, modes, g, ws);
  solve_group(g, report);
  classify_group(m, modes, g, exhausted_direction, exhausted_entry, still_stuck, any_slip);
  return true;
}

// The direction a candidate that the pass set moving moves in (see
// ModeSelectionScratch::moving_dir), 0 for one that stays held or that a
// lossy gear's selection decides (its loss link).
int moving_direction(const Model& m, const State& modes, const ModeSelectionScratch& sc, int i) {
  const ModelLink& l = m.links[i];
  switch (l.kind) {
    case LinkKind::friction:
      return modes.friction_mode[l.element] == FrictionMode::slip_positive   ? 1
             : modes.friction_mode[l.element] == FrictionMode::slip_negative ? -1
                                                                             : 0;
    case LinkKind::one_way:
      return one_way_locked(m, l.element, modes) ? 0 : m.one_way_clutches[l.element].overrun;
    case LinkKind::contact:
      return modes.spring_side[l.element] == 0 ? -sc.side[i] : 0;
    case LinkKind::permanent:
    case LinkKind::gear_mesh:
    case LinkKind::gear_loss:
      return 0;
  }
  return 0;
}

// The moving candidates whose motion the pass's torques contradict: with the
// held links at the torques the pass solved and every moving one at its own
// (a slipping element's kinetic friction, an overrunning clutch's drag, a
// contact's none, all in ws.force), the relative acceleration of link i,
// a_i = sum_k c_k (body_torque_k / I_k), points against its direction by more
// than roundoff (1e-10 of its scale, as classify_group's). Such an element was
// set moving by torques that the pass no longer applies (another element's
// static torque where that one slips with its kinetic torque): it is re-decided.
// A link on a body a lossy gear's group holds is not checked (that group's
// torques are its own selection's). Returns the index in sc.moving of the one
// contradicted most (its acceleration against its direction over its scale),
// -1 when none is: one at a time, since holding one changes the others'
// accelerations (two slipping ones may each be contradicted with the other
// slipping, while holding either makes the other's slip consistent).
int most_contradicted(const Model& m, const Workspace& ws, const ModeSelectionScratch& sc) {
  int worst = -1;
  double worst_ratio = 1e-10;
  for (std::size_t k = 0; k < sc.moving.size(); ++k) {
    const int i = sc.moving[k];
    const CoordinateRow& row = m.links[i].row;
    double acc = 0.0, scale = 0.0, diag = 0.0;
    bool known = true;
    for (int t = 0; t < row.n; ++t) {
      const int b = row.body[t];
      known = known && sc.body_known[b];
      if (m.prescribed(b)) {  // its drive's acceleration, whatever the torques
        const double drive = row.c[t] * ws.sigma[m.drives[b].acceleration_slot];
        acc += drive;
        scale += std::abs(drive);
        continue;
      }
      acc += row.c[t] * sc.body_torque[b] / m.inertia[b];
      scale += std::abs(row.c[t]) * std::max(std::abs(sc.body_torque[b]), std::abs(ws.force[b])) / m.inertia[b];
      diag += row.c[t] * row.c[t] / m.inertia[b];
    }
    if (!known) continue;
    if (m.links[i].kind == LinkKind::friction || m.links[i].kind == LinkKind::one_way)
      scale = std::max(scale, diag * ws.limit[i]);
    for (int t = 0; t < row.n; ++t) scale = std::max(scale, sc.body_scale[row.body[t]]);  // the QP's roundoff
    if (-sc.moving_dir[k] * acc > worst_ratio * scale) {
      worst = static_cast<int>(k);
      worst_ratio = -sc.moving_dir[k] * acc / scale;
    }
  }
  return worst;
}

// Candidate i held again (stuck, locked, or its teeth in contact on `side`),
// to be decided with the open ones.
void hold_again(const Model& m, State& modes, int i, int side) {
  const ModelLink& l = m.links[i];
  if (l.kind == LinkKind::friction) modes.friction_mode[l.element] = FrictionMode::stuck;
  if (l.kind == LinkKind::one_way) set_one_way_locked(m, l.element, true, modes);
  if (l.kind == LinkKind::contact) modes.spring_side[l.element] = side;
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
  static const BreakAway none{-1, FrictionMode::stuck, 0.0, 0.0};
  auto exhausted_entry = [&](int i) -> const BreakAway& {  // (none: not exhausted; scale and band 0)
    for (const BreakAway& b : exhausted)
      if (b.link == i) return b;
    return none;
  };
  ModeSelectionReport report;
  const std::size_t nl = static_cast<std::size_t>(m.num_links());
  for (std::vector<int>* v : {&sc.open, &sc.still_stuck, &sc.moving, &sc.moving_dir}) v->reserve(nl);
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
  if (sc.open.empty()) return report;
  sc.moving.clear();
  sc.moving_dir.clear();
  sc.side.resize(nl);
  sc.in_open.assign(nl, 0);
  // Each pass decides the open candidates with the moving ones at their own
  // torques; a pass sets some moving or holds one again. Neither can go on
  // for ever without a cycle of the same modes: the bound is generous.
  const int max_passes = 4 * (static_cast<int>(sc.open.size()) + 1);
  for (int pass = 0;; ++pass) {
    ++sc.selections;
    // Forces without the friction of the open elements (they are marked stuck).
    applied_forces(m, modes, t, ws);
    for (int i : sc.open) {
      sc.in_open[i] = 1;
      if (m.is_contact_link(i)) sc.side[i] = modes.spring_side[m.links[i].element];
    }
    sc.body_torque.assign(ws.force.begin(), ws.force.end());
    sc.body_known.assign(static_cast<std::size_t>(m.num_bodies()), 1);
    sc.body_scale.assign(static_cast<std::size_t>(m.num_bodies()), 0.0);
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
      const bool by_qp =
          decide_group(m, modes, g, ws, exhausted_direction, exhausted_entry, report, sc.still_stuck, any_slip);
      if (!by_qp) {
        for (int b : g.bodies) sc.body_known[b] = 0;
        continue;
      }
      const double scale = group_scale(g);
      for (int r = 0; r < static_cast<int>(g.elements.size()); ++r) {  // -F^T x: the torques the QP applied
        const CoordinateRow& l = m.links[g.elements[r]].row;
        for (int t2 = 0; t2 < l.n; ++t2) {
          sc.body_torque[l.body[t2]] -= l.c[t2] * g.qp.x[r];
          sc.body_scale[l.body[t2]] = std::max(sc.body_scale[l.body[t2]], scale);
        }
      }
    }
    // The candidates this pass set moving join the moving ones. A one left
    // moving by a lossy gear's group is its own (no direction here).
    for (int i : sc.still_stuck) sc.in_open[i] = 2;
    for (int i : sc.open) {
      const int dir = sc.in_open[i] == 1 ? moving_direction(m, modes, sc, i) : 0;
      sc.in_open[i] = 0;
      if (dir == 0) continue;
      sc.moving.push_back(i);
      sc.moving_dir.push_back(dir);
    }
    // With equal static and kinetic limits the slipping torques are the bounds
    // the QP already used. Otherwise re-decide the rest with kinetic friction
    // on the elements that slip.
    const bool kinetic_differs = std::any_of(sc.open.begin(), sc.open.end(), [&](int i) {
      const ModelLink& l = m.links[i];
      if (l.kind == LinkKind::one_way)
        return !one_way_locked(m, l.element, modes) && m.one_way_clutches[l.element].law.static_ratio != 1.0;
      return l.kind == LinkKind::friction && modes.friction_mode[l.element] != FrictionMode::stuck &&
             m.frictions[l.element].static_ratio != 1.0;
    });
    sc.open.swap(sc.still_stuck);
    std::sort(sc.open.begin(), sc.open.end());
    if (any_slip && kinetic_differs) continue;
    // Settled: the held ones are within their static limits with every moving
    // one at its own torque. A moving one that those torques would accelerate
    // against its direction (it was set moving by another's static torque, and
    // that one moves too) is held again, and the rest decided anew.
    const int k = most_contradicted(m, ws, sc);
    if (k < 0) break;
    if (pass + 1 >= max_passes) {  // a cycle of holds and releases: booked unsolved
      ++report.unsolved;
      report.converged = false;
      break;
    }
    const int i = sc.moving[static_cast<std::size_t>(k)];
    hold_again(m, modes, i, -sc.moving_dir[static_cast<std::size_t>(k)]);
    sc.moving.erase(sc.moving.begin() + k);
    sc.moving_dir.erase(sc.moving_dir.begin() + k);
    sc.open.insert(std::lower_bound(sc.open.begin(), sc.open.end(), i), i);
  }
  return report;
}

}  // namespace luztar
