// A spring's rules beyond its field table: a stiffness table, its offset or
// preload, rigid freeplay and rigid connection at the start, contact damping.
#include <algorithm>

#include "core/model.hpp"
#include "core/run_frame.hpp"
#include "core/validate_common.hpp"

namespace luztar::validation {

namespace {

// damping_law: contact (elements/freeplay_spring.hpp) needs teeth that meet
// elastically: a gap (upper > lower) with a finite stiffness k > 0 (a rigid
// freeplay's contact is an impact), or a stiffness table (the law is 0 where
// its torque is), and inertial bodies (a massless body's springs are combined
// and solved with the law everywhere).
void contact_damping_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const std::string f = p + ".damping_law";
  if (s.stiffness_table.empty()) {
    if (!spring_has_gap(s))
      throw ModelError(f, "contact needs a gap (freeplay > 0 or lower < upper) or a stiffness_table (a spring "
                          "without a gap is always in contact)");
    if (std::isinf(s.stiffness) || s.stiffness == 0.0)
      throw ModelError(f, "contact needs a finite stiffness > 0 (got " + show(s.stiffness) + ")");
  }
  for (const std::string& name : {s.body_a, s.body_b})
    if (const BodySpec* body = name.empty() ? nullptr : find_body(spec, name); body && body->inertia == 0.0)
      throw ModelError(f, "contact needs inertial bodies; '" + body->name + "' is massless (inertia 0)");
}

// A rigid freeplay (stiffness .inf with a gap [l, u] around the offset x0) is
// a pair of unilateral constraints x0 + l <= q_a - p q_b <= x0 + u between
// inertial bodies.
void rigid_freeplay_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const BodySpec* a = find_body(spec, s.body_a);
  const BodySpec* b = s.body_b.empty() ? nullptr : find_body(spec, s.body_b);
  for (const BodySpec* body : {a, b})
    if (body && body->inertia == 0.0)
      throw ModelError(p + ".bodies", "a rigid freeplay (stiffness .inf) needs inertial bodies; '" + body->name +
                                          "' is massless (inertia 0)");
  const double x = initial_coordinate(spec, s.body_a, s.body_b, s.ratio, s.coordinate, &BodySpec::angle);
  const auto [lower, upper] = spring_gap(s);
  if (!s.freeplay_bounds && s.offset == 0.0) {  // [-a, a]
    if (std::abs(x) > s.freeplay * (1.0 + 1e-12))
      throw ModelError(p + ".freeplay", "the initial relative angle " + show(x) +
                                            " rad lies outside the rigid freeplay [-" + show(s.freeplay) + ", " +
                                            show(s.freeplay) + "]");
    return;
  }
  const double xt = x - s.offset, slack = 1e-12 * (upper - lower);
  if (xt < lower - slack || xt > upper + slack)
    throw ModelError(p + ".freeplay", "the initial relative angle " + show(x) + " rad lies outside the rigid stops [" +
                                          show(lower) + ", " + show(upper) + "] around the offset " + show(s.offset));
}

// A rigid connection (stiffness .inf without a gap) holds q_a = p q_b from
// the start: initial angles or velocities that break it would be overwritten
// when the bodies merge (a preload lost, kinetic energy gone from the
// balance), so they are refused. Relative 1e-9 leaves room for the roundoff
// of ratios such as 1/0.07; a massless body's velocity is not checked (it
// carries no momentum: the merge does not use it). To the base: see reduce().
void rigid_connection_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const BodySpec* a = find_body(spec, s.body_a);
  const BodySpec* b = s.body_b.empty() ? nullptr : find_body(spec, s.body_b);
  if (!a || !b) return;
  auto check = [&](double xa, double xb, const char* what, const char* unit) {
    const double pb = s.ratio * xb;
    if (std::abs(xa - pb) <= 1e-9 * std::max(std::abs(xa), std::abs(pb))) return;
    throw ModelError(p, std::string("the initial ") + what + " break the rigid connection " + a->name + " = " +
                            show(s.ratio) + " * " + b->name + " (" + a->name + ": " + show(xa) + " " + unit +
                            ", ratio * " + b->name + ": " + show(pb) + " " + unit + "): give consistent initial " +
                            what + ", or a freeplay or finite stiffness");
  };
  check(a->angle, b->angle, "angles", "rad");
  if (a->inertia > 0.0 && b->inertia > 0.0) check(a->velocity, b->velocity, "velocities", "rad/s");
}

// The offset or the preload of a spring: one of them, the preload on a linear
// spring only; a rigid connection (stiffness .inf, no gap) has neither.
void offset_rules(const SpringSpec& s, const std::string& p) {
  if (s.preload != 0.0 && s.offset != 0.0) throw ModelError(p + ".preload", "give 'offset' or 'preload', not both");
  if (s.preload != 0.0 &&
      (!s.stiffness_table.empty() || spring_has_gap(s) || !(s.stiffness > 0.0) || std::isinf(s.stiffness)))
    throw ModelError(p + ".preload", "needs a linear spring (a finite stiffness > 0 and no freeplay): preload is its "
                                     "torque at x = 0; with a gap or a stiffness table, give the offset");
  if (std::isinf(s.stiffness) && !spring_has_gap(s)) {
    if (s.offset != 0.0)
      throw ModelError(p + ".offset", "a rigid connection (stiffness .inf without freeplay) holds q_a = ratio q_b and "
                                      "takes no offset");
    if (spring_gap(s).first != 0.0)  // {lower: u, upper: u}: a shifted rigid connection
      throw ModelError(p + ".freeplay", "a rigid connection (stiffness .inf without freeplay) holds q_a = ratio q_b: "
                                        "its bounds must be 0 or span a gap (got lower = upper = " +
                                            show(spring_gap(s).first) + ")");
  }
}

// A stiffness table: 2 to kMaxTablePoints finite points, deflections
// increasing, torques not falling; instead of a stiffness and a gap; not at
// a massless body (springs there are combined or solved as gap springs).
void table_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  const PointTable& t = s.stiffness_table;
  const std::string f = p + ".stiffness_table";
  if (s.stiffness != 0.0) throw ModelError(p, "give 'stiffness' or 'stiffness_table', not both");
  if (s.freeplay != 0.0 || s.freeplay_bounds)
    throw ModelError(p + ".freeplay", "a stiffness table carries its own gaps (give a zero-torque segment)");
  if (t.x.size() != t.y.size()) throw ModelError(f, "deflections and torques differ in length");
  if (t.x.size() < 2) throw ModelError(f + ".points", "needs at least 2 points (got " + std::to_string(t.x.size()) + ")");
  if (t.x.size() > kMaxTablePoints)
    throw ModelError(f + ".points", "has " + std::to_string(t.x.size()) + " points, more than the limit of " +
                                        std::to_string(kMaxTablePoints));
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    const std::string pf = f + ".points[" + std::to_string(i) + "]";
    if (!std::isfinite(t.x[i]) || !std::isfinite(t.y[i]))
      throw ModelError(pf, "must be finite numbers (got " + show(t.x[i]) + ", " + show(t.y[i]) + ")");
    if (i == 0) continue;
    if (!(t.x[i] > t.x[i - 1]))
      throw ModelError(pf, "deflections must increase (got " + show(t.x[i]) + " after " + show(t.x[i - 1]) + ")");
    if (t.y[i] < t.y[i - 1])
      throw ModelError(pf, "the torque falls from " + show(t.y[i - 1]) + " to " + show(t.y[i]) +
                               " N m: a spring's torque must not fall as it is deflected (negative stiffness)");
  }
  for (const std::string& name : {s.body_a, s.body_b})
    if (const BodySpec* body = name.empty() ? nullptr : find_body(spec, name); body && body->inertia == 0.0)
      throw ModelError(f, "a spring at the massless body '" + body->name + "' must be a gap or linear spring");
}

}  // namespace

void kind_rules(const ModelSpec& spec, const SpringSpec& s, const std::string& p) {
  if (!s.coordinate.empty() && s.ratio != 1.0)
    throw ModelError(p + ".ratio", "applies to 'bodies: [a, b]'; a coordinate carries its own coefficients");
  if (!s.coordinate.empty() && std::isinf(s.stiffness) && !spring_has_gap(s))
    throw ModelError(p + ".stiffness", "a rigid connection (.inf without a gap) on a coordinate is a permanent link: "
                                       "write it as 'type: link' with this coordinate, or give a finite stiffness");
  if (!s.stiffness_table.empty()) table_rules(spec, s, p);
  offset_rules(s, p);
  const bool rigid_freeplay = std::isinf(s.stiffness) && spring_has_gap(s);
  if (s.restitution != 0.0 && !rigid_freeplay)
    throw ModelError(p + ".restitution",
                     "applies to rigid freeplay only (stiffness .inf with freeplay > 0): an elastic "
                     "spring's impacts follow from its stiffness and damping");
  if (s.restitution < 0.0 || s.restitution > 1.0)
    throw ModelError(p + ".restitution", "must be in [0, 1] (got " + show(s.restitution) + ")");
  if (rigid_freeplay) rigid_freeplay_rules(spec, s, p);
  if (std::isinf(s.stiffness) && !spring_has_gap(s)) rigid_connection_rules(spec, s, p);
  if (s.damping_law == "contact") contact_damping_rules(spec, s, p);
}

}  // namespace luztar::validation
