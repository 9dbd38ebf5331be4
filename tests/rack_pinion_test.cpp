// Rack and pinion (issue 19 item 8, core/model_spec.hpp RackPinionSpec): the
// coordinate x = s_rack - r q_pinion [m], force F on it, -F on the rack and
// +r F on the pinion. Against closed forms with both integrators of the
// event-driven solver and with Moreau-Jean time stepping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <variant>

#include "core/energy.hpp"
#include "core/errors.hpp"
#include "core/reduce.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "solvers/simulator.hpp"
#include "tests/yaml_runs.hpp"

namespace luztar {
namespace {

using test::run_yaml;
using test::Way;

const Way kWays[] = {{"exact", "integrator: exact"},
                     {"cvode_bdf", "integrator: cvode_bdf"},
                     {"time_stepping", "solver: time_stepping, step: 1.0e-6"}};

int body_of(const Result& r, const std::string& name) {
  return static_cast<int>(std::find(r.body_names.begin(), r.body_names.end(), name) - r.body_names.begin());
}

// Rigid, from rest: pinion I = 2.3e-4 kg m^2 driven by 1 N m, rack m = 3 kg,
// r = 7.5 mm. The rack moves with s = r q, so the pinion sees the reduced
// inertia I + m r^2 = 2.3e-4 + 3 x 5.625e-5 = 3.9875e-4 kg m^2: it accelerates
// at 1 / 3.9875e-4 = 2507.837 rad/s^2 and the rack at r times that,
// 18.80878 m/s^2 (the mesh force m a = 56.42633 N). From rest q = alpha t^2 / 2.
const char* const kRigid =
    "bodies:\n"
    "  pinion: {inertia: 2.3e-4}\n"
    "  rack: {kind: translational, mass: 3 kg}\n"
    "elements:\n"
    "  mesh: {type: rack_pinion, rack: rack, pinion: pinion, radius: 7.5 mm}\n"
    "  drive: {type: torque, body: pinion, torque: 1 N m}\n";

TEST(RackPinion, RigidFromRestMovesTheRackInMetresWithTheReducedInertia) {
  const double alpha = 1.0 / (2.3e-4 + 3.0 * 7.5e-3 * 7.5e-3);
  EXPECT_NEAR(alpha, 2507.837, 1e-3);
  for (const Way& how : kWays) {
    const Result r = run_yaml(kRigid, how, 1.0, 1e-2);
    const int nb = r.num_bodies(), p = body_of(r, "pinion"), s = body_of(r, "rack");
    ASSERT_LT(p, nb);
    ASSERT_LT(s, nb);
    EXPECT_EQ(r.body_translational[s], 1);
    EXPECT_EQ(r.body_translational[p], 0);
    double worst_ratio = 0.0, worst_closed = 0.0;
    for (int k = 0; k < r.num_samples(); ++k) {
      const double t = r.time[k], q = r.angle[k * nb + p], x = r.angle[k * nb + s];
      // the rack's position is r q to roundoff: one is reported as the other times a factor
      worst_ratio = std::max(worst_ratio, std::abs(x - 7.5e-3 * q) / std::max(1e-300, std::abs(x)));
      worst_closed = std::max(worst_closed, std::abs(q - 0.5 * alpha * t * t) / std::max(1.0, 0.5 * alpha * t * t));
      if (k > 0) {
        EXPECT_NEAR(r.acceleration[k * nb + p], alpha, 1e-9 * alpha) << how.name;
        EXPECT_NEAR(r.acceleration[k * nb + s], 7.5e-3 * alpha, 1e-9 * 7.5e-3 * alpha) << how.name;
      }
    }
    EXPECT_LT(worst_ratio, 4e-16) << how.name;
    // exact: closed form; cvode_bdf: a quadratic is integrated exactly by BDF
    // of order >= 2 up to its error control (rtol 1e-8); time stepping: theta
    // 0.5 is exact on a constant acceleration (the trapezoid rule) but sums
    // 1e6 steps of h = 1e-6 s: roundoff up to 1e6 eps = 2.2e-10
    const double closed_tol = std::string(how.name) == "cvode_bdf" ? 1e-8
                              : std::string(how.name) == "exact" ? 1e-12 : 1e6 * 2.2e-16;
    EXPECT_LT(worst_closed, closed_tol) << how.name;
    EXPECT_NEAR(r.acceleration[(r.num_samples() - 1) * nb + s], 18.80878, 1e-5) << how.name;
  }
}

// Compliant mesh, undamped: the rack (m = 3 kg) struck at v0 = 0.1 m/s with
// the pinion (I = 2.3e-4 kg m^2, r = 7.5 mm) at rest, stiffness k = 1e6 N/m.
// The mesh coordinate x = s - r q obeys x'' = s'' - r q'' = -F/m - r (r F)/I
// = -k (1/m + r^2/I) x: it rings at w^2 = k (1/m + r^2/I) = 577898.55 rad^2/s^2
// (w = 760.196 rad/s), x = (v0 / w) sin(w t); the force F = k x is in N.
TEST(RackPinion, CompliantMeshRingsAtItsClosedFormFrequency) {
  const char* const ringing =
      "bodies:\n"
      "  pinion: {inertia: 2.3e-4}\n"
      "  rack: {kind: translational, mass: 3 kg, velocity: 0.1 m/s}\n"
      "elements:\n"
      "  mesh: {type: rack_pinion, rack: rack, pinion: pinion, radius: 7.5 mm, stiffness: 1000 N/mm}\n";
  const double w = std::sqrt(1e6 * (1.0 / 3.0 + 7.5e-3 * 7.5e-3 / 2.3e-4)), amplitude = 0.1 / w;
  for (const Way& how : kWays) {
    // x is in metres here, amplitude 1.3e-4 m: cvode_bdf's atol (default 1e-10,
    // 7.6e-7 of it) is set 1e4 below it, so that rtol 1e-8 governs
    const Result r = run_yaml(ringing, how, 0.05, 1e-4, "atol: 1.0e-14, ");
    ASSERT_EQ(r.num_elements(), 1);
    EXPECT_EQ(r.element_kinds[0], "rack_pinion");
    EXPECT_STREQ(r.element_unit(0, unit::torque), "N");
    EXPECT_STREQ(r.element_unit(0, unit::angle), "m");
    // exact: to roundoff of the amplitude; cvode_bdf: its local errors of rtol
    // 1e-8 add up over the steps of 6 periods (at most ~1000: 1e-5);
    // time stepping (h = 1e-6 s, theta 0.5): the trapezoid rule's phase error
    // (w h)^2 / 12 = 4.8e-8 of w t <= 38 rad: 1.9e-6 of the amplitude
    const double tol = std::string(how.name) == "exact" ? 1e-12 : std::string(how.name) == "cvode_bdf" ? 1e-5 : 5e-6;
    double worst = 0.0;
    for (int k = 0; k < r.num_samples(); ++k)
      worst = std::max(worst, std::abs(r.element_relative[k] - amplitude * std::sin(w * r.time[k])));
    EXPECT_LT(worst / amplitude, tol) << how.name;
    const double peak = *std::max_element(r.element_torque.begin(), r.element_torque.end());
    EXPECT_NEAR(peak, 1e6 * amplitude, 1e-3 * 1e6 * amplitude) << how.name;  // a sample within 0.1 ms of the crest
  }
}

// With lash (0.1 mm each way), mesh damping and a force on the rack: input =
// kinetic + elastic + dissipated closes (the summary's residual).
TEST(RackPinion, EnergyBalanceClosesWithLashDampingAndAForce) {
  const char* const lash =
      "bodies:\n"
      "  pinion: {inertia: 2.3e-4}\n"
      "  rack: {kind: translational, mass: 3 kg}\n"
      "elements:\n"
      "  mesh: {type: rack_pinion, rack: rack, pinion: pinion, radius: 7.5 mm, stiffness: 1.0e6 N/m,\n"
      "         freeplay: 0.1 mm, damping: 200 N s/m}\n"
      "  centring: {type: spring, body: pinion, stiffness: 5, damping: 0.01}\n"
      "  push: {type: force, body: rack, force: {sine: {amplitude: 40 N, frequency: 20 Hz}}}\n";
  for (const Way& how : kWays) {
    const Result r = run_yaml(lash, how, 0.3, 1e-4);
    const EnergyBalance e = energy_balance(r, r.num_samples() - 1);
    EXPECT_LT(e.relative, std::string(how.name) == "exact" ? 1e-10 : 1e-5) << how.name;
    EXPECT_GT(e.dissipated, 0.0) << how.name;
    std::size_t contacts = 0;
    for (const EventRecord& ev : r.events) contacts += ev.kind == EventKind::contact;
    if (std::string(how.name) != "time_stepping") {
      EXPECT_GT(contacts, 4u) << how.name;  // the lash is crossed
    }
  }
}

}  // namespace
// The reduction of models/rack_and_pinion.yaml (the rigid mesh merges the
// pinion into the rack, its drive torque becomes a force of torque / r on the
// rack, the compliant tie rods stay a rack_pinion) is written as a model that
// reads back (a spring across kinds and a torque on the rack were refused)
// and runs as the original: the same events, the road wheels' angle to 1e-12.
TEST(RackPinion, AReducedModelReadsBackAndRunsAsTheOriginal) {
  const std::string path = std::string(LUZTAR_MODELS_DIR) + "/rack_and_pinion.yaml";
  const ModelSpec spec = io::read_model_spec(path);
  const std::string text = io::to_yaml(validate_and_reduce(spec).spec);
  const Result reduced = simulate(io::parse_model(text, "reduced.yaml", ""));
  const Result full = simulate(io::load_model(path));
  ASSERT_EQ(reduced.status, StepStatus::reached_time) << reduced.message;
  ASSERT_EQ(full.events.size(), reduced.events.size());
  for (std::size_t k = 0; k < full.events.size(); ++k) EXPECT_NEAR(full.events[k].t, reduced.events[k].t, 1e-12);
  const auto wheels = [](const Result& r) {
    const auto at = std::find(r.body_names.begin(), r.body_names.end(), "road_wheels") - r.body_names.begin();
    return r.angle[static_cast<std::size_t>(r.num_samples() - 1) * r.body_names.size() + static_cast<std::size_t>(at)];
  };
  EXPECT_NEAR(wheels(reduced), wheels(full), 1e-12);
}

// A shaft joined by a spring with `law` to a pinion that a rigid mesh merges
// into a 2 kg rack held by a spring, the shaft driven by a sine.
std::string merged_pinion_model(const std::string& law) {
  return "simulation: {t_end: 0.5, output_step: 0.001}\n"
         "bodies:\n"
         "  shaft: {inertia: 1.0e-3}\n"
         "  pinion: {inertia: 2.0e-4}\n"
         "  rack: {kind: translational, mass: 2 kg}\n"
         "elements:\n"
         "  joint: {type: spring, bodies: [shaft, pinion], " +
         law +
         "}\n"
         "  mesh: {type: rack_pinion, rack: rack, pinion: pinion, radius: 8 mm}\n"
         "  stop: {type: spring, body: rack, stiffness: 2.0e4 N/m}\n"
         "  drive: {type: torque, body: shaft, torque: {sine: {amplitude: 2.0, frequency: 4.0}}}\n";
}

// The written reduction `back` runs as the original `text`: the same events
// (times to 1e-10 s) and the shaft's angle within 1e-10 rad (the coordinates
// differ by a factor, which rounds differently).
void expect_runs_as_original(const std::string& text, const ModelSpec& back) {
  const Result full = simulate(io::parse_model(text, "t.yaml", "")), reduced = simulate(assemble(back));
  ASSERT_EQ(full.status, StepStatus::reached_time) << full.message;
  ASSERT_EQ(reduced.status, StepStatus::reached_time) << reduced.message;
  ASSERT_EQ(full.events.size(), reduced.events.size());
  for (std::size_t k = 0; k < full.events.size(); ++k) {
    EXPECT_EQ(full.events[k].kind, reduced.events[k].kind) << k;
    EXPECT_NEAR(full.events[k].t, reduced.events[k].t, 1e-10) << k;
  }
  const auto shaft = [](const Result& r, int k) {
    return r.angle[static_cast<std::size_t>(k) * r.body_names.size() + static_cast<std::size_t>(body_of(r, "shaft"))];
  };
  double worst = 0.0;
  for (int k = 0; k < full.num_samples(); ++k) worst = std::max(worst, std::abs(shaft(full, k) - shaft(reduced, k)));
  EXPECT_LT(worst, 1e-10);
}

// A shaft (rotational) joined to a pinion that the rigid mesh merges into the
// heavier rack: the reduction leaves the shaft's spring x = q_shaft - p s with
// p = 1 / r = 125 /m, which the writer writes as the rack_pinion it is, its
// bodies swapped: x' = s - r q_shaft = -x / p, so stiffness and damping p^2
// times (500 N m/rad -> 7.8125e6 N/m, 0.05 -> 781.25 N s/m) and the
// asymmetric gap [-0.01, 0.02] rad mirrored and 1 / p times: [-0.16, 0.08] mm.
// The file reads back and runs as the original (the same events, the shaft's
// angle within 1e-10 rad: the coordinates differ by the factor -p, which
// rounds differently).
TEST(RackPinion, ASpringFromAShaftToTheMergedPinionIsWrittenSwapped) {
  const std::string text =
      merged_pinion_model("stiffness: 500, damping: 0.05, freeplay: {lower: -0.01, upper: 0.02}");
  const std::string written = io::to_yaml(validate_and_reduce(io::parse_model_spec(text, "t.yaml", "")).spec);
  const ModelSpec back = io::parse_model_spec(written, "reduced.yaml", "");
  const auto* g = std::get_if<RackPinionSpec>(&back.elements.at(0));
  ASSERT_NE(g, nullptr) << written;
  EXPECT_EQ(g->rack, "rack");
  EXPECT_EQ(g->pinion, "shaft");
  EXPECT_NEAR(g->radius, 8e-3, 1e-18);
  EXPECT_NEAR(g->stiffness, 500.0 * 125.0 * 125.0, 1e-6);
  EXPECT_NEAR(g->damping, 0.05 * 125.0 * 125.0, 1e-10);
  ASSERT_TRUE(g->freeplay_bounds);
  EXPECT_NEAR(g->freeplay_lower, -0.16e-3, 1e-18);
  EXPECT_NEAR(g->freeplay_upper, 0.08e-3, 1e-18);
  EXPECT_GT(simulate(io::parse_model(text, "t.yaml", "")).events.size(), 4u);  // the gap is crossed
  expect_runs_as_original(text, back);
}


// A compliant mesh with a preload P (its force at x = 0), the same as an
// offset x0 = -P / k, and as a linear stiffness table with that offset: from
// rest at x = 0 the relative travel x = s - r q rings about -P / k,
// x = -P / k (1 - cos w t), w^2 = k (1 / m + r^2 / J), and momentum m s +
// (J / r) q = 0 gives s = x / (1 + m r^2 / J). Rack 2 kg, pinion 1e-4 kg
// m^2, r 8 mm, k 2e5 N/m, P 30 N; in metres, newtons, to 1e-12 of the travel.
TEST(RackPinion, PreloadOffsetAndTableAreTheSpringsLaw) {
  const double m = 2.0, J = 1e-4, r = 8e-3, k = 2e5, P = 30.0;
  const double w = std::sqrt(k * (1.0 / m + r * r / J)), amplitude = 2.0 * P / k;
  const char* const laws[] = {"stiffness: 2.0e5 N/m, preload: 30 N", "stiffness: 2.0e5 N/m, offset: -0.15 mm",
                              "stiffness_table: {points: [[-1 mm, -200 N], [1 mm, 200 N]]}, offset: -0.15 mm"};
  for (const char* law : laws)
    for (const Way& how : kWays) {
      const Result res = run_yaml(std::string("bodies:\n  pinion: {inertia: 1.0e-4}\n  rack: {kind: translational, mass: 2 kg}\n"
                                              "elements:\n  mesh: {type: rack_pinion, rack: rack, pinion: pinion, radius: 8 mm, ") +
                                      law + "}\n",
                                  how, 0.01, 1e-4, "atol: 1.0e-14, ");
      ASSERT_EQ(res.status, StepStatus::reached_time) << law << " " << how.name << ": " << res.message;
      const int nb = res.num_bodies(), p = body_of(res, "pinion"), s = body_of(res, "rack");
      // exact: roundoff; cvode_bdf: rtol 1e-8 over 0.8 periods (atol set below
      // the travel); time stepping (h 1e-6 s): the trapezoid rule's phase error
      // (w h)^2 / 12 = 1.9e-8 of w t <= 4.8 rad
      const double tol =
          (std::string(how.name) == "exact" ? 1e-12 : std::string(how.name) == "cvode_bdf" ? 1e-6 : 1e-6) * amplitude;
      for (int i = 0; i < res.num_samples(); ++i) {
        const double t = res.time[i], x = -P / k * (1.0 - std::cos(w * t));
        EXPECT_NEAR(res.angle[i * nb + s] - r * res.angle[i * nb + p], x, tol) << law << " " << how.name << " t " << t;
        EXPECT_NEAR(res.angle[i * nb + s], x / (1.0 + m * r * r / J), tol) << law << " " << how.name << " t " << t;
      }
    }
}

// The round trip of a spring from a shaft to a pinion merged into the rack
// whose law has an offset, a preload or a table (luztar reduce wrote it as a
// spring across kinds, which the reader refused: exit 0, an unreadable file).
// Swapped, T'(x') = -p T(-p x'): offset -x0 / p, preload -p P, a table's
// points (-x_k / p, -p T_k) in reverse; written as a rack_pinion with them,
// it reads back and runs as the original (events and the shaft's angle).
TEST(RackPinion, AShaftSpringWithOffsetPreloadOrTableIsWrittenSwapped) {
  const char* const laws[] = {
      "stiffness_table: {points: [[-0.02, -8], [-0.01, 0], [0.02, 0], [0.03, 12]]}, offset: 0.005, damping: 0.05",
      "stiffness: 500, preload: 0.4, damping: 0.05"};
  for (const char* law : laws) {
    const std::string text = merged_pinion_model(law);
    const std::string written = io::to_yaml(validate_and_reduce(io::parse_model_spec(text, "t.yaml", "")).spec);
    const ModelSpec back = io::parse_model_spec(written, "reduced.yaml", "");
    const auto* g = std::get_if<RackPinionSpec>(&back.elements.at(0));
    ASSERT_NE(g, nullptr) << written;
    EXPECT_EQ(g->pinion, "shaft");
    if (g->stiffness_table.empty()) {
      EXPECT_NEAR(g->preload, -125.0 * 0.4, 1e-12) << written;
      EXPECT_NEAR(g->stiffness, 500.0 * 125.0 * 125.0, 1e-6);
    } else {
      EXPECT_NEAR(g->offset, -0.005 / 125.0, 1e-18) << written;
      ASSERT_EQ(g->stiffness_table.x.size(), 4u);
      EXPECT_NEAR(g->stiffness_table.x[0], -0.03 / 125.0, 1e-18);
      EXPECT_NEAR(g->stiffness_table.y[0], -12.0 * 125.0, 1e-12);
      EXPECT_NEAR(g->stiffness_table.x[3], 0.02 / 125.0, 1e-18);
      EXPECT_NEAR(g->stiffness_table.y[3], 8.0 * 125.0, 1e-12);
      EXPECT_GT(simulate(io::parse_model(text, "t.yaml", "")).events.size(), 4u);  // the segments are crossed
    }
    expect_runs_as_original(text, back);
  }
}


// A clutch between a shaft and the pinion that a rigid rack_pinion joins to
// the rack: merged into the rack, the clutch would join a shaft and a rack
// (`luztar reduce` wrote `coordinate: {g: 1, rk: -50}`, which the reader
// refused: exit 0 and an unreadable file). The reduction keeps the pinion
// then (the rack is reported through it), and the file reads back and runs
// as the original: the same events, the shaft's angle to 1e-12 rad.
TEST(RackPinion, AClutchOnTheMergedPinionKeepsThePinion) {
  const std::string text =
      "simulation: {t_end: 1.0, output_step: 0.01}\n"
      "bodies:\n"
      "  g: {inertia: 0.05}\n"
      "  out: {inertia: 0.2}\n"
      "  rk: {kind: translational, mass: 2}\n"
      "elements:\n"
      "  cl: {type: friction, bodies: [g, out], coulomb: 0.1}\n"
      "  sh: {type: spring, bodies: [g, out], stiffness: 30, freeplay: 0.05}\n"
      "  rp: {type: rack_pinion, rack: rk, pinion: out, radius: 0.02}\n"
      "  rail: {type: friction, body: rk, coulomb: 5, viscous: 10}\n"
      "  tq: {type: torque, body: g, torque: {sine: {amplitude: 3, frequency: 0.8}}}\n";
  const std::string written = io::to_yaml(validate_and_reduce(io::parse_model_spec(text, "t.yaml", "")).spec);
  const ModelSpec back = io::parse_model_spec(written, "reduced.yaml", "");
  ASSERT_EQ(back.bodies.size(), 2u) << written;
  EXPECT_EQ(back.bodies[1].name, "out");
  const Result full = simulate(io::parse_model(text, "t.yaml", "")), reduced = simulate(assemble(back));
  ASSERT_EQ(full.status, StepStatus::reached_time) << full.message;
  ASSERT_EQ(reduced.status, StepStatus::reached_time) << reduced.message;
  ASSERT_EQ(full.events.size(), reduced.events.size());
  EXPECT_GT(full.events.size(), 4u);
  for (std::size_t k = 0; k < full.events.size(); ++k) EXPECT_NEAR(full.events[k].t, reduced.events[k].t, 1e-12) << k;
  for (int k = 0; k < full.num_samples(); ++k)
    EXPECT_NEAR(full.angle[static_cast<std::size_t>(k) * full.body_names.size() + static_cast<std::size_t>(body_of(full, "g"))],
                reduced.angle[static_cast<std::size_t>(k) * reduced.body_names.size() + static_cast<std::size_t>(body_of(reduced, "g"))],
                1e-12);
}

// Clutches on both sides of the rigid rack_pinion (shaft to pinion, rack to
// rack): either merge leaves one across the kinds, which no model file can
// hold. The writer refuses it, naming the element, instead of writing a file
// the reader refuses; the model itself runs (the solvers take the coordinate).
TEST(RackPinion, AnElementNoFileCanHoldIsRefusedByTheWriter) {
  const std::string text =
      "simulation: {t_end: 0.2, output_step: 0.01}\n"
      "bodies:\n"
      "  g: {inertia: 0.05}\n"
      "  out: {inertia: 0.2}\n"
      "  rk: {kind: translational, mass: 2}\n"
      "  sled: {kind: translational, mass: 1}\n"
      "elements:\n"
      "  cl: {type: friction, bodies: [g, out], coulomb: 0.1}\n"
      "  rp: {type: rack_pinion, rack: rk, pinion: out, radius: 0.02}\n"
      "  pad: {type: friction, bodies: [rk, sled], coulomb: 5}\n"
      "  tq: {type: torque, body: g, torque: 1}\n";
  const Reduction r = validate_and_reduce(io::parse_model_spec(text, "t.yaml", ""));
  try {
    (void)io::to_yaml(r.spec);
    ADD_FAILURE() << "written";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("elements.cl") != std::string::npos || what.find("elements.pad") != std::string::npos) << what;
    EXPECT_NE(what.find("no model file can hold"), std::string::npos) << what;
  }
  EXPECT_EQ(simulate(io::parse_model(text, "t.yaml", "")).status, StepStatus::reached_time);
}

}  // namespace luztar
