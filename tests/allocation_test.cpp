// advance_to allocates nothing on the heap: not while no event falls in the
// step, even with an input changed every step (a host loop's steady state),
// and not at events either, once the simulator has met a structure (its
// workspaces, static splits and Delassus blocks are kept and reused). The only
// growth left is the event log past its first 1024 entries (by doubling).
// With the exact integrator (what auto runs for these models), "met" includes
// the integrator's mode cache: a step in which it identifies a mode for the
// first time (RunStats::jac_evals) files the mode's matrices and exponential,
// and is not counted; every other step allocates
// nothing. The same loops run with cvode_bdf, where every step counts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "apps/bench/allocation_counter.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"


namespace luztar {
namespace {

SimulationSettings with_integrator(const Model& m, const char* integrator) {
  SimulationSettings s = m.simulation;
  s.integrator = integrator;
  return s;
}

bool identified_a_mode(const Simulator& sim, long before) {
  return std::strcmp(sim.integrator_name(), "exact") == 0 && sim.stats().jac_evals != before;
}

void quiet_steps(const char* integrator) {
  const Model m = io::load_model(std::string(LUZTAR_MODELS_DIR) + "/steering.yaml");
  Simulator sim(m, with_integrator(m, integrator));
  const InputId driver = sim.input("driver_torque");
  const OutputId angle = sim.output("road_wheels.angle"), torque = sim.output("tie_rods.torque");
  std::size_t quiet_steps = 0, quiet_allocations = 0;
  for (int k = 1; k <= 3000; ++k) {
    sim.set_input(driver, 3.0 * std::sin(0.0025 * k));
    const std::size_t events = sim.events().size(), before = luztar::app::g_allocations;
    const long identified = sim.stats().jac_evals;
    ASSERT_EQ(sim.advance_to(k * 1e-3), StepStatus::reached_time);
    volatile double sink = sim.value(angle) + sim.value(torque);
    (void)sink;
    if (k > 10 && sim.events().size() == events && !identified_a_mode(sim, identified)) {  // after the first steps have sized the workspaces
      ++quiet_steps;
      quiet_allocations += luztar::app::g_allocations - before;
    }
  }
  EXPECT_GT(quiet_steps, 2000u);
  EXPECT_EQ(quiet_allocations, 0u);
}

// Steps with events, after a warm-up in which each structure is met once.
struct EventStepCount {
  std::size_t steps = 0, allocations = 0;
};

EventStepCount event_step_allocations(const Model& m, Simulator& sim, int steps, int warm_up,
                                      const std::function<void(int)>& host) {
  EventStepCount n;
  for (int k = 1; k <= steps; ++k) {
    host(k);
    const std::size_t events = sim.events().size(), before = luztar::app::g_allocations;
    const long identified = sim.stats().jac_evals;
    EXPECT_EQ(sim.advance_to(m.simulation.t_start + k * 1e-3), StepStatus::reached_time) << sim.message();
    if (k > warm_up && sim.events().size() != events && !identified_a_mode(sim, identified)) {
      ++n.steps;
      n.allocations += luztar::app::g_allocations - before;
    }
  }
  return n;
}

TEST(Allocation, QuietStepsAllocateNothing) { quiet_steps("exact"); }
TEST(Allocation, QuietStepsAllocateNothingBdf) { quiet_steps("cvode_bdf"); }

void steering_event_steps(const char* integrator) {
  const Model m = io::load_model(std::string(LUZTAR_MODELS_DIR) + "/steering.yaml");
  Simulator sim(m, with_integrator(m, integrator));
  const InputId driver = sim.input("driver_torque"), tyres = sim.input("aligning_moment");
  // a driver turning to and fro against the tyres: stick, slip, freeplay crossings
  const EventStepCount n = event_step_allocations(m, sim, 8000, 2000, [&](int k) {
    sim.set_input(driver, 3.0 * std::sin(0.0025 * k));
    sim.set_input(tyres, -20.0 * std::sin(0.0025 * k - 0.3));
  });
  EXPECT_GT(n.steps, 10u);
  EXPECT_EQ(n.allocations, 0u);
}

TEST(Allocation, EventStepsAllocateNothingOnceWarm) { steering_event_steps("exact"); }
TEST(Allocation, EventStepsAllocateNothingOnceWarmBdf) { steering_event_steps("cvode_bdf"); }

void gear_train_event_steps(const char* integrator) {
  // stick-slip of four bearings and rattle in three freeplays, no inputs
  const Model m = io::load_model(std::string(LUZTAR_MODELS_DIR) + "/gear_train.yaml");
  Simulator sim(m, with_integrator(m, integrator));
  const EventStepCount n = event_step_allocations(m, sim, 3000, 500, [](int) {});
  EXPECT_GT(n.steps, 100u);
  EXPECT_EQ(n.allocations, 0u);
}

TEST(Allocation, GearTrainEventsAllocateNothingOnceWarm) { gear_train_event_steps("exact"); }
TEST(Allocation, GearTrainEventsAllocateNothingOnceWarmBdf) { gear_train_event_steps("cvode_bdf"); }

}  // namespace
}  // namespace luztar
