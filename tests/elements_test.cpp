// The element kinds' free functions (elements/) against their closed forms,
// the table of kinds, and the links of the variable structure that assemble()
// numbers (Model::links).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "elements/kinds.hpp"
#include "elements/massless_bearing.hpp"
#include "elements/torque_load.hpp"
#include "model_builder.hpp"

namespace luztar {
namespace {

using namespace luztar::test;
constexpr double kTol = 1e-14;  // relative, for closed forms evaluated in another order

// k = 100 N m/rad, a = 0.1 rad, c = 2 N m s/rad, mesh ratio 3.
Spring freeplay_spring() {
  Spring s;
  s.row = two_body_row(0, 1, 3.0);
  s.stiffness = 100.0;
  s.freeplay = 0.1;
  s.damping = 2.0;
  return s;
}

TEST(SpringLaw, RelationIsTheMeshRelativeAngleAndRate) {
  const Spring s = freeplay_spring();
  const double q[] = {1.0, 0.25}, w[] = {-2.0, 0.5};
  const SpringRelation r = spring_relation(s, q, w);
  EXPECT_DOUBLE_EQ(r.x, 1.0 - 3.0 * 0.25);  // q_a - p q_b
  EXPECT_DOUBLE_EQ(r.rate, -2.0 - 3.0 * 0.5);
}

TEST(SpringLaw, TorqueInEachSideIsTheBranchOfLuz) {
  const Spring s = freeplay_spring();
  // x = 0.3 > a: T = k (x - a) + c x' = 100 * 0.2 + 2 * 0.5 = 21.
  EXPECT_NEAR(spring_torque(s, {0.3, 0.5}, +1), 21.0, 21.0 * kTol);
  EXPECT_NEAR(spring_torque_exact(s, {0.3, 0.5}), 21.0, 21.0 * kTol);
  // x = -0.3 < -a: T = 100 * (-0.2) + 1 = -19.
  EXPECT_NEAR(spring_torque(s, {-0.3, 0.5}, -1), -19.0, 19.0 * kTol);
  EXPECT_NEAR(spring_torque_exact(s, {-0.3, 0.5}), -19.0, 19.0 * kTol);
  // In the gap only the damper: c x' = 1.
  EXPECT_DOUBLE_EQ(spring_torque(s, {0.05, 0.5}, 0), 1.0);
  EXPECT_DOUBLE_EQ(spring_torque_exact(s, {0.05, 0.5}), 1.0);
  // The side is kept between events: past the kink, side 0 still gives c x'.
  EXPECT_DOUBLE_EQ(spring_torque(s, {0.3, 0.5}, 0), 1.0);
  // A linear spring (a = 0): k x + c x'.
  Spring linear = s;
  linear.freeplay = 0.0;
  EXPECT_NEAR(spring_torque(linear, {0.3, 0.5}, 0), 31.0, 31.0 * kTol);
  EXPECT_NEAR(spring_torque_exact(linear, {0.3, 0.5}), 31.0, 31.0 * kTol);
  // A rigid freeplay: its damping only (the contact torque is its link's).
  Spring rigid = s;
  rigid.stiffness = INFINITY;
  EXPECT_DOUBLE_EQ(spring_torque(rigid, {0.1, 0.5}, +1), 1.0);
  EXPECT_DOUBLE_EQ(spring_torque_exact(rigid, {0.3, 0.5}), 1.0);
  // The elastic part alone (the torque balance of algebraic bodies): k luz(x, a).
  EXPECT_NEAR(spring_elastic_torque(s, 0.3), 20.0, 20.0 * kTol);
  EXPECT_EQ(spring_elastic_torque(s, -0.05), 0.0);
}

TEST(SpringLaw, TangentsAndPower) {
  const Spring s = freeplay_spring();
  EXPECT_EQ(spring_stiffness(s, +1), 100.0);
  EXPECT_EQ(spring_stiffness(s, -1), 100.0);
  EXPECT_EQ(spring_stiffness(s, 0), 0.0);
  Spring linear = s;
  linear.freeplay = 0.0;
  EXPECT_EQ(spring_stiffness(linear, 0), 100.0);
  Spring rigid = s;
  rigid.stiffness = INFINITY;
  EXPECT_EQ(spring_stiffness(rigid, +1), 0.0);
  EXPECT_EQ(spring_damping(s), 2.0);
  EXPECT_DOUBLE_EQ(spring_dissipation(s, 0.5, 0.5), 0.5);  // c x'^2
  // The torque acts -T on a and +p T on b.
  double force[] = {0.0, 0.0};
  apply_spring_torque(s, 2.0, force);
  EXPECT_EQ(force[0], -2.0);
  EXPECT_EQ(force[1], 6.0);
}

// The rounding of x = q_a - p q_b and of x - flank, in torque: eps k
// (|q_a| + |p q_b| + |flank|) on a stiff branch, nothing in the gap, and
// growing with the angles turned whatever the torque.
TEST(SpringLaw, CoordinateRoundoffGrowsWithTheAnglesTurned) {
  const Spring s = freeplay_spring();  // k 100, a 0.1, p 3
  const double eps = std::numeric_limits<double>::epsilon();
  const double q[] = {30.0, 10.0};      // x = 0 (in the gap)
  EXPECT_EQ(spring_coordinate_roundoff(s, 0, q), 0.0);
  EXPECT_DOUBLE_EQ(spring_coordinate_roundoff(s, +1, q), eps * 100.0 * (30.0 + 30.0 + 0.1));
  EXPECT_DOUBLE_EQ(spring_coordinate_roundoff(s, -1, q), eps * 100.0 * (30.0 + 30.0 + 0.1));
  const double far[] = {3e5, 1e5};
  EXPECT_DOUBLE_EQ(spring_coordinate_roundoff(s, +1, far) / spring_coordinate_roundoff(s, +1, q), (6e5 + 0.1) / 60.1);
  Spring rigid = s;
  rigid.stiffness = INFINITY;  // a constraint: its torque is solved, not formed from x
  EXPECT_EQ(spring_coordinate_roundoff(rigid, +1, q), 0.0);
}

TEST(SpringLaw, SideAtAFlankFollowsTheRate) {
  EXPECT_EQ(freeplay_side(0.1, 0.1, +1.0), 1);
  EXPECT_EQ(freeplay_side(0.1, 0.1, -1.0), 0);
  EXPECT_EQ(freeplay_side(-0.1, 0.1, -1.0), -1);
  EXPECT_EQ(freeplay_side(0.0, 0.1, 5.0), 0);
}

std::vector<std::pair<WitnessKind, int>> kinds_and_directions(const std::vector<Witness>& ws) {
  std::vector<std::pair<WitnessKind, int>> out;
  for (const Witness& w : ws) out.push_back({w.kind, w.direction});
  return out;
}

TEST(SpringWitnesses, ElasticSpringWatchesBothKinksFromTheGapOneFromOutside) {
  using K = WitnessKind;
  const Spring s = freeplay_spring();
  std::vector<Witness> ws;
  spring_witnesses(s, 4, 0, 0.0, false, false, 1e-9, ws);
  EXPECT_EQ(kinds_and_directions(ws), (std::vector<std::pair<K, int>>{{K::freeplay_upper, +1}, {K::freeplay_lower, -1}}));
  EXPECT_EQ(ws[0].index, 4);
  ws.clear();
  spring_witnesses(s, 4, +1, 0.3, false, false, 1e-9, ws);
  EXPECT_EQ(kinds_and_directions(ws), (std::vector<std::pair<K, int>>{{K::freeplay_upper, -1}}));
  ws.clear();
  spring_witnesses(s, 4, -1, -0.3, false, false, 1e-9, ws);
  EXPECT_EQ(kinds_and_directions(ws), (std::vector<std::pair<K, int>>{{K::freeplay_lower, +1}}));
}

TEST(SpringWitnesses, RigidFreeplayInItsGapWatchesTheFlanksAndTheTurnaround) {
  using K = WitnessKind;
  Spring s = freeplay_spring();
  s.stiffness = INFINITY;
  std::vector<Witness> ws;
  spring_witnesses(s, 0, 0, -0.05, false, false, 1e-9, ws);  // nearer the - flank
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_EQ(ws[2].kind, K::gap_turnaround);
  EXPECT_EQ(ws[2].direction, -1);
  EXPECT_EQ(ws[2].level, -1e-9);
  ws.clear();
  spring_witnesses(s, 0, 0, 0.05, true, false, 1e-9, ws);  // x' held at 0: no turnaround
  EXPECT_EQ(kinds_and_directions(ws), (std::vector<std::pair<K, int>>{{K::freeplay_upper, +1}, {K::freeplay_lower, -1}}));
  ws.clear();
  spring_witnesses(s, 0, +1, 0.1, false, false, 1e-9, ws);  // in contact: its torque unloading
  EXPECT_EQ(kinds_and_directions(ws), (std::vector<std::pair<K, int>>{{K::contact_force, -1}}));
  ws.clear();
  spring_witnesses(s, 0, +1, 0.1, false, true, 1e-9, ws);  // watched through its group
  EXPECT_TRUE(ws.empty());
}

TEST(FrictionLaw, KineticTorqueLimitAndPower) {
  Friction f;
  f.row = two_body_row(0, 1, 1.0);
  f.viscous = 0.5;
  f.static_ratio = 1.5;
  const double w[] = {3.0, 1.0};
  EXPECT_EQ(friction_rate(f, w), 2.0);
  // mu v + MT0 dir = 0.5 * 2 + 4 = 5 slipping +; -4 + 1 = -3 slipping - (at the instant of reversal).
  EXPECT_EQ(kinetic_friction_torque(f, 2.0, FrictionMode::slip_positive, 4.0), 5.0);
  EXPECT_EQ(kinetic_friction_torque(f, 2.0, FrictionMode::slip_negative, 4.0), -3.0);
  EXPECT_EQ(static_friction_limit(f, 4.0), 6.0);
  EXPECT_EQ(friction_damping(f), 0.5);
  EXPECT_EQ(friction_dissipation(f, 2.0, FrictionMode::slip_positive, 4.0), 10.0);
  EXPECT_EQ(friction_dissipation(f, 0.0, FrictionMode::stuck, 4.0), 0.0);
  double force[] = {0.0, 0.0};
  apply_friction_torque(f, 5.0, force);
  EXPECT_EQ(force[0], -5.0);
  EXPECT_EQ(force[1], 5.0);
}

TEST(FrictionWitnesses, StuckWatchesReservesSlippingItsVelocity) {
  using K = WitnessKind;
  std::vector<Witness> ws;
  friction_witnesses(2, FrictionMode::stuck, 1e-9, ws);
  EXPECT_EQ(kinds_and_directions(ws), (std::vector<std::pair<K, int>>{{K::stick_upper, -1}, {K::stick_lower, -1}}));
  ws.clear();
  friction_witnesses(2, FrictionMode::slip_positive, 1e-9, ws);
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws[0].direction, -1);
  EXPECT_EQ(ws[0].level, -1e-9);  // past zero: a slip starting at v = 0 is not an arrival
}

TEST(MasslessBearing, FirstOrderBranchesAndSharedHoldingTorque) {
  // mu q' = luz(M, MT0): M = 5, MT0 = 2, mu = 3 -> q' = 1 on the + branch, 0 held.
  EXPECT_EQ(massless_velocity(5.0, 2.0, 3.0, +1), 1.0);
  EXPECT_EQ(massless_velocity(-5.0, 2.0, 3.0, -1), -1.0);
  EXPECT_EQ(massless_velocity(1.0, 2.0, 3.0, 0), 0.0);
  Friction f;
  f.viscous = 1.0;
  // Moving at w = 1: mu w + MT0 = 1 + 0.5. Held: M shared as MT0_i / MT0_total = 0.5 / 2.
  EXPECT_EQ(massless_bearing_torque(f, 1.0, +1, 0.5, 2.0, 1.2), 1.5);
  EXPECT_EQ(massless_bearing_torque(f, 0.0, 0, 0.5, 2.0, 1.2), 0.3);
  std::vector<Witness> ws;
  massless_witnesses(7, 0, ws);
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[0].kind, WitnessKind::massless_upper);
  EXPECT_EQ(ws[1].kind, WitnessKind::massless_lower);
  const double force[8] = {0, 0, 0, 0, 0, 0, 0, 1.5}, mt0[8] = {0, 0, 0, 0, 0, 0, 0, 2.0};
  WitnessInputs in;
  in.force = force;
  in.massless_mt0 = mt0;
  const Model none;
  EXPECT_EQ(witness_value(none, ws[0], in), -0.5);  // M - MT0
  EXPECT_EQ(witness_value(none, ws[1], in), 3.5);   // M + MT0
}

TEST(KindsTable, OneRowPerWitnessKindInOrderNamedOnce) {
  std::set<std::string> names;
  for (int k = 0; k < kNumWitnessKinds; ++k) {
    const WitnessKindInfo& info = witness_kind_info(static_cast<WitnessKind>(k));
    EXPECT_EQ(static_cast<int>(info.kind), k);
    EXPECT_NE(info.value, nullptr);
    names.insert(info.name);
    // Only a turnaround in a gap changes no mode.
    EXPECT_EQ(structural(info.kind), info.kind != WitnessKind::gap_turnaround) << info.name;
    // A crossing that leads to a side or direction names it (a lossy gear's
    // mesh torque flips the sign it watches, whichever it is: none).
    const bool sided = info.crossing == Crossing::freeplay_flank || info.crossing == Crossing::massless_kink ||
                       info.crossing == Crossing::reserve_exhausted ||
                       (info.crossing == Crossing::own_mode && info.kind != WitnessKind::gear_mesh) ||
                       info.crossing == Crossing::segment;
    EXPECT_EQ(std::abs(info.sign), sided ? 1 : 0) << info.name;
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kNumWitnessKinds));
  EXPECT_STREQ(witness_kind_info(WitnessKind::gap_turnaround).name, "gap_turnaround");
  EXPECT_EQ(witness_kind_info(WitnessKind::stick_lower).sign, -1);
  EXPECT_EQ(witness_kind_info(WitnessKind::freeplay_upper).crossing, Crossing::freeplay_flank);
}

// The solvers visit every kind once in each order through its row, which
// names its kind and has what every solver needs of it (an output in both).
TEST(KindsTable, EveryKindHasARowVisitedOnceInEachOrder) {
  for (int k = 0; k < kNumElementKinds; ++k) {
    const auto kind = static_cast<ElementKind>(k);
    const ElementKindInfo& row = element_kind_info(kind);
    EXPECT_EQ(row.kind, kind) << to_string(kind);
    EXPECT_NE(row.output, nullptr) << to_string(kind);
    EXPECT_NE(row.step_output, nullptr) << to_string(kind);
    EXPECT_EQ(row.event == nullptr, row.state == nullptr) << to_string(kind);  // a state that changes is logged
    EXPECT_EQ(row.sticks, element_sticks(kind)) << to_string(kind);  // the row and core (time stuck) agree
    EXPECT_EQ(std::count(std::begin(kSumOrder), std::end(kSumOrder), kind), 1) << to_string(kind);
    EXPECT_EQ(std::count(std::begin(kListOrder), std::end(kListOrder), kind), 1) << to_string(kind);
  }
}

ModelSpec linked_model();

TEST(KindsTable, EventOfAStateChange) {
  const Model m = assemble(linked_model());  // spring 0: the elastic shaft, friction 0: a bearing
  const auto& spring = element_kind_info(ElementKind::spring);
  const auto& friction = element_kind_info(ElementKind::friction);
  EXPECT_EQ(spring.kind, ElementKind::spring);
  EXPECT_STREQ(to_string(ElementKind::friction), "friction");
  EXPECT_EQ(spring.event(m, 0, 0, 1), EventKind::contact);
  EXPECT_EQ(spring.event(m, 0, -1, 0), EventKind::separation);
  EXPECT_EQ(friction.event(m, 0, 1, 0), EventKind::stick);
  EXPECT_EQ(friction.event(m, 0, 0, -1), EventKind::break_away);
  EXPECT_EQ(friction.event(m, 0, 1, -1), EventKind::reversal);
  EXPECT_EQ(element_kind_info(ElementKind::torque).event, nullptr);
  const auto& one_way = element_kind_info(ElementKind::one_way_clutch);
  EXPECT_STREQ(to_string(ElementKind::one_way_clutch), "one_way_clutch");
  EXPECT_EQ(one_way.event(m, 0, 1, 0), EventKind::lock);  // (its state alone decides)
  EXPECT_EQ(one_way.event(m, 0, 0, -1), EventKind::overrun);
}

// Bodies a, b, c; a bearing on a, a clutch a-b, an elastic spring a-b, a rigid
// freeplay b-c of ratio 2, a torque on c, a bearing on c.
ModelSpec linked_model() {
  ModelSpec spec;
  spec.name = "links";
  spec.bodies = {body("a", 1.0), body("b", 2.0), body("c", 3.0)};
  SpringSpec rigid = spring("mesh", "b", "c", INFINITY, 0.01, 2.0);
  spec.elements = {friction("bearing_a", "a", "", 1.0), spring("shaft", "a", "b", 50.0, 0.1), rigid,
                   friction("clutch", "a", "b", 2.0), torque("drive", "c", Signal::make_constant(1.0)),
                   friction("bearing_c", "c", "", 0.5)};
  spec.simulation = settings(1.0, 0.1);
  return spec;
}

TEST(ModelLinks, FrictionsThenRigidFreeplaysWithTheirKinematics) {
  const Model m = assemble(linked_model());
  ASSERT_EQ(m.num_links(), 4);
  const int a = m.body_index("a"), b = m.body_index("b"), c = m.body_index("c");
  struct Expected {
    LinkKind kind;
    int element, a, b;
    double ratio;
  };
  const Expected expected[] = {{LinkKind::friction, 0, a, kGround, 1.0},
                               {LinkKind::friction, 1, a, b, 1.0},
                               {LinkKind::friction, 2, c, kGround, 1.0},
                               {LinkKind::contact, 1, b, c, 2.0}};
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ(m.links[l].kind, expected[l].kind) << l;
    EXPECT_EQ(m.links[l].element, expected[l].element) << l;
    const CoordinateRow want = two_body_row(expected[l].a, expected[l].b, expected[l].ratio), &got = m.links[l].row;
    ASSERT_EQ(got.n, want.n) << l;  // x = q_a - ratio q_b: the row (1, -ratio) on (a, b)
    for (int t = 0; t < want.n; ++t) {
      EXPECT_EQ(got.body[t], want.body[t]) << l;
      EXPECT_EQ(got.c[t], want.c[t]) << l;
    }
    EXPECT_EQ(m.is_contact_link(l), expected[l].kind == LinkKind::contact) << l;
  }
  EXPECT_EQ(m.element_names[m.friction_element[m.links[1].element]], "clutch");
  EXPECT_EQ(m.element_names[m.spring_element[m.links[3].element]], "mesh");
  EXPECT_EQ(m.spring_link, (std::vector<int>{-1, 3}));  // the elastic shaft is no link
}

// One-way clutches are links after the rigid freeplays, their drags signal
// slots after the frictions' MT0.
TEST(ModelLinks, OneWayClutchesLast) {
  ModelSpec spec = linked_model();
  OneWayClutchSpec c;
  c.name = "sprag";
  c.body_a = "c";
  c.body_b = "b";
  c.overrun = "negative";
  c.coulomb = Signal::make_constant(0.2);
  spec.elements.insert(spec.elements.begin(), c);
  const Model m = assemble(spec);
  ASSERT_EQ(m.num_links(), 5);
  const ModelLink& l = m.links[4];
  EXPECT_EQ(l.kind, LinkKind::one_way);
  EXPECT_EQ(l.element, 0);
  ASSERT_EQ(l.row.n, 2);
  EXPECT_EQ(l.row.body[0], m.body_index("c"));
  EXPECT_EQ(l.row.body[1], m.body_index("b"));
  EXPECT_EQ(l.row.c[1], -1.0);
  EXPECT_TRUE(m.is_one_way_link(4));
  EXPECT_EQ(m.link_element(4), 0);
  EXPECT_EQ(m.link_element(3), m.element_id("mesh"));
  EXPECT_EQ(m.one_way_clutches[0].link, 4);
  EXPECT_EQ(m.one_way_clutches[0].overrun, -1);
  EXPECT_EQ(m.one_way_clutches[0].law.slot, static_cast<int>(m.slots.size()) - 1);
  EXPECT_STREQ(m.slots.back().field, "coulomb");
  EXPECT_EQ(m.slots.back().element, 0);
}

TEST(TorqueLoad, TorqueAndPower) {
  const Model m = assemble(linked_model());
  const double w[] = {0.0, 0.0, 4.0};
  EXPECT_EQ(load_torque(m, 0, 0.5, nullptr), 1.0);
  EXPECT_EQ(load_power(m, 0, 0.5, nullptr, w), 4.0);  // tau w_c
  EXPECT_EQ(load_output(m, 0, 0.5, nullptr).state, 0);
}

}  // namespace
}  // namespace luztar
