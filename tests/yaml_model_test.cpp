// Every kind of mistake in a model file gets a ModelError whose message names
// the file, line and column, and the field. Table-driven: each case is a
// complete model text, with the location and words its message must contain.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/errors.hpp"
#include "io/yaml_model.hpp"

namespace luztar {
namespace {

struct Case {
  const char* name;
  std::string yaml;
  std::string location;  // "t.yaml:line:col"
  std::string field;
  std::string words;
};

// Line numbers below refer to this layout.
std::string model(const std::string& bodies, const std::string& elements,
                  const std::string& simulation = "simulation: {t_end: 1, output_step: 0.01}",
                  const std::string& extra = "") {
  return simulation + "\n" +  // line 1
         "bodies:\n" +        // line 2
         bodies +             // lines 3-4
         "elements:\n" +      // line 5
         elements + extra;    // lines 6-8, then extra
}
const std::string kBodies = "  a: {inertia: 1}\n  b: {inertia: 2}\n";
const std::string kSpring = "  s: {type: spring, bodies: [a, b], stiffness: 10, freeplay: 0.1}\n";
const std::string kFriction = "  f: {type: friction, body: a, coulomb: 0.5}\n";
const std::string kTorque = "  d: {type: torque, body: a, torque: 1}\n";

std::vector<Case> cases() {
  return {
      {"unknown key", model(kBodies, "  s: {type: spring, bodies: [a, b], stifness: 10}\n" + kFriction + kTorque),
       "t.yaml:6:37", "elements.s.stifness", "unknown key 'stifness'"},
      {"missing field", model(kBodies, "  s: {type: spring, bodies: [a, b]}\n" + kFriction + kTorque), "t.yaml:6:6",
       "elements.s", "missing field 'stiffness'"},
      {"wrong type", model("  a: {inertia: heavy}\n  b: {inertia: 2}\n", kSpring + kFriction + kTorque),
       "t.yaml:3:16", "bodies.a.inertia", "expected a number, got 'heavy'"},
      {"list where a number belongs", model("  a: {inertia: [1, 2]}\n  b: {inertia: 2}\n", kSpring + kFriction + kTorque),
       "t.yaml:3:16", "bodies.a.inertia", "expected a number, got a list"},
      {"negative inertia", model("  a: {inertia: -1}\n  b: {inertia: 2}\n", kSpring + kFriction + kTorque),
       "t.yaml:3:16", "bodies.a.inertia", "must be >= 0 (got -1)"},
      {"NaN inertia", model("  a: {inertia: .nan}\n  b: {inertia: 2}\n", kSpring + kFriction + kTorque),
       "t.yaml:3:16", "bodies.a.inertia", "must be a finite number"},
      {"negative stiffness",
       model(kBodies, "  s: {type: spring, bodies: [a, b], stiffness: -10}\n" + kFriction + kTorque), "t.yaml:6:48",
       "elements.s.stiffness", "must be >= 0 or .inf (got -10)"},
      {"rigid freeplay between bodies whose initial angles leave its gap",
       model("  a: {inertia: 1, angle: 0.5}\n  b: {inertia: 2}\n",
             "  s: {type: spring, bodies: [a, b], stiffness: .inf, freeplay: 0.1}\n" + kFriction + kTorque),
       "t.yaml:6:64", "elements.s.freeplay", "lies outside the rigid freeplay [-0.1, 0.1]"},
      {"restitution out of range",
       model(kBodies, "  s: {type: spring, bodies: [a, b], stiffness: .inf, freeplay: 0.1, restitution: -0.2}\n" +
                          kFriction + kTorque),
       "t.yaml:6:82", "elements.s.restitution", "must be in [0, 1] (got -0.2)"},
      {"NaN stiffness", model(kBodies, "  s: {type: spring, bodies: [a, b], stiffness: .nan}\n" + kFriction + kTorque),
       "t.yaml:6:48", "elements.s.stiffness", "must be >= 0 or .inf (got nan)"},
      {"massless body with Coulomb friction only",
       model("  a: {inertia: 0}\n  b: {inertia: 2}\n", kSpring + kFriction + "  d: {type: torque, body: b, torque: 1}\n"),
       "t.yaml:3:3", "bodies.a", "no viscous part (mu = 0)"},
      {"clutch on a massless body",
       model("  a: {inertia: 0}\n  b: {inertia: 2}\n",
             kSpring + "  f: {type: friction, bodies: [a, b], coulomb: 0.5, viscous: 1}\n" + kTorque),
       "t.yaml:7:3", "elements.f", "a clutch on the massless body 'a' is not supported"},
      {"torque on a massless frictionless body",
       model("  a: {inertia: 0}\n  b: {inertia: 2}\n", kSpring + "  f: {type: friction, body: b, coulomb: 0.5}\n" + kTorque),
       "t.yaml:3:3", "bodies.a", "massless and frictionless with a torque on it"},
      {"massless frictionless bodies holding only each other",
       "simulation: {t_end: 1, output_step: 0.01}\nbodies:\n  a: {inertia: 0}\n  b: {inertia: 0}\n  c: {inertia: 0}\n"
       "  e: {inertia: 0}\n  d: {inertia: 1}\nelements:\n"
       "  ab: {type: spring, bodies: [a, b], stiffness: 1}\n  ac: {type: spring, bodies: [a, c], stiffness: 1}\n"
       "  ae: {type: spring, bodies: [a, e], stiffness: 1}\n  bc: {type: spring, bodies: [b, c], stiffness: 1}\n"
       "  be: {type: spring, bodies: [b, e], stiffness: 1}\n  ce: {type: spring, bodies: [c, e], stiffness: 1}\n"
       "  ad: {type: spring, bodies: [a, d], stiffness: 0}\n",
       "t.yaml:3:3", "bodies.a", "its position is undetermined"},
      {"static ratio on a massless body's bearing",
       model("  a: {inertia: 0}\n  b: {inertia: 2}\n",
             kSpring + "  f: {type: friction, body: a, coulomb: 0.5, viscous: 1, static_ratio: 1.2}\n" + kTorque),
       "t.yaml:7:72", "elements.f.static_ratio", "must be 1 on a bearing of the massless body 'a'"},
      {"damped spring on a massless body",
       model("  a: {inertia: 0}\n  b: {inertia: 2}\n",
             "  s: {type: spring, bodies: [a, b], stiffness: 10, damping: 0.1}\n  f: {type: friction, body: a, coulomb: 0.5, viscous: 1}\n" + kTorque),
       "t.yaml:6:61", "elements.s.damping", "must be undamped"},
      {"negative freeplay",
       model(kBodies, "  s: {type: spring, bodies: [a, b], stiffness: 1, freeplay: -0.1}\n" + kFriction + kTorque),
       "t.yaml:6:61", "elements.s.freeplay", "must be >= 0 (got -0.1)"},
      {"zero ratio",
       model(kBodies, "  s: {type: spring, bodies: [a, b], stiffness: 1, ratio: 0}\n" + kFriction + kTorque),
       "t.yaml:6:58", "elements.s.ratio", "must not be 0"},
      {"negative friction", model(kBodies, kSpring + "  f: {type: friction, body: a, coulomb: -0.5}\n" + kTorque),
       "t.yaml:7:41", "elements.f.coulomb", "must stay >= 0"},
      {"friction signal that goes negative",
       model(kBodies, kSpring + "  f: {type: friction, body: a, coulomb: {sine: {amplitude: 1, frequency: 1}}}\n" + kTorque),
       "t.yaml:7:41", "elements.f.coulomb", "must stay >= 0 (it can reach -1)"},
      {"negative viscous",
       model(kBodies, kSpring + "  f: {type: friction, body: a, coulomb: 0.5, viscous: -1}\n" + kTorque), "t.yaml:7:55",
       "elements.f.viscous", "must be >= 0"},
      {"static ratio below 1",
       model(kBodies, kSpring + "  f: {type: friction, body: a, coulomb: 0.5, static_ratio: 0.5}\n" + kTorque),
       "t.yaml:7:60", "elements.f.static_ratio", "must be >= 1"},
      {"body name used twice", model("  a: {inertia: 1}\n  a: {inertia: 2}\n", kSpring + kFriction + kTorque),
       "t.yaml:4:3", "bodies.a", "used twice"},
      {"element named like a body", model(kBodies, kSpring + kFriction + "  a: {type: torque, body: a, torque: 1}\n"),
       "t.yaml:6:3", "elements.a", "already used by a body"},
      {"missing body", model(kBodies, "  s: {type: spring, bodies: [a, c], stiffness: 10}\n" + kFriction + kTorque),
       "t.yaml:6:29", "elements.s.bodies", "no body named 'c'"},
      {"spring on one body twice",
       model(kBodies, "  s: {type: spring, bodies: [a, a], stiffness: 10}\n" + kFriction + kTorque), "t.yaml:6:29",
       "elements.s.bodies", "two different bodies"},
      {"unknown element type", model(kBodies, "  s: {type: gear, bodies: [a, b]}\n" + kFriction + kTorque),
       "t.yaml:6:13", "elements.s.type", "unknown element type 'gear'"},
      {"unknown signal name", model(kBodies, kSpring + kFriction + "  d: {type: torque, body: a, torque: drivee}\n"),
       "t.yaml:8:38", "elements.d.torque", "no signal named 'drivee'"},
      {"unknown signal kind",
       model(kBodies, kSpring + kFriction + "  d: {type: torque, body: a, torque: {sawtooth: {period: 1}}}\n"),
       "t.yaml:8:39", "elements.d.torque.sawtooth", "unknown signal kind 'sawtooth'"},
      {"ramp ending before it starts",
       model(kBodies,
             kSpring + kFriction + "  d: {type: torque, body: a, torque: {ramp: {start: 2, end: 1, final: 3}}}\n"),
       "t.yaml:8:61", "elements.d.torque.ramp.end", "must be later than ramp.start"},
      {"missing table file",
       model(kBodies, kSpring + kFriction + "  d: {type: torque, body: a, torque: {table: {file: nothere.csv}}}\n"),
       "t.yaml:8:53", "elements.d.torque.table.file", "nothere.csv: cannot open the table file"},
      {"table not monotone in time",
       model(kBodies,
             kSpring + kFriction + "  d: {type: torque, body: a, torque: {table: {file: table_not_monotone.csv}}}\n"),
       "t.yaml:8:53", "elements.d.torque.table.file", "table_not_monotone.csv:4: time 0.5 is not later than 1"},
      {"table with a bad number",
       model(kBodies,
             kSpring + kFriction + "  d: {type: torque, body: a, torque: {table: {file: table_bad_number.csv}}}\n"),
       "t.yaml:8:53", "elements.d.torque.table.file", "table_bad_number.csv:4: 'abc' is not a number"},
      {"end before start", model(kBodies, kSpring + kFriction + kTorque, "simulation: {t_end: -1, output_step: 0.01}"),
       "t.yaml:1:21", "simulation.t_end", "must be later than t_start"},
      {"missing simulation", "bodies:\n  a: {inertia: 1}\n", "t.yaml:1:1", "simulation", "missing field 'simulation'"},
      {"unknown top-level key", model(kBodies, kSpring + kFriction + kTorque, "simulation: {t_end: 1, output_step: 0.01}",
                                      "bodys: {}\n"),
       "t.yaml:9:1", "bodys", "unknown key 'bodys'"},
      {"YAML syntax error", "simulation: {t_end: 1, output_step: 0.01}\nbodies: [a\n", "t.yaml:3:1", "",
       "YAML syntax error"},
      {"empty file", "", "t.yaml", "", "the model file is empty"},
  };
}

TEST(YamlModel, EveryMistakeNamesFileLineColumnAndField) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    try {
      io::parse_model_spec(c.yaml, "t.yaml", LUZTAR_TEST_DATA_DIR);
      ADD_FAILURE() << "no error for: " << c.name;
    } catch (const ModelError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.where(), c.location) << msg;
      EXPECT_EQ(e.field(), c.field) << msg;
      EXPECT_NE(msg.find(c.words), std::string::npos) << msg;
      EXPECT_EQ(msg.rfind(c.location + ": ", 0), 0u) << msg;  // the message starts with the location
    }
  }
}

TEST(YamlModel, MissingModelFile) {
  try {
    io::load_model_spec("/nonexistent/model.yaml");
    ADD_FAILURE();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/model.yaml: cannot open the model file: No such file or directory");
  }
}

TEST(YamlModel, ReadsTheSchema) {
  const std::string yaml =
      "name: demo\n"
      "simulation: {t_end: 2, output_step: 0.5, rtol: 1e-9, atol: 1e-11, event_storm: {events: 50, span: 1e-6}}\n"
      "signals:\n"
      "  drive: {sum: [{sine: {amplitude: 2, frequency: 1, phase: 0.5, offset: 1}}, {step: {time: 1, final: 3}}]}\n"
      "  limit: {product: [2, {ramp: {start: 0, end: 1, initial: 0.5, final: 1}}]}\n"
      "  csv: {table: {file: table_good.csv}}\n"
      "bodies:\n"
      "  a: {inertia: 1, angle: 0.1, velocity: -2}\n"
      "  b: {inertia: 2}\n"
      "elements:\n"
      "  s: {type: spring, bodies: [a, b], ratio: 2, stiffness: 10, freeplay: 0.1, damping: 0.2}\n"
      "  ground_spring: {type: spring, body: b, stiffness: 5}\n"
      "  f: {type: friction, bodies: [a, b], viscous: 0.1, coulomb: limit, static_ratio: 1.5}\n"
      "  d: {type: torque, body: a, torque: drive}\n"
      "  t: {type: torque, body: b, torque: csv}\n";
  const ModelSpec spec = io::parse_model_spec(yaml, "t.yaml", LUZTAR_TEST_DATA_DIR);
  EXPECT_EQ(spec.name, "demo");
  EXPECT_EQ(spec.simulation.rtol, 1e-9);
  EXPECT_EQ(spec.simulation.storm_events, 50);
  ASSERT_EQ(spec.bodies.size(), 2u);
  EXPECT_EQ(spec.bodies[0].velocity, -2.0);
  ASSERT_EQ(spec.elements.size(), 5u);
  const auto& s = std::get<SpringSpec>(spec.elements[0]);
  EXPECT_EQ(s.ratio, 2.0);
  EXPECT_EQ(s.damping, 0.2);
  EXPECT_TRUE(std::get<SpringSpec>(spec.elements[1]).body_b.empty());
  const Model m = assemble(spec);
  // drive(t) = 1 + 2 sin(2 pi t + 0.5) + (t >= 1 ? 3 : 0)
  const Signal& drive = m.signals[m.loads[0].signal];
  EXPECT_NEAR(evaluate(drive, 0.0), 1 + 2 * std::sin(0.5), 1e-15);
  EXPECT_NEAR(evaluate(drive, 1.0), 1 + 2 * std::sin(2 * std::numbers::pi + 0.5) + 3, 1e-12);
  // limit(t) = 2 * ramp: 1 at t = 0, 1.5 at t = 0.5, 2 from t = 1
  const Signal& limit = m.signals[m.frictions[0].coulomb];
  EXPECT_DOUBLE_EQ(evaluate(limit, 0.5), 1.5);
  EXPECT_DOUBLE_EQ(evaluate(limit, 3.0), 2.0);
  // the CSV table, linear between samples and held at the ends
  const Signal& csv = m.signals[m.loads[1].signal];
  EXPECT_DOUBLE_EQ(evaluate(csv, 0.25), 0.5);
  EXPECT_DOUBLE_EQ(evaluate(csv, 1.5), 0.0);
  EXPECT_DOUBLE_EQ(evaluate(csv, 9.0), -1.0);
  // breakpoints: step at 1, ramp corners 0 (excluded: t_start) and 1, table knots 0.5, 1, 2
  EXPECT_EQ(m.breakpoints, (std::vector<double>{0.5, 1.0, 2.0}));
}

// yaml-cpp refuses nesting past its parser's depth of 2000 (so that no file
// overflows the stack) with the text "bad file"; the message says what is wrong.
TEST(YamlModel, TooDeepANestingIsSaidSo) {
  const std::string yaml = "simulation: {t_end: 1, output_step: 0.01}\nbodies: " + std::string(3000, '[');
  try {
    io::parse_model_spec(yaml, "t.yaml", LUZTAR_TEST_DATA_DIR);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.yaml:2:1: the YAML is nested too deeply (yaml-cpp's parser stops at a depth of 2000)");
  }
}

// Only a regular file is read where a file belongs: a directory used to read as
// "the table has no data rows", a device as its contents (/dev/zero: without end).
TEST(YamlModel, ATableFileMustBeARegularFile) {
  auto error_of = [](const std::string& file) -> std::string {
    try {
      io::parse_model_spec(model(kBodies, "  d: {type: torque, body: a, torque: {table: {file: " + file + "}}}\n"),
                           "t.yaml", LUZTAR_TEST_DATA_DIR);
    } catch (const ModelError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string dir = LUZTAR_TEST_DATA_DIR;
  EXPECT_EQ(error_of(dir), "t.yaml:6:53: elements.d.torque.table.file: " + dir +
                               ": cannot open the table file: it is a directory, not a regular file");
  EXPECT_EQ(error_of("/dev/null"), "t.yaml:6:53: elements.d.torque.table.file: /dev/null: cannot open the table "
                                   "file: it is a character device, not a regular file");
  try {
    io::load_model_spec(dir);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": cannot open the model file: it is a directory, not a regular file");
  }
}

// An alias inside the node its anchor names makes a tree that contains itself;
// the reader walked it without end (stack overflow). It is refused where the
// alias stands. Aliases elsewhere read as copies.
TEST(YamlModel, AnAliasInsideItsOwnNodeIsRefused) {
  auto error_of = [](const std::string& signals) -> std::string {
    try {
      io::parse_model_spec(model(kBodies, kTorque, "simulation: {t_end: 1, output_step: 0.01}", signals), "t.yaml", "");
    } catch (const ModelError& e) {
      return e.what();
    }
    return "no error";
  };
  // lines 7-8
  EXPECT_EQ(error_of("signals:\n  s: &loop {sum: [1, *loop]}\n"),
            "t.yaml:8:22: the alias *loop lies inside the node &loop it refers to (a node cannot contain itself)");
  EXPECT_EQ(error_of("signals:\n  s: {sum: &l [1, {product: [2, *l]}]}\n"),
            "t.yaml:8:33: the alias *l lies inside the node &l it refers to (a node cannot contain itself)");
  const ModelSpec spec = io::parse_model_spec(
      "simulation: {t_end: 1, output_step: 0.01}\nbodies:\n  a: &body {inertia: 3}\n  b: *body\n", "t.yaml", "");
  ASSERT_EQ(spec.bodies.size(), 2u);
  EXPECT_EQ(spec.bodies[1].inertia, 3.0);
}

// Named signals each referring to the next: every stage that follows the
// references recurses, and 100000 of them overflowed the stack (segfault). A
// chain of 1000 names is read; one more is refused where it goes too deep.
TEST(YamlModel, AChainOfSignalReferencesIsBounded) {
  auto chain = [](int n) {  // line 3: s0: 1; line 3 + i: s<i>: s<i-1>; the torque reads s<n>
    std::string y = "simulation: {t_end: 1, output_step: 0.01}\nsignals:\n  s0: 1\n";
    for (int i = 1; i <= n; ++i) y += "  s" + std::to_string(i) + ": s" + std::to_string(i - 1) + "\n";
    return y + "bodies:\n  a: {inertia: 1}\nelements:\n  d: {type: torque, body: a, torque: s" + std::to_string(n) +
           "}\n";
  };
  EXPECT_EQ(io::parse_model_spec(chain(999), "t.yaml", "").signals.size(), 1000u);  // 1000 names: s999 ... s0
  try {
    io::parse_model_spec(chain(1000), "t.yaml", "");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.yaml:4:7: signals.s1: signals refer to one another through more than 1000 names (here to 's0')");
  }
}

}  // namespace
}  // namespace luztar
