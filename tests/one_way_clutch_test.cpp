// One-way clutch (elements/one_way_clutch.hpp) against hand-derived closed
// forms, in both integrators of the event-driven solver and in Moreau-Jean
// time stepping.
//
// The engage/overrun pair: bodies out and in (J = 1 kg m^2 each), the clutch
// on v = w_out - w_in (bodies: [out, in]), overrun positive: out may run
// ahead of in, never behind. w_out(0) = 2, w_in(0) = 0, a torque T on in of
// +1 N m stepping to T2 at t = 3 s.
//  - Overrunning with drag D: lambda = D (it resists v > 0): out gets -D, in
//    T + D, so v'' = -D - (T + D) = -(T + 2 D) and v = 2 - (1 + 2 D) t reaches
//    0 at t_lock = 2 / (1 + 2 D): 2 s without drag, 5/3 s with D = 0.1; out
//    has then slowed to w_lock = 2 - D t_lock (2, 1.833333).
//  - Locked: both accelerate at T / 2; the lock carries lambda with
//    -lambda = J_out T / 2 on out, lambda = -T / 2 (-0.5: it pushes out along,
//    on its unbounded side).
//  - At 3 s the torque steps to T2 (a breakpoint: the S-S selection): locked
//    would need lambda = -T2 / 2; it holds while that is <= r D (r the
//    static_ratio). T2 = -1: 0.5 > r D for D = 0 and D = 0.1: it overruns at
//    3 s; out then slows at D, in at -(T2 + D). T2 = -0.1 with D = 0.1:
//    0.05 <= 0.1, it stays locked (both at -0.05 rad/s^2); with r = 2,
//    T2 = -0.3 gives 0.15 <= 0.2 (stays), T2 = -0.5 gives 0.25 > 0.2
//    (overruns).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/energy.hpp"
#include "core/metrics.hpp"
#include "elements/kinds.hpp"
#include "elements/one_way_clutch.hpp"
#include "tests/exact_signals.hpp"
#include "io/yaml_model.hpp"
#include "tests/model_builder.hpp"
#include "tests/yaml_runs.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

using test::body;
using test::element_state;
using test::element_torque;
using test::one_way;
using test::step;
using test::velocity;

// The engage/overrun pair above, run to t_end with `integrator`.
ModelSpec pair(double drag, double t2, double static_ratio, const std::string& integrator, double t_end = 4.0) {
  ModelSpec spec;
  spec.bodies = {body("out", 1.0, 0.0, 2.0), body("in", 1.0)};
  spec.elements = {one_way("freewheel", "out", "in", Signal::make_constant(drag), static_ratio),
                   test::torque("drive", "in", step(3.0, 1.0, t2))};
  spec.simulation = test::settings(t_end, 0.01);
  spec.simulation.integrator = integrator;
  return spec;
}

std::vector<EventRecord> events_of(const Result& r, int element) {
  std::vector<EventRecord> out;
  for (const EventRecord& e : r.events)
    if (e.element == element) out.push_back(e);
  return out;
}

int sample_at(const Result& r, double t) {
  const auto it = std::min_element(r.time.begin(), r.time.end(),
                                   [&](double a, double b) { return std::abs(a - t) < std::abs(b - t); });
  return static_cast<int>(it - r.time.begin());
}

const char* const kIntegrators[] = {"exact", "cvode_bdf"};

// Without drag: lock at 2 s (w = 2), locked at 0.5 rad/s^2 carrying -0.5 N m,
// overrun at the 3 s breakpoint (w = 2.5); then out coasts at 2.5 and in
// slows at 1 rad/s^2: w_in(4) = 1.5. Locked 1 s of 4: overrun 3 s.
TEST(OneWayClutch, EngagesAndOverrunsWithoutDrag) {
  for (const char* integrator : kIntegrators) {
    const Result r = simulate(assemble(pair(0.0, -1.0, 1.0, integrator)));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    EXPECT_EQ(r.integrator, integrator);
    const std::vector<EventRecord> ev = events_of(r, 0);
    ASSERT_EQ(ev.size(), 2u) << integrator;
    EXPECT_EQ(ev[0].kind, EventKind::lock);
    EXPECT_EQ(ev[0].before, 1);
    EXPECT_EQ(ev[0].after, 0);
    EXPECT_NEAR(ev[0].t, 2.0, 1e-9) << integrator;
    EXPECT_EQ(ev[1].kind, EventKind::overrun);
    EXPECT_EQ(ev[1].after, 1);
    EXPECT_NEAR(ev[1].t, 3.0, 1e-12) << integrator;
    const int k = sample_at(r, 2.5);
    EXPECT_EQ(element_state(r, k, 0), 0);
    EXPECT_NEAR(element_torque(r, k, 0), -0.5, 1e-9) << integrator;
    EXPECT_NEAR(velocity(r, k, 0), 2.25, 1e-9);
    EXPECT_NEAR(velocity(r, k, 1), 2.25, 1e-9);
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), 2.5, 1e-9) << integrator;
    EXPECT_NEAR(velocity(r, last, 1), 1.5, 1e-9) << integrator;
    EXPECT_EQ(element_state(r, last, 0), 1);
    EXPECT_NEAR(element_torque(r, last, 0), 0.0, 1e-12);
    EXPECT_NEAR(r.time_stuck[0], 1.0, 1e-9) << integrator;  // overrun 4 - 1 = 3 s
    EXPECT_NEAR(r.dissipated.back(), 0.0, 1e-9);  // no drag: the lock engages at equal speed, losslessly
  }
}

// A bearing that breaks away beside a freewheel without drag stays broken
// away. b0 (0.0086) on a Coulomb bearing of 0.485 N m is driven by
// 2.48 sin(2 pi 4.9 t); b1 (0.0076) hangs on a pure freewheel (w0 - w1 >= 0
// locked). The bearing breaks away where the drive reaches 0.485, t_b =
// asin(0.485 / 2.48) / (2 pi 4.9), and the freewheel overruns there (b1 is
// unloaded); then I0 w0' = 2.48 sin(wt) - 0.485. The selection after the
// freewheel's overrun (its reserve of 0 leaving) saw the bearing, at rest, as
// a candidate without its exhausted reserve and stuck it again at its limit,
// until the next output sample: w0(0.05) was 6.376 on a 0.01 s grid.
TEST(OneWayClutch, ABearingThatBrokeAwayBesideAFreewheelStaysBrokenAway) {
  const double I0 = 0.0086, A = 2.48, f = 4.9, mt0 = 0.485, t_end = 0.05, w = 2.0 * M_PI * f;
  const double tb = std::asin(mt0 / A) / w;
  const double w_end = (A / w * (std::cos(w * tb) - std::cos(w * t_end)) - mt0 * (t_end - tb)) / I0;
  for (const char* integrator : kIntegrators)
    for (const double step_size : {0.01, 0.0037, 0.001}) {
      SCOPED_TRACE(std::string(integrator) + " " + std::to_string(step_size));
      ModelSpec spec;
      spec.bodies = {body("b0", I0), body("b1", 0.0076)};
      spec.elements = {test::torque("drive", "b0", test::sine(A, f)), test::friction("brg", "b0", "", mt0),
                       one_way("fw", "b0", "b1", Signal::make_constant(0.0))};
      spec.simulation = test::settings(t_end, step_size, 1e-12, 1e-14);
      spec.simulation.integrator = integrator;
      const Result r = simulate(assemble(spec));
      ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
      const std::vector<EventRecord> brg = events_of(r, 1);
      ASSERT_EQ(brg.size(), 1u);
      EXPECT_EQ(brg[0].kind, EventKind::break_away);
      const bool exact = integrator == std::string("exact");
      EXPECT_NEAR(brg[0].t, tb, exact ? 1e-12 : 1e-10);
      EXPECT_NEAR(velocity(r, r.num_samples() - 1, 0), w_end, exact ? 1e-11 : 1e-7);
      EXPECT_NEAR(r.time_stuck[1], tb, exact ? 1e-12 : 1e-10);
    }
}

// With drag 0.1: lock at 5/3 s (w = 11/6), overrun at 3 s; the drag's work
// D (int_0^{5/3} (2 - 1.2 t) dt + int_3^4 0.8 (t - 3) dt) = 0.1 (5/3 + 0.4)
// is all the energy dissipated, and the balance closes.
TEST(OneWayClutch, DragLocksEarlierAndDissipatesItsWork) {
  for (const char* integrator : kIntegrators) {
    const Model m = assemble(pair(0.1, -1.0, 1.0, integrator));
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<EventRecord> ev = events_of(r, 0);
    ASSERT_EQ(ev.size(), 2u) << integrator;
    EXPECT_EQ(ev[0].kind, EventKind::lock);
    EXPECT_NEAR(ev[0].t, 5.0 / 3.0, 1e-9) << integrator;
    EXPECT_EQ(ev[1].kind, EventKind::overrun);
    EXPECT_NEAR(ev[1].t, 3.0, 1e-12) << integrator;
    const int k = sample_at(r, 2.0);
    EXPECT_NEAR(velocity(r, k, 0), 11.0 / 6.0 + 0.5 * (2.0 - 5.0 / 3.0), 1e-9) << integrator;
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), 2.4, 1e-9) << integrator;  // 2.5 - 0.1
    EXPECT_NEAR(velocity(r, last, 1), 1.6, 1e-9) << integrator;  // 2.5 - 0.9
    EXPECT_NEAR(element_torque(r, last, 0), 0.1, 1e-12);
    EXPECT_NEAR(r.dissipated.back(), 0.1 * (5.0 / 3.0 + 0.4), 1e-9) << integrator;
    // exact: to roundoff; cvode_bdf integrates the balance's quadratures under
    // its error control (rtol 1e-10): 3.6e-10 relative measured, 1e-8 allowed
    const EnergyBalance b = energy_balance(r, last);
    const double tolerance = std::string(integrator) == "exact" ? 1e-12 : 1e-8;
    EXPECT_LE(std::abs(b.residual), tolerance * std::max(1.0, std::abs(b.input))) << integrator;
  }
}

// Viscous drag only (mu = 0.25 N m s/rad, D = 0): overrunning, lambda = mu v,
// so w_out' = -mu v, w_in' = T + mu v and v' = -T - 2 mu v; with T = 1 and
// v(0) = 2, v = (2 + 1/(2 mu)) exp(-2 mu t) - 1/(2 mu) reaches 0 at
// t = ln(1 + 4 mu) / (2 mu) = 2 ln 2. Locked the viscous term does nothing
// (v = 0): both at 0.5 rad/s^2; the momentum 2 + t is shared, so at
// 2.99 s (before the step) both turn at 2.495. Time stepping (h = 1e-4) within a
// couple of steps.
TEST(OneWayClutch, ViscousDragLocksAtItsClosedForm) {
  const double t_lock = 2.0 * std::log(2.0);
  for (const char* integrator : {"exact", "cvode_bdf", "time_stepping"}) {
    ModelSpec spec = pair(0.0, -1.0, 1.0, std::string(integrator) == "time_stepping" ? "auto" : integrator, 2.99);
    std::get<OneWayClutchSpec>(spec.elements[0]).viscous = 0.25;
    const bool stepping = std::string(integrator) == "time_stepping";
    if (stepping) {
      spec.simulation.solver = "time_stepping";
      spec.simulation.step = 1e-4;
    }
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<EventRecord> ev = events_of(r, 0);
    ASSERT_EQ(ev.size(), 1u) << integrator;
    EXPECT_EQ(ev[0].kind, EventKind::lock);
    EXPECT_NEAR(ev[0].t, t_lock, stepping ? 2e-4 : 1e-9) << integrator;
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), (2.0 + 2.99) / 2.0, stepping ? 1e-3 : 1e-9) << integrator;
    EXPECT_NEAR(velocity(r, last, 1), (2.0 + 2.99) / 2.0, stepping ? 1e-3 : 1e-9) << integrator;
    EXPECT_EQ(element_state(r, last, 0), 0);
    const EnergyBalance b = energy_balance(r, last);
    EXPECT_LE(std::abs(b.relative), stepping || std::string(integrator) == "cvode_bdf" ? 1e-7 : 1e-12) << integrator;
  }
}

// Sweep metrics (core/metrics): by default a model with a one-way clutch
// counts its lock and overrun events and the time it is locked (a model
// without one keeps its columns); on the pair without drag over [0, 4]: one
// lock, one overrun, locked 1 s (from 2 s to 3 s), 0.5 s of it in [2.5, 4].
TEST(OneWayClutch, SweepMetrics) {
  const Model m = assemble(pair(0.0, -1.0, 1.0, "exact"));
  const std::vector<MetricSpec> metrics = default_metrics(m);
  std::vector<std::string> names;
  for (const MetricSpec& d : metrics) names.push_back(d.name);
  for (const char* name : {"events.lock", "events.overrun", "time_stuck.freewheel"})
    EXPECT_EQ(std::count(names.begin(), names.end(), name), 1) << name;
  ModelSpec without = pair(0.0, -1.0, 1.0, "exact");
  without.elements.erase(without.elements.begin());
  for (const MetricSpec& d : default_metrics(assemble(without))) EXPECT_NE(d.name, "events.lock");
  MetricSpec window;
  window.name = "late";
  window.kind = MetricSpec::Kind::time_stuck;
  window.element = "freewheel";
  window.t0 = 2.5;
  window.t1 = 4.0;
  check_metric(window, m);
  std::vector<MetricSpec> all = metrics;
  all.push_back(window);
  const Result r = simulate(m);
  const std::vector<double> v = compute_metrics(all, r);
  auto value = [&](const std::string& name) {
    return v[static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin())];
  };
  names.push_back("late");
  ASSERT_EQ(v.size(), names.size());
  EXPECT_EQ(value("events.lock"), 1.0);
  EXPECT_EQ(value("events.overrun"), 1.0);
  EXPECT_NEAR(value("time_stuck.freewheel"), 1.0, 1e-9);
  EXPECT_NEAR(value("late"), 0.5, 1e-9);
}

// Against overrun the lock holds r D, then the drag D: T2 = -0.1 (needs 0.05
// <= 0.1) stays locked, both slowing at 0.05 rad/s^2 to w(4) = 2.5 - 0.05;
// static_ratio 2: T2 = -0.3 (0.15 <= 0.2) stays, T2 = -0.5 (0.25 > 0.2)
// overruns at 3 s, after which in slows at -(T2 + D) = 0.4.
TEST(OneWayClutch, HoldsStaticRatioTimesDragAgainstOverrun) {
  struct Case {
    double t2, ratio;
    bool overruns;
  };
  // time stepping (h = 1e-4): the lock within a step or two of 5/3 s, so the
  // velocities within a few h (order 1); its impulse row holds h r D against
  // overrun once it ended a step locked, h D otherwise
  for (const char* integrator : {"exact", "cvode_bdf", "time_stepping"})
    for (const Case c : {Case{-0.1, 1.0, false}, Case{-0.3, 2.0, false}, Case{-0.5, 2.0, true}}) {
      const bool stepping = std::string(integrator) == "time_stepping";
      ModelSpec spec = pair(0.1, c.t2, c.ratio, stepping ? "auto" : integrator);
      if (stepping) {
        spec.simulation.solver = "time_stepping";
        spec.simulation.step = 1e-4;
      }
      const Result r = simulate(assemble(spec));
      ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
      const std::vector<EventRecord> ev = events_of(r, 0);
      ASSERT_EQ(ev.size(), c.overruns ? 2u : 1u) << integrator << " " << c.t2;
      const int last = r.num_samples() - 1;
      const double tol = stepping ? 1e-3 : 1e-9;
      if (!c.overruns) {
        EXPECT_EQ(element_state(r, last, 0), 0);
        EXPECT_NEAR(element_torque(r, last, 0), -c.t2 / 2.0, 1e-9) << integrator;
        EXPECT_NEAR(velocity(r, last, 1), 2.5 + c.t2 / 2.0, tol) << integrator;
        continue;
      }
      EXPECT_EQ(ev[1].kind, EventKind::overrun);
      EXPECT_NEAR(ev[1].t, 3.0, stepping ? 1e-4 * 1.000001 : 1e-12) << integrator;
      EXPECT_NEAR(velocity(r, last, 0), 2.5 - 0.1, tol) << integrator;
      EXPECT_NEAR(velocity(r, last, 1), 2.5 + (c.t2 + 0.1), tol) << integrator;
    }
}

// The reserve against overrun is watched within a phase too (a witness, not
// only at breakpoints): T = 1 - t/2 on in, both locked from the start at rest
// (v = 0: the S-S selection locks it, lambda = -T/2 < 0), D = 0.2: the lock
// holds while -T/2 <= 0.2, i.e. until T = -0.4 at t = 2.8 s.
TEST(OneWayClutch, OverrunsWhereItsReserveRunsOut) {
  for (const char* integrator : kIntegrators) {
    ModelSpec spec;
    spec.bodies = {body("out", 1.0), body("in", 1.0)};
    spec.elements = {one_way("freewheel", "out", "in", Signal::make_constant(0.2)),
                     test::torque("drive", "in", test::ramp(0.0, 10.0, 1.0, -4.0))};
    spec.simulation = test::settings(3.5, 0.01);
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<EventRecord> ev = events_of(r, 0);
    ASSERT_EQ(ev.size(), 1u) << integrator;
    EXPECT_EQ(ev[0].kind, EventKind::overrun);
    EXPECT_NEAR(ev[0].t, 2.8, 1e-9) << integrator;
    EXPECT_EQ(element_state(r, 0, 0), 0);
  }
}

// A pure freewheel locked unloaded and then loaded forward from that very
// instant: a backstop on a drum (J 1) at rest, T = t on it. At t = 0 the
// selection locks it (T = 0: lambda = 0, no relative acceleration), and its
// reserve 0 - lambda = -t falls from exactly 0: it must overrun at once
// (kOneWayReserveMargin past 0), not at the next output point (what it did
// without the margin: w(1) = 0.5 - 0.25^2 / 2 with output_step 0.25). The
// drum then turns at w = t^2 / 2: 0.5 at 1 s. Likewise a pair at rest,
// T = t on out (the overrun way), out ahead from 0: w_out = t^2 / 2, in at 0.
TEST(OneWayClutch, OverrunsAtOnceFromAnUnloadedLock) {
  for (const char* integrator : kIntegrators) {
    ModelSpec spec;
    spec.bodies = {body("drum", 1.0)};
    spec.elements = {one_way("backstop", "drum", "", Signal::make_constant(0.0)),
                     test::torque("load", "drum", test::ramp(0.0, 1.0, 0.0, 1.0))};
    spec.simulation = test::settings(1.0, 0.25);
    spec.simulation.integrator = integrator;
    Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), 1u) << integrator;
    EXPECT_EQ(r.events[0].kind, EventKind::overrun);
    EXPECT_LE(r.events[0].t, 1e-9) << integrator;
    EXPECT_NEAR(velocity(r, r.num_samples() - 1, 0), 0.5, 1e-9) << integrator;

    spec.bodies = {body("out", 1.0), body("in", 1.0)};
    spec.elements = {one_way("freewheel", "out", "in", Signal::make_constant(0.0)),
                     test::torque("load", "out", test::ramp(0.0, 1.0, 0.0, 1.0))};
    r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), 1u) << integrator;
    EXPECT_LE(r.events[0].t, 1e-9) << integrator;
    EXPECT_NEAR(velocity(r, r.num_samples() - 1, 0), 0.5, 1e-9) << integrator;
    EXPECT_NEAR(velocity(r, r.num_samples() - 1, 1), 0.0, 1e-12) << integrator;  // what the lock passed on before it let go
  }
}

// A backstop (to the base) holds a body against reverse: drum (J 2) at rest,
// T = -1 + t on it, overrun positive: locked, the lock carrying lambda = T
// (-lambda on the drum balances T) until T reaches 0 at 1 s; then the drum
// turns forward at w' = (t - 1) / 2. And overrun negative mirrors the pair
// with drag (velocities and torques negated): the same times.
TEST(OneWayClutch, BackstopAndOverrunNegative) {
  for (const char* integrator : kIntegrators) {
    ModelSpec spec;
    spec.bodies = {body("drum", 2.0)};
    spec.elements = {one_way("backstop", "drum", "", Signal::make_constant(0.0)),
                     test::torque("load", "drum", test::ramp(0.0, 2.0, -1.0, 1.0))};
    spec.simulation = test::settings(2.0, 0.01);
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    ASSERT_EQ(r.events.size(), 1u) << integrator;
    EXPECT_EQ(r.events[0].kind, EventKind::overrun);
    EXPECT_NEAR(r.events[0].t, 1.0, 1e-9);
    const int k = sample_at(r, 0.5);
    EXPECT_NEAR(element_torque(r, k, 0), -0.5, 1e-12);  // lambda = T: -lambda balances T on the drum
    EXPECT_EQ(velocity(r, k, 0), 0.0);
    // after 1 s: w' = (t - 1) / 2, w(2) = 0.25
    EXPECT_NEAR(velocity(r, r.num_samples() - 1, 0), 0.25, 1e-9);

    ModelSpec mirrored = pair(0.1, 1.0, 1.0, integrator);
    mirrored.bodies = {body("out", 1.0, 0.0, -2.0), body("in", 1.0)};
    std::get<OneWayClutchSpec>(mirrored.elements[0]).overrun = "negative";
    std::get<TorqueSpec>(mirrored.elements[1]).torque = step(3.0, -1.0, 1.0);
    const Result n = simulate(assemble(mirrored));
    ASSERT_EQ(n.status, StepStatus::reached_time) << n.message;
    const std::vector<EventRecord> ev = events_of(n, 0);
    ASSERT_EQ(ev.size(), 2u) << integrator;
    EXPECT_EQ(ev[0].before, -1);
    EXPECT_NEAR(ev[0].t, 5.0 / 3.0, 1e-9);
    EXPECT_EQ(ev[1].after, -1);
    EXPECT_NEAR(ev[1].t, 3.0, 1e-12);
    EXPECT_NEAR(velocity(n, n.num_samples() - 1, 1), -1.6, 1e-9);
  }
}

// A clutch (MT0 C = 0.6) in parallel with a freewheel between out and in (a
// loop: the static split is not unique, watched as a group): T = -t on in,
// all at rest. Both locked, sum of their torques S = lambda_c + lambda_f =
// -J_out T / 2 = t / 2 against overrun. The freewheel holds nothing that way
// (D = 0), so the Chebyshev split gives the clutch all of it; the group breaks
// where S = C: t = 1.2 s, the clutch slipping and the freewheel overrunning.
// Before that, with T = +1 (the locking way) the freewheel takes it all.
TEST(OneWayClutch, InParallelWithAClutch) {
  ModelSpec spec;
  spec.bodies = {body("out", 1.0), body("in", 1.0)};
  spec.elements = {test::friction("clutch", "out", "in", 0.6),
                   one_way("freewheel", "out", "in", Signal::make_constant(0.0)),
                   test::torque("drive", "in", test::ramp(0.0, 2.0, 0.0, -2.0))};
  spec.simulation = test::settings(2.0, 0.01);
  spec.simulation.integrator = "cvode_bdf";  // a loop of links: exact refuses it
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].kind, EventKind::break_away);
  EXPECT_EQ(r.events[1].kind, EventKind::overrun);
  EXPECT_NEAR(r.events[0].t, 1.2, 1e-9);
  EXPECT_NEAR(r.events[1].t, 1.2, 1e-9);
  const int k = sample_at(r, 1.0);
  EXPECT_NEAR(element_torque(r, k, 0), 0.5, 1e-9);
  EXPECT_NEAR(element_torque(r, k, 1), 0.0, 1e-9);

  std::get<TorqueSpec>(spec.elements[2]).torque = Signal::make_constant(1.0);
  const Result p = simulate(assemble(spec));
  ASSERT_EQ(p.status, StepStatus::reached_time) << p.message;
  EXPECT_TRUE(p.events.empty());
  EXPECT_NEAR(element_torque(p, 10, 0), 0.0, 1e-9);
  EXPECT_NEAR(element_torque(p, 10, 1), -0.5, 1e-9);
}

// The lock carries impulses. drive (J 1, w 3) hits in (J 1) through a rigid
// freeplay (gap 0.1, e = 0.5) at t1 = 0.1 / 3; out (J 2) is locked to in by
// a pure freewheel (at rest, no torque: locked). Rows n_c = (-1, 1, 0) of the
// contact and n_f = (0, -1, 1) of the clutch (bodies drive, in, out; M^-1 =
// diag(1, 1, 1/2)): A = [[2, -1], [-1, 1.5]], q = (-(1 + e) 3, 0); both
// active: Pi_f = 2.25, Pi_c = 3.375: drive -0.375, in = out = 1.125 (the
// contact separates at e 3 = 1.5). The drive flies back across the gap to
// the - flank at t2 = t1 + 0.2 / 1.5; there the impulse slows in, so the
// clutch would have to pull: A = [[2, 1], [1, 1.5]], q = (-2.25, 0): Pi_f = 0,
// Pi_c = 1.125: drive 0.75, in 0, out 1.125 overrunning. The third strike at
// t3 = t2 + 0.2 / 0.75 gives Pi_c = 0.5625: drive 0.1875, in 0.5625.
TEST(OneWayClutch, LockCarriesImpulses) {
  for (const char* integrator : kIntegrators) {
    ModelSpec spec;
    spec.bodies = {body("drive", 1.0, 0.0, 3.0), body("in", 1.0), body("out", 2.0)};
    SpringSpec teeth = test::spring("teeth", "drive", "in", INFINITY, 0.1);
    teeth.restitution = 0.5;
    spec.elements = {teeth, one_way("freewheel", "out", "in", Signal::make_constant(0.0))};
    spec.simulation = test::settings(0.6, 0.001);
    spec.simulation.integrator = integrator;
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const double t1 = 0.1 / 3.0, t2 = t1 + 0.2 / 1.5, t3 = t2 + 0.2 / 0.75;
    const std::vector<EventRecord> clutch = events_of(r, 1);
    ASSERT_EQ(clutch.size(), 1u) << integrator;
    EXPECT_EQ(clutch[0].kind, EventKind::overrun);
    EXPECT_NEAR(clutch[0].t, t2, 1e-9);
    struct Expect {
      double t, drive, in, out;
      int state;
    };
    for (const Expect e : {Expect{0.5 * (t1 + t2), -0.375, 1.125, 1.125, 0}, Expect{0.5 * (t2 + t3), 0.75, 0.0, 1.125, 1},
                           Expect{t3 + 0.05, 0.1875, 0.5625, 1.125, 1}}) {
      const int k = sample_at(r, e.t);
      EXPECT_NEAR(velocity(r, k, 0), e.drive, 1e-9) << integrator << " " << e.t;
      EXPECT_NEAR(velocity(r, k, 1), e.in, 1e-9) << integrator << " " << e.t;
      EXPECT_NEAR(velocity(r, k, 2), e.out, 1e-9) << integrator << " " << e.t;
      EXPECT_EQ(element_state(r, k, 1), e.state) << e.t;
    }
    for (int k = 0; k < r.num_samples(); ++k)  // never turned in its locked direction
      EXPECT_GE(velocity(r, k, 2) - velocity(r, k, 1), -1e-12) << r.time[k];
    // the strikes' losses are booked as dissipated: the balance closes
    const EnergyBalance b = energy_balance(r, r.num_samples() - 1);
    EXPECT_LE(std::abs(b.residual), 1e-12 * 4.5) << integrator;
  }
}

// An impact locks an overrunning clutch where it would reverse it: drive (J
// 1, w 3) strikes in (J 1, at rest) plastically (e = 0) at t1 = 0.1 / 3
// while out (J 1, w 1) overruns in (v = 1). Without the clutch drive and in
// would share 1.5 and v would turn to -0.5: the lock engages in the same
// impact, and all three share the momentum 4: 4/3 each (the LCP with both
// rows active: contact u = w_in - w_drive, clutch u = w_out - w_in, both 0
// after). Kinetic energy 5 -> 8/3: 7/3 J lost, booked as dissipated. In
// both integrators and in Moreau-Jean (the same LCP in its first step
// across the strike; h = 1e-4).
TEST(OneWayClutch, ImpactLocksAnOverrunningClutch) {
  for (const char* integrator : {"exact", "cvode_bdf", "time_stepping"}) {
    ModelSpec spec;
    spec.bodies = {body("drive", 1.0, 0.0, 3.0), body("in", 1.0), body("out", 1.0, 0.0, 1.0)};
    spec.elements = {test::spring("teeth", "drive", "in", INFINITY, 0.1),
                     one_way("freewheel", "out", "in", Signal::make_constant(0.0))};
    spec.simulation = test::settings(0.2, 0.001);
    const bool stepping = std::string(integrator) == "time_stepping";
    if (stepping) {
      spec.simulation.solver = "time_stepping";
      spec.simulation.step = 1e-4;
    } else {
      spec.simulation.integrator = integrator;
    }
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<EventRecord> clutch = events_of(r, 1);
    ASSERT_EQ(clutch.size(), 1u) << integrator;
    EXPECT_EQ(clutch[0].kind, EventKind::lock);
    EXPECT_NEAR(clutch[0].t, 0.1 / 3.0, stepping ? 2e-4 : 1e-9) << integrator;
    const int last = r.num_samples() - 1;
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(velocity(r, last, b), 4.0 / 3.0, 1e-9) << integrator << " " << b;
    EXPECT_EQ(element_state(r, last, 1), 0);
    EXPECT_NEAR(r.dissipated.back(), 7.0 / 3.0, 1e-9) << integrator;
    for (int k = 0; k < r.num_samples(); ++k)  // never turned in its locked direction
      EXPECT_GE(velocity(r, k, 2) - velocity(r, k, 1), -1e-12) << integrator << " " << r.time[k];
  }
}

// A backstop engaged by an impact stays locked while the drive presses on:
// a wheel (J_w 0.67, w0 0.0257 rad/s) overruns its backstop (positive, no
// drag) while a gear (J_g 0.076, -v0 = -0.28 rad/s, driven by -T = -0.65
// N m) closes the rigid lash (a = 1e-3) towards its lower flank. Relative
// angle x = -(v0 + w0) t - T t^2 / (2 J_g) reaches -a at
//   t_i = (sqrt((v0 + w0)^2 + 2 T a / J_g) - (v0 + w0)) J_g / T;
// plastically struck, the pair would share (J_w w0 - J_g v1) / (J_w + J_g) < 0,
// v1 = v0 + T t_i / J_g: the sprag engages in the same impact and both stop
// dead, then stay at rest (the drive presses the gear on the locked wheel).
// Energy: dissipated = J_w w0^2 / 2 + J_g v0^2 / 2 + T (v0 t_i + T t_i^2 /
// (2 J_g)). The impulses bring the backstop's row to 0 only to their own
// roundoff: read against the wheel's own velocity (0), that was taken for
// overrunning and the wheel turned backwards through its lock under exact,
// exit 0 (a new-user hunt). Also at several approach speeds.
TEST(OneWayClutch, ABackstopEngagedByAnImpactStaysLocked) {
  const double Jw = 0.67, Jg = 0.076, w0 = 0.0257, T = 0.65, a = 1e-3;
  for (const char* integrator : {"exact", "cvode_bdf", "cvode_adams"})
    for (const double v0 : {0.28, 0.2831, 0.3333, 0.417}) {
      const std::string model = "bodies:\n  wheel: {inertia: 0.67, velocity: 0.0257}\n  gear: {inertia: 0.076, velocity: " +
                                std::to_string(-v0) +
                                "}\n"
                                "elements:\n"
                                "  lash: {type: spring, bodies: [gear, wheel], stiffness: .inf, freeplay: 0.001}\n"
                                "  backstop: {type: one_way_clutch, body: wheel, overrun: positive}\n"
                                "  drive: {type: torque, body: gear, torque: -0.65}\n";
      const Result r = test::run_yaml(model, {integrator, (std::string("integrator: ") + integrator).c_str()}, 0.1,
                                      0.001);
      ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
      const double s = v0 + w0, ti = (std::sqrt(s * s + 2.0 * T * a / Jg) - s) * Jg / T;
      const std::vector<EventRecord> clutch = events_of(r, 1);
      ASSERT_EQ(clutch.size(), 1u) << integrator << " " << v0;
      EXPECT_EQ(clutch[0].kind, EventKind::lock);
      EXPECT_NEAR(clutch[0].t, ti, 1e-9) << integrator << " " << v0;
      for (int k = 0; k < r.num_samples(); ++k) {
        EXPECT_GE(velocity(r, k, 0), -1e-12) << integrator << " " << v0 << " " << r.time[k];  // never backwards
        if (r.time[k] > ti) {
          EXPECT_NEAR(velocity(r, k, 0), 0.0, 1e-12) << integrator << " " << v0 << " " << r.time[k];
          EXPECT_NEAR(velocity(r, k, 1), 0.0, 1e-12) << integrator << " " << v0 << " " << r.time[k];
          EXPECT_EQ(element_state(r, k, 1), 0) << integrator << " " << v0 << " " << r.time[k];
        }
      }
      const double lost = 0.5 * Jw * w0 * w0 + 0.5 * Jg * v0 * v0 + T * (v0 * ti + T * ti * ti / (2.0 * Jg));
      // (exact to roundoff; CVODE's input work before the strike to its rtol, 1e-8)
      const double tol = std::string(integrator) == "exact" ? 1e-12 : 1e-7;
      EXPECT_NEAR(r.dissipated.back(), lost, tol * lost) << integrator << " " << v0;
    }
}

// ... and a clutch elsewhere that the impact's impulses do not reach keeps
// slipping: bodies c (J 1, 1 rad/s) and d (J 1, at rest) joined by a clutch
// on the coordinate 1e-10 (c - d) with MT0 1e8 (0.01 N m on the bodies;
// the scaling that makes the same element, core/coordinate.hpp) slip on at
// v = 1 - 0.02 t, dissipating 0.01 (t - 0.01 t^2). A rest test against the
// strike's speed instead of the link's own roundoff stuck it at the impact
// (0.25 J lost in a plastic lock; a review).
TEST(OneWayClutch, AnImpactLeavesAClutchItDoesNotReachSlipping) {
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    const std::string model =
        "bodies:\n  wheel: {inertia: 0.67, velocity: 0.0257}\n  gear: {inertia: 0.076, velocity: -0.28}\n"
        "  c: {inertia: 1.0, velocity: 1.0}\n  d: {inertia: 1.0, velocity: 0.0}\n"
        "elements:\n"
        "  lash: {type: spring, bodies: [gear, wheel], stiffness: .inf, freeplay: 0.001}\n"
        "  drive: {type: torque, body: gear, torque: -0.65}\n"
        "  clutch: {type: friction, coordinate: {c: 1e-10, d: -1e-10}, coulomb: 1.0e8}\n";
    const Result r = test::run_yaml(model, {integrator, (std::string("integrator: ") + integrator).c_str()}, 0.1, 0.001);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    EXPECT_TRUE(events_of(r, 2).empty()) << integrator;  // no stick
    ASSERT_EQ(events_of(r, 0).size(), 2u) << integrator;  // the strike: impact and contact
    const double tol = std::string(integrator) == "exact" ? 1e-12 : 1e-8;
    for (int k = 0; k < r.num_samples(); ++k) {
      const double t = r.time[k];
      EXPECT_NEAR(velocity(r, k, 2), 1.0 - 0.01 * t, tol) << integrator << " " << t;
      EXPECT_NEAR(velocity(r, k, 3), 0.01 * t, tol) << integrator << " " << t;
    }
    const double t = r.time.back();
    EXPECT_NEAR(r.element_dissipated[static_cast<std::size_t>(r.num_samples() - 1) * 3 + 2], 0.01 * (t - 0.01 * t * t), tol)
        << integrator;
  }
}

// Moreau-Jean gives the same sequence and converges at order 1: the pair
// with drag (lock at 5/3, mid-step; overrun at the 3 s breakpoint), the lock
// logged at the end of the step it happened in.
TEST(OneWayClutch, TimeSteppingConvergesAtOrderOne) {
  double previous = INFINITY;
  for (const double h : {1e-3, 1e-4, 1e-5}) {
    ModelSpec spec = pair(0.1, -1.0, 1.0, "auto");
    spec.simulation.solver = "time_stepping";
    spec.simulation.step = h;
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<EventRecord> ev = events_of(r, 0);
    ASSERT_EQ(ev.size(), 2u) << h;
    EXPECT_EQ(ev[0].kind, EventKind::lock);
    EXPECT_GE(ev[0].t, 5.0 / 3.0 - 1e-12);
    EXPECT_LE(ev[0].t, 5.0 / 3.0 + h);
    EXPECT_EQ(ev[1].kind, EventKind::overrun);
    EXPECT_LE(std::abs(ev[1].t - 3.0), h * 1.000001);
    const int last = r.num_samples() - 1;
    const double error = std::abs(velocity(r, last, 0) - 2.4) + std::abs(velocity(r, last, 1) - 1.6);
    EXPECT_LE(error, 2.0 * h) << h;
    EXPECT_LE(error, 0.2 * previous) << h;  // order 1: ten times smaller per decade
    previous = error;
    EXPECT_NEAR(r.time_stuck[0], 3.0 - 5.0 / 3.0, 2.0 * h);
    for (int k = 0; k < r.num_samples(); ++k) EXPECT_GE(velocity(r, k, 0) - velocity(r, k, 1), -1e-12);
  }
}

// Moreau-Jean on the pure freewheel (its row bounded by 0 against overrun,
// unbounded the locking way): the pair without drag locks within the step
// after 2 s, overruns within a step of 3 s, and ends at out 2.5, in 1.5;
// the pair mirrored (overrun negative) the same, negated; the backstop
// (BackstopAndOverrunNegative) holds the drum at exactly 0 until 1 s. Each
// within a few steps h = 1e-4 (order 1).
TEST(OneWayClutch, TimeSteppingPureFreewheelAndMirror) {
  const double h = 1e-4;
  for (const int o : {+1, -1}) {
    ModelSpec spec = pair(0.0, -1.0, 1.0, "auto");
    spec.simulation.solver = "time_stepping";
    spec.simulation.step = h;
    if (o < 0) {
      spec.bodies = {body("out", 1.0, 0.0, -2.0), body("in", 1.0)};
      std::get<OneWayClutchSpec>(spec.elements[0]).overrun = "negative";
      std::get<TorqueSpec>(spec.elements[1]).torque = step(3.0, -1.0, 1.0);
    }
    const Result r = simulate(assemble(spec));
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    const std::vector<EventRecord> ev = events_of(r, 0);
    ASSERT_EQ(ev.size(), 2u) << o;
    EXPECT_EQ(ev[0].kind, EventKind::lock);
    EXPECT_EQ(ev[0].before, o);
    EXPECT_GE(ev[0].t, 2.0 - 1e-12);
    EXPECT_LE(ev[0].t, 2.0 + 2.0 * h);
    EXPECT_EQ(ev[1].kind, EventKind::overrun);
    EXPECT_EQ(ev[1].after, o);
    EXPECT_LE(std::abs(ev[1].t - 3.0), h * 1.000001);
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), o * 2.5, 4.0 * h) << o;
    EXPECT_NEAR(velocity(r, last, 1), o * 1.5, 4.0 * h) << o;
    for (int k = 0; k < r.num_samples(); ++k)  // never turned in its locked direction
      EXPECT_GE(o * (velocity(r, k, 0) - velocity(r, k, 1)), -1e-12) << r.time[k];
  }
  ModelSpec spec;
  spec.bodies = {body("drum", 2.0)};
  spec.elements = {one_way("backstop", "drum", "", Signal::make_constant(0.0)),
                   test::torque("load", "drum", test::ramp(0.0, 2.0, -1.0, 1.0))};
  spec.simulation = test::settings(2.0, 0.01);
  spec.simulation.solver = "time_stepping";
  spec.simulation.step = h;
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].kind, EventKind::overrun);
  EXPECT_LE(std::abs(r.events[0].t - 1.0), 2.0 * h);
  EXPECT_EQ(velocity(r, sample_at(r, 0.5), 0), 0.0);
  EXPECT_NEAR(velocity(r, r.num_samples() - 1, 0), 0.25, 2.0 * h);
}

Model load_model_file(const std::string& stem, const std::string& integrator) {
  ModelSpec spec = io::load_model_spec(std::string(LUZTAR_MODELS_DIR) + "/" + stem + ".yaml");
  spec.simulation.integrator = integrator;
  return assemble(spec);
}

// models/freewheel.yaml (its opening comment derives the figures): cranking
// locked, J = 0.15 + 0.0432, J w' = 104 - c w (c = 3.3 + 0.25) from rest;
// firing at 0.5 s, J w' = 164 - c w; the lock carries (on the engine)
// lambda = 20 - 0.25 w - 0.15 w' and overruns where lambda reaches the drag
// 0.3 N m (static_ratio 1). Then the engine tends to (60 - 40 - 0.3) / 0.25
// with time constant 0.15 / 0.25, the starter to (144 + 0.3) / 3.3 with
// 0.0432 / 3.3.
TEST(OneWayClutch, StarterFreewheelModel) {
  const double J = 0.1932, c = 3.55, D = 0.3;
  const double w05 = 104.0 / c * (1.0 - std::exp(-c * 0.5 / J));
  const double w_star = (20.0 - D - 0.15 * 164.0 / J) / (0.25 - 0.15 * c / J);
  const double t_star = 0.5 + J / c * std::log((w05 - 164.0 / c) / (w_star - 164.0 / c));
  const double we2 = 78.8 + (w_star - 78.8) * std::exp(-0.25 * (2.0 - t_star) / 0.15);
  const double ws2 = 144.3 / 3.3 + (w_star - 144.3 / 3.3) * std::exp(-3.3 * (2.0 - t_star) / 0.0432);
  ASSERT_GT(t_star, 0.5);
  ASSERT_LT(t_star, 0.7);
  for (const char* integrator : kIntegrators) {
    const Model m = load_model_file("freewheel", integrator);
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    // relative: exact to roundoff (the exponentials of its sub-steps);
    // cvode_bdf to its global error at the model's rtol 1e-10 (1.8e-9
    // measured at 0.5 s, after nine time constants)
    const double rel = std::string(integrator) == "exact" ? 1e-11 : 1e-8;
    ASSERT_EQ(r.events.size(), 1u) << integrator;
    EXPECT_EQ(r.events[0].element, m.element_id("freewheel"));
    EXPECT_EQ(r.events[0].kind, EventKind::overrun);
    EXPECT_NEAR(r.events[0].t, t_star, 1e-9) << integrator;
    const int k = sample_at(r, 0.5);
    EXPECT_NEAR(velocity(r, k, 0), w05, rel * w05) << integrator;
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), we2, rel * we2) << integrator;
    EXPECT_NEAR(velocity(r, last, 1), ws2, rel * ws2) << integrator;
    EXPECT_NEAR(element_torque(r, last, m.element_id("freewheel")), D, 1e-12);
    const EnergyBalance b = energy_balance(r, last);
    EXPECT_LE(std::abs(b.relative), 1e-8) << integrator;
  }
  ModelSpec spec = io::load_model_spec(std::string(LUZTAR_MODELS_DIR) + "/freewheel.yaml");
  spec.simulation.solver = "time_stepping";
  spec.simulation.step = 1e-5;
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].kind, EventKind::overrun);
  EXPECT_NEAR(r.events[0].t, t_star, 2e-5);
}

// The events of `r` less a graze at t_graze: a lock at most `window` before
// or after it followed at once by an overrun in the same window. Returns how
// many pairs it removed.
int drop_graze(std::vector<EventRecord>& events, double t_graze, double window) {
  int removed = 0;
  for (std::size_t i = 0; i + 1 < events.size(); ++i)
    if (events[i].kind == EventKind::lock && events[i + 1].kind == EventKind::overrun &&
        std::abs(events[i].t - t_graze) <= window && std::abs(events[i + 1].t - t_graze) <= window) {
      events.erase(events.begin() + static_cast<std::ptrdiff_t>(i), events.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      ++removed;
    }
  return removed;
}

// Modelica's OneWayClutch example (models/modelica_one_way_clutch.yaml, whose
// comment maps MSL's parameters and derives the sequence): the logged
// sequence (element, kind, before, after) exactly and the times to 1e-8 s in
// both integrators; at 2 s both turn at -0.25 rad/s (momentum -0.5 shared:
// the drive's impulse over whole periods is 0); the energy balance to 1e-8;
// time stepping (h = 1e-5) gives the same kinds within 2 h.
//
// The graze at 1.5 s: overrunning and disengaged from 7/6 s, the input's
// speed changes by the drive's impulse, which over the whole period to 1.5 s
// is 0: v = w_out - w_in comes back to exactly 0 at 1.5 s with v' = -T = 0
// and v'' = -T' = 60 pi, and leaves again (T < 0 after 1.5 s pulls the input
// back). In exact arithmetic v touches 0 without crossing: no event. A
// velocity error eps turns the touch into a lock and an
// overrun sqrt(2 eps / (60 pi)) around 1.5 s: cvode_bdf (its global error at
// rtol 1e-10, ~4e-10 rad/s: lock at 1.4999979 s) and time stepping (h 1e-5)
// may log that pair; a window of 2e-5 s covers eps up to 3.8e-8 rad/s. The
// exact integrator is exact but for roundoff: its speeds carry at most about
// one ulp per sub-step (about 2000 sub-steps here, |w| <= 1 rad/s: 4.4e-13,
// taken as eps = 1e-12 rad/s), so it may log the pair within
// sqrt(2 eps / (60 pi)) = 1.03e-7 s of 1.5 s (main's exact integrator,
// measured: lock at 1.499999989 s, overrun at 1.5 s, eps = 1.1e-14 rad/s).
TEST(OneWayClutch, ModelicaOneWayClutchExample) {
  const double pi = std::acos(-1.0);
  struct Expect {
    double t;
    EventKind kind;
  };
  const Expect expected[] = {{std::acos(1.0 - 0.3 * pi) / (6.0 * pi), EventKind::lock},
                             {1.0 / 6.0, EventKind::overrun},
                             {0.430677396, EventKind::lock},
                             {0.95, EventKind::overrun},
                             {1.05, EventKind::lock},
                             {7.0 / 6.0, EventKind::overrun},
                             {1.756204447, EventKind::lock}};
  EXPECT_NEAR(expected[0].t, 0.0802800002, 1e-10);
  const double graze = 1.5, window = 2e-5, exact_window = std::sqrt(2.0 * 1e-12 / (60.0 * pi));
  for (const char* integrator : kIntegrators) {
    const Model m = load_model_file("modelica_one_way_clutch", integrator);
    const Result r = simulate(m);
    ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
    std::vector<EventRecord> ev = r.events;
    const int grazes = drop_graze(ev, graze, std::string(integrator) == "exact" ? exact_window : window);
    EXPECT_LE(grazes, 1) << integrator;
    ASSERT_EQ(ev.size(), std::size(expected)) << integrator;
    for (std::size_t i = 0; i < std::size(expected); ++i) {
      const EventRecord& e = ev[i];
      EXPECT_EQ(e.element, m.element_id("freewheel"));
      EXPECT_EQ(e.kind, expected[i].kind) << integrator << " " << i;
      EXPECT_EQ(e.before, expected[i].kind == EventKind::lock ? 1 : 0);
      EXPECT_EQ(e.after, expected[i].kind == EventKind::lock ? 0 : 1);
      EXPECT_NEAR(e.t, expected[i].t, 1e-8) << integrator << " " << i;
    }
    const int last = r.num_samples() - 1;
    EXPECT_NEAR(velocity(r, last, 0), -0.25, 1e-8) << integrator;
    EXPECT_NEAR(velocity(r, last, 1), -0.25, 1e-8) << integrator;
    EXPECT_EQ(element_state(r, last, 0), 0);
    // exact: to roundoff; cvode_bdf: its quadratures' error at rtol 1e-10 (1.9e-8 measured)
    const double balance = std::string(integrator) == "exact" ? 1e-12 : 1e-7;
    EXPECT_LE(std::abs(energy_balance(r, last).relative), balance) << integrator;
    for (int k = 0; k < r.num_samples(); ++k)  // never turned in its locked direction
      EXPECT_GE(velocity(r, k, 1) - velocity(r, k, 0), -1e-12) << integrator << " " << r.time[k];
  }
  ModelSpec spec = io::load_model_spec(std::string(LUZTAR_MODELS_DIR) + "/modelica_one_way_clutch.yaml");
  spec.simulation.solver = "time_stepping";
  spec.simulation.step = 1e-5;
  const Result r = simulate(assemble(spec));
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  std::vector<EventRecord> ev = r.events;
  EXPECT_LE(drop_graze(ev, graze, window), 1);
  ASSERT_EQ(ev.size(), std::size(expected));
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ(ev[i].kind, expected[i].kind) << i;
    EXPECT_NEAR(ev[i].t, expected[i].t, 2e-5 * (1.0 + 1e-6)) << i;  // 2 h, and the roundoff of t = k h
  }
}

// What the witnesses and the event of a state change are (the element's own functions).
TEST(OneWayClutch, WitnessesAndEvents) {
  OneWayClutch c;
  c.overrun = -1;
  c.link = 4;
  std::vector<Witness> w;
  one_way_witnesses(c, true, 1e-13, 2e-12, w);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, WitnessKind::stick_lower);  // o = -1: r D + lambda reaching 0
  EXPECT_EQ(w[0].index, 4);
  EXPECT_EQ(w[0].direction, -1);
  EXPECT_EQ(w[0].level, -2e-12);  // the reserve margin past 0
  w.clear();
  one_way_witnesses(c, false, 1e-13, 2e-12, w);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, WitnessKind::slip_velocity);  // v rising to +margin
  EXPECT_EQ(w[0].direction, +1);
  EXPECT_EQ(w[0].level, 1e-13);
  EXPECT_EQ(one_way_event(1, 0), EventKind::lock);
  EXPECT_EQ(one_way_event(0, -1), EventKind::overrun);
  c.law.static_ratio = 3.0;
  c.law.viscous = 0.5;
  EXPECT_EQ(one_way_limit(c, 2.0), 6.0);
  EXPECT_EQ(one_way_drag(c, -4.0, 2.0), -2.0 - 2.0);  // o D + mu v
  EXPECT_EQ(one_way_utilisation(c, 3.0, 6.0), 0.0);   // the locking side
  EXPECT_EQ(one_way_utilisation(c, -3.0, 6.0), 0.5);
}

// The YAML form, its defaults, and a model reduced through a rigid
// connection: a backstop on a body merged into another through ratio -2
// turns the other way on the kept body (v = -2 v'): its overrun flips.
TEST(OneWayClutch, ReadsAndReduces) {
  const ModelSpec spec = io::parse_model_spec(R"(
simulation: {t_end: 1, output_step: 0.1}
bodies:
  a: {inertia: 1}
  b: {inertia: 3}
elements:
  fw: {type: one_way_clutch, body: a}
  link: {type: spring, bodies: [a, b], ratio: -2, stiffness: .inf}
)", "test", ".");
  const auto& fw = std::get<OneWayClutchSpec>(spec.elements[0]);
  EXPECT_EQ(fw.overrun, "positive");
  EXPECT_EQ(fw.static_ratio, 1.0);
  EXPECT_EQ(fw.coulomb.kind, Signal::Kind::constant);
  EXPECT_EQ(fw.coulomb.value, 0.0);
  const Model m = assemble(spec);
  ASSERT_EQ(m.one_way_clutches.size(), 1u);
  EXPECT_EQ(m.body_names[m.one_way_clutches[0].law.row.body[0]], "b");
  EXPECT_EQ(m.one_way_clutches[0].overrun, -1);
  EXPECT_EQ(m.links[m.one_way_clutches[0].link].kind, LinkKind::one_way);
  EXPECT_EQ(m.link_element(m.one_way_clutches[0].link), m.element_id("fw"));
}

// A planetary set (ring/sun 2) driven at its sun by 10 N m, its carrier on a
// viscous load (1 N m s), its ring held by a drag-free freewheel (locking in
// -) beside a brake of 30 N m; a clutch from the sun to the ring slips with a
// limit rising at 500 N m/s from 1 s. The ring rests with its torque 3 T - 20
// + 6 w_c' against the freewheel while negative, then against the brake,
// which gives way at 30 N m: 14 w_c' + w_c = 30 - 1500 (t - 1) from w_c(1) =
// 30 (1 - e^{-1/14}), so the ring breaks away and its freewheel overruns at
// t = 1.0443589216150610 s (30 digits). The loop of the brake and the
// freewheel (nullity 1) was split with the freewheel's zero limit taken at its
// roundoff: a utilisation of 1e15, the group's reserve root at every CVODE step
// from 1.0358 s (286 stops, the break-away 4e-12 s off; a new-user hunt).
TEST(OneWayClutch, AFreewheelBesideABrakeInALoopSplitsItsTorqueWithoutChatter) {
  const Model m = assemble(io::parse_model_spec(R"(
simulation: {t_end: 1.2, output_step: 0.01, rtol: 1e-10, atol: 1e-12, integrator: cvode_bdf}
bodies: {sun: {inertia: 1.0}, car: {inertia: 5.0}, ring: {inertia: 0.1}}
elements:
  ps: {type: planetary, sun: sun, carrier: car, ring: ring, ratio: 2}
  T: {type: torque, body: sun, torque: 10}
  load: {type: friction, body: car, viscous: 1, coulomb: 0}
  ow: {type: one_way_clutch, body: ring, overrun: positive}
  brake: {type: friction, body: ring, coulomb: 30}
  cl: {type: friction, bodies: [sun, ring], coulomb: {ramp: {start: 1.0, end: 1.1, initial: 0, final: 50}}}
)", "loop.yaml", "."));
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  ASSERT_GE(r.events.size(), 2u);
  EXPECT_EQ(r.element_names[r.events[0].element], "brake");
  EXPECT_EQ(r.events[0].kind, EventKind::break_away);
  EXPECT_EQ(r.element_names[r.events[1].element], "ow");
  EXPECT_EQ(r.events[1].kind, EventKind::overrun);
  for (int e = 0; e < 2; ++e) EXPECT_NEAR(r.events[e].t, 1.0443589216150610, 1e-9) << e;
  EXPECT_LE(r.stats.events, 3);  // the break-away and the clutch's lock-up: no stops in between
}

}  // namespace
}  // namespace luztar
