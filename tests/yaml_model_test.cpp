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
      {"empty file", "", "t.yaml:1:1", "", "the model file is empty"},
      {"only comments", "# nothing yet\n", "t.yaml:1:1", "", "the model file is empty"},
      // what yaml-cpp itself would report as a bare "bad conversion", or not at all
      {"list as a body name", model("  [a, b]: {inertia: 1}\n", kSpring + kFriction + kTorque), "t.yaml:3:3", "bodies",
       "a key must be a plain name, got a list"},
      {"mapping as a key", model(kBodies, kSpring + kFriction + kTorque, "simulation: {{t_end: 1}: 1}"), "t.yaml:1:14",
       "simulation", "a key must be a plain name, got a mapping"},
      {"key given twice",
       model(kBodies, kSpring + kFriction + kTorque, "simulation: {t_end: 1, output_step: 0.01, t_end: 2}"),
       "t.yaml:1:43", "simulation.t_end", "key 't_end' appears twice"},
      {"not UTF-8", "simulation: {t_end: 1, output_step: 0.01}\nname: caf\xe9\n", "t.yaml:2:10", "",
       "the model file is not UTF-8 text (byte 0xE9; a binary file?)"},
      {"overlong UTF-8", "name: \xc0\xaf\n", "t.yaml:1:7", "", "the model file is not UTF-8 text (byte 0xC0"},
      {"NUL byte", std::string("name: a\0b\n", 10), "t.yaml:1:8", "", "the model file is not UTF-8 text (byte 0x00"},
      // names, checked where they are declared (they become HDF5 paths and CSV columns)
      {"body name with a slash", model("  a/1: {inertia: 1}\n  b: {inertia: 2}\n", kSpring + kFriction + kTorque),
       "t.yaml:3:3", "bodies.a/1", "the name 'a/1' contains '/', which names must not"},
      {"element name with a dot", model(kBodies, kSpring + kFriction + "  d.1: {type: torque, body: a, torque: 1}\n"),
       "t.yaml:8:3", "elements.d.1", "the name 'd.1' contains '.'"},
      {"element name with a trailing space",
       model(kBodies, kSpring + kFriction + "  'd ': {type: torque, body: a, torque: 1}\n"),
       "t.yaml:8:3", "elements.d ", "the name 'd ' begins or ends with whitespace"},
      {"signal named like a fixed column",
       model(kBodies, kSpring + kFriction + kTorque, "simulation: {t_end: 1, output_step: 0.01}",
             "signals: {time: 1}\n"),
       "t.yaml:9:11", "signals.time", "the name 'time' is taken by a fixed result column"},
  };
}

void expect_located_error(const Case& c) {
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

TEST(YamlModel, EveryMistakeNamesFileLineColumnAndField) {
  for (const Case& c : cases()) expect_located_error(c);
}

// Settings that would run no step, overflow a count, allocate beyond memory
// or make the error control meaningless are refused before the run, with the
// limits of core/run_frame.hpp, core/validate_simulation.cpp and core/validate_signals.cpp (README, "Limits").
TEST(YamlModel, RunSizesCountsAndTolerancesAreBounded) {
  const std::string elements = kSpring + kFriction + kTorque;
  auto sim = [&](const std::string& settings) {
    return model(kBodies, elements, "simulation: {t_end: 1, output_step: 0.01, " + settings + "}");
  };
  const std::vector<Case> size_cases = {
      {"time step too small to count", sim("solver: time_stepping, step: 1.0e-300"), "t.yaml:1:72",
       "simulation.step", "(t_end - t_start) / step gives 1e+300 steps, more than the limit 1e+09 (got step 1e-300)"},
      {"time step of 1e-20", sim("solver: time_stepping, step: 1.0e-20"), "t.yaml:1:72", "simulation.step",
       "gives 1e+20 steps, more than the limit 1e+09"},
      {"time step longer than the run", sim("solver: time_stepping, step: 1.0e9"), "t.yaml:1:72",
       "simulation.step", "must be <= t_end - t_start = 1 s (got 1e+09)"},
      {"rtol 3", sim("rtol: 3"), "t.yaml:1:49", "simulation.rtol", "must be in (0, 0.1] (got 3)"},
      {"atol 1e300", sim("atol: 1.0e300"), "t.yaml:1:49", "simulation.atol", "must be in (0, 1] (got 1e+300)"},
      {"atol 0", sim("atol: 0"), "t.yaml:1:49", "simulation.atol", "must be in (0, 1] (got 0)"},
      {"output grid beyond memory",
       model(kBodies, elements, "simulation: {t_end: 1, output_step: 1.0e-12}"), "t.yaml:1:37",
       "simulation.output_step",
       "(t_end - t_start) / output_step gives 1e+12 output samples x 29 values per sample = 2.9e+13 stored values, "
       "more than the limit 1e+08"},
      {"event storm count beyond int", sim("event_storm: {events: 4294967298}"), "t.yaml:1:65",
       "simulation.event_storm.events", "must be a whole number in [2, 1000000] (got 4294967298)"},
      {"max_events beyond its limit", sim("max_events: 10000000000"), "t.yaml:1:55", "simulation.max_events",
       "must be a whole number in [1, 1000000000] (got 10000000000)"},
      {"max_events beyond long", sim("max_events: 99999999999999999999"), "t.yaml:1:55", "simulation.max_events",
       "expected a whole number, got '99999999999999999999'"},
  };
  for (const Case& c : size_cases) expect_located_error(c);
}

// The name rule itself, and validate() applying it to a model built in code.
TEST(YamlModel, NamesThatCannotBeStored) {
  EXPECT_EQ(name_problem("gear wheel_2", false), "");  // inner spaces and UTF-8 are fine
  EXPECT_EQ(name_problem("\xce\xa8", true), "");
  EXPECT_EQ(name_problem("time", false), "");  // a body's columns are time.angle, ...
  EXPECT_EQ(name_problem("", false), "a name must not be empty");
  EXPECT_EQ(name_problem("a,b", false),
            "the name 'a,b' contains ',', which names must not (they become HDF5 paths and CSV columns)");
  EXPECT_EQ(name_problem("\t", false), "a name must not contain control characters (got byte 0x09)");
  EXPECT_EQ(name_problem("  ", false), "the name '  ' begins or ends with whitespace");
  EXPECT_EQ(name_problem("dissipated", true),
            "the name 'dissipated' is taken by a fixed result column (time, input_work, kinetic, elastic, dissipated)");

  ModelSpec spec = io::parse_model_spec(model(kBodies, kSpring + kFriction + kTorque), "t.yaml", ".");
  spec.locations.clear();  // as if built in code
  spec.bodies[1].name = "b/2";
  std::get<SpringSpec>(spec.elements[0]).body_b = "b/2";
  try {
    validate(spec);
    ADD_FAILURE() << "a body named b/2 passed validate()";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.field(), "bodies.b/2");
    EXPECT_EQ(e.detail(), "the name 'b/2' contains '/', which names must not (they become HDF5 paths and CSV columns)");
  }
}

// Rules found after parsing are located through ModelSpec::locations: the
// field, else its closest recorded parent, else the document.
TEST(YamlModel, RuleErrorsFindTheirFieldOrItsParent) {
  const ModelSpec spec = io::parse_model_spec(model(kBodies, kSpring + kFriction + kTorque), "t.yaml", ".");
  EXPECT_EQ(where(spec, "elements.s.stiffness"), "t.yaml:6:48");
  EXPECT_EQ(where(spec, "elements.s.ratio"), "t.yaml:6:3");  // not given: the element's name
  EXPECT_EQ(where(spec, "simulation.step"), "t.yaml:1:13");  // not given: the simulation mapping
  EXPECT_EQ(where(spec, "nothing.here"), "t.yaml:1:1");
  ModelSpec in_code;
  in_code.source_path = "";
  EXPECT_EQ(where(in_code, "bodies.a"), "");
}

// assemble() is the one place that checks the rules, and it locates its own
// errors through ModelSpec::locations (io/ only reads and records them): a
// rule of validate and one of the reduction, broken after reading, are
// reported at the field's place in the file (or its closest written parent's);
// a spec built in code gets no location. parse_model (read, then assemble
// once) reports every mistake of cases() with the text parse_model_spec gives.
TEST(YamlModel, AssembleLocatesItsOwnRuleErrors) {
  auto error_of = [](const auto& make) -> std::string {
    try {
      make();
    } catch (const ModelError& e) {
      return e.what();
    }
    return "no error";
  };
  const ModelSpec read = io::parse_model_spec(model(kBodies, kSpring + kFriction + kTorque), "t.yaml", ".");
  ModelSpec stiff = read;
  std::get<SpringSpec>(stiff.elements[0]).stiffness = -10;  // written at 6:48
  EXPECT_EQ(error_of([&] { return assemble(stiff); }), "t.yaml:6:48: elements.s.stiffness: must be >= 0 or .inf (got -10)");
  ModelSpec massless = read;
  massless.bodies[0].inertia = 0.0;  // a: Coulomb friction only, which the reduction refuses
  EXPECT_EQ(error_of([&] { return assemble(massless); }),
            "t.yaml:3:3: bodies.a: is massless with Coulomb friction but no viscous part (mu = 0): the inclusion 0 in "
            "M - MT0 sgh(q') leaves its velocity undetermined; give a bearing a viscous coefficient > 0 or the body an "
            "inertia");
  stiff.locations.clear();  // as if built in code
  stiff.source_path.clear();
  EXPECT_EQ(error_of([&] { return assemble(stiff); }), "elements.s.stiffness: must be >= 0 or .inf (got -10)");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::string checked = error_of([&] { return io::parse_model_spec(c.yaml, "t.yaml", LUZTAR_TEST_DATA_DIR); });
    EXPECT_EQ(error_of([&] { return io::parse_model(c.yaml, "t.yaml", LUZTAR_TEST_DATA_DIR); }), checked);
    EXPECT_EQ(checked.rfind(c.location + ": ", 0), 0u) << checked;
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


// A chain of named signals, each summing the one before twice: s0 = sine,
// s_k = s_(k-1) + s_(k-1), so s_k(t) = 2^k sin(2 pi t) and, with references
// inlined, s_k has 2^(k+1) - 1 nodes. `first` is the first signal (line 3).
std::string doubling_chain(int levels, const std::string& first, int torques = 1) {
  std::string y = "simulation: {t_end: 0.01, output_step: 0.001}\nsignals:\n  s0: " + first + "\n";
  for (int k = 1; k <= levels; ++k)
    y += "  s" + std::to_string(k) + ": {sum: [s" + std::to_string(k - 1) + ", s" + std::to_string(k - 1) + "]}\n";
  y += "bodies:\n  a: {inertia: 1}\nelements:\n";
  for (int i = 0; i < torques; ++i) y += "  d" + std::to_string(i) + ": {type: torque, body: a, torque: s" + std::to_string(levels) + "}\n";
  return y;
}

std::string error_of(const std::string& yaml) {
  try {
    io::parse_model_spec(yaml, "t.yaml", LUZTAR_TEST_DATA_DIR);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kSine = "{sine: {amplitude: 1, frequency: 1}}";

// 30 levels would inline to 2^31 nodes (gigabytes; it took 3.3 GB and 20 s).
// The first named signal over 100000 nodes, s16 (2^17 - 1 = 131071 nodes,
// line 3 + 16), is refused where it is written.
TEST(YamlModel, SignalsThatInlineBeyondTheLimitAreRefusedAtTheNamedSignal) {
  EXPECT_EQ(error_of(doubling_chain(30, kSine)),
            "t.yaml:19:8: signals.s16: has 131071 signal nodes once its references are inlined (limit 100000; each "
            "reference copies the named signal)");
}

// The limit holds for the elements' signals together: 2 torques of s15
// (65535 nodes each) make 131070; the second torque (line 23) is refused.
TEST(YamlModel, TheElementsSignalsTogetherStayWithinTheLimit) {
  EXPECT_EQ(error_of(doubling_chain(15, kSine, 2)),
            "t.yaml:23:39: elements.d1.torque: has 131070 signal nodes once its references are inlined (limit 100000; "
            "each reference copies the named signal)");
}

// A table is copied with its signal: 400 samples in s0, 2^k copies in s_k;
// s15 holds 32768 * 400 = 13107200 > 10^7 samples (65535 nodes: within).
TEST(YamlModel, TableSamplesCopiedByInliningAreCapped) {
  std::string points = "{table: {points: [";
  for (int i = 0; i < 400; ++i) points += (i ? ", [" : "[") + std::to_string(i) + ", 1]";
  points += "]}}";
  EXPECT_EQ(error_of(doubling_chain(15, points)),
            "t.yaml:18:8: signals.s15: has 13107200 table samples once its references are inlined (limit 10000000; "
            "each reference copies the named signal)");
}

// Deep reuse within the limit is a legitimate model: s15(t) = 2^15 sin(2 pi t).
TEST(YamlModel, DeepReuseOfNamedSignalsEvaluates) {
  const Model m = assemble(io::parse_model_spec(doubling_chain(15, kSine), "t.yaml", LUZTAR_TEST_DATA_DIR));
  const Signal& s15 = m.signals[m.loads[0].signal];
  EXPECT_NEAR(evaluate(s15, 0.1), 32768.0 * std::sin(0.2 * std::numbers::pi), 1e-9);
}

// A chain of named signals, each the sum of the one before alone: s_k(t) = sin(2 pi t),
// nested k + 1 deep (s0 on line 3).
std::string single_chain(int levels) {
  std::string y = "simulation: {t_end: 0.01, output_step: 0.001}\nsignals:\n  s0: " + kSine + "\n";
  for (int k = 1; k <= levels; ++k) y += "  s" + std::to_string(k) + ": {sum: [s" + std::to_string(k - 1) + "]}\n";
  return y + "bodies:\n  a: {inertia: 1}\nelements:\n  d: {type: torque, body: a, torque: s" + std::to_string(levels) +
         "}\n";
}

// A torque's reference to s199 (level 1), the hop to s199 (2), then a sum's
// term and a hop per level down to s0 at level 400: a model. One level more
// puts s0 at 402; the walk from the torque passes 400 inside s1 (line 4),
// where it is refused (a chain of 10^5 named signals overflowed the stack).
TEST(YamlModel, SignalsNestAtMost400Deep) {
  const Model m = assemble(io::parse_model_spec(single_chain(199), "t.yaml", LUZTAR_TEST_DATA_DIR));
  EXPECT_NEAR(evaluate(m.signals[m.loads[0].signal], 0.1), std::sin(0.2 * std::numbers::pi), 1e-15);
  EXPECT_EQ(error_of(single_chain(200)),
            "t.yaml:4:7: signals.s1: signals nest more than 400 deep here (a signal's terms and each hop to a named "
            "signal count as a level)");
}

// Names that only rename (s_i: s_(i-1)) are levels too: every walk over a
// signal follows each hop with a call. The torque's reference is level 1,
// s_n level 2, ..., s0 level n + 2: n = 398 is a model; n = 399 is refused
// where the walk enters s0 at level 401 (written on line 3).
TEST(YamlModel, ChainsOfRenamingSignalsAreBoundedToo) {
  auto chain = [](int n) {
    std::string y = "simulation: {t_end: 1, output_step: 0.01}\nsignals:\n  s0: 1\n";
    for (int i = 1; i <= n; ++i) y += "  s" + std::to_string(i) + ": s" + std::to_string(i - 1) + "\n";
    return y + "bodies:\n  a: {inertia: 1}\nelements:\n  d: {type: torque, body: a, torque: s" + std::to_string(n) +
           "}\n";
  };
  const Model m = assemble(io::parse_model_spec(chain(398), "t.yaml", ""));
  EXPECT_EQ(evaluate(m.signals[m.loads[0].signal], 0.3), 1.0);
  EXPECT_EQ(error_of(chain(399)).substr(0, 24), "t.yaml:3:7: signals.s0: ");
  EXPECT_NE(error_of(chain(399)).find("signals nest more than 400 deep here"), std::string::npos);
}

// a -> b -> a: reported where the loop closes (in b, back to a).
TEST(YamlModel, SignalsThatReferToEachOtherAreRefused) {
  const std::string yaml =
      "simulation: {t_end: 1, output_step: 0.1}\n"
      "signals:\n"
      "  a: {sum: [1, b]}\n"
      "  b: {product: [2, a]}\n"
      "bodies:\n  j: {inertia: 1}\n"
      "elements:\n  d: {type: torque, body: j, torque: a}\n";
  EXPECT_EQ(error_of(yaml), "t.yaml:3:16: signals.a.sum[1]: signal 'b' refers to itself");
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

// io::field_value reads a field by the sweep's path syntax, after overrides,
// skipping a signal's kind as overrides do; a field the text leaves to its
// default, or a path through a value, is a ModelError naming the path.
TEST(YamlModel, FieldValueReadsByTheOverridePath) {
  const std::string text =
      "name: m\nsimulation: {t_end: 1.0, output_step: 0.01}\nbodies:\n  b: {inertia: 2.0}\n"
      "elements:\n  drive: {type: torque, body: b, torque: {sine: {amplitude: 3.0, frequency: 1.0}}}\n";
  EXPECT_EQ(io::field_value(text, "m.yaml", "bodies.b.inertia"), "2.0");
  EXPECT_EQ(io::field_value(text, "m.yaml", "elements.drive.torque.amplitude"), "3.0");
  EXPECT_EQ(io::field_value(text, "m.yaml", "elements.drive.torque"), "{sine: {amplitude: 3.0, frequency: 1.0}}");
  EXPECT_EQ(io::field_value(text, "m.yaml", "elements.drive.torque.amplitude",
                            {{"elements.drive.torque.amplitude", "0.5", "--set"}}),
            "0.5");
  auto message = [&](const std::string& path) {
    try {
      io::field_value(text, "m.yaml", path);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("simulation.rtol"),
            "m.yaml: simulation.rtol: the model sets no field 'rtol' here (it has: t_end, output_step)");
  EXPECT_EQ(message("bodies.b.inertia.x"), "m.yaml: bodies.b.inertia.x: 'bodies.b.inertia' is a single value; it has no field 'x'");
  EXPECT_EQ(message("bodies.c.inertia"), "m.yaml: bodies.c.inertia: 'bodies' has no field 'c' (it has: b)");
  EXPECT_EQ(message("bodies..inertia"), "m.yaml: bodies..inertia: a path is names joined by dots, e.g. elements.mesh.freeplay");
  // a path through a list says it is one (it said "a single value": a new-user hunt)
  try {
    io::field_value("simulation: {t_end: 1, output_step: 0.1}\nbodies: {b: {inertia: 1}}\nelements:\n"
                    "  drive: {type: torque, body: b, torque: {sum: [1, 2]}}\n",
                    "m.yaml", "elements.drive.torque.sum.0");
    ADD_FAILURE() << "a path into a list was read";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "m.yaml: elements.drive.torque.sum.0: 'elements.drive.torque.sum' is a list; a "
                                     "path does not step into a list (set the whole list: "
                                     "'elements.drive.torque.sum=[...]')");
  }
}

}  // namespace
}  // namespace luztar
