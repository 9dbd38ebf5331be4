// core/units.hpp (dimensions of model fields, units to SI, units of stored
// signals) and core/number_text.hpp (shortest round-trip numbers).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numbers>
#include <random>

#include "core/model_spec.hpp"
#include "core/number_text.hpp"
#include "core/units.hpp"
#include "core/model.hpp"
#include "io/yaml_model.hpp"

namespace luztar {
namespace {

double si(const std::string& text, Dimension d) {
  double v = -1.0;
  std::string error;
  EXPECT_TRUE(to_si(text, d, v, error)) << text;
  EXPECT_EQ(error, "") << text;
  return v;
}

std::string problem(const std::string& text, Dimension d) {
  double v = 0.0;
  std::string error;
  EXPECT_TRUE(to_si(text, d, v, error)) << text;
  return error;
}

// Conversion factors by their definitions: 1 deg = pi/180 rad, 1 rpm = 2 pi/60
// rad/s, 1 kg cm^2 = 1e-4 kg m^2; relative 1e-15 (one rounding of the product).
TEST(Units, ValuesWithUnitsAreConvertedToSI) {
  const double pi = std::numbers::pi;
  EXPECT_NEAR(si("10 deg", Dimension::angle), 10 * pi / 180, 1e-15 * 10 * pi / 180);
  EXPECT_NEAR(si("1500 rpm", Dimension::angular_velocity), 1500 * 2 * pi / 60, 1e-15 * 157.1);
  EXPECT_NEAR(si("1.2e4 N m/rad", Dimension::stiffness), 1.2e4, 0.0);
  EXPECT_NEAR(si("1.2e4 Nm/deg", Dimension::stiffness), 1.2e4 * 180 / pi, 1e-15 * 6.9e5);
  EXPECT_NEAR(si("0.02 kg m^2", Dimension::inertia), 0.02, 0.0);
  EXPECT_NEAR(si("200 kg cm^2", Dimension::inertia), 0.02, 1e-15 * 0.02);
  EXPECT_NEAR(si("5 ms", Dimension::time), 5e-3, 1e-15 * 5e-3);
  EXPECT_NEAR(si("50 Hz", Dimension::frequency), 50, 0.0);
  EXPECT_NEAR(si("3 N mm", Dimension::torque), 3e-3, 1e-15 * 3e-3);
  EXPECT_NEAR(si("85 mm", Dimension::length), 0.085, 1e-15 * 0.085);
  EXPECT_NEAR(si("4 kN", Dimension::force), 4000.0, 0.0);
  // spacing and '*' do not matter; a plain number is SI already
  EXPECT_EQ(si("2 N*m / rad", Dimension::stiffness), 2.0);
  EXPECT_EQ(si("0.5deg", Dimension::angle), si("0.5 deg", Dimension::angle));
  EXPECT_EQ(si("7", Dimension::torque), 7.0);
}

TEST(Units, UnknownOrMismatchedUnitsAreNamedWithTheExpectedDimension) {
  EXPECT_EQ(problem("3 deg", Dimension::stiffness),
            "'deg' is a unit of angle, not of torsional stiffness (torsional stiffness units: N m/rad, Nm/rad, N m/deg, "
            "Nm/deg, kN m/rad)");
  EXPECT_EQ(problem("1 furlong", Dimension::angle), "unknown unit 'furlong' (angle units: rad, mrad, deg, rev)");
  EXPECT_EQ(problem("2 N m", Dimension::plain),
            "a unit ('N m') is not taken here: the unit of this value depends on where it is used; give a plain "
            "number in SI units");
  double v = 0.0;
  std::string error;
  EXPECT_FALSE(to_si("drive", Dimension::torque, v, error));  // a name, not a quantity
}

TEST(Units, EveryNumericFieldHasItsDimension) {
  EXPECT_EQ(field_dimension("bodies.disk.inertia"), Dimension::inertia);
  EXPECT_EQ(field_dimension("bodies.disk.angle"), Dimension::angle);
  EXPECT_EQ(field_dimension("bodies.disk.velocity"), Dimension::angular_velocity);
  EXPECT_EQ(field_dimension("elements.mesh.stiffness"), Dimension::stiffness);
  EXPECT_EQ(field_dimension("elements.mesh.freeplay"), Dimension::angle);
  EXPECT_EQ(field_dimension("elements.mesh.damping"), Dimension::damping);
  EXPECT_EQ(field_dimension("elements.mesh.ratio"), Dimension::dimensionless);
  EXPECT_EQ(field_dimension("elements.bearing.viscous"), Dimension::damping);
  EXPECT_EQ(field_dimension("elements.bearing.coulomb"), Dimension::torque);
  EXPECT_EQ(field_dimension("elements.motor.torque"), Dimension::torque);
  EXPECT_EQ(field_dimension("elements.motor.torque.sine.amplitude"), Dimension::torque);
  EXPECT_EQ(field_dimension("elements.motor.torque.sine.frequency"), Dimension::frequency);
  EXPECT_EQ(field_dimension("elements.motor.torque.sine.phase"), Dimension::angle);
  EXPECT_EQ(field_dimension("elements.motor.torque.amplitude"), Dimension::torque);  // sweep path, kind left out
  EXPECT_EQ(field_dimension("elements.motor.torque.sum[1].step.time"), Dimension::time);
  EXPECT_EQ(field_dimension("elements.motor.torque.sum[1].step.final"), Dimension::torque);
  EXPECT_EQ(field_dimension("elements.motor.torque.table.points[2]"), Dimension::torque);
  EXPECT_EQ(field_dimension("elements.motor.torque.product[0]"), Dimension::plain);
  EXPECT_EQ(field_dimension("elements.motor.torque.hold.of.sine.amplitude"), Dimension::torque);
  EXPECT_EQ(field_dimension("elements.motor.torque.hold.period"), Dimension::time);
  EXPECT_EQ(field_dimension("elements.motor.torque.relay.threshold"), Dimension::plain);
  EXPECT_EQ(field_dimension("elements.motor.torque.relay.initial"), Dimension::dimensionless);
  EXPECT_EQ(field_dimension("elements.motor.torque.relay.value"), Dimension::torque);
  EXPECT_EQ(field_dimension("signals.drive.sine.amplitude"), Dimension::plain);
  EXPECT_EQ(field_dimension("signals.drive.sine.frequency"), Dimension::frequency);
  EXPECT_EQ(field_dimension("simulation.t_end"), Dimension::time);
  EXPECT_EQ(field_dimension("simulation.event_storm.span"), Dimension::time);
  EXPECT_EQ(field_dimension("simulation.rtol"), Dimension::dimensionless);
  EXPECT_EQ(field_dimension("simulation.rest_velocity"), Dimension::angular_velocity);
}

// field_dimension reads an element's path without its type, by the kinds'
// field tables (core/model_spec.hpp): a key must mean one quantity in every
// kind that has it, and every number and signal field must take its units.
TEST(Units, ElementFieldKeysMeanOneQuantityInEveryKind) {
  std::string types = element_types() + ", ";
  EXPECT_EQ(types, "spring, friction, torque, one_way_clutch, force, rack_pinion, link, planetary, lossy_gear, ");
  int fields = 0;
  for (std::size_t start = 0, comma; (comma = types.find(", ", start)) != std::string::npos; start = comma + 2) {
    ElementSpec kind;
    ASSERT_TRUE(element_spec_of_type(types.substr(start, comma - start), kind));
    std::visit([&](const auto& s) {
      for (const auto& f : spec_fields(s)) {
        ++fields;
        FieldType type;
        Dimension dim;
        ASSERT_TRUE(element_field(f.key, type, dim)) << f.key;
        EXPECT_EQ(type, f.type) << f.key;
        EXPECT_EQ(dim, f.dimension) << f.key;
        if (f.type == FieldType::number || f.type == FieldType::signal || f.type == FieldType::bounds) {
          EXPECT_EQ(field_dimension(std::string("elements.e.") + f.key), f.dimension) << f.key;
        }
        if (f.type == FieldType::bounds) {  // {lower, upper}: each in the field's units
          EXPECT_EQ(field_dimension(std::string("elements.e.") + f.key + ".lower"), f.dimension) << f.key;
          EXPECT_EQ(field_dimension(std::string("elements.e.") + f.key + ".upper"), f.dimension) << f.key;
        }
      }
    }, kind);
  }
  EXPECT_EQ(fields, 54);  // 10 of a spring, 8 of a friction element, 2 of a torque, 5 of a one-way clutch, 2 of a
                          // force, 11 of a rack and pinion, 2 of a link, 9 of a planetary set, 5 of a lossy gear
  EXPECT_EQ(field_dimension("elements.clutch.radius"), Dimension::length);
  EXPECT_EQ(field_dimension("elements.clutch.normal_force.ramp.final"), Dimension::force);
  EXPECT_EQ(field_dimension("elements.clutch.normal_force.ramp.end"), Dimension::time);
}

// Translational bodies (issue 19 item 8): their fields and the fields of the
// elements on them take the translational twin of each rotational dimension;
// the stored units follow (translational_unit).
TEST(Units, TranslationalDimensionsAndUnits) {
  auto si = [](const char* text, Dimension d) {
    double v = 0.0;
    std::string error;
    EXPECT_TRUE(to_si(text, d, v, error)) << text;
    EXPECT_EQ(error, "") << text;
    return v;
  };
  EXPECT_EQ(si("8 N/mm", Dimension::linear_stiffness), 8000.0);
  EXPECT_EQ(si("2 kN/mm", Dimension::linear_stiffness), 2.0e6);
  EXPECT_EQ(si("6 N s/mm", Dimension::linear_damping), 6000.0);
  EXPECT_EQ(si("3000 g", Dimension::mass), 3.0);
  EXPECT_EQ(si("1.2 t", Dimension::mass), 1200.0);
  EXPECT_NEAR(si("36 km/h", Dimension::velocity), 10.0, 1e-15 * 10.0);
  EXPECT_EQ(si("250 mm/s", Dimension::velocity), 0.25);
  EXPECT_EQ(si("7.5 mm", Dimension::length), 7.5e-3);
  EXPECT_EQ(translational(Dimension::stiffness), Dimension::linear_stiffness);
  EXPECT_EQ(translational(Dimension::damping), Dimension::linear_damping);
  EXPECT_EQ(translational(Dimension::angle), Dimension::length);
  EXPECT_EQ(translational(Dimension::angular_velocity), Dimension::velocity);
  EXPECT_EQ(translational(Dimension::torque), Dimension::force);
  EXPECT_EQ(translational(Dimension::time), Dimension::time);
  EXPECT_EQ(field_dimension("bodies.rack.mass"), Dimension::mass);
  EXPECT_EQ(field_dimension("bodies.rack.position"), Dimension::length);
  EXPECT_STREQ(translational_unit(unit::angle), "m");
  EXPECT_STREQ(translational_unit(unit::velocity), "m/s");
  EXPECT_STREQ(translational_unit(unit::acceleration), "m/s^2");
  EXPECT_STREQ(translational_unit(unit::torque), "N");
  EXPECT_STREQ(translational_unit(unit::power), "W");
  double v = 0.0;
  std::string error;
  EXPECT_TRUE(to_si("60 N m/rad", Dimension::linear_stiffness, v, error));
  EXPECT_NE(error.find("linear stiffness units: N/m, N/mm, kN/m, kN/mm"), std::string::npos) << error;
}

TEST(Units, StoredSignalsHaveOneUnitEach) {
  EXPECT_STREQ(signal_unit("time"), "s");
  EXPECT_STREQ(signal_unit("bodies.disk.angle"), "rad");
  EXPECT_STREQ(signal_unit("bodies.disk.velocity"), "rad/s");
  EXPECT_STREQ(signal_unit("elements.mesh.torque"), "N m");
  EXPECT_STREQ(signal_unit("elements.mesh.state"), "1");
  EXPECT_STREQ(signal_unit("energy.dissipated"), "J");
}

// A sampled block's output is a torque where it reaches an applied torque or
// a friction limit through sums and unit-keeping blocks, named or inline;
// inside a product, or as the input of a relay or an integrator, its unit is
// the model's secret.
TEST(Units, BlocksThatDriveATorqueHoldATorque) {
  const std::string text =
      "simulation: {t_end: 1, output_step: 0.1}\n"
      "signals:\n"
      "  direct: {hold: {of: 1.0, period: 0.1}}\n"
      "  relayed: {relay: {of: {angle: a}, threshold: 0.1, value: 2, period: 0.1}}\n"
      "  scaled: {hold: {of: {velocity: a}, period: 0.1}}\n"
      "  inner: {play: {of: {angle: a}, width: 0.1, period: 0.1}}\n"
      "  outer: {relay: {of: inner, threshold: 0.1, value: 1, period: 0.1}}\n"
      "  limit: {hold: {of: 0.5, period: 0.1}}\n"
      "bodies:\n  a: {inertia: 1}\n"
      "elements:\n"
      "  m1: {type: torque, body: a, torque: direct}\n"
      "  m2: {type: torque, body: a, torque: {sum: [relayed, {product: [2.0, scaled]}]}}\n"
      "  m3: {type: torque, body: a, torque: {saturation: {of: outer, lower: -1, upper: 1}}}\n"
      "  m4: {type: torque, body: a, torque: {hold: {of: 0.1, period: 0.2}}}\n"
      "  f: {type: friction, body: a, coulomb: {dead_zone: {of: limit, lower: -0.1, upper: 0.1}}}\n";
  const Model m = io::parse_model(text, "blocks.yaml", ".");
  std::map<std::string, std::string> units;
  const std::vector<std::string> found = block_units(m);
  ASSERT_EQ(found.size(), m.sampled_names.size());
  for (std::size_t k = 0; k < found.size(); ++k) units[m.sampled_names[k]] = found[k];
  const std::map<std::string, std::string> expected = {
      {"direct", "N m"}, {"relayed", "N m"}, {"scaled", "unit of the signal"}, {"inner", "unit of the signal"},
      {"outer", "N m"}, {"limit", "N m"}, {"elements.m4.torque", "N m"}};
  EXPECT_EQ(units, expected);
}

// A model written with units reads as the same model written in SI.
TEST(Units, AModelWithUnitsEqualsItsSIForm) {
  const std::string with_units =
      "simulation: {t_end: 50 ms, output_step: 1 ms}\n"
      "bodies:\n  a: {inertia: 200 kg cm^2, velocity: 60 rpm, angle: 180 deg}\n"
      "elements:\n"
      "  s: {type: spring, body: a, stiffness: 1.2e4 N m/rad, freeplay: 0.5 mrad, damping: 0.1 N m s/rad}\n"
      "  m: {type: torque, body: a, torque: {sine: {amplitude: 2 N m, frequency: 50 Hz, phase: 90 deg}}}\n"
      "  f: {type: friction, body: a, coulomb: 300 N mm}\n";
  const ModelSpec s = io::parse_model_spec(with_units, "units.yaml", ".");
  EXPECT_EQ(s.simulation.t_end, 50 * 1e-3);
  EXPECT_EQ(s.bodies[0].inertia, 200 * 1e-4);
  EXPECT_EQ(s.bodies[0].velocity, 60 * (2 * std::numbers::pi / 60));
  EXPECT_EQ(s.bodies[0].angle, 180 * (std::numbers::pi / 180));
  const auto& spring = std::get<SpringSpec>(s.elements[0]);
  EXPECT_EQ(spring.freeplay, 0.5 * 1e-3);
  EXPECT_EQ(spring.stiffness, 1.2e4);
  const auto& motor = std::get<TorqueSpec>(s.elements[1]);
  EXPECT_EQ(motor.torque.phase, 90 * (std::numbers::pi / 180));
  EXPECT_EQ(motor.torque.frequency, 50.0);
  EXPECT_EQ(std::get<FrictionSpec>(s.elements[2]).coulomb.value, 300 * 1e-3);
}

// shortest(v) reads back to v exactly, and is never longer than needed.
TEST(NumberText, ShortestRoundTripsExactly) {
  EXPECT_EQ(shortest(1e-11), "1e-11");
  EXPECT_EQ(shortest(1e-4), "1e-4");
  EXPECT_EQ(shortest(0.001), "0.001");
  EXPECT_EQ(shortest(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(shortest(1e300), "1e+300");
  EXPECT_EQ(shortest(-2.5e-7), "-2.5e-7");
  EXPECT_EQ(shortest(5e-324), "5e-324");
  std::mt19937_64 g(18);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t bits = g();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    EXPECT_EQ(std::strtod(shortest(v).c_str(), nullptr), v) << shortest(v);
  }
}

}  // namespace
}  // namespace luztar
