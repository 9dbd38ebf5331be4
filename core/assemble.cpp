// ModelSpec -> Model: validate, resolve names to indices, inline signal references.
#include <Eigen/Dense>
#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/model.hpp"
#include "core/reduce.hpp"

namespace luztar {

namespace {

// Inlines signal references and numbers what the solvers index: each sampled
// block gets the slot of its held output (a named block once, whatever the
// number of its uses), each measurement its body.
class SignalResolver {
 public:
  SignalResolver(Model& m, const std::map<std::string, Signal>& named) : m_(m), named_(named) {}

  // `name`: the signal's name when it is a named signal (a named block answers
  // to it, Simulator::output), else empty (an inline block answers to its field).
  Signal resolve(const Signal& s, const std::string& field, const std::string& name = {}) {
    if (s.kind == Signal::Kind::reference) {
      auto it = done_.find(s.reference);
      if (it == done_.end())
        it = done_.emplace(s.reference, resolve(named_.at(s.reference), "signals." + s.reference, s.reference)).first;
      return it->second;
    }
    Signal out = s;
    for (std::size_t i = 0; i < out.terms.size(); ++i) out.terms[i] = resolve(out.terms[i], term_field(field, s, i));
    if (is_sampled_block(s.kind)) {
      out.input = static_cast<int>(m_.inputs.size() + m_.sampled.size());
      m_.sampled.push_back(out);
      m_.sampled_names.push_back(name.empty() ? field : name);
    } else if (is_measurement(s.kind)) {
      out.input = m_.body_index(s.reference);  // kept: reduce() checks it
      assert(out.input >= 0);
    }
    return out;
  }

 private:
  Model& m_;
  const std::map<std::string, Signal>& named_;
  std::map<std::string, Signal> done_;
};

}  // namespace

std::vector<double> Model::initial_input_values() const {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(num_input_values()));
  for (const Signal& in : inputs) v.push_back(in.value);
  for (const Signal& b : sampled) v.push_back(initial_output(b));
  return v;
}

int Model::body_index(const std::string& name) const {
  const auto it = std::find(body_names.begin(), body_names.end(), name);
  return it == body_names.end() ? -1 : static_cast<int>(it - body_names.begin());
}

int Model::input_id(const std::string& name) const {
  const auto it = std::find(input_names.begin(), input_names.end(), name);
  return it == input_names.end() ? -1 : static_cast<int>(it - input_names.begin());
}

int Model::element_id(const std::string& name) const {
  const auto it = std::find(element_names.begin(), element_names.end(), name);
  return it == element_names.end() ? -1 : static_cast<int>(it - element_names.begin());
}

namespace {

// Runs `f`, giving a ModelError it raises without a location the location of
// its field in `spec` (where(): the field's own, else its closest written
// parent's). The one place that locates the rule errors of assemble().
template <class F>
auto located(const ModelSpec& spec, F&& f) {
  try {
    return f();
  } catch (const ModelError& e) {
    if (!e.where().empty()) throw;
    throw ModelError(e.field(), e.detail(), where(spec, e.field()));
  }
}

Model build(const Reduction& reduction, const ModelSpec& full);

// The table tau(|v|) of a speed table: its knots, values and the slopes of its segments.
FrictionTable friction_table(const SpeedTable& t) {
  FrictionTable out;
  out.speed = t.speed;
  out.value = t.value;
  out.slope.assign(std::max<std::size_t>(t.speed.size(), 2) - 1, 0.0);
  for (std::size_t k = 0; k + 1 < t.speed.size(); ++k)
    out.slope[k] = (t.value[k + 1] - t.value[k]) / (t.speed[k + 1] - t.speed[k]);
  return out;
}

// A friction element's law (core/model.hpp, Friction) without its bodies: its
// scale S(t) appended to `signals` (resolved by `resolve`, which inlines
// references and numbers blocks) and its table. coulomb: S = MT0(t), tau = 1;
// coulomb_table: S = 1; mu_table: S = radius F_n(t), tau = mu.
template <class Resolve>
Friction friction_law(const FrictionSpec& f, std::vector<Signal>& signals, Resolve&& resolve) {
  Friction out;
  out.viscous = f.viscous;
  out.static_ratio = f.static_ratio;
  Signal scale;
  if (!f.coulomb_table.empty()) {
    out.table = friction_table(f.coulomb_table);
    scale = Signal::make_constant(1.0);
  } else if (!f.mu_table.empty()) {
    out.table = friction_table(f.mu_table);
    out.scale_field = "normal_force";
    const Signal fn = resolve(f.normal_force, "normal_force");
    if (is_constant(fn)) {
      scale = Signal::make_constant(f.radius * evaluate(fn, 0.0));
    } else if (f.radius == 1.0) {
      scale = fn;  // the same law as `coulomb: mu F_n(t)` read by the same signal
    } else {
      scale.kind = Signal::Kind::product;
      scale.terms = {Signal::make_constant(f.radius), fn};
    }
  } else {
    scale = resolve(f.coulomb, "coulomb");
  }
  out.coulomb = static_cast<int>(signals.size());
  signals.push_back(scale);
  out.speed_dependent = std::any_of(out.table.slope.begin(), out.table.slope.end(), [](double b) { return b != 0.0; });
  if (is_constant(scale)) out.constant_scale = evaluate(scale, 0.0);
  return out;
}

Reduction unlocated_validate_and_reduce(const ModelSpec& full) {
  validate(full);
  Reduction reduction = reduce(full);
  if (reduction.spec.bodies.empty())  // validate() would say "no bodies" of a model that has some
    throw ModelError("bodies", "the reduction leaves no body: every body is fixed to the base by a rigid "
                               "connection (stiffness .inf) or eliminated as massless, so nothing can move");
  validate(reduction.spec, false);  // the kinds were checked as written
  const SimulationSettings& sim = reduction.spec.simulation;
  if (sim.integrator == "exact" && sim.solver == "event_driven")
    if (const std::string why = exact_integrator_refusal(build(reduction, full)); !why.empty())
      throw ModelError("simulation.integrator", "exact cannot serve this model: " + why + " (use auto or cvode_bdf)");
  return reduction;
}

// The signal slots (each load's torque, then each friction element's MT0,
// then each one-way clutch's drag) and the links (each friction element, then
// each rigid freeplay, then each one-way clutch, then each permanent link,
// then each lossy gear's mesh and loss) of the elements.
void number_slots_and_links(Model& m) {
  for (std::size_t l = 0; l < m.loads.size(); ++l) {
    m.loads[l].slot = static_cast<int>(m.slots.size());
    m.slots.push_back({m.loads[l].signal, m.load_element[l], "torque"});
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    m.frictions[i].slot = static_cast<int>(m.slots.size());
    m.slots.push_back({m.frictions[i].coulomb, m.friction_element[i], m.frictions[i].scale_field});
  }
  for (std::size_t i = 0; i < m.frictions.size(); ++i)
    m.links.push_back({LinkKind::friction, static_cast<int>(i), m.frictions[i].row});
  m.spring_link.assign(m.springs.size(), -1);
  for (std::size_t s = 0; s < m.springs.size(); ++s) {
    if (!m.springs[s].rigid()) continue;
    m.spring_link[s] = static_cast<int>(m.links.size());
    m.links.push_back({LinkKind::contact, static_cast<int>(s), m.springs[s].row});
  }
  for (std::size_t i = 0; i < m.one_way_clutches.size(); ++i) {
    Friction& law = m.one_way_clutches[i].law;
    law.slot = static_cast<int>(m.slots.size());
    m.slots.push_back({law.coulomb, m.one_way_element[i], "coulomb"});
  }
  for (std::size_t i = 0; i < m.one_way_clutches.size(); ++i) {
    OneWayClutch& c = m.one_way_clutches[i];
    c.link = static_cast<int>(m.links.size());
    m.links.push_back({LinkKind::one_way, static_cast<int>(i), c.law.row});
  }
  for (std::size_t i = 0; i < m.permanent_links.size(); ++i) {
    PermanentLink& l = m.permanent_links[i];
    l.link = static_cast<int>(m.links.size());
    m.links.push_back({LinkKind::permanent, static_cast<int>(i), l.row});
  }
  for (std::size_t i = 0; i < m.lossy_gears.size(); ++i) {
    LossyGear& g = m.lossy_gears[i];
    g.mesh_link = static_cast<int>(m.links.size());
    m.links.push_back({LinkKind::gear_mesh, static_cast<int>(i), g.mesh});
    g.loss_link = static_cast<int>(m.links.size());
    m.links.push_back({LinkKind::gear_loss, static_cast<int>(i), g.loss});
  }
  for (LossyGear& g : m.lossy_gears) {  // the friction links and bodies within its reach
    std::vector<int> bodies{g.body_a, g.body_b};
    for (std::size_t k = 0; k < bodies.size(); ++k)
      for (int l = 0; l < m.num_links(); ++l) {
        const ModelLink& link = m.links[l];
        if (link.kind != LinkKind::friction || !can_have_dry_friction(m, m.frictions[link.element])) continue;
        const int* first = link.row.body.data();
        if (std::find(first, first + link.row.n, bodies[k]) == first + link.row.n) continue;
        if (std::find(g.reach_links.begin(), g.reach_links.end(), l) == g.reach_links.end()) g.reach_links.push_back(l);
        for (int t = 0; t < link.row.n; ++t)
          if (link.row.body[t] != kGround && std::find(bodies.begin(), bodies.end(), link.row.body[t]) == bodies.end())
            bodies.push_back(link.row.body[t]);
      }
    g.reach_bodies.assign(bodies.begin() + 2, bodies.end());
    std::sort(g.reach_links.begin(), g.reach_links.end());
  }
}

// The drives of the prescribed bodies (Model::drives): their signals and the
// derivatives they need (validate() proved that these exist), slots after the
// elements', and the initial angle and velocity they give.
template <class AddSignal>
void number_drives(Model& m, const ModelSpec& spec, AddSignal&& add_signal) {
  using D = BodySpec::Drive;
  const double t0 = m.simulation.t_start;
  m.drives.assign(m.inertia.size(), Drive{});
  for (const BodySpec& b : spec.bodies) {
    if (b.prescribed == D::none) continue;
    const int j = m.body_index(b.name);
    Drive& d = m.drives[j];
    d.kind = b.prescribed;
    const char* key = drive_key(b.prescribed, is_translational(b));
    int sig = add_signal(b.motion, "bodies." + b.name + ".prescribed." + key);
    auto slot = [&](int signal, const char* field) {
      m.slots.push_back({signal, -1, field, j});
      return static_cast<int>(m.slots.size()) - 1;
    };
    auto derived = [&](int of) {
      m.signals.push_back(derivative(m.signals[of], t0));
      return static_cast<int>(m.signals.size()) - 1;
    };
    if (d.kind == D::angle) {
      d.angle_slot = slot(sig, key);
      m.angle0[j] = evaluate(m.signals[sig], t0);
      sig = derived(sig);
    }
    if (d.kind != D::acceleration) {
      d.velocity_slot = slot(sig, "velocity");
      m.velocity0[j] = evaluate(m.signals[sig], t0);
      sig = derived(sig);
    }
    d.acceleration_slot = slot(sig, "acceleration");
    m.driven_bodies.push_back(j);
  }
  std::sort(m.driven_bodies.begin(), m.driven_bodies.end());
  for (std::size_t i = 0; i < m.frictions.size() && !m.driven_bodies.empty(); ++i) {
    const CoordinateRow& r = m.frictions[i].row;
    bool all = true;
    for (int k = 0; k < r.n; ++k) all = all && m.prescribed(r.body[k]);
    if (all) m.driven_frictions.push_back(static_cast<int>(i));
  }
}

Model build(const Reduction& reduction, const ModelSpec& full) {
  const ModelSpec& spec = reduction.spec;
  Model m;
  // The kinds of the bodies and elements as written (merged bodies included).
  std::set<std::string> translational;
  for (const BodySpec& b : full.bodies)
    if (is_translational(b)) translational.insert(b.name);
  std::map<std::string, ElementSpec> written;
  for (const ElementSpec& e : full.elements) written.emplace(element_name(e), e);
  m.reductions = reduction.steps;
  m.name = spec.name;
  m.description = spec.description;
  m.source_text = spec.source_text;
  m.source_path = spec.source_path;
  m.simulation = spec.simulation;
  for (const BodySpec& b : spec.bodies) {
    m.body_names.push_back(b.name);
    m.inertia.push_back(b.inertia);
    m.angle0.push_back(b.angle);
    m.velocity0.push_back(b.velocity);
  }
  m.reported_body_names = m.body_names;
  for (const Reduction::Removed& g : reduction.removed) m.reported_body_names.push_back(g.name);
  auto reported = [&](const std::string& name) {  // a reported body's index, or kGround for ""
    if (name.empty()) return kGround;
    return static_cast<int>(std::find(m.reported_body_names.begin(), m.reported_body_names.end(), name) -
                            m.reported_body_names.begin());
  };
  for (const Reduction::Removed& g : reduction.removed) {
    Model::RemovedBody r;
    r.kept = reported(g.kept);
    r.factor = g.factor;
    r.balanced = g.balanced;
    assert(g.springs.size() <= Model::RemovedBody::kMaxSprings);  // (reduce: in series, or on one spring)
    for (const Reduction::Removed::Spring& s : g.springs)
      r.springs.push_back({reported(s.other), s.u, s.k, s.lower, s.upper});
    m.removed_bodies.push_back(r);
  }
  for (const std::string& name : m.reported_body_names) m.translational.push_back(translational.count(name) > 0);
  auto body = [&](const std::string& name) { return name.empty() ? kGround : m.body_index(name); };
  // An element's row: its coordinate's terms in the order of the file, or
  // x = q_a - ratio q_b (core/coordinate.hpp).
  auto row_of = [&](const std::string& a, const std::string& b, double ratio, const std::vector<CoordinateTerm>& terms) {
    if (terms.empty()) return two_body_row(body(a), body(b), ratio);
    CoordinateRow r;
    r.n = static_cast<int>(terms.size());  // (validate: 1 .. kMaxCoordinateTerms, distinct bodies)
    for (int k = 0; k < r.n; ++k) {
      r.body[k] = body(terms[k].body);
      r.c[k] = terms[k].c;
    }
    return r;
  };
  // Inputs get their index before references are inlined, so that every copy
  // of a named input reads the same value.
  std::map<std::string, Signal> named = spec.signals;
  for (auto& [name, sig] : named)
    if (sig.kind == Signal::Kind::input) {
      sig.input = static_cast<int>(m.input_names.size());
      m.input_names.push_back(name);
      m.inputs.push_back(sig);
    }
  SignalResolver resolver(m, named);
  auto add_signal = [&](const Signal& s, const std::string& field) {
    m.signals.push_back(resolver.resolve(s, field));
    return static_cast<int>(m.signals.size()) - 1;
  };
  for (const ElementSpec& e : spec.elements) {
    const int id = static_cast<int>(m.element_names.size());
    m.element_names.push_back(element_name(e));
    // on translational bodies (one kind: validate()), as written before the reduction
    const auto as_written = written.find(element_name(e));
    const std::vector<std::string> on = element_bodies(as_written == written.end() ? e : as_written->second);
    m.element_translational.push_back(!on.empty() && translational.count(on.front()) > 0);
    m.element_type.push_back(std::visit([](const auto& s) { return std::string(s.kType); },
                                        as_written == written.end() ? e : as_written->second));
    const auto scale = reduction.output_scale.find(element_name(e));
    m.element_output_scale.push_back(scale == reduction.output_scale.end() ? 1.0 : scale->second);
    if (const auto* s = std::get_if<SpringSpec>(&e)) {
      m.element_kind.push_back(ElementKind::spring);
      m.element_index.push_back(static_cast<int>(m.springs.size()));
      m.spring_element.push_back(id);
      m.springs.push_back(spring_law(*s, row_of(s->body_a, s->body_b, s->ratio, s->coordinate)));
    } else if (const auto* f = std::get_if<FrictionSpec>(&e)) {
      m.element_kind.push_back(ElementKind::friction);
      m.element_index.push_back(static_cast<int>(m.frictions.size()));
      m.friction_element.push_back(id);
      m.frictions.push_back(friction_law(*f, m.signals, [&](const Signal& sig, const std::string& key) {
        return resolver.resolve(sig, "elements." + f->name + "." + key);
      }));
      m.frictions.back().row = row_of(f->body_a, f->body_b, 1.0, f->coordinate);
    } else if (std::holds_alternative<TorqueSpec>(e) || std::holds_alternative<ForceSpec>(e)) {
      m.element_kind.push_back(ElementKind::torque);  // a force is the load of a translational body
      m.element_index.push_back(static_cast<int>(m.loads.size()));
      m.load_element.push_back(id);
      for_each_element_signal(e, [&](const Signal& load, const std::string& key) {
        m.loads.push_back({body(element_bodies(e).front()), add_signal(load, "elements." + element_name(e) + "." + key)});
      });
    } else if (const auto* c = std::get_if<OneWayClutchSpec>(&e)) {
      m.element_kind.push_back(ElementKind::one_way_clutch);
      m.element_index.push_back(static_cast<int>(m.one_way_clutches.size()));
      m.one_way_element.push_back(id);
      Friction law;  // a plain Coulomb law (its table tau = 1): the drag D(t) is its scale
      law.row = row_of(c->body_a, c->body_b, 1.0, c->coordinate);
      law.viscous = c->viscous;
      law.static_ratio = c->static_ratio;
      law.coulomb = add_signal(c->coulomb, "elements." + c->name + ".coulomb");
      m.one_way_clutches.push_back({law, c->overrun == "negative" ? -1 : 1});
    } else if (const auto* l = std::get_if<LinkSpec>(&e)) {
      m.element_kind.push_back(ElementKind::link);  // (a planetary set is one: core/reduce.cpp)
      m.element_index.push_back(static_cast<int>(m.permanent_links.size()));
      m.permanent_link_element.push_back(id);
      m.permanent_links.push_back({row_of(l->body_a, l->body_b, l->ratio, l->coordinate)});
    } else if (const auto* g = std::get_if<LossyGearSpec>(&e)) {
      m.element_kind.push_back(ElementKind::lossy_gear);
      m.element_index.push_back(static_cast<int>(m.lossy_gears.size()));
      m.lossy_gear_element.push_back(id);
      LossyGear gear;
      gear.law = {g->ratio, g->efficiency_forward, g->efficiency_back, g->bearing_friction};
      gear.body_a = body(g->body_a);
      gear.body_b = body(g->body_b);
      gear.mesh = row_of(g->body_a, g->body_b, g->ratio, {});
      gear.loss = row_of(g->body_a, std::string(), 1.0, {});
      m.lossy_gears.push_back(gear);
    }
  }
  number_slots_and_links(m);
  number_drives(m, spec, add_signal);
  m.massless_viscous.assign(m.inertia.size(), 0.0);
  std::vector<bool> has_bearing(m.inertia.size(), false);
  for (const Friction& f : m.frictions) {  // on a massless body only bearings (core/reduce.hpp): one term
    has_bearing[f.row.body[0]] = true;
    if (m.inertia[f.row.body[0]] == 0.0) m.massless_viscous[f.row.body[0]] += f.viscous;
  }
  m.algebraic.assign(m.inertia.size(), false);
  for (std::size_t j = 0; j < m.inertia.size(); ++j) m.algebraic[j] = m.inertia[j] == 0.0 && !has_bearing[j];
  m.spring_algebraic.assign(m.springs.size(), false);
  // Groups of algebraic bodies joined by springs (a small flood fill).
  std::vector<int> group_of(m.inertia.size(), -1);
  for (std::size_t j = 0; j < m.inertia.size(); ++j) {
    if (!m.algebraic[j] || group_of[j] >= 0) continue;
    AlgebraicGroup g;
    std::vector<int> todo = {static_cast<int>(j)};
    group_of[j] = static_cast<int>(m.algebraic_groups.size());
    while (!todo.empty()) {
      const int b = todo.back();
      todo.pop_back();
      g.bodies.push_back(b);
      for (std::size_t s = 0; s < m.springs.size(); ++s) {
        const CoordinateRow& row = m.springs[s].row;
        if (!row_has(row, b)) continue;
        if (std::find(g.springs.begin(), g.springs.end(), static_cast<int>(s)) == g.springs.end())
          g.springs.push_back(static_cast<int>(s));
        m.spring_algebraic[s] = true;
        for (int k = 0; k < row.n; ++k) {
          const int other = row.body[k];
          if (other == b) continue;
          if (m.algebraic[other] && group_of[other] < 0) {
            group_of[other] = group_of[j];
            todo.push_back(other);
          }
        }
      }
    }
    std::sort(g.bodies.begin(), g.bodies.end());
    for (int s : g.springs)
      for (int k = 0; k < m.springs[s].row.n; ++k)
        if (const int other = m.springs[s].row.body[k];
            !m.algebraic[other] && std::find(g.boundary.begin(), g.boundary.end(), other) == g.boundary.end())
          g.boundary.push_back(other);
    std::sort(g.boundary.begin(), g.boundary.end());
    m.algebraic_groups.push_back(g);
  }
  for (const Signal& s : m.signals)
    collect_breakpoints(s, m.simulation.t_start, m.simulation.t_end, m.breakpoints);
  std::sort(m.breakpoints.begin(), m.breakpoints.end());
  m.breakpoints.erase(std::unique(m.breakpoints.begin(), m.breakpoints.end()), m.breakpoints.end());
  return m;
}

}  // namespace

namespace {

// The rows of the links that can lock (a friction element without dry
// friction, a viscous bearing, never does), as a matrix over the bodies.
Eigen::MatrixXd lockable_rows(const Model& m, std::vector<int>& link_of_row) {
  link_of_row.clear();
  for (int l = 0; l < m.num_links(); ++l) {
    const ModelLink& link = m.links[l];
    if (link.kind == LinkKind::friction && !can_have_dry_friction(m, m.frictions[link.element])) continue;
    if (link.kind == LinkKind::friction && std::binary_search(m.driven_frictions.begin(), m.driven_frictions.end(),
                                                              link.element))
      continue;  // (never locks)
    link_of_row.push_back(l);
  }
  Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(link_of_row.size()), m.num_bodies());
  for (std::size_t i = 0; i < link_of_row.size(); ++i) {
    const CoordinateRow& r = m.links[link_of_row[i]].row;
    for (int k = 0; k < r.n; ++k)  // a prescribed body is a moving base: no term, as the base has none
      if (!m.prescribed(r.body[k])) rows(static_cast<Eigen::Index>(i), r.body[k]) = r.c[k];
  }
  return rows;
}

Eigen::Index qr_rank(const Eigen::MatrixXd& a) {
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(1e-12);
  return qr.rank();
}

// The first link (Model::links order) whose row, with every lockable link
// assumed locked, is a linear combination of the rows before it, or -1 (design
// 2.2). Such a row makes the static split of some mode non-unique (a loop of
// links: a Chebyshev split, not affine). The base contributes no term, so a
// loop through it (two bearings and the clutch between their bodies) is a
// dependence too. For rows of two bodies this is today's cycle test on the
// graph of links, except a loop of ratios that does not close (their product
// is not 1): its rows are independent, a jammed cluster held still, and served.
// Rank by column-pivoting QR (relative threshold 1e-12): one factorisation
// when the rows are independent (the common case), a search otherwise.
int first_dependent_link(const Model& m) {
  std::vector<int> link_of_row;
  const Eigen::MatrixXd rows = lockable_rows(m, link_of_row);
  const Eigen::Index n = rows.rows();
  if (n == 0 || qr_rank(rows) == n) return -1;
  for (Eigen::Index i = 1; i < n; ++i)
    if (qr_rank(rows.topRows(i + 1)) <= i) return link_of_row[static_cast<std::size_t>(i)];
  return link_of_row.front();  // (a row of zeros: never, coefficients are nonzero)
}

}  // namespace

std::string exact_integrator_refusal(const Model& m) {
  if (!m.algebraic_groups.empty())
    return "body '" + m.body_names[m.algebraic_groups.front().bodies.front()] +
           "' is massless without a bearing (an algebraic body)";
  // A massless body on a viscous bearing moves at rate k/mu: its bearing's
  // dissipation is a quadratic form with entries k^2/mu (6e10 on
  // gear_train_simplification1) whose roundoff leaves an energy residual of
  // ~3e-8, not the exact integrator's promise of roundoff (1e-10).
  for (int j = 0; j < m.num_bodies(); ++j)
    if (m.massless(j))
      return "body '" + m.body_names[j] +
             "' is massless on viscous bearings (a first-order mode of rate k/mu, whose dissipation the exact "
             "integrator cannot yet sum to roundoff)";
  if (const int l = first_dependent_link(m); l >= 0) {
    // (a one-way clutch is a clutch here)
    const std::string e = m.element_names[m.link_element(l)];
    if (is_two_body(m.links[l].row)) return "element '" + e + "' closes a loop of clutches, bearings and rigid freeplays";
    return "element '" + e + "' closes a loop of links (its row depends on the others)";
  }
  // S(t) tau(|v|): affine within a segment when S is constant (read as such,
  // Friction::constant_scale) or tau is level (S tau_0 sgn v, affine in S).
  for (std::size_t i = 0; i < m.frictions.size(); ++i) {
    const Friction& f = m.frictions[i];
    if (f.speed_dependent && std::isnan(f.constant_scale))
      return "element '" + m.element_names[m.friction_element[i]] +
             "' has a friction table that depends on speed and a normal force that varies in time: its torque is "
             "bilinear within a mode, not affine (with a constant normal force it is)";
  }
  return "";
}

Reduction validate_and_reduce(const ModelSpec& spec) {
  return located(spec, [&] { return unlocated_validate_and_reduce(spec); });
}

Model assemble(const ModelSpec& spec) {
  return located(spec, [&] { return build(unlocated_validate_and_reduce(spec), spec); });
}

}  // namespace luztar
