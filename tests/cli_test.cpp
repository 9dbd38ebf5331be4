// End-to-end runs of the `luztar` command line on every model in models/, and
// its behaviour on bad input: exit code, message on stderr, no output file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/number_text.hpp"
#include "io/hdf5_reader.hpp"
#include "tests/cli_runner.hpp"
#include "io/yaml_model.hpp"

namespace luztar {
namespace {

namespace fs = std::filesystem;

using test_support::Outcome;
Outcome run(const std::string& args) { return test_support::run_cli(args); }
using Cli = test_support::TempDirTest;

TEST_F(Cli, RunsEveryModel) {
  int models = 0;
  for (const auto& entry : fs::directory_iterator(LUZTAR_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    ++models;
    const std::string name = entry.path().stem().string();
    SCOPED_TRACE(name);
    const std::string h5 = path(name + ".h5"), csv = path(name + ".csv");
    const Outcome o = run("run " + entry.path().string() + " -o " + h5 + " --csv " + csv + " --t-end 1");
    EXPECT_EQ(o.code, 0) << o.out;
    EXPECT_NE(o.out.find("status reached_time"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("energy"), std::string::npos) << o.out;
    const io::StoredRun back = io::read_hdf5(h5);
    // the summary lists the time stuck of each friction element and lossy
    // gear and the time locked of each one-way clutch (a model of springs
    // only has none)
    const auto& kinds = back.result.element_kinds;
    const bool sticks = std::find(kinds.begin(), kinds.end(), "friction") != kinds.end() ||
                        std::find(kinds.begin(), kinds.end(), "one_way_clutch") != kinds.end() ||
                        std::find(kinds.begin(), kinds.end(), "lossy_gear") != kinds.end();
    EXPECT_EQ(o.out.find("time stuck") != std::string::npos, sticks) << o.out;
    EXPECT_DOUBLE_EQ(back.result.time.back(), 1.0);
    EXPECT_TRUE(fs::exists(csv));
    EXPECT_EQ(run("validate " + entry.path().string()).code, 0);
  }
  EXPECT_GE(models, 2);
}

// The summary's energy line is the balance over the run (changes of the stored
// energies, which may be negative), and the time stuck is a column per name.
TEST_F(Cli, SummaryPrintsTheBalanceOfChangesAndAlignsTheStuckTimes) {
  const Outcome o = run("run " + std::string(LUZTAR_MODELS_DIR) + "/gear_train.yaml --t-end 0.2 -o " + path("g.h5"));
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find(" J = kinetic change "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(" J + elastic change "), std::string::npos) << o.out;
  const auto value_at = [&](const std::string& name) {  // the column where the time of `name` starts
    const std::size_t at = o.out.find("\n    " + name + " ");
    EXPECT_NE(at, std::string::npos) << name;
    return o.out.find_first_not_of(' ', at + 5 + name.size()) - at;
  };
  EXPECT_EQ(value_at("bearing_psi"), value_at("bearing_delta")) << o.out;
  EXPECT_EQ(value_at("bearing_phi"), value_at("bearing_gamma")) << o.out;
}

// Start-up: the commands that run no MPI sweep load neither MPI (only
// luztar-mpi-sweep links it) nor, when HDF5 is linked from its static archive
// (LUZTAR_HDF5_STATIC, when installed), HDF5's network libraries (libcurl). The dynamic loader lists
// every library it opens (LD_DEBUG=libs, "calling init: <path>").
TEST_F(Cli, StartUpLoadsNoMpiAndNoNetworkLibraries) {
  const std::string model = std::string(LUZTAR_MODELS_DIR) + "/block.yaml";
  for (const std::string& args : {std::string("--version"), "validate " + model, "reduce " + model + " -o " +
                                  path("r.yaml"), "run " + model + " -q --t-end 0.1 -o " + path("x.h5")}) {
    SCOPED_TRACE(args);
    const Outcome o = test_support::run_shell("LD_DEBUG=libs " + std::string(LUZTAR_CLI) + " " + args + " 2>&1");
    EXPECT_EQ(o.code, 0) << o.out;
    EXPECT_NE(o.out.find("calling init: "), std::string::npos) << o.out;  // the loader did report
    EXPECT_EQ(o.out.find("libmpi"), std::string::npos);
#ifdef LUZTAR_HDF5_LINKED_STATIC  // else the shared HDF5 brings libcurl with it
    EXPECT_EQ(o.out.find("libcurl"), std::string::npos);
#endif
#ifdef LUZTAR_EXECUTABLES_LINKED_STATIC  // LUZTAR_STATIC_EXECUTABLES: only the C library is loaded
    for (const char* lib : {"libstdc++", "libyaml-cpp", "libsundials", "libhdf5", "libsz", "libaec", "libz.so"})
      EXPECT_EQ(o.out.find(lib), std::string::npos) << lib;
#endif
  }
}

TEST_F(Cli, BadModelExitsWithLocationAndWritesNothing) {
  const std::string model = path("bad.yaml");
  std::ofstream(model) << "simulation: {t_end: 1, output_step: 0.1}\nbodies:\n  a: {inertia: -2}\n";
  const std::string h5 = path("bad.h5");
  const Outcome o = run("run " + model + " -o " + h5);
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find(model + ":3:16: bodies.a.inertia: must be >= 0 (got -2)"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(h5));
  EXPECT_EQ(run("validate " + model).code, 1);
}

// The time stepper from the command line: same result format, read back.
TEST_F(Cli, TimeSteppingFromTheCommandLine) {
  const std::string h5 = path("block_ts.h5");
  const Outcome o = run("run " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml -o " + h5 +
                        " --solver time_stepping --step 1e-4 --theta 0.5");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("Moreau-Jean time stepping: 40000 steps (h 1e-4 s, theta 0.5)"), std::string::npos) << o.out;
  const io::StoredRun back = io::read_hdf5(h5);
  EXPECT_EQ(back.result.num_samples(), 4001);
  EXPECT_EQ(back.result.stats.steps, 40000);
  EXPECT_EQ(back.result.events.size(), 7u);  // 4 break-aways and 3 sticks, as event-driven
}

// simulation.integrator from the command line: the integrator that ran is
// named in the summary and in the file's /run attribute `integrator`.
TEST_F(Cli, IntegratorFromTheCommandLine) {
  const std::string block = std::string(LUZTAR_MODELS_DIR) + "/block.yaml";
  const std::string h5 = path("block_adams.h5");
  Outcome o = run("run " + block + " -o " + h5 + " --integrator cvode_adams");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("  solver     cvode_adams: "), std::string::npos) << o.out;
  EXPECT_EQ(io::read_hdf5(h5).result.integrator, "cvode_adams");
  o = run("run " + block + " -o " + h5 + " --integrator exact");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("  solver     exact: "), std::string::npos) << o.out;
  EXPECT_EQ(io::read_hdf5(h5).result.integrator, "exact");
  o = run("run " + block + " -o " + h5);  // auto is exact where it serves the model
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("  solver     exact: "), std::string::npos) << o.out;
  EXPECT_EQ(io::read_hdf5(h5).result.integrator, "exact");
  o = run("run " + block + " -o " + h5 + " --integrator cvode_bdf");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("  solver     cvode_bdf: "), std::string::npos) << o.out;
  EXPECT_EQ(io::read_hdf5(h5).result.integrator, "cvode_bdf");
  o = run("run " + block + " -o " + path("x.h5") + " --integrator rk4");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("simulation.integrator: must be one of auto, exact, cvode_bdf, cvode_adams (got 'rk4') (set on the "
                       "command line)"),
            std::string::npos)
      << o.out;
  EXPECT_FALSE(fs::exists(path("x.h5")));
}

TEST_F(Cli, MissingFileAndBadOptions) {
  Outcome o = run("run " + path("nothere.yaml"));
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("cannot open the model file"), std::string::npos) << o.out;
  o = run("run " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml -o " + path("x.h5") + " --t-end -3");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("simulation.t_end: must be later than t_start (got -3) (set on the command line)"),
            std::string::npos)
      << o.out;
  EXPECT_FALSE(fs::exists(path("x.h5")));
  o = run("run " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml -o " + path("x.h5") + " --solver time_stepping");
  EXPECT_EQ(o.code, 1);
  // The rule is on simulation.step, a field of the file (line 14 opens `simulation`), broken by the
  // solver given on the command line: located in the file, the command line named as the cause.
  EXPECT_NE(o.out.find("block.yaml:14:3: simulation.step: solver time_stepping needs a step h [s] (e.g. step: "
                       "1.0e-4) (with simulation.solver set on the command line)"),
            std::string::npos)
      << o.out;
  EXPECT_FALSE(fs::exists(path("x.h5")));
  // --set moves t_start past the file's t_end and --t-end moves t_end beyond it: the
  // run the command line describes is valid (the file with --set alone was checked first
  // and refused it); beside --set, an option that breaks a rule is named as such.
  o = run("run " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml -q -o " + path("x.h5") +
          " --set simulation.t_start=5 --t-end 8");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(fs::exists(path("x.h5")));
  o = run("run " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml -q -o " + path("y.h5") +
          " --set simulation.t_start=5 --t-end 4.5");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("luztar: --t-end 4.5: simulation.t_end: must be later than t_start (got 4.5)"),
            std::string::npos)
      << o.out;
  EXPECT_FALSE(fs::exists(path("y.h5")));
  o = run("run");
  EXPECT_EQ(o.code, 2);
  o = run("frobnicate");
  EXPECT_EQ(o.code, 2);
}

// `luztar` alone, as a new user first types it: the usage and the subcommands
// (the --help text) on stderr, exit code 2, not only "A subcommand is required".
TEST_F(Cli, NoArgumentsListsTheSubcommands) {
  const Outcome o = run("");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, run("--help").out);
  for (const char* sub : {"run", "validate", "reduce", "sweep", "plot", "info", "compare"})
    EXPECT_NE(o.out.find("\n  " + std::string(sub) + " "), std::string::npos) << sub << "\n" << o.out;
}

TEST_F(Cli, EventStormStopsWithStatusAndKeepsResults) {
  const std::string model = path("storm.yaml");
  // A light body rattling in a stiff freeplay spring: an event every ~1e-4 s,
  // declared a storm by a deliberately strict setting.
  std::ofstream(model) << "simulation: {t_end: 1, output_step: 0.001, event_storm: {events: 20, span: 0.01}}\n"
                          "bodies:\n  ball: {inertia: 1.0e-6, velocity: 10}\n"
                          "elements:\n  wall: {type: spring, body: ball, stiffness: 1.0e4, freeplay: 1.0e-3}\n";
  const std::string h5 = path("storm.h5");
  const Outcome o = run("run " + model + " -o " + h5);
  EXPECT_EQ(o.code, 3) << o.out;
  EXPECT_NE(o.out.find("event storm: 20 events within"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("last elements involved: wall ("), std::string::npos) << o.out;
  const io::StoredRun back = io::read_hdf5(h5);
  EXPECT_EQ(back.result.status, StepStatus::event_storm);
  EXPECT_LT(back.result.time.back(), 0.01);
  // the message (stored in the file) names the instant in its shortest round-trip text: the last event's
  EXPECT_NE(back.result.message.find("at t = " + shortest(back.result.events.back().t) + " s;"), std::string::npos)
      << back.result.message;
}

// The event limit's message, as stored, names where it stopped exactly (the
// last event's time, shortest round-trip text) and in seconds.
TEST_F(Cli, EventLimitMessageNamesTheInstantExactly) {
  const std::string h5 = path("limit.h5");
  const Outcome o = run("run " + std::string(LUZTAR_MODELS_DIR) + "/gear_train.yaml --set simulation.max_events=3 -o " + h5);
  EXPECT_EQ(o.code, 3) << o.out;
  const io::StoredRun back = io::read_hdf5(h5);
  ASSERT_EQ(back.result.status, StepStatus::event_limit);
  EXPECT_EQ(back.result.message, "more than 3 events (simulation.max_events) by t = " +
                                     shortest(back.result.events.back().t) + " s");
}

// A run whose S-S selection fell back to Lemke (the ill-conditioned clutch of
// mode_selection_test: a clutch to a body 1e8 times heavier) says so in the
// summary and on stderr, exits 0, and the file carries the counter.
TEST_F(Cli, SolverFallbackIsAWarningAndInTheFile) {
  const std::string model = path("heavy_clutch.yaml");
  std::ofstream(model) << "simulation: {t_end: 1, output_step: 0.25}\n"
                          "bodies:\n  a: {inertia: 1.0}\n  b: {inertia: 1.0e8}\n"
                          "elements:\n  bearing: {type: friction, body: a, coulomb: 5.0}\n"
                          "  clutch: {type: friction, bodies: [a, b], coulomb: 1.0}\n"
                          "  drive_a: {type: torque, body: a, torque: 1.0}\n"
                          "  drive_b: {type: torque, body: b, torque: 10.0}\n";
  const std::string h5 = path("heavy_clutch.h5");
  const Outcome o = run("run " + model + " -o " + h5);
  EXPECT_EQ(o.code, 0) << o.out;
  const std::string line =
      "warning: 1 S-S groups re-solved by Lemke after the box QP missed its tolerance\n";
  EXPECT_NE(o.out.find("  " + line), std::string::npos) << o.out;           // the summary
  EXPECT_NE(o.out.find("luztar: " + line), std::string::npos) << o.out;     // stderr
  const io::StoredRun back = io::read_hdf5(h5);
  EXPECT_EQ(back.result.stats.selection_fallbacks, 1);
  EXPECT_EQ(back.result.stats.selection_unsolved, 0);
  // An ordinary model prints no such line.
  const Outcome plain = run("run " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml -o " + path("block.h5"));
  EXPECT_EQ(plain.code, 0) << plain.out;
  EXPECT_EQ(plain.out.find("re-solved"), std::string::npos) << plain.out;
}

// luztar reduce on Simplification 2: the reduced stiffness and freeplay of the
// paper, exactly, in a model file that runs to the same trajectory as the
// original (which `run` reduces the same way).
TEST_F(Cli, ReduceWritesTheSimplification2Model) {
  const std::string model = std::string(LUZTAR_MODELS_DIR) + "/gear_train_simplification2.yaml";
  const std::string reduced = path("reduced.yaml");
  const Outcome o = run("reduce " + model + " -o " + reduced);
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("(4 bodies) -> " + reduced + " (2 bodies)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("1. massless frictionless body delta between springs 'shaft_in' and 'mesh'"), std::string::npos);
  EXPECT_NE(o.out.find("Theorem 4.3"), std::string::npos);
  const ModelSpec spec = io::load_model_spec(reduced);
  ASSERT_EQ(spec.bodies.size(), 2u);
  const auto& s = std::get<SpringSpec>(spec.elements[0]);
  EXPECT_NEAR(s.stiffness, 1.0 / (1.0 / 200 + 1.0 / 5000 + 4.0 / 400), 1e-12);
  EXPECT_NEAR(s.freeplay, 0.005 + 0.01 + 2 * 0.005, 1e-16);
  EXPECT_EQ(s.ratio, 2.0);
  // The steps name the stiffness as written: its shortest round-trip text, not 10 digits
  EXPECT_NE(o.out.find("scaled to " + shortest(s.stiffness) + " and freeplay 0.025"), std::string::npos) << o.out;
  const std::string a = path("a.h5"), b = path("b.h5");
  ASSERT_EQ(run("run -q " + model + " --t-end 2 -o " + a).code, 0);
  ASSERT_EQ(run("run -q " + reduced + " --t-end 2 -o " + b).code, 0);
  const io::StoredRun ra = io::read_hdf5(a), rb = io::read_hdf5(b);
  // the file's four bodies (the eliminated delta and gamma after the kept
  // ones) against the reduced file's two: psi and phi identical
  ASSERT_EQ(ra.result.body_names, (std::vector<std::string>{"psi", "phi", "delta", "gamma"}));
  ASSERT_EQ(rb.result.body_names, (std::vector<std::string>{"psi", "phi"}));
  ASSERT_EQ(ra.result.num_samples(), rb.result.num_samples());
  for (int k = 0; k < ra.result.num_samples(); ++k)
    for (int j = 0; j < 2; ++j) ASSERT_EQ(ra.result.angle[k * 4 + j], rb.result.angle[k * 2 + j]) << "k = " << k;
  EXPECT_EQ(ra.result.events.size(), rb.result.events.size());
}

TEST_F(Cli, PlotDrawsAPicture) {
  const std::string h5 = path("block.h5"), png = path("block.png");
  ASSERT_EQ(run("run " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml -q -o " + h5).code, 0);
  const Outcome o = run("plot " + h5 + " -o " + png);
  ASSERT_EQ(o.code, 0) << o.out;
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 10000u);
  std::ifstream in(png, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  EXPECT_EQ(run("plot " + path("missing.h5") + " -o " + png).code, 1);
}

// An exception during a run (a control block's LCP without a solution at
// t = 0.18 s, tests/data/block_overflow.yaml) is a run stopped early: exit 3,
// the message on stderr, and the results up to then written.
TEST_F(Cli, ExceptionDuringARunExitsThreeAndKeepsResults) {
  const std::string h5 = path("overflow.h5");
  const Outcome o = run("run " + std::string(LUZTAR_TEST_DATA_DIR) + "/block_overflow.yaml -q -o " + h5);
  EXPECT_EQ(o.code, 3) << o.out;
  EXPECT_NE(o.out.find("luztar: run stopped early (solver_failure): stopped by an error at t = 0.18 s: complementarity "
                       "block runaway: input is not finite (inf) at t = 0.18 s"),
            std::string::npos)
      << o.out;
  const io::StoredRun back = io::read_hdf5(h5);
  EXPECT_EQ(back.result.status, StepStatus::solver_failure);
  ASSERT_EQ(back.result.time.size(), 18u);
  EXPECT_NEAR(back.result.time.back(), 0.17, 1e-12);
}

}  // namespace
}  // namespace luztar
