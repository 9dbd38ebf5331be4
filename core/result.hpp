#pragma once
// Result of a run: sampled trajectories, event log, statistics and status.
// Matrices are row-major (time-major): value(k, j) = data[k * ncols + j].
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace luztar {

// How a run (or an advance_to call) ended. Not an exception: a run that stops
// early still returns everything up to where it stopped.
enum class StepStatus { reached_time, event_limit, event_storm, solver_failure };
const char* to_string(StepStatus s);

// What changed at an event.
enum class EventKind {
  stick,        // friction: slipping -> stuck (relative velocity reached 0 and static torque fits)
  break_away,   // friction: stuck -> slipping (required static torque reached the limit)
  reversal,     // friction: slipping through zero velocity into the other direction
  contact,      // freeplay spring: gap closed, teeth in contact (side 0 -> +1 or -1)
  separation,   // freeplay spring: contact lost, back inside the gap (side +-1 -> 0)
  impact,       // rigid freeplay: teeth struck at side `from`, velocities jumped; `to` is the side
                // after (0: rebound, +-1: at rest in contact, also logged as a contact)
  stage,        // spring with a stiffness table: a knot crossed, segment `before` -> `after`
  lock,         // one-way clutch: overrunning -> locked (relative velocity reached 0 and it holds)
  overrun,      // one-way clutch: locked -> overrunning (the torque against overrun reached its limit)
  power_flow,   // lossy gear: the power through its mesh reversed while moving (forward <-> back-driven)
};
const char* to_string(EventKind k);
inline constexpr int kNumEventKinds = 10;

struct EventRecord {
  double t = 0.0;           // [s]
  int element = -1;         // element id (Model::element_names)
  EventKind kind = EventKind::stick;
  std::int8_t before = 0;   // element state before (see Result::element_state)
  std::int8_t after = 0;    // element state after
  // The element's relative velocity x' at the event [rad/s] (its coordinate,
  // Result::element_relative_velocity): for an impact the approach before the
  // strike, else x' after the event (a contact: the speed the teeth met at).
  // NaN in a file written before luztar stored it.
  double rate = std::numeric_limits<double>::quiet_NaN();
};

struct RunStats {
  long steps = 0;                // CVODE steps (time stepping: steps of size h)
  long rhs_evals = 0;            // right-hand side evaluations
  long jac_evals = 0;            // Jacobian evaluations
  long root_evals = 0;           // root function evaluations
  long nonlinear_iters = 0;      // Newton iterations
  long error_test_fails = 0;     // local error test failures
  long events = 0;               // event instants handled (each may change several elements)
  long reinits = 0;              // CVodeReInit calls (events + signal breakpoints)
  long redundant_splits = 0;     // mode segments whose static friction split was not unique
  long input_restarts = 0;       // exact: restarts after an input change that kept the mode structure
                                 // (counted in reinits too; EventPipeline::restart_for_inputs)
  double velocity_projection_loss = 0.0;  // kinetic energy removed when zeroing relative
                                          // velocities at events (counted as dissipated) [J]
  long lcp_not_converged = 0;    // time stepping: steps whose box-LCP missed its tolerance
  long impacts = 0;              // event-driven: impact instants of rigid freeplays (each may strike several)
  double impact_loss = 0.0;      // event-driven: kinetic energy lost in impacts (counted as dissipated) [J]
  long missed_strikes = 0;       // event-driven: teeth found past their flank (a rebound flight below the
                                 // integration tolerance), struck where found
  // Outcomes of the event-time solvers that are not failures of the run but
  // say how far its modes and jumps can be trusted (README, "Output files", /run):
  long selection_fallbacks = 0;  // event-driven: S-S groups whose box QP missed its tolerance, re-solved by
                                 // Lemke's pivoting (solvers/mode_selection.hpp)
  long selection_unsolved = 0;   // event-driven: S-S groups whose box-LCP still missed its tolerance after
                                 // that; modes were chosen from the best iterate
  long impact_fallbacks = 0;     // event-driven: impacts whose Lemke pivoting failed or missed its tolerance,
                                 // re-solved by projected Gauss-Seidel (solvers/impacts.hpp)
  long impacts_unsolved = 0;     // event-driven: impacts whose LCP neither solver met; the impulses are the
                                 // better iterate's
  // The largest relative energy residual over the samples (time stepping: at
  // the last), each against the run's largest term (core/energy.hpp
  // check_energy_balance), and whether it exceeds the integrator's limit (a
  // suspect run; README, "Energy balance").
  double energy_residual = 0.0;
  bool energy_residual_exceeded = false;
  double wall_time = 0.0;        // [s]
};

struct Result {
  std::vector<std::string> body_names;     // (nb)
  std::vector<std::string> element_names;  // (ne)
  std::vector<std::string> element_kinds;  // (ne) "spring" | "friction" | "torque" | "force" | "one_way_clutch"
  // (nb) 1 for a translational body: its angle, velocity and acceleration are
  // in m, m/s and m/s^2; (ne) 1 for an element on translational bodies: its
  // torque is a force [N], its relative angle and velocity in m and m/s.
  // Empty (a Result made by hand, or read from a file that has none): rotational.
  std::vector<std::uint8_t> body_translational, element_translational;

  std::vector<double> time;            // (nt) output grid [s]
  std::vector<double> angle;           // (nt x nb) [rad]
  std::vector<double> velocity;        // (nt x nb) [rad/s]
  // (nt x ne) element torque [N m]: spring k*luz(x,a) + c*x' (acts -T on body a, +p*T on b);
  // friction torque opposing the relative velocity (static friction while stuck);
  // one-way clutch likewise (its drag overrunning, the torque it carries locked);
  // torque element: the applied torque.
  std::vector<double> element_torque;
  // (nt x ne) element state: friction -1 slip-, 0 stuck, +1 slip+; spring -1/0/+1 freeplay
  // side (0 = inside the gap), a table spring its segment 0..n (n points; 0 below the
  // first); one-way clutch 0 locked, o (+1 or -1, its overrun direction)
  // overrunning; lossy gear 0 stuck, s forward (a drives b), 2 s back-driven (b
  // drives a), s = sgn w_a; torque elements 0.
  std::vector<std::int8_t> element_state;
  // Per element and per body (README, "Output files"; empty in a Result read
  // from a file written before they existed: luztar info, compare and
  // luztar.read use the datasets a file has):
  // (nt x ne) the coordinate the element acts on [rad]: a spring's, friction's or
  // one-way clutch's x = q_a - ratio q_b, a torque load its body's angle.
  std::vector<double> element_relative;
  std::vector<double> element_relative_velocity;  // (nt x ne) its rate x' [rad/s]
  // (nt x ne) power the element takes from the bodies, -sum_i f_i w_i = T x' [W]:
  // > 0 absorbed (stored or dissipated), < 0 delivered (a load driving, a
  // spring releasing energy). Time stepping: the step's torque times x' at mid-step.
  std::vector<double> element_power;
  // (nt x ne) energy the element has dissipated since t_start [J]: its damping
  // or slip power, its share of impact and velocity-projection losses; the
  // row sums to `dissipated` (to roundoff). 0 for torque loads.
  std::vector<double> element_dissipated;
  // (nt x nb) body accelerations [rad/s^2], right limits at an event instant;
  // NaN for a massless (first-order) body, whose velocity is algebraic.
  // Time stepping: (v_k+1 - v_k)/h of the step holding the sample.
  std::vector<double> acceleration;
  // (nt x nb) the torque [N m] each body's drive applies (a prescribed body,
  // core/model_spec.hpp BodySpec::prescribed; 0 for the others); empty when
  // the model prescribes no motion (then not stored).
  std::vector<double> drive_torque;
  std::vector<double> input_work;  // (nt) [J]
  std::vector<double> kinetic;     // (nt) [J]
  std::vector<double> elastic;     // (nt) [J]
  std::vector<double> dissipated;  // (nt) [J] includes velocity projection losses
  // Sampled blocks of the control path (Model::sampled): their held outputs.
  std::vector<std::string> block_names;  // (nsb) Model::sampled_names
  std::vector<std::string> block_units;  // (nsb) their SI units (core/units.hpp block_units)
  std::vector<double> block_output;      // (nt x nsb) [block_units]
  // The model's named inputs (Model::input_names), which a run does not record
  // (the host sets them): named so that Result's inputs.<input> is refused as
  // not recorded, not as missing. nullopt when not known (a Result read from a file).
  std::optional<std::vector<std::string>> input_names;

  std::vector<EventRecord> events;
  std::vector<double> time_stuck;  // (ne) seconds each friction element spent stuck, each one-way clutch locked (0 for others)

  StepStatus status = StepStatus::reached_time;
  std::string message;
  RunStats stats;
  // What integrated the run: event-driven, the integrator between events
  // (exact | cvode_bdf | cvode_adams: simulation.integrator with auto resolved);
  // time stepping, moreau_jean.
  std::string integrator;
  // Why `integrator` is not the one simulation.integrator: auto chose first
  // (exact met a mode it cannot serve and the run was repeated); empty otherwise.
  std::string integrator_note;

  // Room for n more samples in every per-sample column, so that a run whose
  // output grid is known (sample_on_grid) stores its samples without
  // reallocating (and copying) the columns as they grow.
  void reserve_samples(std::size_t n);

  int num_samples() const { return static_cast<int>(time.size()); }
  int num_bodies() const { return static_cast<int>(body_names.size()); }
  int num_elements() const { return static_cast<int>(element_names.size()); }
  int num_blocks() const { return static_cast<int>(block_names.size()); }
  // The unit of body j's (element e's) quantity whose rotational unit is `si`
  // (kBodyQuantities, kElementQuantities): translational_unit(si) on a translational one.
  const char* body_unit(int j, const char* si) const { return of_kind(body_translational, j, si); }
  const char* element_unit(int e, const char* si) const { return of_kind(element_translational, e, si); }
  static const char* of_kind(const std::vector<std::uint8_t>& translational, int i, const char* si) {
    return i < static_cast<int>(translational.size()) && translational[i] ? translational_unit(si) : si;
  }
  // The unit of block b's output; unit::of_signal when not known (a Result made by hand).
  const char* block_unit(int b) const {
    return b < static_cast<int>(block_units.size()) ? block_units[b].c_str() : unit::of_signal;
  }
};

}  // namespace luztar
