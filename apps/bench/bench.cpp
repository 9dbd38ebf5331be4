// luztar_bench: wall time and solver work of representative runs.
//
//   1. models/gear_train.yaml over 10 s of simulated time (median of 5 runs),
//      with the exact integrator and with cvode_bdf;
//   2. generated chains of N = 10, 50, 100, 1000 bodies joined by freeplay springs,
//      each body on a Coulomb + viscous bearing, the first body driven by a
//      sinusoidal torque: cost per simulated second against N, with exact
//      (where it serves the chain) and cvode_bdf;
//   3. the redundant gear train with light gears (inertias scaled by 1e-2 and
//      1e-4, undamped springs, gear bearings removed) against its reduced model
//      (Simplification 2, models/gear_train_simplification2.yaml) over the same
//      horizon and tolerances: what the luz/tar reduction saves.
//
// Usage: luztar_bench [--gear] [models-dir]; --gear runs part 1 only (the
// exact integrator's speed targets, issue 17).
//
// Figures are printed, never asserted: speed targets are read, not tested.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "apps/bench/bench_main.hpp"
#include "io/yaml_model.hpp"
#include "solvers/integrator.hpp"
#include "solvers/simulator.hpp"

namespace {

using namespace luztar;

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Figures {
  double wall = 0.0;  // median [s]
  double cpu = 0.0;   // median of the thread's CPU time [s]: on a loaded machine wall time counts the waits too
  RunStats stats;
  std::size_t events = 0;
  int bodies = 0;
  double simulated = 0.0;
};

Figures measure(const Model& m, int repeats, const char* integrator = nullptr) {
  std::vector<double> walls, cpus;
  Figures f;
  SimulationSettings settings = m.simulation;
  if (integrator) settings.integrator = integrator;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_seconds();
    const Result res = simulate(m, settings);
    cpus.push_back(thread_cpu_seconds() - c0);
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    f.stats = res.stats;
    f.events = res.events.size();
    if (res.status != StepStatus::reached_time) std::printf("  (run stopped: %s)\n", res.message.c_str());
  }
  std::sort(walls.begin(), walls.end());
  f.wall = walls[walls.size() / 2];
  std::sort(cpus.begin(), cpus.end());
  f.cpu = cpus[cpus.size() / 2];
  f.bodies = m.num_bodies();
  f.simulated = m.simulation.t_end - m.simulation.t_start;
  return f;
}

void print(const char* name, const Figures& f) {
  std::printf("%-24s %6d %8.3f %10.4f %9.4f %10ld %10ld %9ld %9zu %11.0f %10.3g %9.3g\n", name, f.bodies, f.simulated,
              f.wall, f.cpu, f.stats.steps, f.stats.rhs_evals, f.stats.events, f.events, f.stats.events / f.wall,
              f.wall / f.simulated / f.bodies * 1e6, f.stats.events > 0 ? f.wall / f.stats.events * 1e6 : 0.0);
}

// prefix + n, appended (GCC 12's -Wrestrict misreads "literal" + std::string&&
// once enough is inlined around it).
std::string numbered(const char* prefix, int n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

// Chain of n bodies: spring (k, freeplay a, damping c) between neighbours, a
// bearing on each, a sine torque on the first and a steady load on the last.
Model chain(int n, double t_end) {
  ModelSpec spec;
  spec.name = numbered("chain", n);
  for (int i = 0; i < n; ++i) spec.bodies.push_back({numbered("b", i), 0.01, 0.0, 0.0});
  for (int i = 0; i + 1 < n; ++i) {
    SpringSpec s;
    s.name = numbered("s", i);
    s.body_a = spec.bodies[i].name;
    s.body_b = spec.bodies[i + 1].name;
    s.stiffness = 1000.0;
    s.freeplay = 1e-3;
    s.damping = 0.5;
    spec.elements.push_back(s);
  }
  for (int i = 0; i < n; ++i) {
    FrictionSpec f;
    f.name = numbered("f", i);
    f.body_a = spec.bodies[i].name;
    f.viscous = 1e-3;
    f.coulomb = Signal::make_constant(0.02);
    spec.elements.push_back(f);
  }
  TorqueSpec drive;
  drive.name = "drive";
  drive.body = spec.bodies.front().name;
  drive.torque.kind = Signal::Kind::sine;
  drive.torque.amplitude = 0.05 * n;
  drive.torque.frequency = 1.0;
  spec.elements.push_back(drive);
  spec.simulation.t_end = t_end;
  spec.simulation.output_step = 1e-2;
  spec.simulation.rtol = 1e-8;
  spec.simulation.atol = 1e-10;
  return assemble(spec);
}

}  // namespace

int run(const std::vector<std::string>& args) {
  const bool gear_only = std::find(args.begin(), args.end(), "--gear") != args.end();
  std::string models = LUZTAR_MODELS_DIR;
  for (const std::string& a : args)
    if (a != "--gear") models = a;
  std::printf("%-24s %6s %8s %10s %9s %10s %10s %9s %9s %11s %10s %9s\n", "run", "bodies", "sim [s]", "wall [s]", "cpu [s]", "steps",
              "RHS", "events", "changes", "events/s", "us/body/s", "us/event");
  ModelSpec gear = io::load_model_spec(models + "/gear_train.yaml");
  gear.simulation.t_end = 10.0;
  const Model gear_model = assemble(gear);
  print("gear_train exact", measure(gear_model, 5, "exact"));
  print("gear_train cvode_bdf", measure(gear_model, 5, "cvode_bdf"));
  if (gear_only) return 0;
  // Each chain with both integrators (exact up to 16 bodies: beyond, its
  // identification of each new mode, O(n^2) probes, only grows), and what
  // `auto` picks (kAutoExactMaxBodies).
  for (int n : {4, 8, 10, 16, 100, 1000}) {
    const double t_end = n >= 1000 ? 0.5 : 2.0;
    const Model c = chain(n, t_end);
    for (const char* integrator : {"exact", "cvode_bdf"}) {
      if (std::string(integrator) == "exact" && n > 16) continue;
      const std::string name = "chain " + std::to_string(n) + " " + integrator;
      print(name.c_str(), measure(c, n >= 1000 ? 1 : 3, integrator));
    }
    std::printf("  -> auto picks %s\n", resolve_integrator(c, c.simulation).c_str());
  }
  std::printf("us/body/s: wall time per simulated second and per body (flat = linear scaling); cpu: the run's\n"
              "CPU time (wall time on a loaded machine counts waits for a core too; cpu does not)\n\n");

  ModelSpec reduced = io::load_model_spec(models + "/gear_train_simplification2.yaml");
  reduced.simulation.t_end = 1.0;
  const Figures r = measure(assemble(reduced), 5);
  print("reduced (Simpl. 2)", r);
  for (double eps : {1e-2, 1e-4}) {
    ModelSpec full = reduced;
    for (BodySpec& b : full.bodies)
      if (b.name == "delta") b.inertia = 1e-4 * eps;
      else if (b.name == "gamma") b.inertia = 4e-4 * eps;
    char name[64];
    std::snprintf(name, sizeof name, "redundant, eps %.0e", eps);
    const Figures f = measure(assemble(full), 1);
    print(name, f);
    std::printf("  -> redundant / reduced wall time: %.0f\n", f.wall / r.wall);
  }
  return 0;
}

int main(int argc, char** argv) {
  return luztar::app::bench_main(argc, argv, "usage: luztar_bench [--gear] [MODELS_DIR]\n  --gear  the gear train only (the exact integrator's speed targets)", {"--gear"}, run);
}
