#include "solvers/exact/exact_integrator.hpp"

#include <algorithm>
#include <complex>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <Eigen/Eigenvalues>

#include "core/number_text.hpp"
#include "core/times.hpp"

namespace luztar::exact {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// taylor_pieces: the largest growth bound of the slow block over a sub-step,
// and the most sub-steps per aim (output interval) before a mode is refused.
// With the fast eigenvalues split off, the slow block's spectral radius is
// below kSlowRadius / aim and one piece serves every test of the suite (growth
// 3.25 at most); a fast mode left in the slow block (a stiff contact damped
// critically: a Jordan block) needs ~|lambda| aim pieces, served up to 65536,
// and a run that would crawl beyond (4 million for a 1e14 N m/rad contact in
// an unbalanced split, 2.5e-12 s each) ends with an error instead.
constexpr double kMaxGrowth = 1e4;
constexpr double kMaxPieces = 65536.0;
// The most a split-off growing mode may grow over a sub-step, e^kMaxFastGrowth
// (identify_slow).
constexpr double kMaxFastGrowth = 1.0;
// The most sub-steps one look-ahead of the event search spans (first_crossing_on).
constexpr double kMaxLookAhead = 32.0;

int sign_of(double x) { return x > 0.0 ? 1 : x < 0.0 ? -1 : 0; }

// The number n of equal pieces of `span` over which the Taylor series of
// exp(A s) converges to 1e-20 relative (K = kTaylorTerms terms): the remainder
// factor growth(h) n_K h^K / K! <= 1e-20 for h = span / n (GrowthBound), with
// growth(h) itself at most kMaxGrowth: the event search's remainder is growth(h)
// times the last term it keeps (TaylorData::build stops at 1e-20 of the
// largest), and a growth bound of e^351 (an unbalanced norm of 1e14 over
// 2.5e-12 s) made it 1e40, every crossing a touch: a missed separation.
// More than kMaxPieces: returns a count beyond it (identify_split refuses the mode).
double taylor_pieces(const GrowthBound& growth, double span) {
  double factorial = 1.0;
  for (int k = 2; k <= kTaylorTerms; ++k) factorial *= k;
  auto converges = [&](double pieces) {
    const double h = span / pieces, g = growth.over(h);
    return g <= kMaxGrowth && g * growth.power_norm(kTaylorTerms) * std::pow(h, kTaylorTerms) / factorial <= 1e-20;
  };
  double pieces = 1.0;
  while (pieces <= kMaxPieces && !converges(pieces)) pieces *= 2.0;
  if (pieces > kMaxPieces) return pieces;
  // the least count between pieces / 2 and pieces
  for (double lo = std::max(1.0, pieces / 2.0); lo < pieces; lo += std::max(1.0, std::floor((pieces - lo) / 8.0)))
    if (converges(lo)) return lo;
  return pieces;
}

// An orthonormal basis (N x r) of the inert directions of the system's state
// (AffineModeSystem::relation_rows: the null space of its relation rows,
// zero in the exosystem), kept only when the identified maps confirm it
// (A K = 0 and Q_j K = 0 to 1e-13 of their scale); else none.
Eigen::MatrixXd inert_directions(const AffineModeSystem& system, const Eigen::MatrixXd& A,
                                 const std::vector<Eigen::MatrixXd>& Q) {
  const int n = system.size();
  const Eigen::Index N = A.rows();
  std::vector<double> data;
  const int count = system.relation_rows(data);
  if (count <= 0) return Eigen::MatrixXd(N, 0);
  const Eigen::MatrixXd R = Eigen::Map<const Eigen::Matrix<double, -1, -1, Eigen::RowMajor>>(data.data(), count, n);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(R, Eigen::ComputeFullV);
  const auto& sv = svd.singularValues();
  Eigen::Index rank = 0;
  while (rank < sv.size() && sv(rank) > 1e-12 * sv(0)) ++rank;
  if (rank == n) return Eigen::MatrixXd(N, 0);
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(N, n - rank);
  K.topRows(n) = svd.matrixV().rightCols(n - rank);
  bool inert = (A * K).cwiseAbs().maxCoeff() <= 1e-13 * A.cwiseAbs().maxCoeff();
  for (const Eigen::MatrixXd& q : Q) inert = inert && (q * K).cwiseAbs().maxCoeff() <= 1e-13 * q.cwiseAbs().maxCoeff();
  return inert ? K : Eigen::MatrixXd(N, 0);
}

// Whether `row` (watched in direction d) is, to roundoff, one of the first
// `count` rows of `rows` with that direction.
bool among_rows(const Eigen::MatrixXd& rows, const std::vector<int>& dirs, Eigen::Index count,
                const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& row, int d) {
  if (rows.cols() != row.size()) return false;
  const double scale = row.cwiseAbs().maxCoeff();
  for (Eigen::Index k = 0; k < count; ++k)
    if (dirs[static_cast<std::size_t>(k)] == d && (rows.row(k) - row).cwiseAbs().maxCoeff() <= 1e-12 * scale)
      return true;
  return false;
}

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
      quads_(system.quadrature_count()) {
  if (exo_.slot_count() != p_) throw std::invalid_argument("ExactIntegrator: one signal per slot of the system");
  const int N = n_ + exo_.size();
  z_ = Eigen::VectorXd::Zero(N);
  q_ = Eigen::VectorXd::Zero(quads_);
  x_ = offset_ = zscratch_ = ztx_ = zrate_ = Eigen::VectorXd::Zero(N);
  before_x_ = Eigen::VectorXd::Zero(N);
  before_q_ = Eigen::VectorXd::Zero(quads_);
  bound_v_.resize(N, kBoundOrder + 1);
  xi_ = Eigen::VectorXcd::Zero(N);
  gz_ = Eigen::VectorXd::Zero(roots_ + exo_.kinks().rows());
  fast_change_ = fast_reach_ = fast_abs_ = xabs_ = Eigen::VectorXd::Zero(N);
  gscale_ = gzscale_ = gconst_ = Eigen::VectorXd::Zero(gz_.size());
  bound_terms_.resize(gz_.size(), kBoundOrder - 1);
  reported_rows_.resize(roots_, N);  // (record_reported: no allocation at a root stop)
  reported_dirs_.assign(static_cast<std::size_t>(roots_), 0);
  uncrossed_rows_.resize(roots_, N);
  uncrossed_dirs_.assign(static_cast<std::size_t>(roots_), 0);
}

void ExactIntegrator::reset(double t0, const double* y0, const double* q0, const std::vector<int>& directions) {
  if (static_cast<int>(directions.size()) != roots_)
    throw std::invalid_argument("ExactIntegrator::reset: one direction per root function of the system");
  start_at(t0, y0, q0);
  directions_ = directions;
  directions_.resize(static_cast<std::size_t>(roots_ + exo_.kinks().rows()), 0);
  read_signals();
}

void ExactIntegrator::reset_inputs(double t0, const double* y0, const double* q0, const std::vector<int>& directions) {
  if (mode_ == nullptr || directions.size() != static_cast<std::size_t>(roots_) ||
      !std::equal(directions.begin(), directions.end(), directions_.begin())) {
    reset(t0, y0, q0, directions);
    return;
  }
  start_at(t0, y0, q0);
  read_signals(true);
}

void ExactIntegrator::start_at(double t0, const double* y0, const double* q0) {
  t_ = t0;
  for (int i = 0; i < n_; ++i) z_(i) = y0[i];
  for (int j = 0; j < quads_; ++j) q_(j) = q0 ? q0[j] : 0.0;
  roots_found_.assign(static_cast<std::size_t>(roots_), 0);
  overflow_at_ = std::numeric_limits<double>::quiet_NaN();
  z_current_ = bound_current_ = false;  // (z_ is being rewritten; enter_mode follows)
}

void ExactIntegrator::read_signals(bool same_mode) {
  exo_.state_at(t_, inputs_, xi_state_);
  z_.tail(xi_state_.size()) = xi_state_;
  if (same_mode && same_pieces()) enter_mode();  // the current mode is the most recently used one already
  else select_mode();
  restart_signs();
  next_break_ = next_breakpoint();
}

// Whether the exosystem's pieces are those the current mode was selected
// with (its key ends with them: select_mode).
bool ExactIntegrator::same_pieces() const {
  const std::vector<std::int8_t>& pieces = exo_.pieces();
  return key_.size() >= pieces.size() &&
         std::equal(pieces.begin(), pieces.end(), key_.end() - static_cast<std::ptrdiff_t>(pieces.size()),
                    [](std::int8_t a, char b) { return static_cast<char>(a) == b; });
}

// The inert part K c0 of z (least squares over the inert columns of T) stays
// out of x: the tens of radians a shaft has turned never pass through T^-1,
// whose rows would otherwise cancel them only to cond(T) eps of their size,
// a change of 1e-10 in a stiff spring's torque at every restart (enough for
// a root to be found again at the instant it was left, an event storm).
void ExactIntegrator::enter_mode() {
  const Mode& m = *mode_;
  const auto r = m.split.inert;
  const auto Kz = m.split.T.leftCols(r);
  zscratch_.head(r).noalias() = Kz.transpose() * z_;  // (the normal equations, factored once per mode)
  offset_.head(r) = m.inert_fit.solve(zscratch_.head(r));
  zscratch_.noalias() = z_ - Kz * offset_.head(r);
  x_.noalias() = m.split.Tinv * zscratch_;
  z_current_ = false;  // (z_ is what x_ came from, not T x_ + K c0 bit for bit)
  bound_current_ = false;
  clear_left_ = 0.0;  // a new state (or mode): nothing is known ahead of it
  last_clear_ = false;
}

void ExactIntegrator::sync_z() {
  if (z_current_) return;
  z_current_ = true;
  const Mode& m = *mode_;
  z_.noalias() = m.split.T * x_;
  z_.noalias() += m.split.T.leftCols(m.split.inert) * offset_.head(m.split.inert);
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
    enter_mode();
    return;
  }
  modes_.emplace_front();
  modes_.front().id = next_mode_id_++;
  // (with its propagators: a warm run allocates only where it meets a new
  // mode, Integrator counters: jac_evals)
  identify(modes_.front());
  mode_index_[key_] = modes_.begin();
  mode_ = &modes_.front();
  enter_mode();
  while (modes_.size() > std::max<std::size_t>(options_.cache_modes, 1)) {
    for (auto it = mode_index_.begin(); it != mode_index_.end(); ++it)
      if (it->second == std::prev(modes_.end())) {
        mode_index_.erase(it);
        break;
      }
    modes_.pop_back();
  }
}

// The probes run over z = (y, xi) itself (the slots sigma = C xi): a model
// whose many slots are constants (each bearing's MT0) has far fewer exosystem
// states than slots, and the quadratures' polarisation costs their square.
void ExactIntegrator::probe_at(const Eigen::VectorXd& u) {
  ++stats_.probes;
  probe_sigma_.noalias() = exo_.C() * u.tail(exo_.size());
}

void ExactIntegrator::identify_affine(Mode& m) {
  const int M = exo_.size(), N = n_ + M;
  Eigen::VectorXd u = Eigen::VectorXd::Zero(N), out(n_), g(roots_);
  auto rhs_at = [&](Eigen::VectorXd& r) {
    probe_at(u);
    system_.rhs(u.data(), probe_sigma_.data(), r.data());
  };
  Eigen::VectorXd terms(roots_);
  auto roots_at = [&](Eigen::VectorXd& r) {
    if (roots_ > 0) system_.roots(u.data(), probe_sigma_.data(), r.data());
    if (roots_ > 0) system_.root_term_scales(terms.data());
  };
  // rhs and roots: affine, by columns
  Eigen::VectorXd b0(n_), g0(roots_);
  rhs_at(b0);
  roots_at(g0);
  const Eigen::VectorXd terms0 = terms;
  m.A = Eigen::MatrixXd::Zero(N, N);
  const Eigen::MatrixXd& K = exo_.kinks();
  m.G = Eigen::MatrixXd::Zero(roots_ + K.rows(), N);
  m.G_terms.resize(roots_, N);
  for (int i = 0; i < N; ++i) {
    u(i) = 1.0;
    rhs_at(out);
    roots_at(g);
    u(i) = 0.0;
    m.A.col(i).head(n_) = out - b0;
    m.G.col(i).head(roots_) = g - g0;
    m.G_terms.col(i) = terms.cwiseMax(terms0);
  }
  m.A.col(n_).head(n_) += b0;  // the constant xi[0] = 1 carries b0
  m.A.bottomRightCorner(M, M) = exo_.S();
  m.G.block(0, n_, roots_, 1) += g0;
  m.G.bottomRightCorner(K.rows(), M) = K;
  // A root's coefficient within its terms' roundoff is 0 (a contact torque
  // that cancels exactly in this mode would otherwise be watched as a row of
  // roundoff, whose own scale would take it for a real torque)
  for (int j = 0; j < roots_; ++j)
    for (int i = 0; i < N; ++i)
      if (std::abs(m.G(j, i)) <= 64.0 * kEps * m.G_terms(j, i)) m.G(j, i) = 0.0;
}

void ExactIntegrator::identify_quadratures(Mode& m) {
  const int N = n_ + exo_.size();
  Eigen::VectorXd u = Eigen::VectorXd::Zero(N);
  // (each probe's values into a column of one matrix: no allocation a probe)
  auto quad_at = [&](Eigen::Ref<Eigen::VectorXd> q) {
    probe_at(u);
    system_.quadrature(u.data(), probe_sigma_.data(), q.data());
  };
  // q(u) = u^T P u + l^T u + c by polarisation; in z the constant xi[0] = 1
  // carries l and c: Q = P + (l e0^T + e0 l^T) / 2 + c e0 e0^T
  Eigen::VectorXd q0(quads_), both(quads_);
  quad_at(q0);
  Eigen::MatrixXd plus(quads_, N), minus(quads_, N);
  for (int i = 0; i < N; ++i) {
    u(i) = 1.0;
    quad_at(plus.col(i));
    u(i) = -1.0;
    quad_at(minus.col(i));
    u(i) = 0.0;
  }
  m.Q.assign(static_cast<std::size_t>(quads_), Eigen::MatrixXd::Zero(N, N));
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < quads_; ++j) {
      Eigen::MatrixXd& Q = m.Q[static_cast<std::size_t>(j)];
      Q(i, i) += 0.5 * (plus(j, i) + minus(j, i)) - q0(j);
      const double linear = 0.5 * (plus(j, i) - minus(j, i));
      Q(i, n_) += 0.5 * linear;
      Q(n_, i) += 0.5 * linear;
    }
    for (int k = i + 1; k < N; ++k) {
      u(i) = u(k) = 1.0;
      quad_at(both);
      u(i) = u(k) = 0.0;
      for (int j = 0; j < quads_; ++j) {
        const double c = 0.5 * (both(j) - plus(j, i) - plus(j, k) + q0(j));
        m.Q[static_cast<std::size_t>(j)](i, k) += c;
        m.Q[static_cast<std::size_t>(j)](k, i) += c;
      }
    }
  }
  for (int j = 0; j < quads_; ++j) m.Q[static_cast<std::size_t>(j)](n_, n_) += q0(j);
}

void ExactIntegrator::identify(Mode& m) {
  ++stats_.identifications;
  identify_affine(m);
  if (quads_ > 0) identify_quadratures(m);
  check_identified(m);
  identify_split(m);
}

void ExactIntegrator::identify_split(Mode& m) {
  const double aim = options_.grid_step > 0.0 ? std::min(options_.grid_step, options_.max_substep) : options_.max_substep;
  const Eigen::MatrixXd K = inert_directions(system_, m.A, m.Q);
  // (the exosystem's states, z's last, keep their scale: modal_split.hpp)
  m.split = split_modes(m.A, kSlowRadius / aim, aim, K, exo_.size());
  if (!identify_slow(m, aim)) {  // a resolvent too ill-conditioned: nothing split off
    m.split = unsplit(m.A, K, exo_.size());
    if (!identify_slow(m, aim))
      throw std::logic_error("exact integrator: internal error: the unsplit mode has no propagator");
  }
  if (m.split.fast_dims() > 0) ++stats_.split;
  if (aim / m.h > kMaxPieces) refuse_substep(m, aim);
  // the rows that can move in this mode (G A != 0; a constant row, such as a
  // padded root slot, keeps its sign) are the ones watched
  const Eigen::MatrixXd rates = m.G * m.A;
  m.watched.clear();
  m.constant.clear();
  m.zero.clear();
  for (Eigen::Index j = 0; j < m.G.rows(); ++j)
    (!rates.row(j).isZero(0.0) ? m.watched : m.G.row(j).isZero(0.0) ? m.zero : m.constant)
        .push_back(static_cast<int>(j));
  m.Gc.resize(static_cast<Eigen::Index>(m.constant.size()), m.A.cols());
  for (std::size_t c = 0; c < m.constant.size(); ++c) m.Gc.row(static_cast<Eigen::Index>(c)) = m.G.row(m.constant[c]);
  const auto nw = static_cast<Eigen::Index>(m.watched.size());
  m.Gw.resize(nw, m.A.cols());
  for (Eigen::Index w = 0; w < nw; ++w) m.Gw.row(w) = m.G.row(m.watched[static_cast<std::size_t>(w)]);
  m.GT = m.Gw * m.split.T;
  const auto Kz = m.split.T.leftCols(m.split.inert);
  m.inert_fit.compute(Kz.transpose() * Kz);
  m.GT.leftCols(m.split.inert).setZero();  // roots read no absolute angle (G K = 0 to roundoff)
  m.GT_abs = m.GT.cwiseAbs();
  m.Gw_abs = m.Gw.cwiseAbs();
  m.GT_Tinv_abs = m.GT_abs * m.split.Tinv.cwiseAbs();
  m.G_split_abs = (m.Gw * (m.split.T * m.split.Tinv - Eigen::MatrixXd::Identity(m.A.rows(), m.A.cols()))).cwiseAbs();
  const int ms = m.split.slow;
  m.cs_norm = (m.GT.leftCols(ms) * m.Ds.asDiagonal()).cwiseAbs().rowwise().sum();
  const auto nf = static_cast<Eigen::Index>(m.split.fast.size());
  m.fast_c.resize(nw, nf);
  for (Eigen::Index k = 0; k < nf; ++k) {
    const FastMode& f = m.split.fast[static_cast<std::size_t>(k)];
    // pair: 2 Re((G v) xi) = Re((c1 - i c2) xi), c1, c2 the columns (2 Re v, -2 Im v) in G T
    for (Eigen::Index w = 0; w < nw; ++w)
      m.fast_c(w, k) = f.pair() ? std::complex<double>(m.GT(w, f.index), -m.GT(w, f.index + 1))
                                : std::complex<double>(m.GT(w, f.index), 0.0);
  }
  m.fast_c_abs = m.fast_c.cwiseAbs();
  m.fast_rate.resize(nf);
  m.fast_angle.resize(nf);
  for (Eigen::Index k = 0; k < nf; ++k) {
    const std::complex<double> lambda = m.split.fast[static_cast<std::size_t>(k)].lambda;
    m.fast_rate(k) = std::sqrt(std::norm(lambda));
    m.fast_angle(k) = std::arg(lambda);
  }
}

void ExactIntegrator::refuse_substep(const Mode& m, double aim) const {
  const Eigen::EigenSolver<Eigen::MatrixXd> eigen(m.A, false);
  const double fastest = eigen.eigenvalues().cwiseAbs().maxCoeff();
  std::ostringstream os;
  os.precision(3);
  os << "exact integrator: the mode entered at t = " << t_ << " s needs sub-steps shorter than " << aim / kMaxPieces
     << " s (" << static_cast<long>(kMaxPieces) << " per output interval of " << aim << " s): its fast eigenvalues (up to " << fastest
     << " rad/s) could not be split off in closed form (" << m.split.fast_dims() << " of " << m.A.rows()
     << " states split), or one that was grows too fast; run it with integrator: cvode_bdf";
  throw IntegratorCannotServe(os.str());
}

bool ExactIntegrator::identify_slow(Mode& m, double aim) {
  const int ms = m.split.slow;
  const Eigen::MatrixXd& As = m.split.As;
  m.Ds = balance(As, m.split.roundoff);
  m.slow_norm = balanced_norm(As, m.Ds);
  // h divides the aim, short enough for the slow block's Taylor series: its
  // remainder growth(h) ||As^K|| h^K / K! (in the balanced norm) below 1e-20
  // (the norm alone would be far too cautious for a non-normal slow block)
  m.slow_growth.set(As, m.Ds);
  double pieces = ms > 0 ? taylor_pieces(m.slow_growth, aim) : 1.0;
  // A split-off mode that grows (a falling friction segment steeper than the
  // viscous part: Re lambda > 0) holds h Re lambda <= kMaxFastGrowth too: the
  // event search's roundoff tolerance over a sub-step follows the fast
  // amplitude at its end, |beta| e^{Re lambda h}, and at Re lambda h = 205
  // (2e4 1/s over a 0.01 s output interval) it lay 1e50 above a stick 6.8e-5 s
  // into the step, which went unseen until the growing state overflowed.
  double growth = 0.0;
  for (const FastMode& f : m.split.fast) growth = std::max(growth, f.lambda.real());
  if (growth > 0.0) pieces = std::max(pieces, std::ceil(growth * aim / kMaxFastGrowth));
  m.h = aim / pieces;
  return m.propagator.build(m.split, m.Q, m.h);
}

void ExactIntegrator::check_identified(const Mode& m) {
  const int M = exo_.size();
  Eigen::VectorXd w(n_ + p_), out(n_), g(roots_);
  w.head(n_) = z_.head(n_);
  w.tail(p_) = exo_.C() * z_.tail(M);
  system_.rhs(w.data(), w.data() + n_, out.data());
  if (roots_ > 0) system_.roots(w.data(), w.data() + n_, g.data());
  // Each row against the scale of its terms (|A_ij z_j| summed, and the
  // value), each z_j taken at least 1: the identification probes at unit
  // states, so that is its own resolution (a stiffness table's knot at
  // (0, 0) is crossed at x ~ 1e-17, where the law's roundoff from its other
  // knots, eps times 10 N m, is all there is of the value)
  const Eigen::VectorXd zf = z_.cwiseAbs().cwiseMax(1.0);
  // (a root's solved terms too: root_term_scales)
  auto check = [&](const Eigen::MatrixXd& rows, const Eigen::MatrixXd& terms, const Eigen::VectorXd& actual,
                   const char* what) {
    for (int i = 0; i < actual.size(); ++i) {
      const double mapped = rows.row(i).dot(z_);
      const double scale = rows.row(i).cwiseAbs().dot(zf) + std::abs(actual(i)) +
                           (terms.rows() > 0 ? 64.0 * kEps / kIdentificationTolerance * terms.row(i).dot(zf) : 0.0);
      if (!(std::abs(mapped - actual(i)) <= kIdentificationTolerance * scale + 1e-300)) {
        std::ostringstream os;
        os.precision(17);
        os << "exact integrator: the mode identified at t = " << t_ << " s does not reproduce its " << what << " "
           << i << " at the state (" << mapped << " against " << actual(i)
           << "): the system is not affine in this mode (an internal self-check: please report the model)";
        throw IntegratorCannotServe(os.str());
      }
    }
  };
  check(m.A.topRows(n_), Eigen::MatrixXd(), out, "right-hand side row");
  check(m.G.topRows(roots_), m.G_terms, g, "root function");
  // The quadratures' forms z^T Q z against the integrands.
  Eigen::VectorXd q(quads_);
  if (quads_ > 0) system_.quadrature(w.data(), w.data() + n_, q.data());
  for (int j = 0; j < quads_; ++j) {
    const Eigen::MatrixXd& Q = m.Q[static_cast<std::size_t>(j)];
    const double mapped = z_.dot(Q * z_), scale = zf.dot(Q.cwiseAbs() * zf) + std::abs(q(j));
    if (!(std::abs(mapped - q(j)) <= kIdentificationTolerance * scale + 1e-300)) {
      std::ostringstream os;
      os.precision(17);
      os << "exact integrator: the mode identified at t = " << t_ << " s does not reproduce its quadrature " << j
         << " at the state (" << mapped << " against " << q(j)
         << "): the integrand is not quadratic in this mode (an internal self-check: please report the model)";
      throw IntegratorCannotServe(os.str());
    }
  }
}

void ExactIntegrator::modal_state() {
  const Mode& m = *mode_;
  gz_.head(m.GT.rows()).noalias() = m.GT.lazyProduct(x_);
  const auto nf = m.split.fast.size();  // (xi_ holds N: no allocation per mode)
  for (std::size_t k = 0; k < nf; ++k) {
    const FastMode& f = m.split.fast[k];
    xi_(static_cast<Eigen::Index>(k)) = {x_(f.index), f.pair() ? x_(f.index + 1) : 0.0};
  }
}

const EventFunction& ExactIntegrator::event_function(std::size_t w, double step) {
  const Mode& m = *mode_;
  const int ms = m.split.slow;
  if (!slow_built_) {
    slow_taylor_over(step);
    slow_built_ = true;
    // |T x|: z without its inert part K c0 (the absolute angles of freely
    // turning groups, which no watched value reads), for the roundoff of
    // the values the pipeline reads and of x itself (taken from z at the
    // mode's entry). (With |z| itself the band grew with the angles turned:
    // 8.5e-4 N m for a shaft spring at 3e5 rad, a break-away seen an output
    // sample late, and a reserve 2e-10 below 0 at 955 rpm "at zero" restart
    // after restart: an event storm; a review.)
    modal_z_scale();
  }
  const auto row = static_cast<Eigen::Index>(w);
  EventFunction& f = polys_[static_cast<std::size_t>(m.watched[w])];
  f = event_polynomial(m.GT.row(row).head(ms), slow_taylor_);
  const auto nf = static_cast<Eigen::Index>(m.split.fast.size());
  FastTerm* terms = fast_terms_.data() + static_cast<std::size_t>(m.watched[w]) * static_cast<std::size_t>(nf);
  double fast_sum = 0.0, fast_scale = 0.0;
  for (Eigen::Index k = 0; k < nf; ++k) {
    terms[k] = FastTerm(m.fast_c(row, k) * xi_(k), m.split.fast[static_cast<std::size_t>(k)].lambda, m.fast_rate(k),
                        m.fast_angle(k));
    fast_sum += terms[k].beta.real();
    fast_scale += terms[k].amplitude * std::exp(std::max(terms[k].lambda.real(), 0.0) * step);
  }
  f.fast = terms;
  f.nfast = static_cast<int>(nf);
  // the value at 0 is G z itself; the split's roundoff scales with its condition
  f.a[0] = gz_(row) - fast_sum;
  f.roundoff += 64.0 * kEps * m.split.condition * (fast_scale + std::abs(gz_(row)));
  // ... and at least the roundoff of g as the pipeline reads it, from z: a
  // relative velocity of 4e-3 rad/s between two shafts turning at 8 rad/s
  // that touches 0 (a clutch beside a spring under a rising load: it dips
  // 1e-16 below 0 in the modal state, an offset and an amplitude that agree
  // to the split's roundoff) is 0 to 2e-13 there; taken for a crossing, the
  // clutch stuck and broke away again 1e-9 s later at every touch, 75 times
  // in a second (a new-user hunt; CVODE, watching 1e-3 atol past 0, logged none)
  // And x holds z only to the split's accuracy: entering a mode, x =
  // T^-1 (z - K c0) takes each watched value as it is in z to |G (T T^-1 -
  // I)| |z - K c0| (T^-1 is T's inverse to 1e-10 of its condition, not to
  // eps) plus the rounding of z - K c0, eps |G T| |T^-1| |z|. Twin steering
  // columns in one mode: a flank distance 6.5e-14 rad in z was -4.5e-12 in
  // x after the twin's separation, taken as crossed at the restart; lost,
  // the column pulled through its stop (a new-user hunt).
  f.roundoff = std::max(f.roundoff, 64.0 * kEps * (m.Gw_abs.row(row).dot(ztx_) + m.GT_Tinv_abs.row(row).dot(ztx_)) +
                                        m.G_split_abs.row(row).dot(ztx_));
  return f;
}

void ExactIntegrator::modal_z_scale() {
  ztx_.noalias() = mode_->split.T * x_;
  ztx_ = ztx_.cwiseAbs();
}

// The rows (in z) and directions of the roots found at this root stop, and
// of those watched in one direction that had not crossed in it (their sign
// at the stop the other one), for the restart that follows it at the same
// instant (reported_at_stop, uncrossed_at_stop).
void ExactIntegrator::record_reported() {
  const Mode& m = *mode_;
  reported_count_ = uncrossed_count_ = 0;
  reported_time_ = t_;
  for (int j = 0; j < roots_; ++j) {
    const auto r = static_cast<std::size_t>(j);
    const int d = directions_[r];
    if (roots_found_[r] != 0) {
      reported_rows_.row(reported_count_) = m.G.row(j);
      reported_dirs_[static_cast<std::size_t>(reported_count_)] = d;
      ++reported_count_;
    } else if ((d == 1 || d == -1) && signs_[r] == -d) {
      uncrossed_rows_.row(uncrossed_count_) = m.G.row(j);
      uncrossed_dirs_[static_cast<std::size_t>(uncrossed_count_)] = d;
      ++uncrossed_count_;
    }
  }
}

// Whether `row` (watched in direction d) is, to roundoff, one of the roots
// reported at the stop this restart follows (same instant).
bool ExactIntegrator::reported_at_stop(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& row, int d) const {
  return t_ == reported_time_ && among_rows(reported_rows_, reported_dirs_, reported_count_, row, d);
}

// Whether `row` (watched in direction d) is, to roundoff, a root watched in
// that direction at the stop this restart follows (same instant) that had
// not crossed there.
bool ExactIntegrator::uncrossed_at_stop(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& row, int d) const {
  return t_ == reported_time_ && among_rows(uncrossed_rows_, uncrossed_dirs_, uncrossed_count_, row, d);
}

// Whether `row` reads a body (its angle or velocity slot: y = (q_j, w_j) per
// body j) that a root reported at the stop this restart follows reads (same
// instant); the exosystem's states, which every row may read, do not count.
bool ExactIntegrator::reads_reported_bodies(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& row) const {
  if (t_ != reported_time_ || reported_rows_.cols() != row.size()) return false;
  for (Eigen::Index k = 0; k < reported_count_; ++k)
    for (int j = 0; 2 * j + 1 < n_; ++j)
      if ((row(2 * j) != 0.0 || row(2 * j + 1) != 0.0) &&
          (reported_rows_(k, 2 * j) != 0.0 || reported_rows_(k, 2 * j + 1) != 0.0))
        return true;
  return false;
}

void ExactIntegrator::restart_signs() {
  const Mode& m = *mode_;
  const auto F = static_cast<std::size_t>(m.G.rows());
  polys_.resize(F);
  fast_terms_.resize(F * m.split.fast.size());
  signs_.resize(F);
  leaving_.assign(F, 0);  // (no allocation after the first reset of this size)
  // constant rows: their sign (one product: a row of the column-major G is strided)
  gconst_.head(m.Gc.rows()).noalias() = m.Gc.lazyProduct(z_);
  for (std::size_t c = 0; c < m.constant.size(); ++c)
    signs_[static_cast<std::size_t>(m.constant[c])] = sign_of(gconst_(static_cast<Eigen::Index>(c)));
  for (int j : m.zero) signs_[static_cast<std::size_t>(j)] = 0;
  if (m.watched.empty()) return;
  modal_state();
  slow_built_ = false;
  // A watched value's scale: its terms in x and in z, the larger. In x alone
  // it can be roundoff: an oscillation's modal pair at the phase where the
  // function is 0 has its other coordinate in the component the row does
  // not read (a contact's flank distance at its parting, 3.5e-16 against
  // 0.2 in z), and a value 2.3e-16 past 0 passed for one far from it,
  // whose crossing, 5e-16 s before the restart, was then taken as made.
  xabs_ = x_.cwiseAbs();  // (sized N and F at construction: no allocation per reset)
  gscale_.head(m.GT_abs.rows()).noalias() = m.GT_abs * xabs_;
  modal_z_scale();
  gzscale_.head(m.Gw_abs.rows()).noalias() = m.Gw_abs * ztx_;
  gscale_.head(m.GT_abs.rows()) = gscale_.head(m.GT_abs.rows()).cwiseMax(gzscale_.head(m.Gw_abs.rows()));
  for (std::size_t w = 0; w < m.watched.size(); ++w) {
    const auto row = static_cast<Eigen::Index>(w);
    const double g = gz_(row);
    // far from zero: its sign, the same in x as in z (the tolerance is ~1e-13
    // of the row's scale at most, the split's roundoff cond(T) eps <= 2e-10 of it)
    auto& sign = signs_[static_cast<std::size_t>(m.watched[w])];
    if (std::abs(g) > 1e-6 * gscale_(row)) {
      sign = sign_of(g);
    } else {  // near 0: the sign it leaves with, beyond the function's roundoff (leaving_sign)
      const EventFunction& f = event_function(w, m.h);
      const int leaves = exact::leaving_sign(f);
      leaving_[static_cast<std::size_t>(m.watched[w])] = leaves;
      // At 0 within its roundoff and leaving in the direction watched, its
      // crossing is still due: a mode the pipeline has just chosen watches
      // the crossings that would end it, so its own roots leave 0 the other
      // way, and one that leaves this way belongs to another element a few
      // roundoff units of time from its own event (a second spring 1e-15 s
      // from its flank while the first one strikes; taken as crossed, it was
      // lost and the body flew through its stop: a new-user hunt). Its sign
      // before is then the other one, so the search reports it at t_ or as
      // soon as it is beyond roundoff. (A value beyond roundoff keeps its
      // sign: a knot the integrator crept across while the motion leaves it
      // the other way stays crossed, EventPipeline::cross_knots_from_rest.)
      // Not a root reported at the stop this restart follows, though: the
      // pipeline, reading z, chose a mode that watches it again, and x can
      // disagree with z to the split's roundoff on which way it leaves (a
      // bearing's velocity at rest on a trailer 10 km out, or a clutch's
      // reserve 2e-10 N m below 0 at 955 rpm, re-reported at every restart
      // until an event storm: a review).
      // Nor one that reads a body of a root reported there: the element
      // that just broke away reads its velocity, at 0 with an acceleration
      // of roundoff, which x may take as leaving towards a stick (a trailer
      // 20 km out: a stick and a break-away logged at the break-away's
      // instant; a review). Another element's crossing due now reads other
      // bodies.
      // And one that had not crossed at that stop (its sign there the other
      // one, same row and direction), even beyond its roundoff: the pipeline
      // reads z, whose absolute angles the new mode's x = T^-1 (z - K c0)
      // does not take in exactly (the inert offset K c0 rounded, G K = 0 to
      // roundoff), so a value the stop left short of 0 can come back past it
      // by eps |G| |q|, beyond the roundoff of x (which leaves the inert part
      // out). Taken as crossed, it was lost: twin gear trains under a drive
      // of 5 N m, a shaft's separation 4.7e-15 s after its twin's (in x)
      // read 1.2e-14 rad past its flank at the restart (band 6.5e-16, the
      // rounded offset 1.1e-14 of it); at 3 N m a bearing's reserve 2.4e-11
      // N m short of 0 at its twin's break-away read -1.2e-10 (band 1.1e-11),
      // its break-away seen only at the next output instant, 2.8e-5 s late.
      const bool at_zero = std::abs(f.value(0.0)) <= f.tol();
      const int d = directions_[static_cast<std::size_t>(m.watched[w])];
      const bool due = (at_zero && !reported_at_stop(m.Gw.row(row), d) && !reads_reported_bodies(m.Gw.row(row))) ||
                       uncrossed_at_stop(m.Gw.row(row), d);
      sign = leaves != 0 && leaves == d && due ? -leaves : leaves;
    }
  }
}

// The slow block's Taylor data of the state over s. Data built from this
// very state in this mode over at least s are cut to s, not built again: a
// restart builds them over the whole sub-step for the roots at 0, and the
// first search after it, over the shorter step to the next output, starts
// from the same state (its v_k are the same; bit for bit the same data).
void ExactIntegrator::slow_taylor_over(double s) {
  const Mode& m = *mode_;
  const double growth = m.slow_growth.over(s);
  if (taylor_mode_ == m.id && slow_taylor_.h() >= s && slow_taylor_.starts_at(x_.head(m.split.slow)))
    slow_taylor_.shorten(growth, s);
  else if (bound_current_)  // (its first terms are the cheap bound's, of this state)
    slow_taylor_.build_from_terms(m.split.As, m.Ds, growth, bound_v_.topLeftCorner(m.split.slow, kBoundOrder + 1), s);
  else
    slow_taylor_.build(m.split.As, m.Ds, growth, x_.head(m.split.slow), s);
  taylor_mode_ = m.id;
}

void ExactIntegrator::propagate(double s) {
  ++stats_.substeps;
  if (s <= 0.0) return;
  Mode& m = *mode_;
  z_current_ = false;
  before_x_ = x_;
  before_q_ = q_;
  before_t_ = t_;
  if (s == m.h) {
    m.propagator.step(x_, q_);
  } else {
    // the slow Taylor data of this state over at least s (the event search's, when it built one)
    if (!slow_built_ || slow_taylor_.h() < s) slow_taylor_over(s);
    m.propagator.partial(x_, q_, s, slow_taylor_);
  }
  bound_current_ = false;  // (after the partial step: its Taylor data may start from the bound's terms)
  slow_built_ = false;
  clear_left_ = std::max(clear_left_ - s, 0.0);
  t_ += s;
  if (!x_.allFinite()) {  // overflowed: back to where the sub-step began (advance fails)
    overflow_at_ = t_;
    x_ = before_x_;
    q_ = before_q_;
    t_ = before_t_;
  }
}

// The cheap bound's data (first_crossing_on), in two parts: what the state
// gives (bound_state: the exact slow terms c v_k, v_k = As^k xs, the norm
// of v_P for the remainder, |xi_k|) and what the span gives (bound_span).
// A look-ahead that fails falls back to the sub-step from the same state:
// only the second part is computed again.
// Slow part: Taylor's formula to order kBoundOrder - 1 with exact terms
// c v_k s^k / k! and Lagrange's remainder in the balanced norm,
//   ||c Ds||_1 growth(s) ||Ds^-1 v_P||_inf s^P / P!.
// Fast part: per eigenvalue |xi_k| e^{max(sigma, 0) s} and min(|lambda| s, 2).
void ExactIntegrator::bound_state() {
  const Mode& m = *mode_;
  const int ms = m.split.slow;
  const auto nw = static_cast<Eigen::Index>(m.watched.size());
  auto V = bound_v_.topLeftCorner(ms, kBoundOrder + 1);
  V.col(0) = x_.head(ms);
  for (int k = 1; k <= kBoundOrder; ++k) V.col(k).noalias() = m.split.As.lazyProduct(V.col(k - 1));
  bound_terms_.topRows(nw).noalias() = m.GT.leftCols(ms).lazyProduct(V.middleCols(1, kBoundOrder - 1));
  bound_.last_term = V.col(kBoundOrder).cwiseQuotient(m.Ds).lpNorm<Eigen::Infinity>();
  bound_.xs_scale = V.col(0).cwiseQuotient(m.Ds).lpNorm<Eigen::Infinity>();
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(m.split.fast.size()); ++k) fast_abs_(k) = std::sqrt(std::norm(xi_(k)));
  bound_current_ = true;
}

void ExactIntegrator::bound_span(double step) {
  const Mode& m = *mode_;
  bound_.powers[0] = 1.0;
  for (std::size_t k = 1; k < kBoundOrder; ++k) bound_.powers[k] = bound_.powers[k - 1] * step / static_cast<double>(k);
  bound_.rest = m.slow_growth.over(step) * bound_.last_term * bound_.powers[kBoundOrder - 1] * step / kBoundOrder;
  bound_.roundings = 1.0;
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(m.split.fast.size()); ++k) {
    const std::complex<double> lambda = m.split.fast[static_cast<std::size_t>(k)].lambda;
    const double grow = lambda.real() > 0.0 ? std::exp(lambda.real() * step) : 1.0;
    fast_change_(k) = fast_abs_(k) * grow;
    fast_reach_(k) = std::min(m.fast_rate(k) * step, 2.0);
  }
}

// Whether watched function w (value g now) keeps its sign on the sub-step:
// its range there, from each exact slow term t_k s^k / k! (between 0 and its
// value at the step's end: one-sided, so a function moving away from zero is
// ruled out however close it starts) and each fast term Re(beta e^{lambda s}),
// whose change lies within |beta| min(|lambda| s, 2) and whose value within
// |beta| e^{max(sigma, 0) s} (the tighter of the two, each way); the slow
// remainder and the roundoff both ways.
bool ExactIntegrator::ruled_out(Eigen::Index w, double g) const {
  const Mode& m = *mode_;
  const double cond = 64.0 * kEps * m.split.condition * bound_.roundings;
  double both = m.cs_norm(w) * (bound_.rest + 64.0 * kEps * bound_.roundings * bound_.xs_scale), up = 0.0, down = 0.0;
  for (std::size_t k = 1; k < kBoundOrder; ++k) {
    const double t = bound_terms_(w, static_cast<Eigen::Index>(k) - 1) * bound_.powers[k];
    (t > 0.0 ? up : down) += t;
  }
  const auto nf = static_cast<Eigen::Index>(m.split.fast.size());
  double change = 0.0;  // the fast terms' changes, both ways (enough for most)
  for (Eigen::Index k = 0; k < nf; ++k) {
    const double amp = m.fast_c_abs(w, k) * fast_change_(k);
    change += amp * fast_reach_(k);
    both += amp * cond;
  }
  if (g + down - both - change > 0.0 || g + up + both + change < 0.0) return true;
  for (Eigen::Index k = 0; k < nf; ++k) {
    const double amp = m.fast_c_abs(w, k) * fast_change_(k), now = (m.fast_c(w, k) * xi_(k)).real();
    down += std::max(-amp - now, -amp * fast_reach_(k));
    up += std::min(amp - now, amp * fast_reach_(k));
  }
  return nf > 0 && (g + down - both > 0.0 || g + up + both < 0.0);
}

bool ExactIntegrator::all_ruled_out(double span) {
  const Mode& m = *mode_;
  bound_span(span);
  // The state crossing the span is rounded at each of its sub-steps, the
  // bound's roundoff margin sized for one: it takes all of them in (a
  // function that stayed just beyond one step's margin could otherwise drift
  // across 0 by rounding alone and be found only at the next search; a review).
  bound_.roundings = std::ceil(span / m.h);
  const auto nw = static_cast<Eigen::Index>(m.watched.size());
  for (Eigen::Index w = 0; w < nw; ++w) {
    const int sign = signs_[static_cast<std::size_t>(m.watched[static_cast<std::size_t>(w)])];
    if (!ruled_out(w, gz_(w)) || (sign != 0 && sign != sign_of(gz_(w)))) return false;
  }
  for (Eigen::Index w = 0; w < nw; ++w) signs_[static_cast<std::size_t>(m.watched[static_cast<std::size_t>(w)])] = sign_of(gz_(w));
  return true;
}

// Event search: a cheap bound first, the full search for the rest. In a
// quiet stretch (the last search ruled every function out) the bound is
// tried over span_ sub-steps first: where it rules them all out, the
// sub-steps within need no search at all (advance), and the next try
// looks twice as far; where it does not, half as far. The bound is as
// rigorous over any span (Lagrange's remainder with the growth bound over
// it, the fast terms' range), so nothing it passes can hide a crossing;
// and the state is propagated by the same sub-steps either way.
double ExactIntegrator::first_crossing_on(double step, double resolution) {
  const Mode& m = *mode_;
  const auto F = static_cast<std::size_t>(m.G.rows());
  double best = INFINITY;
  before_ = signs_;
  searched_.assign(F, 0);  // capacity kept: no allocation after the first call
  std::fill(cross_s_.begin(), cross_s_.end(), INFINITY);
  if (m.watched.empty()) return best;
  modal_state();
  slow_built_ = false;
  bound_state();
  const double span = std::min(span_ * m.h, next_break_ - t_);
  if (last_clear_ && span > step) {
    if (all_ruled_out(span)) {
      clear_left_ = span;
      span_ = std::min(2.0 * span_, kMaxLookAhead);
      return best;
    }
    span_ = std::max(0.5 * span_, 2.0);
  }
  bound_span(step);
  last_clear_ = true;
  for (Eigen::Index w = 0; w < static_cast<Eigen::Index>(m.watched.size()); ++w) {
    const auto j = static_cast<std::size_t>(m.watched[static_cast<std::size_t>(w)]);
    const double g = gz_(w);
    if (ruled_out(w, g) && (signs_[j] == 0 || signs_[j] == sign_of(g))) {
      signs_[j] = sign_of(g);
      continue;
    }
    ++stats_.searches;
    last_clear_ = false;
    searched_[j] = 1;
    const EventFunction& f = event_function(static_cast<std::size_t>(w), step);
    if (auto c = first_crossing(f, directions_[j], signs_[j], resolution, &stats_.search)) {
      cross_s_[j] = c->s;
      cross_dir_[j] = c->direction;
      best = std::min(best, c->s);
    }
  }
  return best;
}

// The pipeline reads the state in z, where a root located in the modal
// coordinates x can still have its old sign: z = T x differs from the x the
// search saw by ~cond(T) eps |G| |z| (8e-12 N m in a stuck bearing's reserve
// on a gear train whose shafts have turned 30 rad), and a break-away the
// selection then reads as not yet due is found again 2e-13 s later, over and
// over (an event storm). So the state returned has each found root's new sign
// in z too: it moves on by the time the rate G A z needs to cross the rest
// (twice over), a few roundoff units of time, never beyond `end`.
void ExactIntegrator::settle_roots(double end, double resolution) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    sync_z();
    double wait = 0.0;
    bool rates = false;  // z' = A z, formed once an attempt when a root needs it (into zrate_: no allocation)
    for (int j = 0; j < roots_; ++j) {
      const auto r = static_cast<std::size_t>(j);
      if (roots_found_[r] == 0) continue;
      const auto row = mode_->G.row(j);
      const double g = row.dot(z_);
      if (sign_of(g) == roots_found_[r]) continue;
      if (!rates) {
        zrate_.noalias() = mode_->A * z_;
        rates = true;
      }
      const double rate = row.dot(zrate_);
      if (sign_of(rate) != roots_found_[r]) continue;  // not moving across: nothing to wait for
      wait = std::max(wait, 2.0 * std::abs(g / rate) + resolution);
    }
    if (wait == 0.0 || !(t_ + wait < end)) return;
    propagate(wait);
    ++stats_.settles;
  }
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
      EventFunction p = polys_[j];
      p.h = best;
      signs_[j] = before_[j];
      int approach = 0;
      first_crossing(p, kWatchNone, signs_[j], resolution, nullptr, &approach);
      // At 0 within its roundoff at the stop, reached from the other side
      // and leaving it the way watched (its sign there is the one it leaves
      // with): it crosses at this stop, to roundoff, and is reported with
      // it; else its crossing a few roundoff units of time later was taken
      // as made (twin racks on stiff teeth, 3.6e-15 s apart: one pressed
      // through its freeplay; a hunt). The side it comes from is the sign
      // it had last before the stop, not at the sub-step's start: a contact
      // read 1.9e-15 rad short of its flank at the restart after it (its
      // band 1.6e-15) starts the sub-step on the far side, and its twin's
      // separation 3e-13 s before its own then took it as crossed; it
      // pressed through its freeplay for 0.017 s (twin gear trains at 12.45 N m).
      const int d = directions_[j];
      if (d != 0 && d != kWatchNone && approach == -d && signs_[j] == d && std::abs(p.value(best)) <= p.tol()) {
        cross_s_[j] = best;
        cross_dir_[j] = d;
        if (static_cast<int>(j) < roots_) {
          roots_found_[j] = d;
          model_root = true;
        }
      }
    }
  }
  const double t_start = t_;
  propagate(best);
  t_ = best == step && last ? end : t_start + best;
  // The settle moves a few roundoff units of time past the roots found, and
  // a crossing it passes is reported at this stop too: taken as made at the
  // restart (beyond roundoff on its new side there), it was lost. Twin
  // subsystems whose contacts came 3.6e-15 s apart left one rack pressing
  // 114 times through its freeplay, energy balanced, exit 0 (a new-user hunt).
  // Passed is read in z too: a crossing located within a resolution beyond
  // the settle's reach (its bracket's right end: up to a resolution past the
  // root) whose value in z has its new sign already is passed. Twin Stribeck
  // bearings: one spindle's arrival at rest was located 8.9e-16 s after its
  // twin's, the settle moved 4.5e-16 s, and the reach fell short of it by
  // the rounding of t while z read the spindle at -5e-15 rad/s: taken as
  // crossed at the restart (its scale there is its own roundoff), its stick
  // was lost and the spindle turned back 4.4e-3 rad with its friction
  // driving it (a hunt).
  double reach = best + resolution;
  for (int round = 0; model_root && round < 8; ++round) {
    settle_roots(end, resolution);
    reach = std::max(reach, t_ - t_start + resolution);
    bool more = false, synced = false;
    for (std::size_t j = 0; j < static_cast<std::size_t>(roots_); ++j) {
      if (roots_found_[j] != 0 || !(cross_s_[j] <= reach + resolution)) continue;
      if (cross_s_[j] > reach && !synced) {  // (z only for such a one: a product)
        sync_z();
        synced = true;
      }
      if (cross_s_[j] <= reach || sign_of(mode_->G.row(static_cast<Eigen::Index>(j)).dot(z_)) == cross_dir_[j]) {
        signs_[j] = roots_found_[j] = cross_dir_[j];
        more = true;
      }
    }
    if (!more) break;
  }
  bool switched = false;
  for (std::size_t j = static_cast<std::size_t>(roots_); j < F; ++j)
    if (cross_s_[j] <= reach) {
      exo_.cross_kink(static_cast<int>(j) - roots_, cross_dir_[j]);
      ++stats_.kinks;
      switched = true;
    }
  if (switched) {
    sync_z();
    select_mode();
    fast_terms_.resize(static_cast<std::size_t>(mode_->G.rows()) * mode_->split.fast.size());
  }
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
    if (!std::isnan(overflow_at_)) {  // a sub-step overflowed: the last finite state, t_ (propagate)
      last_error_ = "exact integrator: the state is not finite at t = " + shortest(overflow_at_) +
                    " s (stopped at the last finite state)";
      outcome = Outcome::failure;
    }
    t = t_;
    sync_z();
    for (int i = 0; i < n_; ++i) y[i] = z_(i);
    return outcome;
  };
  for (;;) {
    if (!std::isnan(overflow_at_)) return finish(Outcome::failure);
    if (!x_.allFinite()) {
      last_error_ = "exact integrator: the state is not finite at t = " + shortest(t_) + " s";
      return finish(Outcome::failure);
    }
    if (at_or_before(target, t_)) {
      if (same_time(target, t_)) t_ = target;
      return finish(stop_first ? Outcome::stop_time : Outcome::reached);
    }
    if (at_or_before(next_break_, t_)) {  // a breakpoint the pipeline did not stop at
      t_ = std::max(t_, next_break_);
      sync_z();
      read_signals();
      continue;
    }
    const double end = std::min(target, next_break_);
    const bool last = end - t_ <= mode_->h || same_time(t_ + mode_->h, end);
    const double step = last && !same_time(t_ + mode_->h, end) ? end - t_ : mode_->h;
    const double resolution = 4.0 * kEps * (std::abs(t_) + step);
    const double best = step <= clear_left_ ? INFINITY : first_crossing_on(step, resolution);
    if (best == INFINITY) {
      propagate(step);
      if (last) t_ = end;
      continue;
    }
    if (stop_at_crossing(best, step, last, end, resolution)) {
      record_reported();
      return finish(Outcome::root);
    }
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
