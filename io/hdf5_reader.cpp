#include "io/hdf5_reader.hpp"

#include <hdf5.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "core/signal_paths.hpp"
#include "core/units.hpp"
#include "io/hdf5_result.hpp"
#include "io/hdf5_util.hpp"

namespace luztar::io {

using h5::File;

namespace {

// The quantities of `table` for every owner (nt x owners each, time-major). A
// quantity some owner lacks (a file written before luztar stored it: only
// angle, velocity, torque and state are in every file) stays empty, unless it
// is one of those, which are required.
template <std::size_t N>
void read_owner_quantities(const File& f, const std::string& group, const std::vector<std::string>& owners,
                           const OwnerQuantity (&table)[N], std::size_t nt, Result& r) {
  const std::size_t n = owners.size();
  for (const OwnerQuantity& q : table) {
    if (!q.values) continue;  // the element state: bytes, read apart
    const bool required = q.kind == SignalPath::Kind::angle || q.kind == SignalPath::Kind::velocity ||
                          q.kind == SignalPath::Kind::torque;
    bool all = true;
    for (const std::string& o : owners) all = all && f.has(group + o + "/" + q.name);
    if (!all && !required) continue;
    std::vector<double>& values = r.*(q.values);
    values.resize(nt * n);
    for (std::size_t j = 0; j < n; ++j) {
      const auto column = f.doubles(group + owners[j] + "/" + q.name);
      for (std::size_t k = 0; k < nt; ++k) values[k * n + j] = column[k];
    }
  }
}

}  // namespace

Result read_result_data(const h5::File& f, const std::string& prefix) {
  const std::string& p = prefix;
  Result r;
  r.time = f.doubles(p + "time");
  const std::size_t nt = r.time.size();
  r.body_names = f.children(p + "bodies");
  r.element_names = f.children(p + "elements");
  const int ne = r.num_elements();
  read_owner_quantities(f, p + "bodies/", r.body_names, kBodyQuantities, nt, r);
  r.element_state.resize(nt * ne);
  for (int e = 0; e < ne; ++e) {
    const std::string g = p + "elements/" + r.element_names[e];
    r.element_kinds.push_back(f.string_attribute(g, "kind"));
    r.time_stuck.push_back(f.numeric_attribute<double>(g, "time_stuck", H5T_NATIVE_DOUBLE));
    const auto S = f.bytes(g + "/state");
    for (std::size_t k = 0; k < nt; ++k) r.element_state[k * ne + e] = S[k];
  }
  read_owner_quantities(f, p + "elements/", r.element_names, kElementQuantities, nt, r);
  // the owners' kinds from their units (a translational body's angle is in m, its element's torque in N)
  const auto translational = [&](const std::string& d) {
    return static_cast<std::uint8_t>(f.has_attribute(d, "units") && f.string_attribute(d, "units") == unit::position);
  };
  for (const std::string& b : r.body_names) r.body_translational.push_back(translational(p + "bodies/" + b + "/angle"));
  for (const std::string& e : r.element_names)
    r.element_translational.push_back(f.has_attribute(p + "elements/" + e + "/torque", "units") &&
                                      f.string_attribute(p + "elements/" + e + "/torque", "units") == unit::force);
  if (f.has(p + "blocks")) {  // files before sampled blocks have none
    r.block_names = f.children(p + "blocks");
    const int nsb = r.num_blocks();
    r.block_output.resize(nt * nsb);
    for (int b = 0; b < nsb; ++b) {
      const std::string d = p + "blocks/" + r.block_names[b];
      r.block_units.push_back(f.has_attribute(d, "units") ? f.string_attribute(d, "units") : unit::of_signal);
      const auto held = f.doubles(d);
      for (std::size_t k = 0; k < nt; ++k) r.block_output[k * nsb + b] = held[k];
    }
  }
  r.input_work = f.doubles(p + "energy/input_work");
  r.kinetic = f.doubles(p + "energy/kinetic");
  r.elastic = f.doubles(p + "energy/elastic");
  r.dissipated = f.doubles(p + "energy/dissipated");
  const auto et = f.doubles(p + "events/time");
  const auto el = f.strings(p + "events/element");
  const auto ek = f.strings(p + "events/kind");
  const auto eb = f.bytes(p + "events/before");
  const auto ea = f.bytes(p + "events/after");
  // files before luztar stored it have no relative velocity (NaN)
  const std::vector<double> rate =
      f.has(p + "events/relative_velocity") ? f.doubles(p + "events/relative_velocity") : std::vector<double>();
  for (std::size_t i = 0; i < et.size(); ++i) {
    EventRecord ev;
    ev.t = et[i];
    for (int e = 0; e < ne; ++e)
      if (r.element_names[e] == el[i]) ev.element = e;
    for (int k = 0; k < kNumEventKinds; ++k)
      if (ek[i] == to_string(static_cast<EventKind>(k))) ev.kind = static_cast<EventKind>(k);
    ev.before = eb[i];
    ev.after = ea[i];
    if (i < rate.size()) ev.rate = rate[i];
    r.events.push_back(ev);
  }
  const std::string root = p.empty() ? "/" : p;
  const std::string status = f.string_attribute(root, "status");
  for (StepStatus s : {StepStatus::reached_time, StepStatus::event_limit, StepStatus::event_storm,
                       StepStatus::solver_failure})
    if (status == to_string(s)) r.status = s;
  r.message = f.string_attribute(root, "message");
  return r;
}

void require_hdf5_file(const std::string& path) { const File f(path); }

StoredRun read_hdf5(const std::string& path) {
  File f(path);
  // a sweep file (io/sweep_file.cpp writes format = "luztar sweep") has no /time:
  // say what it is rather than "missing dataset time"
  if (f.has_attribute("/", "format") && !f.has("time"))
    throw std::runtime_error(path + ": a " + f.string_attribute("/", "format") +
                             " file, not the result of a run (luztar run writes those)");
  StoredRun run;
  run.result = read_result_data(f, "");
  Result& r = run.result;
  r.stats.steps = f.numeric_attribute<long>("run", "steps", H5T_NATIVE_LONG);
  r.stats.events = f.numeric_attribute<long>("run", "events", H5T_NATIVE_LONG);
  r.stats.wall_time = f.numeric_attribute<double>("run", "wall_time", H5T_NATIVE_DOUBLE);
  // The other statistics and the settings, where the file has them (older files: the defaults).
  using S = SimulationSettings;
  using P = std::pair<const char*, long RunStats::*>;
  for (auto [name, field] : {P{"rhs_evals", &RunStats::rhs_evals}, P{"jac_evals", &RunStats::jac_evals},
                             P{"root_evals", &RunStats::root_evals}, P{"nonlinear_iters", &RunStats::nonlinear_iters},
                             P{"error_test_fails", &RunStats::error_test_fails}, P{"reinits", &RunStats::reinits},
                             P{"redundant_splits", &RunStats::redundant_splits},
                             P{"lcp_not_converged", &RunStats::lcp_not_converged}, P{"impacts", &RunStats::impacts},
                             P{"missed_strikes", &RunStats::missed_strikes},
                             P{"input_restarts", &RunStats::input_restarts},
                             // the solver outcome counters (written since they were counted)
                             P{"selection_fallbacks", &RunStats::selection_fallbacks},
                             P{"selection_unsolved", &RunStats::selection_unsolved},
                             P{"impact_fallbacks", &RunStats::impact_fallbacks},
                             P{"impacts_unsolved", &RunStats::impacts_unsolved}})
    if (f.has_attribute("run", name)) r.stats.*field = f.numeric_attribute<long>("run", name, H5T_NATIVE_LONG);
  for (auto [name, field] : {std::pair{"velocity_projection_loss", &RunStats::velocity_projection_loss},
                             std::pair{"impact_loss", &RunStats::impact_loss}})
    if (f.has_attribute("run", name)) r.stats.*field = f.numeric_attribute<double>("run", name, H5T_NATIVE_DOUBLE);
  using Q = std::pair<const char*, double S::*>;
  for (auto [name, field] : {Q{"t_start", &S::t_start}, Q{"t_end", &S::t_end}, Q{"output_step", &S::output_step},
                             Q{"rtol", &S::rtol}, Q{"atol", &S::atol}, Q{"max_step", &S::max_step},
                             Q{"rest_velocity", &S::rest_velocity}, Q{"step", &S::step}, Q{"theta", &S::theta}})
    if (f.has_attribute("run", name)) run.settings.*field = f.numeric_attribute<double>("run", name, H5T_NATIVE_DOUBLE);
  for (auto [name, field] : {std::pair{"linear_solver", &S::linear_solver}, std::pair{"solver", &S::solver}})
    if (f.has_attribute("run", name)) run.settings.*field = f.string_attribute("run", name);
  if (f.has_attribute("/", "model_name")) run.model_name = f.string_attribute("/", "model_name");
  if (f.has_attribute("model", "source_path")) run.source_path = f.string_attribute("model", "source_path");
  if (f.has("model/reductions")) run.reductions = f.strings("model/reductions");
  if (f.has("model/overrides")) run.overrides = f.strings("model/overrides");
  if (f.has_attribute("run", "energy_residual")) {  // written since the energy check
    r.stats.energy_residual = f.numeric_attribute<double>("run", "energy_residual", H5T_NATIVE_DOUBLE);
    r.stats.energy_residual_exceeded =
        f.numeric_attribute<long>("run", "energy_residual_exceeded", H5T_NATIVE_LONG) != 0;
  }
  if (f.has_attribute("run", "integrator"))  // written since the integrator can be chosen
    r.integrator = f.string_attribute("run", "integrator");
  if (f.has_attribute("run", "integrator_note")) r.integrator_note = f.string_attribute("run", "integrator_note");
  run.model_text = f.strings("model/text").front();
  run.luztar_version = f.string_attribute("/", "luztar_version");
  run.units = f.dataset_units();
  return run;
}

}  // namespace luztar::io
