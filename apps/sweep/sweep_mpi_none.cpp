// The one-rank session of the executables without MPI (`luztar`, the
// benchmarks): under mpirun, `luztar sweep` hands the process over to
// luztar-mpi-sweep (built with LUZTAR_MPI=ON); without it, run_sweep refuses
// to run under mpirun with a clear message.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "apps/sweep/sweep_mpi.hpp"

namespace luztar::app {

bool mpi_available() { return false; }

void mpi_handover() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return;
  const std::string target = (self.parent_path() / "luztar-mpi-sweep").string();
  if (::access(target.c_str(), X_OK) != 0) return;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);  // the arguments, each ended by a NUL
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t start = 0; start < all.size();) {
    const std::size_t end = all.find('\0', start);
    args.push_back(all.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (args.empty()) return;
  args[0] = target;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(target.c_str(), argv.data());  // returns only on failure
}

MpiSession mpi_start() { return {}; }
void mpi_end(const MpiSession&) {}
bool mpi_all_ok(const MpiSession&, bool ok) { return ok; }
void mpi_work(const MpiSession&, const SweepPlan&) {}
MpiCoordinator::MpiCoordinator(const MpiSession& s) : s_(s) {}
std::vector<SweepRunResult> MpiCoordinator::pump(Dispenser&) { return {}; }

}  // namespace luztar::app
