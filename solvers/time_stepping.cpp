#include "solvers/time_stepping.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/energy.hpp"
#include "core/times.hpp"
#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "core/projections.hpp"
#include "core/run_frame.hpp"
#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "elements/kinds.hpp"
#include "elements/lossy_gear.hpp"
#include "elements/one_way_clutch.hpp"
#include "solvers/numerics/box_qp.hpp"
#include "solvers/numerics/lcp.hpp"
#include "solvers/blocks/sampled_blocks.hpp"
#include "solvers/element_outputs.hpp"
#include "solvers/sampling_loop.hpp"

namespace luztar {

namespace {

// A constraint row of a link (Model::links): its coordinate row, for dry
// friction or a one-way clutch (a clutch: e_a - e_b) or the +G_s direction of
// a rigid freeplay (between two bodies e_a - p e_b).
struct Row {
  CoordinateRow row;
  int element = -1;  // friction, one-way clutch or spring index (Model::links' element)
  int link = -1;     // its link
  int overrun = 0;   // a one-way clutch's o; 0 for the others
  bool permanent = false;  // a permanent link's row (or a lossy gear's mesh): unbounded, held always
  int gear = -1;           // a lossy gear's loss row: its gear (Model::lossy_gears); -1 for the others
  double dot(const Eigen::VectorXd& v) const { return row_value(row, v.data()); }
};

// W = M + h theta C + h^2 theta^2 K factorised, with W^-1 G^T and D = G W^-1 G^T
// over all potential rows, for one set of element tangents and one h.
struct Iteration {
  std::vector<Tangent> tangent;  // (ne) tangent stiffness and damping of each element
  double h = 0.0;
  // (nb x nb) W over all bodies: its driven columns couple the drives' known
  // motion into the free rows, its driven rows give the drives' impulses.
  Eigen::MatrixXd full;
  // W with each prescribed body's row and column replaced by the identity's:
  // W_ff on the free bodies (the unknowns), a driven body's velocity change data.
  Eigen::LDLT<Eigen::MatrixXd> W;
  Eigen::MatrixXd WinvGt;  // (nb x rows) W_ff^-1 G_f^T, 0 on the driven bodies (no impulse moves them)
  Eigen::MatrixXd D;       // (rows x rows)
};

bool same_tangents(const std::vector<Tangent>& a, const std::vector<Tangent>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Tangent& x, const Tangent& y) {
    return x.stiffness == y.stiffness && x.damping == y.damping;
  });
}

class MoreauJean {
 public:
  MoreauJean(const Model& m, const SimulationSettings& s) : m_(m), theta_(s.theta), sampler_(m, s.t_start) {
    const int nb = m.num_bodies();
    for (int j = 0; j < nb; ++j)
      if (!(m.inertia[j] > 0.0))
        throw ModelError("simulation.solver", "time_stepping needs every body to have inertia > 0; body '" +
                                                  m.body_names[j] +
                                                  "' is massless (use solver: event_driven for massless bodies)");
    for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
      if (!row.step_output)
        throw ModelError("simulation.solver", std::string("time_stepping cannot run ") + to_string(row.kind) +
                                                  " elements such as '" +
                                                  m.element_names[m.elements_of(row.kind)[i]] +
                                                  "' (use solver: event_driven)");
    });
    if (!(s.step > 0.0) || !std::isfinite(s.step))
      throw std::invalid_argument("time stepping: the step h must be > 0 (simulation.step)");
    if (!(s.theta >= 0.5 && s.theta <= 1.0))
      throw std::invalid_argument("time stepping: theta must be in [0.5, 1] (simulation.theta)");
    make_rows();
    drive_dq_.assign(m.driven_bodies.size(), 0.0);
    drive_v1_.assign(m.driven_bodies.size(), 0.0);
    drive_torque_.assign(static_cast<std::size_t>(nb), 0.0);
    driven_impulse_.assign(m.driven_frictions.size(), 0.0);
    q_ = Eigen::Map<const Eigen::VectorXd>(m.angle0.data(), nb);
    v_ = Eigen::Map<const Eigen::VectorXd>(m.velocity0.data(), nb);
    t_ = s.t_start;
    sampler_.sample(m_, t_, q_.data(), v_.data(), values_.data());  // the first instant is t_start
    force_.resize(nb);
    rhs_.resize(nb);
    v_free_.resize(nb);
    v_new_.resize(nb);
    dv_eff_.resize(nb);
    impulse_.assign(rows_.size(), 0.0);
    contact_upper_.assign(m.num_links(), 0.0);
    contact_lower_.assign(m.num_links(), 0.0);
    link_impulse_.assign(m.num_links(), 0.0);
    link_held_.assign(m.num_links(), 0);
    v_mid_.resize(nb);
    v_theta_.resize(nb);
    torque_.assign(m.num_elements(), 0.0);
    state_.assign(m.num_elements(), 0);
    element_dissipated_.assign(m.num_elements(), 0.0);
  }

  double t() const { return t_; }
  const Eigen::VectorXd& q() const { return q_; }
  const Eigen::VectorXd& v() const { return v_; }
  double input_work() const { return input_work_; }
  double dissipated() const { return dissipated_; }
  // (ne) the same by element, booked per step with the global sum's terms.
  const std::vector<double>& element_dissipated() const { return element_dissipated_; }
  // Velocities at the last step's middle, (v_k + v_k+1) / 2 (its power).
  const Eigen::VectorXd& v_mid() const { return v_mid_; }
  // Element torques and states of the last step (Result conventions).
  const std::vector<double>& torque() const { return torque_; }
  const std::vector<std::int8_t>& state() const { return state_; }
  long lcp_not_converged() const { return lcp_not_converged_; }
  // Input values: named inputs, then the held outputs of sampled blocks.
  const std::vector<double>& input_values() const { return values_; }
  // (nb) each prescribed body's drive torque over the last step, its mean
  // impulse / h [N m] (0 for free bodies).
  const std::vector<double>& drive_torque() const { return drive_torque_; }

  // One step of size h from t().
  void step(double h) {
    // Sampled blocks read the system at the step boundary that reaches their
    // instant (late by less than h when h does not divide the period).
    const double due = sampler_.next_instant();
    if (at_or_before(due, t_)) sampler_.sample(m_, std::max(t_, due), q_.data(), v_.data(), values_.data());
    const double t1 = t_ + h;
    for (int r = 0; r < num_dry_rows_; ++r) {
      const CoordinateRow& row = rows_[static_cast<std::size_t>(r)].row;
      double speed = 0.0;
      for (int k = 0; k < row.n; ++k) speed += std::abs(row.c[k] * v_[row.body[k]]);
      row_speed_[static_cast<std::size_t>(r)] = std::max(row_speed_[static_cast<std::size_t>(r)], speed);
    }
    const Iteration& it = iteration(h);
    drive_motion(h, t1);
    free_velocity(h, t1, it);
    impulses(h, t1, it);
    advance(h, t1, it);
  }

 private:
  const Model& m_;
  double theta_;
  std::vector<Row> rows_;
  int num_dry_rows_ = 0;  // rows_ leads with them: friction and one-way rows, always in the LCP
  std::vector<int> link_row_ = std::vector<int>(m_.num_links(), -1);  // (links) row of each link, -1 for none
  std::vector<Iteration> iterations_;  // the patterns met so far
  std::vector<Tangent> tangent_;       // (ne) at q_k, v_k (the kinds' step_tangent)

  double t_ = 0.0;
  // Input values: named inputs keep their declared values; then the held
  // outputs of the sampled blocks.
  std::vector<double> values_ = m_.initial_input_values();
  BlockSampler sampler_;
  Eigen::VectorXd q_, v_, force_, rhs_, v_free_, v_new_, v_mid_, v_theta_;
  std::vector<double> breaks_;      // scratch of integral(): a signal's breakpoints within the step
  std::vector<double> row_speed_;  // (dry rows) the largest sum |c_k v_k| of its bodies at a step's start so far (ends_at_rest)
  std::vector<double> contact_upper_, contact_lower_;  // (links) rigid freeplay impulses of the step [N m s]
  double input_work_ = 0.0, dissipated_ = 0.0;
  std::vector<double> element_dissipated_;  // (ne)

  // The step's box-LCP: active rows (index into rows_, sign), bounds, data.
  std::vector<int> active_, sign_;
  Eigen::MatrixXd A_;
  Eigen::VectorXd b_, lo_, hi_;
  BoxQpWorkspace qp_ws_;
  BoxQpSolution qp_;
  Eigen::VectorXd kinetic_x_;     // first solution, warm start after narrowing
  std::vector<char> widened_;     // (friction rows) given the static limit on arrival
  std::vector<double> impulse_;  // (rows) impulse of each row in the last step [N m s]
  // (links) each link's impulse over the last step [N m s] (a contact's: + flank minus - flank)
  // and whether it held: a friction link stuck within its bound, a contact's pressed flank (StepFrame).
  std::vector<double> link_impulse_;
  std::vector<std::int8_t> link_held_;
  long lcp_not_converged_ = 0;

  std::vector<double> torque_;
  std::vector<std::int8_t> state_;

  // Prescribed bodies (Model::driven_bodies, in that order): over the step,
  // the drive's displacement q_k+1 - q_k [rad] and its velocity at the step's
  // end [rad/s]; per body, its torque (drive_torque()).
  std::vector<double> drive_dq_, drive_v1_, drive_torque_;
  // (nb) the velocity changes the step's forces see: v_k+1 - v_k for a free
  // body, (dq / h - v_k) / theta for a driven one (its v_theta is dq / h).
  Eigen::VectorXd dv_eff_;
  // (Model::driven_frictions) the known impulse of each friction element on
  // prescribed bodies alone over the step [N m s] (no row of the LCP).
  std::vector<double> driven_impulse_;

  // One row per link (Model::links): first the dry rows, always in the LCP
  // (friction elements with dry friction, in link order, then one-way
  // clutches, with or without drag: a pure freewheel still locks, then the
  // permanent links, unbounded), then the rigid freeplays.
  void make_rows() {
    for (int pass = 0; pass < 2; ++pass)
      for (int l = 0; l < m_.num_links(); ++l) {
        const ModelLink& link = m_.links[l];
        if ((link.kind == LinkKind::contact) != (pass == 1)) continue;
        if (link.kind == LinkKind::friction && !can_have_dry_friction(m_, m_.frictions[link.element])) continue;
        if (link.kind == LinkKind::friction && driven_friction(link.element) >= 0) continue;  // a known torque
        const int o = link.kind == LinkKind::one_way ? m_.one_way_clutches[link.element].overrun : 0;
        link_row_[l] = static_cast<int>(rows_.size());
        rows_.push_back({link.row, link.element, l, o, m_.is_permanent_link(l),
                         link.kind == LinkKind::gear_loss ? link.element : -1});
        if (pass == 0) num_dry_rows_ = static_cast<int>(rows_.size());
      }
    row_speed_.assign(static_cast<std::size_t>(num_dry_rows_), 0.0);
  }
  // The friction law of dry row r (a friction element's, or a one-way clutch's drag).
  const Friction& dry_law(int r) const {
    return rows_[r].overrun == 0 ? m_.frictions[rows_[r].element] : m_.one_way_clutches[rows_[r].element].law;
  }
  // Its kinetic bound at t [N m]: a friction element's S tau_0, a one-way clutch's D.
  double dry_limit(int r, double t) const {
    return rows_[r].overrun == 0 ? rest_friction_limit(m_, rows_[r].element, t, values_.data())
                                 : one_way_drag_at(m_, rows_[r].element, t, values_.data());
  }
  // How far the impulse P of dry row i (= its active index) presses against
  // its finite bound: |P| for a friction row (hi_ the bound), -o P for a
  // one-way clutch (against overrun: lambda = -P / h); and that bound.
  double against(int i, double P) const { return rows_[i].overrun == 0 ? std::abs(P) : -rows_[i].overrun * P; }
  double finite_bound(int i) const { return rows_[i].overrun > 0 ? -lo_[i] : hi_[i]; }
  bool within_bound(int i, double P) const { return against(i, P) < finite_bound(i) * (1.0 - 1e-9); }
  // Whether dry row i ends the step at rest after the LCP: its velocity
  // within 1e-9 of the change its bound's impulse makes. At the tie
  // |lambda| = limit the impulse sits on the bound and the row is still at
  // rest; the S-S selection keeps such an element stuck, and so does this.
  // Or within the roundoff of its own bodies' speeds met so far (row_speed_):
  // a one-way clutch without drag (a bound of 0) came to rest with 2e-17
  // rad/s left of the stick step's roundoff in its body, and read as
  // overrunning to the end of the run. (Its own: the speed of an unrelated
  // body made a real slow overrun or break-away read as rest.)
  bool ends_at_rest(int i) const {
    const double u = rows_[i].dot(v_free_) + A_.row(i).dot(qp_.x);
    const double roundoff = 64.0 * std::numeric_limits<double>::epsilon() * row_speed_[static_cast<std::size_t>(i)];
    return std::abs(u) <= std::max(1e-9 * A_(i, i) * finite_bound(i), roundoff);
  }

  static double deflection(const Spring& s, const Eigen::VectorXd& q) { return spring_deflection(s, q.data()); }
  static double deflection_rate(const Spring& s, const Eigen::VectorXd& v) { return spring_rate(s, v.data()); }

  // The kinds' smooth laws (elements/kinds.hpp) at (q, v) and t.
  StepFrame frame(const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t, double h) const {
    return {q.data(), v.data(), t, h, h * theta_, values_.data(), tangent_.data(), link_impulse_.data(),
            link_held_.data()};
  }

  const Iteration& iteration(double h) {
    tangent_.assign(m_.num_elements(), Tangent{});
    const StepFrame f = frame(q_, v_, t_, h);
    for_each_element(m_, kSumOrder, [&](const ElementKindInfo& row, int i) {
      if (row.step_tangent) tangent_[m_.elements_of(row.kind)[i]] = row.step_tangent(m_, i, f);
    });
    for (const Iteration& it : iterations_)
      if (it.h == h && same_tangents(it.tangent, tangent_)) return it;
    if (iterations_.size() >= 32) iterations_.erase(iterations_.begin());  // keep the recent ones
    Iteration& it = iterations_.emplace_back();
    it.tangent = tangent_;
    it.h = h;
    it.full = iteration_matrix(h);
    Eigen::MatrixXd free = it.full;
    for (int p : m_.driven_bodies) {
      free.row(p).setZero();
      free.col(p).setZero();
      free(p, p) = 1.0;
    }
    it.W.compute(free);
    require_positive_definite(it.W, h);
    const int nb = m_.num_bodies(), nr = static_cast<int>(rows_.size());
    Eigen::MatrixXd Gt = Eigen::MatrixXd::Zero(nb, nr);
    for (int r = 0; r < nr; ++r)
      for (int t = 0; t < rows_[r].row.n; ++t)
        if (!m_.prescribed(rows_[r].row.body[t])) Gt(rows_[r].row.body[t], r) = rows_[r].row.c[t];
    if (nr > 0) {  // (Eigen's triangular solve does not take zero right-hand sides)
      it.WinvGt = it.W.solve(Gt);
      it.D = Gt.transpose() * it.WinvGt;
    }
    return it;
  }

  // W must stay positive definite for the step to be the minimum of its
  // quadratic: M plus non-negative tangents is; a negative tangent damping (a
  // falling friction table, a Stribeck peak) of magnitude c on bodies of
  // reduced inertia I keeps it so while h theta c < I. A step beyond that
  // stops the run (a std::runtime_error, which the run reports) naming the
  // element and the largest step it allows.
  void require_positive_definite(const Eigen::LDLT<Eigen::MatrixXd>& W, double h) const {
    if (W.info() == Eigen::Success && (W.vectorD().array() > 0.0).all()) return;
    int worst = -1;
    for (int e = 0; e < m_.num_elements(); ++e)
      if (tangent_[e].damping < 0.0 && (worst < 0 || tangent_[e].damping < tangent_[worst].damping)) worst = e;
    std::ostringstream os;
    os.precision(6);
    os << "the step matrix M + h theta C + h^2 theta^2 K is not positive definite at h = " << h << " s";
    if (worst >= 0) {
      const ElementKindInfo& row = element_kind_info(m_.element_kind[worst]);
      const CoordinateRow& g = row.relation(m_, m_.element_index[worst]);
      double flexibility = 0.0;  // sum c_k^2 / I_k: the row's reduced inertia is its inverse
      for (int k = 0; k < g.n; ++k) flexibility += g.c[k] * g.c[k] / m_.inertia[g.body[k]];
      const double I = 1.0 / flexibility, c = -tangent_[worst].damping;
      os << ": element '" << m_.element_names[worst] << "' has a negative tangent damping (" << -c
         << " N m s/rad, a falling segment of its friction table) on bodies of reduced inertia " << I
         << " kg m^2; take h < " << I / (theta_ * c) << " s";
    }
    throw std::runtime_error(os.str());
  }

  // W = M + h theta C + h^2 theta^2 K over the elements' relations (tangent_).
  Eigen::MatrixXd iteration_matrix(double h) const {
    const int nb = m_.num_bodies();
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(nb, nb);
    for (int j = 0; j < nb; ++j) W(j, j) = m_.inertia[j];
    auto add_row = [&](const CoordinateRow& g, double value) {  // value * g^T g
      for (int i = 0; i < g.n; ++i)
        for (int j = 0; j < g.n; ++j) W(g.body[i], g.body[j]) += g.c[i] * g.c[j] * value;
    };
    const double ht = h * theta_;
    for_each_element(m_, kSumOrder, [&](const ElementKindInfo& row, int i) {
      if (!row.step_tangent || !row.relation) return;
      const Tangent& t = tangent_[m_.elements_of(row.kind)[i]];
      add_row(row.relation(m_, i), ht * t.damping + ht * ht * t.stiffness);
    });
    return W;
  }

  // v_free = v_k + W^-1 h (F_theta + f(q_k, v_k) - h theta K v_k); F_theta stays in force_ for the work.
  void free_velocity(double h, double t1, const Iteration& it) {
    force_.setZero();
    const double* inputs = values_.data();
    for_each_element(m_, kSumOrder, [&](const ElementKindInfo& row, int i) {
      if (row.step_input) row.step_input(m_, i, t_, t1, theta_, inputs, force_.data());
    });
    rhs_ = force_;
    const StepFrame f = frame(q_, v_, t_, h);
    for_each_element(m_, kSumOrder, [&](const ElementKindInfo& row, int i) {
      if (row.step_forces) row.step_forces(m_, i, f, rhs_.data());  // a link's impulse is its row's
    });
    rhs_ *= h;
    if (m_.driven_bodies.empty()) {
      v_free_ = v_ + it.W.solve(rhs_);
      return;
    }
    // Free rows: W_ff dv_f = h rhs_f - W_fd dv_eff_d; driven rows: their known change.
    v_new_ = rhs_;
    for (std::size_t i = 0; i < m_.driven_bodies.size(); ++i) {
      const int p = m_.driven_bodies[i];
      dv_eff_[p] = (drive_dq_[i] / h - v_[p]) / theta_;
      v_new_ -= it.full.col(p) * dv_eff_[p];
    }
    for (std::size_t i = 0; i < m_.driven_bodies.size(); ++i) {
      const int p = m_.driven_bodies[i];
      v_new_[p] = drive_v1_[i] - v_[p];
    }
    v_free_ = v_ + it.W.solve(v_new_);
    for (std::size_t i = 0; i < m_.driven_bodies.size(); ++i) v_free_[m_.driven_bodies[i]] = drive_v1_[i];
  }

  // The index of friction element i in Model::driven_frictions, or -1.
  int driven_friction(int i) const {
    const auto at = std::lower_bound(m_.driven_frictions.begin(), m_.driven_frictions.end(), i);
    return at != m_.driven_frictions.end() && *at == i ? static_cast<int>(at - m_.driven_frictions.begin()) : -1;
  }

  // Each drive's motion over the step t_ -> t1 (README, "Prescribed
  // motion"): an angle drive's angle and velocity are its signals' at t1; a
  // velocity drive's velocity is its signal's, its displacement the signal's
  // integral; an acceleration drive's velocity change and displacement are
  // the integrals of its signal, int a and int (t1 - s) a(s) ds. The
  // integrals are 3-point Gauss-Legendre between the signal's breakpoints:
  // exact for pieces of degree <= 5 (steps, ramps, tables and their
  // products), O(h^7) per step for a sine.
  void drive_motion(double h, double t1) {
    for (std::size_t i = 0; i < m_.driven_bodies.size(); ++i) {
      const int p = m_.driven_bodies[i];
      const Drive& d = m_.drives[p];
      if (d.angle_slot >= 0) {
        drive_dq_[i] = slot_value(d.angle_slot, t1) - q_[p];
        drive_v1_[i] = slot_value(d.velocity_slot, t1);
      } else if (d.velocity_slot >= 0) {
        drive_dq_[i] = integral(d.velocity_slot, t1, [](double) { return 1.0; });
        drive_v1_[i] = slot_value(d.velocity_slot, t1);
      } else {
        drive_v1_[i] = v_[p] + integral(d.acceleration_slot, t1, [](double) { return 1.0; });
        drive_dq_[i] = h * v_[p] + integral(d.acceleration_slot, t1, [t1](double s) { return t1 - s; });
      }
    }
  }
  double slot_value(int slot, double t) const {
    const SignalSlot& s = m_.slots[static_cast<std::size_t>(slot)];
    return require_finite_at(evaluate(m_.signals[s.signal], t, values_.data()), t, "body", m_.body_names[s.body],
                             s.field);
  }
  // int_t_^t1 weight(s) sigma(s) ds of signal slot `slot`.
  template <class Weight>
  double integral(int slot, double t1, Weight&& weight) {
    breaks_.clear();
    collect_breakpoints(m_.signals[m_.slots[static_cast<std::size_t>(slot)].signal], t_, t1, breaks_);
    std::sort(breaks_.begin(), breaks_.end());
    breaks_.push_back(t1);
    static constexpr double kNode = 0.7745966692414834;  // sqrt(3/5)
    static constexpr double kWeights[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    double sum = 0.0, a = t_;
    for (double b : breaks_) {
      if (!(b > a)) continue;
      const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
      const double nodes[3] = {mid - half * kNode, mid, mid + half * kNode};
      double piece = 0.0;
      for (int g = 0; g < 3; ++g) piece += kWeights[g] * weight(nodes[g]) * slot_value(slot, nodes[g]);
      sum += half * piece;
      a = b;
    }
    return sum;
  }

  // The rows of the step's LCP: every dry friction row, and each rigid freeplay
  // side whose gap closes within the step (its index set).
  // The dry rows come first in row order, so that a dry row's index in the
  // LCP is its row index (static_limit_on_arrival, link_results rely on it;
  // the links number one-way clutches after the rigid freeplays).
  void active_rows(double h) {
    active_.clear();
    sign_.clear();
    for (int r = 0; r < num_dry_rows_; ++r) {
      active_.push_back(r);
      sign_.push_back(1);
    }
    for (int l = 0; l < m_.num_links(); ++l) {
      const int r = link_row_[l];
      if (r < 0 || !m_.is_contact_link(l)) continue;
      const Spring& s = m_.springs[m_.links[l].element];
      const double x = deflection(s, q_) - s.center, rate = deflection_rate(s, v_);  // x from the gap's middle
      if (s.freeplay - x - 0.5 * h * rate <= 0.0) {  // g+ = a - x closing (row -G_s)
        active_.push_back(r);
        sign_.push_back(-1);
      }
      if (s.freeplay + x + 0.5 * h * rate <= 0.0) {  // g- = a + x closing (row +G_s)
        active_.push_back(r);
        sign_.push_back(1);
      }
    }
  }

  // Box-LCP over the dry friction rows and the rigid freeplay sides in the index set.
  void impulses(double h, double t1, const Iteration& it) {
    active_rows(h);
    const int n = static_cast<int>(active_.size());
    A_.resize(n, n);
    b_.resize(n);
    lo_.resize(n);
    hi_.resize(n);
    qp_.x.resize(n);
    for (int i = 0; i < n; ++i) {
      const int r = active_[i];
      for (int j = 0; j < n; ++j) A_(i, j) = sign_[i] * sign_[j] * it.D(r, active_[j]);
      const double u_free = sign_[i] * rows_[r].dot(v_free_);
      if (rows_[r].permanent) {  // any impulse: u = 0 at the step's end
        lo_[i] = -INFINITY;
        hi_[i] = INFINITY;
        b_[i] = -u_free;
        qp_.x[i] = impulse_[r];
      } else if (rows_[r].gear >= 0) {  // a lossy gear's loss: its cone at the last step's mesh torque
        gear_bound(i, h, impulse_[mesh_row(rows_[r].gear)]);
        b_[i] = -u_free;
        qp_.x[i] = impulse_[r];
      } else if (r < num_dry_rows_) {
        // lambda within [-L, L] (friction), o lambda <= L (one-way): P = -h lambda;
        // a friction element's row holds S tau_0 (the rest of its table is smooth)
        const double rest = dry_limit(r, t1);
        const double L = link_held_[rows_[r].link] ? dry_law(r).static_ratio * rest : rest;
        const int o = rows_[r].overrun;
        lo_[i] = o > 0 ? -h * L : o < 0 ? -INFINITY : -h * L;
        hi_[i] = o < 0 ? h * L : o > 0 ? INFINITY : h * L;
        b_[i] = -u_free;
        qp_.x[i] = impulse_[r];
      } else {
        lo_[i] = 0.0;  // compression: plastic (Poisson's law, restitution_phase)
        hi_[i] = INFINITY;
        b_[i] = -u_free;
        qp_.x[i] = 0.0;
      }
    }
    solve_poisson();
    if (static_limit_on_arrival()) solve_poisson();
    if (gear_cones_at_step(h)) solve_poisson();
    if (!qp_.converged) ++lcp_not_converged_;
  }

  // The box QP under Poisson's law at the current boxes: every contact
  // plastic (its lower bound 0: the compression), then with the restitution
  // phase's bounds (restitution_phase). Every solve of the step goes through
  // here, so that a box that the static limit or a gear's cone changes
  // changes the compression the restitution is measured from.
  void solve_poisson() {
    for (std::size_t i = static_cast<std::size_t>(num_dry_rows_); i < active_.size(); ++i) lo_[static_cast<int>(i)] = 0.0;
    solve_box_qp(A_, b_, lo_, hi_, qp_ws_, qp_, 20000, true);
    if (restitution_phase()) solve_box_qp(A_, b_, lo_, hi_, qp_ws_, qp_, 20000, true);
  }

  // Poisson's law at velocity level (solvers/impacts.hpp, the event-driven
  // impacts' law): the step's solve with every contact plastic is its
  // compression (Pc, contact rows of qp_.x); the expansion holds each contact
  // row's impulse at or above Pc + s E P0 (its box's lower bound; the solve
  // that follows keeps u+ >= 0 complementary to the excess), where P0 are the
  // compression impulses of the impact alone, the contact rows' LCP
  // P0 >= 0 ⊥ u_k + A P0 >= 0 on their velocities at the step's start (the
  // step's forces, which Pc also holds off, get no restitution), E the
  // coefficients of the rows that approach (u_k < 0). P0 is the contact
  // rows' own (dry rows carry no impact impulse, as in the event-driven
  // law). One contact with every dry row at its bound: P = Pc + e (-u_k / A),
  // u+ = -e u_k, Newton's law, as before; with a dry row held within the
  // impact step the rebound differs from Newton's velocity target through
  // that row by O(h) (rigid_backlash: its first strike breaks the load's
  // bearing away, motor at -0.053881 rad/s at 0.04 s against -0.054019 before
  // and -0.052830 event-driven); several, in free flight: the event-driven impulses. The event-driven guard has no
  // counterpart here (the step's forces and friction share the LCP); a step
  // whose impulses made energy shows as a fall of the dissipated energy,
  // which the energy self-check flags (core/energy.hpp). Whether a row's
  // bound changed.
  bool restitution_phase() {
    const int nd = num_dry_rows_, nc = static_cast<int>(active_.size()) - nd;
    if (nc <= 0) return false;
    Eigen::VectorXd e(nc), u(nc);
    bool any = false;
    for (int c = 0; c < nc; ++c) {
      const int i = nd + c, r = active_[static_cast<std::size_t>(i)];
      u[c] = sign_[static_cast<std::size_t>(i)] * rows_[r].dot(v_);
      e[c] = u[c] < 0.0 ? m_.springs[rows_[r].element].restitution : 0.0;
      any = any || e[c] > 0.0;
    }
    if (!any) return false;
    const Eigen::MatrixXd A = A_.bottomRightCorner(nc, nc);
    LcpSolution sol = solve_lcp_lemke(A, u);
    if (sol.status != LcpStatus::solved) sol = solve_lcp_pgs(A, u, 1e-14 * u.cwiseAbs().maxCoeff());
    const Eigen::VectorXd back = sol.z.cwiseMax(0.0).cwiseProduct(e);
    for (int c = 0; c < nc; ++c) lo_[nd + c] = qp_.x[nd + c] + back[c];
    return true;
  }

  // The LCP row of lossy gear g's mesh (a dry row: its LCP index is its row index).
  int mesh_row(int g) const { return link_row_[m_.lossy_gears[g].mesh_link]; }
  // Lossy gear row i's box at the mesh impulse P_mesh (lambda = -P_mesh / h):
  // its loss L in the cone [L_min(lambda), L_max(lambda)] (elements/lossy_gear.hpp), P = -h L.
  void gear_bound(int i, double h, double mesh_impulse) {
    const LossyGearLaw& law = m_.lossy_gears[rows_[active_[i]].gear].law;
    const double lambda = -mesh_impulse / h;
    lo_[i] = -h * lossy_loss_max(law, lambda);
    hi_[i] = -h * lossy_loss_min(law, lambda);
  }
  // A lossy gear's cone is a box only once its mesh torque is known: the
  // first solve takes the last step's (lagged by one step), and this
  // corrects each gear's box to the mesh torque that solve gave, for one
  // more solve (a gear starting under load would otherwise slip for a step in
  // the box of an unloaded one). Whether a box changed.
  bool gear_cones_at_step(double h) {
    bool changed = false;
    for (int i = 0; i < num_dry_rows_; ++i) {
      if (rows_[i].gear < 0) continue;
      const double lo = lo_[i], hi = hi_[i];
      gear_bound(i, h, qp_.x[mesh_row(rows_[i].gear)]);
      changed = changed || lo != lo_[i] || hi != hi_[i];
    }
    return changed;
  }

  // A slipping element that comes to rest within the step (its velocity ends
  // at 0 or reversed) meets the static limit static_ratio MT0, as in the
  // event-driven S-S selection: widen its box and solve again; an element that
  // still ends at the wider bound was not held, and keeps the kinetic box.
  bool static_limit_on_arrival() {
    bool any = false;
    widened_.assign(num_dry_rows_, 0);
    for (int i = 0; i < num_dry_rows_; ++i) {
      if (rows_[i].permanent || rows_[i].gear >= 0) continue;  // (a gear's cone has no static ratio)
      const Friction& fr = dry_law(i);
      if (link_held_[rows_[i].link] || fr.static_ratio == 1.0 || finite_bound(i) == 0.0) continue;
      const double u0 = rows_[i].dot(v_);
      const double u1 = rows_[i].dot(v_free_) + A_.row(i).dot(qp_.x);
      if (u0 * u1 > 0.0) continue;  // still slipping the same way
      lo_[i] *= fr.static_ratio;
      hi_[i] *= fr.static_ratio;
      widened_[i] = any = true;
    }
    if (!any) return false;
    kinetic_x_ = qp_.x;
    solve_poisson();
    bool narrowed = false;
    for (int i = 0; i < num_dry_rows_; ++i) {
      if (!widened_[i] || within_bound(i, qp_.x[i]) || ends_at_rest(i)) continue;
      const double r = dry_law(i).static_ratio;
      lo_[i] /= r;
      hi_[i] /= r;
      narrowed = true;
    }
    if (!narrowed) return false;
    qp_.x = kinetic_x_;
    return true;
  }

  // v_k+1, q_k+1, energies, element outputs.
  void advance(double h, double t1, const Iteration& it) {
    v_new_ = v_free_;
    std::fill(impulse_.begin(), impulse_.end(), 0.0);
    std::fill(contact_upper_.begin(), contact_upper_.end(), 0.0);
    std::fill(contact_lower_.begin(), contact_lower_.end(), 0.0);
    for (std::size_t i = 0; i < active_.size(); ++i) {
      const int r = active_[i];
      const double P = qp_.x[static_cast<int>(i)];
      v_new_ += (sign_[i] * P) * it.WinvGt.col(r);
      if (r < num_dry_rows_) impulse_[r] = P;
      else (sign_[i] < 0 ? contact_upper_ : contact_lower_)[rows_[r].link] += P;
    }
    v_mid_ = 0.5 * (v_ + v_new_);
    v_theta_ = (1.0 - theta_) * v_ + theta_ * v_new_;
    drive_impulses(h, it);
    // Energy booked with the mean velocity (see the header).
    input_work_ += h * force_.dot(v_mid_);
    double diss = 0.0;
    const StepFrame start = frame(q_, v_, t_, h);
    for_each_element(m_, kSumOrder, [&](const ElementKindInfo& row, int i) {
      if (row.step_dissipation) diss += row.step_dissipation(m_, i, start, v_theta_.data(), v_mid_.data());
    });
    diss *= h;
    for (std::size_t i = 0; i < active_.size(); ++i)
      diss -= sign_[i] * qp_.x[static_cast<int>(i)] * rows_[active_[i]].dot(v_mid_);
    for (std::size_t i = 0; i < m_.driven_frictions.size(); ++i)
      diss -= driven_impulse_[i] * row_value(m_.frictions[m_.driven_frictions[i]].row, v_mid_.data());
    dissipated_ += diss;
    book_by_element(h, start);

    q_ += h * v_theta_;
    for (std::size_t i = 0; i < m_.driven_bodies.size(); ++i) {  // (an angle drive's angle is its signal's, to the bit)
      const int p = m_.driven_bodies[i];
      const Drive& d = m_.drives[p];
      q_[p] = d.angle_slot >= 0 ? slot_value(d.angle_slot, t1) : q_[p];
    }
    v_.swap(v_new_);
    t_ = t1;
    link_results();
    for (std::size_t i = 0; i < m_.driven_frictions.size(); ++i) {  // their known impulses, held at rest only
      const int l = m_.driven_frictions[i];  // (a friction element's link is its index)
      link_impulse_[l] = driven_impulse_[i];
      link_held_[l] = 0;
    }
    outputs(h);
  }

  // The step's dissipation by element, the terms of the global sum in
  // advance() booked to their elements: smooth laws, then the impulse rows.
  void book_by_element(double h, const StepFrame& start) {
    for_each_element(m_, kSumOrder, [&](const ElementKindInfo& row, int i) {
      if (row.step_dissipation)
        element_dissipated_[m_.elements_of(row.kind)[i]] +=
            h * row.step_dissipation(m_, i, start, v_theta_.data(), v_mid_.data());
    });
    for (std::size_t i = 0; i < active_.size(); ++i) {
      const Row& r = rows_[active_[i]];
      element_dissipated_[m_.link_element(r.link)] -= sign_[i] * qp_.x[static_cast<int>(i)] * r.dot(v_mid_);
    }
    for (std::size_t i = 0; i < m_.driven_frictions.size(); ++i) {
      const int l = m_.driven_frictions[i];
      element_dissipated_[m_.link_element(l)] -= driven_impulse_[i] * row_value(m_.links[l].row, v_mid_.data());
    }
  }

  // The drives' torques over the step and their work. A friction element on
  // prescribed bodies alone slips with the impulse -h S tau_0 sgn u of its
  // velocity u at the step's end (0 at rest: the drive holds the body). A
  // prescribed body p's own equation of the step,
  //   M_p (v_k+1 - v_k)_p = h rhs_p - ((W - M) dv_eff)_p + (G^T P)_p + h R_p,
  // gives its drive torque R_p (the step's mean). The displacements the step's
  // forces see are h v_theta, for a driven body dq (v_theta = dq / h, set
  // here, and its v_mid likewise: the forces' work is booked on it); its
  // kinetic energy changes by M_p dv_p (v_k + v_k+1)_p / 2, so the drive's
  // work is the rest of its torque on dq plus its inertia's part at that
  // mean velocity: h R_p dq / h + M_p dv_p ((v_k + v_k+1)_p / 2 - dq / h),
  // with which the balance closes as for free bodies.
  void drive_impulses(double h, const Iteration& it) {
    if (m_.driven_bodies.empty()) return;
    for (std::size_t i = 0; i < m_.driven_frictions.size(); ++i) {
      const int f = m_.driven_frictions[i];
      const double u = row_value(m_.frictions[f].row, v_new_.data());
      const double L = rest_friction_limit(m_, f, t_ + h, values_.data());
      driven_impulse_[i] = u > 0.0 ? -h * L : u < 0.0 ? h * L : 0.0;
    }
    for (int j = 0; j < m_.num_bodies(); ++j)
      if (!m_.prescribed(j)) dv_eff_[j] = v_new_[j] - v_[j];
    for (std::size_t i = 0; i < m_.driven_bodies.size(); ++i) {
      const int p = m_.driven_bodies[i];
      const double M = m_.inertia[p], dv = v_new_[p] - v_[p], v_bar = drive_dq_[i] / h;
      double impulse = M * dv + it.full.row(p).dot(dv_eff_) - M * dv_eff_[p] - rhs_[p];
      for (std::size_t a = 0; a < active_.size(); ++a) impulse -= sign_[a] * qp_.x[static_cast<int>(a)] * row_coefficient(rows_[active_[a]].row, p);
      for (std::size_t f = 0; f < m_.driven_frictions.size(); ++f)
        impulse -= driven_impulse_[f] * row_coefficient(m_.frictions[m_.driven_frictions[f]].row, p);
      drive_torque_[static_cast<std::size_t>(p)] = impulse / h;
      input_work_ += impulse * v_bar + M * dv * (v_mid_[p] - v_bar);
      v_mid_[p] = v_theta_[p] = v_bar;
    }
  }
  static double row_coefficient(const CoordinateRow& r, int body) {
    double c = 0.0;
    for (int k = 0; k < r.n; ++k)
      if (r.body[k] == body) c += r.c[k];
    return c;
  }

  // Each link's impulse over the step and whether it held (StepFrame): a
  // friction row stuck within its bound, a one-way clutch inside its bound
  // against overrun (dry rows lead the LCP in row order), a contact's pressed
  // flank.
  void link_results() {
    for (int l = 0; l < m_.num_links(); ++l) {
      if (m_.is_contact_link(l)) {
        link_impulse_[l] = contact_upper_[l] - contact_lower_[l];
        link_held_[l] = contact_upper_[l] > 0.0 ? 1 : contact_lower_[l] > 0.0 ? -1 : 0;
        continue;
      }
      const int r = link_row_[l];
      link_impulse_[l] = r >= 0 ? impulse_[r] : 0.0;
      if (r >= 0 && rows_[r].permanent) {
        link_held_[l] = 1;
        continue;
      }
      if (r >= 0 && rows_[r].gear >= 0) {  // strictly inside its cone's box, or at rest at its end
        const double P = link_impulse_[l], width = hi_[r] - lo_[r];
        const bool inside = P - lo_[r] > 1e-9 * width && hi_[r] - P > 1e-9 * width;
        const double u_free = rows_[r].dot(v_free_), u = u_free + A_.row(r).dot(qp_.x);
        // at rest: within 1e-9 of the velocity change the step's largest
        // finite bound makes on it, or of the changes that add up to u (a
        // cone at its apex, lambda = 0 without bearing friction, has a box of
        // width 0: a bearing on shaft b then holds the gear, its loss row at
        // rest to roundoff)
        double bound = std::max(-lo_[r], hi_[r]);
        for (int i = 0; i < num_dry_rows_; ++i)
          for (double side : {-lo_[i], hi_[i]})
            if (std::isfinite(side)) bound = std::max(bound, side);
        const double terms = std::abs(u_free) + A_.row(r).cwiseAbs().dot(qp_.x.cwiseAbs());
        link_held_[l] = inside || std::abs(u) <= 1e-9 * (A_(r, r) * bound + terms);
        continue;
      }
      // (a one-way clutch holds at a bound 0 too: any impulse in its locking direction)
      const bool bounded = r >= 0 && (hi_[r] > 0.0 || rows_[r].overrun != 0);
      link_held_[l] = bounded && (within_bound(r, link_impulse_[l]) || ends_at_rest(r));
    }
  }

  void outputs(double h) {
    const StepFrame f = frame(q_, v_, t_, h);
    for_each_element(m_, kSumOrder, [&](const ElementKindInfo& row, int i) {
      const int e = m_.elements_of(row.kind)[i];
      const ElementOutput o = as_written(m_, row, i, e, row.step_output(m_, i, f));
      torque_[e] = o.torque;
      state_[e] = o.state;
    });
  }
};

}  // namespace

namespace {

// Moreau-Jean as the sampling loop (solvers/sampling_loop.hpp) drives it:
// advance_to takes whole steps until the instant lies within the last one (at
// least one step: the first sample holds the first step's element torques),
// sample interpolates the state linearly within that step. The events and
// stuck times of each step are booked into the Result as it is taken.
class TimeSteppingRun {
 public:
  // r: where samples, events and stuck times go; grid_size: the number of output samples.
  TimeSteppingRun(const Model& model, const SimulationSettings& settings, Result& r, std::size_t grid_size)
      : model_(model), settings_(settings), r_(r), grid_size_(grid_size), mj_(model, settings), q0_(model.num_bodies()),
        v0_(model.num_bodies()), before_(model.num_elements()), q_(model.num_bodies()), w_(model.num_bodies()) {
    out_.resize(model);
    for (std::vector<double>* v : {&E0_, &mid_x_, &mid_rate_}) v->assign(model.num_elements(), 0.0);
    const double h = settings.step;  // > 0 and finite (MoreauJean checked it)
    const double span = settings.t_end - settings.t_start;
    if (!(span / h <= kMaxTimeSteps))
      throw std::invalid_argument("time stepping: (t_end - t_start) / step must be at most " +
                                  std::to_string(static_cast<long>(kMaxTimeSteps)) + " steps (simulation.step)");
    // Whole steps, and a shorter last one for a remainder beyond roundoff; at
    // least one step, which ends at t_end (a step longer than the span is cut).
    // (core/times.hpp: instants a few ulp apart are one; no sliver of a step.)
    long n_full = static_cast<long>(std::floor(span / h));
    if (same_time(settings.t_start + static_cast<double>(n_full + 1) * h, settings.t_end)) ++n_full;
    const bool partial = earlier(settings.t_start + static_cast<double>(n_full) * h, settings.t_end);
    n_steps_ = std::max(n_full + (partial ? 1 : 0), 1L);
  }

  StepStatus advance_to(double target) {
    while (k_ == 0 || earlier(mj_.t(), target)) {
      if (const StepStatus s = next_step(); s != StepStatus::reached_time) return s;
    }
    return StepStatus::reached_time;
  }

  void sample(double grid_time, Result& r) {
    const double ts = reported_time(model_.breakpoints, grid_time);  // as the event-driven solver reports it
    const int nb = model_.num_bodies();
    const double h = mj_.t() - t0_;
    const double a = h > 0.0 ? (ts - t0_) / h : 1.0;
    for (int j = 0; j < nb; ++j) {
      q_[j] = q0_[j] + a * (mj_.q()[j] - q0_[j]);
      w_[j] = v0_[j] + a * (mj_.v()[j] - v0_[j]);
    }
    // A prescribed body's angle and velocity where its drive gives them: the signals' at ts.
    for (int p : model_.driven_bodies) {
      const Drive& d = model_.drives[p];
      if (d.angle_slot >= 0) q_[p] = drive_value(d.angle_slot, ts);
      if (d.velocity_slot >= 0) w_[p] = drive_value(d.velocity_slot, ts);
    }
    r.time.push_back(ts);
    append_reported_bodies(model_, q_, {}, r.angle);
    append_reported_bodies(model_, q_, w_, r.velocity);
    sample_outputs(h, a, ts);
    append_sample(out_, r);
    r.input_work.push_back(W0_ + a * (mj_.input_work() - W0_));
    r.kinetic.push_back(kinetic_energy(model_, w_));
    r.elastic.push_back(elastic_energy(model_, q_));
    r.dissipated.push_back(D0_ + a * (mj_.dissipated() - D0_));
    for (const Signal& b : model_.sampled) r.block_output.push_back(mj_.input_values()[b.input]);
  }

  // The element and body outputs of a sample a of the way through the last
  // step h: the step's torques, the interpolated state's coordinates, power at
  // mid-step, dissipated energy interpolated as the global one.
  void sample_outputs(double h, double a, double ts) {
    const int ne = model_.num_elements();
    out_.torque = mj_.torque();
    out_.state = mj_.state();
    element_coordinates(coordinate_rows_, q_.data(), w_.data(), out_.relative.data(), out_.rate.data());
    element_coordinates(coordinate_rows_, q_.data(), mj_.v_mid().data(), mid_x_.data(), mid_rate_.data());
    element_powers(model_, out_.torque.data(), mid_rate_.data(), out_.power.data());
    for (int e = 0; e < ne; ++e) out_.dissipated[e] = E0_[e] + a * (mj_.element_dissipated()[e] - E0_[e]);
    for (int j = 0; j < model_.num_bodies(); ++j) out_.acceleration[j] = h > 0.0 ? (mj_.v()[j] - v0_[j]) / h : 0.0;
    for (int p : model_.driven_bodies) {  // the drive's acceleration, and its torque over the step
      out_.acceleration[p] = drive_value(model_.drives[p].acceleration_slot, ts);
      out_.drive_torque[static_cast<std::size_t>(p)] = mj_.drive_torque()[static_cast<std::size_t>(p)];
    }
    // the removed bodies' through the bodies left
    reported_bodies(model_, q_.data(), out_.acceleration.data(), nullptr, out_.acceleration.data());
  }

  // Drive signal slot `slot` at t (the inputs held in the step).
  double drive_value(int slot, double t) const {
    const SignalSlot& s = model_.slots[static_cast<std::size_t>(slot)];
    return evaluate(model_.signals[s.signal], t, mj_.input_values().data());
  }

  const std::string& message() const { return message_; }
  long lcp_not_converged() const { return mj_.lcp_not_converged(); }

  // The steps after the last sample, to t_end; reached_time means t_end was
  // reached and every output sample taken.
  StepStatus finish() {
    while (k_ < n_steps_)
      if (const StepStatus s = next_step(); s != StepStatus::reached_time) return s;
    if (pending_ != StepStatus::reached_time) return pending_;
    if (mj_.t() == settings_.t_end && r_.time.size() == grid_size_) return StepStatus::reached_time;
    return short_of_end();
  }

 private:
  // The next step, unless the run is over: the event limit passed in an
  // earlier step (whose samples were still taken), or no step is left.
  StepStatus next_step() {
    if (pending_ != StepStatus::reached_time) return pending_;
    if (k_ == n_steps_) return short_of_end();
    return step();
  }

  StepStatus short_of_end() {
    std::ostringstream os;
    os << "time stepping: stopped at t = " << shortest(mj_.t()) << " s short of t_end = " << shortest(settings_.t_end)
       << " s ("
       << r_.time.size() << " of " << grid_size_ << " output samples)";
    return stop(StepStatus::solver_failure, os.str());
  }

  // One step: its mode changes logged at its end, its stuck time booked.
  StepStatus step() {
    const int ne = model_.num_elements();
    q0_ = mj_.q();
    v0_ = mj_.v();
    t0_ = mj_.t();
    W0_ = mj_.input_work();
    D0_ = mj_.dissipated();
    E0_ = mj_.element_dissipated();
    before_ = mj_.state();
    const long k = k_++;
    const double t1 = k + 1 == n_steps_ ? settings_.t_end : settings_.t_start + static_cast<double>(k + 1) * settings_.step;
    try {  // a stage that throws (a block's LCP, out of memory) ends the run with the samples so far
      mj_.step(t1 - t0_);
    } catch (const std::exception& e) {
      std::ostringstream os;
      os << "time stepping: stopped by an error in the step from t = " << shortest(t0_) << " s: " << e.what();
      return stop(StepStatus::solver_failure, os.str());
    }
    ++r_.stats.steps;
    if (!mj_.v().allFinite() || !mj_.q().allFinite()) {
      std::ostringstream os;
      os << "time stepping: the state is not finite at t = " << shortest(mj_.t()) << " s";
      return stop(StepStatus::solver_failure, os.str());
    }
    bool changed = false;
    for (int e = 0; e < ne && k > 0; ++e) {
      const std::int8_t a = before_[e], b = mj_.state()[e];
      const ElementKindInfo& row = element_kind_info(model_.element_kind[e]);
      if (a == b || !row.event) continue;
      // x' after the event, but for a strike the approach before it (EventRecord::rate):
      // the velocities at the step's start, before the contact impulse
      const EventKind kind = row.event(model_, model_.element_index[e], a, b);
      const bool strike = kind == EventKind::contact || kind == EventKind::impact;
      r_.events.push_back({mj_.t(), e, kind, a, b, element_rate(model_, e, (strike ? v0_ : mj_.v()).data())});
      changed = true;
    }
    r_.stats.events += changed;
    // Stuck time as the event log reads it: a change is logged at the end of
    // the step that made it, so the step is stuck when its element was stuck
    // at its start (the first step, which logs nothing, from its outcome).
    // Booked from the state at its end, a stick at t counted from t - h.
    for (int e = 0; e < ne; ++e) {
      const std::int8_t during = k == 0 ? mj_.state()[e] : before_[e];
      if (element_kind_info(model_.element_kind[e]).sticks && during == 0) r_.time_stuck[e] += t1 - t0_;
    }
    if (r_.stats.events > settings_.max_events) {
      pending_ = StepStatus::event_limit;  // after this step's samples
      message_ = "time stepping: more than simulation.max_events steps with mode changes";
    }
    return StepStatus::reached_time;
  }

  StepStatus stop(StepStatus status, std::string message) {
    pending_ = status;
    message_ = std::move(message);
    return status;
  }

  const Model& model_;
  const SimulationSettings& settings_;
  Result& r_;
  std::size_t grid_size_;
  MoreauJean mj_;
  long n_steps_ = 0, k_ = 0;      // steps in all, steps taken
  Eigen::VectorXd q0_, v0_;        // state at the start of the last step
  double t0_ = 0.0, W0_ = 0.0, D0_ = 0.0;
  std::vector<std::int8_t> before_;  // (ne) element states before the last step
  std::vector<double> q_, w_;        // (nb) a sample's interpolated state
  // (ne each) dissipated by element at the last step's start; the coordinates
  // and rates at its middle (scratch of sample_outputs)
  std::vector<double> E0_, mid_x_, mid_rate_;
  const std::vector<ElementCoordinate> coordinate_rows_ = element_coordinate_rows(model_);  // (sample_outputs)
  OutputSample out_;                 // a sample's element and body outputs
  StepStatus pending_ = StepStatus::reached_time;  // the run's end, once known
  std::string message_;
};

}  // namespace

Result simulate_time_stepping(const Model& model, const SimulationSettings& settings, const SampleHook& keep_going) {
  const auto wall0 = std::chrono::steady_clock::now();
  Result r = labelled_result(model);
  r.time_stuck.assign(model.num_elements(), 0.0);
  const std::vector<double> grid = output_times(settings);
  TimeSteppingRun run(model, settings, r, grid.size());
  const bool completed = sample_on_grid(run, grid, r, keep_going);
  if (completed && r.status == StepStatus::reached_time) {
    r.status = run.finish();
    if (r.status != StepStatus::reached_time) r.message = run.message();
  }
  r.stats.lcp_not_converged = run.lcp_not_converged();
  r.stats.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace luztar
