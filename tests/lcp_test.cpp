// LCP solvers (solvers/lcp.hpp) on problems with known solutions: P-matrices
// (unique solution), a degenerate problem with several solutions, problems
// without a solution (Lemke must report the ray), and Lemke against PGS on
// random Delassus-like problems.
#include <gtest/gtest.h>

#include <random>

#include "solvers/lcp.hpp"

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
