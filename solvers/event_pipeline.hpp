#pragma once
// The event pipeline of the event-driven solver: what happens whenever the
// clock stops (at t_start, at roots, at signal breakpoints and sample
// instants, after an input change, for a snapshot), written once in named
// stages (see solvers/simulator.hpp for the states at t- and t+):
//   collect roots      which root functions crossed, in which direction
//   apply crossings    freeplay sides, massless branches; friction arrivals and
//                      break-aways noted for the selection
//   sample blocks      sampled blocks due now read the system (Simulator decides
//                      the order: a changed output is a re-selection)
//   impacts            rigid freeplays whose teeth met (solvers/impacts.hpp)
//   mode selection     S-S procedure over every element at zero relative velocity
//   log                every element whose state changed, into the event log
//   restart            the mode structure rebuilt, the integrator reset at state.t
//   leave rest         what rests on a kink of its law or at its limit and starts
//                      to move with no witness to see it (a spring on its flank,
//                      a stuck element at its limit, a spring held on a kink by
//                      an element that breaks away): its branch from the motion,
//                      restarted again
// The entry points are start(), at_roots() and reselect(); restart() alone
// restarts the integrator in the same modes (a snapshot).
#include <limits>
#include <vector>

#include "bodies/clusters.hpp"
#include "core/model.hpp"
#include "core/result.hpp"
#include "solvers/dynamics.hpp"
#include "solvers/energy_quadratures.hpp"
#include "solvers/impacts.hpp"
#include "solvers/integrator.hpp"
#include "solvers/mode_selection.hpp"
#include "solvers/sim_data.hpp"

namespace luztar {

// Everything the pipeline reads and changes, owned by the Simulator.
struct PipelineTargets {
  SimData& data;                   // the state it changes
  Workspace& ws;                   // scratch of evaluations
  ModeStructure& ms;               // the structure of the current modes
  std::vector<double>& y;          // the integrator's state vector (ms packing)
  Integrator& integrator;          // restarted at the end of every stop
  std::vector<EventRecord>& log;   // the event log
};

class EventPipeline {
 public:
  // Sizes all storage once: handling an event allocates nothing.
  EventPipeline(const Model& model, const SimulationSettings& settings, const PipelineTargets& targets);

  // The stop at t_start: initial sides and modes, first samples, teeth that
  // approach, the S-S selection of the bodies at rest, restart. Logs only the impacts of teeth that meet there.
  void start();
  // The stop at a root of the integrator: crossings, missed strikes, impacts,
  // selection when a friction element or a contact was involved, log,
  // restart. Roots that change nothing (turnarounds in a gap) leave the
  // integrator going on.
  void at_roots();
  // A stop that may change the structure without a root (breakpoint, changed
  // block output or input, inconsistent stuck element, missed strike): massless
  // branches, missed strikes, selection of every element at zero relative
  // velocity, log, restart.
  void reselect();
  // Rebuilds the structure for the current modes and restarts the integrator at state.t.
  void restart();
  // After a change of input values that leaves every mode consistent, with an
  // integrator that holds the inputs: restart() without rebuilding the
  // structure, when nothing it depends on changed. Returns false (nothing
  // done: restart() is due) when something may have.
  bool restart_for_inputs();

  // Sampled blocks due at state.t read the system there and set their held
  // outputs. Returns whether an output changed.
  bool sample_blocks();
  // Whether every stuck element is within its limit and no contact pulls (else
  // a re-selection is due: a reserve that reached zero without a sign change
  // the integrator could see, e.g. a clutch opening to MT0 = 0 while unloaded),
  // within 1e-9 between stops, within the torques' roundoff before a restart
  // (at_restart: the integrator then reads every sign afresh).
  bool stuck_consistent(bool at_restart = false);
  // A lossy gear's part of it: its mesh torque on its mode's side, stuck its
  // loss in its cone, within `relative` of its torques and `roundoff` of their scale.
  bool gear_consistent(int gear, double relative, double roundoff) const;
  // Teeth of a rigid freeplay found past a flank while in the gap.
  bool has_missed_strike() const;
  // Forces, accelerations and static torques at the current state into ws.
  void evaluate_static_torques();
  bool has_massless() const { return has_massless_; }

 private:
  void initial_modes();
  void close_segment();
  void restart_integrator(bool inputs_only);
  bool collect_roots(const std::vector<int>& found) const;
  bool apply_crossings(const std::vector<int>& found);
  void mark_touched_reserves(const std::vector<int>& found);
  void apply_own_mode(const Witness& w);
  void set_massless_side(int body, int side);
  void place_massless_bodies();
  void exhausted_in_group(const StaticSplit& sp, std::vector<BreakAway>& out);
  void strike();
  bool find_missed_strikes();
  bool past_flank(std::size_t s) const;
  void add_lock_candidates(double tolerance);
  void add_contact_candidates();
  void set_moving(int link, double v);
  void select_at_event();
  void select_modes();
  void log_changes();
  void leave_rest(bool own_log);
  bool enter_kinks_from_rest(bool own_log);
  bool break_away_at_limits(bool own_log);
  double reserve_scale(const Witness& w) const;
  double reserve_roundoff(std::size_t r) const;
  double link_torque_scale(int link) const;
  double applied_scale(int link) const;
  void link_torque_scales();
  bool find_leaving_reserves();
  // Where probe_reserves stands: at a root the integrator found, or at a restart.
  enum class ReserveProbe { at_root, at_restart };
  enum class ReserveExit { stays, leaves, flat };  // classify_reserve's answer
  bool probe_reserves(ReserveProbe at);
  ReserveExit classify_reserve(std::size_t r, ReserveProbe at) const;
  void cross_knots_from_rest();
  void probe_accelerations();
  double probe_state();
  void count_instant(bool every_root);
  bool decide_by_curvature(double dt);
  void record_event_time();
  bool can_lock(int link) const;
  // The integrator's rest tolerance on the bodies' velocities [rad/s]
  // (Integrator::resolution: atol for CVODE, 0 for exact, whose rest is the
  // rates' roundoff alone).
  double rest_velocity() const { return integrator.resolution(settings.atol, settings.rtol, 0.0).velocity; }
  void projection_weights();
  void book_projection_shares(double lost);

  const Model& model;
  const SimulationSettings& settings;
  SimData& data;
  State& state;  // data.state
  Workspace& ws;
  ModeStructure& ms;
  std::vector<double>& y;
  Integrator& integrator;
  std::vector<EventRecord>& events;
  const bool has_massless_;
  // Storage kept between events, so that handling one allocates nothing.
  State before;                      // modes before the event (log_changes)
  std::vector<int> arrived;          // links (friction, one-way) whose relative velocity reached 0
  std::vector<BreakAway> exhausted;  // stuck elements whose reserve reached 0, unloading contacts
  std::vector<int> struck;           // rigid freeplays whose teeth just met
  std::vector<std::int8_t> struck_side;  // (ns) the side each was struck at
  ImpactWorkspace impact;            // the impact LCP's storage
  std::vector<int> candidates;       // elements the S-S selection decides
  LockedRows links;                  // their rows
  LockedClusters locked;             // their clusters (velocity projection)
  ModeSelectionScratch selection;
  std::vector<int> directions;       // (max_root_count) root directions for the integrator
  std::vector<double> probe_y, probe_ydot, probe_acc;  // (2 nb, 2 nb, nb) enter_kinks_from_rest
  std::vector<Witness> resting_knots;                   // knot roots at rest (cross_knots_from_rest)
  std::vector<int> leaving;                             // (max_root_count) reserves leaving 0 (probe_reserves)
  std::vector<double> g_now, g_probe, g_scale;          // (max_root_count) their witnesses now and a moment later; reserve scales
  std::vector<double> g_roundoff;                      // (max_root_count) their roundoff from the angles, one eps (solved_torque_roundoffs)
  std::vector<std::int8_t> flat;                        // (max_root_count) reserves flat to first order (decide_by_curvature)
  std::vector<std::int8_t> touched;                     // (max_root_count) reserve roots found at a touch (mark_touched_reserves)
  std::vector<double> probe_curve;                      // (2 nb) y'' (decide_by_curvature)
  EnergyQuadratures energies;        // the integrator's quadratures at a restart
  std::vector<double> share;         // (links) the candidates' weights in a projection's loss
  std::vector<double> torque_scale;                     // (links) [N m] link_torque_scales, at the last restart
  double last_instant_ = std::numeric_limits<double>::quiet_NaN();  // the last instant counted (count_instant)
  double signal_scale_ = 0.0;                           // the largest number of the model's signals (else 1)

};

}  // namespace luztar
