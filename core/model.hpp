#pragma once
// Model: the assembled, validated, index-resolved system. Immutable after
// assemble(); one Model serves any number of simulators.
//
// Redundant Lagrange model (Part 2, section 4):
//   I_j q_j'' = sum loads_j(t) - sum_springs G_s,j (k luz(x_s, a_s) + c x_s')
//               - sum_frictions F_f,j mu tar(v_f, MT0_f(t)/mu)
// with x_s = G_s q and v_f = F_f q' on coordinate rows (core/coordinate.hpp):
// G_s = e_a - p e_b for a spring between two bodies, F_f = e_a - e_b for a
// clutch, any row sum c_k e_k for an element on a `coordinate`; body index -1
// stands for the fixed base.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/coordinate.hpp"
#include "core/model_spec.hpp"
#include "core/reduce.hpp"
#include "core/signal.hpp"

namespace luztar {

inline constexpr int kGround = -1;

// A spring's piecewise-linear elastic law (stiffness_table): T_el(x) through
// the knots, continued along its end segments. Segment k lies between knots
// k - 1 and k (segment 0 below the first knot, n above the last).
struct SpringTable {
  std::vector<double> knot;    // (n) x at the knots [rad], increasing (the offset added)
  std::vector<double> torque;  // (n) T_el at the knots [N m], nondecreasing
  std::vector<double> slope;   // (n + 1) dT_el/dx on each segment [N m/rad]
  std::vector<double> energy;  // (n) the elastic energy at each knot [J]: the integral of T_el from the offset
  std::vector<std::int8_t> sign;   // (n + 1) the sign of T_el on each segment (-1, 0, +1)
  // (n + 1) each segment's index in the table the model gives (its `state`):
  // with damping_law contact, assemble() splits the segment on which T_el
  // changes sign at its zero, so that the clamp's corners stay linear there.
  std::vector<std::int8_t> label;
  int segments() const { return static_cast<int>(slope.size()); }
};

struct Spring {
  CoordinateRow row;             // x = sum c_k q_k (two bodies: q_a - p q_b)
  double stiffness = 0.0;        // k [N m/rad]
  double freeplay = 0.0;         // a: half the gap's width [rad]
  double damping = 0.0;          // c [N m s/rad]
  double restitution = 0.0;      // e, rigid freeplay only (stiffness inf)
  bool contact_damping = false;  // damping_law contact (a gap or a table): see elements/freeplay_spring.hpp
  // The middle of the gap [rad]: the offset x0 plus (lower + upper) / 2 (0 for
  // freeplay: a without offset). T_el = k luz(x - center, a): the gap spans
  // [center - a, center + a].
  double center = 0.0;
  double offset = 0.0;  // x0, the unstretched angle [rad] (a table's knots include it)
  SpringTable table;    // a stiffness table (then stiffness, freeplay and center are 0), else empty
  // Rigid freeplay: the gap is a pair of unilateral constraints.
  bool rigid() const { return stiffness == INFINITY; }
  bool has_table() const { return !table.slope.empty(); }
};

// A friction element's Coulomb part as a function of the relative speed,
// tau(|v|) (elements/friction.hpp): knots 0 = speed[0] < speed[1] < ..., values
// >= 0, linear between, continued along the last segment. Segment k runs from
// knot k to knot k + 1; the last segment (segments() - 1) has no upper knot.
// A plain `coulomb` is the one-point table tau = 1 (its MT0 is the scale).
struct FrictionTable {
  std::vector<double> speed = {0.0};  // (points) knots [rad/s]
  std::vector<double> value = {1.0};  // (points) tau at the knots [N m per unit of the scale]
  std::vector<double> slope = {0.0};  // (segments) d tau / d|v| in each segment [N m s/rad per unit of the scale]
  int segments() const { return static_cast<int>(slope.size()); }
  // tau at speed s >= 0 on segment k (its line, continued beyond the segment).
  double at(int k, double s) const { return slope[k] == 0.0 ? value[k] : value[k] + slope[k] * (s - speed[k]); }
  // The segment that holds speed s >= 0 (a knot belongs to the segment above it).
  int segment_of(double s) const {
    int k = 0;
    while (k + 1 < segments() && s >= speed[k + 1]) ++k;
    return k;
  }
};

struct Friction {
  CoordinateRow row;             // v = sum c_k w_k (a bearing: w_a; a clutch: w_a - w_b)
  double viscous = 0.0;          // mu [N m s/rad]
  double static_ratio = 1.0;     // break-away limit = static_ratio * S tau(0)
  // index into Model::signals of the scale S(t): MT0(t) [N m] (coulomb), 1
  // (coulomb_table) or radius F_n(t) [m N] (mu_table)
  int coulomb = -1;
  int slot = -1;                 // its signal slot (Model::slots): S(t)
  const char* scale_field = "coulomb";  // the field S comes from (named when it is not finite)
  FrictionTable table;           // tau(|v|): the Coulomb torque is S(t) tau(|v|) sgn v
  // Some segment of the table has a slope: the torque depends on the speed.
  bool speed_dependent = false;
  // The scale when its signal is constant (then a speed-dependent law reads it
  // here, so that it is affine in the state for the exact integrator's probes), else NaN.
  double constant_scale = NAN;
};

// A one-way clutch (elements/one_way_clutch.hpp): while overrunning, the
// friction law of `law` in the overrun direction (mu v + D(t) o, D = its
// coulomb signal); locked, a link holding any torque lambda with
// o lambda <= static_ratio D(t). Its lock state is its element's byte of
// State::element_mode (0 locked, o overrunning).
struct OneWayClutch {
  Friction law;     // its row (two bodies, or a body and the base), viscous mu, static_ratio, drag D(t) (coulomb) and its slot
  int overrun = 1;  // o: +1 when v = w_a - w_b may be positive, -1 when negative
  int link = -1;    // its link (Model::links)
};

// A permanent link (elements/permanent_link.hpp): its row's rate held at 0
// from t_start on, by a torque lambda without bound (its link's), never
// released. A planetary set's Willis relation, an open differential.
struct PermanentLink {
  CoordinateRow row;  // sum c_k w_k = 0 at all times
  int link = -1;      // its link (Model::links)
};

// The parameters of a lossy gear's law (elements/lossy_gear.hpp).
struct LossyGearLaw {
  double ratio = 1.0;               // i = q_a / q_b, != 0
  double efficiency_forward = 1.0;  // eta_f in (0, 1]: a drives b
  double efficiency_back = 1.0;     // eta_b <= eta_f: b drives a (<= 0: self-locking)
  double bearing = 0.0;             // f >= 0 [N m]: Coulomb friction of shaft a's bearing
};
// A lossy gear (elements/lossy_gear.hpp): a rigid mesh q_a = ratio q_b (its
// mesh link, locked always like a permanent link) and a loss torque on shaft a
// against its speed relative to the base (its loss link, locked while the gear
// is stuck), whose law depends on the direction of the power flow. Its mode is
// its element's byte of State::element_mode (lossy_mode: 3 s + sigma).
struct LossyGear {
  LossyGearLaw law;
  int body_a = -1, body_b = -1;  // shafts a and b (inertial)
  CoordinateRow mesh;            // (1, -ratio) on (a, b): held at x' = 0
  CoordinateRow loss;            // (1) on a: w_a, the speed the loss opposes
  int mesh_link = -1, loss_link = -1;  // its links (Model::links)
  // The friction links within its reach (joined to its shafts through friction
  // elements; validate admits no other locking kind there), and those bodies
  // besides its shafts: a stuck clutch among them moves a body with a shaft,
  // and the moving gear's law sees that body's inertia and torques on its side.
  std::vector<int> reach_links, reach_bodies;
};

struct Load {
  int body = kGround;  // body index
  int signal = -1;     // index into Model::signals [N m]
  int slot = -1;       // its signal slot (Model::slots): tau(t)
};

// A time signal that the laws read at every evaluation. assemble() numbers
// them once (each load's torque, then each friction element's MT0); the
// event-driven solver holds their values as sigma (solvers/dynamics.hpp) and
// the exact integrator as the output of its exosystem.
struct SignalSlot {
  int signal = -1;         // index into Model::signals
  int element = -1;        // element id of the element that reads it (named in errors), -1 for a drive
  const char* field = "";  // its field ("torque", "coulomb"; a drive's "angle", "velocity", "acceleration")
  int body = -1;           // a drive's slot: the prescribed body (named in errors), else -1
};

// A body's prescribed motion (core/model_spec.hpp BodySpec::prescribed) as
// the solvers read it: signal slots of the drive's angle s, velocity s' and
// acceleration s'' (each -1 when the drive does not give it: a velocity drive
// gives s' and s'', its angle is integrated from the initial angle; an
// acceleration drive gives s'' only). The body's angle, velocity and
// acceleration are these values whatever the elements do: its cluster moves
// with it (solvers/dynamics.cpp), and the torque the drive applies is
// I a - (the torques of the elements on it), or a locked cluster's share.
struct Drive {
  BodySpec::Drive kind = BodySpec::Drive::none;
  int angle_slot = -1, velocity_slot = -1, acceleration_slot = -1;
};

// The element kinds (elements/kinds.hpp: the table the solvers iterate).
enum class ElementKind { spring, friction, torque, one_way_clutch, link, lossy_gear };
inline constexpr int kNumElementKinds = 6;
// Its name in results and files: "spring", "friction", "torque", "one_way_clutch", "link", "lossy_gear".
inline const char* to_string(ElementKind k) {
  switch (k) {
    case ElementKind::spring: return "spring";
    case ElementKind::friction: return "friction";
    case ElementKind::torque: return "torque";
    case ElementKind::one_way_clutch: return "one_way_clutch";
    case ElementKind::link: return "link";
    case ElementKind::lossy_gear: return "lossy_gear";
  }
  return "?";
}
// Kinds whose state 0 means stuck (a friction element, a lossy gear) or locked
// (a one-way clutch): the time they spend there is Result::time_stuck.
inline bool element_sticks(ElementKind k) {
  return k == ElementKind::friction || k == ElementKind::one_way_clutch || k == ElementKind::lossy_gear;
}
// Whether elements of kind k dissipate energy (their kind row has a
// dissipation, elements/kinds.hpp; tests/element_energy_test.cpp checks the two agree).
inline bool element_kind_dissipates(ElementKind k) { return k != ElementKind::torque && k != ElementKind::link; }

// A link of the variable structure: an element that can lock its coordinate
// row (core/coordinate.hpp). A stuck friction element holds its rate at 0 (a
// bearing w_a = 0, a clutch w_a = w_b); rigid freeplay teeth in persistent
// contact hold it at 0 (a mesh: w_a = p w_b) with a one-sided contact torque
// (side * lambda >= 0); a locked one-way clutch holds it at 0 with a torque
// bounded on one side only (o lambda <= static_ratio D). A row of two bodies
// at most is a ratio that bodies/clusters locks by its union-find; a row of
// three or more locks a combination (a dense cluster, bodies/clusters.hpp).
// Links are numbered once by assemble(): friction element i is link i, then
// the rigid freeplay springs in model order (Model::spring_link), then the
// one-way clutches (OneWayClutch::link), then the permanent links
// (PermanentLink::link: locked always, its torque unbounded on both sides, no
// limit and no reserve), then each lossy gear's mesh and loss links
// (LossyGear::mesh_link: a permanent link to the machinery, Model::
// is_permanent_link; LossyGear::loss_link: locked while the gear is stuck,
// its bound a cone in the mesh torque that the gear's selection decides,
// alone or with the friction beside it, elements/lossy_gear.hpp), so that clusters, static splits, mode selection,
// impacts and roots index torques and limits by one link id.
enum class LinkKind { friction, contact, one_way, permanent, gear_mesh, gear_loss };
struct ModelLink {
  LinkKind kind = LinkKind::friction;
  int element = -1;   // index in Model::frictions, Model::springs (contact), Model::one_way_clutches,
                      // Model::permanent_links or Model::lossy_gears
  CoordinateRow row;  // its element's row: sum c_k w_k = 0 while locked
};
// The kind of the elements whose links are of kind k.
inline ElementKind element_kind_of(LinkKind k) {
  return k == LinkKind::friction  ? ElementKind::friction
         : k == LinkKind::contact ? ElementKind::spring
         : k == LinkKind::one_way ? ElementKind::one_way_clutch
         : k == LinkKind::permanent ? ElementKind::link
                                    : ElementKind::lossy_gear;
}

// Massless frictionless bodies joined by springs that no theorem eliminates;
// their angles solve the PL torque balance (solvers/algebraic_bodies.hpp).
struct AlgebraicGroup {
  std::vector<int> bodies;    // the massless bodies
  std::vector<int> boundary;  // the other bodies their springs reach (not the base)
  std::vector<int> springs;   // every spring touching the group
};

struct Model {
  std::string name;
  std::string description;
  std::string source_text;  // the model file text, stored with results
  std::string source_path;

  // Bodies (nb x 1 each)
  std::vector<std::string> body_names;
  // Bodies of the file the reduction removed (core/reduce.hpp Reduction::
  // Removed), in the file's order; results report them after the model's
  // bodies (reported_body_names) with the motion the reduction leaves them:
  //  - merged by a rigid connection: q = factor q_kept, `kept` a reported
  //    body (it may be a removed one) or kGround (fixed to the base, q = 0);
  //  - eliminated massless and frictionless (`balanced`): q solves its springs'
  //    torque balance sum_i k_i luz(q - u_i q_other_i; [lower_i, upper_i]) = 0
  //    (other_i a reported body or kGround). Where the balance leaves q
  //    undetermined (every spring inside its gap, or no spring) it is
  //    reported as NaN (README, "Model reduction").
  struct RemovedBody {
    int kept = kGround;
    double factor = 0.0;
    bool balanced = false;
    static constexpr std::size_t kMaxSprings = 2;  // (a body in series, or on one spring)
    struct Spring {
      int other = kGround;
      double u = 0.0, k = 0.0, lower = 0.0, upper = 0.0;
    };
    std::vector<Spring> springs;
  };
  std::vector<RemovedBody> removed_bodies;
  std::vector<std::string> reported_body_names;  // body_names, then the removed bodies' names
  std::vector<double> inertia;    // [kg m^2], or a translational body's mass [kg]; 0 = massless on viscous bearings
  // (reported bodies: body_names, then the removed ones) true for a translational
  // body (BodySpec::kind): its angle is a position [m], its velocity [m/s]
  std::vector<bool> translational;
  std::vector<double> angle0;     // [rad]
  std::vector<double> velocity0;  // [rad/s]
  std::vector<Drive> drives;             // (nb) prescribed motion (Drive; kind none for a free body)
  std::vector<int> driven_bodies;        // the prescribed bodies, ascending
  // Friction elements on prescribed bodies alone (a bearing of a driven
  // shaft): a known torque of the drives' motion. At rest with the drives
  // (relative velocity and acceleration 0) such an element never locks: it
  // is stuck with torque 0, the drive holding the body (README, "Prescribed motion").
  std::vector<int> driven_frictions;
  std::vector<double> massless_viscous;  // sum of bearing mu on each massless body [N m s/rad], 0 otherwise
  std::vector<bool> algebraic;           // (nb) massless without bearings: angle from the torque balance
  std::vector<bool> spring_algebraic;    // (ns) spring touching an algebraic body (exact luz, no freeplay events)
  std::vector<AlgebraicGroup> algebraic_groups;

  std::vector<Spring> springs;      // (ns x 1)
  std::vector<Friction> frictions;  // (nf x 1)
  std::vector<Load> loads;          // (nl x 1)
  std::vector<OneWayClutch> one_way_clutches;  // (now x 1)
  std::vector<PermanentLink> permanent_links;  // (npl x 1)
  std::vector<LossyGear> lossy_gears;          // (nlg x 1)
  // (nf + rigid springs + now + npl + 2 nlg) the links of the variable structure (ModelLink)
  std::vector<ModelLink> links;
  std::vector<int> spring_link;     // (ns x 1) link id of each rigid freeplay spring, -1 for the others
  std::vector<Signal> signals;      // resolved (no references)
  std::vector<SignalSlot> slots;    // (slots) the signals the laws read, in slot order (SignalSlot)
  // Named inputs (signals of kind input), in name order: values set from
  // outside while running (Simulator::set_input); Signal::input indexes these.
  std::vector<std::string> input_names;
  std::vector<Signal> inputs;       // declarations: initial value, lower, upper
  // Sampled blocks (core/signal.hpp: hold, play, saturated_integrator, relay),
  // each block before the blocks that read it; a named block is one block
  // however often it is used. The input values that evaluate() reads are the
  // named inputs followed by the blocks' held outputs: block k holds
  // values[inputs.size() + k] (its Signal::input).
  std::vector<Signal> sampled;              // (nsb)
  std::vector<std::string> sampled_names;   // (nsb) the named signal, or the field of an inline block

  // Elements in the order of the model file (ne = ns + nf + nl)
  std::vector<std::string> element_names;   // (ne x 1)
  std::vector<ElementKind> element_kind;    // (ne x 1)
  // (ne x 1) its `type` as written (a force is a torque load, a rack_pinion a
  // spring to the solvers): the results' element kinds
  std::vector<std::string> element_type;
  std::vector<int> element_index;           // (ne x 1) index in springs/frictions/loads/one_way_clutches
  std::vector<int> spring_element;          // (ns x 1) element id of each spring
  std::vector<int> friction_element;        // (nf x 1)
  std::vector<int> load_element;            // (nl x 1)
  std::vector<int> one_way_element;         // (now x 1)
  std::vector<int> permanent_link_element;  // (npl x 1)
  std::vector<int> lossy_gear_element;      // (nlg x 1)
  // (ne x 1) An element's torque as the model file wrote it is this times the
  // torque it acts with here, where a rigid merge carried it onto another body
  // (core/reduce.hpp, Reduction::output_scale; 1 for the others). Outputs are
  // reported as written (elements/kinds.hpp, as_written).
  std::vector<double> element_output_scale;
  // (ne x 1) true for an element on translational bodies: its torque is a
  // force [N], its relative angle a distance [m]
  std::vector<bool> element_translational;

  std::vector<double> breakpoints;  // sorted signal discontinuities in (t_start, t_end]
  std::vector<std::string> reductions;  // what assemble() reduced (core/reduce.hpp), in the paper's terms
  SimulationSettings simulation;

  int num_bodies() const { return static_cast<int>(inertia.size()); }
  int num_elements() const { return static_cast<int>(element_names.size()); }
  int num_links() const { return static_cast<int>(links.size()); }
  // Element ids of the elements of kind k, in model order (spring_element, ...).
  const std::vector<int>& elements_of(ElementKind k) const {
    switch (k) {
      case ElementKind::spring: return spring_element;
      case ElementKind::friction: return friction_element;
      case ElementKind::torque: return load_element;
      case ElementKind::one_way_clutch: return one_way_element;
      case ElementKind::link: return permanent_link_element;
      case ElementKind::lossy_gear: return lossy_gear_element;
    }
    return load_element;
  }
  bool is_contact_link(int link) const { return links[link].kind == LinkKind::contact; }
  bool is_one_way_link(int link) const { return links[link].kind == LinkKind::one_way; }
  // Locked always with a torque unbounded on both sides: a permanent link, or
  // a lossy gear's mesh (its loss is its loss link's).
  bool is_permanent_link(int link) const {
    return links[link].kind == LinkKind::permanent || links[link].kind == LinkKind::gear_mesh;
  }
  bool is_gear_loss_link(int link) const { return links[link].kind == LinkKind::gear_loss; }
  // The element id of link `link` (Model::element_names).
  int link_element(int link) const { return elements_of(element_kind_of(links[link].kind))[links[link].element]; }
  // Length of the input values array: named inputs, then held block outputs.
  int num_input_values() const { return static_cast<int>(inputs.size() + sampled.size()); }
  // The input values at the start of a run: declared inputs, initial block outputs.
  std::vector<double> initial_input_values() const;
  bool massless(int body) const { return inertia[body] == 0.0; }
  // True when body j's motion is prescribed (Drive).
  bool prescribed(int j) const { return drives[j].kind != BodySpec::Drive::none; }
  // -1 when absent.
  int body_index(const std::string& name) const;
  int element_id(const std::string& name) const;
  int input_id(const std::string& name) const;
};

// The angles of every reported body (reported_body_names; j < nb: the
// model's, beyond: the removed bodies', Model::RemovedBody) from the model
// bodies' angles q (nb), into `angle` (reported); with `rate` (nb: the model
// bodies' velocities or accelerations) their rates too, into `rate_out`: a
// removed body's is the same linear form of its neighbours' rates as its
// angle is of their angles where the balance holds it (the springs engaged
// at q). NaN where the motion is undetermined (Model::RemovedBody).
// `angle` may be null; `rate_out` may be `rate` (its first nb values stay).
// Allocates nothing.
void reported_bodies(const Model& m, const double* q, const double* rate, double* angle, double* rate_out);
// Reported body j's angle (rate null) or rate from the model bodies' q and rate.
double reported_body_value(const Model& m, const double* q, const double* rate, int j);
// Appends every reported body's angle (rate empty) or rate to `out`.
void append_reported_bodies(const Model& m, const std::vector<double>& q, const std::vector<double>& rate,
                            std::vector<double>& out);

// The largest number of the model's signals (tree_magnitude; 1 when there is
// none or it is not finite): the scale of its torques [N m] where nothing
// better is known, so that thresholds and tolerances follow the model's units.
// A drive's signals (an angle, a velocity and their derivatives) are no
// torques and do not count.
inline double signal_scale(const Model& m) {
  double s = 0.0;
  for (std::size_t i = 0; i < m.signals.size(); ++i) {
    const bool drive = std::any_of(m.slots.begin(), m.slots.end(), [&](const SignalSlot& slot) {
      return slot.body >= 0 && slot.signal == static_cast<int>(i);
    });
    if (!drive) s = std::max(s, tree_magnitude(m.signals[i]));
  }
  return s > 0.0 && std::isfinite(s) ? s : 1.0;
}

// The law of a spring's description (core/spring_law.cpp) on its coordinate
// row: the gap as its middle and half-width around the
// offset, or the stiffness table as knots.
Spring spring_law(const SpringSpec& s, const CoordinateRow& row);

// True unless friction law f's Coulomb part is identically 0 (S identically 0
// or a table of zeros): a pure viscous element never sticks, needs no events
// and is no link of any locked structure.
inline bool can_have_dry_friction(const Model& m, const Friction& f) {
  const Signal& s = m.signals[f.coulomb];
  if (is_constant(s) && evaluate(s, m.simulation.t_start) == 0.0) return false;
  for (double tau : f.table.value)
    if (tau != 0.0) return true;
  return false;
}

// Validates the description (throws ModelError naming the field), applies the
// exact reductions of core/reduce.hpp (rigid connections, massless frictionless
// bodies in series) and builds the Model. Bodies with inertia 0 that remain are
// massless bodies on viscous bearings (first-order, Theorem 5.3).
// Every rule is checked here, once (io/ only reads): a ModelError raised without
// a location is given where(spec, field), the field's place in the model file.
Model assemble(const ModelSpec& spec);

// The rules of assemble() without building the Model: validate, the reduction
// (with its structural rules on massless and rigid parts) and validate on the
// reduced model, errors located as by assemble(). For callers that need the
// reduction itself (luztar reduce) or only the verdict (io::load_model_spec).
Reduction validate_and_reduce(const ModelSpec& spec);

// Throws ModelError at the first rule the description breaks.
void validate(const ModelSpec& spec);
// body_kinds false: without the rules on the kinds of an element's bodies, for
// the reduction's output (a rigid rack and pinion merged carries the loads and
// springs of one body onto a body of the other kind, core/reduce.hpp).
void validate(const ModelSpec& spec, bool body_kinds);

// assemble() inlines signal references (each use of a named signal is a copy
// of it), so validate() caps the inlined size, over each named signal and over
// the elements' signals together: a chain of named signals that each use the
// previous one twice would otherwise grow as 2^depth.
inline constexpr std::size_t kMaxInlinedSignalNodes = 100000;     // signal nodes (~26 MB, one evaluation each)
inline constexpr std::size_t kMaxInlinedTableSamples = 10000000;  // table samples (160 MB)
// ... and the nesting of signals: a term of a signal and a hop from a reference
// to the named signal each count as a level (each is a call in every walk over
// a signal: a chain of 10^5 named signals overflowed the stack; 2000 calls
// still overflowed validation under AddressSanitizer).
inline constexpr std::size_t kMaxSignalDepth = 400;

// The exact integrator (simulation.integrator: exact, solvers/exact/) serves a
// model whose every mode is affine in its state and signal slots with maps
// fixed by the modes. Why it cannot serve `m`, or "" when it can:
//  - algebraic groups (massless bodies without bearings): their angles are the
//    exact luz of a balance solved inside the right-hand side (piecewise, not
//    affine within a mode);
//  - massless bodies on viscous bearings: first-order modes q' = M / mu of rate
//    k / mu (2e6 /s in gear_train_simplification1). Their trajectory is exact
//    (the fast rate is split off in closed form), but the bearing's dissipation
//    is a quadratic form with entries k^2 / mu (6e10 there) whose roundoff
//    leaves an energy residual of 3e-8 relative, not the roundoff the exact
//    integrator promises (summing it as squares of rows would cure it);
//  - a loop of links (clutches, bearings and rigid freeplays closing a cycle
//    between bodies and the base): a stuck loop's static torques are a
//    Chebyshev split watched through the max of ratios (not affine), and a
//    redundant group's weights are MT0 at the instant it locked;
//  - a friction table with a slope times a normal force that varies in time:
//    its torque S(t) tau(|v|) is bilinear in (signal, state) within a segment.
std::string exact_integrator_refusal(const Model& m);

}  // namespace luztar
