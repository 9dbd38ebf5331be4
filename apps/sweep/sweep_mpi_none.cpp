// Built without MPI (LUZTAR_MPI=OFF): a one-rank session; run_sweep refuses to
// run under mpirun with a clear message.
#include "apps/sweep/sweep_mpi.hpp"

namespace luztar::app {

bool mpi_available() { return false; }
MpiSession mpi_start() { return {}; }
void mpi_end(const MpiSession&) {}
bool mpi_all_ok(const MpiSession&, bool ok) { return ok; }
void mpi_work(const MpiSession&, const SweepPlan&) {}
MpiCoordinator::MpiCoordinator(const MpiSession& s) : s_(s) {}
std::vector<SweepRunResult> MpiCoordinator::pump(Dispenser&) { return {}; }

}  // namespace luztar::app
