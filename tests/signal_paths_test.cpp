// One signal-path address space (core/signal_paths.hpp): every canonical path of
// a model resolves, names itself back, and reads the same value through the
// Simulator as its short alias and as the run's Result; metrics read the same
// paths; unknown paths are refused with the list of what exists.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/signal_paths.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

// A block on a Coulomb + viscous bearing, pushed by a spring from a driven
// body; an input `u` adds torque, a hold block samples the block's angle.
Model loop_model() {
  return io::parse_model(R"(simulation: {t_end: 1.0, output_step: 0.01}
signals:
  u: {input: {initial: 0.5, lower: -5, upper: 5}}
  held: {hold: {of: {angle: block}, period: 0.05}}
bodies:
  drive: {inertia: 1.0, velocity: 2.0}
  block: {inertia: 2.0}
elements:
  shaft: {type: spring, bodies: [drive, block], stiffness: 50.0, freeplay: 0.02, damping: 0.1}
  bearing: {type: friction, body: block, coulomb: 0.3, viscous: 0.2}
  push: {type: torque, body: block, torque: u}
  feedback: {type: torque, body: drive, torque: {product: [-1.0, held]}}
)",
                         "paths.yaml", ".");
}

TEST(SignalPaths, EveryCanonicalPathResolvesAndNamesItselfBack) {
  const Model m = loop_model();
  const std::vector<std::string> paths = signal_paths(m);
  std::vector<std::string> expected;
  for (const char* b : {"drive", "block"})
    for (const char* q : {"angle", "velocity", "acceleration"}) expected.push_back(std::string("bodies.") + b + "." + q);
  for (const char* e : {"shaft", "bearing", "push", "feedback"})
    for (const char* q : {"torque", "state", "relative_angle", "relative_velocity", "power", "dissipated"})
      expected.push_back(std::string("elements.") + e + "." + q);
  for (const char* p : {"inputs.u", "blocks.held", "energy.input_work", "energy.kinetic", "energy.elastic",
                        "energy.dissipated"})
    expected.push_back(p);
  EXPECT_EQ(paths, expected);
  for (const std::string& p : paths)
    EXPECT_EQ(signal_path_name(m, resolve_signal_path(m, p, SignalNames::canonical)), p);
}

TEST(SignalPaths, ShortNamesAreAliasesOnlyWhereAllowed) {
  const Model m = loop_model();
  const std::pair<const char*, const char*> aliases[] = {
      {"block.angle", "bodies.block.angle"}, {"drive.velocity", "bodies.drive.velocity"},
      {"shaft.torque", "elements.shaft.torque"}, {"bearing.state", "elements.bearing.state"},
      {"u", "inputs.u"}, {"held", "blocks.held"}};
  for (const auto& [alias, path] : aliases) {
    EXPECT_EQ(resolve_signal_path(m, alias, SignalNames::with_aliases),
              resolve_signal_path(m, path, SignalNames::canonical))
        << alias;
    EXPECT_THROW(resolve_signal_path(m, alias, SignalNames::canonical), std::invalid_argument) << alias;
  }
}

// An element named like a group keeps its short names where aliases are
// allowed, and its canonical path everywhere.
TEST(SignalPaths, ShortNamesOfAnElementNamedLikeAGroup) {
  const Model m = io::parse_model(R"(simulation: {t_end: 1.0, output_step: 0.01}
bodies: {b: {inertia: 1.0}}
elements:
  energy: {type: friction, body: b, viscous: 0.1, coulomb: 0.2}
  inputs: {type: torque, body: b, torque: 1.0}
)",
                                  "groups.yaml", ".");
  const SignalPath energy_torque{SignalPath::Kind::torque, 0}, inputs_state{SignalPath::Kind::state, 1};
  EXPECT_EQ(resolve_signal_path(m, "energy.torque", SignalNames::with_aliases), energy_torque);
  EXPECT_EQ(resolve_signal_path(m, "elements.energy.torque", SignalNames::canonical), energy_torque);
  EXPECT_EQ(resolve_signal_path(m, "inputs.state", SignalNames::with_aliases), inputs_state);
  EXPECT_EQ(resolve_signal_path(m, "energy.kinetic", SignalNames::with_aliases),
            (SignalPath{SignalPath::Kind::kinetic, -1}));
  EXPECT_THROW(resolve_signal_path(m, "energy.torque", SignalNames::canonical), std::invalid_argument);
}

TEST(SignalPaths, ErrorsNameTheProblemAndListTheModelsNames) {
  const Model m = loop_model();
  auto message = [&](const std::string& path, SignalNames names) {
    try {
      resolve_signal_path(m, path, names, "output");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message("bodies.nope.angle", SignalNames::canonical), "'bodies.nope.angle': the model has no body 'nope'");
  EXPECT_EQ(message("bodies.block.torque", SignalNames::canonical),
            "'bodies.block.torque': a body has 'angle', 'velocity', 'acceleration' and 'drive_torque', not 'torque'");
  EXPECT_EQ(message("elements.shaft.angle", SignalNames::canonical),
            "'elements.shaft.angle': an element has 'torque', 'state', 'relative_angle', 'relative_velocity', "
            "'power' and 'dissipated', not 'angle'");
  EXPECT_EQ(message("inputs.v", SignalNames::canonical), "'inputs.v': the model has no input 'v' (inputs: u)");
  EXPECT_EQ(message("blocks.u", SignalNames::canonical),
            "'blocks.u': the model has no sampled block 'u' (blocks: held)");
  EXPECT_EQ(message("energy.potential", SignalNames::canonical),
            "'energy.potential': energy has input_work, kinetic, elastic and dissipated");
  EXPECT_EQ(message("block.speed", SignalNames::with_aliases),
            "no output 'block.speed' (paths are bodies.<body>.angle|velocity|acceleration|drive_torque, "
            "elements.<element>.torque|state|relative_angle|relative_velocity|power|dissipated, "
            "inputs.<input>, blocks.<block>, energy.input_work|kinetic|elastic|dissipated, or the short names "
            "<body>.angle|velocity|acceleration|drive_torque, <element>.torque|state|relative_angle|relative_velocity|"
            "power|dissipated, <input>, <block>; bodies: drive, block; elements: shaft, "
            "bearing, push, feedback; inputs: u; blocks: held)");
}

// The Simulator reads every path, canonical or alias, as the run records it:
// stepping on the output grid reproduces simulate()'s samples (the embedding
// test shows the two runs are the same run) to 1e-12.
TEST(SignalPaths, SimulatorValuesMatchTheRunsRecordAtEveryPath) {
  const Model m = loop_model();
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  Simulator sim(m);
  std::vector<OutputId> ids;
  for (const std::string& p : signal_paths(m)) ids.push_back(sim.output(p));
  EXPECT_EQ(sim.output("block.velocity"), sim.output("bodies.block.velocity"));
  EXPECT_EQ(sim.output("held"), sim.output("blocks.held"));
  // every path's record (inputs.u, which a run does not record, is held at 0.5)
  std::vector<std::vector<double>> records;
  for (const std::string& p : signal_paths(m))
    records.push_back(p == "inputs.u" ? std::vector<double>(r.time.size(), 0.5) : recorded_signal(r, p));
  for (std::size_t k = 0; k < r.time.size(); ++k) {
    ASSERT_EQ(sim.advance_to(r.time[k]), StepStatus::reached_time) << sim.message();
    for (std::size_t j = 0; j < ids.size(); ++j)
      EXPECT_NEAR(sim.value(ids[j]), records[j][k], 1e-12 * (1.0 + std::abs(records[j][k])))
          << signal_paths(m)[j] << " at t = " << r.time[k];
  }
  EXPECT_GT(r.dissipated.back(), 0.0);  // the energies are not trivially zero
  EXPECT_NE(r.block_output.back(), 0.0);
}

// A run's Result records no inputs: inputs.u of the model's input u is
// refused as not recorded, naming what is of its effect (push's torque is u,
// recorded as elements.push.torque, checked here at every sample), not as
// missing (before: "the model has no input 'u' (inputs: none)", a new-user
// hunt); a name the model lacks stays "no input", with the model's inputs.
// A Result read from a file does not know them: not recorded, for any name.
TEST(SignalPaths, AResultRefusesAnInputAsNotRecordedAndAMissingOneAsMissing) {
  const Model m = loop_model();
  Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  auto message = [&](const std::string& path) {
    try {
      recorded_signal(r, path);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string not_recorded =
      "a run does not record its inputs (the host sets them; a Simulator reports 'inputs.u' as an output), only "
      "what they drive: the torque of a torque element an input drives, elements.<element>.torque (torque "
      "elements: push, feedback), and the work of the applied torques, energy.input_work";
  EXPECT_EQ(message("inputs.u"), "'inputs.u': " + not_recorded);
  EXPECT_EQ(message("inputs.v"), "'inputs.v': the model has no input 'v' (inputs: u)");
  for (const double torque : recorded_signal(r, "elements.push.torque")) EXPECT_EQ(torque, 0.5);
  r.input_names.reset();  // as read from a file
  EXPECT_EQ(message("inputs.u"), "'inputs.u': " + not_recorded);
  EXPECT_EQ(message("inputs.v").rfind("'inputs.v': a run does not record its inputs", 0), 0u) << message("inputs.v");
}

TEST(SignalPaths, MetricsReadTheSamePathsAndRefuseInputsAndShortNames) {
  const Model m = loop_model();
  const Result r = simulate(m);
  MetricSpec final_block;
  final_block.name = "last_held";
  final_block.kind = MetricSpec::Kind::final_value;
  final_block.signal = "blocks.held";
  check_metric(final_block, m);
  EXPECT_EQ(compute_metrics({final_block}, r).at(0), r.block_output.back());
  auto refusal = [&](const std::string& signal) {
    MetricSpec bad = final_block;
    bad.signal = signal;
    try {
      check_metric(bad, m);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(refusal("inputs.u"), "sweep.metrics.last_held: 'inputs.u': a run does not record its inputs (metrics read "
                                 "bodies, elements, blocks and energy)");
  EXPECT_EQ(refusal("block.angle").rfind("sweep.metrics.last_held: no signal 'block.angle' (paths are", 0), 0u)
      << refusal("block.angle");
}

}  // namespace
}  // namespace luztar
