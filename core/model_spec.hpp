#pragma once
// ModelSpec: the model as the user describes it (names, not indices). It is
// what io::load_model produces from YAML and what a program may build in code;
// assemble() validates it and turns it into a Model.
#include <limits>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/signal.hpp"
#include "core/units.hpp"

namespace luztar {

// One field of an element kind's description, declared once in the kind's
// field table beside its struct (kSpringFields, ...). The YAML reader
// (io/yaml_elements.cpp: keys, types, units, locations), the writer
// (io/yaml_writer.cpp, `luztar reduce`), the units of a path
// (core/units.cpp, field_dimension) and validate() (the field's rule) walk
// the table; none of them names a kind. A field's default is the struct's
// member initialiser. A key means the same quantity in every kind
// (field_dimension reads a path without its element's type).
enum class FieldType {
  number,      // a double; may carry a unit of `dimension`
  text,        // a word; `choices` lists the values it may take
  signal,      // a Signal (core/signal.hpp) whose values have `dimension`
  body,        // the name of one body; required
  // `body: a` (to the fixed base) or `bodies: [a, b]`, into `text` and
  // `second`, or `coordinate: {a: c_a, b: c_b, ...}` into `coordinate`; required
  attachment,
  speed_table, // a SpeedTable ([speed, value] points, or a CSV file of them) whose values have `dimension`
  // `key: a` (a number of `dimension`, into `number`) or `key: {lower, upper}`
  // (both numbers of `dimension`, into `lower` and `upper`, and `bounds` set)
  bounds,
  // `key: {points: [[x, y], ...]}`: a piecewise-linear characteristic into
  // `points`, x of `dimension`, y of `value_dimension`
  points,
};
// A function of a relative speed given by points (a friction table, Part 1
// Th. 3.5): speeds [rad/s] 0 = v_0 < v_1 < ... < v_n, values linear between
// them and continued along the last segment. Empty: not given.
struct SpeedTable {
  std::vector<double> speed, value;  // (points) speed [rad/s], value [its field's dimension]
  bool empty() const { return speed.empty(); }
};
// Most points a speed table may have: each knot is an event, and a slipping
// element's segment is a mode byte (State::element_mode).
inline constexpr std::size_t kMaxSpeedTablePoints = 64;
// A characteristic y(x) given by its points (FieldType::points); empty when not given.
struct PointTable {
  std::vector<double> x, y;
  bool empty() const { return x.empty(); }
};

// One term c q_body of an element's coordinate (`coordinate: {body: c, ...}`,
// issue 19 item 1): the element acts on x = sum c q_body (core/coordinate.hpp).
struct CoordinateTerm {
  std::string body;
  double c = 0.0;  // [1], finite, != 0
};

// The rule validate() checks on a number, reported at its field.
enum class NumberRule {
  finite,              // "must be a finite number"
  nonzero,             // finite, "must not be 0"
  nonnegative,         // finite, "must be >= 0"
  nonnegative_or_inf,  // "must be >= 0 or .inf" (a rigid connection)
  at_least_one,        // finite, "must be >= 1"
};
template <class S>
struct SpecField {
  const char* key = "";                // its YAML key (an attachment: "bodies", and "body")
  FieldType type = FieldType::number;
  double S::*number = nullptr;         // number
  std::string S::*text = nullptr;      // text, body; attachment: body a
  std::string S::*second = nullptr;    // attachment: body b ("" = the fixed base)
  // attachment: the terms of a `coordinate` (empty when `body`/`bodies` is given; at
  // most kMaxCoordinateTerms, in the order of the file)
  std::vector<CoordinateTerm> S::*coordinate = nullptr;
  Signal S::*signal = nullptr;         // signal
  SpeedTable S::*table = nullptr;      // speed_table
  Dimension dimension = Dimension::plain;  // number, signal, speed_table (its values): what it measures (core/units.hpp)
  NumberRule rule = NumberRule::finite;    // number
  bool required = false;               // number, signal: must be given (else the struct's default)
  const char* choices = nullptr;       // text: the values it may take, "a, b"
  bool between_bodies = false;         // number: meaningful only between two bodies (written only then)
  // Fields with the same alternative > 0 are one choice: exactly one of them
  // is written (a friction law: coulomb, coulomb_table or mu_table); each is
  // then optional on its own. The reader checks the keys; validate() the values
  // of a description built in code.
  int alternative = 0;
  // The key of the field this one belongs to (radius and normal_force: mu_table):
  // written only with it, and it needs this one. Optional on its own.
  const char* with = nullptr;
  double S::*lower = nullptr;          // bounds: the lower bound
  double S::*upper = nullptr;          // bounds: the upper bound
  bool S::*bounds = nullptr;           // bounds: true when given as {lower, upper}
  PointTable S::*points = nullptr;     // points
  Dimension value_dimension = Dimension::plain;  // points: what y measures
  // The key of a required field this one stands instead of (points: a
  // stiffness table instead of `stiffness`): exactly one of the two is given.
  const char* instead_of = nullptr;
};

// A rigid body: rotational (angles in rad, velocities in rad/s) or
// translational (YAML `kind: translational`, `mass` [kg], `position` [m],
// `velocity` [m/s]). Both are one generalised coordinate q: a translational
// body's mass is its `inertia`, its position its `angle`. The elements on it
// read their fields in the translational units (units.hpp translational()):
// a spring between translational bodies in N/m, m and N s/m, a friction in N
// and N s/m, a load is `type: force` [N].
struct BodySpec {
  std::string name;
  double inertia = 0.0;   // I [kg m^2], or the mass m [kg] of a translational body; >= 0
  double angle = 0.0;     // initial angle q(0) [rad], or position [m]
  double velocity = 0.0;  // initial velocity q'(0) [rad/s], or [m/s]
  std::string kind = "rotational";  // rotational | translational
  // Prescribed motion (issue 19 item 5; MSL Rotational.Sources.Position,
  // Speed, Accelerate): `prescribed: {angle | velocity | acceleration: signal}`
  // (a translational body: position | velocity | acceleration). The body's
  // motion is the signal's (angle: q = s, q' = s', q'' = s''; velocity: q' = s
  // from the initial `angle`; acceleration: q'' = s from the initial `angle`
  // and `velocity`), whatever the elements do; the torque the drive applies
  // is an output (bodies.<b>.drive_torque).
  enum class Drive { none, angle, velocity, acceleration };
  Drive prescribed = Drive::none;
  Signal motion = {};  // the prescribing signal [rad], [rad/s] or [rad/s^2] (m, m/s, m/s^2)
};
// The YAML key of a prescribed quantity ("angle", "velocity", "acceleration";
// a translational body's angle is its "position").
inline const char* drive_key(BodySpec::Drive d, bool translational) {
  switch (d) {
    case BodySpec::Drive::angle: return translational ? "position" : "angle";
    case BodySpec::Drive::velocity: return "velocity";
    case BodySpec::Drive::acceleration: return "acceleration";
    case BodySpec::Drive::none: break;
  }
  return "";
}
// True for a translational body.
inline bool is_translational(const BodySpec& b) { return b.kind == "translational"; }

// Freeplay spring (shaft, gear mesh) on the relative angle x = q_a - ratio * q_b
// (Part 2, sections 2.2-2.3). Torque T = T_el(x - x0) + damping*x' acts as
// -T on body a and +ratio*T on body b. body_b empty: spring to the fixed base (x = q_a).
// The elastic law T_el of x~ = x - x0 (x0: the offset, or -preload/stiffness) is
// a gap [lower, upper] with stiffness outside it, k luz(x~ - (l + u)/2, (u - l)/2)
// (freeplay a: [-a, a]), or the piecewise-linear stiffness_table.
struct SpringSpec {
  static constexpr const char* kType = "spring";  // its `type` in YAML
  static constexpr const char* kNoun = "a spring";  // in messages
  std::string name;
  std::string body_a, body_b;  // body_b empty = fixed base
  double ratio = 1.0;          // gear ratio p = r_b / r_a (> 0)
  std::vector<CoordinateTerm> coordinate;  // given: x = sum c q instead (body_a, body_b empty, ratio 1)
  double stiffness = 0.0;      // k [N m/rad], >= 0 (0 with a stiffness_table)
  double freeplay = 0.0;       // a = half of the total play [rad], >= 0: the gap [-a, a]
  // freeplay: {lower, upper}: an asymmetric gap [lower, upper] around the
  // offset [rad] (freeplay_bounds set; lower <= upper, finite)
  double freeplay_lower = 0.0, freeplay_upper = 0.0;
  bool freeplay_bounds = false;
  double offset = 0.0;         // x0: the unstretched angle [rad] (MSL's phi_rel0)
  double preload = 0.0;        // P: a linear spring's torque at x = 0 [N m], x0 = -P/k (not with offset)
  // Points (x~_k [rad], T_k [N m]) of a piecewise-linear T_el(x~), x~
  // increasing, T nondecreasing, continued along its end segments (instead of
  // stiffness and freeplay: a zero-torque segment is a gap).
  PointTable stiffness_table;
  double damping = 0.0;        // c [N m s/rad], >= 0, on x'
  // Rigid freeplay (stiffness .inf, freeplay > 0): the gap is a pair of
  // unilateral constraints |x| <= a, and closing it is an impact with Newton's
  // restitution coefficient e (relative normal velocity after = -e * before).
  double restitution = 0.0;    // e in [0, 1]; only for rigid freeplay
  // Where the damping acts: "everywhere" (T = T_el + c x') or "contact" (0
  // where T_el = 0; elsewhere T = T_el + clamp(c x', -|T_el|, |T_el|): no jump
  // as the teeth meet, no pull as they part).
  std::string damping_law = "everywhere";
};
// Most points of a stiffness table (a segment index is a byte of the state).
inline constexpr std::size_t kMaxTablePoints = 64;
// The gap of a spring's description as bounds [lower, upper] around its offset (freeplay a: [-a, a]) [rad].
std::pair<double, double> spring_gap(const SpringSpec& s);
// Its unstretched angle x0 [rad]: the offset, or -preload / stiffness.
double spring_offset(const SpringSpec& s);
// True when it has a gap of positive width (upper > lower).
inline bool spring_has_gap(const SpringSpec& s) {
  const auto [lower, upper] = spring_gap(s);
  return upper > lower;
}
inline constexpr SpecField<SpringSpec> kSpringFields[] = {
    {.key = "bodies", .type = FieldType::attachment, .text = &SpringSpec::body_a, .second = &SpringSpec::body_b,
     .coordinate = &SpringSpec::coordinate},
    {.key = "ratio", .number = &SpringSpec::ratio, .dimension = Dimension::dimensionless,
     .rule = NumberRule::nonzero, .between_bodies = true},
    {.key = "stiffness", .number = &SpringSpec::stiffness, .dimension = Dimension::stiffness,
     .rule = NumberRule::nonnegative_or_inf, .required = true},
    {.key = "freeplay", .type = FieldType::bounds, .number = &SpringSpec::freeplay, .dimension = Dimension::angle,
     .rule = NumberRule::nonnegative, .lower = &SpringSpec::freeplay_lower, .upper = &SpringSpec::freeplay_upper,
     .bounds = &SpringSpec::freeplay_bounds},
    {.key = "offset", .number = &SpringSpec::offset, .dimension = Dimension::angle},
    {.key = "preload", .number = &SpringSpec::preload, .dimension = Dimension::torque},
    {.key = "stiffness_table", .type = FieldType::points, .dimension = Dimension::angle,
     .points = &SpringSpec::stiffness_table, .value_dimension = Dimension::torque, .instead_of = "stiffness"},
    {.key = "damping", .number = &SpringSpec::damping, .dimension = Dimension::damping,
     .rule = NumberRule::nonnegative},
    {.key = "restitution", .number = &SpringSpec::restitution, .dimension = Dimension::dimensionless},
    {.key = "damping_law", .type = FieldType::text, .text = &SpringSpec::damping_law, .choices = "everywhere, contact"},
};
inline std::span<const SpecField<SpringSpec>> spec_fields(const SpringSpec&) { return kSpringFields; }

// Coulomb + viscous friction on the relative velocity v = q_a' - q_b' (Part 2,
// section 3.2): torque mu*tar(v, MT0/mu) on body a (and its reaction on body b).
// body_b empty: a bearing to the fixed base; otherwise a clutch or brake between bodies.
// The Coulomb part is one of three laws (elements/friction.hpp):
//   coulomb        MT0(t), a signal [N m]
//   coulomb_table  tau(|v|) [N m], a table over the relative speed (Stribeck)
//   mu_table       mu(|v|) [1] times radius [m] times normal_force F_n(t) [N] (a clutch:
//                  Modelica's cgeo * mu * fn)
// While slipping the friction torque is viscous v + S(t) tau(|v|) sgn v; stuck it
// holds up to static_ratio S(t) tau(0) (S = 1, or radius F_n(t); coulomb: tau = 1, S = MT0).
struct FrictionSpec {
  static constexpr const char* kType = "friction";
  static constexpr const char* kNoun = "a friction element";
  std::string name;
  std::string body_a, body_b;  // body_b empty = fixed base
  std::vector<CoordinateTerm> coordinate;  // given: v = sum c q' instead (body_a, body_b empty)
  double viscous = 0.0;        // mu [N m s/rad], >= 0 (0 = pure Coulomb)
  Signal coulomb;              // MT0(t) [N m], >= 0 at all times (0 = open)
  SpeedTable coulomb_table;    // tau(|v|) [N m], values >= 0
  SpeedTable mu_table;         // mu(|v|) [1], values >= 0; with radius and normal_force
  double radius = 0.0;         // [m], > 0 with mu_table (its cgeo)
  Signal normal_force;         // F_n(t) [N], >= 0 at all times, with mu_table
  double static_ratio = 1.0;   // break-away torque / (S tau(0)), >= 1
};
inline constexpr SpecField<FrictionSpec> kFrictionFields[] = {
    {.key = "bodies", .type = FieldType::attachment, .text = &FrictionSpec::body_a, .second = &FrictionSpec::body_b,
     .coordinate = &FrictionSpec::coordinate},
    {.key = "viscous", .number = &FrictionSpec::viscous, .dimension = Dimension::damping,
     .rule = NumberRule::nonnegative},
    {.key = "coulomb", .type = FieldType::signal, .signal = &FrictionSpec::coulomb, .dimension = Dimension::torque,
     .alternative = 1},
    {.key = "coulomb_table", .type = FieldType::speed_table, .table = &FrictionSpec::coulomb_table,
     .dimension = Dimension::torque, .alternative = 1},
    {.key = "mu_table", .type = FieldType::speed_table, .table = &FrictionSpec::mu_table,
     .dimension = Dimension::dimensionless, .alternative = 1},
    {.key = "radius", .number = &FrictionSpec::radius, .dimension = Dimension::length,
     .rule = NumberRule::nonnegative, .with = "mu_table"},
    {.key = "normal_force", .type = FieldType::signal, .signal = &FrictionSpec::normal_force,
     .dimension = Dimension::force, .with = "mu_table"},
    {.key = "static_ratio", .number = &FrictionSpec::static_ratio, .dimension = Dimension::dimensionless,
     .rule = NumberRule::at_least_one},
};
inline std::span<const SpecField<FrictionSpec>> spec_fields(const FrictionSpec&) { return kFrictionFields; }

// External torque on a body [N m].
struct TorqueSpec {
  static constexpr const char* kType = "torque";
  static constexpr const char* kNoun = "a torque";
  std::string name;
  std::string body;
  Signal torque;
};
inline constexpr SpecField<TorqueSpec> kTorqueFields[] = {
    {.key = "body", .type = FieldType::body, .text = &TorqueSpec::body},
    {.key = "torque", .type = FieldType::signal, .signal = &TorqueSpec::torque, .dimension = Dimension::torque,
     .required = true},
};
inline std::span<const SpecField<TorqueSpec>> spec_fields(const TorqueSpec&) { return kTorqueFields; }

// External force on a translational body [N] (the translational twin of
// TorqueSpec: assembled into the same load, reported as a `force` element).
struct ForceSpec {
  static constexpr const char* kType = "force";
  static constexpr const char* kNoun = "a force";
  std::string name;
  std::string body;
  Signal force;
};
inline constexpr SpecField<ForceSpec> kForceFields[] = {
    {.key = "body", .type = FieldType::body, .text = &ForceSpec::body},
    {.key = "force", .type = FieldType::signal, .signal = &ForceSpec::force, .dimension = Dimension::force,
     .required = true},
};
inline std::span<const SpecField<ForceSpec>> spec_fields(const ForceSpec&) { return kForceFields; }

// One-way clutch (freewheel, sprag or roller clutch; to the base: a backstop)
// on the relative velocity v = q_a' - q_b' (elements/one_way_clutch.hpp). It
// never turns in its locked direction: o v >= 0 always, o = +1 for overrun
// "positive" (v may be positive), -1 for "negative". Overrunning (o v > 0) it
// drags with torque o D(t) + viscous v; locked (v = 0) it carries any torque
// lambda with o lambda <= static_ratio D(t): unbounded in the locking direction,
// at most static_ratio D against overrun. The torque acts as -lambda on body a
// and +lambda on body b, as a friction element's. body_b empty: to the base.
struct OneWayClutchSpec {
  static constexpr const char* kType = "one_way_clutch";
  static constexpr const char* kNoun = "a one-way clutch";
  std::string name;
  std::string body_a, body_b;      // body_b empty = fixed base
  std::vector<CoordinateTerm> coordinate;  // given: v = sum c q' instead (body_a, body_b empty)
  std::string overrun = "positive";  // positive | negative: the sign of v that runs free
  Signal coulomb;                  // drag D(t) [N m] while overrunning, >= 0 at all times (0: a pure freewheel)
  double viscous = 0.0;            // mu [N m s/rad], >= 0, while overrunning
  double static_ratio = 1.0;       // locked: holds static_ratio D against overrun, >= 1
};
inline constexpr SpecField<OneWayClutchSpec> kOneWayClutchFields[] = {
    {.key = "bodies", .type = FieldType::attachment, .text = &OneWayClutchSpec::body_a,
     .second = &OneWayClutchSpec::body_b, .coordinate = &OneWayClutchSpec::coordinate},
    {.key = "overrun", .type = FieldType::text, .text = &OneWayClutchSpec::overrun, .choices = "positive, negative"},
    {.key = "coulomb", .type = FieldType::signal, .signal = &OneWayClutchSpec::coulomb, .dimension = Dimension::torque},
    {.key = "viscous", .number = &OneWayClutchSpec::viscous, .dimension = Dimension::damping,
     .rule = NumberRule::nonnegative},
    {.key = "static_ratio", .number = &OneWayClutchSpec::static_ratio, .dimension = Dimension::dimensionless,
     .rule = NumberRule::at_least_one},
};
inline std::span<const SpecField<OneWayClutchSpec>> spec_fields(const OneWayClutchSpec&) { return kOneWayClutchFields; }

// Rack and pinion (issue 19 item 8): a translational rack on a rotational
// pinion of pitch radius r, on the coordinate x = s_rack - r q_pinion [m]. Its
// force F [N], the spring law of x (SpringSpec: stiffness [N/m], freeplay [m],
// damping [N s/m], restitution, damping_law), acts as -F on the rack and +r F
// [N m] on the pinion. Rigid (stiffness .inf, the default, without freeplay):
// the rack moves with s = r q, merged by the reduction into the pinion or the
// pinion into it (core/reduce.hpp) and reported in m. To the reduction and
// the solvers it is that spring (spring_of: bodies [rack, pinion], ratio r).
struct RackPinionSpec {
  static constexpr const char* kType = "rack_pinion";
  static constexpr const char* kNoun = "a rack and pinion";
  // Its coordinate is a rack's travel: its fields read in the translational
  // units (io/yaml_elements.cpp), their dimensions below being the rotational
  // twins (a key means one quantity in every kind).
  static constexpr bool kTranslational = true;
  std::string name;
  std::string rack, pinion;  // a translational and a rotational body
  double radius = 0.0;       // r [m] > 0: the rack travels r per radian of the pinion
  double stiffness = std::numeric_limits<double>::infinity();  // mesh stiffness [N/m], >= 0 or .inf (rigid)
  double freeplay = 0.0;     // half the lash [m], >= 0 (or {lower, upper})
  double freeplay_lower = 0.0, freeplay_upper = 0.0;
  bool freeplay_bounds = false;
  double offset = 0.0;       // x0 [m]: the unstretched travel (a spring's offset)
  double preload = 0.0;      // P [N]: a linear mesh's force at x = 0 (not with offset)
  PointTable stiffness_table;  // (x~ [m], F [N]): a piecewise-linear law, instead of stiffness
  double damping = 0.0;      // [N s/m], >= 0, on x'
  double restitution = 0.0;  // rigid with lash only
  std::string damping_law = "everywhere";
};
inline constexpr SpecField<RackPinionSpec> kRackPinionFields[] = {
    {.key = "rack", .type = FieldType::body, .text = &RackPinionSpec::rack},
    {.key = "pinion", .type = FieldType::body, .text = &RackPinionSpec::pinion},
    {.key = "radius", .number = &RackPinionSpec::radius, .dimension = Dimension::length, .required = true},
    {.key = "stiffness", .number = &RackPinionSpec::stiffness, .dimension = Dimension::stiffness,
     .rule = NumberRule::nonnegative_or_inf},
    {.key = "freeplay", .type = FieldType::bounds, .number = &RackPinionSpec::freeplay, .dimension = Dimension::angle,
     .rule = NumberRule::nonnegative, .lower = &RackPinionSpec::freeplay_lower, .upper = &RackPinionSpec::freeplay_upper,
     .bounds = &RackPinionSpec::freeplay_bounds},
    {.key = "offset", .number = &RackPinionSpec::offset, .dimension = Dimension::angle},
    {.key = "preload", .number = &RackPinionSpec::preload, .dimension = Dimension::torque},
    {.key = "stiffness_table", .type = FieldType::points, .dimension = Dimension::angle,
     .points = &RackPinionSpec::stiffness_table, .value_dimension = Dimension::torque, .instead_of = "stiffness"},
    {.key = "damping", .number = &RackPinionSpec::damping, .dimension = Dimension::damping,
     .rule = NumberRule::nonnegative},
    {.key = "restitution", .number = &RackPinionSpec::restitution, .dimension = Dimension::dimensionless},
    {.key = "damping_law", .type = FieldType::text, .text = &RackPinionSpec::damping_law,
     .choices = "everywhere, contact"},
};
inline std::span<const SpecField<RackPinionSpec>> spec_fields(const RackPinionSpec&) { return kRackPinionFields; }
// The spring a rack and pinion is: bodies [rack, pinion], ratio radius, its law's fields.
SpringSpec spring_of(const RackPinionSpec& g);
// Its inverse: a spring from a translational body_a to a rotational body_b
// with ratio r > 0 is the rack and pinion of radius r (what a reduction
// carried, written back as one); false for one on a coordinate or a base.
bool rack_pinion_of(const SpringSpec& s, RackPinionSpec& out);
// The same spring with its bodies swapped: x = q_a - p q_b is -p x' with
// x' = q_b - q_a / p, so on x' its stiffness and damping are p^2 times, its
// gap 1 / p times and mirrored ([l, u] -> [-u / p, -l / p]), its ratio 1 / p
// (Theorem 3.2; the elastic energy and the power are the same); the law
// T'(x') = -p T(-p x'): offset -x0 / p, preload -p P, a table's points
// (-x_k / p, -p T_k) in reverse. For a spring of two bodies with ratio > 0 (a
// reduction that keeps the rack writes a spring from a pinion's shaft to
// it); false for any other.
bool swap_bodies(const SpringSpec& s, SpringSpec& out);

// Permanent link (issue 19 item 2): a bilateral kinematic constraint that is
// never released, x' = sum c_k q_k' = 0 on its coordinate at all times (a
// `coordinate` of 3 or more bodies: an open differential's q_left + q_right -
// 2 q_cage, a planetary set's Willis relation). It is a link of the variable
// structure that is locked from t_start on with an unbounded torque lambda
// (elements/permanent_link.hpp): lambda acts as -c_k lambda on body k, does no
// work, and is its output. The initial velocities must satisfy it (its angles
// need not: it holds the rates). Between two bodies (`bodies: [a, b]`,
// `ratio`: w_a = ratio w_b) it stays a link, which the solvers lock as a
// ratio; a rigid merge (core/reduce.hpp) carries it onto the bodies kept.
struct LinkSpec {
  static constexpr const char* kType = "link";
  static constexpr const char* kNoun = "a link";
  std::string name;
  std::string body_a, body_b;  // body_b empty = fixed base
  double ratio = 1.0;          // between two bodies: w_a = ratio w_b
  std::vector<CoordinateTerm> coordinate;  // given: sum c q' = 0 instead (body_a, body_b empty)
};
inline constexpr SpecField<LinkSpec> kLinkFields[] = {
    {.key = "bodies", .type = FieldType::attachment, .text = &LinkSpec::body_a, .second = &LinkSpec::body_b,
     .coordinate = &LinkSpec::coordinate},
    {.key = "ratio", .number = &LinkSpec::ratio, .dimension = Dimension::dimensionless,
     .rule = NumberRule::nonzero, .between_bodies = true},
};
inline std::span<const SpecField<LinkSpec>> spec_fields(const LinkSpec&) { return kLinkFields; }

// Planetary gear set (issue 19 item 2): sun, carrier and ring, ratio = ring
// teeth / sun teeth (> 1). Its mesh coordinate (Willis)
//   x = q_sun + ratio q_ring - (1 + ratio) q_carrier
// (sun and ring angles in one sign convention). Ideal (stiffness .inf, the
// default, without freeplay) it is the permanent link x' = 0 (LinkSpec): its
// torque lambda acts as -lambda on the sun, -ratio lambda on the ring and
// (1 + ratio) lambda on the carrier (tau_s : tau_r : tau_c = 1 : ratio :
// -(1 + ratio)). With a finite stiffness or a freeplay it is the spring of
// that law on x (SpringSpec: stiffness, freeplay, damping, restitution,
// damping_law, as a spring's), and its torque the spring's.
struct PlanetarySpec {
  static constexpr const char* kType = "planetary";
  static constexpr const char* kNoun = "a planetary gear set";
  std::string name;
  std::string sun, carrier, ring;  // three different bodies
  double ratio = 0.0;              // ring teeth / sun teeth, > 1
  double stiffness = std::numeric_limits<double>::infinity();  // mesh stiffness on x [N m/rad], >= 0 or .inf
  double freeplay = 0.0;           // half the lash on x [rad], >= 0 (or {lower, upper})
  double freeplay_lower = 0.0, freeplay_upper = 0.0;
  bool freeplay_bounds = false;
  double damping = 0.0;            // [N m s/rad], >= 0, on x'
  double restitution = 0.0;        // rigid with lash only
  std::string damping_law = "everywhere";
};
inline constexpr SpecField<PlanetarySpec> kPlanetaryFields[] = {
    {.key = "sun", .type = FieldType::body, .text = &PlanetarySpec::sun},
    {.key = "carrier", .type = FieldType::body, .text = &PlanetarySpec::carrier},
    {.key = "ring", .type = FieldType::body, .text = &PlanetarySpec::ring},
    {.key = "ratio", .number = &PlanetarySpec::ratio, .dimension = Dimension::dimensionless, .required = true},
    {.key = "stiffness", .number = &PlanetarySpec::stiffness, .dimension = Dimension::stiffness,
     .rule = NumberRule::nonnegative_or_inf},
    {.key = "freeplay", .type = FieldType::bounds, .number = &PlanetarySpec::freeplay, .dimension = Dimension::angle,
     .rule = NumberRule::nonnegative, .lower = &PlanetarySpec::freeplay_lower, .upper = &PlanetarySpec::freeplay_upper,
     .bounds = &PlanetarySpec::freeplay_bounds},
    {.key = "damping", .number = &PlanetarySpec::damping, .dimension = Dimension::damping,
     .rule = NumberRule::nonnegative},
    {.key = "restitution", .number = &PlanetarySpec::restitution, .dimension = Dimension::dimensionless},
    {.key = "damping_law", .type = FieldType::text, .text = &PlanetarySpec::damping_law,
     .choices = "everywhere, contact"},
};
inline std::span<const SpecField<PlanetarySpec>> spec_fields(const PlanetarySpec&) { return kPlanetaryFields; }
// Its mesh coordinate {sun: 1, ring: ratio, carrier: -(1 + ratio)}.
std::vector<CoordinateTerm> planetary_coordinate(const PlanetarySpec& g);
// True when it is ideal: stiffness .inf without freeplay (a permanent link).
bool planetary_is_ideal(const PlanetarySpec& g);
// The permanent link an ideal planetary set is, and the spring a compliant one is.
LinkSpec link_of(const PlanetarySpec& g);
SpringSpec spring_of(const PlanetarySpec& g);

// Lossy gear (issue 19 item 4; elements/lossy_gear.hpp): a rigid gear
// q_a = ratio q_b between two inertial bodies whose mesh passes power with
// efficiency efficiency_forward when a drives b and efficiency_back when b
// drives a (<= 0: self-locking, it cannot be driven from b), with a Coulomb
// bearing friction bearing_friction on shaft a; stuck, moving forward or
// back-driven, the modes selected exactly at events (Modelica's LossyGear,
// its lossTable [0, efficiency_forward, efficiency_back, tau_bf1, tau_bf2]
// with tau_bf1 = efficiency_forward bearing_friction, tau_bf2 =
// bearing_friction / efficiency_back). Its loss acts on shaft a against its
// speed relative to the base (the gear's housing).
struct LossyGearSpec {
  static constexpr const char* kType = "lossy_gear";
  static constexpr const char* kNoun = "a lossy gear";
  std::string name;
  std::string body_a, body_b;      // shafts a (input) and b (output), two bodies (no `coordinate`)
  double ratio = 1.0;              // q_a = ratio q_b, != 0
  double efficiency_forward = 1.0; // eta_f in (0, 1]
  double efficiency_back = 1.0;    // eta_b <= eta_f (<= 0: self-locking)
  double bearing_friction = 0.0;   // f [N m], >= 0
};
inline constexpr SpecField<LossyGearSpec> kLossyGearFields[] = {
    {.key = "bodies", .type = FieldType::attachment, .text = &LossyGearSpec::body_a,
     .second = &LossyGearSpec::body_b},
    {.key = "ratio", .number = &LossyGearSpec::ratio, .dimension = Dimension::dimensionless,
     .rule = NumberRule::nonzero},
    {.key = "efficiency_forward", .number = &LossyGearSpec::efficiency_forward, .dimension = Dimension::dimensionless,
     .required = true},
    {.key = "efficiency_back", .number = &LossyGearSpec::efficiency_back, .dimension = Dimension::dimensionless,
     .required = true},
    {.key = "bearing_friction", .number = &LossyGearSpec::bearing_friction, .dimension = Dimension::torque,
     .rule = NumberRule::nonnegative},
};
inline std::span<const SpecField<LossyGearSpec>> spec_fields(const LossyGearSpec&) { return kLossyGearFields; }

// A new kind: its struct (with kType, kNoun), its field table and
// spec_fields overload above, and its alternative here.
using ElementSpec = std::variant<SpringSpec, FrictionSpec, TorqueSpec, OneWayClutchSpec, ForceSpec, RackPinionSpec,
                                 LinkSpec, PlanetarySpec, LossyGearSpec>;

// The kinds' `type` names, "spring, friction, torque, one_way_clutch".
std::string element_types();
// A default description of the kind named `type` into `out`; false for no such kind.
bool element_spec_of_type(const std::string& type, ElementSpec& out);
// The field that `key` names in some kind's table, as its type and dimension;
// false when no kind has it.
bool element_field(const std::string& key, FieldType& type, Dimension& dimension);
// The bodies an element is on (its attachment's or coordinate's, or its body;
// the base is none), in the order of its description.
std::vector<std::string> element_bodies(const ElementSpec& e);
// Calls f(signal, key) on each signal field of an element (E: ElementSpec, const or not).
template <class E, class F>
void for_each_element_signal(E& e, F&& f) {
  std::visit([&](auto& s) {
    for (const auto& field : spec_fields(s))
      if (field.signal) f(s.*field.signal, std::string(field.key));
  }, e);
}

// Integration settings (YAML section `simulation`).
struct SimulationSettings {
  double t_start = 0.0;       // [s]
  double t_end = 1.0;         // [s], > t_start
  double output_step = 1e-3;  // sampling of the stored trajectories [s], > 0
  double rtol = 1e-8;         // CVODE relative tolerance
  double atol = 1e-10;        // CVODE absolute tolerance on angles and velocities
  double max_step = 0.0;      // largest CVODE step [s]; 0 = no limit
  long max_events = 10000000; // stop with status event_limit beyond this many events
  long storm_events = 200;    // an event storm is this many events ...
  double storm_span = 1e-9;   // ... within this span of time [s]
  // event_driven: a rigid freeplay struck at a relative speed whose rebound
  // e |u| would be below this comes to rest in contact (plastic impact), which
  // ends the accumulation of ever shorter bounces [rad/s], >= 0
  double rest_velocity = 1e-6;
  std::string linear_solver = "auto";  // auto | dense | band
  // event_driven: what integrates between events (solvers/integrator.hpp):
  // auto (resolve_integrator: exact where it serves the model, else cvode_bdf) | exact | cvode_bdf | cvode_adams
  std::string integrator = "auto";
  // event_driven: samples' outputs through per-mode affine maps where the
  // model allows (solvers/output_map.hpp); false: the element tables at every
  // sample (not a model field: the tests compare the two).
  bool output_maps = true;
  // event_driven: CVODE with exact events (S-S procedure); time_stepping:
  // Moreau-Jean (solvers/time_stepping.hpp), fixed step, no event location.
  std::string solver = "event_driven";
  double step = 0.0;          // time_stepping: step h [s], > 0 (required there)
  double theta = 0.5;         // time_stepping: theta in [0.5, 1] (0.5: no numerical damping)
};

struct ModelSpec {
  std::string name;
  std::string description;
  std::string source_text;   // the YAML text, stored with the results
  std::string source_path;   // file it came from, if any
  // Where each field was written: dotted path -> "file:line:col" (filled by
  // io/ for a model read from a file; empty for a model built in code).
  std::map<std::string, std::string> locations;
  std::vector<BodySpec> bodies;
  std::vector<ElementSpec> elements;      // in the order they were given
  std::map<std::string, Signal> signals;  // named signals referenced by elements
  SimulationSettings simulation;
};

// Location of `field` in the model's file: the field's own, else its closest
// recorded parent's ("elements.mesh.ratio" falls back to "elements.mesh"),
// else source_path (empty for a model built in code).
std::string where(const ModelSpec& spec, std::string field);

// Why `name` cannot name a body, element, signal or sweep metric, or "" if it
// can. Names become HDF5 paths (/bodies/NAME/angle) and CSV columns
// (NAME.angle; a block's column is its signal's name alone), so a name is not
// empty, has no '/', '.' or ',', no control characters and no leading or
// trailing whitespace. A column name (`column`: true for signals) is also none
// of the fixed columns: time, input_work, kinetic, elastic, dissipated.
std::string name_problem(const std::string& name, bool column);

// Name of an element whatever its kind.
const std::string& element_name(const ElementSpec& e);

}  // namespace luztar
