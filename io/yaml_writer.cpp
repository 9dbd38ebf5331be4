#include "io/yaml_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "io/atomic_file.hpp"

namespace luztar::io {

namespace {

void emit_signal(YAML::Emitter& out, const Signal& s) {
  switch (s.kind) {
    case Signal::Kind::constant:
      out << s.value;
      return;
    case Signal::Kind::reference:
      out << s.reference;
      return;
    case Signal::Kind::input:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "input" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "initial" << YAML::Value << s.value;
      if (std::isfinite(s.lower)) out << YAML::Key << "lower" << YAML::Value << s.lower;
      if (std::isfinite(s.upper)) out << YAML::Key << "upper" << YAML::Value << s.upper;
      out << YAML::EndMap << YAML::EndMap;
      return;
    case Signal::Kind::sine:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "sine" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "amplitude" << YAML::Value << s.amplitude << YAML::Key << "frequency" << YAML::Value
          << s.frequency << YAML::Key << "phase" << YAML::Value << s.phase << YAML::Key << "offset" << YAML::Value
          << s.offset;
      out << YAML::EndMap << YAML::EndMap;
      return;
    case Signal::Kind::step:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "step" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "time" << YAML::Value << s.time << YAML::Key << "initial" << YAML::Value << s.initial
          << YAML::Key << "final" << YAML::Value << s.final_value;
      out << YAML::EndMap << YAML::EndMap;
      return;
    case Signal::Kind::ramp:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "ramp" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "start" << YAML::Value << s.start << YAML::Key << "end" << YAML::Value << s.end
          << YAML::Key << "initial" << YAML::Value << s.initial << YAML::Key << "final" << YAML::Value
          << s.final_value;
      out << YAML::EndMap << YAML::EndMap;
      return;
    case Signal::Kind::table:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "table" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "points" << YAML::Value << YAML::BeginSeq;
      for (std::size_t i = 0; i < s.table_t.size(); ++i)
        out << YAML::Flow << YAML::BeginSeq << s.table_t[i] << s.table_v[i] << YAML::EndSeq;
      out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
      return;
    case Signal::Kind::sum:
    case Signal::Kind::product:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << (s.kind == Signal::Kind::sum ? "sum" : "product")
          << YAML::Value << YAML::BeginSeq;
      for (const Signal& t : s.terms) emit_signal(out, t);
      out << YAML::EndSeq << YAML::EndMap;
      return;
    case Signal::Kind::angle:
    case Signal::Kind::velocity:
      out << YAML::Flow << YAML::BeginMap << YAML::Key << kind_name(s.kind) << YAML::Value << s.reference
          << YAML::EndMap;
      return;
    case Signal::Kind::dead_zone:
    case Signal::Kind::saturation:
    case Signal::Kind::hold:
    case Signal::Kind::play:
    case Signal::Kind::saturated_integrator:
    case Signal::Kind::relay: {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << kind_name(s.kind) << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "of" << YAML::Value;
      emit_signal(out, s.terms.at(0));
      auto field = [&](const char* key, double v) { out << YAML::Key << key << YAML::Value << v; };
      switch (s.kind) {
        case Signal::Kind::dead_zone:
        case Signal::Kind::saturation:
          field("lower", s.lower);
          field("upper", s.upper);
          break;
        case Signal::Kind::play:
          field("width", s.width);
          field("initial", s.initial);
          break;
        case Signal::Kind::saturated_integrator:
          field("lower", s.lower);
          field("upper", s.upper);
          field("initial", s.initial);
          break;
        case Signal::Kind::relay:
          field("threshold", s.threshold);
          field("value", s.value);
          field("initial", s.initial);
          break;
        default:
          break;
      }
      if (is_sampled_block(s.kind)) field("period", s.period);
      out << YAML::EndMap << YAML::EndMap;
      return;
    }
  }
}

void emit_bodies(YAML::Emitter& out, const std::string& key, const std::string& a, const std::string& b) {
  if (b.empty()) {
    out << YAML::Key << "body" << YAML::Value << a;
  } else {
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq << a << b << YAML::EndSeq;
  }
}

}  // namespace

std::string to_yaml(const ModelSpec& spec, const std::vector<std::string>& comment) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  if (!spec.name.empty()) out << YAML::Key << "name" << YAML::Value << spec.name;
  if (!spec.description.empty()) out << YAML::Key << "description" << YAML::Value << spec.description;
  const SimulationSettings& s = spec.simulation;
  out << YAML::Key << "simulation" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "t_start" << YAML::Value << s.t_start << YAML::Key << "t_end" << YAML::Value << s.t_end;
  out << YAML::Key << "output_step" << YAML::Value << s.output_step << YAML::Key << "rtol" << YAML::Value << s.rtol;
  out << YAML::Key << "atol" << YAML::Value << s.atol << YAML::Key << "max_step" << YAML::Value << s.max_step;
  out << YAML::Key << "max_events" << YAML::Value << s.max_events;
  out << YAML::Key << "event_storm" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "events"
      << YAML::Value << s.storm_events << YAML::Key << "span" << YAML::Value << s.storm_span << YAML::EndMap;
  out << YAML::Key << "rest_velocity" << YAML::Value << s.rest_velocity;
  out << YAML::Key << "linear_solver" << YAML::Value << s.linear_solver;
  if (s.integrator != "auto") out << YAML::Key << "integrator" << YAML::Value << s.integrator;
  out << YAML::Key << "solver" << YAML::Value << s.solver;
  if (s.solver == "time_stepping")
    out << YAML::Key << "step" << YAML::Value << s.step << YAML::Key << "theta" << YAML::Value << s.theta;
  out << YAML::EndMap;
  if (!spec.signals.empty()) {
    out << YAML::Key << "signals" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, sig] : spec.signals) {
      out << YAML::Key << name << YAML::Value;
      emit_signal(out, sig);
    }
    out << YAML::EndMap;
  }
  out << YAML::Key << "bodies" << YAML::Value << YAML::BeginMap;
  for (const BodySpec& b : spec.bodies) {
    out << YAML::Key << b.name << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "inertia" << YAML::Value << b.inertia << YAML::Key << "angle" << YAML::Value << b.angle
        << YAML::Key << "velocity" << YAML::Value << b.velocity << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!spec.elements.empty()) {
    out << YAML::Key << "elements" << YAML::Value << YAML::BeginMap;
    for (const ElementSpec& e : spec.elements) {
      out << YAML::Key << element_name(e) << YAML::Value << YAML::BeginMap;
      if (const auto* sp = std::get_if<SpringSpec>(&e)) {
        out << YAML::Key << "type" << YAML::Value << "spring";
        emit_bodies(out, "bodies", sp->body_a, sp->body_b);
        if (!sp->body_b.empty()) out << YAML::Key << "ratio" << YAML::Value << sp->ratio;
        out << YAML::Key << "stiffness" << YAML::Value << sp->stiffness << YAML::Key << "freeplay" << YAML::Value
            << sp->freeplay << YAML::Key << "damping" << YAML::Value << sp->damping;
        if (sp->restitution != 0.0) out << YAML::Key << "restitution" << YAML::Value << sp->restitution;
      } else if (const auto* f = std::get_if<FrictionSpec>(&e)) {
        out << YAML::Key << "type" << YAML::Value << "friction";
        emit_bodies(out, "bodies", f->body_a, f->body_b);
        out << YAML::Key << "viscous" << YAML::Value << f->viscous << YAML::Key << "coulomb" << YAML::Value;
        emit_signal(out, f->coulomb);
        out << YAML::Key << "static_ratio" << YAML::Value << f->static_ratio;
      } else if (const auto* t = std::get_if<TorqueSpec>(&e)) {
        out << YAML::Key << "type" << YAML::Value << "torque" << YAML::Key << "body" << YAML::Value << t->body;
        out << YAML::Key << "torque" << YAML::Value;
        emit_signal(out, t->torque);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  std::ostringstream text;
  for (const std::string& line : comment) text << "# " << line << "\n";
  text << out.c_str() << "\n";
  return text.str();
}

void write_yaml(AtomicOutput& out, const ModelSpec& spec, const std::vector<std::string>& comment) {
  const std::string text = to_yaml(spec, comment);
  const std::string& path = out.path();
  std::FILE* f = std::fopen(out.temp_path().c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot open the output file for writing");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error(path + ": error while writing");
}

void write_yaml(const std::string& path, const ModelSpec& spec, const std::vector<std::string>& comment) {
  AtomicOutput out(path);
  write_yaml(out, spec, comment);
  out.commit();
}

}  // namespace luztar::io
