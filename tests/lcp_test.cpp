// LCP solvers (solvers/numerics/lcp.hpp) on problems with known solutions: P-matrices
// (unique solution), a degenerate problem with several solutions, problems
// without a solution (Lemke must report the ray), and Lemke against PGS on
// random Delassus-like problems.
#include <gtest/gtest.h>

#include <random>

#include "solvers/numerics/box_qp.hpp"
#include "solvers/numerics/lcp.hpp"

namespace luztar {
namespace {

Eigen::MatrixXd mat(std::initializer_list<std::initializer_list<double>> rows) {
  Eigen::MatrixXd M(rows.size(), rows.begin()->size());
  int i = 0;
  for (const auto& r : rows) {
    int j = 0;
    for (double v : r) M(i, j++) = v;
    ++i;
  }
  return M;
}

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd x(v.size());
  int i = 0;
  for (double a : v) x[i++] = a;
  return x;
}

TEST(Lcp, PMatrixInteriorSolution) {
  // both z > 0: z = -M^-1 q = (4/3, 7/3), w = 0
  const Eigen::MatrixXd M = mat({{2, 1}, {1, 2}});
  const Eigen::VectorXd q = vec({-5, -6});
  EXPECT_TRUE(classify_lcp_matrix(M).p_matrix);
  for (const LcpSolution& s : {solve_lcp_lemke(M, q), solve_lcp_pgs(M, q)}) {
    ASSERT_EQ(s.status, LcpStatus::solved);
    EXPECT_NEAR(s.z[0], 4.0 / 3.0, 1e-12);
    EXPECT_NEAR(s.z[1], 7.0 / 3.0, 1e-12);
    EXPECT_NEAR(s.w.cwiseAbs().maxCoeff(), 0.0, 1e-12);
  }
}

TEST(Lcp, MixedActiveSetAndTrivialCase) {
  const Eigen::MatrixXd M = mat({{1, 0.5}, {0.5, 1}});
  const LcpSolution s = solve_lcp_lemke(M, vec({-1, 2}));  // z = (1, 0), w = (0, 2.5)
  ASSERT_EQ(s.status, LcpStatus::solved);
  EXPECT_NEAR(s.z[0], 1.0, 1e-14);
  EXPECT_EQ(s.z[1], 0.0);
  EXPECT_NEAR(s.w[1], 2.5, 1e-14);
  const LcpSolution zero = solve_lcp_lemke(M, vec({1, 2}));  // q >= 0: z = 0
  EXPECT_EQ(zero.iterations, 0);
  EXPECT_EQ(zero.z.cwiseAbs().maxCoeff(), 0.0);
}

TEST(Lcp, NonSymmetricPMatrixIsRecognised) {
  const Eigen::MatrixXd P = mat({{1, -3}, {0, 1}});  // minors 1, 1, 1
  EXPECT_TRUE(classify_lcp_matrix(P).p_matrix);
  const Eigen::MatrixXd notP = mat({{1, 2}, {2, 1}});  // det -3
  EXPECT_FALSE(classify_lcp_matrix(notP).p_matrix);
  // unique solution for any q: check a few against the definition
  for (const Eigen::VectorXd& q : {vec({-1, -1}), vec({2, -1}), vec({-4, 3})}) {
    const LcpSolution s = solve_lcp_lemke(P, q);
    ASSERT_EQ(s.status, LcpStatus::solved);
    EXPECT_LT(lcp_error(P, q, s.z), 1e-12);
  }
}

TEST(Lcp, DegenerateProblemWithSeveralSolutions) {
  // M = [[1,2],[2,1]], q = (-1,-1): z = (1,0), (0,1) and (1/3,1/3) all solve it;
  // the tie in the first ratio test is resolved lexicographically.
  const Eigen::MatrixXd M = mat({{1, 2}, {2, 1}});
  const Eigen::VectorXd q = vec({-1, -1});
  const LcpSolution s = solve_lcp_lemke(M, q);
  ASSERT_EQ(s.status, LcpStatus::solved);
  EXPECT_TRUE(s.degenerate);
  EXPECT_LT(lcp_error(M, q, s.z), 1e-12);
  EXPECT_GT(s.z.sum(), 0.5);  // not the trivial point
}

TEST(Lcp, LemkeReportsNoSolution) {
  // w = -z - 1 < 0 for every z >= 0
  const LcpSolution a = solve_lcp_lemke(mat({{-1}}), vec({-1}));
  EXPECT_EQ(a.status, LcpStatus::no_solution);
  // positive semi-definite but infeasible: w1 = z2 - 1, w2 = -z1 - 1 < 0
  const LcpSolution b = solve_lcp_lemke(mat({{0, 1}, {-1, 0}}), vec({-1, -1}));
  EXPECT_EQ(b.status, LcpStatus::no_solution);
}

// The tolerances follow the size of each tableau column (lcp.cpp), so the
// pivoting is the same for q scaled by any c > 0 (z scales by c): the
// saturation LCP M = [1 -1; -1 1], q = (x + 1, 1 - x) at x = 1e15 (a
// saturation block fed 1e15 times its bounds) is solved by z = (0, x - 1),
// not ended on a false ray; and the degenerate and unsolvable problems above
// scaled by 1e15 report as before.
TEST(Lcp, LemkeOnRightHandSidesFarLargerThanM) {
  const double x = 1e15;
  const Eigen::MatrixXd S = mat({{1, -1}, {-1, 1}});
  const LcpSolution sat = solve_lcp_lemke(S, vec({x + 1, 1 - x}));
  ASSERT_EQ(sat.status, LcpStatus::solved);
  EXPECT_EQ(sat.z[0], 0.0);
  EXPECT_NEAR(sat.z[1], x - 1, 1e-15 * x);
  // P-matrix: M z = -q with z > 0, z = c (2/5, 1/5) for q = -c (1, 1), at any scale c
  const Eigen::MatrixXd P = mat({{3, -1}, {-1, 2}});
  for (double c : {1e-20, 1.0, 1e15, 1e100}) {
    const LcpSolution s = solve_lcp_lemke(P, vec({-c, -c}));
    ASSERT_EQ(s.status, LcpStatus::solved) << c;
    EXPECT_NEAR(s.z[0], 0.6 * c, 1e-15 * c) << c;
    EXPECT_NEAR(s.z[1], 0.8 * c, 1e-15 * c) << c;
  }
  const Eigen::MatrixXd D = mat({{1, 2}, {2, 1}});
  const LcpSolution d = solve_lcp_lemke(D, vec({-x, -x}));
  ASSERT_EQ(d.status, LcpStatus::solved);
  EXPECT_TRUE(d.degenerate);
  EXPECT_LT(lcp_error(D, vec({-x, -x}), d.z), 1e-12 * x);
  EXPECT_EQ(solve_lcp_lemke(mat({{-1}}), vec({-x})).status, LcpStatus::no_solution);
  EXPECT_EQ(solve_lcp_lemke(mat({{0, 1}, {-1, 0}}), vec({-x, -x})).status, LcpStatus::no_solution);
}

TEST(Lcp, LemkeAndPgsAgreeOnDelassusProblems) {
  // A = F M^-1 F^T of random chains of bodies, random q: unique solution (SPD)
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 5 + trial;
    Eigen::MatrixXd F = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      F(i, i) = 1.0;
      if (i + 1 < n) F(i, i + 1) = -1.0;
    }
    Eigen::VectorXd minv(n);
    for (int i = 0; i < n; ++i) minv[i] = 1.0 / (0.5 + std::abs(u(rng)));
    const Eigen::MatrixXd A = F * minv.asDiagonal() * F.transpose();
    Eigen::VectorXd q(n);
    for (int i = 0; i < n; ++i) q[i] = 10.0 * u(rng);
    const LcpSolution lemke = solve_lcp_lemke(A, q), pgs = solve_lcp_pgs(A, q, 1e-14);
    ASSERT_EQ(lemke.status, LcpStatus::solved) << n;
    ASSERT_EQ(pgs.status, LcpStatus::solved) << n;
    EXPECT_LT(lcp_error(A, q, lemke.z), 1e-10 * q.cwiseAbs().maxCoeff());
    EXPECT_LT((lemke.z - pgs.z).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + lemke.z.cwiseAbs().maxCoeff())) << n;
  }
}

}  // namespace
}  // namespace luztar

namespace luztar {
namespace {

// Box-LCP by Lemke against the closed form and against the box QP solver
// that the event-time S-S selection uses.
TEST(BoxLcp, ClosedFormOnTwoFrictionElements) {
  // A = [2 1; 1 2], b = (5, 0), |x_i| <= 1: the unconstrained minimiser
  // (10/3, -5/3) leaves the box. With x1 = 1 at its upper bound, row 2 gives
  // 1 + 2 x2 = 0, x2 = -1/2 (interior, w2 = 0), and w1 = 2 - 0.5 - 5 = -3.5 <= 0
  // as the upper bound requires.
  const Eigen::MatrixXd A = mat({{2, 1}, {1, 2}});
  const Eigen::VectorXd b = vec({5, 0}), lo = vec({-1, -1}), hi = vec({1, 1});
  const LcpSolution s = solve_box_lcp_lemke(A, b, lo, hi);
  ASSERT_EQ(s.status, LcpStatus::solved);
  EXPECT_NEAR(s.z[0], 1.0, 1e-12);
  EXPECT_NEAR(s.z[1], -0.5, 1e-12);
  EXPECT_NEAR(s.w[0], -3.5, 1e-12);
  EXPECT_NEAR(s.w[1], 0.0, 1e-12);
}

// A bound infinite on one side (a one-way clutch's, a contact's): min
// 1/2 x^T A x - b^T x with x0 <= 1 (x0 free below), x1 >= -1 (free above).
// b = (5, -5): unconstrained x = A^-1 b = (5, -5) leaves both bounds, so
// x = (1, -1), w = A x - b = (-4, 4): w <= 0 at x0's upper bound, w >= 0 at
// x1's lower bound. b = (5, 0): x0 = 1, then 2 x1 = -1 inside: w1 = 0.
// A variable free on both sides (a permanent link's torque) is split, x =
// y1 - y2: with x0 free and x1 in [-1, 1], b = (5, 0), the unconstrained
// (10/3, -5/3) leaves x1's lower bound: x1 = -1, w0 = 0 gives x0 = 3, and
// w1 = 3 - 2 = 1 >= 0 there. Both free, b = (5, -5): x = A^-1 b = (5, -5), w = 0.
TEST(BoxLcp, LemkeTakesBoundsInfiniteOnOneSide) {
  const Eigen::MatrixXd A = mat({{2, 1}, {1, 2}});
  const Eigen::VectorXd lo = vec({-INFINITY, -1}), hi = vec({1, INFINITY});
  LcpSolution s = solve_box_lcp_lemke(A, vec({5, -5}), lo, hi);
  ASSERT_EQ(s.status, LcpStatus::solved);
  EXPECT_EQ(s.z[0], 1.0);
  EXPECT_NEAR(s.z[1], -1.0, 1e-12);
  EXPECT_NEAR(s.w[0], -4.0, 1e-12);
  EXPECT_NEAR(s.w[1], 4.0, 1e-12);
  s = solve_box_lcp_lemke(A, vec({5, 0}), lo, hi);
  ASSERT_EQ(s.status, LcpStatus::solved);
  EXPECT_NEAR(s.z[0], 1.0, 1e-12);
  EXPECT_NEAR(s.z[1], -0.5, 1e-12);
  EXPECT_NEAR(s.w[1], 0.0, 1e-12);
  s = solve_box_lcp_lemke(A, vec({5, 0}), vec({-INFINITY, -1}), vec({INFINITY, 1}));
  ASSERT_EQ(s.status, LcpStatus::solved);
  EXPECT_NEAR(s.z[0], 3.0, 1e-12);
  EXPECT_EQ(s.z[1], -1.0);
  EXPECT_NEAR(s.w[0], 0.0, 1e-12);
  EXPECT_NEAR(s.w[1], 1.0, 1e-12);
  s = solve_box_lcp_lemke(A, vec({5, -5}), vec({-INFINITY, -INFINITY}), vec({INFINITY, INFINITY}));
  ASSERT_EQ(s.status, LcpStatus::solved);
  EXPECT_NEAR(s.z[0], 5.0, 1e-12);
  EXPECT_NEAR(s.z[1], -5.0, 1e-12);
  EXPECT_NEAR(s.w.norm(), 0.0, 1e-12);
}

TEST(BoxLcp, LemkeAgreesWithTheEventTimeBoxQp) {
  // Friction elements on random chains: F has bearings (rows e_i) and clutches
  // (rows e_i - e_i+1); with both on every body A = F M^-1 F^T is singular
  // (redundant), so the torques x may differ while the accelerations
  // w = A x - b may not.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 30; ++trial) {
    const int nb = 2 + trial % 6;
    const int n = 2 * nb - 1;
    Eigen::MatrixXd F = Eigen::MatrixXd::Zero(n, nb);
    for (int i = 0; i < nb; ++i) F(i, i) = 1.0;
    for (int i = 0; i + 1 < nb; ++i) {
      F(nb + i, i) = 1.0;
      F(nb + i, i + 1) = -1.0;
    }
    Eigen::VectorXd minv(nb);
    for (int i = 0; i < nb; ++i) minv[i] = 1.0 / (0.2 + std::abs(u(rng)));
    const Eigen::MatrixXd A = F * minv.asDiagonal() * F.transpose();
    Eigen::VectorXd b(n), lo(n), hi(n);
    for (int i = 0; i < n; ++i) {
      b[i] = 3.0 * u(rng);
      hi[i] = 0.1 + std::abs(u(rng));
      lo[i] = -hi[i];
    }
    if (trial % 3 == 1) {
      // One-sided bounds (one-way clutches, contacts) on every other row; b in
      // the range of A, as F M^-1 f is, so that the QP stays bounded below.
      for (int i = 0; i < n; i += 2) (i % 4 == 0 ? lo[i] : hi[i]) = i % 4 == 0 ? -INFINITY : INFINITY;
      b = A * b;
    }
    const LcpSolution lemke = solve_box_lcp_lemke(A, b, lo, hi);
    ASSERT_EQ(lemke.status, LcpStatus::solved) << trial;
    const BoxQpSolution qp = solve_box_qp(A, b, lo, hi);
    ASSERT_TRUE(qp.converged) << trial;
    EXPECT_LT(box_qp_kkt_error(A, b, lo, hi, lemke.z), 1e-10) << trial;
    EXPECT_LT((lemke.w + qp.residual).cwiseAbs().maxCoeff(), 1e-9) << trial;  // residual = b - A x = -w
  }
}

}  // namespace
}  // namespace luztar
