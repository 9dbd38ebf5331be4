// Installed-package consumer (C++), through the one facade header: a block on a
// Coulomb + viscous bearing (I = 2, c = 0.5, MT0 = 1) pushed by an input u.
// Closed form once u > MT0 acts from rest at t0:
//   w(t) = (u - MT0)/c (1 - exp(-c (t - t0)/I)).
// A whole run with u overridden to 3 from t0 = 0, then a 1 kHz host loop that
// sets u = 3 at t0 = 0.3 s. Exit 0 when both match.
#include <luztar/luztar.hpp>

#include <cmath>
#include <cstdio>

namespace lz = luztar::api;

namespace {
double expected(double t0, double t) { return t <= t0 ? 0.0 : (3.0 - 1.0) / 0.5 * (1.0 - std::exp(-0.5 * (t - t0) / 2.0)); }
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    const lz::Result run = lz::Model::load(argv[1], {{"signals.u.input", 3.0}}).simulate();
    if (run.status() != lz::Status::reached_time) {
      std::fprintf(stderr, "simulate failed: %s\n", run.message().c_str());
      return 1;
    }
    const std::vector<double> w_run = run.signal("bodies.block.velocity");
    double worst_run = 0.0;
    for (std::size_t k = 0; k < w_run.size(); ++k)
      worst_run = std::fmax(worst_run, std::fabs(w_run[k] - expected(0.0, run.time()[k])));

    const lz::Model model = lz::Model::load(argv[1]);  // tests/consumer/block_input.yaml
    lz::Simulator sim(model);
    const lz::Input u = sim.input("u");
    const lz::Output w = sim.output("bodies.block.velocity");
    double worst = 0.0;
    for (int k = 1; k <= 2000; ++k) {
      const double t = k * 1e-3;
      if (k == 301) sim.set_input(u, 3.0);  // now at t0 = 0.3 s
      if (sim.advance_to(t) != lz::Status::reached_time) {
        std::fprintf(stderr, "advance_to failed: %s\n", sim.message().c_str());
        return 1;
      }
      worst = std::fmax(worst, std::fabs(sim.value(w) - expected(0.3, t)));
    }
    std::printf("consumer_cpp: luztar %s, largest velocity error %.3g rad/s (run), %.3g rad/s (stepped), %zu event\n",
                lz::version(), worst_run, worst, sim.events().size());
    return worst_run < 1e-8 && worst < 1e-8 && sim.events().size() == 1 ? 0 : 1;
  } catch (const lz::Error& e) {
    std::fprintf(stderr, "%s (line %d, column %d)\n", e.what(), e.line(), e.column());
    return 1;
  }
}
