// `luztar plot` (apps/cli/plot_command.cpp running apps/cli/luztar_plot.py)
// through the command line: the signals, panels, events and stuck intervals it
// selects (--list), the characteristics' relative quantities, the pictures in
// each format, the sweep map's failed runs, and the options it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "io/hdf5_reader.hpp"
#include "tests/cli_runner.hpp"

namespace luztar {
namespace {

namespace fs = std::filesystem;
using Plot = test_support::TempDirTest;
using Outcome = test_support::Outcome;
constexpr auto run = test_support::run_cli;

std::string model(const std::string& name) { return std::string(LUZTAR_MODELS_DIR) + "/" + name + ".yaml"; }

std::string contents(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The rest of the first line of text that starts with prefix ("" when none does).
std::string rest_of_line(const std::string& text, const std::string& prefix) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (text.compare(at, prefix.size(), prefix) == 0 && at + prefix.size() <= end)
      return text.substr(at + prefix.size(), end - at - prefix.size());
    at = end + 1;
  }
  return "";
}

// What `luztar plot FILE --list OPTIONS` prints; it exits 0.
std::string listing(const std::string& file, const std::string& options = "") {
  const Outcome o = run("plot " + file + " --list " + options);
  EXPECT_EQ(o.code, 0) << o.out;
  return o.out;
}

// A run file of a model from models/ (`options`: of `luztar run`), made once per test.
template <const char* name, const char* options>
class PlotOf : public Plot {
 protected:
  void SetUp() override {
    Plot::SetUp();
    h5_ = path(std::string(name) + ".h5");
    ASSERT_EQ(run("run -q " + model(name) + " " + options + " -o " + h5_).code, 0);
  }
  std::string h5_;
};
// block.yaml: one body on a Coulomb bearing, driven by a sine torque; 4 s.
constexpr char kBlock[] = "block", kWhole[] = "";
using PlotBlock = PlotOf<kBlock, kWhole>;
// gear_train.yaml for 1 s: four bodies, three freeplay springs (the mesh with
// ratio 2), four bearings.
constexpr char kGearTrain[] = "gear_train", kOneSecond[] = "--t-end 1";
using PlotGearTrain = PlotOf<kGearTrain, kOneSecond>;
// servo_gear_train.yaml (the gear train under a sampled PID position loop) and
// steering.yaml (a rack-and-pinion steering for a host's loop), 1 s each.
constexpr char kServo[] = "servo_gear_train", kSteering[] = "steering";
using PlotServo = PlotOf<kServo, kOneSecond>;
using PlotSteering = PlotOf<kSteering, kOneSecond>;

// Globs pick stored signal paths in model order; one panel per quantity kind
// (an element's relative angle with the angles, its power on a panel of its
// own, its dissipated energy with the energies), in display units; the events
// counted by kind. The time axis' ms is allowed although no signal is a time.
TEST_F(PlotBlock, ListSelectsSignalsByGlobAndOnePanelPerKind) {
  const std::string out =
      listing(h5_, "--signals 'bodies.*.velocity,elements.bearing.*,energy.kin*' --units rpm,ms,kJ");
  EXPECT_TRUE(contains(out,
                       "signals (8):\n"
                       "  bodies.block.velocity [rad/s]\n"
                       "  elements.bearing.torque [N m]\n"
                       "  elements.bearing.state\n"
                       "  elements.bearing.relative_angle [rad]\n"
                       "  elements.bearing.relative_velocity [rad/s]\n"
                       "  elements.bearing.power [W]\n"
                       "  elements.bearing.dissipated [J]\n"
                       "  energy.kinetic [J]\n"
                       "panels (6):\n"
                       "  angle [rad]: elements.bearing.relative_angle\n"
                       "  velocity [rpm]: bodies.block.velocity, elements.bearing.relative_velocity (dashed, on an "
                       "earlier curve: elements.bearing.relative_velocity)\n"
                       "  torque [N m]: elements.bearing.torque\n"
                       "  power [W]: elements.bearing.power\n"
                       "  energy [kJ]: elements.bearing.dissipated, energy.kinetic\n"
                       "  state: elements.bearing.state\n"
                       "events: stick 3, break_away 4\n"))
      << out;
}

// A dataset's `units` attribute, when the file has one, decides its unit and
// so its panel (a translational body's m and m/s; 'N*m' is N m); the display
// units then convert it.
// --list draws nothing: an -o beside it leaves the file it names as it was
// (it was emptied: a new-user hunt) and creates none.
TEST_F(PlotBlock, ListLeavesTheOutputFileAlone) {
  const std::string kept = path("kept.png"), none = path("none.png");
  { std::ofstream(kept) << "a picture drawn before"; }
  EXPECT_EQ(run("plot " + h5_ + " -o " + kept + " --list").code, 0);
  EXPECT_EQ(contents(kept), "a picture drawn before");
  EXPECT_EQ(run("plot " + h5_ + " -o " + none + " --list").code, 0);
  EXPECT_FALSE(fs::exists(none));
}

TEST_F(PlotBlock, UsesTheUnitsAttributeWhenPresent) {
  ASSERT_EQ(test_support::run_shell("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + h5_ + "', 'a'); "
                                    "f['bodies/block/angle'].attrs['units'] = 'm'; "
                                    "f['bodies/block/velocity'].attrs['units'] = 'm/s'; "
                                    "f['elements/bearing/torque'].attrs['units'] = 'N*m'\"")
                .code,
            0);
  const std::string out = listing(h5_, "--signals 'bodies.*,elements.bearing.torque' --units 'mm,km/h,N mm'");
  EXPECT_TRUE(contains(out,
                       "panels (4):\n"
                       "  position [mm]: bodies.block.angle\n"
                       "  velocity [km/h]: bodies.block.velocity\n"
                       "  acceleration [rad/s^2]: bodies.block.acceleration\n"
                       "  torque [N mm]: elements.bearing.torque\n"))
      << out;
}

// Without --signals: angles and velocities of the bodies, the applied torques
// (drive and load; not the springs' and bearings'), and the energies with the
// residual of the balance (input - change of kinetic and elastic - dissipated).
// A curve that lies on an earlier one of its panel (the first wheel's angle on
// the input body's, within the freeplay; the residual, about 0, on the elastic
// energy) is dashed, so that both show.
TEST_F(PlotGearTrain, DefaultsToBodiesAppliedTorquesAndEnergies) {
  const std::string out = listing(h5_);
  EXPECT_TRUE(contains(out,
                       "panels (4):\n"
                       "  angle [rad]: bodies.psi.angle, bodies.delta.angle, bodies.gamma.angle, bodies.phi.angle "
                       "(dashed, on an earlier curve: bodies.delta.angle, bodies.phi.angle)\n"
                       "  velocity [rad/s]: bodies.psi.velocity, bodies.delta.velocity, bodies.gamma.velocity, "
                       "bodies.phi.velocity\n"
                       "  torque [N m]: elements.drive_psi.torque, elements.load_phi.torque\n"
                       "  energy [J]: energy.input_work, energy.kinetic, energy.elastic, energy.dissipated, "
                       "energy.residual (dashed, on an earlier curve: energy.residual)\n"))
      << out;
}

// The servo's default picture also has its controller's sampled blocks.
TEST_F(PlotServo, DefaultsIncludeTheSampledBlocks) {
  const std::string out = listing(h5_);
  // the command drives the motor: a torque, in the torque panel; the integral's unit is unknown
  EXPECT_TRUE(contains(out, "  torque [N m]: elements.motor.torque, elements.load_phi.torque, blocks.command")) << out;
  EXPECT_TRUE(contains(out, "  block output: blocks.integral\n")) << out;
  EXPECT_FALSE(contains(out, "inputs held")) << out;
}

// steering.yaml is driven by a host through its `input` signals, which
// `luztar run` holds at 0: the picture says so (nothing moves, all stuck).
TEST_F(PlotSteering, SaysTheHostsInputsAreHeld) {
  const std::string out = listing(h5_);
  // stuck over the whole run: the strip shows it, the panels are not tinted
  EXPECT_TRUE(contains(out, "events: none\n"
                            "stuck: column_bearing 1 intervals, 1.000000000 s (the whole run: not shaded)\n"))
      << out;
  EXPECT_TRUE(contains(out, "inputs held: driver_torque, aligning_moment\n")) << out;
}

// A run that stopped early says so (its samples end where it stopped), with
// the status and message stored in the file; a complete run says nothing.
TEST_F(Plot, SaysARunStoppedEarly) {
  const std::string h5 = path("limit.h5");
  ASSERT_EQ(run("run -q " + model("gear_train") + " --set simulation.max_events=3 -o " + h5).code, 3);
  const Result r = io::read_hdf5(h5).result;
  const std::string out = listing(h5);
  EXPECT_TRUE(contains(out, "stopped early (event_limit): " + r.message + "\n")) << out;
  const std::string whole = path("whole.h5");
  ASSERT_EQ(run("run -q " + model("block") + " -o " + whole).code, 0);
  EXPECT_FALSE(contains(listing(whole), "stopped early")) << listing(whole);
}

// A run that failed in its first step (time stepping, a step too long for a
// falling friction table) holds no samples: plot says so (it failed reading
// the energies for the residual, an IndexError's traceback) and exits 4.
TEST_F(Plot, SaysARunHoldsNoSamples) {
  const std::string yaml = path("falling.yaml"), h5 = path("falling.h5");
  std::ofstream(yaml) << "bodies:\n  b: {inertia: 0.05}\n"
                         "elements:\n"
                         "  f: {type: friction, body: b, coulomb_table: {points: [[0, 1.0], [0.4, 0.6], [3, 0.9]]}}\n"
                         "  t: {type: torque, body: b, torque: 2.0}\n"
                         "simulation: {t_end: 2.0, output_step: 0.01, solver: time_stepping, step: 0.2}\n";
  ASSERT_EQ(run("run -q " + yaml + " -o " + h5).code, 3);
  ASSERT_EQ(io::read_hdf5(h5).result.num_samples(), 0);
  const Outcome o = run("plot " + h5 + " -o " + path("falling.png"));
  EXPECT_EQ(o.code, 4) << o.out;
  EXPECT_TRUE(contains(o.out, "luztar plot: " + h5 + ": no samples (the run stopped at its start)")) << o.out;
  EXPECT_FALSE(contains(o.out, "Traceback")) << o.out;
  EXPECT_FALSE(fs::exists(path("falling.png")));
}

// The shaded stuck intervals run between the logged stick and break-away
// instants, not between output samples: their total per element is the run's
// own time stuck (accumulated by the simulator between those events), to the
// 1e-9 s the listing prints.
TEST_F(PlotGearTrain, StuckIntervalsAreThoseOfTheEvents) {
  const std::string out = listing(h5_);
  const io::StoredRun stored = io::read_hdf5(h5_);
  const Result& r = stored.result;
  int frictions = 0;
  for (int e = 0; e < r.num_elements(); ++e) {
    if (r.element_kinds[e] != "friction") continue;
    ++frictions;
    // "stuck: <name> <n> intervals, <seconds> s"
    std::istringstream line(rest_of_line(out, "stuck: " + r.element_names[e] + " "));
    int intervals = -1;
    double seconds = NAN;
    std::string word;
    ASSERT_TRUE(line >> intervals >> word >> seconds) << r.element_names[e] << "\n" << out;
    EXPECT_EQ(word, "intervals,");
    EXPECT_NEAR(seconds, r.time_stuck[e], 1e-9) << r.element_names[e];
  }
  EXPECT_EQ(frictions, 4);
  EXPECT_GT(*std::max_element(r.time_stuck.begin(), r.time_stuck.end()), 0.01);  // something was stuck
}

// --xy: a spring's torque against x = q_a - ratio q_b from the stored angles
// and the ratio in the stored model text (the mesh: delta - 2 gamma), a
// friction element's against its relative velocity (a bearing: its body's).
TEST_F(PlotGearTrain, CharacteristicsAreAgainstTheRelativeQuantity) {
  const std::string out = listing(h5_, "--xy 'elements.mesh.torque,elements.bearing_phi.*' --units 'deg,N mm'");
  const Result r = io::read_hdf5(h5_).result;
  const int nb = r.num_bodies();
  const auto id = [&](const std::string& b) {
    return static_cast<int>(std::find(r.body_names.begin(), r.body_names.end(), b) - r.body_names.begin());
  };
  double xmin = INFINITY, xmax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
  for (int k = 0; k < r.num_samples(); ++k) {
    const double x = (r.angle[k * nb + id("delta")] - 2.0 * r.angle[k * nb + id("gamma")]) * 180.0 / M_PI;
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
    vmin = std::min(vmin, r.velocity[k * nb + id("phi")]);
    vmax = std::max(vmax, r.velocity[k * nb + id("phi")]);
  }
  // "xy: <signal> [unit] against <quantity> [unit], from <lowest> to <highest>"
  const auto range = [&](const std::string& prefix, double& lo, double& hi) {
    std::istringstream line(rest_of_line(out, prefix));
    std::string to;
    return static_cast<bool>(line >> lo >> to >> hi) && to == "to";
  };
  double lo = NAN, hi = NAN;
  ASSERT_TRUE(range("xy: elements.mesh.torque [N mm] against relative angle delta - 2 gamma [deg], from ", lo, hi))
      << out;
  EXPECT_NEAR(lo, xmin, 1e-8 * std::abs(xmin));
  EXPECT_NEAR(hi, xmax, 1e-8 * std::abs(xmax));
  EXPECT_GT(xmax, 0.5);  // the teeth cross the mesh's 0.01 rad = 0.57 deg play
  ASSERT_TRUE(range("xy: elements.bearing_phi.torque [N mm] against relative velocity phi [rad/s], from ", lo, hi))
      << out;
  EXPECT_NEAR(lo, vmin, 1e-8 * std::abs(vmin));
  EXPECT_NEAR(hi, vmax, 1e-8 * std::abs(vmax));
  // --against velocity: the spring's relative velocity instead
  EXPECT_TRUE(contains(listing(h5_, "--xy elements.mesh.torque --against velocity"),
                       "against relative velocity delta - 2 gamma [rad/s]"));
}

// Each format by the extension (PNG, SVG, PDF) and each kind of picture: a
// complete file of that format, exit 0, no temporary left.
TEST_F(PlotGearTrain, DrawsEachFormatWithEachOption) {
  const std::pair<const char*, const char*> formats[] = {{"png", "\x89PNG"}, {"svg", "<svg"}, {"pdf", "%PDF"}};
  const char* options[] = {"", "--signals 'bodies.phi.*,elements.*.torque,energy.*' --units deg,rpm,kJ,ms",
                           "--xy 'elements.*.torque' --units 'deg,N mm'"};
  int n = 0;
  for (const auto& [ext, magic] : formats) {
    for (const char* opt : options) {
      if (std::string(ext) != "png" && *opt) continue;  // the options once, each format once
      std::string name = std::to_string(n++);  // (not "p" + to_string: GCC 12's -Wrestrict false positive)
      name += std::string(".") + ext;
      const std::string out = path(name);
      const Outcome o = run("plot " + h5_ + " -o " + out + " " + opt);
      SCOPED_TRACE(out + " " + opt);
      ASSERT_EQ(o.code, 0) << o.out;
      const std::string bytes = contents(out);
      EXPECT_GT(bytes.size(), 5000u);
      EXPECT_TRUE(contains(bytes.substr(0, 400), magic));
      const std::string end = std::string(ext) == "pdf" ? "%%EOF" : std::string(ext) == "svg" ? "</svg>" : "IEND";
      EXPECT_TRUE(contains(bytes.substr(bytes.size() - std::min<std::size_t>(bytes.size(), 32)), end));
    }
  }
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, n + 1);  // the pictures and the run file, no temporaries
}

// Refused options: exit 2, the message on stderr, no picture and no temporary.
TEST_F(PlotBlock, RefusesBadOptionsBeforeDrawing) {
  const std::string out = path("x.png");
  const std::pair<std::string, std::string> cases[] = {
      {"-o " + path("x.abc"),
       "luztar plot: " + path("x.abc") + ": unknown picture format 'abc' (matplotlib writes: eps, jpeg, jpg, pdf, "},
      {"-o " + out + " --units furlong",
       "luztar plot: --units: unknown unit 'furlong' (known: rad, mrad, deg, rev, rad/s, deg/s, rpm, "},
      {"-o " + out + " --units deg,mrad", "luztar plot: --units: 'deg' and 'mrad' both display rad\n"},
      {"-o " + out + " --signals 'bodies.*.angle' --units rpm",
       "luztar plot: --units: 'rpm' displays rad/s, but no drawn signal is in rad/s (drawn units: rad)\n"},
      {"-o " + out + " --signals 'bodies.*.speed'",
       "luztar plot: --signals: 'bodies.*.speed' matches no stored signal (the file has: bodies.block.angle, "
       "bodies.block.velocity, bodies.block.acceleration, elements.bearing.torque, elements.bearing.state, "
       "elements.bearing.relative_angle, elements.bearing.relative_velocity, elements.bearing.power, "
       "elements.bearing.dissipated, elements.drive.torque, elements.drive.state, elements.drive.relative_angle, "
       "elements.drive.relative_velocity, elements.drive.power, elements.drive.dissipated, energy.input_work, "
       "energy.kinetic, energy.elastic, energy.dissipated, energy.residual)\n"},
      {"-o " + out + " --xy elements.drive.torque",
       "luztar plot: --xy: elements.drive.torque: a torque element has no relative angle or velocity "
       "(characteristics are drawn for springs, friction elements and one-way clutches)\n"},
      {"-o " + out + " --xy elements.bearing.torque --signals 'bodies.*'",
       "luztar plot: --xy and --signals draw different pictures: give one\n"},
      {"-o " + out + " --metric dissipated", "luztar plot: --metric does not apply to a run file ("},
      {"--signals 'bodies.*'", "luztar plot: -o is required (unless --list)\n"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args);
    const Outcome o = run("plot " + h5_ + " " + args);
    EXPECT_EQ(o.code, 2);
    EXPECT_TRUE(contains(o.out, message)) << o.out;
    EXPECT_FALSE(contains(o.out, "Traceback")) << o.out;
  }
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);  // only the run file
}

// A file that is not HDF5 (here a model) is bad input, refused as `info` refuses
// it (exit 1, the same message), before the plot script runs: no traceback,
// no picture.
TEST_F(Plot, RefusesAFileThatIsNotHdf5) {
  const Outcome o = run("plot " + model("block") + " -o " + path("x.png"));
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_EQ(o.out, "luztar: " + model("block") + ": not a readable HDF5 file\n");
  EXPECT_EQ(run("info " + model("block")).out, o.out);
  EXPECT_FALSE(fs::exists(path("x.png")));
}

// A sweep whose runs with max_events 3 stop at the event limit: the map
// counts them as failed (grey hatched cells), not as missing values.
TEST_F(Plot, SweepMapShowsFailedRuns) {
  const std::string h5 = path("sweep.h5"), png = path("map.png");
  ASSERT_EQ(run("sweep -q " + model("block") +
                " --set simulation.max_events=3,1000 --set elements.bearing.coulomb=0.5,1,1.5 -j 1 -o " + h5)
                .code,
            3);
  EXPECT_EQ(listing(h5),
            "map: dissipated [J] over simulation.max_events and elements.bearing.coulomb [N m] (grid 2 x 3)\n"
            "runs: 6 (3 ok, 3 failed: 3 event_limit, 0 pending)\n"
            "failed cells: 3\n");
  const Outcome p = run("plot " + h5 + " -o " + png);
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_EQ(contents(png).substr(1, 3), "PNG");
  EXPECT_EQ(run("plot " + h5 + " -o " + png + " --signals 'bodies.*'").code, 2);
}

}  // namespace
}  // namespace luztar
