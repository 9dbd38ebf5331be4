// The fast restart after an input change (EventPipeline::restart_for_inputs):
// with the exact integrator, an input set by the host changes only z (inputs
// are exosystem states), so when every mode stays consistent the restart
// keeps the mode structure instead of rebuilding it. It must change nothing
// but the work done: a 1 kHz host loop on the steering model with the inputs
// set every step gives the same states, energies, events and counts, bit for
// bit, as the same loop with the full restart forced
// (Simulator::set_input_fast_path(false)); a snapshot taken mid-run and
// restored continues bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <cstring>
#include <string>
#include <vector>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// models/steering.yaml, or with the driver's torque through a dead zone of
// +-0.5 N m (a memoryless block of an input: a jump of the input can switch
// its piece, a new exosystem and mode at the restart).
Model steering(bool dead_zone) {
  std::ifstream in(std::string(LUZTAR_MODELS_DIR) + "/steering.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string driven = "torque: driver_torque";
  const std::size_t at = yaml.find(driven);
  EXPECT_NE(at, std::string::npos);
  if (dead_zone && at != std::string::npos)
    yaml.replace(at, driven.size(), "torque: {dead_zone: {of: driver_torque, lower: -0.5, upper: 0.5}}");
  return assemble(io::parse_model_spec(yaml, "steering.yaml", LUZTAR_MODELS_DIR));
}

// The host: the driver's torque a slow sine, the aligning moment a spring on
// the road wheels' angle (so that every step sets both to new values).
struct Host {
  Simulator& sim;
  InputId driver, tyres;
  int road_wheels;
  explicit Host(Simulator& s, const Model& m)
      : sim(s), driver(s.input("driver_torque")), tyres(s.input("aligning_moment")),
        road_wheels(static_cast<int>(std::find(m.body_names.begin(), m.body_names.end(), "road_wheels") -
                                     m.body_names.begin())) {}
  // Sets the inputs of step k and advances to k ms.
  StepStatus step(int k) {
    sim.set_input(driver, 3.0 * std::sin(0.0025 * k));
    sim.set_input(tyres, std::clamp(-400.0 * sim.state().q[road_wheels], -50.0, 50.0));
    return sim.advance_to(k * 1e-3);
  }
};

void expect_same_states(const Simulator& a, const Simulator& b, int k) {
  ASSERT_TRUE(same_bits(a.state().q, b.state().q)) << "step " << k;
  ASSERT_TRUE(same_bits(a.state().w, b.state().w)) << "step " << k;
  ASSERT_TRUE(same_bits(a.state().input_work, b.state().input_work)) << "step " << k;
  ASSERT_TRUE(same_bits(a.state().dissipated, b.state().dissipated)) << "step " << k;
}

void expect_same_events(const std::vector<EventRecord>& a, const std::vector<EventRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same_bits(a[i].t, b[i].t)) << i;
    EXPECT_EQ(a[i].element, b[i].element) << i;
    EXPECT_EQ(a[i].kind, b[i].kind) << i;
    EXPECT_EQ(a[i].before, b[i].before) << i;
    EXPECT_EQ(a[i].after, b[i].after) << i;
  }
}

class InputFastPath : public ::testing::TestWithParam<bool> {};

TEST_P(InputFastPath, EqualsTheFullRestartBitForBit) {
  const Model m = steering(GetParam());
  SimulationSettings s = m.simulation;
  s.integrator = "exact";
  Simulator fast(m, s), full(m, s);
  full.set_input_fast_path(false);
  Host hf(fast, m), hs(full, m);
  for (int k = 1; k <= 4000; ++k) {
    ASSERT_EQ(hf.step(k), StepStatus::reached_time) << fast.message();
    ASSERT_EQ(hs.step(k), StepStatus::reached_time) << full.message();
    expect_same_states(fast, full, k);
  }
  expect_same_events(fast.events(), full.events());
  EXPECT_GT(fast.events().size(), 10u) << "a loop with events, so that both paths meet mode changes";
  const RunStats a = fast.stats(), b = full.stats();
  EXPECT_EQ(a.reinits, b.reinits);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(b.input_restarts, 0);
  // most steps keep the structure (the others change a mode or meet a stuck element at its limit)
  EXPECT_GT(a.input_restarts, 3000);
  std::printf("%zu events, %ld of 4000 input changes kept the structure\n", fast.events().size(),
              a.input_restarts);
}

TEST_P(InputFastPath, SnapshotRestoreContinuesBitIdentically) {
  const Model m = steering(GetParam());
  SimulationSettings s = m.simulation;
  s.integrator = "exact";
  Simulator a(m, s), b(m, s);
  Host ha(a, m), hb(b, m);
  for (int k = 1; k <= 1500; ++k) ASSERT_EQ(ha.step(k), StepStatus::reached_time) << a.message();
  const Snapshot snap = a.snapshot();
  b.restore(snap);
  const std::size_t logged = a.events().size() - b.events().size();
  for (int k = 1501; k <= 3000; ++k) {
    ASSERT_EQ(ha.step(k), StepStatus::reached_time) << a.message();
    ASSERT_EQ(hb.step(k), StepStatus::reached_time) << b.message();
    expect_same_states(a, b, k);
  }
  const std::vector<EventRecord> after(a.events().begin() + static_cast<std::ptrdiff_t>(logged), a.events().end());
  expect_same_events(after, b.events());
  EXPECT_GT(b.stats().input_restarts, 1000);
}

INSTANTIATE_TEST_SUITE_P(Steering, InputFastPath, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "DeadZone" : "Plain"; });

}  // namespace
}  // namespace luztar
