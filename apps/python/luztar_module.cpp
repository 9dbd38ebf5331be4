// _luztar: the C++ half of the Python package `luztar` (apps/python/luztar/).
// It binds the library's public API: io::parse_model (with the sweep's field
// overrides), simulate, Simulator, io::read_hdf5 and the sweep plan
// (apps/sweep/). Results cross as plain dicts of numpy arrays; the package's
// Python side (luztar/__init__.py) wraps them in the Result and SweepResult
// classes, and defines the exceptions this module raises (ModelError,
// Interrupted). Every long call (a run, advance_to, a sweep) releases the GIL;
// runs and sweeps ask for Python's signals (Ctrl-C) every 50 ms of wall time.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <sstream>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/api/host_time.hpp"
#include "apps/cli/summary.hpp"
#include "apps/sweep/sweep_plan.hpp"
#include "apps/sweep/sweep_schedule.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/result.hpp"
#include "core/signal_paths.hpp"
#include "core/units.hpp"
#include "io/hdf5_reader.hpp"
#include "io/text_file.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_sweep.hpp"
#include "luztar/version.hpp"
#include "solvers/simulator.hpp"

namespace py = pybind11;
using namespace luztar;

namespace {

// ---------------------------------------------------------------------------
// Results -> dicts of numpy arrays

template <class T>
py::array_t<T> array(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// Column j of a row-major (n x m) matrix.
template <class T>
py::array_t<T> column(const std::vector<T>& data, std::size_t m, std::size_t j) {
  const std::size_t n = m == 0 ? 0 : data.size() / m;
  py::array_t<T> a(static_cast<py::ssize_t>(n));
  T* out = a.mutable_data();
  for (std::size_t k = 0; k < n; ++k) out[k] = data[k * m + j];
  return a;
}

py::dict stats_dict(const RunStats& s) {
  py::dict d;
  d["steps"] = s.steps;
  d["rhs_evals"] = s.rhs_evals;
  d["jac_evals"] = s.jac_evals;
  d["root_evals"] = s.root_evals;
  d["nonlinear_iters"] = s.nonlinear_iters;
  d["error_test_fails"] = s.error_test_fails;
  d["events"] = s.events;
  d["reinits"] = s.reinits;
  d["redundant_splits"] = s.redundant_splits;
  d["velocity_projection_loss"] = s.velocity_projection_loss;
  d["lcp_not_converged"] = s.lcp_not_converged;
  d["impacts"] = s.impacts;
  d["impact_loss"] = s.impact_loss;
  d["missed_strikes"] = s.missed_strikes;
  d["input_restarts"] = s.input_restarts;
  d["selection_fallbacks"] = s.selection_fallbacks;
  d["selection_unsolved"] = s.selection_unsolved;
  d["impact_fallbacks"] = s.impact_fallbacks;
  d["impacts_unsolved"] = s.impacts_unsolved;
  d["energy_residual"] = s.energy_residual;
  d["energy_residual_exceeded"] = s.energy_residual_exceeded;
  d["wall_time"] = s.wall_time;
  return d;
}

py::tuple events_tuple(const std::vector<EventRecord>& events, const std::vector<std::string>& element_names) {
  std::vector<double> t;
  std::vector<std::int8_t> before, after;
  py::list element, kind;
  for (const EventRecord& e : events) {
    t.push_back(e.t);
    element.append(e.element >= 0 && e.element < static_cast<int>(element_names.size())
                       ? element_names[static_cast<std::size_t>(e.element)]
                       : std::string());
    kind.append(to_string(e.kind));
    before.push_back(e.before);
    after.push_back(e.after);
  }
  return py::make_tuple(array(t), element, kind, array(before), array(after));
}

// Every stored signal by its path in the HDF5 file (io/hdf5_writer.hpp), with dots.
py::dict result_dict(const Result& r) {
  py::dict signals;
  const std::size_t nb = r.body_names.size(), ne = r.element_names.size(), nsb = r.block_names.size();
  // The quantities the Result holds (one read from an older file lacks some).
  const auto held = [&](const OwnerQuantity& q, std::size_t n) {
    return q.values && (r.*(q.values)).size() == r.time.size() * n;
  };
  py::dict units;  // of the owners' quantities, by their kind (a translational body's in m, m/s)
  for (std::size_t b = 0; b < nb; ++b)
    for (const OwnerQuantity& q : kBodyQuantities) {
      const std::string path = "bodies." + r.body_names[b] + "." + q.name;
      if (!held(q, nb)) continue;
      signals[py::str(path)] = column(r.*(q.values), nb, b);
      units[py::str(path)] = r.body_unit(static_cast<int>(b), q.unit);
    }
  for (std::size_t e = 0; e < ne; ++e)
    for (const OwnerQuantity& q : kElementQuantities) {
      const std::string path = "elements." + r.element_names[e] + "." + q.name;
      if (q.values && !held(q, ne)) continue;
      units[py::str(path)] = r.element_unit(static_cast<int>(e), q.unit);
      if (!q.values) signals[py::str(path)] = column(r.element_state, ne, e);
      else if (held(q, ne)) signals[py::str(path)] = column(r.*(q.values), ne, e);
    }
  for (std::size_t k = 0; k < nsb; ++k) signals[py::str("blocks." + r.block_names[k])] = column(r.block_output, nsb, k);
  signals["energy.input_work"] = array(r.input_work);
  signals["energy.kinetic"] = array(r.kinetic);
  signals["energy.elastic"] = array(r.elastic);
  signals["energy.dissipated"] = array(r.dissipated);

  py::dict d;
  d["time"] = array(r.time);
  d["signals"] = signals;
  d["body_names"] = r.body_names;
  d["element_names"] = r.element_names;
  d["element_kinds"] = r.element_kinds;
  d["block_names"] = r.block_names;
  std::vector<std::string> block_units;
  for (int b = 0; b < r.num_blocks(); ++b) block_units.push_back(r.block_unit(b));
  d["block_units"] = block_units;
  d["units"] = units;
  d["events"] = events_tuple(r.events, r.element_names);
  d["time_stuck"] = array(r.time_stuck);
  d["status"] = to_string(r.status);
  d["message"] = r.message;
  d["stats"] = stats_dict(r.stats);
  return d;
}

// ---------------------------------------------------------------------------
// Ctrl-C: asked from C++ threads that do not hold the GIL.

class InterruptCheck {
 public:
  // True when Python has a pending signal that raised (the error is left set).
  bool interrupted() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(50)) return false;
    last_ = now;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      error_ = std::make_unique<py::error_already_set>();
      return true;
    }
    return false;
  }
  // Raises the interrupt (KeyboardInterrupt) if one was caught.
  void rethrow() {
    if (error_) {
      py::error_already_set e = std::move(*error_);
      error_.reset();
      throw e;
    }
  }
  bool caught() const { return static_cast<bool>(error_); }
  // An interrupt that surfaced elsewhere (a KeyboardInterrupt from a Python callback).
  void keep(py::error_already_set&& e) { error_ = std::make_unique<py::error_already_set>(std::move(e)); }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::unique_ptr<py::error_already_set> error_;
};

// Raises luztar.Interrupted(message, partial) from the pending KeyboardInterrupt.
[[noreturn]] void raise_interrupted(InterruptCheck& check, const std::string& what, py::object partial) {
  try {
    check.rethrow();
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_KeyboardInterrupt)) throw;
  }
  py::object cls = py::module_::import("luztar").attr("Interrupted");
  PyErr_SetObject(cls.ptr(), cls(what, partial).ptr());
  throw py::error_already_set();
}

// ---------------------------------------------------------------------------
// Model: the text, where it came from, the fields set from Python (sweep
// overrides), and the Model assembled from them (shared with simulators).

struct PyModel {
  std::string text, origin, base_dir;
  std::vector<io::FieldOverride> overrides;
  std::shared_ptr<const Model> model;

  void assemble_now() { model = std::make_shared<const Model>(io::parse_model(text, origin, base_dir, overrides)); }
};

std::string where_of_set(const std::string& path) { return "model['" + path + "']"; }

std::string base_dir_of(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

PyModel load(const std::string& path) {
  PyModel m{io::read_text_file(path, "model file"), path, base_dir_of(path), {}, nullptr};
  m.assemble_now();
  return m;
}

PyModel loads(const std::string& text, const std::string& origin, const std::string& base_dir) {
  PyModel m{text, origin, base_dir, {}, nullptr};
  m.assemble_now();
  return m;
}

std::string get_field(const PyModel& m, const std::string& path) {
  return io::field_value(m.text, m.origin, path, m.overrides);
}

// The SI unit of the model field at `path` (core/units.hpp), as the sweep file
// stores it: "unit of the signal" for a value whose unit depends on its use.
std::string field_unit(const std::string& path) {
  const Dimension d = field_dimension(path);
  return d == Dimension::plain ? unit::of_signal : si_unit(d);
}

// A field's text as a number in SI ("0.5 deg" -> 0.00873), or None when the
// text is no quantity (a name, a mapping) or its unit does not fit the field.
std::optional<double> field_si(const std::string& path, const std::string& text) {
  double si = 0.0;
  std::string error;
  if (!to_si(text, field_dimension(path), si, error) || !error.empty()) return std::nullopt;
  return si;
}

// Sets `value` (YAML text) at `path` and re-assembles; on an error the model
// keeps its previous value.
void set_field(PyModel& m, const std::string& path, const std::string& value) {
  std::vector<io::FieldOverride> next = m.overrides;
  bool replaced = false;
  for (io::FieldOverride& o : next)
    if (o.path == path) {
      o.value = value;
      replaced = true;
    }
  if (!replaced) next.push_back({path, value, where_of_set(path)});
  auto model = std::make_shared<const Model>(io::parse_model(m.text, m.origin, m.base_dir, next));
  m.overrides = std::move(next);
  m.model = std::move(model);
}

// Runs with simulation.* fields replaced for this run only (checked as the file's).
py::dict run(const PyModel& m, const std::vector<std::pair<std::string, std::string>>& settings) {
  std::shared_ptr<const Model> model = m.model;
  if (!settings.empty()) {
    std::vector<io::FieldOverride> o = m.overrides;
    for (const auto& [key, value] : settings)
      o.push_back({"simulation." + key, value, "run(" + key + "=" + value + ")"});
    model = std::make_shared<const Model>(io::parse_model(m.text, m.origin, m.base_dir, o));
  }
  InterruptCheck check;
  Result r;
  {
    py::gil_scoped_release release;
    r = simulate(*model, model->simulation, [&](double) { return !check.interrupted(); });
  }
  py::dict d = result_dict(r);
  std::ostringstream summary;
  app::print_summary(summary, *model, model->simulation, r);
  d["summary"] = summary.str();
  if (check.caught()) {
    d["status"] = "interrupted";
    raise_interrupted(check, r.message, d);
  }
  return d;
}

// ---------------------------------------------------------------------------
// Simulator: keeps its Model alive (a set on the Python Model makes a new one).

// One Simulator is not safe for concurrent calls, and advance_to releases
// the GIL: two Python threads sharing one raced it (a segfault, or "mode ...
// does not reproduce its right-hand side"; a new-user hunt). Every bound
// method holds the simulator's mutex (SimulatorLock), so calls on one
// simulator take turns; simulators of one model still run in parallel.
struct PySimulator {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Simulator> sim;
  mutable std::mutex mutex;  // held by every bound method (SimulatorLock)
  explicit PySimulator(const PyModel& m) : model(m.model), sim(std::make_unique<Simulator>(*model)) {}
};

// Holds a simulator's mutex for one bound method. The caller holds the GIL;
// where another thread holds the mutex it waits with the GIL released (the
// holder may need the GIL to finish: advance_to takes it back to return).
class SimulatorLock {
 public:
  explicit SimulatorLock(const PySimulator& s) : lock_(s.mutex, std::try_to_lock) {
    if (lock_.owns_lock()) return;
    py::gil_scoped_release release;
    lock_.lock();
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

struct PySnapshot {
  Snapshot snapshot;
  const Model* model = nullptr;  // a snapshot goes back into a simulator of the same Model only
};

// ---------------------------------------------------------------------------
// Sweeps

py::dict sweep(const PyModel* model, const std::string& path, const std::vector<std::string>& sets,
               const std::vector<std::string>& metrics, long samples, long seed, int threads,
               const py::object& progress) {
  io::SweepInput input;
  std::vector<io::FieldOverride> fixed;
  if (model) {
    input = io::parse_sweep(model->text, model->origin, model->base_dir);
    // The model's own sets: a number (with its unit) is a single-valued
    // parameter of the sweep; anything else (a table, a signal) is a field
    // every run takes as set (a sweep's parameters are numbers).
    for (const io::FieldOverride& o : model->overrides) {
      const std::size_t at = o.value.find_first_not_of(" \t");
      const bool number = at != std::string::npos && std::string("0123456789+-.").find(o.value[at]) != std::string::npos;
      if (number) io::add_parameter_option(input.spec, o.path + "=[" + o.value + "]");
      else fixed.push_back({o.path, o.value, "the Model's set of " + o.path});
    }
  } else {
    input = io::load_sweep(path);
  }
  for (const std::string& s : sets) io::add_parameter_option(input.spec, s);
  for (const std::string& s : metrics) io::add_metric_option(input.spec, s);
  if (samples >= 0) input.spec.samples = samples;
  if (seed >= 0) input.spec.seed = static_cast<std::uint64_t>(seed);
  std::optional<app::SweepPlan> plan;
  {
    py::gil_scoped_release release;
    plan.emplace(app::make_plan(std::move(input), std::move(fixed)));
  }
  const std::size_t n = plan->table.size(), nm = plan->metrics.size();
  std::vector<std::vector<double>> values(nm, std::vector<double>(n, std::nan("")));
  std::vector<std::int8_t> status(n, static_cast<std::int8_t>(RunStatus::pending));
  std::vector<std::string> message(n);
  std::vector<double> wall(n, 0.0);
  std::vector<std::size_t> todo(n);
  for (std::size_t i = 0; i < n; ++i) todo[i] = i;
  app::Dispenser dispenser(std::move(todo));
  app::ResultQueue queue;
  InterruptCheck check;
  std::size_t done = 0, failed = 0;
  {
    const int nthreads = threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    py::gil_scoped_release release;
    app::LocalWorkers workers(*plan, dispenser, queue, nthreads);
    bool stopping = false;
    while (done < n && (workers.running() || !stopping)) {
      for (SweepRunResult& r : queue.take(std::chrono::milliseconds(50))) {
        status[r.index] = static_cast<std::int8_t>(r.status);
        message[r.index] = r.message;
        wall[r.index] = r.wall_time;
        for (std::size_t j = 0; j < nm && j < r.metrics.size(); ++j) values[j][r.index] = r.metrics[j];
        ++done;
        failed += r.status != RunStatus::ok;
      }
      if (stopping) continue;
      if (check.interrupted()) {
        dispenser.stop();  // the runs in progress finish; nothing new starts
        stopping = true;
        continue;
      }
      if (!progress.is_none()) {
        py::gil_scoped_acquire gil;
        try {
          progress(done, n, failed);
        } catch (py::error_already_set& e) {  // ends the sweep: the runs in progress finish
          dispenser.stop();
          if (!e.matches(PyExc_KeyboardInterrupt)) throw;
          check.keep(std::move(e));  // Ctrl-C while the callback ran: interrupted as any other
          stopping = true;
        }
      }
    }
  }  // joins the workers
  for (SweepRunResult& r : queue.take(std::chrono::milliseconds(0))) {
    status[r.index] = static_cast<std::int8_t>(r.status);
    message[r.index] = r.message;
    wall[r.index] = r.wall_time;
    for (std::size_t j = 0; j < nm && j < r.metrics.size(); ++j) values[j][r.index] = r.metrics[j];
  }
  py::dict params;
  for (std::size_t p = 0; p < plan->table.paths.size(); ++p) {
    py::list col;
    for (std::size_t i = 0; i < n; ++i) col.append(plan->table.values[i][p]);
    params[py::str(plan->table.paths[p])] = col;
  }
  py::dict metric_values, units;
  for (const std::string& path : plan->table.paths) units[py::str(path)] = field_unit(path);
  for (std::size_t j = 0; j < nm; ++j) {
    metric_values[py::str(plan->metrics[j].name)] = array(values[j]);
    units[py::str(plan->metrics[j].name)] = plan->metrics[j].unit();
  }
  py::dict d;
  d["parameters"] = params;
  d["metrics"] = metric_values;
  d["units"] = units;
  d["status"] = array(status);
  d["message"] = message;
  d["wall_time"] = array(wall);
  if (check.caught()) raise_interrupted(check, "sweep interrupted", d);
  if (!progress.is_none()) progress(done, n, failed);
  return d;
}

}  // namespace

PYBIND11_MODULE(_luztar, m) {
  m.doc() = "C++ core of the luztar package (use the `luztar` package, not this module).";
  m.attr("__version__") = kVersion;

  // luztar::ModelError -> luztar.ModelError(message, where, field, detail)
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ModelError& e) {
      py::object cls = py::module_::import("luztar").attr("ModelError");
      PyErr_SetObject(cls.ptr(), cls(e.what(), e.where(), e.field(), e.detail()).ptr());
    }
  });

  py::class_<PyModel>(m, "_Model")
      .def_readonly("text", &PyModel::text)
      .def_readonly("origin", &PyModel::origin)
      .def_readonly("base_dir", &PyModel::base_dir)
      .def_property_readonly("sets", [](const PyModel& pm) {
        py::dict d;
        for (const io::FieldOverride& o : pm.overrides) d[py::str(o.path)] = o.value;
        return d;
      })
      .def_property_readonly("body_names", [](const PyModel& pm) { return pm.model->reported_body_names; })
      .def_property_readonly("element_names", [](const PyModel& pm) { return pm.model->element_names; })
      .def_property_readonly("input_names", [](const PyModel& pm) { return pm.model->input_names; })
      .def_property_readonly("block_names", [](const PyModel& pm) { return pm.model->sampled_names; })
      .def_property_readonly("reductions", [](const PyModel& pm) { return pm.model->reductions; })
      .def("get", &get_field)
      .def("set", &set_field)
      .def("run", &run);
  m.def("field_unit", &field_unit, py::arg("path"));
  m.def("field_si", &field_si, py::arg("path"), py::arg("text"));
  m.def("load", &load, py::arg("path"));
  m.def("loads", &loads, py::arg("text"), py::arg("origin"), py::arg("base_dir"));
  m.def("read", [](const std::string& path) {
    io::StoredRun s;
    {
      py::gil_scoped_release release;
      s = io::read_hdf5(path);
    }
    py::dict d = result_dict(s.result);
    std::ostringstream summary;
    app::print_summary(summary, app::SummarySource{s.model_name, s.source_path, s.reductions}, s.settings, s.result);
    d["summary"] = summary.str();
    d["model_text"] = s.model_text;
    d["luztar_version"] = s.luztar_version;
    return d;
  }, py::arg("path"));

  py::class_<InputId>(m, "InputId", "A named input resolved once (Simulator.input).")
      .def_readonly("index", &InputId::index);
  py::class_<OutputId>(m, "OutputId", "A named output resolved once (Simulator.output).")
      .def_readonly("index", &OutputId::index);
  py::class_<PySnapshot>(m, "Snapshot", "The full state of a Simulator at one time (Simulator.snapshot()).")
      .def_property_readonly("time", [](const PySnapshot& s) { return s.snapshot.state.t; });

  py::class_<PySimulator>(m, "_Simulator")
      .def(py::init<const PyModel&>())
      .def("advance_to", [](PySimulator& s, double t) {
        const SimulatorLock lock(s);
        app::check_host_time(t, s.sim->time(), s.model->simulation.t_end);  // as the C++ facade
        StepStatus st;
        {
          py::gil_scoped_release release;
          st = s.sim->advance_to(t);
        }
        return std::string(to_string(st));
      }, py::arg("t"))
      .def_property_readonly("time", [](const PySimulator& s) {
        const SimulatorLock lock(s);
        return s.sim->time();
      })
      .def_property_readonly("message", [](const PySimulator& s) {
        const SimulatorLock lock(s);
        return s.sim->message();
      })
      .def_property_readonly("angles", [](const PySimulator& s) {
        const SimulatorLock lock(s);
        return array(s.sim->body_angles());
      })
      .def_property_readonly("velocities", [](const PySimulator& s) {
        const SimulatorLock lock(s);
        return array(s.sim->body_velocities());
      })
      .def_property_readonly("stats", [](const PySimulator& s) {
        const SimulatorLock lock(s);
        return stats_dict(s.sim->stats());
      })
      .def_property_readonly("events", [](const PySimulator& s) {
        const SimulatorLock lock(s);
        return events_tuple(s.sim->events(), s.model->element_names);
      })
      .def("input", [](const PySimulator& s, const std::string& name) {
        const SimulatorLock lock(s);
        return s.sim->input(name);
      })
      .def("set_input", [](PySimulator& s, InputId id, double v) {
        const SimulatorLock lock(s);
        s.sim->set_input(id, v);
      }, py::arg("input"), py::arg("value"))
      .def("input_value", [](const PySimulator& s, InputId id) {
        const SimulatorLock lock(s);
        return s.sim->input_value(id);
      })
      .def("output", [](const PySimulator& s, const std::string& name) {
        const SimulatorLock lock(s);
        return s.sim->output(name);
      })
      .def("value", [](const PySimulator& s, OutputId id) {
        const SimulatorLock lock(s);
        return s.sim->value(id);
      })
      .def("snapshot", [](PySimulator& s) {
        const SimulatorLock lock(s);
        return PySnapshot{s.sim->snapshot(), s.model.get()};
      })
      .def("restore", [](PySimulator& s, const PySnapshot& snap) {
        const SimulatorLock lock(s);
        if (snap.model != s.model.get())
          throw std::invalid_argument("restore: the snapshot was taken from a simulator of another model");
        s.sim->restore(snap.snapshot);
      });

  m.def("sweep", [](const PyModel* model, const std::string& path, const std::vector<std::string>& sets,
                    const std::vector<std::string>& metrics, long samples, long seed, int threads,
                    const py::object& progress) {
    return sweep(model, path, sets, metrics, samples, seed, threads, progress);
  }, py::arg("model"), py::arg("path"), py::arg("sets"), py::arg("metrics"), py::arg("samples"), py::arg("seed"),
        py::arg("threads"), py::arg("progress"));
}
