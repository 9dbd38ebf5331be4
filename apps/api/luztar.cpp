// The C++ facade (apps/api/luztar/luztar.hpp) over the internal API: io reads
// the model, luztar::simulate runs it, luztar::Simulator steps it, io writes
// the files. Opaque handles share the read-only internal Model.
#include "luztar/luztar.hpp"

#include <cmath>
#include <stdexcept>

#include "apps/api/host_time.hpp"
#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "core/signal_paths.hpp"
#include "core/times.hpp"
#include "io/csv_writer.hpp"
#include "io/hdf5_writer.hpp"
#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar::api {

struct Model::Impl {
  luztar::Model model;
};

struct Result::Impl {
  std::shared_ptr<const Model::Impl> model;
  luztar::Result result;
};

struct Snapshot::Impl {
  luztar::Snapshot snapshot;
};

struct Simulator::Impl {
  explicit Impl(std::shared_ptr<const Model::Impl> m) : model(std::move(m)), sim(model->model) {}
  std::shared_ptr<const Model::Impl> model;  // kept alive for sim (declared first: destroyed last)
  luztar::Simulator sim;
};

namespace {

// "file:line:col" (or "file", or "") split into its parts.
void split_where(const std::string& where, std::string& file, int& line, int& column) {
  file = where;
  line = column = 0;
  // The number in where[from, to), or -1.
  const auto number = [&](std::size_t from, std::size_t to) {
    const std::string digits = where.substr(from, to - from);
    return !digits.empty() && digits.size() < 10 && digits.find_first_not_of("0123456789") == std::string::npos
               ? std::stoi(digits)
               : -1;
  };
  const auto c2 = where.rfind(':');
  if (c2 == std::string::npos || c2 == 0) return;
  const auto c1 = where.rfind(':', c2 - 1);
  if (c1 == std::string::npos || number(c1 + 1, c2) < 0 || number(c2 + 1, where.size()) < 0) return;
  file = where.substr(0, c1);
  line = number(c1 + 1, c2);
  column = number(c2 + 1, where.size());
}

// f() with luztar::ModelError turned into Error.
template <class F>
auto translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const luztar::ModelError& e) {
    std::string file;
    int line = 0, column = 0;
    split_where(e.where(), file, line, column);
    throw Error(e.what(), file, line, column, e.field(), e.detail());
  }
}

std::vector<io::FieldOverride> internal(const std::vector<Override>& overrides) {
  std::vector<io::FieldOverride> o;
  for (const Override& v : overrides) o.push_back({v.path, v.value, "override " + v.path + " = " + v.value});
  return o;
}

Status status_of(luztar::StepStatus s) {
  switch (s) {
    case luztar::StepStatus::reached_time: return Status::reached_time;
    case luztar::StepStatus::event_limit: return Status::event_limit;
    case luztar::StepStatus::event_storm: return Status::event_storm;
    case luztar::StepStatus::solver_failure: return Status::solver_failure;
  }
  return Status::solver_failure;
}

Stats stats_of(const luztar::RunStats& s) {
  return {s.steps,          s.rhs_evals,           s.jac_evals,          s.root_evals,       s.events,
          s.reinits,        s.impacts,             s.selection_fallbacks, s.selection_unsolved, s.impact_fallbacks,
          s.impacts_unsolved, s.energy_residual,   s.wall_time,           s.energy_residual_exceeded};
}

std::vector<Event> events_of(const luztar::Model& m, const std::vector<luztar::EventRecord>& log) {
  std::vector<Event> out;
  out.reserve(log.size());
  for (const luztar::EventRecord& e : log)
    out.push_back({e.t, m.element_names.at(static_cast<std::size_t>(e.element)), luztar::to_string(e.kind), e.before,
                   e.after});
  return out;
}

}  // namespace

const char* version() { return luztar::kVersion; }

Error::Error(const std::string& what, std::string file, int line, int column, std::string field, std::string detail)
    : std::runtime_error(what), file_(std::move(file)), line_(line), column_(column), field_(std::move(field)),
      detail_(std::move(detail)) {}

// The shortest text that reads back to the same double (an error then names 0.1, not 0.10000000000000001).
Override::Override(std::string path_, double number) : path(std::move(path_)), value(luztar::shortest(number)) {}

const char* to_string(Status s) {
  switch (s) {
    case Status::reached_time: return luztar::to_string(luztar::StepStatus::reached_time);
    case Status::event_limit: return luztar::to_string(luztar::StepStatus::event_limit);
    case Status::event_storm: return luztar::to_string(luztar::StepStatus::event_storm);
    case Status::solver_failure: break;
  }
  return luztar::to_string(luztar::StepStatus::solver_failure);
}

// ---- Model

Model::Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Model Model::load(const std::string& path, const std::vector<Override>& overrides) {
  return translated([&] { return Model(std::make_shared<const Impl>(Impl{io::load_model(path, internal(overrides))})); });
}

Model Model::parse(const std::string& yaml, const std::vector<Override>& overrides, const std::string& origin,
                   const std::string& base_dir) {
  return translated([&] {
    return Model(std::make_shared<const Impl>(Impl{io::parse_model(yaml, origin, base_dir, internal(overrides))}));
  });
}

const std::string& Model::name() const { return impl_->model.name; }
std::vector<std::string> Model::bodies() const { return impl_->model.reported_body_names; }
std::vector<std::string> Model::elements() const { return impl_->model.element_names; }
std::vector<std::string> Model::inputs() const { return impl_->model.input_names; }
std::vector<std::string> Model::outputs() const { return signal_paths(impl_->model); }
double Model::t_start() const { return impl_->model.simulation.t_start; }
double Model::t_end() const { return impl_->model.simulation.t_end; }

Result Model::simulate() const { return Result(std::make_shared<const Result::Impl>(Result::Impl{impl_, luztar::simulate(impl_->model)})); }

// ---- Result

Result::Result(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Status Result::status() const { return status_of(impl_->result.status); }
const std::string& Result::message() const { return impl_->result.message; }
const std::vector<double>& Result::time() const { return impl_->result.time; }
std::vector<std::string> Result::signals() const { return signal_paths(signal_space(impl_->result)); }
std::vector<double> Result::signal(const std::string& path) const { return recorded_signal(impl_->result, path); }
std::vector<Event> Result::events() const { return events_of(impl_->model->model, impl_->result.events); }
Stats Result::stats() const { return stats_of(impl_->result.stats); }

void Result::write_hdf5(const std::string& path) const {
  const luztar::Model& m = impl_->model->model;
  io::write_hdf5(path, m, m.simulation, impl_->result);
}

void Result::write_csv(const std::string& path) const { io::write_csv(path, impl_->result); }

// ---- Snapshot

Snapshot::Snapshot(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
double Snapshot::time() const { return impl_ ? impl_->snapshot.state.t : std::nan(""); }

// ---- Simulator

Simulator::Simulator(const Model& model) : impl_(std::make_unique<Impl>(model.impl_)) {}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

// The simulator's state; a moved-from Simulator has none, and every call
// but destruction and assignment throws rather than dereferencing nothing.
Simulator::Impl& Simulator::impl() const {
  if (!impl_) throw std::logic_error("Simulator: used after it was moved from (assign it a simulator first)");
  return *impl_;
}

Input Simulator::input(const std::string& name) const { return Input(impl().sim.input(name).index); }

void Simulator::set_input(Input input, double value) { impl().sim.set_input(luztar::InputId{input.position()}, value); }

Output Simulator::output(const std::string& path) const {
  const luztar::OutputId s = impl().sim.output(path);
  Output id;
  id.kind_ = static_cast<int>(s.kind);
  id.index_ = s.index;
  return id;
}

double Simulator::value(Output output) const {
  if (output.kind_ < 0) throw std::invalid_argument("value: the output was not resolved (Simulator::output)");
  return impl().sim.value({static_cast<luztar::SignalPath::Kind>(output.kind_), output.index_});
}

Status Simulator::advance_to(double t) {
  luztar::app::check_host_time(t, impl().sim.time(), impl().model->model.simulation.t_end);
  return status_of(impl().sim.advance_to(t));
}

double Simulator::time() const { return impl().sim.time(); }
const std::string& Simulator::message() const { return impl().sim.message(); }
Stats Simulator::stats() const { return stats_of(impl().sim.stats()); }
std::vector<Event> Simulator::events() const { return events_of(impl().model->model, impl().sim.events()); }
std::size_t Simulator::event_count() const { return impl().sim.events().size(); }

Snapshot Simulator::snapshot() { return Snapshot(std::make_shared<const Snapshot::Impl>(Snapshot::Impl{impl().sim.snapshot()})); }

void Simulator::restore(const Snapshot& snapshot) {
  if (!snapshot.impl_) throw std::invalid_argument("restore: the snapshot is empty (take one with Simulator::snapshot)");
  impl().sim.restore(snapshot.impl_->snapshot);
}

}  // namespace luztar::api
