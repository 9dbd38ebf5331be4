// The embedding API of Simulator: named inputs and outputs, stepping at a fixed
// rate, input changes against closed forms, snapshot/restore bit for bit, the
// event limit as a status, one read-only model shared by several simulators.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "io/yaml_model.hpp"
#include "tests/model_builder.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

Model parse(const std::string& text) { return assemble(io::parse_model_spec(text, "test.yaml", ".")); }

// The gear train of models/ with the load torque as an input (held at its
// file value -0.1 N m) and a sine drive.
Model gear_train_with_input() {
  return parse(test::gear_train_with_input_yaml("{t_end: 2.0, output_step: 0.001, rtol: 1.0e-8, atol: 1.0e-10}"));
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(Embedding, SteppingAtOneMillisecondEqualsOneRun) {
  const Model m = gear_train_with_input();
  const Result run = simulate(m);
  Simulator sim(m);
  const InputId load = sim.input("load");
  const OutputId phi = sim.output("phi.angle"), mesh = sim.output("mesh.torque");
  EXPECT_EQ(sim.input("load_phi").index, load.index);  // the torque element names its input too
  std::vector<double> angle = {sim.value(phi)}, torque = {sim.value(mesh)};
  for (int k = 1; k <= 2000; ++k) {
    sim.set_input(load, -0.1);  // the host sets it every step; unchanged, it costs nothing
    ASSERT_EQ(sim.advance_to(k * 1e-3), StepStatus::reached_time) << sim.message();
    angle.push_back(sim.value(phi));
    torque.push_back(sim.value(mesh));
  }
  ASSERT_EQ(run.num_samples(), 2001);
  const int nb = run.num_bodies(), ne = run.num_elements();
  for (int k = 0; k <= 2000; ++k) {
    EXPECT_EQ(angle[k], run.angle[k * nb + 3]) << k;
    EXPECT_EQ(torque[k], run.element_torque[k * ne + 1]) << k;
  }
  ASSERT_EQ(sim.events().size(), run.events.size());
  for (std::size_t i = 0; i < run.events.size(); ++i) EXPECT_EQ(sim.events()[i].t, run.events[i].t);
}

// A block on a bearing (inertia I, viscous c, Coulomb MT0 = 1) driven by an input u.
Model block_with_input(double viscous) {
  return parse("simulation: {t_end: 2.0, output_step: 0.001, rtol: 1.0e-11, atol: 1.0e-13}\n"
               "signals:\n  u: {input: 0}\n"
               "bodies:\n  block: {inertia: 2.0}\n"
               "elements:\n  bearing: {type: friction, body: block, viscous: " + std::to_string(viscous) +
               ", coulomb: 1.0}\n  push: {type: torque, body: block, torque: u}\n");
}

TEST(Embedding, InputStepBreaksAwayAtOnceAndFollowsTheClosedForm) {
  // Stuck at rest with u = 0. At t0 = 0.3 the host sets u = 3 > MT0 = 1: the
  // S-S selection runs there (break-away exactly at t0), then
  //   I w' = u - MT0 - c w  =>  w(t) = (u - MT0)/c (1 - exp(-c (t - t0) / I)).
  const double I = 2.0, c = 0.5, u = 3.0, t0 = 0.3;
  const Model m = block_with_input(c);
  Simulator sim(m);
  const InputId in = sim.input("u");
  const OutputId w = sim.output("block.velocity"), st = sim.output("bearing.state"), f = sim.output("bearing.torque");
  ASSERT_EQ(sim.advance_to(t0), StepStatus::reached_time);
  EXPECT_EQ(sim.value(st), 0.0);   // stuck
  EXPECT_EQ(sim.value(w), 0.0);
  sim.set_input(in, u);
  EXPECT_EQ(sim.value(sim.output("u")), u);
  for (double t = t0 + 0.1; t <= 2.0 + 1e-12; t += 0.1) {
    ASSERT_EQ(sim.advance_to(t), StepStatus::reached_time);
    EXPECT_NEAR(sim.value(w), (u - 1.0) / c * (1.0 - std::exp(-c * (t - t0) / I)), 1e-9) << t;
    EXPECT_EQ(sim.value(st), 1.0);
    // the element torque T acts as -T on its body (core/result.hpp): T = MT0 + c w while slipping forward
    EXPECT_NEAR(sim.value(f), 1.0 + c * sim.value(w), 1e-12);
  }
  ASSERT_FALSE(sim.events().empty());
  EXPECT_EQ(sim.events().front().kind, EventKind::break_away);
  EXPECT_EQ(sim.events().front().t, t0);
}

// An input changed while the body slides (no structure change): w' = 10 u - w
// (I 0.1, viscous 0.1) from w = e^-0.1 at 0.1 s, so at 0.2 s w = 10 u +
// (e^-0.1 - 10 u) e^-0.1. CVODE went on with its history of the old torque
// across the jump: BDF's error test failed at once (h 4e-8, a solver
// failure), Adams ended 1.8e-5 off at rtol 1e-8 with reached_time (a
// new-user hunt). Every integrator restarts at the change now.
TEST(Embedding, AnInputChangedWhileSlidingFollowsTheClosedFormInEveryIntegrator) {
  for (const char* integrator : {"exact", "cvode_bdf", "cvode_adams"})
    for (double u : {0.5, 5.0, -0.1}) {
      const Model m = parse(std::string("simulation: {t_end: 1.0, output_step: 0.001, integrator: ") + integrator +
                            "}\nsignals: {u: {input: 0.0}}\nbodies: {a: {inertia: 0.1, velocity: 1.0}}\n"
                            "elements:\n  push: {type: torque, body: a, torque: u}\n"
                            "  drag: {type: friction, body: a, coulomb: 0, viscous: 0.1}\n");
      Simulator sim(m);
      const OutputId w = sim.output("a.velocity");
      ASSERT_EQ(sim.advance_to(0.1), StepStatus::reached_time);
      sim.set_input(sim.input("u"), u);
      ASSERT_EQ(sim.advance_to(0.2), StepStatus::reached_time) << integrator << " " << u << ": " << sim.message();
      const double e = std::exp(-0.1), want = 10.0 * u + (e - 10.0 * u) * e;
      // exact: the roundoff of 200 sub-steps; CVODE: its rtol 1e-8 (the model's default), tenfold
      EXPECT_NEAR(sim.value(w), want, (integrator[0] == 'e' ? 1e-13 : 1e-7) * std::abs(want)) << integrator << " " << u;
    }
}

// A host stepping at 1 Hz sets 1 N m on a motor at rest (a shaft of 500 N
// m/rad to a load): CVODE's restart at the jump tried its last step (about
// 1 s, the state being quiet) as its first, failed its error test 7 times
// and stopped the run (a review finding); it now restarts with its own
// estimate when that trial fails, and agrees with exact to its rtol.
TEST(Embedding, AnInputJumpAfterALongQuietStepIsServedByEveryIntegrator) {
  std::vector<double> w;
  for (const char* integrator : {"exact", "cvode_bdf", "cvode_adams"}) {
    const Model m = parse(std::string("simulation: {t_end: 3, output_step: 0.01, integrator: ") + integrator +
                          "}\nsignals: {u: {input: 0.0}}\nbodies: {motor: {inertia: 0.01}, load: {inertia: 0.2}}\n"
                          "elements:\n  drive: {type: torque, body: motor, torque: u}\n"
                          "  shaft: {type: spring, bodies: [motor, load], stiffness: 500, damping: 0.2}\n"
                          "  drag: {type: friction, body: load, coulomb: 0, viscous: 0.05}\n");
    Simulator sim(m);
    ASSERT_EQ(sim.advance_to(1.0), StepStatus::reached_time);
    sim.set_input(sim.input("u"), 1.0);
    for (double t : {2.0, 3.0}) ASSERT_EQ(sim.advance_to(t), StepStatus::reached_time) << integrator << ": " << sim.message();
    w.push_back(sim.value(sim.output("load.velocity")));
  }
  EXPECT_NEAR(w[1], w[0], 1e-6 * w[0]);  // CVODE: rtol 1e-8 (the default), its global error a hundredfold
  EXPECT_NEAR(w[2], w[0], 1e-6 * w[0]);
}

TEST(Embedding, InputBelowTheLimitKeepsTheBodyStuck) {
  const Model m = block_with_input(0.0);
  Simulator sim(m);
  sim.set_input(sim.input("u"), 0.9);
  ASSERT_EQ(sim.advance_to(1.0), StepStatus::reached_time);
  EXPECT_EQ(sim.value(sim.output("block.velocity")), 0.0);
  EXPECT_NEAR(sim.value(sim.output("bearing.torque")), 0.9, 1e-12);  // static friction -T balances u
  EXPECT_TRUE(sim.events().empty());
}

// A snapshot restored into a simulator that had run elsewhere goes on as in
// a fresh one, bit for bit: a worm gear (lossy) driving a shaft spring into a
// rack stop, exact. Its reserves' margins (1e-12 of the torques about them)
// followed the torques where each structure was built, while the exact
// integrator's cached mode kept the margin of its first visit: the two runs
// ended 1e-13 rad apart (a review). The margins now take powers of two of
// the torque scale, each its own mode (elements/witness.hpp margin_scale).
TEST(Embedding, ARestoredSnapshotGoesOnAsInAFreshSimulator) {
  const Model m = parse(
      "simulation: {t_end: 5.0, output_step: 0.001}\n"
      "bodies:\n  m: {inertia: 0.01, velocity: 100.0}\n  c: {inertia: 1.0, velocity: 6.0606060606060606}\n"
      "  e: {inertia: 0.2, velocity: 6.0606060606060606}\n"
      "elements:\n"
      "  worm: {type: lossy_gear, bodies: [m, c], ratio: 16.5, efficiency_forward: 0.8, efficiency_back: 0.6, "
      "bearing_friction: 0.05}\n"
      "  sh: {type: spring, bodies: [c, e], stiffness: 5.0e5, freeplay: 0.001, damping: 1.0}\n"
      "  motor: {type: torque, body: m, torque: {sine: {amplitude: 2.0, frequency: 1.0}}}\n"
      "  rack: {type: spring, body: e, stiffness: 300.0, freeplay: 0.5}\n");
  Simulator first(m);
  ASSERT_STREQ(first.integrator_name(), "exact");
  ASSERT_EQ(first.advance_to(0.77), StepStatus::reached_time) << first.message();
  const Snapshot snap = first.snapshot();
  Simulator fresh(m), used(m);
  ASSERT_EQ(used.advance_to(0.3), StepStatus::reached_time) << used.message();
  fresh.restore(snap);
  used.restore(snap);
  const std::size_t fresh_logged = fresh.events().size(), used_logged = used.events().size();
  for (int k = 1; k <= 80; ++k) {
    const double t = 1.0 + 0.0137 * k;
    ASSERT_EQ(fresh.advance_to(t), StepStatus::reached_time) << fresh.message();
    ASSERT_EQ(used.advance_to(t), StepStatus::reached_time) << used.message();
  }
  EXPECT_EQ(fresh.state().q, used.state().q);
  EXPECT_EQ(fresh.state().w, used.state().w);
  ASSERT_EQ(fresh.events().size() - fresh_logged, used.events().size() - used_logged);  // (the log is each one's own)
  for (std::size_t k = 0; k < fresh.events().size() - fresh_logged; ++k)
    EXPECT_EQ(fresh.events()[fresh_logged + k].t, used.events()[used_logged + k].t) << k;
}

TEST(Embedding, SnapshotRestoreRepeatsBitForBit) {
  const Model m = gear_train_with_input();
  Simulator sim(m);
  const InputId load = sim.input("load");
  std::vector<OutputId> outs;
  for (const char* n : {"psi.angle", "delta.velocity", "gamma.angle", "phi.velocity", "mesh.torque", "bearing_phi.torque",
                        "bearing_phi.state", "mesh.state"})
    outs.push_back(sim.output(n));
  auto record = [&](double from, double to) {
    std::vector<double> v;
    for (int k = 1; from + k * 1e-3 <= to + 1e-12; ++k) {
      sim.set_input(load, -0.1 - 0.3 * std::sin(7.0 * (from + k * 1e-3)));  // a changing input, every step
      EXPECT_EQ(sim.advance_to(from + k * 1e-3), StepStatus::reached_time);
      for (const OutputId& o : outs) v.push_back(sim.value(o));
    }
    return v;
  };
  record(0.0, 0.7);
  const Snapshot snap = sim.snapshot();
  const std::size_t events_at_snapshot = sim.events().size();
  const std::vector<double> first = record(0.7, 1.5);
  const RunStats first_stats = sim.stats();
  const std::vector<EventRecord> first_events(sim.events().begin() + events_at_snapshot, sim.events().end());
  ASSERT_GT(first_events.size(), 10u);
  sim.restore(snap);
  EXPECT_EQ(sim.time(), snap.state.t);
  EXPECT_EQ(sim.events().size(), events_at_snapshot);
  const std::vector<double> second = record(0.7, 1.5);
  EXPECT_TRUE(same_bits(first, second));
  // the counters too, the integrator's steps included (they went on from
  // 1.5 s: a new-user hunt; its probes are fewer now, its modes identified)
  const RunStats second_stats = sim.stats();
  EXPECT_EQ(second_stats.steps, first_stats.steps);
  EXPECT_EQ(second_stats.events, first_stats.events);
  ASSERT_EQ(sim.events().size() - events_at_snapshot, first_events.size());
  for (std::size_t i = 0; i < first_events.size(); ++i) {
    EXPECT_EQ(sim.events()[events_at_snapshot + i].t, first_events[i].t);
    EXPECT_EQ(sim.events()[events_at_snapshot + i].element, first_events[i].element);
  }
  // A second simulator restored from the snapshot repeats it too.
  Simulator other(m);
  other.restore(snap);
  std::vector<double> third;
  const InputId load2 = other.input("load");
  for (int k = 1; 0.7 + k * 1e-3 <= 1.5 + 1e-12; ++k) {
    other.set_input(load2, -0.1 - 0.3 * std::sin(7.0 * (0.7 + k * 1e-3)));
    ASSERT_EQ(other.advance_to(0.7 + k * 1e-3), StepStatus::reached_time);
    for (const OutputId& o : outs) third.push_back(other.value(o));
  }
  EXPECT_TRUE(same_bits(first, third));
  EXPECT_EQ(other.stats().steps, first_stats.steps);
}

TEST(Embedding, ChatterEndsInTheEventLimitStatus) {
  // Coulomb friction under a 500 Hz torque of 1.5 MT0: stick and break-away
  // every half period, 2000 events per second; the limit is 100 events.
  const Model m = parse("simulation: {t_end: 100.0, output_step: 0.001, max_events: 100}\n"
                        "bodies:\n  b: {inertia: 1.0e-3}\n"
                        "elements:\n  bearing: {type: friction, body: b, coulomb: 1.0}\n"
                        "  buzz: {type: torque, body: b, torque: {sine: {amplitude: 1.5, frequency: 500}}}\n");
  Simulator sim(m);
  EXPECT_EQ(sim.advance_to(100.0), StepStatus::event_limit);
  EXPECT_LT(sim.time(), 1.0);
  EXPECT_NE(sim.message().find("more than 100 events (simulation.max_events)"), std::string::npos) << sim.message();
}

// At the limit the simulator stays stopped, as a run does: every further
// advance_to answers event_limit with the same message and time and handles
// no event more (before, each call handled one more event, moved the clock on
// and answered event_limit again: a new-user hunt). Its state is sound, so
// a snapshot may be taken there; a snapshot from before, restored, runs to
// the same limit at the same time, bit for bit.
TEST(Embedding, TheEventLimitStopsTheSimulatorThere) {
  const Model m = parse("simulation: {t_end: 100.0, output_step: 0.001, max_events: 100}\n"
                        "bodies:\n  b: {inertia: 1.0e-3}\n"
                        "elements:\n  bearing: {type: friction, body: b, coulomb: 1.0}\n"
                        "  buzz: {type: torque, body: b, torque: {sine: {amplitude: 1.5, frequency: 500}}}\n");
  Simulator sim(m);
  ASSERT_EQ(sim.advance_to(0.01), StepStatus::reached_time) << sim.message();
  ASSERT_LT(sim.stats().events, 100);
  const Snapshot before = sim.snapshot();
  ASSERT_EQ(sim.advance_to(100.0), StepStatus::event_limit);
  const std::string why = sim.message();
  const double stopped_at = sim.time();
  const long events = sim.stats().events;
  const std::size_t logged = sim.events().size();
  const double w = sim.state().w[0];
  EXPECT_EQ(events, 101);  // the instant that passed the limit of 100
  EXPECT_EQ(why, "more than 100 events (simulation.max_events) by t = " + shortest(stopped_at) + " s");
  for (const double t : {stopped_at, stopped_at + 1e-4, 50.0, 100.0}) {
    EXPECT_EQ(sim.advance_to(t), StepStatus::event_limit) << t;
    EXPECT_EQ(sim.message(), why);
    EXPECT_EQ(sim.time(), stopped_at);
    EXPECT_EQ(sim.stats().events, events);
    EXPECT_EQ(sim.events().size(), logged);
    EXPECT_EQ(sim.state().w[0], w);
  }
  const Snapshot at_limit = sim.snapshot();  // a sound state
  EXPECT_EQ(at_limit.state.t, stopped_at);
  sim.restore(before);
  EXPECT_EQ(sim.advance_to(100.0), StepStatus::event_limit);
  EXPECT_EQ(sim.message(), why);
  EXPECT_EQ(sim.time(), stopped_at);
  EXPECT_EQ(sim.state().w[0], w);
}

// An event storm stops the simulator there as the event limit does (before,
// each later advance_to handled one more event and answered event_storm
// again: a host loop crept on one event a call).
TEST(Embedding, AnEventStormStopsTheSimulatorThere) {
  // a light body rattling in a stiff freeplay spring, an event every ~1e-4 s,
  // declared a storm by a deliberately strict setting
  const Model m = parse("simulation: {t_end: 1.0, output_step: 0.001, event_storm: {events: 20, span: 0.01}}\n"
                        "bodies:\n  ball: {inertia: 1.0e-6, velocity: 10}\n"
                        "elements:\n  wall: {type: spring, body: ball, stiffness: 1.0e4, freeplay: 1.0e-3}\n");
  Simulator sim(m);
  ASSERT_EQ(sim.advance_to(1.0e-3), StepStatus::reached_time) << sim.message();
  const Snapshot before = sim.snapshot();
  ASSERT_EQ(sim.advance_to(1.0), StepStatus::event_storm);
  const std::string why = sim.message();
  const double stopped_at = sim.time();
  const std::size_t logged = sim.events().size();
  const double w = sim.state().w[0];
  EXPECT_EQ(logged, 20u);
  EXPECT_NE(why.find("event storm: 20 events within"), std::string::npos) << why;
  for (const double t : {stopped_at, stopped_at + 1e-4, 0.5, 1.0}) {
    EXPECT_EQ(sim.advance_to(t), StepStatus::event_storm) << t;
    EXPECT_EQ(sim.message(), why);
    EXPECT_EQ(sim.time(), stopped_at);
    EXPECT_EQ(sim.events().size(), logged);
    EXPECT_EQ(sim.state().w[0], w);
  }
  EXPECT_EQ(sim.snapshot().state.t, stopped_at);  // a sound state
  sim.restore(before);
  EXPECT_EQ(sim.advance_to(1.0), StepStatus::event_storm);
  EXPECT_EQ(sim.message(), why);
  EXPECT_EQ(sim.time(), stopped_at);
  EXPECT_EQ(sim.state().w[0], w);
}

TEST(Embedding, NamesAndValuesAreChecked) {
  const Model m = gear_train_with_input();
  Simulator sim(m);
  try {
    sim.input("torque");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "no input 'torque' (the model's inputs: load)");
  }
  EXPECT_THROW(sim.input("drive_psi"), std::invalid_argument);  // driven by a sine, not an input
  EXPECT_THROW(sim.output("phi.angel"), std::invalid_argument);
  EXPECT_THROW(sim.output("nothing"), std::invalid_argument);
  const InputId load = sim.input("load");
  EXPECT_THROW(sim.set_input(load, NAN), std::invalid_argument);
  EXPECT_THROW(sim.set_input(load, 6.0), std::invalid_argument);  // upper bound 5
  EXPECT_THROW(sim.set_input(InputId{7}, 0.0), std::invalid_argument);
  EXPECT_EQ(sim.input_value(load), -0.1);
  // Inputs are named signals only.
  EXPECT_THROW(parse("simulation: {t_end: 1, output_step: 0.1}\nbodies: {b: {inertia: 1}}\n"
                     "elements: {t: {type: torque, body: b, torque: {input: 0}}}\n"),
               ModelError);
}

TEST(Embedding, OneModelServesSimulatorsOnSeveralThreads) {
  const Model m = gear_train_with_input();  // shared, read-only
  auto run = [&m](double load, std::vector<double>* out) {
    Simulator sim(m);
    sim.set_input(sim.input("load"), load);
    const OutputId o = sim.output("phi.velocity");
    for (int k = 1; k <= 500; ++k) {
      sim.advance_to(k * 1e-3);
      out->push_back(sim.value(o));
    }
  };
  std::vector<double> a, b, a_alone, b_alone;
  std::thread ta(run, -0.1, &a), tb(run, 0.3, &b);
  ta.join();
  tb.join();
  run(-0.1, &a_alone);
  run(0.3, &b_alone);
  EXPECT_TRUE(same_bits(a, a_alone));
  EXPECT_TRUE(same_bits(b, b_alone));
  EXPECT_FALSE(same_bits(a, b));
}

}  // namespace
}  // namespace luztar
