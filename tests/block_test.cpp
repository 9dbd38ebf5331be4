// The block of Part 2, section 3.1 under a sinusoidal torque against its
// closed-form solution.
//
// Derivation. With I q'' = F0 sin(w t) - c q' - s MT0 while slipping in
// direction s = +-1, the velocity obeys v' + a v = (F0/I) sin(w t) - s MT0/I,
// a = c/I, whose solution from (t0, v0) is
//   v(t) = vp(t) + (v0 - vp(t0)) exp(-a (t - t0)),
//   vp(t) = A sin(w t) + B cos(w t) - s MT0/c,
//   A = (F0/I) a / (a^2 + w^2),  B = -(F0/I) w / (a^2 + w^2),
// and q(t) = q0 + P(t) - P(t0) + (v0 - vp(t0)) (1 - exp(-a (t - t0))) / a with
//   P(t) = -A/w cos(w t) + B/w sin(w t) - s MT0 t / c.
// A slip ends when v(t) = 0: if then |F(t)| <= MT0 the block sticks (q frozen),
// otherwise it reverses. A stick ends when |F(t)| = MT0, i.e. at the next time
// sin(w t) = +-MT0/F0, and the block slips in the direction of F.
// Event times are found here by bracketing and bisection to 1e-15 s.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar {
namespace {

struct Phase {
  double t0, t1;
  int s;        // 0 stuck, +-1 slipping
  double q0, v0;
};

class BlockSolution {
 public:
  BlockSolution(double I, double c, double mt0, double F0, double f, double t_end)
      : I_(I), c_(c), mt0_(mt0), F0_(F0), w_(2 * std::numbers::pi * f) {
    const double a = c / I;
    A_ = (F0 / I) * a / (a * a + w_ * w_);
    B_ = -(F0 / I) * w_ / (a * a + w_ * w_);
    // Starts at rest with F(0) = 0: stuck.
    double t = 0, q = 0, v = 0;
    int s = 0;
    while (t < t_end) {
      Phase p{t, t_end, s, q, v};
      if (s == 0) {
        p.t1 = std::min(t_end, next_break(t));
        t = p.t1;
        s = force(t) > 0 ? 1 : -1;
        // q unchanged, v = 0
      } else {
        p.t1 = std::min(t_end, next_zero_velocity(p));
        t = p.t1;
        q = angle(p, t);
        v = 0;
        s = std::abs(force(t)) <= mt0_ ? 0 : -s;
      }
      phases.push_back(p);
    }
  }

  double force(double t) const { return F0_ * std::sin(w_ * t); }
  double vp(double t, int s) const { return A_ * std::sin(w_ * t) + B_ * std::cos(w_ * t) - s * mt0_ / c_; }
  double P(double t, int s) const { return -A_ / w_ * std::cos(w_ * t) + B_ / w_ * std::sin(w_ * t) - s * mt0_ * t / c_; }
  double velocity(const Phase& p, double t) const {
    if (p.s == 0) return 0.0;
    return vp(t, p.s) + (p.v0 - vp(p.t0, p.s)) * std::exp(-c_ / I_ * (t - p.t0));
  }
  double angle(const Phase& p, double t) const {
    if (p.s == 0) return p.q0;
    const double a = c_ / I_;
    return p.q0 + P(t, p.s) - P(p.t0, p.s) + (p.v0 - vp(p.t0, p.s)) * (1 - std::exp(-a * (t - p.t0))) / a;
  }
  const Phase& phase_at(double t) const {
    for (const Phase& p : phases)
      if (t <= p.t1) return p;
    return phases.back();
  }

  std::vector<Phase> phases;

 private:
  template <class F>
  static double bisect(F&& g, double lo, double hi) {
    double glo = g(lo);
    for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
      const double mid = 0.5 * (lo + hi);
      const double gm = g(mid);
      if ((gm > 0) == (glo > 0)) {
        lo = mid;
        glo = gm;
      } else {
        hi = mid;
      }
    }
    return 0.5 * (lo + hi);
  }
  double next_break(double t0) const {
    auto g = [&](double t) { return std::abs(force(t)) - mt0_; };
    const double h = 1e-4;
    double t = t0 + 1e-12;
    while (g(t + h) < 0) t += h;
    return bisect(g, t, t + h);
  }
  double next_zero_velocity(const Phase& p) const {
    auto g = [&](double t) { return velocity(p, t) * p.s; };
    const double h = 1e-4;
    double t = p.t0 + 1e-9;
    while (g(t + h) > 0) t += h;
    return bisect(g, t, t + h);
  }

  double I_, c_, mt0_, F0_, w_, A_, B_;
};

// The largest deviations of a run of models/block.yaml from the closed form;
// also checks the event kinds and the stuck phases (exact zero velocity,
// static friction balancing the drive to 1e-12 N m).
struct Deviation {
  double event_time = 0, angle = 0, velocity = 0;
};
Deviation deviation_from_closed_form(const Result& r) {
  const BlockSolution exact(1.0, 0.5, 1.0, 2.0, 0.5, r.time.back());
  Deviation d;
  // Event times and kinds: one event per phase boundary.
  EXPECT_EQ(r.events.size(), exact.phases.size() - 1);
  for (std::size_t i = 0; i < r.events.size() && i + 1 < exact.phases.size(); ++i) {
    const Phase& next = exact.phases[i + 1];
    d.event_time = std::max(d.event_time, std::abs(r.events[i].t - next.t0));
    const EventKind expected = next.s == 0 ? EventKind::stick
                               : exact.phases[i].s == 0 ? EventKind::break_away
                                                        : EventKind::reversal;
    EXPECT_EQ(r.events[i].kind, expected) << "event " << i << " at t = " << r.events[i].t;
  }
  // Trajectory in each phase.
  for (int k = 0; k < r.num_samples(); ++k) {
    const double t = r.time[k];
    const Phase& p = exact.phase_at(t);
    d.angle = std::max(d.angle, std::abs(r.angle[k] - exact.angle(p, t)));
    d.velocity = std::max(d.velocity, std::abs(r.velocity[k] - exact.velocity(p, t)));
    if (p.s == 0 && r.element_state[k * r.num_elements()] == 0) {
      EXPECT_EQ(r.velocity[k], 0.0) << "t = " << t;  // exactly zero while stuck
      // static friction balances the drive
      EXPECT_NEAR(r.element_torque[k * r.num_elements()], exact.force(t), 1e-12);
    }
  }
  return d;
}

// The model as written (integrator auto), which resolves to the exact
// integrator: closed-form propagation, events and samples at roundoff.
// Measured: events within 2.5e-15 s, angle and velocity within 1e-14.
TEST(Block, ExactMatchesClosedForm) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  ASSERT_EQ(m.simulation.integrator, "auto");
  const Result r = simulate(m);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.integrator, "exact");
  const Deviation d = deviation_from_closed_form(r);
  std::printf("exact: events %.2e s, angle %.2e rad, velocity %.2e rad/s\n", d.event_time, d.angle, d.velocity);
  EXPECT_LE(d.event_time, 1e-12);
  EXPECT_LE(d.angle, 1e-12);
  EXPECT_LE(d.velocity, 1e-12);
}

// The same with CVODE's BDF method at the model's rtol 1e-10, atol 1e-12.
TEST(Block, MatchesClosedFormEventTimesAndTrajectory) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  SimulationSettings s = m.simulation;
  s.integrator = "cvode_bdf";
  const Result r = simulate(m, s);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.integrator, "cvode_bdf");
  const Deviation d = deviation_from_closed_form(r);
  EXPECT_LT(d.event_time, 1e-8);
  EXPECT_LT(d.angle, 1e-7);
  EXPECT_LT(d.velocity, 1e-7);
}

// The same block between events integrated by CVODE's Adams-Moulton method
// (simulation.integrator: cvode_adams) at the model's rtol 1e-10, atol 1e-12.
// Measured: events within 6.2e-12 s, angle 3.8e-12 rad, velocity 1.2e-11
// rad/s (339 steps); the bounds leave a factor of about ten.
TEST(Block, AdamsMatchesClosedForm) {
  const Model m = io::load_model(LUZTAR_MODELS_DIR "/block.yaml");
  SimulationSettings s = m.simulation;
  s.integrator = "cvode_adams";
  const Result r = simulate(m, s);
  ASSERT_EQ(r.status, StepStatus::reached_time) << r.message;
  EXPECT_EQ(r.integrator, "cvode_adams");
  EXPECT_EQ(Simulator(m, s).integrator_name(), std::string("cvode_adams"));
  const Deviation d = deviation_from_closed_form(r);
  std::printf("cvode_adams: events %.2e s, angle %.2e rad, velocity %.2e rad/s, %ld steps\n", d.event_time, d.angle,
              d.velocity, r.stats.steps);
  EXPECT_LT(d.event_time, 1e-10);
  EXPECT_LT(d.angle, 5e-11);
  EXPECT_LT(d.velocity, 1.5e-10);
}

}  // namespace
}  // namespace luztar
