#include "core/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "core/errors.hpp"
#include "core/number_text.hpp"

namespace luztar {

namespace {

// c * q_body; an empty body is the fixed base (contributes nothing).
using Term = CoordinateTerm;  // c q_body

// The steps' numbers go to files (/model/reductions, the comments of `luztar
// reduce`): the shortest text that reads back to the same double, as the
// reduced model's own values.
std::string show(double v) { return shortest(v); }

// Calls f(signal, field) on every signal of a model description: the named
// ones and the elements' (friction limits, torques).
template <class Spec, class F>
void for_each_signal(Spec& spec, F&& f) {
  for (auto& [name, sig] : spec.signals) f(sig, "signals." + name);
  for (auto& e : spec.elements) {
    const std::string p = "elements." + element_name(e) + ".";
    for_each_element_signal(e, [&](auto& sig, const std::string& key) { f(sig, p + key); });
  }
}

Signal scaled(const Signal& s, double factor) {
  if (factor == 1.0) return s;
  if (s.kind == Signal::Kind::constant) return Signal::make_constant(factor * s.value);
  Signal p;
  p.kind = Signal::Kind::product;
  p.terms = {Signal::make_constant(factor), s};
  return p;
}

// A friction element's Coulomb part seen through a rigid ratio: on u = c w its
// torque on w is c tau(|c| |w|) sgn w, so a table's speeds scale by 1/|c| and
// its torques by |c| (coulomb: MT0, coulomb_table: the values, mu_table: the
// radius, which keeps mu a friction coefficient). `abs_c` = |c| > 0.
void scale_friction_law(FrictionSpec& f, double abs_c) {
  if (abs_c == 1.0) return;
  for (SpeedTable* t : {&f.coulomb_table, &f.mu_table})
    for (double& v : t->speed) v /= abs_c;
  if (!f.coulomb_table.empty()) {
    for (double& v : f.coulomb_table.value) v *= abs_c;
  } else if (!f.mu_table.empty()) {
    f.radius *= abs_c;
  } else {
    f.coulomb = scaled(f.coulomb, abs_c);
  }
}

// A one-way clutch's drag D seen on v' (v = c v'): |c| D.
void scale_friction_law(OneWayClutchSpec& f, double abs_c) { f.coulomb = scaled(f.coulomb, abs_c); }

class Reducer {
 public:
  explicit Reducer(const ModelSpec& spec) : spec_(spec), original_bodies_(spec.bodies) {}

  Reduction run() {
    while (merge_rigid() || eliminate_massless()) {
    }
    check_remaining_massless();
    // the removed bodies in the file's order
    std::vector<Reduction::Removed> removed;
    for (const BodySpec& b : original_bodies_)
      for (const Reduction::Removed& g : removed_)
        if (g.name == b.name) removed.push_back(g);
    return {spec_, steps_, scales_, removed};
  }

 private:
  int body_index(const std::string& name) const {
    for (std::size_t i = 0; i < spec_.bodies.size(); ++i)
      if (spec_.bodies[i].name == name) return static_cast<int>(i);
    return -1;
  }
  BodySpec& body(const std::string& name) { return spec_.bodies[body_index(name)]; }

  static std::vector<Term> spring_terms(const SpringSpec& s) {
    if (!s.coordinate.empty()) return s.coordinate;
    std::vector<Term> t = {{s.body_a, 1.0}};
    if (!s.body_b.empty()) t.push_back({s.body_b, -s.ratio});
    return t;
  }
  // The terms of a friction element's or a one-way clutch's relative velocity
  // q_a' - q_b' (a link's q_a' - ratio q_b').
  template <class S>
  static std::vector<Term> friction_terms(const S& f) {
    if (!f.coordinate.empty()) return f.coordinate;
    std::vector<Term> t = {{f.body_a, 1.0}};
    double ratio = 1.0;
    if constexpr (requires { f.ratio; }) ratio = f.ratio;
    if (!f.body_b.empty()) t.push_back({f.body_b, -ratio});
    return t;
  }
  // Replaces q_from by factor * q_to (to empty: the base) and merges equal bodies.
  static std::vector<Term> substitute(std::vector<Term> terms, const std::string& from, const std::string& to,
                                      double factor) {
    std::vector<Term> out;
    for (Term t : terms) {
      if (t.body == from) {
        t.body = to;
        t.c *= factor;
      }
      if (t.body.empty()) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](const Term& o) { return o.body == t.body; });
      if (it == out.end()) out.push_back(t);
      else it->c += t.c;
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const Term& t) { return t.c == 0.0; }), out.end());
    return out;
  }
  // The spring `law` acts on y = sum c_i q_i (its stiffness, gap, offset,
  // table and damping are y's); the same spring in the standard form
  // x = q_a - ratio q_b with y = c x (Theorem 3.2: luz(c x, a) = sgn(c) |c|
  // luz(x, a/|c|); a law T(y) is c T(c x) on x: stiffness and damping c^2,
  // angles 1/c, torques c, a gap's bounds and a table's points in reverse
  // order for c < 0). Its other fields (restitution, law, ...) are `law`'s.
  // x = c x' with x' the returned spring's relative angle; `lead` gets c
  // (its torque T = T' / c: the power T x' is the same).
  std::optional<SpringSpec> spring_from(const SpringSpec& law, const std::string& name, std::vector<Term> terms,
                                        double* lead = nullptr) const {
    terms = substitute(terms, "", "", 0.0);  // merge terms on the same body, drop zeros and the base
    if (terms.empty()) return std::nullopt;
    if (lead) *lead = 1.0;  // a coordinate keeps x as it is
    SpringSpec s = law;
    s.name = name;
    s.body_a.clear();
    s.body_b.clear();
    s.coordinate.clear();
    if (terms.size() >= 3) {  // a coordinate keeps its coefficients (and the law its numbers)
      s.ratio = 1.0;
      s.coordinate = terms;
      return s;
    }
    if (terms.size() == 2 && body_index(terms[1].body) < body_index(terms[0].body)) std::swap(terms[0], terms[1]);
    const double c = terms[0].c;
    if (lead) *lead = c;
    s.body_a = terms[0].body;
    s.body_b.clear();
    s.ratio = 1.0;
    s.stiffness = c * c * law.stiffness;
    s.freeplay = law.freeplay / std::abs(c);
    s.damping = c * c * law.damping;
    if (law.offset != 0.0) s.offset = law.offset / c;  // (0 stays +0: the writer leaves it out)
    if (law.preload != 0.0) s.preload = c * law.preload;
    if (law.freeplay_bounds) {
      s.freeplay_lower = (c > 0 ? law.freeplay_lower : law.freeplay_upper) / c;
      s.freeplay_upper = (c > 0 ? law.freeplay_upper : law.freeplay_lower) / c;
    }
    s.stiffness_table = {};
    const PointTable& t = law.stiffness_table;
    for (std::size_t i = 0; i < t.x.size(); ++i) {
      const std::size_t k = c > 0 ? i : t.x.size() - 1 - i;
      s.stiffness_table.x.push_back(t.x[k] / c);
      s.stiffness_table.y.push_back(c * t.y[k]);
    }
    if (terms.size() == 2) {
      s.body_b = terms[1].body;
      s.ratio = -terms[1].c / c;
    }
    return s;
  }

  // Whether merging `gone` into `kept` (of the other kind) leaves an element
  // across the kinds that a model file cannot hold: only a load (written as
  // the other kind's load), a link (no law) and a two-body spring (written as
  // a rack_pinion) can be.
  bool crosses_kinds(const std::string& gone, const std::string& kept) {
    const bool kept_rack = is_translational(body(kept));
    for (std::size_t i : elements_on(gone)) {
      const ElementSpec& e = spec_.elements[i];
      if (std::holds_alternative<TorqueSpec>(e) || std::holds_alternative<ForceSpec>(e) ||
          std::holds_alternative<LinkSpec>(e))
        continue;
      // (a spring on two bodies, or on a coordinate of two terms, which the
      // substitution turns into two bodies: spring_from)
      if (const auto* s = std::get_if<SpringSpec>(&e); s && s->coordinate.size() <= 2) continue;
      for (const std::string& b : element_bodies(e))
        if (b != gone && b != kept && is_translational(body(b)) != kept_rack) return true;
    }
    return false;
  }

  std::vector<std::size_t> elements_on(const std::string& b) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < spec_.elements.size(); ++i) {
      const std::vector<std::string> on = element_bodies(spec_.elements[i]);
      if (std::find(on.begin(), on.end(), b) != on.end()) out.push_back(i);
    }
    return out;
  }

  void erase_elements(std::vector<std::size_t> idx) {
    std::sort(idx.rbegin(), idx.rend());
    for (std::size_t i : idx) spec_.elements.erase(spec_.elements.begin() + static_cast<long>(i));
  }

  // --- 1. rigid connections -------------------------------------------------
  // Measurements of a merged body read it through the kept one:
  // q_gone = factor q_kept (0 when fixed to the base), and so its velocity.
  void remeasure(const std::string& gone, const std::string& kept, double factor) {
    auto rewrite = [&](auto&& self, Signal& sig) -> void {
      for (Signal& t : sig.terms) self(self, t);
      if (!is_measurement(sig.kind) || sig.reference != gone) return;
      if (kept.empty()) {
        sig = Signal::make_constant(0.0);
        return;
      }
      sig.reference = kept;
      sig = scaled(sig, factor);
    };
    for_each_signal(spec_, [&](Signal& sig, const std::string&) { rewrite(rewrite, sig); });
  }

  bool merge_rigid() {
    for (std::size_t i = 0; i < spec_.elements.size(); ++i) {
      const auto* s = std::get_if<SpringSpec>(&spec_.elements[i]);
      // with freeplay it is an impact pair (rigid freeplay), kept as it is
      if (!s || !std::isinf(s->stiffness) || spring_has_gap(*s)) continue;
      const SpringSpec rigid = *s;
      spec_.elements.erase(spec_.elements.begin() + static_cast<long>(i));
      // q_a = p q_b. Keep the heavier body; the other is expressed through it.
      // Between a rack and a pinion (kg against kg m^2: no heavier one) keep
      // the rack, unless an element on the pinion would then join bodies of
      // two kinds in a form the file cannot hold (a clutch between the
      // pinion's shaft and another shaft).
      std::string gone = rigid.body_a, kept = rigid.body_b;
      double factor = rigid.ratio;  // q_gone = factor * q_kept
      if (!rigid.body_b.empty()) {
        const bool a_rack = is_translational(body(rigid.body_a)), b_rack = is_translational(body(rigid.body_b));
        const bool keep_a = a_rack == b_rack ? body(rigid.body_b).inertia < body(rigid.body_a).inertia
                                             : (a_rack ? !crosses_kinds(rigid.body_b, rigid.body_a)
                                                       : crosses_kinds(rigid.body_a, rigid.body_b));
        if (keep_a) {
          std::swap(gone, kept);
          factor = 1.0 / rigid.ratio;
        }
      }
      merge(gone, kept, kept.empty() ? 0.0 : factor, rigid.name);
      return true;
    }
    return false;
  }

  void merge(const std::string& gone, const std::string& kept, double factor, const std::string& by) {
    const BodySpec g = body(gone);
    std::ostringstream step;
    if (kept.empty()) {
      if (g.angle != 0.0 || g.velocity != 0.0)
        throw ModelError("bodies." + gone, "is fixed to the base by rigid spring '" + by +
                                               "', so its initial angle and velocity must be 0");
      step << "rigid spring '" << by << "': " << gone << " is fixed to the base; its springs now end at the base";
    } else {
      BodySpec& k = body(kept);
      const double total = k.inertia + factor * factor * g.inertia;
      if (total > 0.0) k.velocity = (k.inertia * k.velocity + factor * g.inertia * g.velocity) / total;
      step << "rigid spring '" << by << "' (stiffness .inf, Simplification 3): " << gone << " = " << show(factor)
           << " " << kept << "; " << gone << " merged into " << kept << " with reflected inertia "
           << (factor < 0.0 ? "(" + show(factor) + ")" : show(factor)) << "^2 * " << show(g.inertia) << " ("
           << kept << " inertia " << show(k.inertia) << " -> " << show(total) << ")";
      k.inertia = total;
    }
    std::vector<std::size_t> drop;
    std::vector<std::string> redundant;  // steps after this one
    for (std::size_t i : elements_on(gone)) {
      ElementSpec& e = spec_.elements[i];
      if (auto* s = std::get_if<SpringSpec>(&e); s && closes_rigid_loop(*s, gone, kept, factor)) {
        drop.push_back(i);
        redundant.push_back("rigid spring '" + s->name +
                            "' closes a loop of rigid connections whose ratios agree: redundant, dropped");
      } else if (s) {
        double lead = 1.0;
        const auto ns = spring_from(*s, s->name, substitute(spring_terms(*s), gone, kept, factor), &lead);
        if (ns) {
          *s = *ns;
          rescale(s->name, lead);
        } else {
          drop.push_back(i);
        }
      } else if (auto* f = std::get_if<FrictionSpec>(&e)) {
        const double c = carry_friction(*f, gone, kept, factor);
        if (c == 0.0) drop.push_back(i);
        else rescale(f->name, c);
      } else if (auto* l = std::get_if<LinkSpec>(&e)) {
        // sum c q' = 0 with q_gone = factor q_kept: the same constraint on the
        // bodies left, kept as a coordinate (its torque on x is unchanged);
        // nothing left (the merge holds it already): dropped
        const std::vector<Term> t = substitute(friction_terms(*l), gone, kept, factor);
        if (t.empty()) {
          drop.push_back(i);
          redundant.push_back("link '" + l->name + "' is held by the rigid connections merged so far: redundant, dropped");
        } else {
          l->body_a.clear();
          l->body_b.clear();
          l->ratio = 1.0;
          l->coordinate = t;
        }
      } else if (const auto* g = std::get_if<LossyGearSpec>(&e)) {
        // (validate refuses a rigid connection on a lossy gear's shafts: not reached)
        throw ModelError("elements." + g->name + ".bodies", "a rigid connection merges the shaft '" + gone +
                                                                "' of a lossy gear: not supported");
      } else if (auto* c = std::get_if<OneWayClutchSpec>(&e)) {
        const double v = carry_friction(*c, gone, kept, factor);
        if (v == 0.0) drop.push_back(i);  // a rigid connection already holds it (v identically 0)
        else rescale(c->name, v);
        if (v < 0.0) c->overrun = c->overrun == "negative" ? "positive" : "negative";
      } else {  // a load (torque or force): its signal field is its only one
        for_each_element_signal(e, [&](Signal& load, const std::string&) {
          if (kept.empty()) {
            drop.push_back(i);  // taken by the base
            return;
          }
          std::visit([&](auto& l) {
            if constexpr (requires { l.body; }) l.body = kept;
          }, e);
          load = scaled(load, factor);
          rescale(element_name(e), factor);
        });
      }
    }
    erase_elements(drop);
    remeasure(gone, kept, factor);
    // bodies merged into `gone` before now move through `kept`
    for (Reduction::Removed& g : removed_)
      if (!g.balanced && g.kept == gone) {
        g.kept = kept;
        g.factor = kept.empty() ? 0.0 : g.factor * factor;
      }
    Reduction::Removed r;
    r.name = gone;
    r.kept = kept;
    r.factor = kept.empty() ? 0.0 : factor;
    removed_.push_back(r);
    spec_.bodies.erase(spec_.bodies.begin() + body_index(gone));
    steps_.push_back(step.str());
    steps_.insert(steps_.end(), redundant.begin(), redundant.end());
  }

  // A friction element or a one-way clutch (its law mu tar(v, MT0/mu) on
  // v = q_a' - q_b') after q_gone = factor q_kept: v = c v' with v' the
  // relative velocity of the bodies left (Theorem 3.2: mu c^2 and MT0 |c| seen
  // on v'). Returns v / v' (its sign is a one-way clutch's overrun direction:
  // between two bodies they are swapped when c < 0, so only a clutch left on
  // one body flips; the torque on v is the one on v' divided by it), or 0
  // when nothing is left (v identically 0: it never slips, never works, and is
  // dropped). A relation left on three bodies or more, or on two at unequal
  // speeds (q_a' - 2 q_c'), is kept as a coordinate with its coefficients and
  // its law as given (issue 19, design 3.1 c): v' = v.
  template <class S>
  static double carry_friction(S& f, const std::string& gone, const std::string& kept, double factor) {
    const std::vector<Term> t = substitute(friction_terms(f), gone, kept, factor);
    if (t.empty()) return 0.0;
    if (t.size() >= 3 || (t.size() == 2 && t[0].c != -t[1].c)) {  // a coordinate, kept with its coefficients
      f.body_a.clear();
      f.body_b.clear();
      f.coordinate = t;
      return 1.0;
    }
    f.coordinate.clear();
    const double c = t[0].c;
    f.body_a = c > 0 ? t[0].body : (t.size() == 2 ? t[1].body : t[0].body);
    f.body_b = t.size() == 2 ? (c > 0 ? t[1].body : t[0].body) : "";
    f.viscous *= c * c;
    scale_friction_law(f, std::abs(c));
    return t.size() == 2 ? std::abs(c) : c;
  }

  // A rigid spring between `gone` and `kept`, which other rigid connections
  // already hold at q_gone = factor q_kept, closes a loop. Its own ratio must
  // agree (to kLoopTolerance relative: the roundoff of ratios like 1/0.07);
  // then it is redundant and dropped. Otherwise the loop could only stand
  // still, which is a ModelError (substituted, its roundoff residue would
  // silently fix the bodies to the base).
  bool closes_rigid_loop(const SpringSpec& s, const std::string& gone, const std::string& kept, double factor) {
    if (!std::isinf(s.stiffness) || spring_has_gap(s) || kept.empty()) return false;
    const bool forward = s.body_a == gone && s.body_b == kept;
    if (!forward && !(s.body_a == kept && s.body_b == gone)) return false;
    const double held = forward ? factor : 1.0 / factor;  // q_a = held q_b through the others
    if (std::abs(s.ratio - held) > kLoopTolerance * std::abs(s.ratio))
      throw ModelError("elements." + s.name + ".ratio",
                       "closes a loop of rigid connections whose ratios do not agree: on the bodies merged so far it "
                           "holds " + s.body_a + " = " +
                           show(s.ratio) + " " + s.body_b + ", the others " + s.body_a + " = " + show(held) + " " +
                           s.body_b + " (such a loop could only stand still)");
    return true;
  }
  static constexpr double kLoopTolerance = 1e-9;

  // --- 2. massless frictionless bodies in series ------------------------------
  bool eliminate_massless() {
    for (const BodySpec& b : spec_.bodies) {
      if (b.inertia != 0.0) continue;
      const std::vector<std::size_t> on = elements_on(b.name);
      std::vector<std::size_t> springs;
      bool other = false;
      for (std::size_t i : on) {
        if (std::holds_alternative<SpringSpec>(spec_.elements[i])) springs.push_back(i);
        else other = true;
      }
      if (other) continue;  // friction or torque: handled (or refused) below
      const std::string field = "bodies." + b.name;
      for (std::size_t i : springs)
        if (std::get<SpringSpec>(spec_.elements[i]).damping != 0.0)
          throw ModelError("elements." + element_name(spec_.elements[i]) + ".damping",
                           "a spring on the massless body '" + b.name +
                               "' must be undamped (a damper in series makes the node a first-order system)");
      if (springs.size() > 2) continue;  // no theorem reduces it: solved as a PL system at run time
      const std::string name = b.name;
      if (springs.size() < 2) {
        std::ostringstream step;
        step << "massless frictionless body " << name << " on " << springs.size()
             << " spring(s) carries no torque: removed";
        record_eliminated(name, springs);
        erase_elements(springs);
        spec_.bodies.erase(spec_.bodies.begin() + body_index(name));
        steps_.push_back(step.str());
        return true;
      }
      series(name, springs[0], springs[1]);
      return true;
    }
    return false;
  }

  // Normal form of a spring seen from body n: x = q_n - u q_o with y = c x,
  // k~ = c^2 k and its gap [lower, upper] in x (the offset included: y's gap
  // [y0 + l, y0 + u] divided by c, reversed for c < 0).
  struct Seen {
    std::string other;
    double u, k, lower, upper;
  };
  static Seen seen_from(const SpringSpec& s, const std::string& n) {
    double cn = 0.0, co = 0.0;
    std::string other;
    for (const Term& t : spring_terms(s)) {
      if (t.body == n) cn = t.c;
      else {
        other = t.body;
        co = t.c;
      }
    }
    const auto [l, u] = spring_gap(s);
    const double x0 = spring_offset(s), lo = (x0 + l) / cn, hi = (x0 + u) / cn;
    return {other, -co / cn, cn * cn * s.stiffness, std::min(lo, hi), std::max(lo, hi)};
  }

  // The gap [lower, upper] of a spring description: `freeplay: a` when it is
  // [-a, a], else the bounds.
  static void set_gap(SpringSpec& s, double lower, double upper) {
    lower += 0.0;  // -0 (a sum or quotient of zeros) is written as 0
    upper += 0.0;
    if (lower == -upper) {
      s.freeplay = upper;
      return;
    }
    s.freeplay_bounds = true;
    s.freeplay_lower = lower;
    s.freeplay_upper = upper;
  }
  static std::string gap_text(const SpringSpec& s) {
    if (!s.freeplay_bounds) return "freeplay " + show(s.freeplay);
    return "gap [" + show(s.freeplay_lower) + ", " + show(s.freeplay_upper) + "]";
  }

  void series(const std::string& node, std::size_t i1, std::size_t i2) {
    const SpringSpec s1 = std::get<SpringSpec>(spec_.elements[i1]);
    const SpringSpec s2 = std::get<SpringSpec>(spec_.elements[i2]);
    const Seen a = seen_from(s1, node), b = seen_from(s2, node);
    std::ostringstream step;
    const std::string name = s1.name + "+" + s2.name;
    // Balance at the node: T~1(X1) + T~2(X2) = 0 with X1 - X2 = u2 q_o2 - u1 q_o1 = y.
    // Theorem 3.6: the common torque is (1/k~1 + 1/k~2)^-1 luz on y, its
    // gap [L1 - U2, U1 - L2] (the compliances add; the bounds of a symmetric
    // gap: a~1 + a~2).
    std::optional<SpringSpec> merged;
    if (a.k > 0.0 && b.k > 0.0) {
      SpringSpec law;
      law.stiffness = 1.0 / (1.0 / a.k + 1.0 / b.k);
      set_gap(law, a.lower - b.upper, a.upper - b.lower);
      std::vector<Term> terms;  // the base contributes no term
      if (!b.other.empty()) terms.push_back({b.other, b.u});
      if (!a.other.empty()) terms.push_back({a.other, -a.u});
      merged = spring_from(law, name, terms);
    }
    if (merged) {
      step << "massless frictionless body " << node << " between springs '" << s1.name << "' and '" << s2.name
           << "' (Theorem 3.6, series case of Theorem 4.3, Simplification 2): replaced by spring '" << name
           << "' on " << merged->body_a;
      if (!merged->body_b.empty()) step << " - " << show(merged->ratio) << " " << merged->body_b;
      step << " with stiffness (1/" << show(a.k) << " + 1/" << show(b.k) << ")^-1 scaled to " << show(merged->stiffness)
           << " and " << gap_text(*merged);
    } else {
      step << "massless frictionless body " << node << " between springs '" << s1.name << "' and '" << s2.name
           << "': a spring of stiffness 0 leaves the chain without torque; both removed";
    }
    const std::size_t first = std::min(i1, i2);
    record_eliminated(node, {i1, i2});
    erase_elements({i1, i2});
    if (merged) spec_.elements.insert(spec_.elements.begin() + static_cast<long>(first), *merged);
    spec_.bodies.erase(spec_.bodies.begin() + body_index(node));
    steps_.push_back(step.str());
  }

  // --- 3. what stays massless must be a first-order (viscous) body -----------
  void check_remaining_massless() {
    for (const BodySpec& b : spec_.bodies) {
      if (b.inertia != 0.0) continue;
      const std::string field = "bodies." + b.name;
      double mu = 0.0, dry = 0.0;
      bool has_torque = false;
      for (std::size_t i : elements_on(b.name)) {
        const ElementSpec& e = spec_.elements[i];
        if (const auto* c = std::get_if<OneWayClutchSpec>(&e)) {
          throw ModelError("elements." + c->name, "a one-way clutch on the massless body '" + b.name +
                                                      "' is not supported; give the body an inertia");
        } else if (const auto* l = std::get_if<LinkSpec>(&e)) {
          throw ModelError("elements." + l->name, "a link on the massless body '" + b.name +
                                                      "' is not supported; give the body an inertia");
        } else if (const auto* f = std::get_if<FrictionSpec>(&e)) {
          if (!f->coulomb_table.empty() || !f->mu_table.empty())
            throw ModelError("elements." + f->name, "a friction table on the massless body '" + b.name +
                                                        "' is not supported (its first-order law needs Coulomb + "
                                                        "viscous); give the body an inertia");
          if (!f->body_b.empty())
            throw ModelError("elements." + f->name, "a clutch on the massless body '" + b.name +
                                                        "' is not supported; give the body an inertia");
          if (f->static_ratio != 1.0)
            throw ModelError("elements." + f->name + ".static_ratio",
                             "must be 1 on a bearing of the massless body '" + b.name +
                                 "': it has no stick events (mu q' = luz(M, MT0) holds it while |M| <= MT0)");
          mu += f->viscous;
          dry += 1.0;
        } else if (const auto* s = std::get_if<SpringSpec>(&e)) {
          if (s->damping != 0.0)
            throw ModelError("elements." + s->name + ".damping",
                             "a spring on the massless body '" + b.name + "' must be undamped");
        } else {
          has_torque = true;
        }
      }
      if (dry > 0.0 && mu == 0.0)
        throw ModelError(field, "is massless with Coulomb friction but no viscous part (mu = 0): the inclusion "
                                "0 in M - MT0 sgh(q') leaves its velocity undetermined; give a bearing a viscous "
                                "coefficient > 0 or the body an inertia");
      if (dry == 0.0 && has_torque)
        throw ModelError(field, "is massless and frictionless with a torque on it: the torque would have to be "
                                "balanced by springs alone, which is not reduced; give the body an inertia");
      std::ostringstream step;
      if (dry == 0.0) {
        require_anchored(b.name);
        step << "massless frictionless body " << b.name << " joins " << elements_on(b.name).size()
             << " springs, which no theorem reduces: its angle solves the piecewise-linear torque balance "
                "(minimum elastic energy, an LCP) at every evaluation";
        steps_.push_back(step.str());
        continue;
      }
      step << "massless body " << b.name << " on viscous bearing(s), mu = " << show(mu)
           << ": first-order equation mu " << b.name << "' = luz(M, MT0) (Theorem 5.3, Simplification 1)";
      steps_.push_back(step.str());
    }
  }

  // A group of massless frictionless bodies must be held by a spring to something
  // else (an inertial or viscous body, or the base), or its position is free.
  void require_anchored(const std::string& start) const {
    std::vector<std::string> group = {start}, todo = {start};
    auto frictionless_massless = [&](const std::string& n) {
      const int i = body_index(n);
      if (i < 0 || spec_.bodies[i].inertia != 0.0) return false;
      for (std::size_t e : elements_on(n))
        if (!std::holds_alternative<SpringSpec>(spec_.elements[e])) return false;
      return true;
    };
    while (!todo.empty()) {
      const std::string n = todo.back();
      todo.pop_back();
      for (std::size_t e : elements_on(n)) {
        const SpringSpec& s = std::get<SpringSpec>(spec_.elements[e]);
        if (s.stiffness == 0.0) continue;
        for (const std::string& other : {s.body_a, s.body_b}) {
          if (other == n) continue;
          if (other.empty() || !frictionless_massless(other)) return;  // anchored
          if (std::find(group.begin(), group.end(), other) == group.end()) {
            group.push_back(other);
            todo.push_back(other);
          }
        }
      }
    }
    throw ModelError("bodies." + start, "is massless and frictionless and its springs reach no body with inertia "
                                        "or friction, nor the base: its position is undetermined");
  }

  // An element carried through a merge acts on x = d x' (x' its coordinate
  // in the reduced model): its torque as written is the reduced one over d.
  void rescale(const std::string& element, double d) { scales_.try_emplace(element, 1.0).first->second /= d; }

  ModelSpec spec_;
  std::vector<std::string> steps_;
  std::map<std::string, double> scales_;
  std::vector<BodySpec> original_bodies_;   // the file's bodies (their order)
  std::vector<Reduction::Removed> removed_;  // removed so far

  // Records the eliminated massless body `node` with its springs (indices in
  // spec_.elements) as seen from it, before they are replaced.
  void record_eliminated(const std::string& node, const std::vector<std::size_t>& springs) {
    Reduction::Removed r;
    r.name = node;
    r.balanced = true;
    for (std::size_t i : springs) {
      const Seen s = seen_from(std::get<SpringSpec>(spec_.elements[i]), node);
      r.springs.push_back({s.other, s.u, s.k, s.lower, s.upper});
    }
    removed_.push_back(r);
  }
};

}  // namespace

namespace {

// A measurement of a body that a reduction eliminated (a massless body in
// series, whose angle no single body gives) is an error of the model, said in
// its terms (rather than "no body" from the reduced one). Rigidly merged
// bodies are measured through the kept body (Reducer::remeasure).
void require_measured_bodies_kept(const Reduction& reduction) {
  auto kept = [&](const std::string& name) {
    for (const BodySpec& b : reduction.spec.bodies)
      if (b.name == name) return true;
    return false;
  };
  std::string steps;
  for (const std::string& step : reduction.steps) steps += (steps.empty() ? "" : "; ") + step;
  auto check = [&](auto&& self, const Signal& s, const std::string& field) -> void {
    if (is_measurement(s.kind) && !kept(s.reference))
      throw ModelError(field + "." + kind_name(s.kind), "body '" + s.reference +
                                                            "' is eliminated by the model reduction (" + steps +
                                                            "): measure a body that stays");
    for (std::size_t i = 0; i < s.terms.size(); ++i) self(self, s.terms[i], term_field(field, s, i));
  };
  for_each_signal(reduction.spec, [&](const Signal& s, const std::string& field) { check(check, s, field); });
}

}  // namespace

Reduction reduce(const ModelSpec& spec) {
  // A rack and pinion is its spring here (x = s - r q: bodies [rack, pinion],
  // ratio r): rigid, its bodies merge like a rigid gear mesh's (the rack
  // reported as r q or the pinion as s / r); compliant, it stays that spring.
  // A planetary set is its permanent link here (ideal) or its mesh spring
  // (compliant or with lash), on x = q_sun + ratio q_ring - (1 + ratio) q_carrier.
  ModelSpec springs = spec;
  for (ElementSpec& e : springs.elements) {
    if (const auto* g = std::get_if<RackPinionSpec>(&e)) e = spring_of(*g);
    else if (const auto* p = std::get_if<PlanetarySpec>(&e)) e = planetary_is_ideal(*p) ? ElementSpec(link_of(*p)) : ElementSpec(spring_of(*p));
  }
  Reduction r = Reducer(springs).run();
  require_measured_bodies_kept(r);
  return r;
}

}  // namespace luztar
