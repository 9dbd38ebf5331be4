// Sweep descriptions: expansion into runs (grid, zip, ranges, sampling), the
// reader's errors (each bad description gets its message and location), and
// the metrics against closed forms on synthetic results.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "apps/sweep/sweep_plan.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/sweep_spec.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_sweep.hpp"
#include "solvers/simulator.hpp"
#include "tests/cli_runner.hpp"

namespace luztar {
namespace {

SweepParameter list(std::string path, std::vector<std::string> v) {
  SweepParameter p;
  p.path = std::move(path);
  p.values = std::move(v);
  return p;
}

SweepParameter range(std::string path, double from, double to, long count, bool log = false) {
  SweepParameter p;
  p.path = std::move(path);
  p.kind = SweepParameter::Kind::range;
  p.from = from;
  p.to = to;
  p.count = count;
  p.log = log;
  return p;
}

SweepParameter sampled(std::string path, SweepParameter::Kind kind, double from, double to, bool log = false) {
  SweepParameter p = range(std::move(path), from, to, 0, log);
  p.kind = kind;
  return p;
}

TEST(SweepExpand, GridVariesTheLastParameterFastest) {
  SweepSpec s;
  s.parameters = {list("a", {"1", "2"}), list("b", {"x", "y", "z"})};
  const RunTable t = expand(s);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t.values[0], (std::vector<std::string>{"1", "x"}));
  EXPECT_EQ(t.values[2], (std::vector<std::string>{"1", "z"}));
  EXPECT_EQ(t.values[3], (std::vector<std::string>{"2", "x"}));
}

TEST(SweepExpand, ZipPairsTheValuesAndRejectsUnequalLengths) {
  SweepSpec s;
  s.zip = true;
  s.parameters = {list("a", {"1", "2", "3"}), range("b", 10, 30, 3)};
  const RunTable t = expand(s);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.values[1], (std::vector<std::string>{"2", "20"}));
  // a parameter of one value goes with every row (a sweep file's t_end: [3]
  // beside lists zipped on the command line: it was refused, a new-user hunt)
  s.parameters.push_back(list("c", {"7"}));
  const RunTable with_one = expand(s);
  ASSERT_EQ(with_one.size(), 3u);
  EXPECT_EQ(with_one.values[2], (std::vector<std::string>{"3", "30", "7"}));
  s.parameters.pop_back();
  s.parameters[1].count = 4;
  try {
    expand(s);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.field(), "sweep.parameters.a");
    EXPECT_NE(std::string(e.what()).find("same number of values (or one): 3 here, 4 for b"), std::string::npos)
        << e.what();
  }
}

TEST(SweepExpand, RangesHitTheirEndsExactly) {
  SweepSpec s;
  s.parameters = {range("lin", 0.1, 0.7, 7)};
  RunTable t = expand(s);
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(t.values[6][0], "0.7");
  for (int i = 0; i < 7; ++i) EXPECT_NEAR(std::stod(t.values[i][0]), 0.1 + 0.1 * i, 1e-15);
  s.parameters = {range("log", 1e-3, 1e1, 5, true)};
  t = expand(s);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(std::log10(std::stod(t.values[i][0])), -3.0 + i, 1e-14);
  EXPECT_EQ(t.values[4][0], "10");
}

TEST(SweepExpand, LatinHypercubePutsOneDrawInEachStratum) {
  SweepSpec s;
  s.samples = 50;
  s.seed = 42;
  s.parameters = {sampled("a", SweepParameter::Kind::latin_hypercube, 2.0, 4.0),
                  sampled("b", SweepParameter::Kind::latin_hypercube, 1e-3, 1e-1, true)};
  const RunTable t = expand(s);
  ASSERT_EQ(t.size(), 50u);
  std::set<int> strata_a, strata_b;
  for (const auto& row : t.values) {
    strata_a.insert(static_cast<int>(std::floor((std::stod(row[0]) - 2.0) / 2.0 * 50)));
    strata_b.insert(static_cast<int>(std::floor((std::log(std::stod(row[1])) - std::log(1e-3)) /
                                                (std::log(1e-1) - std::log(1e-3)) * 50)));
  }
  EXPECT_EQ(strata_a.size(), 50u);
  EXPECT_EQ(strata_b.size(), 50u);
  EXPECT_EQ(*strata_a.begin(), 0);
  EXPECT_EQ(*strata_a.rbegin(), 49);
  // Same seed, same table; another seed, another table.
  EXPECT_EQ(expand(s).values, t.values);
  s.seed = 43;
  EXPECT_NE(expand(s).values, t.values);
}

TEST(SweepExpand, UniformDrawsStayInBoundsAndCrossTheGrid) {
  SweepSpec s;
  s.samples = 1000;
  s.parameters = {list("g", {"1", "2"}), sampled("u", SweepParameter::Kind::uniform, -1.0, 3.0)};
  const RunTable t = expand(s);
  ASSERT_EQ(t.size(), 2000u);
  double sum = 0.0;
  for (std::size_t i = 0; i < 1000; ++i) {
    const double u = std::stod(t.values[i][1]);
    EXPECT_GE(u, -1.0);
    EXPECT_LT(u, 3.0);
    EXPECT_EQ(t.values[i][1], t.values[i + 1000][1]);  // the same draws for every grid point
    sum += u;
  }
  EXPECT_NEAR(sum / 1000, 1.0, 0.15);  // mean of U(-1, 3) = 1, standard error 0.037
}

// The runs are counted (in floating point: it cannot wrap) from the lists'
// lengths, the ranges' counts and the samples before any value or row is
// built: a grid of 1000^4 = 1e12 runs, which would take terabytes to expand,
// is refused with an error; so is one run over the limit.
TEST(SweepExpand, RefusesMoreRunsThanTheLimitBeforeBuildingAny) {
  auto error = [](const SweepSpec& s) {
    try {
      const RunTable t = expand(s);
      return "expanded to " + std::to_string(t.size()) + " runs";
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
  };
  SweepSpec s;
  s.where = "s.yaml:2:3";
  for (const char* p : {"a", "b", "c", "d"}) s.parameters.push_back(range(p, 0.0, 1.0, 1000));
  EXPECT_EQ(error(s), "s.yaml:2:3: sweep: the sweep has 1000 x 1000 x 1000 x 1000 = 1e+12 runs, more than the limit "
                      "of 1000000 (use fewer values, or split it into several sweeps)");
  s.parameters = {range("a", 0.0, 1.0, 1000), range("b", 0.0, 1.0, 1001)};
  EXPECT_NE(error(s).find("sweep: the sweep has 1000 x 1001 = 1.001e+06 runs, more than the limit"), std::string::npos);
  s.zip = true;  // zipped: one row per value (lengths checked after the count)
  s.parameters = {range("a", 0.0, 1.0, 2000), range("b", 0.0, 1.0, 2000)};
  s.samples = 1000;
  s.parameters.push_back(sampled("c", SweepParameter::Kind::uniform, 0.0, 1.0));
  EXPECT_NE(error(s).find("sweep: the sweep has 2000 x 1000 = 2e+06 runs"), std::string::npos);
  s.samples = 0;
  s.zip = false;
  s.parameters = {range("a", 0.0, 1.0, 2000000)};
  s.parameters[0].where = "s.yaml:4:5";  // a parameter's own rule is reported where it is defined
  EXPECT_EQ(error(s), "s.yaml:4:5: sweep.parameters.a: count 2000000 is more than the limit of 1000000 runs per sweep");
  s.parameters = {range("a", 0.0, 1.0, 1000), list("b", {"1", "2"})};
  EXPECT_EQ(error(s), "expanded to 2000 runs");
}

TEST(SweepExpand, FormatValueRoundTrips) {
  for (double v : {0.1, 1.0 / 3.0, 1e-300, 6.02214076e23, -2.5, 0.0})
    EXPECT_EQ(std::strtod(format_value(v).c_str(), nullptr), v);
  EXPECT_EQ(format_value(0.1), "0.1");
}

// --- reading sweep descriptions: every bad one gets its own message ---------

class SweepErrors : public test_support::TempDirTest {
 protected:
  // Writes a sweep file for gear_train.yaml with the given sweep section and
  // returns the error make_plan reports ("" when none).
  std::string error_of(const std::string& sweep_section, const std::vector<std::string>& sets = {}) {
    const std::string file = path("s.yaml");
    std::ofstream(file) << "model: " << LUZTAR_MODELS_DIR << "/gear_train.yaml\n" << sweep_section;
    try {
      io::SweepInput in = io::load_sweep(file);
      for (const std::string& s : sets) io::add_parameter_option(in.spec, s);
      app::make_plan(std::move(in));
    } catch (const ModelError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(SweepErrors, EachBadDescriptionGetsItsMessage) {
  struct Case {
    std::string sweep, expected;
  };
  const std::string f = path("s.yaml");
  const std::vector<Case> cases = {
      {"sweep:\n  parameters:\n    elements.mesch.freeplay: [0.01]\n",
       f + ":4:30: elements.mesch.freeplay: 'elements' has no field 'mesch' (it has: shaft_in, mesh, shaft_out"},
      {"sweep:\n  parameters:\n    elements.mesh.freeplai: [0.01]\n",
       f + ":4:29: elements.mesh.freeplai: unknown key 'freeplai'"},
      {"sweep:\n  parameters:\n    elements.mesh.freeplay: {from: 0.01, to: 0.02, count: 0}\n",
       f + ":4:29: sweep.parameters.elements.mesh.freeplay: the range is empty (count 0"},
      {"sweep:\n  parameters:\n    elements.mesh.freeplay: []\n",
       f + ":4:29: sweep.parameters.elements.mesh.freeplay: the list of values is empty"},
      {"sweep:\n  parameters:\n    elements.mesh.stiffness: {from: 0, to: 100, count: 3, scale: log}\n",
       "a logarithmic range needs both ends > 0"},
      {"sweep:\n  parameters:\n    elements.mesh.stiffness: [100, -5]\n",
       f + ":4:30: elements.mesh.stiffness: must be >= 0 or .inf (got -5) (value -5) [run 1 (elements.mesh.stiffness = -5)]"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [abc]\n",
       f + ":4:25: bodies.psi.inertia: expected a number, got 'abc'"},
      {"sweep:\n  combine: zip\n  parameters:\n    bodies.psi.inertia: [1, 2]\n    bodies.phi.inertia: [1, 2, 3]\n",
       "zipped parameters need the same number of values"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: {uniform: [1, 2]}\n",
       "sweep.samples: sampled parameters need 'samples'"},
      {"sweep:\n  samples: 3\n  parameters:\n    bodies.psi.inertia: [1, 2]\n",
       "'samples' is given but no parameter is sampled"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: {uniform: [2, 1]}\n  samples: 2\n",
       "the sampling interval is empty"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {rms: bodies.nope.velocity}\n",
       f + ":6:8: sweep.metrics.m: 'bodies.nope.velocity': the model has no body 'nope'"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {median: bodies.psi.velocity}\n",
       "sweep.metrics.m: give exactly one of: max, min"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {max: bodies.psi.velocity, window: [20, 30]}\n",
       "sweep.metrics.m: the window [20, 30] lies outside the run [0, 10] s"},
      // (it was cut to [5, 10] and named [5, 30]: a new-user hunt)
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {energy: dissipated, window: [5, 30]}\n",
       "sweep.metrics.m: the window [5, 30] reaches beyond the run [0, 10] s: give a window within it, or lengthen the "
       "run"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {time_stuck: mesh}\n",
       "sweep.metrics.m: 'mesh' is not a friction element"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {events: slip}\n",
       "sweep.metrics.m: unknown event kind 'slip'"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {overrun_time: bearing_phi}\n",
       f + ":6:8: sweep.metrics.m: 'overrun_time' needs a one-way clutch; 'bearing_phi' is a friction element"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {lock_up_time: mesh}\n",
       "sweep.metrics.m: 'lock_up_time' needs a friction element or a one-way clutch; 'mesh' is a spring with "
       "freeplay"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {tooth_impacts: bearing_psi}\n",
       "sweep.metrics.m: 'tooth_impacts' needs an element with a gap (a spring with freeplay); 'bearing_psi' is a "
       "friction element"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {tooth_impacts: mesh, min_speed: -1}\n",
       "sweep.metrics.m: min_speed must be a finite number >= 0 [rad/s]"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {time_in_state: mesh}\n",
       "sweep.metrics.m: missing field 'state'"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {energy: elements.mesh.torque}\n",
       "sweep.metrics.m: 'elements.mesh.torque': an element's energy is elements.<element>.dissipated"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {peak_abs: elements.mesh.powr}\n",
       "sweep.metrics.m: 'elements.mesh.powr': an element has 'torque', 'state', 'relative_angle', "
       "'relative_velocity', 'power' and 'dissipated', not 'powr'"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n  metrics:\n    m: {hysteresis: bodies.psi.angle}\n",
       "sweep.metrics.m: missing field 'against'"},
      {"sweep:\n  parameters:\n    elements.mesh.freeplay: {from: 0.01, to: 0.02, count: 1000}\n"
       "    bodies.psi.inertia: {from: 1, to: 2, count: 1000}\n    bodies.phi.inertia: {from: 1, to: 2, count: 1000}\n"
       "    elements.mesh.stiffness: {from: 1, to: 2, count: 1000}\n",
       f + ":3:3: sweep: the sweep has 1000 x 1000 x 1000 x 1000 = 1e+12 runs, more than the limit of 1000000"},
      {"sweep:\n  samples: 4294967298\n  parameters:\n    bodies.psi.inertia: {uniform: [1, 2]}\n",
       f + ":3:12: sweep.samples: must be a whole number in [1, 1000000] (got 4294967298)"},
      {"sweep:\n  combine: all\n  parameters:\n    bodies.psi.inertia: [1]\n",
       f + ":3:12: sweep.combine: expected 'grid' or 'zip', got 'all'"},
      {"sweep:\n  paramters:\n    bodies.psi.inertia: [1]\n", f + ":3:3: sweep.paramters: unknown key 'paramters'"},
      {"sweep:\n  metrics: {}\n", "sweep.parameters: the sweep has no parameters"},
      {"sweep:\n  parameters:\n    sweep.seed: [1]\n", "the sweep description itself cannot be swept"},
      {"sweep:\n  parameters:\n    bodies.psi.inertia.value: [1]\n",
       "'bodies.psi.inertia' is a single value; it has no field 'value'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sweep);
    const std::string e = error_of(c.sweep);
    EXPECT_NE(e.find(c.expected), std::string::npos) << "got: " << e;
  }
}

TEST_F(SweepErrors, CommandLineValuesAndMissingFiles) {
  const std::string base = "sweep:\n  parameters:\n    bodies.psi.inertia: [1]\n";
  EXPECT_NE(error_of(base, {"elements.mesh.freeplay=0.01:0.02:x"}).find(
                "--set elements.mesh.freeplay=0.01:0.02:x: sweep.parameters.elements.mesh.freeplay: expected "
                "FROM:TO:COUNT[:log]"),
            std::string::npos);
  EXPECT_NE(error_of(base, {"elements.mesh.freeplay=0.01:0.02:1e30"}).find(
                "--set elements.mesh.freeplay=0.01:0.02:1e30: sweep.parameters.elements.mesh.freeplay: COUNT must be "
                "a whole number in [1, 1000000], got '1e30'"),
            std::string::npos);
  EXPECT_NE(error_of(base, {"elements.mesh.freeplay"}).find("expected PATH=VALUES"), std::string::npos);
  EXPECT_NE(error_of(base, {"elements.mesh.freeplay=0.01,,0.02"}).find("empty value in the list"), std::string::npos);
  EXPECT_NE(error_of(base, {"elements.mesh.freeplay=-1"}).find(
                "--set elements.mesh.freeplay=-1: elements.mesh.freeplay: must be >= 0"),
            std::string::npos);
  EXPECT_EQ(error_of(base, {"elements.mesh.freeplay=0.001:0.002:3"}), "");
  // a metric's name is checked where it is declared, on the command line too
  EXPECT_EQ(error_of(base + "  metrics:\n    psi/rms: {rms: bodies.psi.velocity}\n"),
            path("s.yaml") + ":6:5: sweep.metrics.psi/rms: the name 'psi/rms' contains '/', which names must not "
                             "(they become HDF5 paths and CSV columns)");
  {
    io::SweepInput in;
    try {
      io::add_metric_option(in.spec, " rms=rms: bodies.psi.velocity");
      ADD_FAILURE() << "a metric named ' rms' was accepted";
    } catch (const ModelError& e) {
      EXPECT_EQ(std::string(e.what()),
                "--metric  rms=rms: bodies.psi.velocity: sweep.metrics. rms: the name ' rms' begins or ends with "
                "whitespace");
    }
  }
  // a SPEC of several keys written without braces is no YAML: the error says how it is written
  {
    io::SweepInput in;
    try {
      io::add_metric_option(in.spec, "c=events: contact, element: mesh");
      ADD_FAILURE() << "a metric of several keys without braces was accepted";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("(a SPEC of several keys is a mapping in braces: --metric "
                                           "'c={events: contact, element: mesh}')"),
                std::string::npos)
          << e.what();
    }
  }
  // repeated keys and non-scalar keys are located, not a bare yaml-cpp "bad conversion"
  EXPECT_EQ(error_of(base + "    bodies.psi.inertia: [2]\n"),
            path("s.yaml") + ":5:5: sweep.parameters.bodies.psi.inertia: key 'bodies.psi.inertia' appears twice");
  EXPECT_EQ(error_of("sweep:\n  parameters:\n    [bodies.psi.inertia]: [1]\n"),
            path("s.yaml") + ":4:5: sweep.parameters: a key must be a plain name, got a list");
  // a --set replaces the file's parameter of the same path
  EXPECT_EQ(error_of("sweep:\n  parameters:\n    bodies.psi.inertia: [-1]\n", {"bodies.psi.inertia=0.02"}), "");

  std::ofstream(path("m.yaml")) << "model: nothere.yaml\n";
  try {
    io::load_sweep(path("m.yaml"));
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find(path("m.yaml") + ":1:8: model: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot open the model file"), std::string::npos) << e.what();
  }
}

// parse_sweep reads from text what load_sweep reads from a file; a nesting
// deeper than yaml-cpp's parser takes (its own text: "bad file") is said so.
TEST(SweepText, TooDeepANestingIsSaidSo) {
  try {
    io::parse_sweep("model: m.yaml\nsweep: " + std::string(3000, '{'), "s.yaml", ".");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.yaml:2:1: the YAML is nested too deeply (yaml-cpp's parser stops at a depth of 2000)");
  }
}

// The model a sweep file names must be a regular file (a device used to be
// read: /dev/zero until memory ran out).
TEST(SweepText, TheModelMustBeARegularFile) {
  try {
    io::parse_sweep("model: /dev/null\nsweep: {parameters: {bodies.a.inertia: [1]}}\n", "s.yaml", ".");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.yaml:1:8: model: /dev/null: cannot open the model file: it is a character device, not a regular file");
  }
}

TEST_F(SweepErrors, SignalKindMayBeLeftOutOfAPath) {
  io::SweepInput in;
  std::ofstream(path("s.yaml")) << "model: " << LUZTAR_MODELS_DIR << "/gear_train.yaml\n"
                                << "sweep:\n  parameters:\n    signals.drive.amplitude: [0.25]\n";
  const app::SweepPlan plan = app::make_plan(io::load_sweep(path("s.yaml")));
  const Model m = plan.model(0);
  ASSERT_EQ(m.loads.size(), 2u);
  bool found = false;
  for (const Signal& s : m.signals) found = found || (s.kind == Signal::Kind::sine && s.amplitude == 0.25);
  EXPECT_TRUE(found);
}

// --- metrics against closed forms -------------------------------------------

// One body, one friction element; x = sin(2 pi t) sampled at 1 ms for 2 s.
Result synthetic() {
  Result r;
  r.body_names = {"b"};
  r.element_names = {"f"};
  r.element_kinds = {"friction"};
  const int n = 2001;
  for (int k = 0; k < n; ++k) {
    const double t = k * 1e-3;
    r.time.push_back(t);
    r.angle.push_back(std::sin(2 * M_PI * t));
    r.velocity.push_back(2 * M_PI * std::cos(2 * M_PI * t));
    // torque = angle + 0.3 sign(velocity): a loop of width 0.6 in torque at angle 0
    r.element_torque.push_back(std::sin(2 * M_PI * t) + 0.3 * (std::cos(2 * M_PI * t) >= 0 ? 1 : -1));
    r.element_state.push_back(t < 0.25 || t >= 1.5 ? 0 : 1);
    r.input_work.push_back(t);
    r.kinetic.push_back(0.0);
    r.elastic.push_back(0.0);
    r.dissipated.push_back(t * t);
  }
  r.events = {{0.25, 0, EventKind::break_away, 0, 1}, {1.5, 0, EventKind::stick, 1, 0}};
  return r;
}

MetricSpec metric(MetricSpec::Kind kind, std::string signal, double t0 = -INFINITY, double t1 = INFINITY) {
  MetricSpec m;
  m.kind = kind;
  m.signal = std::move(signal);
  m.t0 = t0;
  m.t1 = t1;
  return m;
}

TEST(Metrics, SignalStatisticsMatchClosedForms) {
  using K = MetricSpec::Kind;
  const Result r = synthetic();
  std::vector<MetricSpec> ms = {metric(K::max, "bodies.b.angle"),
                                metric(K::min, "bodies.b.angle"),
                                metric(K::peak_to_peak, "bodies.b.velocity"),
                                metric(K::rms, "bodies.b.angle"),
                                metric(K::mean, "bodies.b.angle", 0.0, 0.5),
                                metric(K::final_value, "bodies.b.angle", 0.0, 0.25),
                                metric(K::energy, "dissipated", 0.5, 1.5),
                                metric(K::hysteresis, "elements.f.torque")};
  ms.back().against = "bodies.b.angle";
  MetricSpec stuck;
  stuck.kind = K::time_stuck;
  stuck.element = "f";
  stuck.t0 = 0.1;
  stuck.t1 = 1.75;
  ms.push_back(stuck);
  MetricSpec sticks;
  sticks.kind = K::events;
  sticks.event_kind = "stick";
  ms.push_back(sticks);
  MetricSpec all_events;
  all_events.kind = K::events;
  all_events.t1 = 1.0;
  ms.push_back(all_events);
  const std::vector<double> v = compute_metrics(ms, r);
  EXPECT_NEAR(v[0], 1.0, 1e-12);                       // max sin
  EXPECT_NEAR(v[1], -1.0, 1e-12);
  EXPECT_NEAR(v[2], 4 * M_PI, 1e-12);                  // peak to peak of 2 pi cos
  EXPECT_NEAR(v[3], std::sqrt(0.5), 1e-6);             // rms of sin over 2 periods (trapezoid error O(h^2))
  EXPECT_NEAR(v[4], 2.0 / M_PI, 5e-6);  // mean of sin(2 pi t) over [0, 0.5] = 2/pi; trapezoid error h^2 (2 pi)^2/12 * 2/pi = 2.1e-6
  EXPECT_NEAR(v[5], 1.0, 1e-12);                       // sin at t = 0.25
  EXPECT_NEAR(v[6], 1.5 * 1.5 - 0.5 * 0.5, 1e-12);     // t^2 from 0.5 to 1.5
  EXPECT_NEAR(v[7], 0.6, 1e-9);                        // loop width 2 * 0.3 at angle 0
  EXPECT_NEAR(v[8], (0.25 - 0.1) + (1.75 - 1.5), 1e-12);  // stuck from the exact event times
  EXPECT_EQ(v[9], 1.0);
  EXPECT_EQ(v[10], 1.0);
}

TEST(Metrics, HysteresisIsNaNWithoutAClosedLoop) {
  const Result r = synthetic();
  MetricSpec m = metric(MetricSpec::Kind::hysteresis, "elements.f.torque", 0.0, 0.2);  // x only rises here
  m.against = "bodies.b.angle";
  EXPECT_TRUE(std::isnan(compute_metrics({m}, r)[0]));
}

// A pass of x through the level at a sample exactly on it reads y there (a
// triangle wave of x sampled at its zeros): y = x + s (0.1 + 0.3 x^2) with s
// the direction. Upward passes at y = 0.1, downward at -0.1: width 0.2.
// Bridging the on-level sample read y midway between its neighbours instead,
// 0.3 h^2 = 0.01875 further out on each side: 0.2375. A dwell on the level (x = 0 for three samples) reads their mean.
TEST(Metrics, HysteresisReadsAPassAtASampleOnTheLevel) {
  std::vector<double> x, y;
  const double h = 0.25;
  for (int k = 0; k <= 16; ++k) {  // x: triangle, period 2, zeros at t = 0.5, 1.5, ...
    const double t = k * h, ph = std::fmod(t, 2.0);
    const double xv = ph < 1.0 ? ph - 0.5 : 1.5 - ph;
    const double dir = ph < 1.0 ? 1.0 : -1.0;
    x.push_back(xv);
    y.push_back(xv + dir * (0.1 + 0.3 * xv * xv));  // the loop's curved sides
  }
  EXPECT_NEAR(hysteresis_width(x, y, 0.0, 0, x.size()), 0.2, 1e-15);
  // a dwell: x = 0 at three samples between -1 and +1, y there 0.1, 0.3, 0.5 (mean 0.3);
  // then down through a single on-level sample at y = -0.2
  const std::vector<double> xd = {-1, 0, 0, 0, 1, 0, -1}, yd = {9, 0.1, 0.3, 0.5, 9, -0.2, 9};
  EXPECT_NEAR(hysteresis_width(xd, yd, 0.0, 0, xd.size()), 0.5, 1e-15);
}

// A metric that reads samples needs an output sample in its window: on the
// grid -3.7 + k 0.01, [0.07, 0.08] holds 0.0799999999999996 (k = 378; the
// quotient rounds to 377 exactly, whose point lies below 0.07: refused
// before) and [1.0001, 1.0009] none.
TEST(Metrics, AWindowMustHoldAGridPoint) {
  const Model m = io::parse_model(R"(
bodies:
  b: {inertia: 1.0}
elements:
  t: {type: torque, body: b, torque: 1.0}
simulation: {t_start: -3.7, t_end: 2.0, output_step: 0.01}
)", "grid.yaml", ".");
  MetricSpec spec = metric(MetricSpec::Kind::max, "bodies.b.angle", 0.07, 0.08);
  EXPECT_NO_THROW(check_metric(spec, m));
  spec = metric(MetricSpec::Kind::max, "bodies.b.angle", 1.0001, 1.0009);
  EXPECT_THROW(check_metric(spec, m), ModelError);
  spec = metric(MetricSpec::Kind::energy, "dissipated", 1.0001, 1.0009);  // interpolates: any window
  EXPECT_NO_THROW(check_metric(spec, m));
}

// --- metrics of drivetrain events on simulated runs, against closed forms ----

// Reads a metric from sweep YAML text (the reader's grammar) and checks it on the model.
MetricSpec read_metric(const std::string& model_path, const std::string& metric_yaml, const Model& m) {
  const io::SweepInput in =
      io::parse_sweep("model: " + model_path + "\nsweep:\n  parameters:\n    bodies." + m.body_names.at(0) +
                          ".inertia: [1]\n  metrics:\n    m: " + metric_yaml + "\n",
                      "s.yaml", ".");
  EXPECT_EQ(in.spec.metrics.size(), 1u);
  check_metric(in.spec.metrics.at(0), m);
  return in.spec.metrics.at(0);
}

// The one-way clutch pair of one_way_clutch_test (out and in, 1 kg m^2 each,
// w_out(0) = 2; +1 N m on in stepping to -1 N m at 3 s; drag D): v = w_out -
// w_in = 2 - (1 + 2 D) t overruns until it locks at t = 2 / (1 + 2 D) (2 s
// without drag), both then accelerate together at 0.5 rad/s^2, and the step
// to -1 N m at 3 s needs -lambda = 0.5 > r D: it overruns from 3 s on. Over
// [0, 4]: lock-up after 2 s, overrun 2 + 1 = 3 s, locked (state 0) 1 s; from
// 2.5 s on no lock happens (NaN). in's acceleration is +1 rad/s^2 overrunning
// before 2 s and -1 after 3 s: peak |.| 1. With D = 0.1 all the dissipation
// is the clutch's: D (int_0^{5/3} (2 - 1.2 t) dt + int_3^4 0.8 (t - 3) dt) =
// 0.1 (5/3 + 0.4).
constexpr const char* kPair = R"(
simulation: {t_end: 4.0, output_step: 0.01, rtol: 1.0e-10, atol: 1.0e-12}
signals:
  drive: {step: {time: 3.0, initial: 1.0, final: -1.0}}
bodies:
  out: {inertia: 1.0, velocity: 2.0}
  in: {inertia: 1.0}
elements:
  freewheel: {type: one_way_clutch, bodies: [out, in], coulomb: DRAG}
  drive: {type: torque, body: in, torque: drive}
)";

std::string pair_text(double drag) {
  std::string t = kPair;
  t.replace(t.find("DRAG"), 4, std::to_string(drag));
  return t;
}

class MetricRuns : public test_support::TempDirTest {};

TEST_F(MetricRuns, OneWayClutchLockUpOverrunAndStateTimes) {
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    const std::string path = this->path("pair.yaml");
    std::ofstream(path) << pair_text(0.0);
    Model m = io::load_model(path);
    m.simulation.integrator = integrator;
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<MetricSpec> ms = {
        read_metric(path, "{lock_up_time: freewheel, window: [0, 4]}", m),
        read_metric(path, "{overrun_time: freewheel}", m),
        read_metric(path, "{time_in_state: freewheel, state: 0}", m),
        read_metric(path, "{time_in_state: freewheel, state: 1, window: [1, 3.5]}", m),
        read_metric(path, "{lock_up_time: freewheel, window: [2.5, 4]}", m),
        read_metric(path, "{peak_abs: bodies.in.acceleration}", m),
        read_metric(path, "{peak_abs: elements.freewheel.torque}", m)};
    const std::vector<double> v = compute_metrics(ms, r);
    EXPECT_NEAR(v[0], 2.0, 1e-9);
    EXPECT_NEAR(v[1], 3.0, 1e-9);
    EXPECT_NEAR(v[2], 1.0, 1e-9);
    EXPECT_NEAR(v[3], (2.0 - 1.0) + (3.5 - 3.0), 1e-9);
    EXPECT_TRUE(std::isnan(v[4]));
    EXPECT_NEAR(v[5], 1.0, 1e-9);
    EXPECT_NEAR(v[6], 0.5, 1e-9);  // locked, it carries -T/2
    EXPECT_EQ(ms[0].unit(), "s");
  }
}

TEST_F(MetricRuns, ElementEnergyIsTheChangeOfItsDissipatedEnergy) {
  const std::string path = this->path("pair.yaml");
  std::ofstream(path) << pair_text(0.1);
  const Model m = io::load_model(path);
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  const std::vector<MetricSpec> ms = {read_metric(path, "{energy: elements.freewheel.dissipated}", m),
                                      read_metric(path, "{energy: dissipated}", m)};
  const std::vector<double> v = compute_metrics(ms, r);
  EXPECT_NEAR(v[0], 0.1 * (5.0 / 3.0 + 0.4), 1e-9);
  EXPECT_NEAR(v[1], v[0], 1e-12);
  EXPECT_EQ(ms[0].unit(), "J");
  // the default metrics map the energy by element
  bool found = false;
  for (const MetricSpec& d : default_metrics(m)) found = found || d.name == "dissipated.freewheel";
  EXPECT_TRUE(found);
}

// Tooth impacts of a disk (1 kg m^2) flying at 1 rad/s between the flanks of
// a gap of +-0.1 rad to the base, nothing else acting:
//  - rigid teeth, restitution 0.5: strikes at 0.1, 0.1 + 0.2/0.5 = 0.5,
//    0.5 + 0.2/0.25 = 1.3, 1.3 + 0.2/0.125 = 2.9 s at approach speeds 1, 0.5,
//    0.25, 0.125 rad/s: over [0, 3] 4 impacts, 2 of them at >= 0.3 rad/s;
//  - elastic teeth (10^4 N m/rad, undamped): each contact lasts half a period
//    pi sqrt(I/k) = 0.0314159 s and returns the speed, so contacts begin at
//    0.1 + n (0.2 + 0.0314159) s, always at 1 rad/s: 4 in [0, 1]; none at >= 1.5.
std::string disk_in_gap(const std::string& teeth) {
  return "simulation: {t_end: 3.0, output_step: 0.01, rtol: 1.0e-10, atol: 1.0e-12}\n"
         "bodies:\n  disk: {inertia: 1.0, velocity: 1.0}\n"
         "elements:\n  stop: {type: spring, body: disk, freeplay: 0.1, " + teeth + "}\n";
}

TEST_F(MetricRuns, ToothImpactsCountContactsAboveASpeed) {
  struct Case {
    std::string teeth;
    double window_end, min_speed;
    double all, fast;
  };
  for (const Case& c : {Case{"stiffness: .inf, restitution: 0.5", 3.0, 0.3, 4.0, 2.0},
                        Case{"stiffness: 1.0e4", 1.0, 1.5, 4.0, 0.0}}) {
    SCOPED_TRACE(c.teeth);
    const std::string path = this->path("gap.yaml");
    std::ofstream(path) << disk_in_gap(c.teeth);
    const Model m = io::load_model(path);
    // both solvers: time stepping logs a strike at the end of its step, its
    // speed the approach at the step's start (it once logged the rebound,
    // 0.5 and 0.25 rad/s, and counted 1 strike at >= 0.3 rad/s)
    for (const char* solver : {"event_driven", "time_stepping"}) {
      SCOPED_TRACE(solver);
      SimulationSettings s = m.simulation;
      s.solver = solver;
      s.step = 1e-4;
      const Result r = simulate(m, s);
      ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
      const std::string window = ", window: [0, " + std::to_string(c.window_end) + "]}";
      const std::vector<MetricSpec> ms = {
          read_metric(path, "{tooth_impacts: stop" + window, m),
          read_metric(path, "{tooth_impacts: stop, min_speed: " + std::to_string(c.min_speed) + window, m)};
      const std::vector<double> v = compute_metrics(ms, r);
      EXPECT_EQ(v[0], c.all);
      EXPECT_EQ(v[1], c.fast);
    }
  }
}

}  // namespace
}  // namespace luztar
