#pragma once
// The table of kinds: what the solvers iterate instead of switching on kinds.
//
// Element kinds (core/model.hpp ElementKind), one file each with the same free
// functions (relation, law: torque and tangent stiffness/damping, witnesses,
// outputs, power) and its row of this table (ElementKindInfo), defined next
// to them:
//   spring    elements/freeplay_spring.hpp   k luz(x, a) + c x' (rigid freeplay: a link)
//   friction  elements/friction.hpp          mu tar(v, MT0/mu), bearings and clutches (a link); tables S tau(|v|)
//   torque    elements/torque_load.hpp       tau(t) on one body
//   one_way_clutch elements/one_way_clutch.hpp a freewheel (a link bounded on one side)
//   link      elements/permanent_link.hpp    a permanent link x' = 0 (a planetary set; a link never released)
//   lossy_gear elements/lossy_gear.hpp       a gear with efficiencies by power flow (a mesh link and a loss link)
// and the first-order law of a massless body on its bearings,
// elements/massless_bearing.hpp (a law of bodies, which the solvers call).
//
// The solvers visit the elements through for_each_element and call their
// rows' functions; none of them names a kind. What stays with the
// solvers is the machinery of links (Model::links: locking, the S-S
// selection, impacts, the time stepper's impulse rows), which reads an
// element's link through Model::links, never its kind.
//
// Witness kinds (elements/witness.hpp): each row names the root function,
// says what its crossing means, and evaluates it.
#include <cstdint>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"
#include "core/state.hpp"
#include "elements/witness.hpp"

namespace luztar {

// Torque and state of an element in a result (core/result.hpp conventions).
struct ElementOutput {
  double torque = 0.0;     // [N m]
  std::int8_t state = 0;   // spring: side; friction: mode code; torque load: 0
};

// The tangent of an element's torque on its coordinate row (core/coordinate.hpp:
// x = sum c_k q_k, the torque T acting as -c_k T on body k): dT/dx and dT/dx'.
struct Tangent {
  double stiffness = 0.0;  // [N m/rad]
  double damping = 0.0;    // [N m s/rad]
};

// The event-driven solver's arrays at one state in one variable structure, as
// the rows read them (pointers into the solver's Workspace; sizes in
// brackets; links: Model::links) ...
struct ModeFrame {
  const State* modes = nullptr;   // the variable structure (sides, friction modes, own modes)
  const double* q = nullptr;      // (nb) angles [rad]
  const double* w = nullptr;      // (nb) velocities [rad/s]
  const double* sigma = nullptr;  // (Model::slots) signal slot values
  const double* lambda = nullptr; // (links) link torques [N m]
};
// ... and write their torques into.
struct ForceTargets {
  double* force = nullptr;   // (nb) applied torques, summed into [N m]
  double* lambda = nullptr;  // (links) link torques [N m]
  double* limit = nullptr;   // (links) static limits [N m]
};

// What an element's witnesses depend on besides its own state: what the
// locked clusters of the structure (bodies/clusters.hpp) hold, and the links a
// stuck group watches as a whole.
struct WitnessContext {
  const State* modes = nullptr;
  const char* rate_held = nullptr;  // (links) 1: the structure holds the contact link's rate x' at 0 identically
  const char* in_group = nullptr;   // (links) 1: watched through its static group's reserve
  double slip_margin = 0.0;         // [rad/s] of the bodies; a link's is row_scale times it (solvers/dynamics.hpp)
  const double* torque_scale = nullptr;  // (links) [N m] each link's torque scale (null: 1; solvers/dynamics.hpp)
};

// The time stepper's arrays (Moreau-Jean, solvers/time_stepping.hpp).
struct StepFrame {
  const double* q = nullptr;        // (nb) angles [rad]: at the step's start (forces) or end (outputs)
  const double* v = nullptr;        // (nb) velocities [rad/s], likewise
  double t = 0.0;                   // [s] the instant of q, v
  double h = 0.0;                   // step [s]
  double h_theta = 0.0;             // h theta [s]
  const double* inputs = nullptr;   // input values (Model::num_input_values)
  const Tangent* tangent = nullptr; // (ne) each element's tangent at the step's start
  // After the impulse LCP: each link's impulse over the step [N m s] (a
  // contact's: + flank minus - flank) and whether it held (friction: stuck
  // within its bound) or which flank pressed (contact: +1 / -1, 0 none).
  const double* link_impulse = nullptr;     // (links)
  const std::int8_t* link_held = nullptr;   // (links)
};

// One row per element kind. i is the element's index among its kind
// (Model::springs, ...); nullptr marks what a kind does not have (output and
// step_output are required; a kind without step_output is refused by the
// time stepper, naming the element).
struct ElementKindInfo {
  ElementKind kind = ElementKind::spring;  // (its name: core/model.hpp, to_string)
  // The event a change of the element's state from `before` to `after` is;
  // nullptr for a kind whose state never changes.
  EventKind (*event)(const Model& m, int i, std::int8_t before, std::int8_t after) = nullptr;
  bool sticks = false;  // state 0 is stuck: booked in Result::time_stuck
  int max_witnesses = 0;  // most witnesses one element watches at once
  // Its coordinate row (core/coordinate.hpp); nullptr for a kind that acts on one body alone.
  const CoordinateRow& (*relation)(const Model& m, int i) = nullptr;
  // For a kind without a relation: the one body it acts on, its torque T acting
  // +T there (a load). Its outputs' coordinate is that body's angle and its
  // power -T w (solvers/element_outputs.hpp).
  int (*body)(const Model& m, int i) = nullptr;
  // The element's state code in `modes` (Result::element_state), logged at events when it changes.
  std::int8_t (*state)(const Model& m, int i, const State& modes) = nullptr;

  // --- event-driven, in the modes of the frame (solvers/dynamics.hpp) ---
  // Its torques (into out.force; a link's into out.lambda and its static limit into out.limit).
  void (*forces)(const Model& m, int i, const ModeFrame& f, const ForceTargets& out) = nullptr;
  // Its tangent on its relation in `modes` at the signal slots `sigma`; false
  // when it adds none there (stuck: a link; solved with an algebraic group).
  bool (*tangent)(const Model& m, int i, const State& modes, const double* sigma, Tangent& out) = nullptr;
  // Appends the witnesses it watches in the context's modes.
  void (*witnesses)(const Model& m, int i, const WitnessContext& c, std::vector<Witness>& out) = nullptr;
  double (*input_power)(const Model& m, int i, const ModeFrame& f) = nullptr;  // [W] work of external torques
  double (*elastic_energy)(const Model& m, int i, const double* q) = nullptr;  // [J] stored at angles q (nb)
  double (*dissipation)(const Model& m, int i, const ModeFrame& f) = nullptr;  // [W]
  ElementOutput (*output)(const Model& m, int i, const ModeFrame& f) = nullptr;
  // Its mode of its own (State::element_mode): at the start (sides placed), and
  // after a crossing of one of its witnesses `w` (the structure already
  // changed by it; the sign is its witness row's).
  std::int8_t (*initial_mode)(const Model& m, int i, const State& s) = nullptr;
  std::int8_t (*mode_after)(const Model& m, int i, const State& s, const Witness& w) = nullptr;
  // ... and before every restart of the integrator, made consistent with the
  // state (an impact moves velocities across what its witnesses watch);
  // nullptr: kept as the crossings left it.
  std::int8_t (*restart_mode)(const Model& m, int i, const State& s) = nullptr;
  // At a restart (t_start, a breakpoint): whether the element rests exactly
  // on a kink of its law (a spring's flank or knot, x' = 0), where the branch
  // its motion enters is not what its state says: a witness that starts at 0
  // counts no crossing when it leaves 0. Then enter_from_rest sets its modes
  // in s from the bodies' accelerations `acc` (nb) a moment later (its x''
  // there) and says whether they changed.
  bool (*at_rest_on_kink)(const Model& m, int i, const State& s) = nullptr;
  bool (*enter_from_rest)(const Model& m, int i, State& s, const double* acc) = nullptr;

  // --- time stepping (solvers/time_stepping.hpp): the smooth law; links are rows of its impulse LCP ---
  Tangent (*step_tangent)(const Model& m, int i, const StepFrame& f) = nullptr;  // at the step's start
  void (*step_input)(const Model& m, int i, double t0, double t1, double theta, const double* inputs,
                     double* force) = nullptr;  // theta-weighted external torque (input work)
  // Its smooth torque, linearised: T(q_k, v_k) + h theta K x'_k (into rhs).
  void (*step_forces)(const Model& m, int i, const StepFrame& f, double* rhs) = nullptr;
  // Dissipated power booked over the step: its smooth torque as the step
  // applied it (linearised at `start`, the step's start: q_k, v_k, t_k) at
  // rates v_theta, times the rates v_mid.
  double (*step_dissipation)(const Model& m, int i, const StepFrame& start, const double* v_theta,
                             const double* v_mid) = nullptr;
  ElementOutput (*step_output)(const Model& m, int i, const StepFrame& f) = nullptr;  // at the step's end
  // The state as it reads with the element's sides reversed (a rigid merge
  // through a negative ratio, Model::element_output_scale < 0); nullptr: its
  // sign flips (a side, a slip or overrun direction).
  std::int8_t (*reversed_state)(const Model& m, int i, std::int8_t state) = nullptr;
};
const ElementKindInfo& element_kind_info(ElementKind k);

// Element e's Model::element_output_scale s (1 for an element no merge
// carried): its torque as written is s times the torque on the kept bodies,
// its coordinate and rate 1/s times theirs (the power is the same).
double output_scale(const Model& m, int e);
// An element's output (of `row`'s kind, its i-th, element id e) as the model
// file wrote the element: through Model::element_output_scale.
ElementOutput as_written(const Model& m, const ElementKindInfo& row, int i, int e, ElementOutput o);
// Its state alone as written (the event log's before and after).
std::int8_t state_as_written(const Model& m, const ElementKindInfo& row, int i, int e, std::int8_t state);

// The kinds in the order the solvers visit them (kinds.cpp). Sums of torques,
// tangents and powers take loads first (kSumOrder); lists (witnesses, the
// event log at an instant) take frictions first (kListOrder). Floating-point
// sums and the order of events at one instant are part of the pinned results
// (tests/pinned_models_test.cpp): a new kind goes last in both.
extern const ElementKind kSumOrder[kNumElementKinds];
extern const ElementKind kListOrder[kNumElementKinds];
// Calls f(row, i) for every element, kind by kind in `order`.
template <class F>
void for_each_element(const Model& m, const ElementKind (&order)[kNumElementKinds], F&& f) {
  for (ElementKind k : order) {
    const ElementKindInfo& row = element_kind_info(k);
    const int n = static_cast<int>(m.elements_of(k).size());
    for (int i = 0; i < n; ++i) f(row, i);
  }
}

struct WitnessKindInfo {
  WitnessKind kind;
  const char* name;     // e.g. "stick_upper"
  const char* meaning;  // what its crossing means, in words
  Crossing crossing;    // ... and for the event pipeline
  int sign;             // the side or direction the crossing leads to (+1 / -1; 0 when none)
  // Its value reads solved torques (applied, link torques, limits) [N m]:
  // its roundoff is eps times their size, not eps times its own. Where it
  // gets them (SolvedReach); nullptr for a kind that reads none.
  SolvedReach (*solved)(const Model& m, const Witness& w, const WitnessInputs& in);
  // Its value at the state in `in` (the root is where it crosses 0).
  double (*value)(const Model& m, const Witness& w, const WitnessInputs& in);
};
extern const WitnessKindInfo kWitnessKinds[kNumWitnessKinds];
inline const WitnessKindInfo& witness_kind_info(WitnessKind k) { return kWitnessKinds[static_cast<int>(k)]; }
// False when a crossing changes no mode (a gap turnaround).
inline bool structural(WitnessKind k) { return witness_kind_info(k).crossing != Crossing::none; }
inline double witness_value(const Model& m, const Witness& w, const WitnessInputs& in) {
  return witness_kind_info(w.kind).value(m, w, in);
}

// Elastic energy stored at angles q (nb), summed over the kinds that store it [J].
double elastic_energy(const Model& m, const std::vector<double>& q);

// Upper bound of the number of witnesses any variable structure of the model watches.
int max_witness_count(const Model& m);

}  // namespace luztar
