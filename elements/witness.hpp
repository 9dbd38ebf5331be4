#pragma once
#include <cmath>
// Witnesses: the root functions of the event-driven solver (Drake's witness
// functions). Each element kind lists the ones it watches in a given mode
// (elements/<kind>.hpp: *_witnesses) and evaluates them (*_witness); the table
// of kinds (elements/kinds.hpp) names each and says what its crossing means.
// A witness is never identically zero in the mode that watches it: a stuck
// element watches its friction reserve, not its (zero) velocity.
#include <cstdint>

namespace luztar {

struct CoordinateRow;
struct Model;

enum class WitnessKind {
  slip_velocity,   // friction slipping: its relative velocity reaches 0 (arrives at rest)
  stick_upper,     // friction stuck: its reserve r MT0 - lambda reaches 0 (breaks away +)
  stick_lower,     // friction stuck: its reserve r MT0 + lambda reaches 0 (breaks away -)
  group_reserve,   // a stuck group with one loop: its utilisation reaches 1 (some link gives way)
  freeplay_upper,  // spring: x - a crosses 0 (contact on the + flank, or leaving it)
  freeplay_lower,  // spring: x + a crosses 0 (contact on the - flank, or leaving it)
  massless_upper,  // massless body: M - MT0 crosses 0 (kink of luz(M, MT0))
  massless_lower,  // massless body: M + MT0 crosses 0
  contact_force,   // rigid freeplay in contact: side * lambda reaches 0 (the teeth unload)
  // A rigid freeplay in its gap: the relative velocity x' turns back towards
  // the nearer flank. No structure changes there; it splits a short flight
  // (a rebound that returns to the same flank within one integrator step,
  // where x - a would change sign twice and go unseen) in two.
  gap_turnaround,
  damping_upper,  // spring, damping_law contact, in contact: c x' - |Tc| crosses 0 (the clamp's + corner)
  damping_lower,  // ... c x' + |Tc| crosses 0 (the clamp's - corner)
  knot_upper,     // friction table, slipping in direction s on segment k: s v crosses v_{k+1} upwards
  knot_lower,     // ... s v crosses v_k downwards (k >= 1)
  stage_upper,    // spring with a stiffness table: x - x_k crosses 0 upwards at the segment's upper knot (level)
  stage_lower,    // ... x - x_k-1 crosses 0 downwards at its lower knot (level)
  gear_mesh,      // lossy gear: its mesh torque lambda changes sign (moving: the power flow reverses; stuck: the half of its cone)
  gear_upper,     // lossy gear stuck: its reserve L_max(lambda) - L reaches 0 (it starts to turn +)
  gear_lower      // lossy gear stuck: its reserve L - L_min(lambda) reaches 0 (it starts to turn -)
};
inline constexpr int kNumWitnessKinds = 19;

// What a crossing means for the variable structure; the event pipeline
// (solvers/event_pipeline.cpp) applies it, with the sign of the kind's table
// row (elements/kinds.hpp). After any crossing of an element's witness, the
// element's kind updates its mode of its own (ElementKindInfo::mode_after).
enum class Crossing {
  none,               // nothing changes (the integrator goes on with its history)
  freeplay_flank,     // the spring's side goes 0 -> sign, or back to 0 (a rigid freeplay's teeth strike)
  contact_unloads,    // rigid freeplay teeth in contact may part: decided by the S-S selection
  arrives_at_rest,    // a slipping friction element reaches v = 0: decided by the S-S selection
  reserve_exhausted,  // a stuck friction element breaks away in direction sign
  group_exhausted,    // a link of a stuck group with one loop reaches its limit
  massless_kink,      // a massless body's luz branch goes 0 -> sign, or back to 0
  own_mode,           // only the element's mode of its own changes (its kind's row: mode_after)
  segment             // a table spring's segment steps by sign (its knot crossed: a `stage`)
};

// One root function: what it watches, on which element, and the crossing
// direction that counts (CVODE convention: +1 increasing, -1 decreasing).
struct Witness {
  WitnessKind kind;
  int index;           // friction (slip/stick/knot), static split (group), spring (freeplay, stage, contact, damping),
                       // body (massless) or link (a lossy gear's: its mesh's for gear_mesh, its loss's otherwise)
  int direction;
  double level = 0.0;  // the root is where the watched quantity crosses this value (a knot: its x)
  int element = -1;    // element id of the element that watches it (set by the solver); -1: a group or a body
};

// A witness margin's torque scale, rounded up to a power of two: the
// margins of a one-way clutch's and a lossy gear's reserves (1e-12 of the
// torques about them) follow the state's torques where their structure is
// built, and a mode cached by its witnesses (solvers/mode_system.hpp: the
// exact integrator's) must not carry one structure's margin into another's
// (a run restored from a snapshot found its events 1e-13 s from the run
// that made it: a review). Rounded, a margin takes few values and each is a
// mode of its own. (Not finite or not positive: as given.)
inline double margin_scale(double scale) {
  return std::isfinite(scale) && scale > 0.0 ? std::exp2(std::ceil(std::log2(scale))) : scale;
}

// Where a witness that reads solved torques (a contact torque, a reserve) gets
// them from: the torques on the bodies of its coordinate's locked clusters
// (or of one body's), and a torque of its own that its value adds to them (a
// static limit). Its roundoff is eps times the largest of these.
struct SolvedReach {
  const CoordinateRow* row = nullptr;  // the coordinate it reads; nullptr: `body` alone
  int body = -1;
  double own = 0.0;  // [N m]
};

// What the solver evaluated at the state a witness is read at; sizes in
// brackets (links: Model::links). Pointers into the solver's scratch.
struct WitnessInputs {
  const double* q = nullptr;                  // (nb) angles [rad]
  const double* w = nullptr;                  // (nb) velocities [rad/s]
  const double* force = nullptr;              // (nb) applied torques [N m]
  const double* massless_mt0 = nullptr;       // (nb) summed MT0 of a massless body's bearings [N m]
  const double* limit = nullptr;              // (links) static limits [N m]
  const double* lambda = nullptr;             // (links) link torques [N m]
  const double* group_utilisation = nullptr;  // (static splits) largest |lambda| / limit of each group
  const std::int8_t* spring_side = nullptr;   // (ns) freeplay sides
  const std::int8_t* element_mode = nullptr;  // (ne) the elements' modes of their own (State::element_mode)
};

}  // namespace luztar
