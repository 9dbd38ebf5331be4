// Elements on a generalised relative coordinate x = sum c_i q_i (issue 19
// item 1, design 3.1): `coordinate: {body: c, ...}` for springs, friction
// elements and one-way clutches; rows of three or more bodies lock through the
// dense clusters of bodies/clusters.hpp.
//
// Hand derivations (M = diag(I), an element's effort T acts on body i as -c_i T):
//  - Three-term spring (ThreeTermSpring...): x = q1 + 2 q2 - 3 q3, k = 50,
//    I = (1, 0.5, 2), q1(0) = 0.1, all at rest. x'' = sum c_i q_i'' =
//    -k x sum c_i^2 / I_i = -k x (1 + 8 + 4.5) = -675 x, so x = 0.1 cos(w t),
//    w = sqrt(675) = 25.98 rad/s. The momentum sum I_i w_i changes at
//    -k x sum c_i = 0: it stays 0.
//  - Stuck clutch on a three-term row (StuckClutch...): I = (1, 2, 4), the
//    clutch on v = w1 + w2 - w3 with MT0 = 10, a torque 3 on body 1, at rest.
//    Stuck, the row locks w1 + w2 = w3 (a dense cluster of 3 bodies and d = 2
//    coordinates); Gauss: lambda = c M^-1 f / c M^-1 c^T = 3 / (1 + 1/2 + 1/4)
//    = 12/7 < 10, accelerations a = M^-1 (f - c^T lambda) = (9/7, -6/7, 3/7)
//    (a1 + a2 - a3 = 0). MT0 then ramps 10 -> 0 over [1, 2] s: it breaks away
//    where MT0(t) = 12/7, t = 1 + (10 - 12/7)/10 = 1.828571428... s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "solvers/simulator.hpp"
#include "tests/model_builder.hpp"

namespace luztar {
namespace {

using test::angle;
using test::body;
using test::velocity;

const char* const kIntegrators[] = {"exact", "cvode_bdf"};

std::vector<CoordinateTerm> terms(std::initializer_list<CoordinateTerm> t) { return t; }

// A figure for the test report (RecordProperty), in scientific notation.
std::string sci(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", v);
  return text;
}

// --- 2. a three-term spring oscillates at sqrt(k c M^-1 c^T) -----------------
ModelSpec three_term_spring() {
  ModelSpec spec;
  spec.bodies = {body("b1", 1.0, 0.1), body("b2", 0.5), body("b3", 2.0)};
  SpringSpec s;
  s.name = "mesh";
  s.coordinate = terms({{"b1", 1.0}, {"b2", 2.0}, {"b3", -3.0}});
  s.stiffness = 50.0;
  spec.elements = {s};
  spec.simulation = test::settings(1.0, 0.01);
  return spec;
}

double coordinate_at(const Result& r, int k) { return angle(r, k, 0) + 2.0 * angle(r, k, 1) - 3.0 * angle(r, k, 2); }

void expect_normal_mode(const Result& r, double tolerance, const std::string& what) {
  const double w = std::sqrt(50.0 * 13.5);
  double worst = 0.0, momentum = 0.0;
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    const int i = static_cast<int>(k);
    worst = std::max(worst, std::abs(coordinate_at(r, i) - 0.1 * std::cos(w * r.time[k])));
    momentum = std::max(momentum, std::abs(velocity(r, i, 0) + 0.5 * velocity(r, i, 1) + 2.0 * velocity(r, i, 2)));
  }
  EXPECT_LT(worst, tolerance) << what;
  EXPECT_LT(momentum, tolerance) << what;
  ::testing::Test::RecordProperty(what + "_max_error", sci(worst));
}

TEST(Coordinate, ThreeTermSpringOscillatesAtItsNormalMode) {
  for (const char* integrator : kIntegrators) {
    ModelSpec spec = three_term_spring();
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.time.back(), 1.0);
    expect_normal_mode(r, std::string(integrator) == "exact" ? 1e-12 : 1e-8, integrator);
  }
}

// Moreau-Jean at theta = 1/2 (the midpoint rule: no amplitude loss) with
// h = 1e-4: its phase lags by w^3 h^2 / 12 per second = 1.5e-5 rad, an error
// of 0.1 * 1.5e-5 = 1.5e-6 in x after 1 s; 1e-5 allows for it.
TEST(Coordinate, ThreeTermSpringInTimeStepping) {
  ModelSpec spec = three_term_spring();
  spec.simulation.solver = "time_stepping";
  spec.simulation.step = 1e-4;
  spec.simulation.theta = 0.5;
  expect_normal_mode(simulate(assemble(spec)), 1e-5, "time_stepping");
}

// --- 3. a stuck clutch on a three-term row: a dense cluster --------------------
ModelSpec stuck_clutch() {
  ModelSpec spec;
  spec.bodies = {body("b1", 1.0), body("b2", 2.0), body("b3", 4.0)};
  FrictionSpec f = test::friction("lsd", "", "", 0.0);
  f.coordinate = terms({{"b1", 1.0}, {"b2", 1.0}, {"b3", -1.0}});
  f.coulomb = test::ramp(1.0, 2.0, 10.0, 0.0);
  spec.elements = {f, test::torque("drive", "b1", Signal::make_constant(3.0))};
  spec.simulation = test::settings(2.0, 0.01);
  return spec;
}

double break_away(const Result& r) {
  for (const EventRecord& e : r.events)
    if (e.element == 0 && e.before == 0 && e.after != 0) return e.t;
  return NAN;
}

TEST(Coordinate, StuckClutchOnThreeBodiesHoldsItsRowAndBreaksAway) {
  const double lambda = 12.0 / 7.0, t_break = 1.0 + (10.0 - lambda) / 10.0;
  const double a[3] = {9.0 / 7.0, -6.0 / 7.0, 3.0 / 7.0};
  for (const char* integrator : kIntegrators) {
    ModelSpec spec = stuck_clutch();
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    const double tol = std::string(integrator) == "exact" ? 1e-12 : 1e-8;
    const int k1 = 100;  // t = 1 s, stuck since t = 0
    ASSERT_NEAR(r.time[k1], 1.0, 1e-15);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(velocity(r, k1, j), a[j], tol) << integrator << " body " << j;
    EXPECT_NEAR(test::element_torque(r, k1, 0), lambda, tol) << integrator;
    EXPECT_EQ(test::element_state(r, k1, 0), 0) << integrator;
    EXPECT_NEAR(break_away(r), t_break, 1e-9) << integrator;
    ::testing::Test::RecordProperty(std::string(integrator) + "_break_away_error", sci(break_away(r) - t_break));
  }
}

// The time stepper holds the same row (its impulse per step lambda h) and
// lets go within a step of the break-away.
TEST(Coordinate, StuckClutchOnThreeBodiesInTimeStepping) {
  ModelSpec spec = stuck_clutch();
  spec.simulation.solver = "time_stepping";
  spec.simulation.step = 1e-4;
  const Result r = simulate(assemble(spec));
  const int k1 = 100;
  EXPECT_NEAR(velocity(r, k1, 0), 9.0 / 7.0, 1e-9);
  EXPECT_NEAR(velocity(r, k1, 1), -6.0 / 7.0, 1e-9);
  EXPECT_NEAR(velocity(r, k1, 2), 3.0 / 7.0, 1e-9);
  const int k18 = 182, k19 = 184;  // 1.82 s stuck, 1.84 s slipping
  EXPECT_NEAR(velocity(r, k18, 0) + velocity(r, k18, 1) - velocity(r, k18, 2), 0.0, 1e-9);
  EXPECT_GT(std::abs(velocity(r, k19, 0) + velocity(r, k19, 1) - velocity(r, k19, 2)), 1e-6);
}

// A one-way clutch on the same row (overrun positive, no drag), the torque
// reversed (-3 on body 1): it would turn its row negative, so it locks at
// once and carries lambda = -12/7 (its unbounded side), the accelerations
// those of the stuck clutch reversed: -(9/7, -6/7, 3/7). Pushed the other way
// (+3) it overruns freely: body 1 alone accelerates at 3.
TEST(Coordinate, OneWayClutchOnThreeBodiesLocksOneWayOnly) {
  for (const char* integrator : kIntegrators)
    for (const double drive : {-3.0, 3.0}) {
      ModelSpec spec = stuck_clutch();
      OneWayClutchSpec c = test::one_way("sprag", "", "", Signal::make_constant(0.0));
      c.coordinate = terms({{"b1", 1.0}, {"b2", 1.0}, {"b3", -1.0}});
      spec.elements = {c, test::torque("drive", "b1", Signal::make_constant(drive))};
      spec.simulation.t_end = 1.0;
      spec.simulation.integrator = integrator;
      const Result r = simulate(assemble(spec));
      const int k = 100;
      const double expected[3] = {drive < 0 ? -9.0 / 7.0 : 3.0, drive < 0 ? 6.0 / 7.0 : 0.0,
                                  drive < 0 ? -3.0 / 7.0 : 0.0};
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(velocity(r, k, j), expected[j], 1e-9) << integrator << " " << drive;
      if (drive < 0) {
        EXPECT_NEAR(test::element_torque(r, k, 0), -12.0 / 7.0, 1e-9) << integrator;
      }
    }
}

// Rigid freeplay on x = q1 + q2 - q3 (gap +-0.01, restitution 1), body 1 at
// 1 rad/s: the teeth strike at t = 0.01 s. Newton's law on the row: the
// impulse Pi = -(1 + e) x'- / (c M^-1 c^T) = -2 / 1.75 = -8/7 along c, so
// w+ = w- + M^-1 c Pi = (-1/7, -4/7, 2/7): x'+ = -1 and the kinetic energy
// stays 0.5 J. Until the other flank (x = -0.01 at t = 0.03 s) nothing else acts.
TEST(Coordinate, RigidFreeplayOnThreeBodiesStrikesAlongItsRow) {
  for (const char* integrator : kIntegrators) {
    ModelSpec spec;
    spec.bodies = {body("b1", 1.0, 0.0, 1.0), body("b2", 2.0), body("b3", 4.0)};
    SpringSpec s;
    s.name = "teeth";
    s.coordinate = terms({{"b1", 1.0}, {"b2", 1.0}, {"b3", -1.0}});
    s.stiffness = INFINITY;
    s.freeplay = 0.01;
    s.restitution = 1.0;
    spec.elements = {s};
    spec.simulation = test::settings(0.025, 0.001);
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    const int k = 20;  // t = 0.02 s
    EXPECT_NEAR(velocity(r, k, 0), -1.0 / 7.0, 1e-12) << integrator;
    EXPECT_NEAR(velocity(r, k, 1), -4.0 / 7.0, 1e-12) << integrator;
    EXPECT_NEAR(velocity(r, k, 2), 2.0 / 7.0, 1e-12) << integrator;
    ASSERT_FALSE(r.events.empty());
    EXPECT_NEAR(r.events.front().t, 0.01, 1e-12) << integrator;
  }
}

// --- 4. the exact integrator's rank test -------------------------------------
ModelSpec three_clutches(std::vector<std::vector<CoordinateTerm>> rows) {
  ModelSpec spec;
  spec.bodies = {body("b1", 1.0), body("b2", 1.0), body("b3", 1.0)};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    FrictionSpec f = test::friction("c" + std::to_string(i + 1), "", "", 10.0);
    f.coordinate = rows[i];
    spec.elements.push_back(f);
  }
  spec.elements.push_back(test::torque("drive", "b1", Signal::make_constant(1.0)));
  spec.simulation = test::settings(1.0, 0.1);
  return spec;
}

TEST(Coordinate, ExactRefusesALoopOfLinksAndServesARatioLoopThatDoesNotClose) {
  const Model loop = assemble(three_clutches({terms({{"b1", 1.0}, {"b2", -1.0}}), terms({{"b2", 1.0}, {"b3", -1.0}}),
                                              terms({{"b1", 1.0}, {"b3", -1.0}})}));
  EXPECT_EQ(exact_integrator_refusal(loop), "element 'c3' closes a loop of clutches, bearings and rigid freeplays");
  // q1 = 2 q2, q2 = 2 q3, q1 = 3 q3: independent rows (4 != 3), a jammed
  // cluster. Its static torques are unique: F^T lambda = (1, 0, 0) gives
  // lambda = (-3, -6, 4), all within MT0 = 10, so it holds (at 5 N m the
  // second clutch would slip).
  const Model jammed = assemble(three_clutches({terms({{"b1", 1.0}, {"b2", -2.0}}),
                                                terms({{"b2", 1.0}, {"b3", -2.0}}),
                                                terms({{"b1", 1.0}, {"b3", -3.0}})}));
  EXPECT_EQ(exact_integrator_refusal(jammed), "");
  SimulationSettings s = jammed.simulation;
  s.integrator = "exact";
  const Result r = simulate(jammed, s);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(velocity(r, static_cast<int>(r.time.size()) - 1, j), 0.0);
  // Rows of three terms: (1, 1, -1) + (0, 1, -1) = (1, 2, -2), the third.
  const Model three = assemble(three_clutches({terms({{"b1", 1.0}, {"b2", 1.0}, {"b3", -1.0}}),
                                               terms({{"b2", 1.0}, {"b3", -1.0}}),
                                               terms({{"b1", 1.0}, {"b2", 2.0}, {"b3", -2.0}})}));
  EXPECT_EQ(exact_integrator_refusal(three), "element 'c3' closes a loop of links (its row depends on the others)");
}

// --- 1. today's two-body form, written as a coordinate, is the same model ----
// Every element of every model in models/ on `body`/`bodies` (not at a massless
// body, not a rigid connection: those keep the two-body form) rewritten as
// `coordinate: {a: 1, b: -ratio}` gives the same results bit for bit.
bool rewrite_as_coordinate(const ModelSpec& spec, ElementSpec& e) {
  auto massless = [&](const std::string& name) {
    for (const BodySpec& b : spec.bodies)
      if (b.name == name) return b.inertia == 0.0;
    return false;
  };
  return std::visit([&](auto& s) {
    if constexpr (requires { s.coordinate; }) {
      if (s.body_a.empty() || massless(s.body_a) || massless(s.body_b)) return false;
      double p = 1.0;
      if constexpr (requires { s.stiffness; }) {
        if (std::isinf(s.stiffness) && !spring_has_gap(s)) return false;
      }
      if constexpr (requires { s.ratio; }) {
        p = s.ratio;
        s.ratio = 1.0;
      }
      s.coordinate = {{s.body_a, 1.0}};
      if (!s.body_b.empty()) s.coordinate.push_back({s.body_b, -p});
      s.body_a.clear();
      s.body_b.clear();
      return true;
    }
    return false;
  }, e);
}

// Equal value by value, bit for bit; NaN (a removed body the reduction leaves
// undetermined, README "Model reduction") only where the other has NaN.
bool identical(const std::vector<double>& a, const std::vector<double>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); });
}

TEST(Coordinate, EveryModelWrittenWithCoordinatesGivesIdenticalResults) {
  int rewritten = 0;
  for (const std::string& name : test::model_files()) {
    const ModelSpec spec = io::load_model_spec(std::string(LUZTAR_MODELS_DIR) + "/" + name + ".yaml");
    ModelSpec alt = spec;
    bool any = false;
    for (ElementSpec& e : alt.elements) any = rewrite_as_coordinate(alt, e) || any;
    if (!any) continue;
    ++rewritten;
    const Model m = assemble(spec), m_alt = assemble(alt);
    for (const char* integrator : kIntegrators) {
      if (std::string(integrator) == "exact" && !exact_integrator_refusal(m).empty()) continue;
      SimulationSettings s = m.simulation;
      if (s.solver == "time_stepping") {
        if (std::string(integrator) == "exact") continue;
      } else {
        s.integrator = integrator;
      }
      s.t_end = std::min(s.t_end, s.t_start + 1.0);  // identical step by step: a second shows it
      const Result a = simulate(m, s), b = simulate(m_alt, s);
      EXPECT_EQ(a.time, b.time) << name << " " << integrator;
      EXPECT_TRUE(identical(a.angle, b.angle)) << name << " " << integrator;
      EXPECT_TRUE(identical(a.velocity, b.velocity)) << name << " " << integrator;
      EXPECT_EQ(a.element_torque, b.element_torque) << name << " " << integrator;
      EXPECT_EQ(a.events.size(), b.events.size()) << name << " " << integrator;
    }
  }
  EXPECT_GT(rewritten, 5);
}

// --- 6. luztar reduce keeps a coordinate of three terms ----------------------
// A rigid spring q_c = 2 q_d merges c (the lighter) into d: the spring on
// x = q_a + 2 q_b - 3 q_c is then on q_a + 2 q_b - 6 q_d, its law unchanged;
// written and read back it is the same model. A two-term coordinate (1, -p)
// is written as `bodies` + `ratio`.
TEST(Coordinate, ReduceWritesAThreeTermCoordinateWithTheRatioApplied) {
  const std::string text = R"(name: coordinate_reduce
simulation: {t_end: 0.1, output_step: 0.01}
bodies:
  a: {inertia: 1.0, angle: 0.01}
  b: {inertia: 0.5}
  c: {inertia: 0.1}
  d: {inertia: 2.0}
elements:
  mesh: {type: spring, coordinate: {a: 1, b: 2, c: -3}, stiffness: 40.0, freeplay: 0.02}
  gear: {type: spring, bodies: [c, d], ratio: 2, stiffness: .inf}
  shaft: {type: spring, coordinate: {a: 1, d: -0.5}, stiffness: 10.0}
)";
  const ModelSpec spec = io::parse_model_spec(text, "coordinate_reduce.yaml", ".");
  const Reduction red = validate_and_reduce(spec);
  ASSERT_EQ(red.spec.elements.size(), 2u);
  const SpringSpec& mesh = std::get<SpringSpec>(red.spec.elements[0]);
  ASSERT_EQ(mesh.coordinate.size(), 3u);
  EXPECT_EQ(mesh.coordinate[2].body, "d");
  EXPECT_EQ(mesh.coordinate[2].c, -6.0);
  EXPECT_EQ(mesh.stiffness, 40.0);
  EXPECT_EQ(mesh.freeplay, 0.02);
  const std::string written = io::to_yaml(red.spec);
  EXPECT_NE(written.find("coordinate: {a: 1, b: 2, d: -6}"), std::string::npos) << written;
  EXPECT_NE(written.find("bodies: [a, d]"), std::string::npos) << written;
  EXPECT_NE(written.find("ratio: 0.5"), std::string::npos) << written;
  const Model m1 = assemble(red.spec), m2 = assemble(io::parse_model_spec(written, "reduced.yaml", "."));
  ASSERT_EQ(m1.springs.size(), m2.springs.size());
  for (std::size_t s = 0; s < m1.springs.size(); ++s) {
    ASSERT_EQ(m1.springs[s].row.n, m2.springs[s].row.n);
    for (int k = 0; k < m1.springs[s].row.n; ++k) {
      EXPECT_EQ(m1.springs[s].row.body[k], m2.springs[s].row.body[k]);
      EXPECT_EQ(m1.springs[s].row.c[k], m2.springs[s].row.c[k]);
    }
    EXPECT_EQ(m1.springs[s].stiffness, m2.springs[s].stiffness);
  }
  EXPECT_EQ(m1.inertia, m2.inertia);
}

}  // namespace
}  // namespace luztar
