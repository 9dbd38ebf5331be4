#include "solvers/exact/modal_split.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace luztar::exact {

namespace {

// Checks of a split (see the header): beyond these, everything stays slow.
constexpr double kMaxCondition = 1e6;      // ||T|| ||T^-1||
constexpr double kInverseTolerance = 1e-10;  // max |T^-1 T - I|, relative to the condition
constexpr double kBlockTolerance = 1e-10;    // max |T^-1 A T - diag|, relative to ||A|| and the condition
constexpr double kClusterTolerance = 1e-6;   // eigenvalues this close (relative): one cluster
constexpr double kMinBiorthogonality = 1e-8;  // smallest singular value of U^T V in a cluster (relative)

ModalSplit all_slow(const Eigen::MatrixXd& A) {
  ModalSplit s;
  s.slow = static_cast<int>(A.rows());
  s.T = Eigen::MatrixXd::Identity(A.rows(), A.rows());
  s.Tinv = s.T;
  s.As = A;
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

}  // namespace

ModalSplit split_modes(const Eigen::MatrixXd& A, double radius) {
  const Eigen::Index N = A.rows();
  if (N == 0 || !A.allFinite()) return all_slow(A);
  const Eigen::EigenSolver<Eigen::MatrixXd> right(A, true), left(A.transpose(), true);
  if (right.info() != Eigen::Success || left.info() != Eigen::Success) return all_slow(A);
  const Eigen::VectorXcd lr = right.eigenvalues(), ll = left.eigenvalues();
  const Eigen::MatrixXcd VR = right.eigenvectors(), VL = left.eigenvectors();
  const std::vector<int> reps = fast_representatives(lr, radius);
  if (reps.empty()) return all_slow(A);

  // Clusters of close eigenvalues, each bi-orthonormalised on its own.
  std::vector<FastMode> fast;
  std::vector<Eigen::VectorXcd> v_cols;
  std::vector<Eigen::RowVectorXcd> u_rows;
  std::vector<char> used(static_cast<std::size_t>(ll.size()), 0);
  for (std::size_t i = 0; i < reps.size();) {
    std::size_t j = i + 1;
    while (j < reps.size() && close(lr(reps[j]), lr(reps[i]))) ++j;
    const std::vector<int> cluster(reps.begin() + static_cast<std::ptrdiff_t>(i),
                                   reps.begin() + static_cast<std::ptrdiff_t>(j));
    Eigen::MatrixXcd U;
    if (left_vectors(lr, VR, ll, VL, cluster, used, U)) {
      for (std::size_t c = 0; c < cluster.size(); ++c) {
        fast.push_back({lr(cluster[c]), 0});
        v_cols.push_back(VR.col(cluster[c]));
        u_rows.push_back(U.row(static_cast<Eigen::Index>(c)));
      }
    }
    i = j;
  }
  if (fast.empty()) return all_slow(A);

  // Real fast coordinates: xi (real) or (Re xi, Im xi); z_f = V x_f.
  Eigen::Index nf = 0;
  for (const FastMode& f : fast) nf += f.pair() ? 2 : 1;
  if (nf >= N) return all_slow(A);
  const Eigen::Index m = N - nf;
  Eigen::MatrixXd U(nf, N), V(N, nf);
  Eigen::Index k = 0;
  for (std::size_t f = 0; f < fast.size(); ++f) {
    fast[f].index = static_cast<int>(m + k);
    if (fast[f].pair()) {
      U.row(k) = u_rows[f].real();
      U.row(k + 1) = u_rows[f].imag();
      V.col(k) = 2.0 * v_cols[f].real();
      V.col(k + 1) = -2.0 * v_cols[f].imag();
      k += 2;
    } else {
      U.row(k) = u_rows[f].real();
      V.col(k) = v_cols[f].real();
      k += 1;
    }
  }
  // The slow invariant subspace is the null space of U (an orthonormal basis).
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(U.transpose());
  if (qr.rank() != nf) return all_slow(A);
  const Eigen::MatrixXd Q = qr.householderQ();
  const Eigen::MatrixXd Ys = Q.rightCols(m);

  ModalSplit s;
  s.slow = static_cast<int>(m);
  s.fast = std::move(fast);
  s.T.resize(N, N);
  s.T << Ys, V;
  s.Tinv.resize(N, N);
  s.Tinv.topRows(m) = Ys.transpose() - (Ys.transpose() * V) * U;
  s.Tinv.bottomRows(nf) = U;
  s.As = Ys.transpose() * A * Ys;
  s.condition = s.T.cwiseAbs().rowwise().sum().maxCoeff() * s.Tinv.cwiseAbs().rowwise().sum().maxCoeff();

  // Checks: T^-1 T = I, and T^-1 A T block diagonal with the eigenvalues.
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
  if (!(s.condition <= kMaxCondition) || !(inverse_error <= kInverseTolerance * s.condition) ||
      !(block_error <= kBlockTolerance * s.condition * anorm))
    return all_slow(A);
  return s;
}

}  // namespace luztar::exact
