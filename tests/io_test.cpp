// HDF5 and CSV output: a round trip reproduces the result exactly, a failed
// write leaves no file behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/energy.hpp"
#include "io/csv_writer.hpp"
#include "io/hdf5_reader.hpp"
#include "io/hdf5_writer.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "luztar/version.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path p = fs::temp_directory_path() / ("luztar_io_test_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}

TEST(Io, Hdf5RoundTripIsExact) {
  ModelSpec spec = io::load_model_spec(LUZTAR_MODELS_DIR "/gear_train.yaml");
  spec.simulation.t_end = 0.5;
  const Model m = assemble(spec);
  const Result r = simulate(m);
  const fs::path file = temp_dir() / "gear.h5";
  io::write_hdf5(file.string(), m, m.simulation, r);
  const io::StoredRun back = io::read_hdf5(file.string());
  const Result& b = back.result;
  EXPECT_EQ(b.time, r.time);
  EXPECT_EQ(b.body_names, r.body_names);
  EXPECT_EQ(b.element_names, r.element_names);
  EXPECT_EQ(b.element_kinds, r.element_kinds);
  EXPECT_EQ(b.angle, r.angle);
  EXPECT_EQ(b.velocity, r.velocity);
  EXPECT_EQ(b.element_torque, r.element_torque);
  EXPECT_EQ(b.element_state, r.element_state);
  EXPECT_EQ(b.input_work, r.input_work);
  EXPECT_EQ(b.dissipated, r.dissipated);
  EXPECT_EQ(b.time_stuck, r.time_stuck);
  ASSERT_EQ(b.events.size(), r.events.size());
  ASSERT_GT(r.events.size(), 10u);
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    EXPECT_EQ(b.events[i].t, r.events[i].t);
    EXPECT_EQ(b.events[i].element, r.events[i].element);
    EXPECT_EQ(b.events[i].kind, r.events[i].kind);
    EXPECT_EQ(b.events[i].before, r.events[i].before);
    EXPECT_EQ(b.events[i].after, r.events[i].after);
  }
  EXPECT_EQ(b.status, r.status);
  EXPECT_EQ(b.stats.steps, r.stats.steps);
  EXPECT_EQ(back.model_text, spec.source_text);
  EXPECT_EQ(back.luztar_version, kVersion);
  fs::remove_all(file.parent_path());
}

// A run whose energy balance does not close is flagged in its Result and in
// the /run attributes. The oracle: a body rattling at 1 rad/s in a 0.01 rad
// freeplay between stiff walls (k = 1e6 N m/rad, no damping, no input)
// conserves its energy exactly, so the relative residual is the integrator's
// error alone (time stepping: at the last sample, whose samples between
// steps are no states of the scheme). Time stepping with h = 1e-2 s, ten
// times the wall's 1/omega = 1e-3 s, makes energy (measured: relative 0.58
// of the largest term over the run, energy_peak; 1.49 of the terms at the
// end); h = 1e-5 s keeps it to 2.3e-4, under kEnergyResidualLimit = 1e-3.
TEST(Io, EnergyResidualAboveTheLimitIsFlaggedAndStored) {
  const std::string text =
      "simulation: {t_end: 1.0, output_step: 0.01, solver: time_stepping, step: STEP}\n"
      "bodies:\n  a: {inertia: 1.0, velocity: 1.0}\n"
      "elements:\n  s: {type: spring, body: a, stiffness: 1.0e6, freeplay: 0.01}\n";
  for (const std::string step : {"1.0e-2", "1.0e-5"}) {
    SCOPED_TRACE(step);
    std::string t = text;
    t.replace(t.find("STEP"), 4, step);
    const Model m = assemble(io::parse_model_spec(t, "stiff.yaml", "."));
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time);
    EXPECT_EQ(r.stats.energy_residual, energy_balance(r, r.num_samples() - 1).relative);
    const bool coarse = step == "1.0e-2";
    if (coarse) EXPECT_GT(r.stats.energy_residual, 0.5);
    else EXPECT_LT(r.stats.energy_residual, 0.5 * kEnergyResidualLimit);
    EXPECT_EQ(r.stats.energy_residual_exceeded, coarse);
    const fs::path file = temp_dir() / "stiff.h5";
    io::write_hdf5(file.string(), m, m.simulation, r);
    const io::StoredRun back = io::read_hdf5(file.string());
    EXPECT_EQ(back.result.stats.energy_residual, r.stats.energy_residual);
    EXPECT_EQ(back.result.stats.energy_residual_exceeded, coarse);
    fs::remove_all(file.parent_path());
  }
}

// The solver outcome counters are /run attributes and read back. Distinct
// values per counter, so a swapped pair would show.
TEST(Io, SolverOutcomeCountersAreStoredAndReadBack) {
  ModelSpec spec = io::load_model_spec(LUZTAR_MODELS_DIR "/gear_train.yaml");
  spec.simulation.t_end = 0.01;
  const Model m = assemble(spec);
  Result r = simulate(m);
  r.stats.selection_fallbacks = 3;
  r.stats.selection_unsolved = 5;
  r.stats.impact_fallbacks = 7;
  r.stats.impacts_unsolved = 11;
  const fs::path file = temp_dir() / "counters.h5";
  io::write_hdf5(file.string(), m, m.simulation, r);
  const RunStats back = io::read_hdf5(file.string()).result.stats;
  EXPECT_EQ(back.selection_fallbacks, 3);
  EXPECT_EQ(back.selection_unsolved, 5);
  EXPECT_EQ(back.impact_fallbacks, 7);
  EXPECT_EQ(back.impacts_unsolved, 11);
  fs::remove_all(file.parent_path());
}

TEST(Io, CsvHasOneRowPerSampleAndNamedColumnsWithUnits) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  const Result r = simulate(m);
  const fs::path file = temp_dir() / "block.csv";
  io::write_csv(file.string(), r);
  std::ifstream in(file);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header,
            "time [s],block.angle [rad],block.velocity [rad/s],block.acceleration [rad/s^2],bearing.torque [N m],"
            "bearing.state [1],bearing.relative_angle [rad],bearing.relative_velocity [rad/s],bearing.power [W],"
            "bearing.dissipated [J],drive.torque [N m],drive.state [1],drive.relative_angle [rad],"
            "drive.relative_velocity [rad/s],drive.power [W],drive.dissipated [J],input_work [J],kinetic [J],"
            "elastic [J],dissipated [J]");
  // Every cell reads back to the stored double (shortest round-trip text).
  int k = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    ASSERT_EQ(cells.size(), 20u) << line;
    if (k == 1) {
      EXPECT_EQ(cells[0], "0.001");  // not 0.0010000000000000000
    }
    std::vector<double> expect = {r.time[k], r.angle[k], r.velocity[k], r.acceleration[k]};
    for (int e = 0; e < 2; ++e)
      for (double v : {r.element_torque[2 * k + e], static_cast<double>(r.element_state[2 * k + e]),
                       r.element_relative[2 * k + e], r.element_relative_velocity[2 * k + e],
                       r.element_power[2 * k + e], r.element_dissipated[2 * k + e]})
        expect.push_back(v);
    for (double v : {r.input_work[k], r.kinetic[k], r.elastic[k], r.dissipated[k]}) expect.push_back(v);
    for (std::size_t j = 0; j < cells.size(); ++j) EXPECT_EQ(std::stod(cells[j]), expect[j]) << "row " << k << " col " << j;
    ++k;
  }
  EXPECT_EQ(k, r.num_samples());
  fs::remove_all(file.parent_path());
}

// Every numeric dataset of a run file names its unit (core/units.hpp).
TEST(Io, Hdf5DatasetsCarryUnits) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  const Result r = simulate(m);
  const fs::path file = temp_dir() / "units.h5";
  io::write_hdf5(file.string(), m, m.simulation, r);
  const std::map<std::string, std::string> units = io::read_hdf5(file.string()).units;
  std::map<std::string, std::string> expected = {
      {"time", "s"},
      {"bodies/block/angle", "rad"},
      {"bodies/block/velocity", "rad/s"},
      {"bodies/block/acceleration", "rad/s^2"},
      {"events/relative_velocity", "rad/s"}};
  for (const char* e : {"bearing", "drive"})
    for (const auto& [name, u] : std::map<std::string, std::string>{{"torque", "N m"}, {"state", "1"},
                                                                    {"relative_angle", "rad"},
                                                                    {"relative_velocity", "rad/s"},
                                                                    {"power", "W"}, {"dissipated", "J"}})
      expected[std::string("elements/") + e + "/" + name] = u;
  for (const auto& [name, u] : std::map<std::string, std::string>{
      {"energy/input_work", "J"},
      {"energy/kinetic", "J"},
      {"energy/elastic", "J"},
      {"energy/dissipated", "J"},
      {"events/time", "s"},
      {"events/before", "1"},
      {"events/after", "1"}})
    expected[name] = u;
  EXPECT_EQ(units, expected);  // and no numeric dataset without one
  fs::remove_all(file.parent_path());
}

// The YAML writer (luztar reduce) writes the shortest text of each number and
// leaves out every field that keeps the reader's default.
TEST(Io, YamlWriterWritesShortestNumbersAndNoDefaults) {
  ModelSpec spec = io::load_model_spec(LUZTAR_MODELS_DIR "/block.yaml");
  spec.simulation.rtol = 1e-11;  // %.17g: 9.9999999999999994e-12
  spec.bodies[0].inertia = 0.1 + 0.2;  // needs all 17 digits: 0.30000000000000004
  const std::string text = io::to_yaml(spec, {});
  EXPECT_EQ(text,
            "name: block\n"
            "description: Block on a Coulomb + viscous bearing under a sinusoidal torque (Part 2, 3.1)\n"
            "simulation:\n"
            "  t_end: 4\n"
            "  output_step: 0.001\n"
            "  rtol: 1e-11\n"
            "  atol: 1e-12\n"
            "bodies:\n"
            "  block: {inertia: 0.30000000000000004}\n"
            "elements:\n"
            "  bearing:\n"
            "    type: friction\n"
            "    body: block\n"
            "    viscous: 0.5\n"
            "    coulomb: 1\n"
            "  drive:\n"
            "    type: torque\n"
            "    body: block\n"
            "    torque: {sine: {amplitude: 2, frequency: 0.5}}\n");
  const ModelSpec back = io::parse_model_spec(text, "back.yaml", ".");
  EXPECT_EQ(back.simulation.rtol, 1e-11);
  EXPECT_EQ(back.bodies[0].inertia, 0.1 + 0.2);
  EXPECT_EQ(io::to_yaml(back, {}), text);  // a fixed point
}

// ModelSpec -> YAML -> ModelSpec keeps every number exactly and every signal kind.
TEST(Io, YamlWriterRoundTrip) {
  ModelSpec spec = io::load_model_spec(LUZTAR_MODELS_DIR "/gear_train.yaml");
  Signal table;
  table.kind = Signal::Kind::table;
  table.table_t = {0.0, 0.1, 0.3};
  table.table_v = {1.0 / 3.0, -2.0, 0.7};
  Signal product;
  product.kind = Signal::Kind::product;
  product.terms = {Signal::make_constant(2.0 / 3.0), table};
  std::get<TorqueSpec>(spec.elements.back()).torque = product;
  spec.signals["ramp"] = [] {
    Signal r;
    r.kind = Signal::Kind::ramp;
    r.start = 0.1;
    r.end = 0.2;
    r.final_value = 1e-7;
    return r;
  }();
  const std::string text = io::to_yaml(spec, {"a comment"});
  EXPECT_EQ(text.rfind("# a comment\n", 0), 0u);
  const ModelSpec back = io::parse_model_spec(text, "roundtrip.yaml", ".");
  const Model a = assemble(spec), b = assemble(back);
  EXPECT_EQ(a.inertia, b.inertia);
  ASSERT_EQ(a.springs.size(), b.springs.size());
  for (std::size_t i = 0; i < a.springs.size(); ++i) {
    EXPECT_EQ(a.springs[i].stiffness, b.springs[i].stiffness);
    EXPECT_EQ(a.springs[i].freeplay, b.springs[i].freeplay);
    EXPECT_EQ(a.springs[i].damping, b.springs[i].damping);
  }
  for (double t : {0.0, 0.05, 0.15, 0.25, 1.0})
    for (std::size_t s = 0; s < a.signals.size(); ++s) EXPECT_EQ(evaluate(a.signals[s], t), evaluate(b.signals[s], t));
  EXPECT_EQ(back.signals.at("ramp").final_value, 1e-7);
  EXPECT_EQ(a.simulation.rtol, b.simulation.rtol);
}

TEST(Io, FailedWriteLeavesNoFile) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  Result r;
  r.time = {0.0};
  const std::string bad = "/nonexistent-dir/out.h5";
  EXPECT_THROW(io::write_hdf5(bad, m, m.simulation, r), std::runtime_error);
  EXPECT_THROW(io::write_csv("/nonexistent-dir/out.csv", r), std::runtime_error);
  EXPECT_FALSE(fs::exists(bad));
}

}  // namespace
}  // namespace luztar
