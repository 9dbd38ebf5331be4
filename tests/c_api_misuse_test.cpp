// The C API (apps/c_api/luztar.h) misused: every entry point with null handles and
// strings, times that are not finite, backwards or past simulation.t_end, the
// model freed before its simulator (clean under ASan), the same output asked
// twice, and a run stopped by an exception. Only the C functions are called.
//
// The model, tests/data/block_overflow.yaml: a body from rest under 1 N m on a
// viscous bearing 0.5 N m s (I = 1), q = 2 t - 4 (1 - e^(-t/2)); a control
// block whose LCP has no solution at t = 0.18 s stops its run there.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "luztar.h"

namespace {

const std::string kModel = std::string(LUZTAR_TEST_DATA_DIR) + "/block_overflow.yaml";

double closed_form_angle(double t) { return 2.0 * t - 4.0 * (1.0 - std::exp(-t / 2.0)); }

luztar_model* load() {
  luztar_model* m = nullptr;
  EXPECT_EQ(luztar_model_load(kModel.c_str(), &m), LUZTAR_OK) << luztar_last_error();
  return m;
}

// The overflow model's body alone (motor and viscous bearing, the same
// closed form), without the block, up to t_end.
luztar_model* load_plain(const char* t_end) {
  const std::string yaml = std::string("simulation: {t_end: ") + t_end +
                           ", output_step: 0.1}\nbodies:\n  load: {inertia: 1.0}\n"
                           "elements:\n  motor: {type: torque, body: load, torque: 1.0}\n"
                           "  bearing: {type: friction, body: load, coulomb: 0, viscous: 0.5}\n";
  luztar_model* m = nullptr;
  EXPECT_EQ(luztar_model_parse(yaml.c_str(), &m), LUZTAR_OK) << luztar_last_error();
  return m;
}

luztar_simulator* start(const luztar_model* m) {
  luztar_simulator* s = nullptr;
  EXPECT_EQ(luztar_simulator_new(m, &s), LUZTAR_OK) << luztar_last_error();
  return s;
}

double angle_now(luztar_simulator* sim) {
  const int angle = luztar_output(sim, "load.angle");
  double q = NAN;
  EXPECT_EQ(luztar_value(sim, angle, &q), LUZTAR_OK) << luztar_last_error();
  return q;
}

// The simulator shares the model: freeing the model first leaves it working
// (before, this read freed memory: ASan's heap-use-after-free), and each of
// two simulators of one model outlives the other and the model.
TEST(CApi, FreeingTheModelBeforeItsSimulatorsIsSafe) {
  luztar_model* m = load();
  luztar_simulator* a = start(m);
  luztar_simulator* b = start(m);
  luztar_model_free(m);
  ASSERT_EQ(luztar_advance_to(a, 0.1), LUZTAR_OK) << luztar_last_error();
  EXPECT_NEAR(angle_now(a), closed_form_angle(0.1), 1e-7);
  luztar_simulator_free(a);
  ASSERT_EQ(luztar_advance_to(b, 0.15), LUZTAR_OK) << luztar_last_error();
  EXPECT_NEAR(angle_now(b), closed_form_angle(0.15), 1e-7);
  luztar_simulator_free(b);
}

// A time that is not finite, lies before the simulator's time or past
// simulation.t_end (1 s) is refused with LUZTAR_BAD_ARGUMENT and the rule,
// and the simulator is left where it was; now and t_end themselves are fine.
TEST(CApi, AdvanceToRefusesBadTimes) {
  luztar_model* m = load();
  luztar_simulator* sim = start(m);
  ASSERT_EQ(luztar_advance_to(sim, 0.05), LUZTAR_OK) << luztar_last_error();
  const auto refused = [&](double t) {
    EXPECT_EQ(luztar_advance_to(sim, t), LUZTAR_BAD_ARGUMENT) << "t = " << t;
    EXPECT_EQ(luztar_time(sim), 0.05);
    return std::string(luztar_last_error());
  };
  const std::string rule = " must be a finite time in [0.05, 1] (from the simulator's time to simulation.t_end)";
  EXPECT_EQ(refused(NAN), "luztar_advance_to: t = nan" + rule);
  EXPECT_EQ(refused(INFINITY), "luztar_advance_to: t = inf" + rule);
  EXPECT_EQ(refused(-INFINITY), "luztar_advance_to: t = -inf" + rule);
  EXPECT_EQ(refused(0.04), "luztar_advance_to: t = 0.04" + rule);
  EXPECT_EQ(refused(1.5), "luztar_advance_to: t = 1.5" + rule);
  EXPECT_EQ(luztar_advance_to(sim, 0.05), LUZTAR_OK);  // now: nothing to do
  EXPECT_STREQ(luztar_last_error(), "");
  EXPECT_NEAR(angle_now(sim), closed_form_angle(0.05), 1e-7);
  luztar_simulator_free(sim);
  luztar_model_free(m);
}

TEST(CApi, AdvanceToTheEndTimeItselfIsAllowed) {
  luztar_model* m = load_plain("0.5");
  ASSERT_NE(m, nullptr);
  luztar_simulator* sim = start(m);
  ASSERT_EQ(luztar_advance_to(sim, 0.5), LUZTAR_OK) << luztar_last_error();
  EXPECT_EQ(luztar_time(sim), 0.5);
  EXPECT_NEAR(angle_now(sim), closed_form_angle(0.5), 1e-7);
  luztar_simulator_free(sim);
  luztar_model_free(m);
}

// A host stepping t = k * 1e-3 to t_end = 0.7 asks for 700 * 1e-3 =
// 0.7000000000000001 last: the same instant as t_end, not past it (times a
// few ulp apart are one instant, core/times.hpp). Asking again for a time a
// few ulp before the simulator's own is the same instant too: nothing to do.
TEST(CApi, TimesAFewUlpFromTheEndOrNowAreTheSameInstant) {
  luztar_model* m = load_plain("0.7");
  ASSERT_NE(m, nullptr);
  luztar_simulator* sim = start(m);
  for (int k = 1; k <= 700; ++k) ASSERT_EQ(luztar_advance_to(sim, k * 1e-3), LUZTAR_OK) << k << luztar_last_error();
  EXPECT_NEAR(luztar_time(sim), 0.7, 1e-15);
  EXPECT_NEAR(angle_now(sim), closed_form_angle(0.7), 1e-7);
  EXPECT_EQ(luztar_advance_to(sim, std::nextafter(luztar_time(sim), 0.0)), LUZTAR_OK) << luztar_last_error();
  EXPECT_EQ(luztar_advance_to(sim, 0.69), LUZTAR_BAD_ARGUMENT);
  luztar_simulator_free(sim);
  luztar_model_free(m);
}

// The same output asked twice (or through another of its names) is one id;
// another output is another id.
TEST(CApi, SameOutputTwiceGivesTheSameId) {
  luztar_model* m = load();
  luztar_simulator* sim = start(m);
  const int angle = luztar_output(sim, "load.angle");
  const int velocity = luztar_output(sim, "load.velocity");
  ASSERT_GE(angle, 0);
  ASSERT_GE(velocity, 0);
  EXPECT_NE(angle, velocity);
  EXPECT_EQ(luztar_output(sim, "load.angle"), angle);
  EXPECT_EQ(luztar_output(sim, "load.velocity"), velocity);
  EXPECT_EQ(luztar_output(sim, "load.angle"), angle);
  EXPECT_EQ(luztar_output(sim, "no.such"), -1);
  EXPECT_EQ(std::string(luztar_last_error()).rfind("no output 'no.such'", 0), 0u) << luztar_last_error();
  double v = NAN;
  EXPECT_EQ(luztar_value(sim, 2, &v), LUZTAR_BAD_ARGUMENT);  // only ids 0 and 1 exist
  EXPECT_STREQ(luztar_last_error(), "luztar_value: unknown output id 2");
  luztar_simulator_free(sim);
  luztar_model_free(m);
}

// Every entry point given a null handle, string or result pointer answers
// LUZTAR_BAD_ARGUMENT (-1 for ids, NaN for the time) naming the argument;
// freeing null does nothing.
TEST(CApi, NullArgumentsAreRefused) {
  luztar_model* m = load();
  luztar_simulator* sim = start(m);
  luztar_model* no_model = nullptr;
  luztar_simulator* no_sim = nullptr;
  luztar_snapshot* no_snapshot = nullptr;
  const auto refused = [](luztar_status s, const char* why) {
    EXPECT_EQ(s, LUZTAR_BAD_ARGUMENT) << why;
    EXPECT_STREQ(luztar_last_error(), why);
  };
  refused(luztar_model_load(nullptr, &no_model), "luztar_model_load: path is null");
  refused(luztar_model_load(kModel.c_str(), nullptr), "luztar_model_load: out is null");
  refused(luztar_model_parse(nullptr, &no_model), "luztar_model_parse: yaml_text is null");
  refused(luztar_model_parse("bodies: {}", nullptr), "luztar_model_parse: out is null");
  refused(luztar_simulator_new(nullptr, &no_sim), "luztar_simulator_new: model is null");
  refused(luztar_simulator_new(m, nullptr), "luztar_simulator_new: out is null");
  EXPECT_EQ(no_model, nullptr);
  EXPECT_EQ(no_sim, nullptr);
  EXPECT_EQ(luztar_input(nullptr, "x"), -1);
  EXPECT_STREQ(luztar_last_error(), "luztar_input: null argument");
  EXPECT_EQ(luztar_input(sim, nullptr), -1);
  EXPECT_STREQ(luztar_last_error(), "luztar_input: null argument");
  EXPECT_EQ(luztar_output(nullptr, "load.angle"), -1);
  EXPECT_STREQ(luztar_last_error(), "luztar_output: null argument");
  EXPECT_EQ(luztar_output(sim, nullptr), -1);
  EXPECT_STREQ(luztar_last_error(), "luztar_output: null argument");
  refused(luztar_set_input(nullptr, 0, 1.0), "luztar_set_input: sim is null");
  refused(luztar_advance_to(nullptr, 0.1), "luztar_advance_to: sim is null");
  double v = 0.0;
  refused(luztar_value(nullptr, 0, &v), "luztar_value: sim is null");
  refused(luztar_value(sim, luztar_output(sim, "load.angle"), nullptr), "luztar_value: value is null");
  EXPECT_TRUE(std::isnan(luztar_time(nullptr)));
  EXPECT_STREQ(luztar_last_error(), "luztar_time: sim is null");
  luztar_stats stats;
  refused(luztar_get_stats(nullptr, &stats), "luztar_get_stats: sim is null");
  refused(luztar_get_stats(sim, nullptr), "luztar_get_stats: out is null");
  refused(luztar_snapshot_take(nullptr, &no_snapshot), "luztar_snapshot_take: sim is null");
  refused(luztar_snapshot_take(sim, nullptr), "luztar_snapshot_take: out is null");
  refused(luztar_snapshot_restore(nullptr, no_snapshot), "luztar_snapshot_restore: sim is null");
  refused(luztar_snapshot_restore(sim, nullptr), "luztar_snapshot_restore: snapshot is null");
  // The model has no inputs: any id is unknown.
  EXPECT_EQ(luztar_set_input(sim, 0, 1.0), LUZTAR_BAD_ARGUMENT);
  EXPECT_STREQ(luztar_last_error(), "set_input: unknown input id 0");
  luztar_model_free(nullptr);
  luztar_simulator_free(nullptr);
  luztar_snapshot_free(nullptr);
  EXPECT_EQ(luztar_time(sim), 0.0);  // the simulator was not touched
  luztar_simulator_free(sim);
  luztar_model_free(m);
}

// A run stopped by an exception (the block's LCP at t = 0.18 s) is
// LUZTAR_SOLVER_FAILURE with the exception's text, again on every call, until
// a snapshot from before is restored.
TEST(CApi, ExceptionDuringARunIsASolverFailureUntilRestored) {
  luztar_model* m = load();
  luztar_simulator* sim = start(m);
  ASSERT_EQ(luztar_advance_to(sim, 0.1), LUZTAR_OK) << luztar_last_error();
  luztar_snapshot* snap = nullptr;
  ASSERT_EQ(luztar_snapshot_take(sim, &snap), LUZTAR_OK) << luztar_last_error();
  const std::string why =
      "stopped by an error at t = 0.18 s: complementarity block runaway: input is not finite (inf) at t = 0.18 s";
  EXPECT_EQ(luztar_advance_to(sim, 0.5), LUZTAR_SOLVER_FAILURE);
  EXPECT_EQ(luztar_last_error(), why);
  EXPECT_NEAR(luztar_time(sim), 0.18, 1e-12);
  EXPECT_EQ(luztar_advance_to(sim, 0.6), LUZTAR_SOLVER_FAILURE);
  EXPECT_EQ(luztar_last_error(), why);
  luztar_snapshot* broken = nullptr;
  EXPECT_EQ(luztar_snapshot_take(sim, &broken), LUZTAR_INTERNAL);
  EXPECT_EQ(broken, nullptr);
  ASSERT_EQ(luztar_snapshot_restore(sim, snap), LUZTAR_OK) << luztar_last_error();
  ASSERT_EQ(luztar_advance_to(sim, 0.17), LUZTAR_OK) << luztar_last_error();
  EXPECT_NEAR(angle_now(sim), closed_form_angle(0.17), 1e-7);
  luztar_snapshot_free(snap);
  luztar_simulator_free(sim);
  luztar_model_free(m);
}

// An integrator failure is the same stop (as tests/data/huge_input.yaml, a free
// body I = 1 under a host input u: v = u t): u = 1 to t = 0.5 s, a snapshot,
// then u = 1e300 overflows CVODE's input work at once. Before, the failure's
// time moved on with every call and luztar_snapshot_take succeeded (a
// snapshot of a state CVODE never reached). After the restore, v = t again.
TEST(CApi, AnIntegratorFailureIsASolverFailureUntilRestored) {
  for (const char* integrator : {"exact", "cvode_bdf"}) {
    SCOPED_TRACE(integrator);
    luztar_model* m = nullptr;
    std::string yaml = "simulation: {t_end: 4.0, output_step: 0.25, integrator: " + std::string(integrator) +
                       "}\nsignals:\n  u: {input: 0.0}\nbodies:\n  b: {inertia: 1.0}\n"
                       "elements:\n  drive: {type: torque, body: b, torque: u}\n";
    ASSERT_EQ(luztar_model_parse(yaml.c_str(), &m), LUZTAR_OK) << luztar_last_error();
    luztar_simulator* sim = start(m);
    const int u = luztar_input(sim, "u"), v = luztar_output(sim, "b.velocity");
    ASSERT_EQ(luztar_set_input(sim, u, 1.0), LUZTAR_OK) << luztar_last_error();
    ASSERT_EQ(luztar_advance_to(sim, 0.5), LUZTAR_OK) << luztar_last_error();
    luztar_snapshot* snap = nullptr;
    ASSERT_EQ(luztar_snapshot_take(sim, &snap), LUZTAR_OK) << luztar_last_error();
    const double huge = std::string(integrator) == "exact" ? 1e308 : 1e300;
    ASSERT_EQ(luztar_set_input(sim, u, huge), LUZTAR_OK);
    EXPECT_EQ(luztar_advance_to(sim, 3.0), LUZTAR_SOLVER_FAILURE);
    const std::string why = luztar_last_error();
    EXPECT_EQ(why.rfind(std::string(integrator) + " failed at t = ", 0), 0u) << why;
    const double stopped_at = luztar_time(sim);
    // stopped at the last finite state it reached: v = 0.5 + u (t - 0.5) there
    // (before, exact's luztar_value and luztar_time read the overflowed NaN)
    double w_stop = NAN;
    ASSERT_EQ(luztar_value(sim, v, &w_stop), LUZTAR_OK) << luztar_last_error();
    const double w_closed = 0.5 + huge * (stopped_at - 0.5);
    EXPECT_TRUE(std::isfinite(stopped_at) && std::isfinite(w_stop)) << stopped_at << " " << w_stop;
    EXPECT_NEAR(w_stop, w_closed, 1e-12 * std::abs(w_closed));
    EXPECT_EQ(luztar_advance_to(sim, 3.5), LUZTAR_SOLVER_FAILURE);
    EXPECT_EQ(luztar_last_error(), why);
    EXPECT_EQ(luztar_time(sim), stopped_at);
    luztar_snapshot* broken = nullptr;
    EXPECT_EQ(luztar_snapshot_take(sim, &broken), LUZTAR_INTERNAL);
    EXPECT_EQ(broken, nullptr);
    ASSERT_EQ(luztar_snapshot_restore(sim, snap), LUZTAR_OK) << luztar_last_error();
    ASSERT_EQ(luztar_advance_to(sim, 1.0), LUZTAR_OK) << luztar_last_error();
    double w = NAN;
    ASSERT_EQ(luztar_value(sim, v, &w), LUZTAR_OK) << luztar_last_error();
    EXPECT_NEAR(w, 1.0, 1e-8);
    luztar_snapshot_free(snap);
    luztar_simulator_free(sim);
    luztar_model_free(m);
  }
}

// The event limit stops the simulator there as LUZTAR_EVENT_LIMIT, again on
// every call with the same message and time and no event more (before, each
// call handled one more event and moved the time on); a snapshot may be
// taken there, and one from before, restored, runs to the same limit.
// Coulomb friction under a 500 Hz torque of 1.5 times its limit: a stick and
// a break-away every half period, 2000 events per second; the limit is 100.
TEST(CApi, TheEventLimitStopsTheSimulatorThere) {
  const char* yaml = "simulation: {t_end: 100.0, output_step: 0.001, max_events: 100}\n"
                     "bodies:\n  b: {inertia: 1.0e-3}\n"
                     "elements:\n  bearing: {type: friction, body: b, coulomb: 1.0}\n"
                     "  buzz: {type: torque, body: b, torque: {sine: {amplitude: 1.5, frequency: 500}}}\n";
  luztar_model* m = nullptr;
  ASSERT_EQ(luztar_model_parse(yaml, &m), LUZTAR_OK) << luztar_last_error();
  luztar_simulator* sim = start(m);
  ASSERT_EQ(luztar_advance_to(sim, 0.01), LUZTAR_OK) << luztar_last_error();
  luztar_snapshot* before = nullptr;
  ASSERT_EQ(luztar_snapshot_take(sim, &before), LUZTAR_OK) << luztar_last_error();
  ASSERT_EQ(luztar_advance_to(sim, 100.0), LUZTAR_EVENT_LIMIT);
  const std::string why = luztar_last_error();
  EXPECT_EQ(why.rfind("more than 100 events (simulation.max_events) by t = ", 0), 0u) << why;
  const double stopped_at = luztar_time(sim);
  luztar_stats stats{};
  ASSERT_EQ(luztar_get_stats(sim, &stats), LUZTAR_OK) << luztar_last_error();
  EXPECT_EQ(stats.events, 101);
  for (const double t : {stopped_at, 50.0, 100.0}) {
    EXPECT_EQ(luztar_advance_to(sim, t), LUZTAR_EVENT_LIMIT) << t;
    EXPECT_EQ(luztar_last_error(), why);
    EXPECT_EQ(luztar_time(sim), stopped_at);
    luztar_stats again{};
    ASSERT_EQ(luztar_get_stats(sim, &again), LUZTAR_OK) << luztar_last_error();
    EXPECT_EQ(again.events, stats.events);
  }
  luztar_snapshot* at_limit = nullptr;
  EXPECT_EQ(luztar_snapshot_take(sim, &at_limit), LUZTAR_OK) << luztar_last_error();
  ASSERT_EQ(luztar_snapshot_restore(sim, before), LUZTAR_OK) << luztar_last_error();
  EXPECT_EQ(luztar_advance_to(sim, 100.0), LUZTAR_EVENT_LIMIT);
  EXPECT_EQ(luztar_last_error(), why);
  EXPECT_EQ(luztar_time(sim), stopped_at);
  luztar_snapshot_free(at_limit);
  luztar_snapshot_free(before);
  luztar_simulator_free(sim);
  luztar_model_free(m);
}

}  // namespace
