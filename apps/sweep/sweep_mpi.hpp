#pragma once
// Sweeps across MPI ranks (OpenMPI): rank 0 owns the file and hands out runs,
// one at a time, to whichever rank asks (dynamic load balancing); the other
// ranks run them and send back the results. MPI starts only when the process
// was launched by mpirun, so a plain `luztar sweep` never touches MPI.
//
// Two definitions of these functions: sweep_mpi.cpp (MPI, linked only into the
// executable luztar-mpi-sweep) and sweep_mpi_none.cpp (a one-rank session, in
// `luztar` itself, which so never loads the MPI libraries: start-up).
#include <vector>

#include "apps/sweep/sweep_schedule.hpp"

namespace luztar::app {

struct MpiSession {
  int rank = 0;
  int size = 1;
  bool active = false;
};

bool mpi_available();  // this executable has MPI

// In an executable without MPI started by mpirun: replaces the process by
// luztar-mpi-sweep from the same directory, with the same arguments (the ranks
// then meet there). Returns only when there is none (built with
// LUZTAR_MPI=OFF) or it cannot be executed; a no-op with MPI.
void mpi_handover();

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
