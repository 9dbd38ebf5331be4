// The C++ facade (apps/api/luztar/luztar.hpp) through its one header only: this
// test is compiled without the internal include path and linked to libluztar
// alone. A block of inertia I = 2 on a bearing (viscous c = 0.5, Coulomb MT0 = 1)
// pushed by an input u: once u > MT0 acts from rest at t0,
//   w(t) = (u - MT0)/c (1 - exp(-c (t - t0)/I)),
// and below MT0 it stays stuck (w = 0).
#include <luztar/luztar.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace lz = luztar::api;

namespace {

const char* const kBlock = R"(simulation: {t_end: 2.0, output_step: 0.001, rtol: 1.0e-10, atol: 1.0e-12}
signals: {u: {input: 0}}
bodies: {block: {inertia: 2.0}}
elements:
  bearing: {type: friction, body: block, viscous: 0.5, coulomb: 1.0}
  push: {type: torque, body: block, torque: u}
)";

double block_velocity(double u, double t0, double t) {
  return t <= t0 ? 0.0 : (u - 1.0) / 0.5 * (1.0 - std::exp(-0.5 * (t - t0) / 2.0));
}

TEST(Api, ModelNamesItsBodiesElementsInputsAndSignalPaths) {
  const lz::Model m = lz::Model::parse(kBlock);
  EXPECT_EQ(m.bodies(), std::vector<std::string>{"block"});
  EXPECT_EQ(m.elements(), (std::vector<std::string>{"bearing", "push"}));
  EXPECT_EQ(m.inputs(), std::vector<std::string>{"u"});
  EXPECT_EQ(m.outputs(),
            (std::vector<std::string>{
                "bodies.block.angle", "bodies.block.velocity", "bodies.block.acceleration", "elements.bearing.torque",
                "elements.bearing.state", "elements.bearing.relative_angle", "elements.bearing.relative_velocity",
                "elements.bearing.power", "elements.bearing.dissipated", "elements.push.torque", "elements.push.state",
                "elements.push.relative_angle", "elements.push.relative_velocity", "elements.push.power",
                "elements.push.dissipated", "inputs.u", "energy.input_work", "energy.kinetic", "energy.elastic",
                "energy.dissipated"}));
  EXPECT_EQ(m.t_start(), 0.0);
  EXPECT_EQ(m.t_end(), 2.0);
  EXPECT_STREQ(lz::version(), luztar::kVersion);
}

// An override by sweep path sets the held input to 3 N m from the start.
// A body a rigid connection merged is a body of the file: bodies() names it,
// after the kept ones (the order of a Result's bodies), and each name reads
// through the simulator's outputs. The wheel g (0.1 kg m^2), geared to the
// motor m by q_m = -3 q_g, is merged into m: q_g = -q_m / 3.
TEST(Api, BodiesNameTheBodiesARigidConnectionMerged) {
  const lz::Model m = lz::Model::parse(R"(simulation: {t_end: 1.0, output_step: 0.01}
bodies: {m: {inertia: 1.0}, g: {inertia: 0.1}, w: {inertia: 0.5}}
elements:
  gear: {type: spring, bodies: [m, g], stiffness: .inf, ratio: -3}
  shaft: {type: spring, bodies: [g, w], stiffness: 50}
  drive: {type: torque, body: g, torque: 3.0}
)");
  EXPECT_EQ(m.bodies(), (std::vector<std::string>{"m", "w", "g"}));
  lz::Simulator sim(m);
  ASSERT_EQ(sim.advance_to(0.5), lz::Status::reached_time);
  const double qm = sim.value(sim.output("bodies.m.angle")), qg = sim.value(sim.output("bodies.g.angle"));
  EXPECT_GT(std::abs(qm), 0.01);
  EXPECT_NEAR(qg, qm / -3.0, 1e-12);
}

TEST(Api, SimulateWithAnOverrideFollowsTheClosedForm) {
  const lz::Result r = lz::Model::parse(kBlock, {{"signals.u.input", 3.0}}).simulate();
  ASSERT_EQ(r.status(), lz::Status::reached_time) << r.message();
  EXPECT_EQ(r.time().size(), 2001u);
  const std::vector<double> w = r.signal("bodies.block.velocity");
  ASSERT_EQ(w.size(), r.time().size());
  for (std::size_t k = 0; k < w.size(); ++k) EXPECT_NEAR(w[k], block_velocity(3.0, 0.0, r.time()[k]), 1e-8);
  // The bearing's torque while slipping forwards is MT0 + c w (recorded with the
  // sign of the slip, acting against it); energy is booked.
  const std::vector<double> f = r.signal("elements.bearing.torque");
  EXPECT_NEAR(f.back(), 1.0 + 0.5 * w.back(), 1e-8);
  EXPECT_GT(r.signal("energy.dissipated").back(), 0.0);
  EXPECT_EQ(r.signals().size(), 19u);  // the model's paths but inputs.u (a run does not record inputs)
  EXPECT_THROW(r.signal("inputs.u"), std::invalid_argument);
  EXPECT_GE(r.stats().events, 0);
}

TEST(Api, SimulateWritesCsvAndHdf5Files) {
  const lz::Result r = lz::Model::parse(kBlock, {{"signals.u.input", "2.0"}}).simulate();
  const auto dir = std::filesystem::temp_directory_path() / ("luztar_api_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  r.write_csv((dir / "run.csv").string());
  r.write_hdf5((dir / "run.h5").string());
  std::ifstream csv(dir / "run.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("time [s],block.angle [rad],block.velocity [rad/s],", 0), 0u) << header;
  EXPECT_GT(std::filesystem::file_size(dir / "run.h5"), 1000u);
  std::filesystem::remove_all(dir);
}

TEST(Api, ErrorsCarryFileLineColumnAndField) {
  try {
    lz::Model::parse("simulation: {t_end: 1.0, output_step: 0.1}\nbodies: {b: {inertia: -1}}\n", {}, "bad.yaml");
    FAIL() << "a negative inertia was accepted";
  } catch (const lz::Error& e) {
    EXPECT_EQ(e.file(), "bad.yaml");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 23);
    EXPECT_EQ(e.field(), "bodies.b.inertia");
    EXPECT_EQ(std::string(e.what()), "bad.yaml:2:23: bodies.b.inertia: " + e.detail());
  }
  try {
    lz::Model::load("/nonexistent/model.yaml");
    FAIL() << "a missing file was accepted";
  } catch (const lz::Error& e) {
    EXPECT_EQ(e.file(), "/nonexistent/model.yaml");
    EXPECT_EQ(e.line(), 0);
    EXPECT_EQ(e.detail().rfind("cannot open the model file", 0), 0u) << e.what();
  }
  EXPECT_THROW(lz::Model::parse(kBlock, {{"elements.bearing.nothing", 1.0}}), lz::Error);
}

// Stepping at 1 kHz, u = 3 from t0 = 0.3: the closed form, the break-away
// event, and a snapshot restored repeats the run bit for bit.
TEST(Api, SteppingFollowsTheClosedFormAndRestoresBitForBit) {
  const lz::Model m = lz::Model::parse(kBlock);
  lz::Simulator sim(m);
  const lz::Input u = sim.input("u");
  const lz::Output w = sim.output("bodies.block.velocity"), w_alias = sim.output("block.velocity");
  const lz::Output kinetic = sim.output("energy.kinetic");
  lz::Snapshot snap;
  std::vector<double> first, second;
  for (int k = 1; k <= 2000; ++k) {
    if (k == 301) sim.set_input(u, 3.0);
    if (k == 1000) snap = sim.snapshot();
    ASSERT_EQ(sim.advance_to(k * 1e-3), lz::Status::reached_time) << sim.message();
    EXPECT_NEAR(sim.value(w), block_velocity(3.0, 0.3, k * 1e-3), 1e-8) << "t = " << k * 1e-3;
    EXPECT_EQ(sim.value(w_alias), sim.value(w));
    EXPECT_NEAR(sim.value(kinetic), 0.5 * 2.0 * sim.value(w) * sim.value(w), 1e-12);
    if (k >= 1000) first.push_back(sim.value(w));
  }
  const std::vector<lz::Event> events = sim.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].element, "bearing");
  EXPECT_EQ(events[0].kind, "break_away");
  EXPECT_NEAR(events[0].time, 0.3, 1e-12);
  EXPECT_EQ(events[0].before, 0);
  EXPECT_EQ(events[0].after, 1);
  EXPECT_GT(sim.stats().steps, 0);
  EXPECT_LT(sim.stats().energy_residual, 1e-6);  // the balance so far, booked (it was 0 always)
  EXPECT_GT(sim.stats().energy_residual, 0.0);
  EXPECT_FALSE(sim.stats().energy_residual_exceeded);
  EXPECT_NEAR(snap.time(), 0.999, 1e-15);
  sim.restore(snap);
  EXPECT_EQ(sim.events().size(), 1u);
  for (int k = 1000; k <= 2000; ++k) {
    ASSERT_EQ(sim.advance_to(k * 1e-3), lz::Status::reached_time) << sim.message();
    second.push_back(sim.value(w));
  }
  EXPECT_EQ(first, second);
}

TEST(Api, BadArgumentsThrowInvalidArgument) {
  const lz::Model m = lz::Model::parse(kBlock);
  lz::Simulator sim(m);
  EXPECT_THROW(sim.input("v"), std::invalid_argument);
  EXPECT_THROW(sim.set_input(sim.input("u"), NAN), std::invalid_argument);
  try {
    sim.output("block.speed");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no output 'block.speed' (paths are bodies.<body>.angle|velocity|acceleration", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(sim.value(lz::Output{}), std::invalid_argument);
  ASSERT_EQ(sim.advance_to(0.5), lz::Status::reached_time);
  EXPECT_THROW(sim.advance_to(0.4), std::invalid_argument);
  EXPECT_THROW(sim.advance_to(2.5), std::invalid_argument);
  EXPECT_THROW(sim.advance_to(INFINITY), std::invalid_argument);
  EXPECT_EQ(sim.time(), 0.5);
  EXPECT_EQ(sim.advance_to(2.0 + 1e-16), lz::Status::reached_time);  // t_end, a few ulp over
}

// A moved-from Simulator holds nothing: each call throws (it dereferenced a
// null state and ended the process: a new-user hunt); the one moved to goes
// on, and a moved-from one can be assigned a simulator again.
TEST(Api, AMovedFromSimulatorThrowsAndTheMovedToOneGoesOn) {
  const lz::Model m = lz::Model::parse(kBlock);
  lz::Simulator sim(m);
  ASSERT_EQ(sim.advance_to(0.25), lz::Status::reached_time);
  lz::Simulator moved(std::move(sim));
  EXPECT_THROW((void)sim.time(), std::logic_error);
  EXPECT_THROW(sim.advance_to(0.5), std::logic_error);
  EXPECT_THROW((void)sim.input("u"), std::logic_error);
  EXPECT_THROW((void)sim.events(), std::logic_error);
  EXPECT_THROW((void)sim.snapshot(), std::logic_error);
  EXPECT_EQ(moved.time(), 0.25);
  EXPECT_EQ(moved.advance_to(0.5), lz::Status::reached_time);
  sim = lz::Simulator(m);
  EXPECT_EQ(sim.time(), 0.0);
}

}  // namespace
