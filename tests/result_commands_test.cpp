// `luztar info` and `luztar compare` (apps/cli/result_commands.hpp), through the
// command line, on results that `luztar run` wrote.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "core/number_text.hpp"
#include "io/hdf5_reader.hpp"
#include "tests/cli_runner.hpp"

namespace luztar {
namespace {

using test_support::Outcome;
using test_support::run_cli;
const std::string kGearTrain = std::string(LUZTAR_MODELS_DIR) + "/gear_train.yaml";

class ResultCommands : public test_support::TempDirTest {
 protected:
  // The gear train run twice, with these options each, into a.h5 and b.h5.
  void run_pair(const std::string& a_options, const std::string& b_options) {
    ASSERT_EQ(run_cli("run -q " + kGearTrain + " " + a_options + " -o " + path("a.h5")).code, 0);
    ASSERT_EQ(run_cli("run -q " + kGearTrain + " " + b_options + " -o " + path("b.h5")).code, 0);
  }
};

// Lines of text from the first line that starts with `from`.
std::string from_line(const std::string& text, const std::string& from) {
  const auto at = text.find(from);
  return at == std::string::npos ? std::string() : text.substr(at);
}

// info prints, from the file, the summary run printed (every figure: status,
// events by kind, time stuck, energy balance and residual, solver statistics).
TEST_F(ResultCommands, InfoRepeatsTheSummaryOfTheRun) {
  const std::string h5 = path("a.h5");
  const Outcome r = run_cli("run " + kGearTrain + " --t-end 0.5 -o " + h5);
  ASSERT_EQ(r.code, 0) << r.out;
  const Outcome i = run_cli("info " + h5);
  ASSERT_EQ(i.code, 0) << i.out;
  EXPECT_EQ(i.out.rfind("file " + h5 + " (written by luztar ", 0), 0u) << i.out;
  std::string summary = from_line(r.out, "luztar ");
  summary = summary.substr(0, summary.find("  wrote      "));
  EXPECT_EQ(i.out.substr(i.out.find('\n') + 1), summary);
}

// --events-around lists exactly the stored events within the window.
TEST_F(ResultCommands, InfoListsTheEventsAroundATime) {
  const std::string h5 = path("a.h5");
  ASSERT_EQ(run_cli("run -q " + kGearTrain + " --t-end 0.5 -o " + h5).code, 0);
  const Result r = io::read_hdf5(h5).result;
  int expected = 0;
  std::string first;
  for (const EventRecord& e : r.events)
    if (std::abs(e.t - 0.1) <= 0.01) {
      if (!expected) first = "    t = " + shortest(e.t) + " s  " + r.element_names[e.element] + "  " + to_string(e.kind);
      ++expected;
    }
  ASSERT_GT(expected, 0);
  const Outcome o = run_cli("info " + h5 + " --events-around 0.1 --window 0.01");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("  events within 0.01 s of 0.1 s: " + std::to_string(expected) + "\n" + first),
            std::string::npos)
      << o.out;
  EXPECT_EQ(run_cli("info " + path("none.h5")).code, 1);
}

// A run equals itself; a tighter rtol moves the signals by more than 1e-12
// but less than 1e-4 (both runs within their tolerances of the exact
// trajectory), except the accelerations: they are the stiff meshes' k x / I
// (5000 / 1e-4 on delta), which multiply the angles' error, and move by
// 1.9e-4 and 2.4e-4 of their range (delta, gamma), less than 1e-3;
// exit codes 0 and 1 say so.
TEST_F(ResultCommands, CompareFindsTheLargestDifferences) {
  const std::string a = path("a.h5"), b = path("b.h5");
  // CVODE: the tolerance moves its results (exact's do not depend on rtol)
  run_pair("--t-end 0.5 --integrator cvode_bdf", "--t-end 0.5 --rtol 1e-10 --integrator cvode_bdf");
  const Outcome same = run_cli("compare " + a + " " + a);
  EXPECT_EQ(same.code, 0) << same.out;
  EXPECT_NE(same.out.find("  bodies.psi.angle                        0.000e+00  0.000e+00   rad\n"), std::string::npos)
      << same.out;
  EXPECT_NE(same.out.find("  within the tolerance\n"), std::string::npos);
  const Outcome strict = run_cli("compare " + a + " " + b + " --tolerance 1e-12");
  EXPECT_EQ(strict.code, 1) << strict.out;
  EXPECT_NE(strict.out.find("DIFFERS"), std::string::npos);
  const Outcome loose = run_cli("compare " + a + " " + b + " --tolerance 1e-4");
  EXPECT_EQ(loose.code, 1) << loose.out;  // the accelerations alone
  for (const char* line : {"bodies.delta.acceleration", "bodies.gamma.acceleration"})
    EXPECT_NE(loose.out.find(line), std::string::npos);
  std::size_t differs = 0;
  for (std::size_t at = loose.out.find("DIFFERS"); at != std::string::npos; at = loose.out.find("DIFFERS", at + 1))
    ++differs;
  EXPECT_EQ(differs, 2u) << loose.out;
  const Outcome accelerations = run_cli("compare " + a + " " + b + " --tolerance 1e-3");
  EXPECT_EQ(accelerations.code, 0) << accelerations.out;
  EXPECT_NE(loose.out.find("  events: "), std::string::npos);
}

// NaN is compared, not dropped: a first-order body's acceleration (NaN) equals
// itself, and against numbers (the same body with a small inertia) it
// differs (std::max dropped the NaN and read 0, "within the tolerance").
TEST_F(ResultCommands, CompareTellsNaNFromNumbers) {
  const std::string model = path("m.yaml"), a = path("a.h5"), b = path("b.h5");
  std::ofstream(model) << "simulation: {t_end: 0.5, output_step: 0.1}\n"
                          "bodies: {a: {inertia: 1, velocity: 1}, m: {inertia: 0}}\n"
                          "elements:\n"
                          "  k1: {type: spring, bodies: [a, m], stiffness: 1}\n"
                          "  k2: {type: friction, body: m, viscous: 1, coulomb: 0}\n";
  ASSERT_EQ(run_cli("run -q " + model + " -o " + a).code, 0);
  ASSERT_EQ(run_cli("run -q " + model + " --set bodies.m.inertia=1e-6 -o " + b).code, 0);
  const Outcome same = run_cli("compare " + a + " " + a);
  EXPECT_EQ(same.code, 0) << same.out;
  const Outcome o = run_cli("compare " + a + " " + b + " --tolerance 1e-3");
  EXPECT_EQ(o.code, 1) << o.out;
  const std::string rest = from_line(o.out, "  bodies.m.acceleration"), line = rest.substr(0, rest.find('\n'));
  EXPECT_NE(line.find("nan"), std::string::npos) << o.out;
  EXPECT_NE(line.find("rad/s^2  DIFFERS"), std::string::npos) << o.out;
}

// An event log that differs: a larger freeplay changes when the teeth meet.
TEST_F(ResultCommands, CompareNamesTheFirstDifferentEvent) {
  const std::string a = path("a.h5"), b = path("b.h5");
  run_pair("--t-end 0.3", "--t-end 0.3 --set elements.mesh.freeplay=0.02");
  const Outcome o = run_cli("compare " + a + " " + b);
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("    first difference, event "), std::string::npos) << o.out;
}

// An element of the same name in other units (a shaft spring in N m in A, a
// rack_pinion in N in B, as `luztar reduce` makes of a spring to a pinion it
// merges into the rack) is not compared as numbers: it differs, by its units
// (a new-user hunt: N against N m as plain numbers).
TEST_F(ResultCommands, CompareDoesNotCompareNumbersInOtherUnits) {
  const std::string head = "simulation: {t_end: 0.1, output_step: 0.01}\nbodies:\n  p: {inertia: 1, velocity: 1}\n";
  { std::ofstream(path("a.yaml")) << head << "  q: {inertia: 1}\nelements:\n  s: {type: spring, bodies: [p, q], stiffness: 10}\n"; }
  { std::ofstream(path("b.yaml")) << head << "  q: {kind: translational, mass: 1}\n"
                                           "elements:\n  s: {type: rack_pinion, rack: q, pinion: p, radius: 1, stiffness: 10}\n"; }
  ASSERT_EQ(run_cli("run -q " + path("a.yaml") + " -o " + path("a.h5")).code, 0);
  ASSERT_EQ(run_cli("run -q " + path("b.yaml") + " -o " + path("b.h5")).code, 0);
  const Outcome o = run_cli("compare " + path("a.h5") + " " + path("b.h5"));
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("elements.s.torque: in N m in A, in N in B: not comparable"), std::string::npos) << o.out;
}

TEST_F(ResultCommands, CompareRefusesDifferentGridsUnlessInterpolating) {
  const std::string a = path("a.h5"), b = path("b.h5");
  run_pair("--t-end 0.5", "--t-end 0.5 --output-step 0.002");
  const Outcome o = run_cli("compare " + a + " " + b);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("luztar: the time grids differ (501 samples over [0, 0.5] s against 251 over [0, 0.5] s): "
                       "compare on A's grid with --interpolate"),
            std::string::npos)
      << o.out;
  // B's samples are A's even ones: interpolated at A's odd ones, a linear
  // interpolation error of the smooth angles, O(h^2 max|q''|) < 1e-3 here.
  const Outcome i = run_cli("compare " + a + " " + b + " --interpolate --tolerance 1e-3");
  EXPECT_NE(i.out.find(", B interpolated at 501 times of A\n"), std::string::npos) << i.out;
  EXPECT_EQ(run_cli("compare " + a + " " + path("none.h5")).code, 2);
  // as many samples, on another grid: the first sample that differs is named
  // (the message gave two equal descriptions)
  run_pair("--t-end 0.5", "--t-end 0.5 --set simulation.t_start=0.0005");
  const Outcome shifted = run_cli("compare " + a + " " + b);
  EXPECT_EQ(shifted.code, 2) << shifted.out;
  EXPECT_NE(shifted.out.find("luztar: the time grids differ (sample 0 is at 0 s against 5e-4 s): "), std::string::npos)
      << shifted.out;
}

// A sweep file given to info or compare (a new user's guess) is named for what
// it is, not "missing dataset time": info exits 1 (bad input), compare 2.
TEST_F(ResultCommands, ASweepFileIsNotTakenForARun) {
  const std::string sweep = path("s.h5");
  const std::string sets = " --set simulation.t_end=0.1 --set elements.mesh.freeplay=0.01,0.02";
  ASSERT_EQ(run_cli("sweep -q " + kGearTrain + sets + " -j 1 -o " + sweep).code, 0);
  const std::string message =
      "luztar: " + sweep + ": a luztar sweep file, not the result of a run (luztar run writes those)\n";
  const Outcome i = run_cli("info " + sweep);
  EXPECT_EQ(i.code, 1);
  EXPECT_EQ(i.out, message);
  ASSERT_EQ(run_cli("run -q " + kGearTrain + " --t-end 0.1 -o " + path("a.h5")).code, 0);
  const Outcome c = run_cli("compare " + path("a.h5") + " " + sweep);
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.out, message);
}

// run --set (the sweep's override path) with a unit equals the SI value written in the file.
TEST_F(ResultCommands, RunSetWithUnitsEqualsTheFileEdited) {
  const std::string a = path("a.h5"), b = path("b.h5"), edited = path("edited.yaml");
  std::ifstream in(kGearTrain);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("freeplay: 0.01\n");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "freeplay: " + shortest(0.5 * std::numbers::pi / 180) + "\n");
  std::ofstream(edited) << text;
  ASSERT_EQ(run_cli("run -q " + kGearTrain + " --t-end 0.3 --set elements.mesh.freeplay=0.5deg -o " + a).code, 0);
  ASSERT_EQ(run_cli("run -q " + edited + " --t-end 0.3 -o " + b).code, 0);
  const Outcome o = run_cli("compare " + a + " " + b + " --tolerance 0");
  EXPECT_EQ(o.code, 0) << o.out;
  // the file says how it was run
  EXPECT_EQ(io::read_hdf5(a).overrides, std::vector<std::string>{"--set elements.mesh.freeplay=0.5deg"});
  EXPECT_TRUE(io::read_hdf5(b).overrides.empty());
  const Outcome i = run_cli("info " + a);
  EXPECT_NE(i.out.find("\n  model field --set elements.mesh.freeplay=0.5deg\n"), std::string::npos) << i.out;
  const Outcome bad = run_cli("run -q " + kGearTrain + " --set elements.mesh.freeplay=-1 -o " + path("c.h5"));
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("luztar: --set elements.mesh.freeplay=-1: elements.mesh.freeplay: must be >= 0 (got -1)"),
            std::string::npos)
      << bad.out;
  EXPECT_FALSE(std::filesystem::exists(path("c.h5")));
}

}  // namespace
}  // namespace luztar
