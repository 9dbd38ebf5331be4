// luztar_steering_bench: cost of the embedded step. models/steering.yaml in
// the host vehicle loop of apps/examples/vehicle_loop.hpp at 1 kHz (on-centre weave,
// 20 s): wall time per 1 ms step (median, 99th percentile, max) and the
// real-time factor, with the inputs changed every step and every 10th step,
// and the step cost by the number of element changes (events) inside it.
// Figures are printed, never asserted.
//
//   luztar_steering_bench [MODEL.yaml]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "apps/bench/allocation_counter.hpp"  // counts heap allocations: what advance_to allocates
#include "apps/bench/bench_main.hpp"
#include "apps/examples/vehicle_loop.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

int run(const std::vector<std::string>& args) {
  using namespace luztar;
  using namespace luztar::app;
  const std::string path = !args.empty() ? args[0] : std::string(LUZTAR_MODELS_DIR) + "/steering.yaml";
  const Model model = io::load_model(path);
  std::printf("%s, 1 kHz loop, 20 s on-centre weave at 100 km/h\n", path.c_str());
  std::printf("%-22s %10s %10s %10s %12s %9s %9s\n", "inputs", "median us", "p99 us", "max us", "real time x",
              "steps", "changes");
  WeaveTrace every;
  for (int n : {1, 10}) {
    WeaveSettings s;
    s.amplitude = 0.38;  // about 2 m/s^2 with freeplay and friction
    s.input_every = n;
    const WeaveTrace w = run_weave(api::Model::load(path), Vehicle{}, s);
    if (w.status != api::Status::reached_time) {
      std::fprintf(stderr, "stopped early: %s\n", w.message.c_str());
      return 3;
    }
    const std::vector<double> steps(w.step_wall.begin() + 1, w.step_wall.end());
    double total = 0.0;
    for (double x : steps) total += x;
    long changes = 0;
    for (int e : w.step_events) changes += e;
    std::printf("%-22s %10.1f %10.1f %10.1f %12.0f %9ld %9ld\n", n == 1 ? "changed every step" : "changed every 10th",
                1e6 * quantile(steps, 0.5), 1e6 * quantile(steps, 0.99), 1e6 * quantile(steps, 1.0),
                w.time.back() / total, w.stats.steps, changes);
    if (n == 1) every = w;
  }
  // Allocations per step: a quiet stretch (no events) and one with events.
  {
    Simulator sim(model);
    const InputId driver = sim.input("driver_torque");
    std::size_t quiet = 0, quiet_steps = 0, busy = 0, busy_steps = 0;
    for (int k = 1; k <= 4000; ++k) {
      sim.set_input(driver, 3.0 * std::sin(0.0025 * k));
      const std::size_t events = sim.events().size(), before = luztar::app::g_allocations;
      sim.advance_to(k * 1e-3);
      const std::size_t n = luztar::app::g_allocations - before;
      if (sim.events().size() == events) {
        quiet += n;
        ++quiet_steps;
      } else {
        busy += n;
        ++busy_steps;
      }
    }
    std::printf("\nheap allocations inside advance_to: %.2f per step without events (%zu steps), %.1f per step with "
                "events (%zu steps)\n",
                quiet_steps ? static_cast<double>(quiet) / quiet_steps : 0.0, quiet_steps,
                busy_steps ? static_cast<double>(busy) / busy_steps : 0.0, busy_steps);
  }
  std::map<int, std::vector<double>> by_events;
  for (std::size_t k = 1; k < every.step_wall.size(); ++k)
    by_events[std::min(every.step_events[k], 3)].push_back(every.step_wall[k]);
  std::printf("\nstep cost by element changes in the step (inputs every step)\n%-10s %8s %10s %10s\n", "changes",
              "steps", "median us", "p99 us");
  for (const auto& [n, v] : by_events)
    std::printf("%-10s %8zu %10.1f %10.1f\n", n == 3 ? ">= 3" : std::to_string(n).c_str(), v.size(),
                1e6 * quantile(v, 0.5), 1e6 * quantile(v, 0.99));
  return 0;
}

int main(int argc, char** argv) {
  return luztar::app::bench_main(argc, argv, "usage: luztar_steering_bench [MODEL.yaml]", {}, run);
}
