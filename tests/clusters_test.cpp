// Locked clusters (bodies held together by stuck friction) and the velocity
// projection that enters a stuck structure.
#include <gtest/gtest.h>

#include "bodies/clusters.hpp"
#include "core/signal.hpp"

namespace luztar {
namespace {

// Locked rows w_a = ratio w_b (b = -1: the base) as the links' coordinate rows.
struct TwoBody {
  int a, b;
  double ratio = 1.0;
};
LockedRows rows(std::initializer_list<TwoBody> links) {
  LockedRows out;
  for (const TwoBody& l : links) out.push_back(two_body_row(l.a, l.b, l.ratio));
  return out;
}

TEST(Clusters, GroupsBodiesAndCountsLoops) {
  // bodies 0..4; stuck: bearing on 0, clutch 0-1, clutch 2-3, bearing on 3, bearing on 3 (twice), nothing on 4
  const std::vector<double> inertia = {1, 2, 3, 4, 5};
  const LockedClusters c = lock_clusters(inertia, rows({{0, -1}, {0, 1}, {2, 3}, {3, -1}, {3, -1}}));
  ASSERT_EQ(c.num_clusters(), 3);
  EXPECT_EQ(c.cluster_of[0], c.cluster_of[1]);
  EXPECT_EQ(c.cluster_of[2], c.cluster_of[3]);
  EXPECT_NE(c.cluster_of[0], c.cluster_of[2]);  // the base does not join groups
  const int g01 = c.cluster_of[0], g23 = c.cluster_of[2], g4 = c.cluster_of[4];
  EXPECT_TRUE(c.grounded[g01]);
  EXPECT_TRUE(c.grounded[g23]);
  EXPECT_FALSE(c.grounded[g4]);
  EXPECT_EQ(c.redundancy[g01], 0);  // tree: base - 0 - 1
  EXPECT_EQ(c.redundancy[g23], 1);  // two bearings on body 3 close a loop through the base
  EXPECT_EQ(c.rep[0], -1);
  EXPECT_EQ(c.rep[4], 4);
  EXPECT_DOUBLE_EQ(c.inertia[g23], 7.0);
}

TEST(Clusters, ProjectionConservesMomentumAndReportsTheLoss) {
  const std::vector<double> inertia = {1, 3, 2};
  const LockedClusters c = lock_clusters(inertia, rows({{0, 1}, {2, -1}}));
  std::vector<double> w = {4.0, 0.0, 5.0};
  const double lost = project_velocities(c, inertia, w);
  EXPECT_DOUBLE_EQ(w[0], 1.0);  // (1*4 + 3*0) / 4
  EXPECT_DOUBLE_EQ(w[1], 1.0);
  EXPECT_EQ(w[2], 0.0);
  EXPECT_DOUBLE_EQ(lost, (0.5 * 16 - 0.5 * 4 * 1) + 0.5 * 2 * 25);
}

// Gears locked through two meshes whose ratios do not multiply to the
// clutch's 1 cannot move: the weighted clusters report a jammed cluster.
TEST(Clusters, RatioLinksGiveGainsAndAnInconsistentLoopJams) {
  const std::vector<double> inertia = {1.0, 2.0, 3.0};
  const LockedClusters ok = lock_clusters(inertia, rows({{0, 1, 2.0}, {1, 2, 3.0}, {0, 2, 6.0}}));
  ASSERT_EQ(ok.num_clusters(), 1);
  EXPECT_FALSE(ok.grounded[0]);
  EXPECT_DOUBLE_EQ(ok.gain[1], 0.5);
  EXPECT_DOUBLE_EQ(ok.gain[2], 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(ok.inertia[0], 1.0 + 2.0 * 0.25 + 3.0 / 36.0);
  EXPECT_EQ(ok.redundancy[0], 1);
  const LockedClusters jammed = lock_clusters(inertia, rows({{0, 1, 2.0}, {1, 2, 3.0}, {0, 2, 5.0}}));
  ASSERT_EQ(jammed.num_clusters(), 1);
  EXPECT_TRUE(jammed.grounded[0]);
  EXPECT_EQ(jammed.rep[2], -1);
  // The projection into the consistent cluster keeps the generalised momentum.
  std::vector<double> w = {1.0, 0.0, 0.0};
  project_velocities(ok, inertia, w);
  EXPECT_NEAR(w[0], 1.0 / ok.inertia[0], 1e-15);
  EXPECT_NEAR(w[1], 0.5 * w[0], 1e-15);
  EXPECT_NEAR(w[2], w[0] / 6.0, 1e-15);
}

// A row of three bodies (a clutch on x = q0 + q1 - q2, inertias 1, 2, 4)
// locks one combination: a dense cluster with d = 2 coordinates. The plastic
// projection onto it removes the row's rate along M^-1 c^T:
// w+ = w - M^-1 c^T (c w) / (c M^-1 c^T), c M^-1 c^T = 1 + 1/2 + 1/4 = 1.75,
// and the energy (c w)^2 / (2 c M^-1 c^T).
TEST(Clusters, ARowOfThreeBodiesMakesADenseClusterWithTwoCoordinates) {
  const std::vector<double> inertia = {1.0, 2.0, 4.0, 3.0};
  CoordinateRow row;
  row.n = 3;
  row.body = {0, 1, 2};
  row.c = {1.0, 1.0, -1.0};
  const LockedClusters c = lock_clusters(inertia, {row});
  ASSERT_EQ(c.num_clusters(), 2);  // {0, 1, 2} and body 3 alone
  const int k = c.cluster_of[0];
  ASSERT_TRUE(c.dense(k));
  EXPECT_FALSE(c.dense(c.cluster_of[3]));
  EXPECT_FALSE(c.grounded[k]);
  EXPECT_EQ(c.redundancy[k], 0);
  const DenseBasis& b = c.basis(k);
  ASSERT_EQ(b.dof(), 2);
  for (int q = 0; q < 2; ++q)  // every admitted velocity keeps the row's rate 0 (to roundoff)
    EXPECT_NEAR(b.basis(0, q) + b.basis(1, q) - b.basis(2, q), 0.0, 1e-15);
  EXPECT_TRUE(holds_rate(c, row));                            // the locked row itself
  EXPECT_FALSE(holds_rate(c, two_body_row(0, 1, 1.0)));       // w0 - w1 is free with d = 2
  std::vector<double> w = {1.0, 0.0, 0.0, 7.0};
  const double lost = project_velocities(c, inertia, w);
  EXPECT_NEAR(w[0], 1.0 - 1.0 / 1.75, 1e-15);
  EXPECT_NEAR(w[1], -0.5 / 1.75, 1e-15);
  EXPECT_NEAR(w[2], 0.25 / 1.75, 1e-15);
  EXPECT_EQ(w[3], 7.0);
  EXPECT_NEAR(lost, 1.0 / 3.5, 1e-15);
  EXPECT_FALSE(holds_rate(c, two_body_row(0, 3, 1.0)));  // across clusters
}

// With bearings on two of its bodies the row holds the third too (d = 0):
// the cluster is held; a third bearing is redundant (r - rank = 1).
TEST(Clusters, ADenseClusterWithoutFreedomIsHeld) {
  const std::vector<double> inertia = {1.0, 2.0, 4.0};
  CoordinateRow row;
  row.n = 3;
  row.body = {0, 1, 2};
  row.c = {1.0, 1.0, -1.0};
  const LockedClusters held = lock_clusters(inertia, {row, two_body_row(0, -1, 1.0), two_body_row(1, -1, 1.0)});
  ASSERT_EQ(held.num_clusters(), 1);
  EXPECT_TRUE(held.grounded[0]);
  EXPECT_EQ(held.redundancy[0], 0);
  std::vector<double> w = {1.0, 2.0, 3.0};
  project_velocities(held, inertia, w);
  EXPECT_EQ(w, (std::vector<double>{0.0, 0.0, 0.0}));
  const LockedClusters redundant =
      lock_clusters(inertia, {row, two_body_row(0, -1, 1.0), two_body_row(1, -1, 1.0), two_body_row(2, -1, 1.0)});
  EXPECT_EQ(redundant.redundancy[0], 1);
}

TEST(Signals, ValuesAndBreakpoints) {
  Signal step;
  step.kind = Signal::Kind::step;
  step.time = 1.0;
  step.initial = 2.0;
  step.final_value = -1.0;
  EXPECT_EQ(evaluate(step, 0.999), 2.0);
  EXPECT_EQ(evaluate(step, 1.0), -1.0);  // the value after the step
  Signal table;
  table.kind = Signal::Kind::table;
  table.table_t = {0.0, 1.0, 3.0};
  table.table_v = {0.0, 2.0, -2.0};
  EXPECT_DOUBLE_EQ(evaluate(table, 2.0), 0.0);
  EXPECT_DOUBLE_EQ(evaluate(table, -5.0), 0.0);
  Signal sum;
  sum.kind = Signal::Kind::sum;
  sum.terms = {step, table};
  Signal product;
  product.kind = Signal::Kind::product;
  product.terms = {sum, Signal::make_constant(3.0)};
  EXPECT_DOUBLE_EQ(evaluate(product, 0.5), 3.0 * (2.0 + 1.0));
  std::vector<double> bp;
  collect_breakpoints(product, 0.0, 2.0, bp);
  std::sort(bp.begin(), bp.end());
  EXPECT_EQ(bp, (std::vector<double>{1.0, 1.0}));  // step and knot at 1; 0 and 3 outside (0, 2]
  EXPECT_FALSE(is_constant(product));
  EXPECT_TRUE(is_constant(Signal::make_constant(1.0)));
}

}  // namespace
}  // namespace luztar
