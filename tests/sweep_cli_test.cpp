// `luztar sweep` end to end: the metrics equal those of single `luztar run`s,
// an interrupted sweep (SIGKILL or Ctrl-C) resumes to the same file, two
// sweeps never write one file, the MPI sweep equals the threaded one, and
// `luztar plot` draws the map.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fcntl.h>

#include <chrono>
#include <functional>
#include <numbers>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "apps/sweep/sweep_plan.hpp"
#include "core/number_text.hpp"
#include "io/hdf5_reader.hpp"
#include "io/sweep_file.hpp"
#include "io/yaml_sweep.hpp"
#include "tests/cli_runner.hpp"

extern char** environ;

namespace luztar {
namespace {

namespace fs = std::filesystem;
using test_support::run_cli;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces the one occurrence of `from` in `text`.
std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs twice";
  return text.replace(at, from.size(), to);
}

pid_t spawn_cli(const std::vector<std::string>& args) {
  std::vector<std::string> all = {LUZTAR_CLI};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, LUZTAR_CLI, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

// Runs done in the sweep file on disk (0 while it does not exist yet).
long runs_done(const std::string& path) {
  try {
    return io::read_sweep_file(path).runs_done;
  } catch (const std::exception&) {
    return 0;
  }
}

bool wait_for(const std::function<bool()>& ready, double seconds = 60.0) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

int exit_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every stored item equal, except the wall times (they measure this machine).
void expect_same_sweep(const std::string& a_path, const std::string& b_path) {
  const io::SweepFileContents a = io::read_sweep_file(a_path), b = io::read_sweep_file(b_path);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.model_text, b.model_text);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.parameter_paths, b.parameter_paths);
  EXPECT_EQ(a.parameter_values, b.parameter_values);
  EXPECT_EQ(a.metric_names, b.metric_names);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.runs_done, b.runs_done);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (std::size_t m = 0; m < a.metrics.size(); ++m)
    for (std::size_t r = 0; r < a.runs(); ++r)
      EXPECT_TRUE(same_bits(a.metrics[m][r], b.metrics[m][r]))
          << a.metric_names[m] << " run " << r << ": " << a.metrics[m][r] << " vs " << b.metrics[m][r];
}

class SweepCli : public test_support::TempDirTest {
 protected:
  std::string gear_train() const { return std::string(LUZTAR_MODELS_DIR) + "/gear_train.yaml"; }
  // A sweep of `n` one-second gear-train runs over the mesh freeplay.
  std::vector<std::string> freeplay_sweep(int n, const std::string& out, const std::string& jobs) const {
    return {"sweep", gear_train(), "--set", "simulation.t_end=1", "--set",
            "elements.mesh.freeplay=0.004:0.02:" + std::to_string(n), "-o", out, "-j", jobs, "-q"};
  }
};

// Swept values with units (a list and a range) run in SI and are stored in
// SI: the same metric as the plain SI values, to the bit.
TEST_F(SweepCli, ValuesWithUnitsAreSweptInSI) {
  const double deg = std::numbers::pi / 180;
  const std::string common = "sweep " + gear_train() + " -q --set simulation.t_end=0.2 --metric 'heat=energy: dissipated' ";
  const test_support::Outcome a = run_cli(common + "--set elements.mesh.freeplay=0.25deg,0.5deg -o " + path("u.h5"));
  ASSERT_EQ(a.code, 0) << a.out;
  const test_support::Outcome b = run_cli(common + "--set elements.mesh.freeplay=" + shortest(0.25 * deg) + "," +
                                          shortest(0.5 * deg) + " -o " + path("si.h5"));
  ASSERT_EQ(b.code, 0) << b.out;
  const test_support::Outcome c = run_cli(common + "--set elements.mesh.freeplay=0.25deg:0.5deg:2 -o " + path("r.h5"));
  ASSERT_EQ(c.code, 0) << c.out;
  const io::SweepFileContents u = io::read_sweep_file(path("u.h5")), si = io::read_sweep_file(path("si.h5")),
                              r = io::read_sweep_file(path("r.h5"));
  EXPECT_EQ(u.parameter_values[1], (std::vector<std::string>{shortest(0.25 * deg), shortest(0.5 * deg)}));
  EXPECT_EQ(u.parameter_values[1], si.parameter_values[1]);
  EXPECT_EQ(u.metrics, si.metrics);
  // a range's values are rounded to 15 significant digits (core/sweep_spec.hpp)
  EXPECT_NEAR(std::stod(r.parameter_values[1][0]), 0.25 * deg, 1e-15 * 0.25 * deg);
  EXPECT_NEAR(std::stod(r.parameter_values[1][1]), 0.5 * deg, 1e-15 * 0.5 * deg);
}

TEST_F(SweepCli, GridMetricsEqualSingleRuns) {
  const std::string out = path("grid.h5");
  const test_support::Outcome o = run_cli(
      "sweep " + gear_train() + " --set simulation.t_end=0.5 --set elements.mesh.freeplay=0.005,0.02 "
      "--set elements.bearing_phi.coulomb=0.1,0.3 --metric 'vmax=max: bodies.psi.velocity' "
      "--metric 'stuck=time_stuck: bearing_phi' --metric 'contacts=events: contact' "
      "--metric 'heat=energy: dissipated' -o " + out);
  ASSERT_EQ(o.code, 0) << o.out;
  const io::SweepFileContents s = io::read_sweep_file(out);
  ASSERT_EQ(s.runs(), 4u);
  EXPECT_EQ(s.runs_done, 4);
  const std::string base = read_text(gear_train());
  for (std::size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(s.status[i], RunStatus::ok);
    const std::string freeplay = s.parameter_values[1][i], coulomb = s.parameter_values[2][i];
    EXPECT_EQ(freeplay, i < 2 ? "0.005" : "0.02");  // grid: the first parameter varies slowest
    std::string text = replace_once(base, "freeplay: 0.01\n", "freeplay: " + freeplay + "\n");
    text = replace_once(text, "coulomb: 0.2\n", "coulomb: " + coulomb + "\n");
    const std::string model = path("run" + std::to_string(i) + ".yaml"), h5 = path("run.h5");
    std::ofstream(model) << text;
    ASSERT_EQ(run_cli("run " + model + " --t-end 0.5 -q -o " + h5).code, 0);
    const Result r = io::read_hdf5(h5).result;
    double vmax = -INFINITY;
    for (int k = 0; k < r.num_samples(); ++k) vmax = std::max(vmax, r.velocity[k * r.num_bodies()]);
    long contacts = 0;
    for (const EventRecord& ev : r.events) contacts += ev.kind == EventKind::contact;
    const int phi = 6;  // bearing_phi: element order of the model file
    ASSERT_EQ(r.element_names[phi], "bearing_phi");
    const double tol = 1e-12;
    EXPECT_NEAR(s.metrics[0][i], vmax, tol * std::fabs(vmax));
    EXPECT_NEAR(s.metrics[1][i], r.time_stuck[phi], 1e-12);
    EXPECT_EQ(s.metrics[2][i], static_cast<double>(contacts));
    EXPECT_NEAR(s.metrics[3][i], r.dissipated.back() - r.dissipated.front(), tol * r.dissipated.back());
  }
}

TEST_F(SweepCli, FailedRunIsRecordedAndTheSweepGoesOn) {
  const std::string out = path("limits.h5");
  const test_support::Outcome o = run_cli("sweep " + gear_train() + " --set simulation.t_end=0.5 "
                                          "--set simulation.max_events=5,1000,100000 -o " + out);
  EXPECT_EQ(o.code, 3) << o.out;  // some runs did not finish
  EXPECT_NE(o.out.find("2 reached t_end, 1 did not"), std::string::npos) << o.out;
  const io::SweepFileContents c = io::read_sweep_file(out);
  ASSERT_EQ(c.runs(), 3u);
  EXPECT_EQ(c.status[0], RunStatus::event_limit);
  EXPECT_NE(c.message[0].find("event"), std::string::npos) << c.message[0];
  for (const auto& m : c.metrics) EXPECT_TRUE(std::isnan(m[0]));
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(c.status[i], RunStatus::ok);
    EXPECT_EQ(c.message[i], "");
    EXPECT_GT(c.metrics[0][i], 0.0);  // dissipated
  }
  // --resume of the finished file runs nothing and exits as the file says: 3
  // (it exited 0, as did a resumed interrupted sweep with failed runs: a
  // new-user hunt)
  const test_support::Outcome again = run_cli("sweep " + gear_train() + " --set simulation.t_end=0.5 "
                                              "--set simulation.max_events=5,1000,100000 -o " + out + " --resume");
  EXPECT_EQ(again.code, 3) << again.out;
  EXPECT_NE(again.out.find("in the file, 1 of 3 did not"), std::string::npos) << again.out;
}

// A run stopped by an exception (a control block's LCP without a solution at
// t = 0.18 s, tests/data/block_overflow.yaml) counts as a solver failure with
// the exception's text; the run that ends before it is fine.
TEST_F(SweepCli, ExceptionDuringARunIsASolverFailure) {
  const std::string out = path("overflow.h5");
  const test_support::Outcome o = run_cli("sweep " + std::string(LUZTAR_TEST_DATA_DIR) +
                                          "/block_overflow.yaml --set simulation.t_end=0.1,0.5 -o " + out);
  EXPECT_EQ(o.code, 3) << o.out;
  EXPECT_NE(o.out.find("1 reached t_end, 1 did not"), std::string::npos) << o.out;
  const io::SweepFileContents c = io::read_sweep_file(out);
  ASSERT_EQ(c.runs(), 2u);
  EXPECT_EQ(c.status[0], RunStatus::ok);
  EXPECT_EQ(c.status[1], RunStatus::solver_failure);
  EXPECT_EQ(c.message[1],
            "stopped by an error at t = 0.18 s: complementarity block runaway: input is not finite (inf) at t = 0.18 s");
}

TEST_F(SweepCli, SweepSectionInTheModelFileAndDryRun) {
  const std::string model = path("block_sweep.yaml"), out = path("block_sweep.h5");
  std::ofstream(model) << read_text(std::string(LUZTAR_MODELS_DIR) + "/block.yaml")
                       << "sweep:\n  combine: zip\n  parameters:\n    bodies.block.inertia: [1, 2, 4]\n"
                          "    elements.bearing.coulomb: [0.5, 1, 1.5]\n  metrics:\n"
                          "    v: {max: bodies.block.velocity}\n";
  test_support::Outcome o = run_cli("sweep " + model + " --dry-run -o " + out);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("2: bodies.block.inertia=4 elements.bearing.coulomb=1.5"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(out));
  // options before the input: each --set takes one value
  o = run_cli("sweep --set bodies.block.inertia=1,2,3 " + model + " --dry-run");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("2: bodies.block.inertia=3 elements.bearing.coulomb=1.5"), std::string::npos) << o.out;
  // `luztar run` ignores the section; `luztar sweep` runs it (3 zipped runs).
  EXPECT_EQ(run_cli("run " + model + " -q -o " + path("single.h5")).code, 0);
  o = run_cli("sweep " + model + " -q -o " + out);
  EXPECT_EQ(o.code, 0) << o.out;
  const io::SweepFileContents c = io::read_sweep_file(out);
  ASSERT_EQ(c.runs(), 3u);
  EXPECT_EQ(c.metric_names, std::vector<std::string>{"v"});
  // heavier block, more friction: slower
  EXPECT_GT(c.metrics[0][0], c.metrics[0][1]);
  EXPECT_GT(c.metrics[0][1], c.metrics[0][2]);
}

// --integrator sets simulation.integrator of every run: each run's metric is
// that of `luztar run --integrator` on the same model, bit for bit, and not
// the default integrator's; an unknown name stops the sweep before any run.
TEST_F(SweepCli, IntegratorOptionAppliesToEveryRun) {
  const std::string block = std::string(LUZTAR_MODELS_DIR) + "/block.yaml", out = path("adams.h5");
  const std::string sweep = "sweep " + block + " --set simulation.t_end=1,2 --metric 'v=max: bodies.block.velocity'";
  test_support::Outcome o = run_cli(sweep + " --integrator cvode_adams -q -o " + out);
  ASSERT_EQ(o.code, 0) << o.out;
  const io::SweepFileContents c = io::read_sweep_file(out);
  ASSERT_EQ(c.runs(), 2u);
  const std::string h5 = path("single.h5");
  ASSERT_EQ(run_cli("run " + block + " --t-end 2 --integrator cvode_adams -q -o " + h5).code, 0);
  const Result adams = io::read_hdf5(h5).result;
  ASSERT_EQ(run_cli("run " + block + " --t-end 2 -q -o " + h5).code, 0);
  const Result bdf = io::read_hdf5(h5).result;
  double v_adams = -INFINITY, v_bdf = -INFINITY;
  for (double v : adams.velocity) v_adams = std::max(v_adams, v);
  for (double v : bdf.velocity) v_bdf = std::max(v_bdf, v);
  EXPECT_TRUE(same_bits(c.metrics[0][1], v_adams)) << c.metrics[0][1] << " vs " << v_adams;
  EXPECT_NE(v_adams, v_bdf);
  o = run_cli(sweep + " --integrator rk4 -o " + path("bad.h5"));
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("--integrator: simulation.integrator: must be one of auto, exact, cvode_bdf, cvode_adams (got 'rk4')"),
            std::string::npos)
      << o.out;
  EXPECT_FALSE(fs::exists(path("bad.h5")));
}

TEST_F(SweepCli, KilledSweepResumesToTheSameFile) {
  const std::string reference = path("reference.h5"), killed = path("killed.h5");
  ASSERT_EQ(run_cli("sweep " + gear_train() + " --set simulation.t_end=1 --set elements.mesh.freeplay=0.004:0.02:12 "
                    "-o " + reference + " -j 2 -q").code, 0);
  const pid_t pid = spawn_cli(freeplay_sweep(12, killed, "1"));
  ASSERT_TRUE(wait_for([&] { return runs_done(killed) >= 3; }));
  kill(pid, SIGKILL);
  EXPECT_EQ(exit_code(pid), 128 + SIGKILL);
  // Whatever the moment of the kill, the file reads, and holds only finished runs.
  const io::SweepFileContents partial = io::read_sweep_file(killed);
  long pending = 0;
  for (RunStatus s : partial.status) pending += s == RunStatus::pending;
  EXPECT_GE(partial.runs_done, 3);
  EXPECT_EQ(partial.runs_done + pending, 12);
  ASSERT_GT(pending, 0) << "the sweep finished before it was killed; make it longer";
  for (std::size_t i = 0; i < partial.runs(); ++i)
    EXPECT_EQ(std::isnan(partial.metrics[0][i]), partial.status[i] == RunStatus::pending);

  // Without --resume the unfinished file is not overwritten.
  test_support::Outcome o = run_cli("sweep " + gear_train() + " --set simulation.t_end=1 --set "
                                    "elements.mesh.freeplay=0.004:0.02:12 -o " + killed);
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("holds an unfinished sweep (" + std::to_string(partial.runs_done) + " of 12 runs done)"),
            std::string::npos) << o.out;
  // --resume of a different sweep is refused.
  o = run_cli("sweep " + gear_train() + " --set simulation.t_end=1 --set elements.mesh.freeplay=0.004:0.02:11 -o " +
              killed + " --resume");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("holds a different sweep"), std::string::npos) << o.out;
  // Killed again at arbitrary moments (also while the file is being updated):
  // every time the file reads and no finished run is lost.
  std::vector<std::string> resume = freeplay_sweep(12, killed, "1");
  resume.push_back("--resume");
  long before = partial.runs_done;
  for (int round = 0; round < 3 && before < 11; ++round) {
    const pid_t again = spawn_cli(resume);
    ASSERT_TRUE(wait_for([&] { return runs_done(killed) > before; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(7 * round));
    kill(again, SIGKILL);
    exit_code(again);
    const long now = io::read_sweep_file(killed).runs_done;
    EXPECT_GT(now, before);
    before = now;
  }
  pending = 12 - before;
  // --resume runs exactly the pending runs.
  o = run_cli("sweep " + gear_train() + " --set simulation.t_end=1 --set elements.mesh.freeplay=0.004:0.02:12 -o " +
              killed + " --resume -j 2");
  EXPECT_EQ(o.code, 0) << o.out;
  // the default metrics: dissipated in all and by each of the 3 springs and 4 bearings, 7 event kinds, 4 times stuck
  EXPECT_NE(o.out.find("12 runs (2 parameters, 19 metrics), " + std::to_string(pending) + " to do"), std::string::npos)
      << o.out;
  expect_same_sweep(reference, killed);
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
}

// A block pushed by a table signal read from a CSV file, swept over its inertia (4 runs).
class TableSweep : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    write_table("2");
    std::ofstream(model()) << "simulation: {t_end: 1, output_step: 0.01}\n"
                              "signals:\n  drive: {table: {file: drive.csv}}\n"
                              "bodies:\n  block: {inertia: 1.0}\n"
                              "elements:\n"
                              "  bearing: {type: friction, body: block, viscous: 0.5, coulomb: 0.5}\n"
                              "  push: {type: torque, body: block, torque: drive}\n"
                              "sweep:\n  parameters:\n    bodies.block.inertia: [1, 2, 3, 4]\n";
  }
  // The drive: 0 at t = 0, `peak` at t = 1 [N m], 0 at t = 2, linear between.
  void write_table(const std::string& peak) const {
    std::ofstream(path("drive.csv")) << "t,v\n0,0\n1," << peak << "\n2,0\n";
  }
  std::string model() const { return path("table.yaml"); }
  // What a sweep killed after its first two runs leaves: the file with runs 0
  // and 1 recorded, 2 and 3 pending (the writer's own steps, as in coordinate()).
  void write_interrupted_sweep(const std::string& input, const std::string& out) const {
    const app::SweepPlan plan = app::make_plan(io::load_sweep(input));
    io::create_sweep_file(out, plan.layout());
    io::record_runs(out, {plan.execute(0), plan.execute(1)});
  }
};

// A table edited between the interruption and --resume would mix two tables in
// one file: the resume is refused, naming the table, and the file stays as it
// was. With the table as it was, the resume finishes the sweep to the file an
// uninterrupted sweep writes.
TEST_F(TableSweep, ResumeIsRefusedWhenATableFileChanged) {
  const std::string out = path("out.h5"), reference = path("reference.h5");
  ASSERT_EQ(run_cli("sweep " + model() + " -q -o " + reference).code, 0);
  write_interrupted_sweep(model(), out);
  ASSERT_EQ(io::read_sweep_file(out).runs_done, 2);

  write_table("3");
  test_support::Outcome o = run_cli("sweep " + model() + " -q --resume -o " + out);
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("luztar: " + out + ": --resume: the table file " + path("drive.csv") +
                       " changed since the sweep started; run without --resume and with --overwrite to start again, "
                       "or choose another output file"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(io::read_sweep_file(out).runs_done, 2);

  write_table("2");
  o = run_cli("sweep " + model() + " --resume -o " + out);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("4 runs (1 parameters, "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("2 to do"), std::string::npos) << o.out;
  expect_same_sweep(reference, out);
}

// A sweep file names its model: the model file edited is named.
TEST_F(TableSweep, ResumeIsRefusedWhenTheModelFileNamedByASweepFileChanged) {
  const std::string sweep = path("sweep.yaml"), out = path("out.h5");
  const std::string text = read_text(model());
  std::ofstream(model()) << text.substr(0, text.find("sweep:"));
  std::ofstream(sweep) << "model: table.yaml\nsweep:\n  parameters:\n    bodies.block.inertia: [1, 2, 3, 4]\n";
  write_interrupted_sweep(sweep, out);
  std::ofstream(model(), std::ios::app) << "  extra: {type: torque, body: block, torque: 0.1}\n";
  const test_support::Outcome o = run_cli("sweep " + sweep + " -q --resume -o " + out);
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find(": --resume: the model file " + model() + " changed since the sweep started; run without "
                       "--resume and with --overwrite"),
            std::string::npos)
      << o.out;
}

// The runs read the tables the plan read (and its fingerprint covers), not the
// files on disk when they run: an edit during a sweep changes no run.
TEST_F(TableSweep, RunsUseTheTablesThePlanRead) {
  const app::SweepPlan plan = app::make_plan(io::load_sweep(model()));
  ASSERT_EQ(plan.inputs.size(), 1u);
  EXPECT_EQ(plan.inputs[0].path, "drive.csv");
  write_table("3");
  const Model m = plan.model(3);
  EXPECT_DOUBLE_EQ(evaluate(m.signals[m.loads[0].signal], 0.5), 1.0);  // half of the peak 2, not of 3
  EXPECT_EQ(m.inertia[0], 4.0);
}

TEST_F(SweepCli, SecondWriterIsRefusedAndCtrlCKeepsFinishedRuns) {
  const std::string out = path("locked.h5");
  const pid_t pid = spawn_cli(freeplay_sweep(40, out, "1"));
  ASSERT_TRUE(wait_for([&] { return runs_done(out) >= 1; }));
  const test_support::Outcome second = run_cli("sweep " + gear_train() + " --set simulation.t_end=1 --set "
                                               "elements.mesh.freeplay=0.004:0.02:40 --resume -o " + out);
  EXPECT_EQ(second.code, 1);
  EXPECT_NE(second.out.find("another luztar sweep (pid " + std::to_string(pid) + ") is writing this file"),
            std::string::npos) << second.out;
  kill(pid, SIGINT);
  EXPECT_EQ(exit_code(pid), 130);
  const io::SweepFileContents c = io::read_sweep_file(out);
  EXPECT_GE(c.runs_done, 1);
  EXPECT_LT(c.runs_done, 40);
  EXPECT_FALSE(fs::exists(out + ".lock"));
}

TEST_F(SweepCli, TrajectoriesAreStoredPerRun) {
  const std::string out = path("traj.h5"), single = path("single.h5");
  ASSERT_EQ(run_cli("sweep " + std::string(LUZTAR_MODELS_DIR) + "/block.yaml --set bodies.block.inertia=1,2 "
                    "--trajectories -q -o " + out).code, 0)
      << read_text(std::string(LUZTAR_MODELS_DIR) + "/block.yaml");
  const std::string model = path("block2.yaml");
  std::ofstream(model) << replace_once(read_text(std::string(LUZTAR_MODELS_DIR) + "/block.yaml"), "inertia: 1.0}",
                                       "inertia: 2}");
  ASSERT_EQ(run_cli("run " + model + " -q -o " + single).code, 0);
  const Result a = io::read_sweep_trajectory(out, 1), b = io::read_hdf5(single).result;
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.angle, b.angle);
  EXPECT_EQ(a.velocity, b.velocity);
  EXPECT_EQ(a.events.size(), b.events.size());
  // stored chunked and deflated
  const std::string check = "/usr/bin/python3 -c \"import h5py, sys; d = h5py.File(sys.argv[1])['trajectories/run_1/"
                            "bodies/block/angle']; sys.exit(0 if d.chunks and d.compression == 'gzip' else 1)\" " + out;
  EXPECT_EQ(std::system(check.c_str()), 0);
}

TEST_F(SweepCli, PlotDrawsTheHeatMap) {
  const std::string out = path("map.h5"), png = path("map.png");
  ASSERT_EQ(run_cli("sweep " + gear_train() + " --set simulation.t_end=0.2 --set elements.mesh.freeplay=0.005,0.01 "
                    "--set signals.drive.amplitude=0.5,1 -q -o " + out).code, 0);
  const test_support::Outcome o = run_cli("plot " + out + " -o " + png + " --metric dissipated");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_GT(fs::file_size(png), 10000u);
  EXPECT_EQ(run_cli("plot " + out + " -o " + png + " --metric nothere").code, 2);  // a refused option
}

#ifdef LUZTAR_MPIEXEC
TEST_F(SweepCli, MpiSweepEqualsThreadedSweep) {
  const std::string threaded = path("threads.h5"), ranks = path("mpi.h5");
  const std::string args = " sweep " + gear_train() +
                           " --set simulation.t_end=0.5 --set elements.mesh.freeplay=0.004:0.02:6 "
                           "--set elements.bearing_phi.coulomb=0.1,0.3 -q -o ";
  ASSERT_EQ(run_cli(args.substr(1) + threaded + " -j 2").code, 0);
  // Root in containers, fewer cores than ranks: both allowed explicitly.
  const std::string cmd = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + std::string(LUZTAR_MPIEXEC) +
                          " --oversubscribe -n 2 " + LUZTAR_CLI + args + ranks + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) text += buf;
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
  expect_same_sweep(threaded, ranks);
}
#endif

}  // namespace
}  // namespace luztar
