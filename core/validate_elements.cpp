// The rules of an element: its field table's (bodies, attachment or
// coordinate, numbers, words, signals), then its kind's own (kind_rules; a
// spring's are in core/validate_springs.cpp).
#include <algorithm>
#include <type_traits>

#include "core/model.hpp"
#include "core/run_frame.hpp"
#include "core/units.hpp"
#include "core/validate_common.hpp"

namespace luztar::validation {

const BodySpec* find_body(const ModelSpec& spec, const std::string& name) {
  for (const BodySpec& b : spec.bodies)
    if (b.name == name) return &b;
  return nullptr;
}

// The initial value of an element's coordinate from its bodies' field `of`
// (angle or velocity): sum c q over a coordinate's terms, else q_a - ratio q_b.
double initial_coordinate(const ModelSpec& spec, const std::string& a, const std::string& b, double ratio,
                          const std::vector<CoordinateTerm>& terms, double BodySpec::*of) {
  double x = 0.0;
  for (const CoordinateTerm& t : terms)
    if (const BodySpec* body = find_body(spec, t.body)) x += t.c * (body->*of);
  if (!terms.empty()) return x;
  const BodySpec* pa = find_body(spec, a);
  const BodySpec* pb = b.empty() ? nullptr : find_body(spec, b);
  return (pa ? pa->*of : 0.0) - ratio * (pb ? pb->*of : 0.0);
}

namespace {

// `coordinate: {body: c, ...}` (issue 19 item 1): 1 to kMaxCoordinateTerms
// terms on distinct known bodies with finite nonzero coefficients. Its bodies
// must have inertia: the massless reductions (core/reduce.hpp) are written for
// the two-body form, which `body`/`bodies` keep.
void coordinate_rules(const ModelSpec& spec, const std::vector<CoordinateTerm>& terms, const std::string& p,
                      const std::set<std::string>& bodies) {
  const std::string f = p + ".coordinate";
  if (terms.size() > static_cast<std::size_t>(kMaxCoordinateTerms))
    throw ModelError(f, "has " + std::to_string(terms.size()) + " terms, more than the limit of " +
                            std::to_string(kMaxCoordinateTerms));
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const CoordinateTerm& t = terms[i];
    const std::string at = f + "." + t.body;
    if (!bodies.count(t.body)) throw ModelError(at, "no body named '" + t.body + "'");
    for (std::size_t j = 0; j < i; ++j)
      if (terms[j].body == t.body) throw ModelError(at, "names the body '" + t.body + "' twice");
    if (!std::isfinite(t.c)) throw ModelError(at, "must be a finite number (got " + show(t.c) + ")");
    if (t.c == 0.0) throw ModelError(at, "must not be 0 (leave the body out)");
    if (std::abs(t.c) < kSmallestMagnitude || std::abs(t.c) > kLargestMagnitude)  // as a ratio's: c^2 I stays in range
      throw ModelError(at, "must be of a magnitude between 1e-100 and 1e100 (got " + show(t.c) + ")");
  }
  for (const CoordinateTerm& t : terms)
    if (find_body(spec, t.body)->inertia == 0.0)
      throw ModelError(f, "includes the massless body '" + t.body + "': " +
                              (terms.size() >= 3 ? std::string("a coordinate of 3 or more bodies needs inertial bodies")
                                                 : std::string("give it an inertia, or attach the element with "
                                                               "'body' or 'bodies' (the massless rules are theirs)")));
}

// --- the rules of an element kind: its field table's, then its own -----------

// The rule of a number field (core/model_spec.hpp, NumberRule).
void number_kind_rule(double v, NumberRule rule, const std::string& field) {
  switch (rule) {
    case NumberRule::finite:
      require_finite(v, field);
      break;
    case NumberRule::nonzero:
      require_finite(v, field);
      if (v == 0.0) throw ModelError(field, "must not be 0");
      break;
    case NumberRule::nonnegative:
      require_nonnegative(v, field);
      break;
    case NumberRule::nonnegative_or_inf:
      if (std::isnan(v) || v < 0.0) throw ModelError(field, "must be >= 0 or .inf (got " + show(v) + ")");
      break;
    case NumberRule::at_least_one:
      require_finite(v, field);
      if (v < 1.0) throw ModelError(field, "must be >= 1 (got " + show(v) + ")");
      break;
  }
}

void number_rule(double v, NumberRule rule, const std::string& field) {
  number_kind_rule(v, rule, field);
  require_in_range(v, field);
}

// A field given as {lower, upper}: both finite, lower <= upper (and its number form unused).
void bound_rules(double lower, double upper, double number, const std::string& field) {
  require_finite(lower, field + ".lower");
  require_finite(upper, field + ".upper");
  if (!(lower <= upper))
    throw ModelError(field + ".upper", "must be >= lower (got lower " + show(lower) + ", upper " + show(upper) + ")");
  if (number != 0.0) throw ModelError(field, "give a number (half the play) or {lower, upper}, not both");
}

// True when `value` is one of "a, b, c".
bool one_of(const std::string& value, const std::string& choices) {
  for (std::size_t start = 0;;) {
    const std::size_t comma = choices.find(", ", start);
    if (choices.compare(start, comma == std::string::npos ? std::string::npos : comma - start, value) == 0) return true;
    if (comma == std::string::npos) return false;
    start = comma + 2;
  }
}

// The rules of a kind's field table at p (elements.<name>): its bodies, then
// its numbers, its words, its signals (read in continuous time).
template <class S>
void field_rules(const ModelSpec& spec, const S& s, const std::string& p, const std::set<std::string>& bodies) {
  auto require_body = [&](const std::string& name, const std::string& field) {
    if (!bodies.count(name)) throw ModelError(field, "no body named '" + name + "'");
  };
  for (const auto& f : spec_fields(s)) {
    const std::string field = p + "." + f.key;
    if (f.type == FieldType::body) require_body(s.*f.text, field);
    if (f.type != FieldType::attachment) continue;
    if (f.coordinate && !(s.*f.coordinate).empty()) {
      coordinate_rules(spec, s.*f.coordinate, p, bodies);
      continue;
    }
    require_body(s.*f.text, field);
    if (!(s.*f.second).empty()) require_body(s.*f.second, field);
    if (s.*f.text == s.*f.second) throw ModelError(field, std::string(S::kNoun) + " needs two different bodies");
  }
  for (const auto& f : spec_fields(s)) {
    if (f.type == FieldType::number || (f.type == FieldType::bounds && !(s.*f.bounds)))
      number_rule(s.*f.number, f.rule, p + "." + f.key);
    if (f.type == FieldType::bounds && s.*f.bounds) bound_rules(s.*f.lower, s.*f.upper, s.*f.number, p + "." + f.key);
  }
  for (const auto& f : spec_fields(s))
    if (f.type == FieldType::text && f.choices && !one_of(s.*f.text, f.choices))
      throw ModelError(p + "." + f.key, std::string("must be one of ") + f.choices + " (got '" + s.*f.text + "')");
  for (const auto& f : spec_fields(s))
    if (f.type == FieldType::signal) validate_signal(s.*f.signal, p + "." + f.key, spec.signals, bodies,
                                                         spec.simulation.t_end - spec.simulation.t_start);
}

// A kind's rules beyond its table (none unless it has an overload: below, or a
// spring's in core/validate_springs.cpp).
template <class S>
void kind_rules(const ModelSpec&, const S&, const std::string&) {}

// A value with the SI unit of its dimension ("0.5 rad/s", "1 N m"; a plain number when dimensionless).
std::string quantity(double v, Dimension d) {
  const std::string unit = d == Dimension::dimensionless ? "" : si_unit(d);
  return show(v) + (unit.empty() ? "" : " " + unit);
}

// A friction table tau(|v|) at f (elements.b.coulomb_table): at most
// kMaxSpeedTablePoints finite points, the first at speed 0, speeds
// increasing, values >= 0, and a last segment that does not fall (continued
// beyond the last point it would reach 0 and then pull).
void speed_table_rules(const SpeedTable& t, const std::string& f, Dimension value_dim) {
  constexpr Dimension speed_dim = Dimension::angular_velocity;
  if (t.speed.size() != t.value.size()) throw ModelError(f, "speeds and values differ in length");
  if (t.speed.size() > kMaxSpeedTablePoints)
    throw ModelError(f, "has " + std::to_string(t.speed.size()) + " points, more than the limit of " +
                            std::to_string(kMaxSpeedTablePoints) + " (each knot is an event)");
  for (std::size_t i = 0; i < t.speed.size(); ++i) {
    const std::string pf = f + ".points[" + std::to_string(i) + "]";
    require_finite(t.speed[i], pf);
    require_finite(t.value[i], pf);
    if (i == 0 && t.speed[0] != 0.0)
      throw ModelError(pf, "the first speed must be 0 (the table starts at rest; got " + quantity(t.speed[0], speed_dim) +
                               ")");
    if (i > 0 && !(t.speed[i] > t.speed[i - 1]))
      throw ModelError(pf, "speeds must increase (got " + quantity(t.speed[i], speed_dim) + " after " +
                               quantity(t.speed[i - 1], speed_dim) + ")");
    if (t.value[i] < 0.0) throw ModelError(pf, "must be >= 0 (got " + quantity(t.value[i], value_dim) + ")");
  }
  const std::size_t n = t.speed.size();
  if (n >= 2 && t.value[n - 1] < t.value[n - 2]) {
    const double v0 = t.speed[n - 2], v1 = t.speed[n - 1], y0 = t.value[n - 2], y1 = t.value[n - 1];
    const double zero = v1 + y1 * (v1 - v0) / (y0 - y1);
    throw ModelError(f, "the last segment falls (from " + quantity(y0, value_dim) + " at " + quantity(v0, speed_dim) +
                            " to " + show(y1) + " at " + quantity(v1, speed_dim) + "): continued beyond " +
                            quantity(v1, speed_dim) + " it would reach 0 at " + quantity(zero, speed_dim) +
                            "; end the table on a level or rising segment");
  }
}

// One friction law (core/model_spec.hpp, FrictionSpec): coulomb, or a table
// (then coulomb is left at 0); mu_table with its radius and normal force.
// The reader checks which keys are written; these are the values' rules, for
// a description built in code too.
void kind_rules(const ModelSpec& spec, const FrictionSpec& f, const std::string& p) {
  const bool coulomb_table = !f.coulomb_table.empty(), mu_table = !f.mu_table.empty();
  const bool coulomb_set = !(f.coulomb.kind == Signal::Kind::constant && f.coulomb.value == 0.0);
  if (int(coulomb_table) + int(mu_table) + int(coulomb_set && (coulomb_table || mu_table)) > 1)
    throw ModelError(p, "give one of 'coulomb', 'coulomb_table' or 'mu_table', not two");
  if (!coulomb_table && !mu_table) require_nonnegative_signal(spec, f.coulomb, p + ".coulomb", "the friction torque limit");
  if (coulomb_table) speed_table_rules(f.coulomb_table, p + ".coulomb_table", Dimension::torque);
  if (mu_table) {
    speed_table_rules(f.mu_table, p + ".mu_table", Dimension::dimensionless);
    if (!(f.radius > 0.0)) throw ModelError(p + ".radius", "must be > 0 (got " + show(f.radius) + ")");
    require_nonnegative_signal(spec, f.normal_force, p + ".normal_force", "the normal force");
    return;
  }
  if (f.radius != 0.0) throw ModelError(p + ".radius", "applies to 'mu_table' only");
  if (!(f.normal_force.kind == Signal::Kind::constant && f.normal_force.value == 0.0))
    throw ModelError(p + ".normal_force", "applies to 'mu_table' only");
}

// A one-way clutch's drag is a friction torque (>= 0 at all times), and it
// never starts turning in its locked direction: o (w_a - w_b) >= 0 at t_start
// (at rest, the S-S selection decides whether it locks or overruns).
void kind_rules(const ModelSpec& spec, const OneWayClutchSpec& c, const std::string& p) {
  const Range r = signal_range(c.coulomb, spec.signals, 0);
  if (r.lo < 0.0) throw ModelError(p + ".coulomb", "the drag must stay >= 0 (it can reach " + show(r.lo) + ")");
  const double v = initial_coordinate(spec, c.body_a, c.body_b, 1.0, c.coordinate, &BodySpec::velocity);
  const double o = c.overrun == "negative" ? -1.0 : 1.0;
  std::string rate = "w_" + c.body_a + (c.body_b.empty() ? std::string() : " - w_" + c.body_b);
  if (!c.coordinate.empty()) rate = "of its coordinate";
  if (o * v < 0.0)
    throw ModelError(p, "the initial relative velocity " + rate +
                            " = " + show(v) + " rad/s turns the one-way clutch in its locked direction (overrun: " +
                            c.overrun + "); start it at rest or overrunning");
}

// A permanent link holds sum c_k w_k = 0 from t_start on: its bodies have
// inertia (its torque is a constraint force; a massless body has no
// acceleration to balance it) and the initial velocities satisfy it, to 1e-9
// of the size of its terms (no projection at t_start changes what was written).
void kind_rules(const ModelSpec& spec, const LinkSpec& l, const std::string& p) {
  std::vector<CoordinateTerm> terms = l.coordinate;
  if (terms.empty()) {
    terms.push_back({l.body_a, 1.0});
    if (!l.body_b.empty()) terms.push_back({l.body_b, -l.ratio});
  }
  double rate = 0.0, size = 0.0;
  std::string relation, values;
  for (const CoordinateTerm& t : terms) {
    const BodySpec* b = find_body(spec, t.body);
    if (b->inertia == 0.0)
      throw ModelError(p, "the link's body '" + t.body + "' is massless: a link needs bodies with inertia");
    rate += t.c * b->velocity;
    size += std::abs(t.c * b->velocity);
    const double c = std::abs(t.c);
    relation += std::string(relation.empty() ? (t.c < 0 ? "-" : "") : (t.c < 0 ? " - " : " + ")) +
                (c == 1.0 ? "" : show(c) + " ") + "w_" + t.body;
    values += (values.empty() ? "" : ", ") + t.body + ": " + show(b->velocity) + " rad/s";
  }
  if (std::abs(rate) > 1e-9 * size)
    throw ModelError(p, "the initial velocities break the link " + relation + " = 0 (" + values + "; the sum is " +
                            show(rate) + " rad/s): give initial velocities that satisfy it");
}

// A planetary set: ring/sun teeth ratio > 1, three different bodies; ideal,
// the rules of its permanent link, else of its mesh spring.
void kind_rules(const ModelSpec& spec, const PlanetarySpec& g, const std::string& p) {
  if (!(g.ratio > 1.0) || !std::isfinite(g.ratio))
    throw ModelError(p + ".ratio", "must be a finite number > 1 (ring teeth / sun teeth; got " + show(g.ratio) + ")");
  const std::pair<const char*, const std::string*> named[] = {{"sun", &g.sun}, {"carrier", &g.carrier}, {"ring", &g.ring}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < i; ++j)
      if (*named[i].second == *named[j].second)
        throw ModelError(p + "." + named[i].first, "names the body '" + *named[i].second + "', which is already its " +
                                                       named[j].first + ": sun, carrier and ring are three different bodies");
  if (planetary_is_ideal(g)) kind_rules(spec, link_of(g), p);
  else kind_rules(spec, spring_of(g), p);
}

// Whether element e can lock the bodies it acts on (a link of the variable
// structure, core/model.hpp: dry friction, a one-way clutch, a permanent link
// or planetary set, a rigid spring, a lossy gear), in words, or "" when not.
std::string locking_kind(const ElementSpec& e) {
  if (const auto* f = std::get_if<FrictionSpec>(&e)) {
    const bool dry = !f->coulomb_table.empty() || !f->mu_table.empty() ||
                     !(f->coulomb.kind == Signal::Kind::constant && f->coulomb.value == 0.0);
    return dry ? "dry friction" : "";
  }
  if (const auto* s = std::get_if<SpringSpec>(&e)) return std::isinf(s->stiffness) ? "a rigid spring" : "";
  if (const auto* r = std::get_if<RackPinionSpec>(&e)) return std::isinf(r->stiffness) ? "a rigid rack and pinion" : "";
  if (std::holds_alternative<OneWayClutchSpec>(e)) return "a one-way clutch";
  if (std::holds_alternative<LinkSpec>(e)) return "a link";
  if (std::holds_alternative<PlanetarySpec>(e)) return "a planetary set";
  if (std::holds_alternative<LossyGearSpec>(e)) return "a lossy gear";
  return "";
}

// The bodies that elements able to lock (locking_kind) join to `start`
// (itself included), not through element `skip`: those a stuck clutch or
// bearing can make move with it.
std::vector<std::string> locking_reach(const ModelSpec& spec, const std::string& start, const std::string& skip) {
  std::vector<std::string> reach{start};
  for (std::size_t k = 0; k < reach.size(); ++k)
    for (const ElementSpec& e : spec.elements) {
      if (element_name(e) == skip || locking_kind(e).empty()) continue;
      const std::vector<std::string> on = element_bodies(e);
      if (std::find(on.begin(), on.end(), reach[k]) == on.end()) continue;
      for (const std::string& b : on)
        if (!b.empty() && std::find(reach.begin(), reach.end(), b) == reach.end()) reach.push_back(b);
    }
  return reach;
}

// A lossy gear (elements/lossy_gear.hpp) joins two inertial bodies, shaft a
// and shaft b, with 0 < efficiency_forward <= 1 and efficiency_back <=
// efficiency_forward (<= 0: self-locking). Back-driven it moves shaft a with
// the effective inertia J_a + efficiency_back J_b / ratio^2, which must be > 0
// (else the back-driven motion is ill-posed: a self-locking gear whose shaft b
// outweighs shaft a accelerates against its load). Self-locking
// (efficiency_back < 0), no dry friction acts on shaft b's side: stuck there,
// it can raise the mesh torque, which widens the cone that holds the gear,
// where the gear could as well move back-driven (two consistent modes:
// tests/lossy_gear_test.cpp, SelfLockingBesideABearingOnBIsAmbiguous). The
// initial velocities satisfy its mesh w_a = ratio w_b. Beside it,
// within the reach of its shafts through elements that can lock, only dry
// friction (bearings, brakes, clutches) may lock: its S-S selection
// enumerates the modes of the gear and of those (solvers/mode_selection.cpp,
// GearGroupSelection), which no other bound (a contact, a one-way clutch, a
// link, a second gear's cone) joins, and no impulse reaches them; nor a drive
// (a prescribed body) beyond its shafts, whose inertia the moving gear's law
// would take for a finite one.
void kind_rules(const ModelSpec& spec, const LossyGearSpec& g, const std::string& p) {
  if (g.body_b.empty())
    throw ModelError(p + ".bodies", "a lossy gear joins two bodies, shaft a and shaft b: give 'bodies: [a, b]' (its "
                                    "housing is the base)");
  if (!(g.efficiency_forward > 0.0 && g.efficiency_forward <= 1.0))
    throw ModelError(p + ".efficiency_forward", "must be in (0, 1] (got " + show(g.efficiency_forward) + ")");
  if (!(g.efficiency_back <= g.efficiency_forward))
    throw ModelError(p + ".efficiency_back", "must be <= efficiency_forward = " + show(g.efficiency_forward) +
                                                 " (got " + show(g.efficiency_back) + ")");
  const BodySpec* a = find_body(spec, g.body_a);
  const BodySpec* b = find_body(spec, g.body_b);
  for (const BodySpec* s : {a, b})
    if (!(s->inertia > 0.0))
      throw ModelError(p + ".bodies", "shaft '" + s->name + "' is massless: a lossy gear needs bodies with inertia");
  const std::vector<std::string> reach = locking_reach(spec, g.body_a, g.name), reach_b = locking_reach(spec, g.body_b, g.name);
  for (const ElementSpec& e : spec.elements) {
    if (element_name(e) == g.name) continue;
    const std::string kind = locking_kind(e);
    if (kind.empty() || kind == "dry friction") continue;
    for (const std::string& on : element_bodies(e))
      if (std::find(reach.begin(), reach.end(), on) != reach.end() ||
          std::find(reach_b.begin(), reach_b.end(), on) != reach_b.end())
        throw ModelError(p + ".bodies", "element '" + element_name(e) + "' (" + kind + ") acts on '" + on +
                                            "', which the gear's shafts reach through elements that can lock: "
                                            "beside a lossy gear only dry friction (bearings, brakes, clutches) "
                                            "is supported");
  }
  {
    // At most one loop among the gear's rows (its loss to the housing, its
    // mesh) and the friction within its reach: a row whose bodies (the
    // housing "") are connected already closes one. Its selection and static
    // split take one loop exactly (a null direction), no more.
    // That loop goes through the housing (a bearing or brake on shaft b's
    // side): one that closes between the shafts around the mesh (a clutch
    // from shaft b back to shaft a, directly or through other bodies) admits
    // two consistent modes, stuck and moving (a clutch a-b beside a gear of
    // ratio 0.5 stayed stuck where time stepping moved), or at ratio 1 a
    // moving split the motion does not determine (a new-user hunt).
    using UnionFind = std::vector<std::pair<std::string, std::string>>;
    UnionFind parent, around;  // over names, the housing ""; `around`: the rows off the housing
    auto root = [](const UnionFind& uf, std::string n) {
      for (bool moved = true; moved;) {
        moved = false;
        for (const auto& [child, up] : uf)
          if (child == n) {
            n = up;
            moved = true;
            break;
          }
      }
      return n;
    };
    int loops = 0;
    auto add_row = [&](std::vector<std::string> on, const std::string& who) {
      if (on.size() == 1) on.push_back("");
      bool joined = false, joined_around = false;
      const bool off_housing = std::find(on.begin(), on.end(), std::string()) == on.end();
      for (std::size_t k = 1; k < on.size(); ++k) {
        const std::string r0 = root(parent, on[0]), rk = root(parent, on[k]);
        if (r0 != rk) {
          parent.push_back({rk, r0});
          joined = true;
        }
        if (!off_housing) continue;
        const std::string a0 = root(around, on[0]), ak = root(around, on[k]);
        if (a0 != ak) {
          around.push_back({ak, a0});
          joined_around = true;
        }
      }
      if (off_housing && !joined_around)
        throw ModelError(p + ".bodies", "element '" + who + "' (dry friction) closes a loop from shaft b back to "
                                            "shaft a around the gear's mesh: the gear's mode is then not unique "
                                            "(stuck and moving can both hold); not supported (a loop through the "
                                            "housing, such as a bearing on shaft b, is)");
      if (!joined && ++loops > 1)
        throw ModelError(p + ".bodies", "element '" + who + "' (dry friction) closes a second loop of elements "
                                            "that can lock through the gear (its loss holds shaft a to the "
                                            "housing, its mesh shaft b to shaft a): one loop is supported; give a "
                                            "Coulomb bearing on shaft a as the gear's bearing_friction");
    };
    add_row({g.body_a, g.body_b}, g.name);
    add_row({g.body_a}, g.name);
    for (const ElementSpec& e : spec.elements) {
      if (element_name(e) == g.name || locking_kind(e) != "dry friction") continue;
      const std::vector<std::string> on = element_bodies(e);
      if (!on.empty() && (std::find(reach.begin(), reach.end(), on[0]) != reach.end() ||
                          std::find(reach_b.begin(), reach_b.end(), on[0]) != reach_b.end()))
        add_row(on, element_name(e));
    }
  }
  for (const std::vector<std::string>* side : {&reach, &reach_b})
    for (const std::string& n : *side)
      if (n != g.body_a && n != g.body_b && find_body(spec, n)->prescribed != BodySpec::Drive::none)
        throw ModelError(p + ".bodies", "body '" + n + "' is prescribed, and the gear's shafts reach it through "
                                            "elements that can lock: a drive locked to a lossy gear by a clutch is "
                                            "not supported");
  if (g.efficiency_back < 0.0)
    for (const ElementSpec& e : spec.elements) {
      if (element_name(e) == g.name || locking_kind(e) != "dry friction") continue;
      for (const std::string& on : element_bodies(e))
        if (on != g.body_a && std::find(reach_b.begin(), reach_b.end(), on) != reach_b.end())
          throw ModelError(p + ".efficiency_back",
                           "a self-locking gear (efficiency_back = " + show(g.efficiency_back) + " < 0) with dry "
                           "friction on shaft b's side (element '" + element_name(e) + "' on '" + on +
                           "') is ambiguous: stuck friction there can raise the mesh torque and with it the cone "
                           "that holds the gear, which could as well move back-driven (two consistent modes); give "
                           "efficiency_back >= 0, or that friction as part of the load");
    }
  const double inertia_b = b->inertia;  // (a clutch on b's side is refused above when efficiency_back < 0)
  const double effective = a->inertia + g.efficiency_back * inertia_b / (g.ratio * g.ratio);
  if (!(effective > 0.0))
    throw ModelError(p + ".efficiency_back",
                     "back-driven, the gear moves shaft a with the effective inertia J_a + efficiency_back J_b / "
                     "ratio^2 = " + show(effective) + " kg m^2 <= 0, an ill-posed motion; give efficiency_back > " +
                         show(-a->inertia * g.ratio * g.ratio / inertia_b));
  const double rate = a->velocity - g.ratio * b->velocity;
  if (std::abs(rate) > 1e-9 * (std::abs(a->velocity) + std::abs(g.ratio * b->velocity)))
    throw ModelError(p, "the initial velocities break the gear w_" + g.body_a + " = " + show(g.ratio) + " w_" +
                            g.body_b + " (" + show(a->velocity) + " and " + show(b->velocity) +
                            " rad/s): give initial velocities that satisfy it");
}

}  // namespace

namespace {

// The kinds of an element's bodies (core/model_spec.hpp BodySpec::kind): a
// load names its own quantity (a torque turns a rotational body, a force
// pushes a translational one); any other element acts on bodies of one kind.
template <class S>
void body_kind_rules(const ModelSpec& spec, const S& s, const std::string& p) {
  const auto kind_of = [&](const std::string& b) { return is_translational(*find_body(spec, b)); };
  if constexpr (std::is_same_v<S, RackPinionSpec>) {
    if (s.rack == s.pinion) throw ModelError(p, "rack and pinion must be two different bodies");
    if (!kind_of(s.rack))
      throw ModelError(p + ".rack", "body '" + s.rack + "' is rotational; a rack is a translational body (kind: translational)");
    if (kind_of(s.pinion)) throw ModelError(p + ".pinion", "body '" + s.pinion + "' is translational; a pinion turns");
  } else if constexpr (std::is_same_v<S, PlanetarySpec>) {
    for (const std::string* b : {&s.sun, &s.carrier, &s.ring})
      if (kind_of(*b)) throw ModelError(p, "body '" + *b + "' is translational: the shafts of " + S::kNoun + " turn");
  } else if constexpr (std::is_same_v<S, LinkSpec>) {
    // A link holds sum c_i q_i' = 0 and has no law: its coefficients carry the
    // units, so it may join a shaft and a rack (rad and m), as a rack and
    // pinion's radius does; luztar reduce writes one so when a rigid mesh
    // merges a linked pinion into its rack.
  } else if constexpr (std::is_same_v<S, TorqueSpec> || std::is_same_v<S, ForceSpec>) {
    const bool force = std::is_same_v<S, ForceSpec>;
    if (kind_of(s.body) != force)
      throw ModelError(p + ".body", "body '" + s.body + "' is " + (force ? "rotational" : "translational") +
                                        ": a load on it is " +
                                        (force ? "'type: torque' with 'torque' [N m]" : "'type: force' with 'force' [N]"));
  } else {
    const std::vector<std::string> on = element_bodies(ElementSpec(s));
    std::string at = ".bodies";
    if constexpr (requires { s.coordinate; })  // (a lossy gear takes no coordinate)
      if (!s.coordinate.empty()) at = ".coordinate";
    for (const std::string& b : on)
      if (kind_of(b) != kind_of(on.front()))
        throw ModelError(p + at,
                         "body '" + on.front() + "' is " + (kind_of(on.front()) ? "translational" : "rotational") +
                             " and body '" + b + "' " + (kind_of(b) ? "translational" : "rotational") + ": " +
                             S::kNoun + " acts on bodies of one kind");
  }
}

// A rack and pinion: a radius > 0; the rest is its spring's
// (core/validate_springs.cpp: a rigid lash needs inertial bodies, ...).
void kind_rules(const ModelSpec& spec, const RackPinionSpec& g, const std::string& p) {
  if (!(g.radius > 0.0)) throw ModelError(p + ".radius", "must be > 0 (got " + show(g.radius) + ")");
  kind_rules(spec, spring_of(g), p);
}

}  // namespace

void validate_element(const ModelSpec& spec, const ElementSpec& e, const std::string& p,
                      const std::set<std::string>& bodies, bool body_kinds) {
  std::visit([&](const auto& s) {
    field_rules(spec, s, p, bodies);
    if (body_kinds) body_kind_rules(spec, s, p);
    kind_rules(spec, s, p);
  }, e);
}

}  // namespace luztar::validation
