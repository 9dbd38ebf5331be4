#include "solvers/exact/modal_split.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <Eigen/Eigenvalues>

#include "solvers/exact/event_search.hpp"

namespace luztar::exact {

namespace {

// Checks of a split (see the header): beyond these, everything stays slow.
constexpr double kMaxCondition = 1e6;      // ||T|| ||T^-1||
constexpr double kInverseTolerance = 1e-10;  // max |T^-1 T - I|, relative to the condition
constexpr double kBlockTolerance = 1e-10;    // max |T^-1 A T - diag|, relative to ||A|| and the condition
constexpr double kClusterTolerance = 1e-6;   // eigenvalues this close (relative): one cluster
constexpr double kMinBiorthogonality = 1e-8;  // smallest singular value of U^T V in a cluster (relative)
constexpr double kSimilarityRoundoff = 1e-14;  // ModalSplit::roundoff, relative to max |A| and the condition
constexpr double kMaxClusterRoundoff = 1e-11;  // cluster_roundoff, relative to the state

// A Y, each entry a compensated dot product (Ogita, Rump and Oishi's Dot2:
// as accurate as a product in twice the working precision, rounded once).
// The products' errors are exact by fma; fma(a, b, 0) is a rounded product
// the compiler cannot contract into the sum.
Eigen::MatrixXd compensated_product(const Eigen::MatrixXd& A, const Eigen::MatrixXd& Y) {
  Eigen::MatrixXd P(A.rows(), Y.cols());
  for (Eigen::Index k = 0; k < Y.cols(); ++k)
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      double sum = 0.0, error = 0.0;
      for (Eigen::Index j = 0; j < A.cols(); ++j) {
        const double p = std::fma(A(i, j), Y(j, k), 0.0);
        const double product_error = std::fma(A(i, j), Y(j, k), -p);
        const double t = sum + p, z = t - sum;
        error += product_error + ((sum - (t - z)) + (p - z));
        sum = t;
      }
      P(i, k) = sum + error;
    }
  return P;
}

// An orthonormal basis of range(S) (a subspace containing K) whose first
// columns are K: K, then range(S) less K's components (rank `dims` in all).
Eigen::MatrixXd basis_with(const Eigen::MatrixXd& K, const Eigen::MatrixXd& S, Eigen::Index dims) {
  const Eigen::Index r = K.cols();
  Eigen::MatrixXd Y(S.rows(), dims);
  Y.leftCols(r) = K;
  if (dims > r) {
    const Eigen::MatrixXd rest = S - K * (K.transpose() * S);
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(rest);
    const Eigen::MatrixXd Q = qr.householderQ();
    Y.rightCols(dims - r) = Q.leftCols(dims - r);
  }
  return Y;
}

// The inert columns of the slow block: exactly zero (A K = 0 to roundoff).
void clear_inert(ModalSplit& s) { s.As.leftCols(s.inert).setZero(); }

ModalSplit all_slow(const Eigen::MatrixXd& A, const Eigen::MatrixXd& K) {
  ModalSplit s;
  const Eigen::Index N = A.rows();
  s.slow = static_cast<int>(N);
  s.inert = static_cast<int>(K.cols());
  s.T = basis_with(K, Eigen::MatrixXd::Identity(N, N), N);
  s.Tinv = s.T.transpose();
  s.As = s.Tinv * A * s.T;
  s.roundoff = kSimilarityRoundoff * A.cwiseAbs().maxCoeff();
  clear_inert(s);
  return s;
}

bool is_pair(std::complex<double> l) { return l.imag() != 0.0; }

// The representatives (Im >= 0) of the eigenvalues beyond radius, by index.
std::vector<int> fast_representatives(const Eigen::VectorXcd& lambda, double radius) {
  std::vector<int> out;
  for (int i = 0; i < lambda.size(); ++i)
    if (std::abs(lambda(i)) > radius && lambda(i).imag() >= 0.0) out.push_back(i);
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    return std::abs(lambda(a)) < std::abs(lambda(b)) ||
           (std::abs(lambda(a)) == std::abs(lambda(b)) && lambda(a).imag() < lambda(b).imag());
  });
  return out;
}

bool close(std::complex<double> a, std::complex<double> b) {
  return std::abs(a - b) <= kClusterTolerance * std::max(std::abs(a), std::abs(b));
}

// Marks the left solver's eigenvalue matching l as used (a cluster taken from
// null spaces uses no left eigenvector of the solver).
void used_right_pair(const Eigen::VectorXcd& ll, std::vector<char>& used, std::complex<double> l) {
  int best = -1;
  for (int j = 0; j < ll.size(); ++j)
    if (!used[static_cast<std::size_t>(j)] && ll(j).imag() >= 0.0 && close(ll(j), l) &&
        (best < 0 || std::abs(ll(j) - l) < std::abs(ll(best) - l)))
      best = j;
  if (best >= 0) used[static_cast<std::size_t>(best)] = 1;
}

// Left eigenvectors (as rows u^T, u^T A = lambda u^T) for the right ones in
// `cluster` (indices into the right solver), bi-orthonormalised: U V = I.
// False when the left solver has no matching set or the cluster is defective.
bool left_vectors(const Eigen::VectorXcd& lr, const Eigen::MatrixXcd& VR, const Eigen::VectorXcd& ll,
                  const Eigen::MatrixXcd& VL, const std::vector<int>& cluster, std::vector<char>& used,
                  Eigen::MatrixXcd& U) {
  const auto r = static_cast<Eigen::Index>(cluster.size());
  U.resize(r, VR.rows());
  for (Eigen::Index c = 0; c < r; ++c) {
    const std::complex<double> l = lr(cluster[static_cast<std::size_t>(c)]);
    int best = -1;
    for (int j = 0; j < ll.size(); ++j)
      if (!used[static_cast<std::size_t>(j)] && is_pair(ll(j)) == is_pair(l) && ll(j).imag() >= 0.0 && close(ll(j), l) &&
          (best < 0 || std::abs(ll(j) - l) < std::abs(ll(best) - l)))
        best = j;
    if (best < 0) return false;
    used[static_cast<std::size_t>(best)] = 1;
    U.row(c) = VL.col(best).transpose();
  }
  Eigen::MatrixXcd V(VR.rows(), r);
  for (Eigen::Index c = 0; c < r; ++c) V.col(c) = VR.col(cluster[static_cast<std::size_t>(c)]);
  const Eigen::MatrixXcd M = U * V;
  const Eigen::JacobiSVD<Eigen::MatrixXcd> svd(M);
  const auto& sv = svd.singularValues();
  if (!(sv(r - 1) > kMinBiorthogonality * sv(0) * U.norm() * V.norm() / static_cast<double>(r))) return false;
  U = M.fullPivLu().solve(U);
  return true;
}

// The left eigenvector (as a row u^T, u^T A = lambda u^T, u^T v = 1) of an
// isolated eigenvalue lambda with right eigenvector v, by one step of inverse
// iteration: (A - lambda I)^T u = conj(v), whose part along the wanted u is
// v^T conj(v) = |v|^2 > 0 (the left eigenvectors' coefficients of a vector b
// are v_k^T b), solved by LU with partial pivoting. lambda is an eigenvalue of A to roundoff, so the solution is the
// left eigenvector to the accuracy an eigen-solver of A^T has (eps ||A|| over
// the eigenvalue's gap to the others), for one LU instead of a second Schur
// decomposition of A. False when no finite vector results.
bool isolated_left_vector(const Eigen::MatrixXd& A, std::complex<double> lambda, const Eigen::VectorXcd& v,
                          Eigen::MatrixXcd& U) {
  const Eigen::Index N = A.rows();
  const Eigen::MatrixXcd At = A.transpose().cast<std::complex<double>>();
  // (an exactly singular A - lambda I, a structural zero pivot: lambda moved
  // by a few ulp, which moves u by as much relative to the gap)
  for (double shift : {0.0, 16.0 * std::numeric_limits<double>::epsilon()}) {
    const std::complex<double> l = lambda * (1.0 + shift);
    const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(At - l * Eigen::MatrixXcd::Identity(N, N));
    // (not v itself: v^T v is 0 for an undamped pair's (1, +-i); a review)
    const Eigen::VectorXcd u = lu.solve(v.conjugate());
    const std::complex<double> uv = u.cwiseProduct(v).sum();  // u^T v
    if (!u.allFinite() || !(std::abs(uv) > 0.0) || !std::isfinite(std::abs(uv))) continue;
    U = (u / uv).transpose();
    return U.allFinite();
  }
  return false;
}

// A cluster of one repeated eigenvalue l (multiplicity r, semisimple: a
// symmetric design's identical branches): right and left eigenvectors from the
// null spaces of A - l I and its transpose (an eigen-solver's own vectors for a
// repeated eigenvalue may be nearly parallel), bi-orthonormalised. False when
// the null space does not have dimension r (a Jordan block) or is ill-conditioned.
bool repeated_vectors(const Eigen::MatrixXd& A, std::complex<double> l, Eigen::Index r, Eigen::MatrixXcd& V,
                      Eigen::MatrixXcd& U) {
  const Eigen::Index N = A.rows();
  const Eigen::MatrixXcd M = A.cast<std::complex<double>>() - l * Eigen::MatrixXcd::Identity(N, N);
  const Eigen::JacobiSVD<Eigen::MatrixXcd> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const auto& sv = svd.singularValues();
  if (!(sv(N - r) <= 1e-10 * sv(0)) || !(sv(N - r - 1) > 1e-6 * sv(0))) return false;
  V = svd.matrixV().rightCols(r);
  U = svd.matrixU().rightCols(r).conjugate().transpose();  // rows u^T with u^T (A - l I) = 0
  if (l.imag() == 0.0) {  // a real eigenvalue: real vectors (the null spaces are real; pick a real basis)
    const Eigen::JacobiSVD<Eigen::MatrixXd> real(A - l.real() * Eigen::MatrixXd::Identity(N, N),
                                                 Eigen::ComputeFullU | Eigen::ComputeFullV);
    V = real.matrixV().rightCols(r).cast<std::complex<double>>();
    U = real.matrixU().rightCols(r).transpose().cast<std::complex<double>>();
  }
  const Eigen::MatrixXcd B = U * V;
  const Eigen::JacobiSVD<Eigen::MatrixXcd> b(B);
  if (!(b.singularValues()(r - 1) > kMinBiorthogonality * b.singularValues()(0))) return false;
  U = B.fullPivLu().solve(U);
  return true;
}

// The fast eigenvalues beyond radius with their right (columns) and
// bi-orthonormalised left (rows) eigenvectors, cluster by cluster.
// The roundoff a split-off cluster brings into the propagated state,
// relative to it. Its eigenvalues are known to eps |lambda| kappa, kappa =
// ||v|| ||u|| (u v = 1: the eigenvalue's condition; for a repeated cluster
// with one value, the norm of its spectral projector V U), and that error
// enters z through a coefficient of up to kappa |z| over the time the mode
// lives, |lambda| t e^{Re lambda t} <= |lambda| min(horizon, 1 / (e |Re lambda|)):
// eps (kappa^2 - 1) (1 + that) beyond what any method has (a normal mode,
// kappa = 1, still drifts eps |lambda| t in phase: its period is known to
// eps), counted when it exceeds that (kappa^2 > 2: an undamped 1e9 rad/s
// mesh between 1e-6 and 1 kg m^2, kappa 1.0026, is split off). The split's own checks bound only kappa (the
// condition of T, 1e6), which let a mode 1e-10 above critical damping
// (kappa 7e4, two eigenvalues 1.4e-5 apart) through at 1e-6 of its
// amplitude; beyond kMaxClusterRoundoff the cluster stays slow, where the
// Taylor series needs no eigenvectors.
double cluster_roundoff(const Eigen::MatrixXcd& V, const Eigen::MatrixXcd& U, const std::vector<std::complex<double>>& lambda,
                        bool shared, double horizon) {
  double worst = 0.0;
  // (a shared value's cluster: the 2-norm of its projector, 1 when it is
  // orthogonal; Frobenius would be sqrt(r) and refused twin stiff branches)
  const double projector = shared ? Eigen::JacobiSVD<Eigen::MatrixXcd>(V * U).singularValues()(0) : 0.0;
  for (Eigen::Index c = 0; c < V.cols(); ++c) {
    const double kappa = shared ? projector : V.col(c).norm() * U.row(c).norm();
    const std::complex<double> l = lambda[static_cast<std::size_t>(c)];
    const double life = l.real() < 0.0 ? std::min(horizon, 1.0 / (std::exp(1.0) * -l.real())) : horizon;
    // (kappa^2 <= 2: at most the error any method has, again)
    if (kappa * kappa > 2.0)
      worst = std::max(worst, std::numeric_limits<double>::epsilon() * (kappa * kappa - 1.0) * (1.0 + std::abs(l) * life));
  }
  return worst;
}

struct FastVectors {
  std::vector<FastMode> fast;
  std::vector<Eigen::VectorXcd> v_cols;
  std::vector<Eigen::RowVectorXcd> u_rows;
};

// left: the eigen-solver of A^T, or null when every cluster is one isolated
// eigenvalue (isolated_left_vector serves them).
FastVectors fast_vectors(const Eigen::MatrixXd& A, const Eigen::VectorXcd& lr, const Eigen::MatrixXcd& VR,
                         const Eigen::EigenSolver<Eigen::MatrixXd>* left, const std::vector<int>& reps,
                         double horizon) {
  FastVectors out;
  const Eigen::VectorXcd ll = left ? Eigen::VectorXcd(left->eigenvalues()) : Eigen::VectorXcd();
  const Eigen::MatrixXcd VL = left ? Eigen::MatrixXcd(left->eigenvectors()) : Eigen::MatrixXcd();
  std::vector<char> used(static_cast<std::size_t>(ll.size()), 0);
  for (std::size_t i = 0; i < reps.size();) {
    std::size_t j = i + 1;
    while (j < reps.size() && close(lr(reps[j]), lr(reps[i]))) ++j;
    const std::vector<int> cluster(reps.begin() + static_cast<std::ptrdiff_t>(i),
                                   reps.begin() + static_cast<std::ptrdiff_t>(j));
    Eigen::MatrixXcd U, Vc;
    // one eigenvalue repeated to roundoff: from the null spaces, with one value
    std::complex<double> mean = 0.0;
    double spread = 0.0;
    for (int c : cluster) mean += lr(c) / static_cast<double>(cluster.size());
    for (int c : cluster) spread = std::max(spread, std::abs(lr(c) - mean));
    const auto r = static_cast<Eigen::Index>(cluster.size());
    std::vector<std::complex<double>> values(cluster.size(), mean);
    const bool repeated = r > 1 && spread <= 1e-10 * std::abs(mean);
    if (repeated && repeated_vectors(A, mean, r, Vc, U)) {
      for (int c : cluster) used_right_pair(ll, used, lr(c));
      if (cluster_roundoff(Vc, U, values, true, horizon) <= kMaxClusterRoundoff)
        for (Eigen::Index c = 0; c < r; ++c) {
          out.fast.push_back({mean, 0});
          out.v_cols.push_back(Vc.col(c));
          out.u_rows.push_back(U.row(c));
        }
    } else if (left ? left_vectors(lr, VR, ll, VL, cluster, used, U)
                    : isolated_left_vector(A, lr(cluster[0]), VR.col(cluster[0]), U)) {
      Vc.resize(VR.rows(), r);
      for (Eigen::Index c = 0; c < r; ++c) {
        Vc.col(c) = VR.col(cluster[static_cast<std::size_t>(c)]);
        values[static_cast<std::size_t>(c)] = lr(cluster[static_cast<std::size_t>(c)]);
      }
      // (a value repeated to roundoff: its vectors are any basis of the
      // eigenspace, whose own conditions mean nothing; its projector's counts)
      if (cluster_roundoff(Vc, U, values, repeated, horizon) <= kMaxClusterRoundoff)
        for (Eigen::Index c = 0; c < r; ++c) {
          out.fast.push_back({values[static_cast<std::size_t>(c)], 0});
          out.v_cols.push_back(Vc.col(c));
          out.u_rows.push_back(U.row(c));
        }
    }
    i = j;
  }
  return out;
}

// The checks of the header: T^-1 T = I, and T^-1 A T block diagonal with
// the eigenvalues, within the condition's allowance.
bool split_holds(const ModalSplit& s, const Eigen::MatrixXd& A) {
  const Eigen::Index N = A.rows(), m = s.slow;
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(N, N);
  D.topLeftCorner(m, m) = s.As;
  for (const FastMode& f : s.fast) {
    const Eigen::Index i = f.index;
    D(i, i) = f.lambda.real();
    if (f.pair()) {
      D(i + 1, i + 1) = f.lambda.real();
      D(i, i + 1) = -f.lambda.imag();
      D(i + 1, i) = f.lambda.imag();
    }
  }
  const double anorm = A.cwiseAbs().maxCoeff();
  const double inverse_error = (s.Tinv * s.T - Eigen::MatrixXd::Identity(N, N)).cwiseAbs().maxCoeff();
  const double block_error = (s.Tinv * A * s.T - D).cwiseAbs().maxCoeff();
  return s.condition <= kMaxCondition && inverse_error <= kInverseTolerance * s.condition &&
         block_error <= kBlockTolerance * s.condition * anorm;
}

// The split of A (already balanced), see split_modes.
ModalSplit split_balanced(const Eigen::MatrixXd& A, double radius, double horizon, const Eigen::MatrixXd& K) {
  const Eigen::Index N = A.rows();
  if (N == 0 || !A.allFinite()) return all_slow(A, K);
  const Eigen::EigenSolver<Eigen::MatrixXd> right(A, true);
  if (right.info() != Eigen::Success) return all_slow(A, K);
  const std::vector<int> reps = fast_representatives(right.eigenvalues(), radius);
  if (reps.empty()) return all_slow(A, K);
  // The left eigenvectors: of an isolated eigenvalue by inverse iteration;
  // when a cluster of close ones is split off, all from A^T's eigen-solver
  // (matched to the right ones, then bi-orthonormalised by cluster)
  bool clusters = false;
  for (std::size_t i = 0; i + 1 < reps.size(); ++i)
    clusters = clusters || close(right.eigenvalues()(reps[i + 1]), right.eigenvalues()(reps[i]));
  std::optional<Eigen::EigenSolver<Eigen::MatrixXd>> left;
  if (clusters) {
    left.emplace(A.transpose(), true);
    if (left->info() != Eigen::Success) return all_slow(A, K);
  }
  FastVectors fv = fast_vectors(A, right.eigenvalues(), right.eigenvectors(), left ? &*left : nullptr, reps, horizon);
  if (fv.fast.empty()) return all_slow(A, K);

  // Real fast coordinates: xi (real) or (Re xi, Im xi); z_f = V x_f.
  Eigen::Index nf = 0;
  for (const FastMode& f : fv.fast) nf += f.pair() ? 2 : 1;
  if (nf > N) return all_slow(A, K);
  const Eigen::Index m = N - nf;
  Eigen::MatrixXd U(nf, N), V(N, nf);
  Eigen::Index k = 0;
  for (std::size_t f = 0; f < fv.fast.size(); ++f) {
    fv.fast[f].index = static_cast<int>(m + k);
    U.row(k) = fv.u_rows[f].real();
    V.col(k) = (fv.fast[f].pair() ? 2.0 : 1.0) * fv.v_cols[f].real();
    if (fv.fast[f].pair()) {
      U.row(k + 1) = fv.u_rows[f].imag();
      V.col(k + 1) = -2.0 * fv.v_cols[f].imag();
    }
    k += fv.fast[f].pair() ? 2 : 1;
  }
  // The slow invariant subspace is the null space of U (an orthonormal
  // basis, beginning with K, which lies in it)
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(U.transpose());
  if (qr.rank() != nf || K.cols() > m) return all_slow(A, K);
  const Eigen::MatrixXd Q = qr.householderQ();
  const Eigen::MatrixXd Ys = basis_with(K, Q.rightCols(m), m);

  ModalSplit s;
  s.slow = static_cast<int>(m);
  s.inert = static_cast<int>(K.cols());
  s.fast = std::move(fv.fast);
  s.T.resize(N, N);
  s.T << Ys, V;
  s.Tinv.resize(N, N);
  s.Tinv.topRows(m) = Ys.transpose() - (Ys.transpose() * V) * U;
  s.Tinv.bottomRows(nf) = U;
  // The slow block by the oblique projection of A Ys: Ys lies in the slow
  // subspace only to its rounding, eps in the fast directions V, which the
  // orthogonal Ys^T A Ys multiplied by the fast eigenvalues (a wheel of 1e-6
  // kg m^2 on a 1e10 N m/rad shaft: eps 1e8 against a slow scale of 1, its
  // slow eigenvalues 4e-6 off, growing in time); the oblique rows
  // Tinv_s = Ys^T - (Ys^T V) U annihilate V (U V = I), and A Ys computed
  // compensated keeps the rest to eps of the slow scale (2e-16 up to 1e12
  // N m/rad, checked against 50 digits).
  const Eigen::MatrixXd AYs = compensated_product(A, Ys);
  s.As = s.Tinv.topRows(m) * AYs;
  s.condition = s.T.cwiseAbs().rowwise().sum().maxCoeff() * s.Tinv.cwiseAbs().rowwise().sum().maxCoeff();
  if (!split_holds(s, A)) return all_slow(A, K);
  // As's roundoff: its own product's, no longer the similarity's of A
  s.roundoff = m > 0 ? kSimilarityRoundoff * s.condition * (s.Tinv.topRows(m).cwiseAbs() * AYs.cwiseAbs()).maxCoeff() : 0.0;
  clear_inert(s);
  return s;
}

// The split of D^-1 A D, D the balancing of A (powers of two), taken back to
// z: eigenvectors of a mode whose coordinates differ by orders of magnitude in
// scale (angles and velocities of a 1 kHz mesh) are far better conditioned
// there, and the condition that matters for roundoff is the balanced one.
ModalSplit in_balanced_basis(const Eigen::MatrixXd& A, const Eigen::MatrixXd& K,
                             ModalSplit (*split)(const Eigen::MatrixXd&, double, double, const Eigen::MatrixXd&),
                             double radius, double horizon, Eigen::Index unscaled) {
  const Eigen::VectorXd D = balance(A, 0.0, A.rows() - unscaled), Dinv = D.cwiseInverse();
  const Eigen::MatrixXd Ab = Dinv.asDiagonal() * A * D.asDiagonal();
  Eigen::MatrixXd Kb = Dinv.asDiagonal() * K;
  if (Kb.cols() > 0) Kb = Eigen::HouseholderQR<Eigen::MatrixXd>(Kb).householderQ() * Eigen::MatrixXd::Identity(Kb.rows(), Kb.cols());
  ModalSplit s = split(Ab, radius, horizon, Kb);
  s.T = D.asDiagonal() * s.T;
  s.Tinv = s.Tinv * Dinv.asDiagonal();
  return s;
}

ModalSplit all_slow_at(const Eigen::MatrixXd& A, double, double, const Eigen::MatrixXd& K) { return all_slow(A, K); }

}  // namespace

ModalSplit unsplit(const Eigen::MatrixXd& A, const Eigen::MatrixXd& K, Eigen::Index unscaled) {
  return in_balanced_basis(A, K, all_slow_at, 0.0, 0.0, unscaled);
}

ModalSplit split_modes(const Eigen::MatrixXd& A, double radius, double horizon, const Eigen::MatrixXd& K,
                       Eigen::Index unscaled) {
  return in_balanced_basis(A, K, split_balanced, radius, horizon, unscaled);
}

}  // namespace luztar::exact
