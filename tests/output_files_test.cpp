// Output files (io/atomic_file and the commands that write): only a new path or
// a regular file takes output, refused paths are left exactly as they were,
// bad targets fail before the run, and no temporary file outlives the process
// (committed, failed, or killed by SIGINT/SIGTERM).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "io/atomic_file.hpp"
#include "tests/cli_runner.hpp"

namespace luztar {
namespace {

namespace fs = std::filesystem;
using test_support::Outcome;
using OutputFiles = test_support::TempDirTest;

const std::string kBlock = std::string(LUZTAR_MODELS_DIR) + "/block.yaml";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The names of the temporary files left in `dir`.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".partial-") != std::string::npos) found.push_back(e.path().string());
  return found;
}

// A luztar process started without a shell, so the test can signal it; its
// stdout and stderr go to `log`. wait() kills it after `limit` (a hang fails
// the test instead of blocking the suite) and returns the exit code, or
// 128 + signal when a signal ended it, or -1 when the limit was reached.
class Child {
 public:
  // `ignored`: a signal set to SIG_IGN for the child, as nohup does (kept across exec)
  Child(const std::vector<std::string>& args, const std::string& log, int ignored = 0) {
    pid_ = ::fork();
    if (pid_ == 0) {
      if (ignored) ::signal(ignored, SIG_IGN);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> argv = {const_cast<char*>(LUZTAR_CLI)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(LUZTAR_CLI, argv.data());
      ::_exit(127);
    }
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  bool running() const {
    siginfo_t info{};  // si_pid stays 0 while the child has not ended; WNOWAIT leaves it for wait()
    return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
  }
  int wait(std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > end) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
};

Outcome run_limited(const std::vector<std::string>& args, const std::string& log) {
  Child c(args, log);
  const int code = c.wait(std::chrono::seconds(60));
  return {code, read_text(log)};
}

TEST_F(OutputFiles, ClassifiesWithoutOpening) {
  std::ofstream(path("regular")) << "x";
  fs::create_symlink("regular", path("link"));
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  EXPECT_EQ(io::classify_path(path("missing")), io::PathKind::missing);
  EXPECT_EQ(io::classify_path(path("regular")), io::PathKind::regular);
  EXPECT_EQ(io::classify_path(dir_.string()), io::PathKind::directory);
  EXPECT_EQ(io::classify_path(path("link")), io::PathKind::symlink);
  EXPECT_EQ(io::classify_path(path("fifo")), io::PathKind::fifo);
  // /dev/null only goes to functions that never write: lstat, and the check
  EXPECT_EQ(io::classify_path("/dev/null"), io::PathKind::character_device);
  try {
    io::check_output_path("/dev/null");
    FAIL() << "/dev/null accepted as an output";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "/dev/null: is a character device; output goes only to a new path or a regular file");
  }
  EXPECT_NO_THROW(io::check_output_path(path("regular")));
  EXPECT_NO_THROW(io::check_output_path(path("missing")));
  try {
    io::check_output_path(path("nodir/out.h5"));
    FAIL() << "a missing directory accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path("nodir/out.h5") + ": the output directory '" + path("nodir") +
                                         "' does not exist (No such file or directory)");
  }
}

// The temporary exists from construction (proving the directory writable),
// the target only from commit; a target that changed kind meanwhile is refused
// at commit and left alone.
TEST_F(OutputFiles, AtomicOutputLifecycle) {
  const std::string target = path("out.txt");
  std::string temp;
  {
    io::AtomicOutput out(target);
    temp = out.temp_path();
    EXPECT_EQ(temp.rfind(target + ".partial-" + std::to_string(::getpid()) + "-", 0), 0u) << temp;
    EXPECT_TRUE(fs::is_regular_file(temp));
    EXPECT_FALSE(fs::exists(target));
    std::ofstream(temp) << "done";
    out.commit();
  }
  EXPECT_EQ(read_text(target), "done");
  EXPECT_FALSE(fs::exists(temp));

  const std::string fifo = path("fifo");
  {
    io::AtomicOutput out(fifo + ".txt");
    ASSERT_EQ(::mkfifo((fifo + ".txt").c_str(), 0644), 0);  // appears during the "run"
    EXPECT_THROW(out.commit(), std::runtime_error);
  }
  EXPECT_EQ(io::classify_path(fifo + ".txt"), io::PathKind::fifo);
  EXPECT_TRUE(temporaries(dir_).empty());
}

TEST_F(OutputFiles, StaleTemporariesOfDeadWritersOnly) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // its pid now names no process
  const std::string target = path("out.h5");
  const std::string dead = target + ".partial-" + std::to_string(child) + "-0";
  const std::string dead_old_style = target + ".partial-" + std::to_string(child);
  const std::string live = target + ".partial-" + std::to_string(::getpid()) + "-9";
  const std::string other = target + ".partial-notapid";
  for (const std::string& p : {dead, dead_old_style, live, other}) std::ofstream(p) << "x";
  io::remove_stale_temporaries(target);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(dead_old_style));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
}

// -o to a symbolic link: the link and its target are untouched.
TEST_F(OutputFiles, RunRefusesASymlink) {
  std::ofstream(path("target.h5")) << "keep";
  fs::create_symlink("target.h5", path("link.h5"));
  const Outcome o = run_limited({"run", kBlock, "-o", path("link.h5")}, path("log"));
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("luztar: " + path("link.h5") +
                       ": is a symbolic link (to 'target.h5'); output goes only to a new path or a regular file: "
                       "links are neither followed nor replaced"),
            std::string::npos)
      << o.out;
  EXPECT_TRUE(fs::is_symlink(path("link.h5")));
  EXPECT_EQ(fs::read_symlink(path("link.h5")), "target.h5");
  EXPECT_EQ(read_text(path("target.h5")), "keep");
  EXPECT_TRUE(temporaries(dir_).empty());
}

// -o, --csv, reduce -o, sweep -o and plot -o to a FIFO: refused at once (a
// writer opening it would block until a reader came), the FIFO stays a FIFO.
TEST_F(OutputFiles, EveryCommandRefusesAFifo) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string message = "luztar: " + fifo + ": is a FIFO; output goes only to a new path or a regular file";
  const std::string sweep = std::string(LUZTAR_MODELS_DIR) + "/sweeps/gear_train_rattle.yaml";
  ASSERT_TRUE(fs::exists(sweep));
  std::ofstream(path("result.h5")) << "not read";
  const std::vector<std::vector<std::string>> commands = {
      {"run", kBlock, "-o", fifo},
      {"run", kBlock, "-o", path("out.h5"), "--csv", fifo},
      {"reduce", kBlock, "-o", fifo},
      {"sweep", sweep, "-o", fifo, "-q"},
      {"plot", path("result.h5"), "-o", fifo},
  };
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0] + " " + args[args.size() - 1]);
    const Outcome o = run_limited(args, path("log"));
    EXPECT_EQ(o.code, 1) << o.out;
    EXPECT_NE(o.out.find(message), std::string::npos) << o.out;
    EXPECT_EQ(io::classify_path(fifo), io::PathKind::fifo);
  }
  EXPECT_FALSE(fs::exists(path("out.h5")));
  EXPECT_TRUE(temporaries(dir_).empty());
}

// An output directory that cannot take a file fails before the run: a model
// that would run for hours (t_end 1e6 s) ends with the error and writes nothing.
TEST_F(OutputFiles, UnwritableDirectoryFailsBeforeTheRun) {
  // root ignores permission bits; /proc takes no new files, for root neither
  std::string dir = "/proc";
  if (::geteuid() != 0) {
    dir = path("locked");
    fs::create_directory(dir);
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  }
  const Outcome o = run_limited({"run", kBlock, "--t-end", "1e6", "--output-step", "1000", "-o", dir + "/out.h5"}, path("log"));
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("luztar: " + dir + "/out.h5: cannot create a file in the output directory '" + dir + "': "),
            std::string::npos)
      << o.out;
  EXPECT_FALSE(fs::exists(dir + "/out.h5"));

  const Outcome missing = run_limited({"run", kBlock, "--t-end", "1e6", "--output-step", "1000", "-o", path("nodir/out.h5")}, path("log"));
  EXPECT_EQ(missing.code, 1) << missing.out;
  EXPECT_NE(missing.out.find("luztar: " + path("nodir/out.h5") + ": the output directory '" + path("nodir") +
                             "' does not exist"),
            std::string::npos)
      << missing.out;
}

// A --csv that cannot be written leaves no HDF5 file either, and -o and --csv
// naming one file is refused (the CSV would silently replace the HDF5 file).
TEST_F(OutputFiles, CsvFailureLeavesNoHdf5) {
  const Outcome o = run_limited({"run", kBlock, "-o", path("out.h5"), "--csv", path("nodir/out.csv")}, path("log"));
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find(path("nodir/out.csv") + ": the output directory"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(path("out.h5")));
  EXPECT_TRUE(temporaries(dir_).empty());

  const Outcome same = run_limited({"run", kBlock, "-o", path("out.h5"), "--csv", dir_.string() + "/./out.h5"},
                                   path("log"));
  EXPECT_EQ(same.code, 1) << same.out;
  EXPECT_NE(same.out.find(": --csv names the HDF5 output file too; give them different paths"), std::string::npos)
      << same.out;
  EXPECT_FALSE(fs::exists(path("out.h5")));
}

// -o writes HDF5: a path that names the model file, or says CSV or YAML by
// its extension, is refused before the run, and nothing is written.
TEST_F(OutputFiles, HdfOutputPathThatSaysAnotherFormatIsRefused) {
  const std::string model = path("m.yaml");
  fs::copy_file(kBlock, model);
  const std::string text = read_text(model);
  const Outcome csv = run_limited({"run", model, "-o", path("out.CSV")}, path("log"));
  EXPECT_EQ(csv.code, 1) << csv.out;
  EXPECT_NE(csv.out.find("luztar: " + path("out.CSV") + ": -o/--output writes HDF5 (.h5); for CSV give --csv " +
                         path("out.CSV")),
            std::string::npos)
      << csv.out;
  EXPECT_FALSE(fs::exists(path("out.CSV")));

  const Outcome self = run_limited({"run", model, "-o", dir_.string() + "/./m.yaml"}, path("log"));
  EXPECT_EQ(self.code, 1) << self.out;
  EXPECT_NE(self.out.find(": -o/--output names the input file; the HDF5 results would replace it"), std::string::npos)
      << self.out;
  EXPECT_EQ(read_text(model), text);

  const Outcome yaml = run_limited({"sweep", model, "-o", path("sweep.yml")}, path("log"));
  EXPECT_EQ(yaml.code, 1) << yaml.out;
  EXPECT_NE(yaml.out.find(path("sweep.yml") + ": -o/--output writes HDF5 (.h5), not YAML; name the file .h5"),
            std::string::npos)
      << yaml.out;
  EXPECT_TRUE(temporaries(dir_).empty());
}

// No output may replace a file the run reads: --csv naming the model, -o of
// run or sweep naming a table file the model reads, reduce -o naming the
// model (each replaced its input with exit 0). Refused, nothing written.
TEST_F(OutputFiles, NoOutputReplacesAFileTheRunReads) {
  const std::string model = path("t.yaml"), table = path("tab.dat"), friction = path("fr.csv");
  {
    std::ofstream(table) << "0, 0\n1, 2\n2, 0\n";
    std::ofstream(friction) << "0, 0.5\n1, 0.4\n2, 0.4\n";
    std::ofstream(model) << "simulation: {t_end: 2, output_step: 0.5}\n"
                            "bodies: {a: {inertia: 1}}\n"
                            "elements:\n"
                            "  f: {type: friction, body: a, coulomb_table: {file: fr.csv}}\n"
                            "  d: {type: torque, body: a, torque: {table: {file: tab.dat}}}\n";
  }
  const std::string model_text = read_text(model), table_text = read_text(table), friction_text = read_text(friction);
  auto refused = [&](const std::vector<std::string>& args, const std::string& text) {
    SCOPED_TRACE(args[0] + " " + args[args.size() - 2]);
    const Outcome o = run_limited(args, path("log"));
    EXPECT_EQ(o.code, 1) << o.out;
    EXPECT_NE(o.out.find(text), std::string::npos) << o.out;
    EXPECT_EQ(read_text(model), model_text);
    EXPECT_EQ(read_text(table), table_text);
    EXPECT_EQ(read_text(friction), friction_text);
  };
  refused({"run", model, "-o", path("x.h5"), "--csv", model}, model + ": --csv names the model file");
  refused({"run", model, "-o", table}, table + ": -o/--output names the table file " + table + " that the model reads");
  refused({"run", model, "-o", path("x.h5"), "--csv", dir_.string() + "/./tab.dat"}, ": --csv names the table file");
  refused({"sweep", model, "--set", "simulation.t_end=2", "-o", table}, ": -o/--output names the table file");
  refused({"reduce", model, "-o", model}, model + ": -o/--output names the model file");
  // a friction speed table is a table file too (its path is not kept in the model)
  refused({"run", model, "-o", path("x.h5"), "--csv", friction}, ": --csv names the table file " + friction);
  refused({"reduce", model, "-o", friction}, ": -o/--output names the table file " + friction);
  EXPECT_FALSE(fs::exists(path("x.h5")));
  EXPECT_TRUE(temporaries(dir_).empty());
}

// SIGINT or SIGTERM during a long run: the process dies of the signal and its
// temporary file (present from the start of the run) goes with it.
TEST_F(OutputFiles, KilledRunLeavesNoTemporary) {
  for (const int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    Child c({"run", kBlock, "--t-end", "1e6", "--output-step", "1000", "-q", "-o", path("long.h5"), "--csv", path("long.csv")}, path("log"));
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (temporaries(dir_).size() < 2 && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(temporaries(dir_).size(), 2u) << "the run's temporary files did not appear";
    c.signal(sig);
    EXPECT_EQ(c.wait(std::chrono::seconds(30)), 128 + sig) << read_text(path("log"));
    EXPECT_TRUE(temporaries(dir_).empty());
    EXPECT_FALSE(fs::exists(path("long.h5")));
    EXPECT_FALSE(fs::exists(path("long.csv")));
  }
}

// A signal the run was started to ignore (nohup: SIGHUP) does not end it: the
// cleanup handler is not installed over an ignored signal.
TEST_F(OutputFiles, IgnoredSignalStaysIgnored) {
  Child c({"run", kBlock, "--t-end", "1e6", "--output-step", "1000", "-q", "-o", path("out.h5")}, path("log"), SIGHUP);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (temporaries(dir_).empty() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(temporaries(dir_).size(), 1u);
  c.signal(SIGHUP);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(c.running()) << "SIGHUP ended a run that ignores it";
  c.signal(SIGTERM);
  EXPECT_EQ(c.wait(std::chrono::seconds(30)), 128 + SIGTERM);
  EXPECT_TRUE(temporaries(dir_).empty());
}

// The leftover of a run killed by SIGKILL (no handler runs) is removed by the
// next run on the same output.
TEST_F(OutputFiles, NextRunRemovesTheLeftoverOfAKilledRun) {
  Child c({"run", kBlock, "--t-end", "1e6", "--output-step", "1000", "-q", "-o", path("out.h5")}, path("log"));
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (temporaries(dir_).empty() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  c.signal(SIGKILL);
  EXPECT_EQ(c.wait(std::chrono::seconds(30)), 128 + SIGKILL);
  ASSERT_EQ(temporaries(dir_).size(), 1u);
  const Outcome o = run_limited({"run", kBlock, "-q", "-o", path("out.h5")}, path("log"));
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(fs::is_regular_file(path("out.h5")));
  EXPECT_TRUE(temporaries(dir_).empty());
}

}  // namespace
}  // namespace luztar
