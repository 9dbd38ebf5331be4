#include "apps/sweep/sweep_command.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/sweep/output_lock.hpp"
#include "apps/sweep/sweep_mpi.hpp"
#include "apps/sweep/sweep_plan.hpp"
#include "apps/sweep/sweep_progress.hpp"
#include "apps/sweep/sweep_schedule.hpp"
#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/output_paths.hpp"
#include "io/sweep_file.hpp"
#include "io/yaml_sweep.hpp"

namespace luztar::app {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

SweepPlan build_plan(const SweepOptions& o) {
  io::SweepInput in = io::load_sweep(o.input);
  for (const std::string& s : o.sets) io::add_parameter_option(in.spec, s);
  for (const std::string& m : o.metrics) io::add_metric_option(in.spec, m);
  if (o.zip) in.spec.zip = true;
  if (o.samples >= 0) in.spec.samples = o.samples;
  if (o.seed >= 0) in.spec.seed = static_cast<std::uint64_t>(o.seed);
  if (o.trajectories) in.spec.trajectories = true;
  std::vector<io::FieldOverride> fixed;
  if (!o.integrator.empty()) fixed.push_back({"simulation.integrator", o.integrator, "--integrator"});
  return make_plan(std::move(in), std::move(fixed));
}

std::string output_path(const SweepOptions& o) {
  if (!o.output.empty()) return o.output;
  return std::filesystem::path(o.input).stem().string() + "_sweep.h5";
}

// Why a file's sweep is not `plan`: the first input file whose contents
// changed (the model file, then its table files), else the sweep itself.
std::string what_changed(const io::SweepFileContents& c, const SweepPlan& plan) {
  if (c.model_text != plan.input.model_text)
    return "the model file " + plan.input.model_path + " changed since the sweep started";
  auto shown = [&](const std::string& rel) {
    return (std::filesystem::path(plan.input.model_dir) / rel).lexically_normal().string();
  };
  for (const io::InputDigest& in : plan.inputs) {
    const auto was = std::find_if(c.inputs.begin(), c.inputs.end(),
                                  [&](const io::InputDigest& d) { return d.path == in.path; });
    if (was == c.inputs.end())
      return "the model reads the table file " + shown(in.path) + ", which the sweep in the file did not";
    if (was->digest != in.digest) return "the table file " + shown(in.path) + " changed since the sweep started";
  }
  for (const io::InputDigest& was : c.inputs)
    if (std::find(plan.inputs.begin(), plan.inputs.end(), was) == plan.inputs.end())
      return "the sweep in the file read the table file " + shown(was.path) + ", which the model no longer reads";
  return "the file holds a different sweep (the parameters or the metrics changed)";
}

// Decides what to run: every run for a new file, the pending ones on --resume.
std::vector<std::size_t> prepare_file(const SweepOptions& o, const SweepPlan& plan, const std::string& out) {
  io::require_not_an_input(out, "-o/--output", plan.input.model_path, plan.files);
  std::vector<std::size_t> todo;
  const bool exists = std::filesystem::exists(out);
  if (exists) {
    io::SweepFileContents c;
    bool is_sweep = true;
    try {
      c = io::read_sweep_file(out);
    } catch (const std::runtime_error&) {
      is_sweep = false;
    }
    const long total = static_cast<long>(c.runs());
    if (o.resume) {
      if (!is_sweep) throw std::runtime_error(out + ": --resume: the file is not a luztar sweep file");
      if (c.fingerprint != plan.fingerprint)
        throw std::runtime_error(out + ": --resume: " + what_changed(c, plan) +
                                 "; run without --resume and with --overwrite to start again, or choose another "
                                 "output file");
      for (std::size_t i = 0; i < c.runs(); ++i)
        if (c.status[i] == RunStatus::pending) todo.push_back(i);
      return todo;
    }
    if (is_sweep && c.runs_done < total && !o.overwrite)
      throw std::runtime_error(out + ": holds an unfinished sweep (" + std::to_string(c.runs_done) + " of " +
                               std::to_string(total) + " runs done): add --resume to finish it, or --overwrite to "
                               "start again");
  }
  io::create_sweep_file(out, plan.layout());
  for (std::size_t i = 0; i < plan.table.size(); ++i) todo.push_back(i);
  return todo;
}

// Rank 0 (or the only process): runs `todo` on local threads and remote ranks,
// writing finished runs to the file as they come.
int coordinate(const SweepOptions& o, const SweepPlan& plan, const MpiSession& mpi, const std::string& out,
               std::vector<std::size_t> todo, OutputLock& lock) {
  const std::size_t total = plan.table.size(), n_todo = todo.size();
  int threads = o.threads;
  if (threads <= 0) threads = mpi.size > 1 ? 1 : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), std::max<std::size_t>(n_todo, 1)));
  if (!o.quiet)
    std::cout << "luztar sweep: " << o.input << ": " << total << " runs (" << plan.table.paths.size()
              << " parameters, " << plan.metrics.size() << " metrics), " << n_todo << " to do, " << threads
              << (threads == 1 ? " thread" : " threads") << (mpi.size > 1 ? " on rank 0, plus " + std::to_string(mpi.size - 1) + " other MPI rank(s)" : "")
              << " -> " << out << std::endl;

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  Dispenser dispenser(std::move(todo));
  ResultQueue queue;
  MpiCoordinator remote(mpi);
  Progress progress(n_todo, total, o.quiet);
  std::size_t done = 0, failed = 0;
  std::vector<SweepRunResult> pending;
  const auto start = std::chrono::steady_clock::now();
  {
    LocalWorkers local(plan, dispenser, queue, threads);
    while (true) {
      for (SweepRunResult& r : remote.pump(dispenser)) pending.push_back(std::move(r));
      // with other ranks, wait briefly: their requests are polled, not signalled
      for (SweepRunResult& r : queue.take(std::chrono::milliseconds(mpi.size > 1 ? 2 : 200)))
        pending.push_back(std::move(r));
      if (!pending.empty()) {
        try {
          io::record_runs(out, pending);  // the file on disk now holds every run finished so far
        } catch (const std::exception& e) {
          // e.g. disk full: the file keeps its last complete state; runs in progress are abandoned
          dispenser.stop();
          local.abandon();
          lock.release();
          std::cerr << "luztar: " << e.what() << "\nluztar sweep: stopped; " << (total - n_todo + done) << " of "
                    << total << " runs are in " << out << "; --resume continues once the cause is fixed\n";
          std::_Exit(1);
        }
        for (const SweepRunResult& r : pending) failed += r.status != RunStatus::ok;
        done += pending.size();
        pending.clear();
      }
      progress.update(done, failed);
      if (g_interrupted) {
        dispenser.stop();
        progress.finish(done, failed);
        std::cerr << "luztar sweep: interrupted; " << (total - n_todo + done) << " of " << total << " runs are in "
                  << out << "; run the same command with --resume to finish\n";
        local.abandon();
        lock.release();
        std::_Exit(130);  // runs in progress are abandoned; the file is complete as it is
      }
      if (!local.running() && !remote.workers_running()) {
        for (SweepRunResult& r : queue.take(std::chrono::milliseconds(0))) pending.push_back(std::move(r));
        if (pending.empty()) break;
      }
    }
  }
  progress.finish(done, failed);
  // The exit code is the file's: on --resume, runs that did not reach t_end
  // before the interruption count too (a resumed sweep exited 0 where the
  // same sweep uninterrupted exited 3: a new-user hunt).
  std::size_t failed_in_file = failed;
  if (n_todo < total) {
    const io::SweepFileContents c = io::read_sweep_file(out);
    failed_in_file = static_cast<std::size_t>(std::count_if(c.status.begin(), c.status.end(), [](RunStatus s) {
      return s != RunStatus::ok && s != RunStatus::pending;
    }));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.quiet) {
    char figures[96];
    std::snprintf(figures, sizeof figures, "%zu runs in %.2f s (%.2f runs/s)", done, wall, wall > 0 ? done / wall : 0.0);
    std::cout << "  " << figures << ", " << done - failed << " reached t_end, " << failed
              << " did not (status and message in /runs)";
    if (n_todo < total) std::cout << "; in the file, " << failed_in_file << " of " << total << " did not";
    std::cout << "\n  wrote      " << out << std::endl;
  }
  return failed_in_file ? 3 : 0;
}

}  // namespace

int run_sweep(const SweepOptions& o) {
  if (launched_by_mpirun() && !mpi_available()) {
    mpi_handover();  // to luztar-mpi-sweep, when it was built
    throw std::runtime_error("started by mpirun, but this luztar was built without MPI (configure with -DLUZTAR_MPI=ON)");
  }
  const MpiSession mpi = launched_by_mpirun() ? mpi_start() : MpiSession{};
  struct End {
    const MpiSession& s;
    ~End() { mpi_end(s); }
  } end{mpi};

  // Every rank builds the plan (the same everywhere); rank 0 reports errors.
  SweepPlan plan;
  std::string error;
  try {
    plan = build_plan(o);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!mpi_all_ok(mpi, error.empty())) {
    if (mpi.rank == 0) {
      if (error.empty()) error = "another MPI rank could not read the sweep";
      throw ModelError("", error);
    }
    return 1;
  }
  if (o.dry_run) {
    if (mpi.rank != 0) return 0;
    std::cout << plan.description << "runs:\n";
    for (std::size_t i = 0; i < plan.table.size(); ++i) {
      std::cout << "  " << i << ":";
      for (std::size_t k = 0; k < plan.table.paths.size(); ++k)
        std::cout << " " << plan.table.paths[k] << "=" << plan.table.values[i][k];
      std::cout << "\n";
    }
    return 0;
  }
  if (mpi.rank > 0) {
    mpi_work(mpi, plan);
    return 0;
  }

  const std::string out = output_path(o);
  std::vector<std::size_t> todo;
  std::unique_ptr<OutputLock> lock;
  try {
    io::check_output_path(out);  // a link, FIFO, device or directory is refused, before the lock file
    io::remove_temporaries_on_signal({SIGINT, SIGTERM, SIGHUP});  // until coordinate() takes SIGINT, SIGTERM
    lock = std::make_unique<OutputLock>(out);
    io::remove_stale_temporaries(out);  // of a writer that was killed mid-update
    todo = prepare_file(o, plan, out);
  } catch (const std::exception&) {
    Dispenser none({});
    MpiCoordinator release(mpi);
    while (release.workers_running()) release.pump(none);  // let the other ranks stop
    throw;
  }
  return coordinate(o, plan, mpi, out, std::move(todo), *lock);
}

}  // namespace luztar::app
