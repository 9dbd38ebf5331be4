#include "solvers/output_map.hpp"

#include "elements/freeplay_spring.hpp"

#include <algorithm>
#include <cmath>

namespace luztar {

namespace {

// A map's entry reproduces the tables within this much of its terms
// (sum |M_ij u_j|) and the value: probing loses a few ulp per entry.
constexpr double kMapTolerance = 1e-12;
// Modes kept (all dropped at once beyond it; the gear train meets ~100).
constexpr std::size_t kMaxMaps = 512;
// The largest u served: a map costs its size in probes per mode and a dense
// matrix of outputs x u, where the tables cost O(n) a sample (a chain of 100
// bodies keeps them).
constexpr Eigen::Index kMaxMapColumns = 64;

}  // namespace

OutputMaps::OutputMaps(const Model& m, int slots, bool enabled)
    : model_(m),
      enabled_(enabled && exact_integrator_refusal(m).empty()),
      nb_(m.num_bodies()),
      ne_(m.num_elements()),
      slots_(slots),
      drives_(m.driven_bodies.empty() ? 0 : static_cast<int>(m.reported_body_names.size())) {
  if (!enabled_ || 2 * nb_ + slots_ + 1 > kMaxMapColumns) {
    enabled_ = false;
    return;
  }
  // The angles' features: the springs' distinct coordinate rows (the laws
  // read angles through springs only: ExactModeSystem::relation_rows), and
  // unit probes of them, q = F^+ e_k; springs closing a loop (dependent rows)
  // cannot be probed one at a time: no maps.
  for (const Spring& sp : m.springs) {
    const auto same = std::find_if(rows_of_.begin(), rows_of_.end(), [&](const CoordinateRow& r) {
      return r.n == sp.row.n && std::equal(r.body.begin(), r.body.begin() + r.n, sp.row.body.begin()) &&
             std::equal(r.c.begin(), r.c.begin() + r.n, sp.row.c.begin());
    });
    feature_of_spring_.push_back(static_cast<int>(same - rows_of_.begin()));
    if (same == rows_of_.end()) {
      rows_of_.push_back(sp.row);
      feature_spring_.push_back(static_cast<int>(&sp - m.springs.data()));
    }
  }
  nf_ = static_cast<int>(rows_of_.size());
  Eigen::MatrixXd F = Eigen::MatrixXd::Zero(nf_, nb_);
  for (int k = 0; k < nf_; ++k)
    for (int t = 0; t < rows_of_[static_cast<std::size_t>(k)].n; ++t)
      F(k, rows_of_[static_cast<std::size_t>(k)].body[static_cast<std::size_t>(t)]) +=
          rows_of_[static_cast<std::size_t>(k)].c[static_cast<std::size_t>(t)];
  if (nf_ > 0) {
    const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(F);
    if (cod.rank() < nf_) enabled_ = false;
    else probe_q_ = cod.pseudoInverse();
  }
  rows_ = ne_ + nb_ + drives_;
  cols_ = nf_ + nb_ + slots_ + 1;
  if (cols_ > kMaxMapColumns) enabled_ = false;
  u_ = Eigen::VectorXd::Zero(cols_);
  r_ = Eigen::VectorXd::Zero(rows_);
  pq_.assign(static_cast<std::size_t>(nb_), 0.0);
  pw_.assign(static_cast<std::size_t>(nb_), 0.0);
  psigma_.assign(static_cast<std::size_t>(slots_), 0.0);
  sigma_.assign(static_cast<std::size_t>(slots_), 0.0);
  anchors_ = fb_ = Eigen::VectorXd::Zero(nf_);
  E_ = Eigen::MatrixXd::Zero(nf_, nf_);
  corr_ = Eigen::MatrixXd::Zero(rows_, nf_);
  q0_ = Eigen::VectorXd::Zero(nb_);
  mapped_r_ = terms_ = Eigen::VectorXd::Zero(rows_);
  probe_.resize(m);
  power_sign_ = power_signs(m);
  coordinates_ = element_coordinate_rows(m);
}

// u at the state: the springs' coordinates as their laws form them, the
// velocities, the slots, 1.
void OutputMaps::point(const Map& map, const State& modes, const double* sigma) {
  for (int k = 0; k < nf_; ++k)
    u_(k) = row_value(rows_of_[static_cast<std::size_t>(k)], modes.q.data()) - map.anchor[static_cast<std::size_t>(k)];
  for (int j = 0; j < nb_; ++j) u_(nf_ + j) = modes.w[static_cast<std::size_t>(j)];
  for (int k = 0; k < slots_; ++k) u_(nf_ + nb_ + k) = sigma[k];
  u_(cols_ - 1) = 1.0;
}

OutputMaps::Map& OutputMaps::current(const State& modes) {
  key_.clear();
  append_mode_key(modes, key_);
  if (last_ != nullptr && key_ == last_key_) return *last_;
  if (maps_.size() >= kMaxMaps) maps_.clear();
  lookup_.assign(reinterpret_cast<const char*>(key_.data()), key_.size());  // (capacity kept)
  const auto [it, fresh] = maps_.try_emplace(lookup_);
  last_ = &it->second;
  last_key_ = key_;
  if (fresh) {  // its storage, filed now: build() allocates nothing
    Map& map = *last_;
    map.M.resize(rows_, cols_);
    map.row_start.reserve(static_cast<std::size_t>(rows_) + 1);
    map.col.reserve(static_cast<std::size_t>(rows_ * cols_));
    map.value.reserve(static_cast<std::size_t>(rows_ * cols_));
    map.state.resize(static_cast<std::size_t>(ne_));
    map.anchor.resize(static_cast<std::size_t>(nf_));
  }
  return *last_;
}

void OutputMaps::enter(const State& modes) {
  if (enabled_) current(modes);
}

bool OutputMaps::outputs(const State& modes, const double* sigma, const Evaluate& evaluate, OutputSample& o,
                         bool entered) {
  if (!enabled_) {
    evaluate(modes.q.data(), modes.w.data(), sigma, o);
    return false;
  }
  Map& map = entered && last_ != nullptr ? *last_ : current(modes);
  if (!map.usable && !map.refused) {
    // (the slots may be the caller's scratch, which the probes set)
    std::copy(sigma, sigma + slots_, sigma_.begin());
    sigma = sigma_.data();
    if (!build(map, modes, sigma, evaluate, o)) return false;  // refused: the tables' values are in o
  }
  if (map.refused) {
    evaluate(modes.q.data(), modes.w.data(), sigma, o);
    return false;
  }
  apply(map, modes, sigma, o);
  ++mapped_;
  return true;
}

void OutputMaps::apply(const Map& map, const State& modes, const double* sigma, OutputSample& o) {
  point(map, modes, sigma);
  for (Eigen::Index i = 0; i < rows_; ++i) {
    double sum = 0.0;
    for (int k = map.row_start[static_cast<std::size_t>(i)]; k < map.row_start[static_cast<std::size_t>(i) + 1]; ++k)
      sum += map.value[static_cast<std::size_t>(k)] * u_(map.col[static_cast<std::size_t>(k)]);
    r_(i) = sum;
  }
  unstack(r_, modes, map.state, o);
}

// Probes at u = 0 and the unit vectors, then the tables at the state itself
// (into o and the caller's scratch, as without a map) and the check against
// them. Into the storage filed when the mode was entered (enter: nothing is
// allocated here once it was).
bool OutputMaps::build(Map& map, const State& modes, const double* sigma, const Evaluate& evaluate,
                       OutputSample& o) {
  // each spring coordinate from the anchor of its law's branch (branch_anchor)
  for (int k = 0; k < nf_; ++k) {
    const auto sp = static_cast<std::size_t>(feature_spring_[static_cast<std::size_t>(k)]);
    anchors_(k) = map.anchor[static_cast<std::size_t>(k)] = branch_anchor(model_.springs[sp], modes.spring_side[sp]);
  }
  // A second spring on a row measured from another anchor would form its
  // torque k2 u + k2 (a1 - a2), losing its digits near its own flank: such
  // a mode keeps the tables (a review: 3e-5 off at a stop 100 rad out).
  bool ok = true;
  for (std::size_t sp = 0; sp < model_.springs.size(); ++sp)
    ok = ok && branch_anchor(model_.springs[sp], modes.spring_side[sp]) ==
                   map.anchor[static_cast<std::size_t>(feature_of_spring_[sp])];
  if (nf_ > 0) q0_.noalias() = probe_q_ * anchors_;
  else q0_.setZero();
  for (int j = 0; j < nb_; ++j) pq_[static_cast<std::size_t>(j)] = q0_(j);
  std::fill(pw_.begin(), pw_.end(), 0.0);
  std::fill(psigma_.begin(), psigma_.end(), 0.0);
  auto probe = [&](Eigen::Index col) {
    evaluate(pq_.data(), pw_.data(), psigma_.data(), probe_);
    stack(probe_, map.M.col(col));
    if (col == cols_ - 1) map.state = probe_.state;
    else ok = ok && probe_.state == map.state;
    ok = ok && map.M.col(col).allFinite();
  };
  // The coordinates the tables read at a probe's angles (the law's own sums):
  // F^+ is rounded, so a probe of one coordinate sets the others to roundoff,
  // not 0, and a stiff spring's torque k * 1e-16 (6e-11 N m for k = 6e5)
  // leaked into every other column, times an angle that grows (a clutch's
  // torque 2e-10 N m off after 0.6 s). The columns are taken against the
  // coordinates actually probed: with E = D - I (D: their differences to
  // the base, I + roundoff), M_f = Delta (I + E)^-1 = Delta - Delta E to
  // eps^2; the constant column is the base's outputs less M_f at its
  // coordinates (roundoff of the anchors).
  auto coordinates = [&](Eigen::Ref<Eigen::VectorXd> f) {
    for (int k = 0; k < nf_; ++k)
      f(k) = row_value(rows_of_[static_cast<std::size_t>(k)], pq_.data()) - map.anchor[static_cast<std::size_t>(k)];
  };
  probe(cols_ - 1);  // u = 0: the constant column
  coordinates(fb_);
  for (Eigen::Index c = 0; c < nf_; ++c) {  // a spring's coordinate 1 past its anchor, the others' at theirs
    for (int j = 0; j < nb_; ++j) pq_[static_cast<std::size_t>(j)] = q0_(j) + probe_q_(j, c);
    probe(c);
    map.M.col(c) -= map.M.col(cols_ - 1);
    coordinates(E_.col(c));
    E_.col(c) -= fb_;
    E_(c, c) -= 1.0;
  }
  for (int j = 0; j < nb_; ++j) pq_[static_cast<std::size_t>(j)] = q0_(j);
  for (Eigen::Index c = nf_; c + 1 < cols_; ++c) {  // the velocities' and slots' columns, at the base's angles
    double& v = c < nf_ + nb_ ? pw_[static_cast<std::size_t>(c - nf_)] : psigma_[static_cast<std::size_t>(c - nf_ - nb_)];
    v = 1.0;
    probe(c);
    v = 0.0;
    map.M.col(c) -= map.M.col(cols_ - 1);
  }
  // (last: every column above is taken against the base's own outputs; with
  // the constant corrected first, each velocity and slot column took in
  // M_f fb, 0.32 N m on a shaft spring of 1e8 N m/rad beside a spring to the
  // base 1000 rad out: a review)
  if (nf_ > 0) {
    corr_.noalias() = map.M.leftCols(nf_) * E_;
    map.M.leftCols(nf_) -= corr_;
    map.M.col(cols_ - 1).noalias() -= map.M.leftCols(nf_) * fb_;
  }
  // The check, at one fixed point of u with every entry apart from 0 and
  // from the others (not at the state: a map's use must not depend on where
  // its mode was first sampled, or a restored snapshot would not repeat the
  // outputs of the run it came from; a review): the tables there against the
  // map at the coordinates actually probed, each entry to 1e-12 of its terms.
  for (Eigen::Index c = 0; c + 1 < cols_; ++c) u_(c) = 0.5 + 0.125 * static_cast<double>(c % 7);
  for (int j = 0; j < nb_; ++j)
    pq_[static_cast<std::size_t>(j)] = q0_(j) + probe_q_.row(j).dot(u_.head(nf_));
  for (int j = 0; j < nb_; ++j) pw_[static_cast<std::size_t>(j)] = u_(nf_ + j);
  for (int k = 0; k < slots_; ++k) psigma_[static_cast<std::size_t>(k)] = u_(nf_ + nb_ + k);
  coordinates(u_.head(nf_));
  u_(cols_ - 1) = 1.0;
  evaluate(pq_.data(), pw_.data(), psigma_.data(), probe_);
  ok = ok && probe_.state == map.state;
  if (ok) {
    stack(probe_, r_);
    mapped_r_.noalias() = map.M * u_;
    terms_.noalias() = map.M.cwiseAbs() * u_.cwiseAbs();
    for (Eigen::Index i = 0; i < rows_ && ok; ++i)
      ok = std::abs(mapped_r_(i) - r_(i)) <= kMapTolerance * (terms_(i) + std::abs(r_(i))) + 1e-300;
  }
  // the tables at the state itself for a refused map (outputs() takes them)
  if (!ok) evaluate(modes.q.data(), modes.w.data(), sigma, o);
  map.usable = ok;
  map.refused = !ok;
  map.row_start.clear();
  map.row_start.push_back(0);
  map.col.clear();
  map.value.clear();
  for (Eigen::Index i = 0; ok && i < rows_; ++i) {
    for (Eigen::Index c = 0; c < cols_; ++c)
      if (map.M(i, c) != 0.0) {
        map.col.push_back(static_cast<int>(c));
        map.value.push_back(map.M(i, c));
      }
    map.row_start.push_back(static_cast<int>(map.col.size()));
  }
  ++(ok ? built_ : refused_);
  return ok;
}

void OutputMaps::stack(const OutputSample& o, Eigen::Ref<Eigen::VectorXd> r) const {
  Eigen::Index i = 0;
  for (int e = 0; e < ne_; ++e) r(i++) = o.torque[static_cast<std::size_t>(e)];
  for (int j = 0; j < nb_; ++j) r(i++) = o.acceleration[static_cast<std::size_t>(j)];
  for (int j = 0; j < drives_; ++j) r(i++) = o.drive_torque[static_cast<std::size_t>(j)];
}

void OutputMaps::unstack(const Eigen::VectorXd& r, const State& modes, const std::vector<std::int8_t>& state,
                         OutputSample& o) const {
  o.resize(model_);
  Eigen::Index i = 0;
  for (int e = 0; e < ne_; ++e) o.torque[static_cast<std::size_t>(e)] = r(i++);
  // the coordinates as the tables form them (exact differences of angles)
  element_coordinates(coordinates_, modes.q.data(), modes.w.data(), o.relative.data(), o.rate.data());
  for (int j = 0; j < nb_; ++j) o.acceleration[static_cast<std::size_t>(j)] = r(i++);
  for (int j = 0; j < drives_; ++j) o.drive_torque[static_cast<std::size_t>(j)] = r(i++);
  o.state = state;
  for (int e = 0; e < ne_; ++e) {
    const auto k = static_cast<std::size_t>(e);
    o.power[k] = power_sign_[k] * o.torque[k] * o.rate[k];  // (element_powers)
  }
  o.dissipated = modes.element_dissipated;
  // the removed bodies' accelerations from the model bodies' (piecewise in q)
  reported_bodies(model_, modes.q.data(), o.acceleration.data(), nullptr, o.acceleration.data());
}

}  // namespace luztar
