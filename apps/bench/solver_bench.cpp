// luztar_solver_bench: event-driven against Moreau-Jean time stepping on the
// gear train (models/gear_train.yaml) and on the rigid gear backlash
// (models/rigid_backlash.yaml, impacts, over its first rattle: 0.3 s), wall
// time for the same accuracy.
//
// Accuracy is the largest angle error of any body on the 1 ms output grid
// against an event-driven reference at rtol 1e-11 (atol 1e-13), over 1 s:
// the rattle in the mesh makes later event times sensitive to any
// perturbation (tests/gear_train_test.cpp), so longer horizons measure chaos,
// not the solvers. Event-driven runs sweep rtol (atol = rtol / 100), time
// stepping sweeps h (theta 1/2). For each target accuracy the cheapest run of
// each family that reaches it is reported, and the ratio of their wall times.
// Wall times are the median of 3 runs.
//
// Figures are printed, never asserted.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/bench/bench_main.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace {

using namespace luztar;

struct Point {
  std::string label;
  double error = 0.0;  // [rad]
  double wall = 0.0;   // [s]
  long steps = 0;
};

double median_wall(const Model& m, const SimulationSettings& s, Result& out) {
  std::vector<double> walls;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    out = simulate(m, s);
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(walls.begin(), walls.end());
  return walls[1];
}

double angle_error(const Result& a, const Result& ref) {
  double e = 0.0;
  for (std::size_t i = 0; i < a.angle.size() && i < ref.angle.size(); ++i)
    e = std::max(e, std::abs(a.angle[i] - ref.angle[i]));
  return a.angle.size() == ref.angle.size() ? e : INFINITY;
}

const Point* cheapest(const std::vector<Point>& family, double target) {
  const Point* best = nullptr;
  for (const Point& p : family)
    if (p.error <= target && (!best || p.wall < best->wall)) best = &p;
  return best;
}

// One model: the reference, both families, and the cheapest run of each per target.
void compare(const std::string& title, const Model& m, double t_end, const std::vector<double>& rtols,
             const std::vector<double>& steps, const std::vector<double>& targets) {
  SimulationSettings base = m.simulation;
  base.t_end = t_end;
  base.solver = "event_driven";
  SimulationSettings tight = base;
  tight.rtol = 1e-11;
  tight.atol = 1e-13;
  const Result ref = simulate(m, tight);

  std::printf("%s, %g s, angle error against event-driven rtol 1e-11\n", title.c_str(), t_end);
  std::printf("%-28s %12s %10s %10s\n", "run", "error [rad]", "wall [s]", "steps");
  std::vector<Point> events, stepping;
  Result r;
  for (double rtol : rtols) {
    SimulationSettings s = base;
    s.rtol = rtol;
    s.atol = rtol * 1e-2;
    const double wall = median_wall(m, s, r);
    char label[64];
    std::snprintf(label, sizeof label, "event-driven rtol %.0e", rtol);
    events.push_back({label, angle_error(r, ref), wall, r.stats.steps});
    std::printf("%-28s %12.3e %10.4f %10ld\n", label, events.back().error, wall, r.stats.steps);
  }
  for (double h : steps) {
    SimulationSettings s = base;
    s.solver = "time_stepping";
    s.step = h;
    const double wall = median_wall(m, s, r);
    char label[64];
    std::snprintf(label, sizeof label, "time stepping h %.1e", h);
    stepping.push_back({label, angle_error(r, ref), wall, r.stats.steps});
    std::printf("%-28s %12.3e %10.4f %10ld\n", label, stepping.back().error, wall, r.stats.steps);
  }
  std::printf("\n%-12s %-28s %10s   %-28s %10s %8s\n", "target [rad]", "cheapest event-driven", "wall [s]",
              "cheapest time stepping", "wall [s]", "TS / ED");
  for (double target : targets) {
    const Point* e = cheapest(events, target);
    const Point* t = cheapest(stepping, target);
    std::printf("%-12.0e %-28s %10s   %-28s %10s", target, e ? e->label.c_str() : "(none)",
                e ? std::to_string(e->wall).c_str() : "-", t ? t->label.c_str() : "(none)",
                t ? std::to_string(t->wall).c_str() : "-");
    if (e && t) std::printf(" %8.1f", t->wall / e->wall);
    std::printf("\n");
  }
  std::printf("\n");
}

}  // namespace

int run(const std::vector<std::string>& args) {
  const std::string models = !args.empty() ? args[0] : LUZTAR_MODELS_DIR;
  compare("gear train", io::load_model(models + "/gear_train.yaml"), 1.0, {1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10},
          {1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7}, {1e-4, 1e-5, 1e-6, 1e-7});
  // Rigid teeth: every strike an event against an impact located within a step.
  compare("rigid backlash", io::load_model(models + "/rigid_backlash.yaml"), 0.3, {1e-6, 1e-7, 1e-8, 1e-9, 1e-10},
          {4e-5, 2e-5, 1e-5, 5e-6, 2.5e-6}, {1e-4, 1e-5, 1e-6});
  return 0;
}

int main(int argc, char** argv) {
  return luztar::app::bench_main(argc, argv, "usage: luztar_solver_bench [MODELS_DIR]", {}, run);
}
