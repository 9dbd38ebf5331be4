// Locked clusters (bodies held together by stuck friction) and the velocity
// projection that enters a stuck structure.
#include <gtest/gtest.h>

#include "bodies/clusters.hpp"
#include "core/signal.hpp"

namespace luztar {
namespace {

TEST(Clusters, GroupsBodiesAndCountsLoops) {
  // bodies 0..4; stuck: bearing on 0, clutch 0-1, clutch 2-3, bearing on 3, bearing on 3 (twice), nothing on 4
  const std::vector<double> inertia = {1, 2, 3, 4, 5};
  const LockedClusters c = lock_clusters(inertia, {{0, -1}, {0, 1}, {2, 3}, {3, -1}, {3, -1}});
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
  const LockedClusters c = lock_clusters(inertia, {{0, 1}, {2, -1}});
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
  const LockedClusters ok = lock_clusters(inertia, {{0, 1, 2.0}, {1, 2, 3.0}, {0, 2, 6.0}});
  ASSERT_EQ(ok.num_clusters(), 1);
  EXPECT_FALSE(ok.grounded[0]);
  EXPECT_DOUBLE_EQ(ok.gain[1], 0.5);
  EXPECT_DOUBLE_EQ(ok.gain[2], 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(ok.inertia[0], 1.0 + 2.0 * 0.25 + 3.0 / 36.0);
  EXPECT_EQ(ok.redundancy[0], 1);
  const LockedClusters jammed = lock_clusters(inertia, {{0, 1, 2.0}, {1, 2, 3.0}, {0, 2, 5.0}});
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
