// Installed-package consumer (C++): a block on a Coulomb + viscous bearing
// pushed by an input u from a 1 kHz host loop. Closed form after the push at
// t0: w(t) = (u - MT0)/c (1 - exp(-c (t - t0)/I)). Exit 0 when it matches.
#include <cmath>
#include <cstdio>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const luztar::Model model = luztar::io::load_model(argv[1]);  // tests/consumer/block_input.yaml
  luztar::Simulator sim(model);
  const luztar::InputId u = sim.input("u");
  const luztar::OutputId w = sim.output("block.velocity");
  double worst = 0.0;
  for (int k = 1; k <= 2000; ++k) {
    const double t = k * 1e-3;
    if (k == 301) sim.set_input(u, 3.0);  // now at t0 = 0.3 s
    if (sim.advance_to(t) != luztar::StepStatus::reached_time) {
      std::fprintf(stderr, "advance_to failed: %s\n", sim.message().c_str());
      return 1;
    }
    const double expected = t <= 0.3 ? 0.0 : (3.0 - 1.0) / 0.5 * (1.0 - std::exp(-0.5 * (t - 0.3) / 2.0));
    worst = std::fmax(worst, std::fabs(sim.value(w) - expected));
  }
  std::printf("consumer_cpp: largest velocity error %.3g rad/s\n", worst);
  return worst < 1e-8 ? 0 : 1;
}
