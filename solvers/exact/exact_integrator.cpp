#include "solvers/exact/exact_integrator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/times.hpp"

namespace luztar::exact {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

int sign_of(double x) { return x > 0.0 ? 1 : x < 0.0 ? -1 : 0; }

}  // namespace

ExactIntegrator::ExactIntegrator(AffineModeSystem& system, std::vector<const Signal*> slots, const double* inputs,
                                 const ExactOptions& options)
    : system_(system),
      exo_(std::move(slots)),
      inputs_(inputs),
      options_(options),
      n_(system.size()),
      p_(system.slot_count()),
      roots_(system.root_count()),
      quads_(system.quadrature_count()),
      propagators_(options.cache_propagators) {
  if (exo_.slot_count() != p_) throw std::invalid_argument("ExactIntegrator: one signal per slot of the system");
  options_.norm_step = std::min(options_.norm_step, kMaxNormStep);
  z_ = Eigen::VectorXd::Zero(n_ + exo_.size());
  q_ = Eigen::VectorXd::Zero(quads_);
}

void ExactIntegrator::reset(double t0, const double* y0, const double* q0, const std::vector<int>& directions) {
  if (static_cast<int>(directions.size()) != roots_)
    throw std::invalid_argument("ExactIntegrator::reset: one direction per root function of the system");
  t_ = t0;
  for (int i = 0; i < n_; ++i) z_(i) = y0[i];
  for (int j = 0; j < quads_; ++j) q_(j) = q0 ? q0[j] : 0.0;
  directions_ = directions;
  directions_.resize(static_cast<std::size_t>(roots_ + exo_.kinks().rows()), 0);
  roots_found_.assign(static_cast<std::size_t>(roots_), 0);
  read_signals();
}

void ExactIntegrator::read_signals() {
  exo_.state_at(t_, inputs_, xi_);
  z_.tail(xi_.size()) = xi_;
  select_mode();
  restart_signs();
  next_break_ = next_breakpoint();
}

double ExactIntegrator::next_breakpoint() {
  std::vector<double>& times = break_scratch_;
  times.clear();
  exo_.breakpoints(t_, INFINITY, times);
  return times.empty() ? INFINITY : *std::min_element(times.begin(), times.end());
}

void ExactIntegrator::select_mode() {
  system_.mode_key(key_scratch_);
  // (pointer and length: libstdc++'s assign from iterators builds a temporary string)
  key_.assign(reinterpret_cast<const char*>(key_scratch_.data()), key_scratch_.size());
  key_ += '|';
  key_.append(reinterpret_cast<const char*>(exo_.pieces().data()), exo_.pieces().size());
  if (auto it = mode_index_.find(key_); it != mode_index_.end()) {
    modes_.splice(modes_.begin(), modes_, it->second);
    mode_ = &modes_.front();
    return;
  }
  modes_.emplace_front();
  modes_.front().id = next_mode_id_++;
  identify(modes_.front());
  // The regular sub-step's exponential now, with the identification: a warm
  // run then allocates only where it meets a new mode (Integrator counters:
  // jac_evals), never at a later first full sub-step.
  propagators_.get(modes_.front().id, modes_.front().A, modes_.front().Q, modes_.front().h);
  mode_index_[key_] = modes_.begin();
  mode_ = &modes_.front();
  while (modes_.size() > std::max<std::size_t>(options_.cache_modes, 1)) {
    propagators_.forget(modes_.back().id);
    for (auto it = mode_index_.begin(); it != mode_index_.end(); ++it)
      if (it->second == std::prev(modes_.end())) {
        mode_index_.erase(it);
        break;
      }
    modes_.pop_back();
  }
}

void ExactIntegrator::identify_affine(Mode& m) {
  const int M = exo_.size(), N = n_ + M, W = n_ + p_;
  const Eigen::MatrixXd& C = exo_.C();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(W), out(n_), g(roots_);
  auto rhs_at = [&](Eigen::VectorXd& r) {
    ++stats_.probes;
    system_.rhs(w.data(), w.data() + n_, r.data());
  };
  auto roots_at = [&](Eigen::VectorXd& r) {
    ++stats_.probes;
    if (roots_ > 0) system_.roots(w.data(), w.data() + n_, r.data());
  };
  // rhs and roots: affine, by columns
  Eigen::VectorXd b0(n_), g0(roots_);
  rhs_at(b0);
  roots_at(g0);
  Eigen::MatrixXd Jw(n_, W), Gw(roots_, W);
  for (int i = 0; i < W; ++i) {
    w(i) = 1.0;
    rhs_at(out);
    roots_at(g);
    w(i) = 0.0;
    Jw.col(i) = out - b0;
    Gw.col(i) = g - g0;
  }
  m.A = Eigen::MatrixXd::Zero(N, N);
  m.A.topLeftCorner(n_, n_) = Jw.leftCols(n_);
  m.A.topRightCorner(n_, M) = Jw.rightCols(p_) * C;
  m.A.col(n_).head(n_) += b0;  // the constant xi[0] = 1 carries b0
  m.A.bottomRightCorner(M, M) = exo_.S();
  const Eigen::MatrixXd& K = exo_.kinks();
  m.G = Eigen::MatrixXd::Zero(roots_ + K.rows(), N);
  m.G.topLeftCorner(roots_, n_) = Gw.leftCols(n_);
  m.G.block(0, n_, roots_, M) = Gw.rightCols(p_) * C;
  m.G.block(0, n_, roots_, 1) += g0;
  m.G.bottomRightCorner(K.rows(), M) = K;
}

void ExactIntegrator::identify_quadratures(Mode& m) {
  const int M = exo_.size(), N = n_ + M, W = n_ + p_;
  const Eigen::MatrixXd& C = exo_.C();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(W), q(quads_);
  auto quad_at = [&]() {
    ++stats_.probes;
    system_.quadrature(w.data(), w.data() + n_, q.data());
    return Eigen::VectorXd(q);
  };
  // q(w) = w^T P w + l^T w + c by polarisation, then in z
  const Eigen::VectorXd q0 = quad_at();
  std::vector<Eigen::VectorXd> plus(static_cast<std::size_t>(W)), minus(static_cast<std::size_t>(W));
  for (int i = 0; i < W; ++i) {
    w(i) = 1.0;
    plus[static_cast<std::size_t>(i)] = quad_at();
    w(i) = -1.0;
    minus[static_cast<std::size_t>(i)] = quad_at();
    w(i) = 0.0;
  }
  // (w, 1) = T z
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(W + 1, N);
  T.topLeftCorner(n_, n_).setIdentity();
  T.block(n_, n_, p_, M) = C;
  T(W, n_) = 1.0;
  std::vector<Eigen::MatrixXd> Qh(static_cast<std::size_t>(quads_), Eigen::MatrixXd::Zero(W + 1, W + 1));
  for (int i = 0; i < W; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    for (int j = 0; j < quads_; ++j) {
      Eigen::MatrixXd& Q = Qh[static_cast<std::size_t>(j)];
      Q(i, i) = 0.5 * (plus[ui](j) + minus[ui](j)) - q0(j);
      Q(i, W) = Q(W, i) = 0.25 * (plus[ui](j) - minus[ui](j));
    }
    for (int k = i + 1; k < W; ++k) {
      w(i) = w(k) = 1.0;
      const Eigen::VectorXd both = quad_at();
      w(i) = w(k) = 0.0;
      for (int j = 0; j < quads_; ++j)
        Qh[static_cast<std::size_t>(j)](i, k) = Qh[static_cast<std::size_t>(j)](k, i) =
            0.5 * (both(j) - plus[ui](j) - plus[static_cast<std::size_t>(k)](j) + q0(j));
    }
  }
  m.Q.clear();
  for (int j = 0; j < quads_; ++j) {
    Eigen::MatrixXd& Q = Qh[static_cast<std::size_t>(j)];
    Q(W, W) = q0(j);
    const Eigen::MatrixXd Qz = T.transpose() * Q * T;
    m.Q.push_back(0.5 * (Qz + Qz.transpose()));
  }
}

void ExactIntegrator::identify(Mode& m) {
  ++stats_.identifications;
  identify_affine(m);
  if (quads_ > 0) identify_quadratures(m);
  check_identified(m);
  m.D = balance(m.A);
  m.norm = balanced_norm(m.A, m.D);
  m.h = m.norm > 0.0 ? std::min(options_.max_substep, options_.norm_step / m.norm) : options_.max_substep;
  m.g_norm = (m.G * m.D.asDiagonal()).cwiseAbs().rowwise().sum().transpose();
}

void ExactIntegrator::check_identified(const Mode& m) {
  const int M = exo_.size();
  Eigen::VectorXd w(n_ + p_), out(n_), g(roots_);
  w.head(n_) = z_.head(n_);
  w.tail(p_) = exo_.C() * z_.tail(M);
  system_.rhs(w.data(), w.data() + n_, out.data());
  if (roots_ > 0) system_.roots(w.data(), w.data() + n_, g.data());
  // Each row against the scale of its terms (|A_ij z_j| summed, and the value).
  auto check = [&](const Eigen::MatrixXd& rows, const Eigen::VectorXd& actual, const char* what) {
    for (int i = 0; i < actual.size(); ++i) {
      const double mapped = rows.row(i).dot(z_);
      const double scale = rows.row(i).cwiseAbs().dot(z_.cwiseAbs()) + std::abs(actual(i));
      if (!(std::abs(mapped - actual(i)) <= kIdentificationTolerance * scale + 1e-300)) {
        std::ostringstream os;
        os.precision(17);
        os << "exact integrator: internal error: the mode identified at t = " << t_ << " s does not reproduce its "
           << what << " " << i << " at the state (" << mapped << " against " << actual(i)
           << "): the system is not affine in this mode";
        throw std::logic_error(os.str());
      }
    }
  };
  check(m.A.topRows(n_), out, "right-hand side row");
  check(m.G.topRows(roots_), g, "root function");
  // The quadratures' forms z^T Q z against the integrands.
  Eigen::VectorXd q(quads_);
  if (quads_ > 0) system_.quadrature(w.data(), w.data() + n_, q.data());
  for (int j = 0; j < quads_; ++j) {
    const Eigen::MatrixXd& Q = m.Q[static_cast<std::size_t>(j)];
    const double mapped = z_.dot(Q * z_), scale = z_.cwiseAbs().dot(Q.cwiseAbs() * z_.cwiseAbs()) + std::abs(q(j));
    if (!(std::abs(mapped - q(j)) <= kIdentificationTolerance * scale + 1e-300)) {
      std::ostringstream os;
      os.precision(17);
      os << "exact integrator: internal error: the mode identified at t = " << t_ << " s does not reproduce its "
         << "quadrature " << j << " at the state (" << mapped << " against " << q(j)
         << "): the integrand is not quadratic in this mode";
      throw std::logic_error(os.str());
    }
  }
}

void ExactIntegrator::restart_signs() {
  const auto F = static_cast<std::size_t>(mode_->G.rows());
  signs_.assign(F, 0);
  polys_.resize(F);
  if (F == 0) return;
  taylor_.build(mode_->A, mode_->D, mode_->norm, z_, mode_->h);
  taylor_fresh_ = true;
  for (std::size_t j = 0; j < F; ++j)
    signs_[j] = leaving_sign(event_polynomial(mode_->G.row(static_cast<Eigen::Index>(j)), taylor_));
}

void ExactIntegrator::propagate(double s) {
  ++stats_.substeps;
  if (s <= 0.0) return;
  const Propagator& prop = propagators_.get(mode_->id, mode_->A, mode_->Q, s);
  for (int j = 0; j < quads_; ++j) {
    zscratch_.noalias() = prop.W[static_cast<std::size_t>(j)] * z_;
    q_(j) += z_.dot(zscratch_);
  }
  zscratch_.noalias() = prop.Phi * z_;
  z_.swap(zscratch_);
  t_ += s;
  taylor_fresh_ = false;
}

void ExactIntegrator::propagate_partial(double s) {
  ++stats_.substeps;
  if (s <= 0.0) return;
  if (!taylor_fresh_) taylor_.build(mode_->A, mode_->D, mode_->norm, z_, s);
  // z(s) = sum_k v_k s^k / k! and int_0^s z^T Q z = sum_{i,k} v_i^T Q v_k s^(i+k+1) / (i! k! (i+k+1))
  std::array<double, kTaylorTerms + 1> f{};  // s^k / k!
  f[0] = 1.0;
  for (int k = 1; k <= kTaylorTerms; ++k) f[static_cast<std::size_t>(k)] = f[static_cast<std::size_t>(k - 1)] * s / k;
  // the terms that matter: f_k ||D^-1 v_k|| above 1e-18 of the largest
  int terms = kTaylorTerms + 1;
  double largest = 0.0;
  for (int k = 0; k <= kTaylorTerms; ++k) largest = std::max(largest, f[static_cast<std::size_t>(k)] * taylor_.scaled_norm(k));
  while (terms > 1 && f[static_cast<std::size_t>(terms - 1)] * taylor_.scaled_norm(terms - 1) <= 1e-18 * largest) --terms;
  const auto V = taylor_.V().leftCols(terms);
  // Scratch at its largest size, used in blocks: `terms` varies from step to
  // step, and resizing would allocate.
  if (qv_.rows() != V.rows() || qv_.cols() < kTaylorTerms + 1) {
    qv_.resize(V.rows(), kTaylorTerms + 1);
    gram_.resize(kTaylorTerms + 1, kTaylorTerms + 1);
  }
  for (int j = 0; j < quads_; ++j) {
    qv_.leftCols(terms).noalias() = mode_->Q[static_cast<std::size_t>(j)] * V;
    gram_.topLeftCorner(terms, terms).noalias() = V.transpose() * qv_.leftCols(terms);
    double sum = 0.0;
    for (int k = 0; k < terms; ++k)
      for (int i = 0; i < terms; ++i)
        sum += gram_(i, k) * f[static_cast<std::size_t>(i)] * f[static_cast<std::size_t>(k)] / (i + k + 1);
    q_(j) += sum * s;
  }
  z_ = V.col(terms - 1) * f[static_cast<std::size_t>(terms - 1)];
  for (int k = terms - 2; k >= 0; --k) z_ += V.col(k) * f[static_cast<std::size_t>(k)];
  t_ += s;
  taylor_fresh_ = false;
}

// Event search: a first-order exclusion first, the full search for the rest.
double ExactIntegrator::first_crossing_on(double step, double resolution) {
  const auto F = static_cast<std::size_t>(mode_->G.rows());
  double best = INFINITY;
  if (F == 0) return best;
  gz_.noalias() = mode_->G * z_;
  const Eigen::VectorXd& gz = gz_;
  zscratch_.noalias() = mode_->A * z_;
  const double slope = zscratch_.cwiseQuotient(mode_->D).lpNorm<Eigen::Infinity>();
  const double zscale = z_.cwiseQuotient(mode_->D).lpNorm<Eigen::Infinity>();
  const double growth = std::exp(mode_->norm * step);
  bool built = false;
  before_ = signs_;
  searched_.assign(F, 0);  // capacity kept: no allocation after the first call
  for (std::size_t j = 0; j < F; ++j) {
    cross_s_[j] = INFINITY;
    const double gn = mode_->g_norm(static_cast<Eigen::Index>(j));
    const double bound = gn * (growth * slope * step + 64.0 * kEps * zscale);
    if (std::abs(gz(static_cast<Eigen::Index>(j))) > bound &&
        (signs_[j] == 0 || signs_[j] == sign_of(gz(static_cast<Eigen::Index>(j))))) {
      signs_[j] = sign_of(gz(static_cast<Eigen::Index>(j)));
      continue;
    }
    if (!built) {
      taylor_.build(mode_->A, mode_->D, mode_->norm, z_, step);
      taylor_fresh_ = built = true;
    }
    ++stats_.searches;
    searched_[j] = 1;
    polys_[j] = event_polynomial(mode_->G.row(static_cast<Eigen::Index>(j)), taylor_);
    if (auto c = first_crossing(polys_[j], directions_[j], signs_[j], resolution, &stats_.search)) {
      cross_s_[j] = c->s;
      cross_dir_[j] = c->direction;
      best = std::min(best, c->s);
    }
  }
  return best;
}

// Stop at the first crossing: the functions crossing there (to the
// resolution) take their new sign, the others their sign at `best`.
bool ExactIntegrator::stop_at_crossing(double best, double step, bool last, double end, double resolution) {
  const auto F = static_cast<std::size_t>(mode_->G.rows());
  bool model_root = false;
  for (std::size_t j = 0; j < F; ++j) {
    if (cross_s_[j] <= best + resolution) {
      signs_[j] = cross_dir_[j];
      if (static_cast<int>(j) < roots_) {
        roots_found_[j] = cross_dir_[j];
        model_root = true;
      }
    } else if (searched_[j]) {
      EventPolynomial p = polys_[j];
      p.h = best;
      signs_[j] = before_[j];
      first_crossing(p, kWatchNone, signs_[j], resolution);
    }
  }
  const double t_start = t_;
  propagate_partial(best);
  t_ = best == step && last ? end : t_start + best;
  bool switched = false;
  for (std::size_t j = static_cast<std::size_t>(roots_); j < F; ++j)
    if (cross_s_[j] <= best + resolution) {
      exo_.cross_kink(static_cast<int>(j) - roots_, cross_dir_[j]);
      ++stats_.kinks;
      switched = true;
    }
  if (switched) select_mode();
  return model_root;
}

Integrator::Outcome ExactIntegrator::advance(double tout, double tstop, double& t, double* y) {
  std::fill(roots_found_.begin(), roots_found_.end(), 0);
  const bool stop_first = earlier(tstop, tout);
  const double target = stop_first ? tstop : tout;
  const auto F = static_cast<std::size_t>(mode_->G.rows());
  cross_s_.resize(F);
  cross_dir_.resize(F);
  auto finish = [&](Outcome outcome) {
    t = t_;
    for (int i = 0; i < n_; ++i) y[i] = z_(i);
    return outcome;
  };
  for (;;) {
    if (!z_.allFinite()) {
      last_error_ = "exact integrator: the state is not finite at t = " + std::to_string(t_) + " s";
      return finish(Outcome::failure);
    }
    if (at_or_before(target, t_)) {
      if (same_time(target, t_)) t_ = target;
      return finish(stop_first ? Outcome::stop_time : Outcome::reached);
    }
    if (at_or_before(next_break_, t_)) {  // a breakpoint the pipeline did not stop at
      t_ = std::max(t_, next_break_);
      read_signals();
      continue;
    }
    const double end = std::min(target, next_break_);
    const bool last = end - t_ <= mode_->h || same_time(t_ + mode_->h, end);
    const double step = last ? end - t_ : mode_->h;
    const double resolution = 4.0 * kEps * (std::abs(t_) + step);
    const double best = first_crossing_on(step, resolution);
    if (best == INFINITY) {
      if (step == mode_->h)
        propagate(step);
      else
        propagate_partial(step);
      if (last) t_ = end;
      continue;
    }
    if (stop_at_crossing(best, step, last, end, resolution)) return finish(Outcome::root);
  }
}

void ExactIntegrator::quadratures(double, double* q) {
  for (int j = 0; j < quads_; ++j) q[j] = q_(j);
}

IntegratorCounters ExactIntegrator::counters() const {
  IntegratorCounters c;
  c.steps = stats_.substeps;
  c.rhs_evals = stats_.probes;
  c.jac_evals = stats_.identifications;
  c.root_evals = stats_.searches;
  c.nonlinear_iters = stats_.search.iterations;
  return c;
}

}  // namespace luztar::exact
