#include "solvers/numerics/lcp.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace luztar {

const char* to_string(LcpStatus s) {
  switch (s) {
    case LcpStatus::solved: return "solved";
    case LcpStatus::no_solution: return "no solution (Lemke: secondary ray)";
    case LcpStatus::pivot_limit: return "pivot limit reached";
    case LcpStatus::not_converged: return "not converged";
  }
  return "?";
}

LcpMatrixClass classify_lcp_matrix(const Eigen::MatrixXd& M) {
  LcpMatrixClass c;
  const int n = static_cast<int>(M.rows());
  if (M.isApprox(M.transpose(), 0.0)) {
    c.checked = true;
    c.p_matrix = n == 0 || Eigen::LLT<Eigen::MatrixXd>(M).info() == Eigen::Success;
    return c;
  }
  if (n > 16) return c;
  c.checked = true;
  std::vector<int> idx;
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    idx.clear();
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) idx.push_back(i);
    Eigen::MatrixXd sub(idx.size(), idx.size());
    for (std::size_t a = 0; a < idx.size(); ++a)
      for (std::size_t b = 0; b < idx.size(); ++b) sub(a, b) = M(idx[a], idx[b]);
    if (!(sub.determinant() > 0.0)) return c;
  }
  c.p_matrix = true;
  return c;
}

LcpSolution solve_box_lcp_lemke(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                                const Eigen::VectorXd& hi) {
  const int n = static_cast<int>(b.size());
  // x = c + s y, y >= 0: from the finite lower bound (s = +1), else down from
  // the upper (s = -1); the variables with both bounds finite (`boxed`) get
  // a second one, z2 = w- perp hi - x; a free one (both infinite: c = 0,
  // s = +1) is x = y - y2 with y2 >= 0 perp -w, so that w >= 0 and -w >= 0
  // hold w = 0 (M stays E^T A E for positive semi-definite A: copositive-plus).
  Eigen::VectorXd c(n), sign(n);
  std::vector<int> boxed, free;
  for (int i = 0; i < n; ++i) {
    const bool from_lo = std::isfinite(lo[i]), from_hi = std::isfinite(hi[i]);
    c[i] = from_lo ? lo[i] : from_hi ? hi[i] : 0.0;
    sign[i] = from_lo || !from_hi ? 1.0 : -1.0;
    if (from_lo && from_hi) boxed.push_back(i);
    if (!from_lo && !from_hi) free.push_back(i);
  }
  const int nbox = static_cast<int>(boxed.size()), nfree = static_cast<int>(free.size()), f0 = n + nbox;
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(f0 + nfree, f0 + nfree);
  M.topLeftCorner(n, n) = sign.asDiagonal() * A * sign.asDiagonal();
  Eigen::VectorXd q(f0 + nfree);
  const Eigen::VectorXd residual = A * c - b;
  q.head(n) = sign.asDiagonal() * residual;
  for (int k = 0; k < nbox; ++k) {
    M(boxed[k], n + k) = 1.0;
    M(n + k, boxed[k]) = -1.0;
    q[n + k] = hi[boxed[k]] - lo[boxed[k]];
  }
  for (int k = 0; k < nfree; ++k) {  // y2_k: column -A e_free_k (rows signed), row -(A x - b)_free_k
    const int i = free[k];
    for (int r = 0; r < n; ++r) {
      M(r, f0 + k) = -sign[r] * A(r, i);
      M(f0 + k, r) = -A(i, r) * sign[r];
    }
    for (int l = 0; l < nfree; ++l) M(f0 + k, f0 + l) = A(i, free[l]);
    q[f0 + k] = -residual[i];
  }
  LcpSolution big = solve_lcp_lemke(M, q);
  LcpSolution s;
  s.status = big.status;
  s.iterations = big.iterations;
  s.degenerate = big.degenerate;
  s.z = c + sign.cwiseProduct(big.z.head(n));
  for (int k = 0; k < nfree; ++k) s.z[free[k]] -= big.z[f0 + k];
  // exactly hi where w- = z2 > 0 (lo + (hi - lo) may miss hi by roundoff)
  for (int k = 0; k < nbox; ++k) {
    const int i = boxed[k];
    s.z[i] = big.z[n + k] > 0.0 ? hi[i] : std::clamp(s.z[i], lo[i], hi[i]);
  }
  s.w = A * s.z - b;
  return s;
}

double lcp_error(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = M * z + q;
  double err = 0.0;
  for (int i = 0; i < z.size(); ++i) err = std::max(err, std::abs(std::min(z[i], w[i])));
  return err;
}

// Tableau [I  -M  -d | q] over the variables w (0..n-1), z (n..2n-1), z0 (2n);
// covering vector d = 1. The w columns hold B^-1, which breaks ties in the
// ratio test lexicographically (no cycling on degenerate problems).
//
// Tolerances. Column c of the tableau is B^-1 a_c, a_c the column c of
// [I  -M  -d | q], so its roundoff is of the order of |B^-1| |a_c|: every test
// on column c uses kTol |B^-1| |a_c| (max norms). A pivot entry is positive
// above that of the entering column (the size of M's entries, whatever q's);
// two ratios tie within that of the right-hand side (the size of q's entries)
// over the smaller pivot; and the lexicographic tie-break compares the B^-1
// rows within that of the w columns. A tolerance drawn from max(|M|, |q|) for
// all of them rejected every pivot of size |M| once |q| was ~1e12 |M| (a
// saturation block fed 1e15 times its bounds ended on a false ray).
namespace {

constexpr double kTol = 1e-12;

// Lemke's tableau and the rules that pick its pivots.
struct LemkeTableau {
  const Eigen::MatrixXd& M;
  const Eigen::VectorXd& q;
  const int n, z0, rhs;
  const double q_size;  // > 0: some q_i < 0
  Eigen::MatrixXd T;
  std::vector<int> basis;

  LemkeTableau(const Eigen::MatrixXd& M_, const Eigen::VectorXd& q_)
      : M(M_), q(q_), n(static_cast<int>(q_.size())), z0(2 * n), rhs(2 * n + 1),
        q_size(q_.cwiseAbs().maxCoeff()), T(Eigen::MatrixXd::Zero(n, 2 * n + 2)), basis(n) {
    T.leftCols(n).setIdentity();
    T.middleCols(n, n) = -M;
    T.col(z0).setConstant(-1.0);
    T.col(rhs) = q;
    for (int i = 0; i < n; ++i) basis[i] = i;
  }

  // |a_c| of the column a variable brings into the basis: w_j (e_j), z_j (-M e_j), z0 (-d)
  double column_size(int c) const { return c >= n && c < 2 * n ? M.col(c - n).cwiseAbs().maxCoeff() : 1.0; }

  void pivot(int row, int col) {
    T.row(row) /= T(row, col);
    for (int i = 0; i < n; ++i)
      if (i != row && T(i, col) != 0.0) T.row(i) -= T(i, col) * T.row(row);
    basis[row] = col;
  }

  // First pivot: z0 enters at the level that makes every w >= 0; the row of
  // the most negative q leaves (ties: lexicographic on B^-1 = I rows).
  int first_row(bool& degenerate) const {
    int row = 0;
    for (int i = 1; i < n; ++i)
      if (q[i] <= q[row]) row = i;  // ties: the last row, the lexicographic choice for B^-1 = I
    for (int i = 0; i < n; ++i)
      if (i != row && std::abs(q[i] - q[row]) <= kTol * q_size) degenerate = true;
    return row;
  }

  // -1, 0, +1 as T(i, c) / T(i, entering) is below, within tol / (smaller pivot) of, or above
  // T(r, c) / T(r, entering) (both pivots positive)
  int compare(int i, int r, int c, int entering, double tol) const {
    const double a = T(i, c) / T(i, entering), b = T(r, c) / T(r, entering);
    const double margin = tol / std::min(T(i, entering), T(r, entering));
    return a < b - margin ? -1 : a > b + margin ? 1 : 0;
  }

  // The leaving row for `entering`: lexicographic minimum ratio over rows with
  // a positive entry; -1 when there is none (a ray: no solution).
  int leaving_row(int entering, bool& degenerate) const {
    const double binv = T.leftCols(n).cwiseAbs().maxCoeff();  // |B^-1|
    const double pivot_tol = kTol * binv * column_size(entering);
    int row = -1;
    for (int i = 0; i < n; ++i) {
      if (T(i, entering) <= pivot_tol) continue;
      if (row < 0) {
        row = i;
        continue;
      }
      const int by_ratio = compare(i, row, rhs, entering, kTol * binv * q_size);
      if (by_ratio < 0) {
        row = i;
      } else if (by_ratio == 0) {
        degenerate = true;
        for (int k = 0; k < n; ++k) {  // tie: compare the B^-1 rows, scaled
          const int by_row = compare(i, row, k, entering, kTol * binv);
          if (by_row < 0) row = i;
          if (by_row != 0) break;
        }
      }
    }
    return row;
  }
};

}  // namespace

LcpSolution solve_lcp_lemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, int max_pivots) {
  const int n = static_cast<int>(q.size());
  LcpSolution s;
  s.z = Eigen::VectorXd::Zero(n);
  s.w = q;
  if (n == 0 || q.minCoeff() >= 0.0) return s;  // z = 0 solves it
  if (max_pivots <= 0) max_pivots = 50 * (n + 1);
  LemkeTableau t(M, q);
  int row = t.first_row(s.degenerate);
  int entering = t.z0;
  for (s.iterations = 1; s.iterations <= max_pivots; ++s.iterations) {
    const int leaving = t.basis[row];
    t.pivot(row, entering);
    if (leaving == t.z0) break;  // z0 left the basis: complementary solution
    // the complement of the variable that left enters
    entering = leaving < n ? leaving + n : leaving - n;
    row = t.leaving_row(entering, s.degenerate);
    if (row < 0) {
      s.status = LcpStatus::no_solution;
      return s;
    }
  }
  if (s.iterations > max_pivots) {
    s.status = LcpStatus::pivot_limit;
    return s;
  }
  s.z.setZero();
  for (int i = 0; i < n; ++i)
    if (t.basis[i] >= n && t.basis[i] < 2 * n) s.z[t.basis[i] - n] = std::max(0.0, t.T(i, t.rhs));
  s.w = M * s.z + q;
  return s;
}

LcpSolution solve_lcp_pgs(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, double tolerance, int max_sweeps) {
  const int n = static_cast<int>(q.size());
  LcpSolution s;
  s.z = Eigen::VectorXd::Zero(n);
  const double scale = std::max(1.0, q.cwiseAbs().maxCoeff());
  s.status = LcpStatus::not_converged;
  for (s.iterations = 1; s.iterations <= max_sweeps; ++s.iterations) {
    double change = 0.0;
    for (int i = 0; i < n; ++i) {
      const double wi = M.row(i).dot(s.z) + q[i];
      const double zi = std::max(0.0, s.z[i] - wi / M(i, i));
      change = std::max(change, std::abs(zi - s.z[i]) * M(i, i));
      s.z[i] = zi;
    }
    if (change <= tolerance * scale) {
      s.status = LcpStatus::solved;
      break;
    }
  }
  s.w = M * s.z + q;
  return s;
}

}  // namespace luztar
