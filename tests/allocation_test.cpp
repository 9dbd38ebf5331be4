// advance_to allocates nothing on the heap while no event falls in the step,
// even with an input changed every step (a host loop's steady state). Steps
// with events still allocate (mode structures are rebuilt): see the issue
// notes; this test guards the quiet path.
#include <gtest/gtest.h>

#include <cmath>

#include "apps/allocation_counter.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"


namespace luztar {
namespace {

TEST(Allocation, QuietStepsAllocateNothing) {
  const Model m = io::load_model(std::string(LUZTAR_MODELS_DIR) + "/steering.yaml");
  Simulator sim(m);
  const InputId driver = sim.input("driver_torque");
  const OutputId angle = sim.output("road_wheels.angle"), torque = sim.output("rack.torque");
  std::size_t quiet_steps = 0, quiet_allocations = 0;
  for (int k = 1; k <= 3000; ++k) {
    sim.set_input(driver, 3.0 * std::sin(0.0025 * k));
    const std::size_t events = sim.events().size(), before = luztar::app::g_allocations;
    ASSERT_EQ(sim.advance_to(k * 1e-3), StepStatus::reached_time);
    volatile double sink = sim.value(angle) + sim.value(torque);
    (void)sink;
    if (k > 10 && sim.events().size() == events) {  // after the first steps have sized the workspaces
      ++quiet_steps;
      quiet_allocations += luztar::app::g_allocations - before;
    }
  }
  EXPECT_GT(quiet_steps, 2000u);
  EXPECT_EQ(quiet_allocations, 0u);
}

}  // namespace
}  // namespace luztar
