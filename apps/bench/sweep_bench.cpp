// luztar_sweep_bench: throughput of `luztar sweep` on the 200-run gear-train
// sweep (models/sweeps/gear_train_rattle.yaml) with 1 and 2 threads and, when
// built with MPI, 2 ranks under mpirun: runs per second and parallel
// efficiency (rate / (workers x rate with 1 thread)). Figures are printed,
// never asserted.
//
//   luztar_sweep_bench [SWEEP.yaml]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "apps/bench/bench_main.hpp"
#include "io/sweep_file.hpp"

namespace {

struct Measured {
  double wall = 0.0;
  long runs = 0;
  bool ok = false;
};

Measured time_command(const std::string& cmd, const std::string& out) {
  std::filesystem::remove(out);
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  Measured m;
  m.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.ok = rc == 0;
  if (m.ok) m.runs = luztar::io::read_sweep_file(out).runs_done;
  std::filesystem::remove(out);
  return m;
}

void print(const char* name, int workers, const Measured& m, double rate1) {
  if (!m.ok) {
    std::printf("%-16s %8d  failed\n", name, workers);
    return;
  }
  const double rate = m.runs / m.wall;
  std::printf("%-16s %8d %6ld %9.2f %9.2f %11.0f%%\n", name, workers, m.runs, m.wall, rate,
              rate1 > 0 ? 100.0 * rate / (workers * rate1) : 100.0);
}

}  // namespace

int run(const std::vector<std::string>& args) {
  const std::string sweep = !args.empty() ? args[0] : std::string(LUZTAR_MODELS_DIR) + "/sweeps/gear_train_rattle.yaml";
  const std::string out =
      (std::filesystem::temp_directory_path() / ("luztar_sweep_bench_" + std::to_string(::getpid()) + ".h5")).string();
  const std::string base = std::string(LUZTAR_CLI) + " sweep " + sweep + " -q -o " + out;
  std::printf("%s\n%-16s %8s %6s %9s %9s %12s\n", sweep.c_str(), "mode", "workers", "runs", "wall [s]", "runs/s",
              "efficiency");
  const Measured one = time_command(base + " -j 1", out);
  const double rate1 = one.ok ? one.runs / one.wall : 0.0;
  print("threads", 1, one, rate1);
  print("threads", 2, time_command(base + " -j 2", out), rate1);
#ifdef LUZTAR_MPIEXEC
  const std::string mpi = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + std::string(LUZTAR_MPIEXEC) +
                          " --oversubscribe -n 2 " + base;
  print("MPI ranks", 2, time_command(mpi, out), rate1);
#else
  std::printf("MPI ranks: not built (LUZTAR_MPI=OFF)\n");
#endif
  std::printf("efficiency: runs/s divided by (workers x runs/s of 1 thread)\n");
  return 0;
}

int main(int argc, char** argv) {
  return luztar::app::bench_main(argc, argv, "usage: luztar_sweep_bench [SWEEP.yaml]", {}, run);
}
