#include "apps/sweep/sweep_mpi.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace luztar::app {

namespace {

constexpr int kTagResult = 1;  // worker -> 0: a finished run (or nothing), and a request for the next
constexpr int kTagWork = 2;    // 0 -> worker: run index, or -1 to stop

// Flat byte encoding of a finished run (same binary on every rank).
class Writer {
 public:
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put<std::uint64_t>(v.size());
    const auto* p = reinterpret_cast<const char*>(v.data());
    bytes.insert(bytes.end(), p, p + v.size() * sizeof(T));
  }
  void put(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void put(const std::vector<std::string>& v) {
    put<std::uint64_t>(v.size());
    for (const std::string& s : v) put(s);
  }
  std::vector<char> bytes;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& b) : b_(b) {}
  template <class T>
  void get(T& v) {
    need(sizeof(T));
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  template <class T>
  void get(std::vector<T>& v) {
    std::uint64_t n = 0;
    get(n);
    need(n * sizeof(T));
    v.resize(n);
    if (n) std::memcpy(v.data(), b_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
  }
  void get(std::string& s) {
    std::uint64_t n = 0;
    get(n);
    need(n);
    s.assign(b_.data() + at_, n);
    at_ += n;
  }
  void get(std::vector<std::string>& v) {
    std::uint64_t n = 0;
    get(n);
    v.resize(n);
    for (std::string& s : v) get(s);
  }

 private:
  void need(std::size_t n) const {
    if (at_ + n > b_.size()) throw std::runtime_error("MPI: truncated sweep result message");
  }
  const std::vector<char>& b_;
  std::size_t at_ = 0;
};

std::vector<char> encode(const SweepRunResult& r) {
  Writer w;
  w.put<std::uint64_t>(r.index);
  w.put(r.status);
  w.put(r.message);
  w.put(r.wall_time);
  w.put(r.metrics);
  w.put<std::uint8_t>(r.has_trajectory ? 1 : 0);
  if (r.has_trajectory) {
    const Result& t = r.trajectory;
    w.put(t.body_names);
    w.put(t.element_names);
    w.put(t.element_kinds);
    w.put(t.body_translational);
    w.put(t.element_translational);
    w.put(t.time);
    w.put(t.angle);
    w.put(t.velocity);
    w.put(t.element_torque);
    w.put(t.element_state);
    w.put(t.element_relative);
    w.put(t.element_relative_velocity);
    w.put(t.element_power);
    w.put(t.element_dissipated);
    w.put(t.acceleration);
    w.put(t.drive_torque);
    w.put(t.input_work);
    w.put(t.kinetic);
    w.put(t.elastic);
    w.put(t.dissipated);
    w.put(t.events);
    w.put(t.time_stuck);
    w.put(t.status);
    w.put(t.message);
    w.put(t.stats);
  }
  return std::move(w.bytes);
}

SweepRunResult decode(const std::vector<char>& bytes) {
  Reader rd(bytes);
  SweepRunResult r;
  std::uint64_t index = 0;
  rd.get(index);
  r.index = index;
  rd.get(r.status);
  rd.get(r.message);
  rd.get(r.wall_time);
  rd.get(r.metrics);
  std::uint8_t traj = 0;
  rd.get(traj);
  r.has_trajectory = traj != 0;
  if (r.has_trajectory) {
    Result& t = r.trajectory;
    rd.get(t.body_names);
    rd.get(t.element_names);
    rd.get(t.element_kinds);
    rd.get(t.body_translational);
    rd.get(t.element_translational);
    rd.get(t.time);
    rd.get(t.angle);
    rd.get(t.velocity);
    rd.get(t.element_torque);
    rd.get(t.element_state);
    rd.get(t.element_relative);
    rd.get(t.element_relative_velocity);
    rd.get(t.element_power);
    rd.get(t.element_dissipated);
    rd.get(t.acceleration);
    rd.get(t.drive_torque);
    rd.get(t.input_work);
    rd.get(t.kinetic);
    rd.get(t.elastic);
    rd.get(t.dissipated);
    rd.get(t.events);
    rd.get(t.time_stuck);
    rd.get(t.status);
    rd.get(t.message);
    rd.get(t.stats);
  }
  return r;
}

void send(const std::vector<char>& bytes, int to, int tag) {
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

}  // namespace

bool mpi_available() { return true; }
void mpi_handover() {}

MpiSession mpi_start() {
  MpiSession s;
  int provided = 0;
  // Only the main thread calls MPI; rank 0's run threads never do.
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  s.active = true;
  return s;
}

void mpi_end(const MpiSession& s) {
  if (s.active) MPI_Finalize();
}

bool mpi_all_ok(const MpiSession& s, bool ok) {
  if (!s.active) return ok;
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

void mpi_work(const MpiSession&, const SweepPlan& plan) {
  std::vector<char> out;  // empty: the first request carries no result
  while (true) {
    send(out, 0, kTagResult);
    long index = -1;
    MPI_Recv(&index, 1, MPI_LONG, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index < 0) return;
    out = encode(plan.execute(static_cast<std::size_t>(index)));
  }
}

MpiCoordinator::MpiCoordinator(const MpiSession& s) : s_(s), running_(s.active ? s.size - 1 : 0) {}

std::vector<SweepRunResult> MpiCoordinator::pump(Dispenser& d) {
  std::vector<SweepRunResult> done;
  while (running_ > 0) {
    int waiting = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &waiting, &st);
    if (!waiting) break;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    std::vector<char> bytes(static_cast<std::size_t>(n));
    MPI_Recv(bytes.data(), n, MPI_BYTE, st.MPI_SOURCE, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!bytes.empty()) done.push_back(decode(bytes));
    const auto next = d.next();
    const long index = next ? static_cast<long>(*next) : -1L;
    MPI_Send(&index, 1, MPI_LONG, st.MPI_SOURCE, kTagWork, MPI_COMM_WORLD);
    if (index < 0) --running_;
  }
  return done;
}

}  // namespace luztar::app
