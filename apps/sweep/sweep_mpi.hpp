#pragma once
// Sweeps across MPI ranks (OpenMPI): rank 0 owns the file and hands out runs,
// one at a time, to whichever rank asks (dynamic load balancing); the other
// ranks run them and send back the results. MPI starts only when the process
// was launched by mpirun, so a plain `luztar sweep` never touches MPI. Without
// MPI at build time (LUZTAR_MPI=OFF) the same functions report that.
#include <vector>

#include "apps/sweep/sweep_schedule.hpp"

namespace luztar::app {

struct MpiSession {
  int rank = 0;
  int size = 1;
  bool active = false;
};

bool mpi_available();  // built with MPI

MpiSession mpi_start();  // MPI_Init when launched by mpirun, else a 1-rank session
void mpi_end(const MpiSession& s);
// True when every rank passes ok (a collective: every rank must call it).
bool mpi_all_ok(const MpiSession& s, bool ok);

// Rank > 0: asks rank 0 for runs, runs them, sends the results back, until told to stop.
void mpi_work(const MpiSession& s, const SweepPlan& plan);

// Rank 0's side of the protocol.
class MpiCoordinator {
 public:
  explicit MpiCoordinator(const MpiSession& s);
  // Answers every waiting request (a finished run and/or a request for the next
  // one) from `d`; returns the finished runs received.
  std::vector<SweepRunResult> pump(Dispenser& d);
  bool workers_running() const { return running_ > 0; }

 private:
  MpiSession s_;
  int running_ = 0;
};

}  // namespace luztar::app
