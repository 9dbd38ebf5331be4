#include "io/hdf5_writer.hpp"

#include <hdf5.h>

#include <stdexcept>
#include <vector>

#include "core/signal_paths.hpp"
#include "core/units.hpp"
#include "luztar/version.hpp"
#include "io/atomic_file.hpp"
#include "io/hdf5_result.hpp"
#include "io/hdf5_util.hpp"

namespace luztar::io {

namespace {

using namespace h5;

std::vector<double> column(const std::vector<double>& m, int ncols, int j) {
  std::vector<double> c(m.size() / static_cast<std::size_t>(ncols));
  for (std::size_t k = 0; k < c.size(); ++k) c[k] = m[k * ncols + j];
  return c;
}

std::vector<std::int8_t> column(const std::vector<std::int8_t>& m, int ncols, int j) {
  std::vector<std::int8_t> c(m.size() / static_cast<std::size_t>(ncols));
  for (std::size_t k = 0; k < c.size(); ++k) c[k] = m[k * ncols + j];
  return c;
}

// Owner j's quantities of `table` as datasets of `g` (n owners); a quantity the
// Result lacks (read from an older file) is left out, as in that file.
// `translational`: Result::body_translational or element_translational (the units of the owner's kind).
template <std::size_t N>
void write_quantities(hid_t g, const Result& r, const OwnerQuantity (&table)[N], int n, int j, hid_t samples,
                      const std::vector<std::uint8_t>& translational) {
  for (const OwnerQuantity& q : table) {
    if (!q.values || (r.*(q.values)).size() != r.time.size() * static_cast<std::size_t>(n)) continue;
    const auto values = column(r.*(q.values), n, j);
    dataset(g, q.name, values.data(), values.size(), Result::of_kind(translational, j, q.unit), samples);
  }
}

}  // namespace

void write_result_data(hid_t file, const Result& r, bool compress) {
  attribute(file, "status", std::string(to_string(r.status)));
  attribute(file, "message", r.message);
  const std::size_t nt = r.time.size();
  const Handle samples = storage(nt, compress), per_event = storage(r.events.size(), compress);
  dataset(file, "time", r.time.data(), nt, unit::time, samples);
  {
    Handle bodies = group(file, "bodies");
    for (int j = 0; j < r.num_bodies(); ++j) {
      Handle b = group(bodies, r.body_names[j]);
      write_quantities(b, r, kBodyQuantities, r.num_bodies(), j, samples, r.body_translational);
    }
  }
  {
    Handle elements = group(file, "elements");
    for (int e = 0; e < r.num_elements(); ++e) {
      Handle g = group(elements, r.element_names[e]);
      attribute(g, "kind", r.element_kinds[e]);
      attribute(g, "time_stuck", r.time_stuck.empty() ? 0.0 : r.time_stuck[e]);
      const auto state = column(r.element_state, r.num_elements(), e);
      write_quantities(g, r, kElementQuantities, r.num_elements(), e, samples, r.element_translational);
      dataset(g, "state", state.data(), state.size(), unit::one, samples);
    }
  }
  {
    Handle blocks = group(file, "blocks");
    for (int b = 0; b < r.num_blocks(); ++b) {
      const auto held = column(r.block_output, r.num_blocks(), b);
      dataset(blocks, r.block_names[b], held.data(), held.size(), r.block_unit(b), samples);
    }
  }
  {
    Handle energy = group(file, "energy");
    dataset(energy, "input_work", r.input_work.data(), nt, unit::energy, samples);
    dataset(energy, "kinetic", r.kinetic.data(), nt, unit::energy, samples);
    dataset(energy, "elastic", r.elastic.data(), nt, unit::energy, samples);
    dataset(energy, "dissipated", r.dissipated.data(), nt, unit::energy, samples);
  }
  {
    Handle events = group(file, "events");
    std::vector<double> t;
    std::vector<std::string> element, kind;
    std::vector<std::int8_t> before, after;
    std::vector<double> rate;
    for (const EventRecord& ev : r.events) {
      t.push_back(ev.t);
      rate.push_back(ev.rate);
      element.push_back(r.element_names[ev.element]);
      kind.push_back(to_string(ev.kind));
      before.push_back(ev.before);
      after.push_back(ev.after);
    }
    dataset(events, "time", t.data(), t.size(), unit::time, per_event);
    dataset(events, "element", element);
    dataset(events, "kind", kind);
    dataset(events, "before", before.data(), before.size(), unit::one, per_event);
    dataset(events, "after", after.data(), after.size(), unit::one, per_event);
    dataset(events, "relative_velocity", rate.data(), rate.size(), unit::velocity, per_event);
  }
}

namespace {

void write_contents(hid_t file, const Model& model, const SimulationSettings& s, const Result& r,
                    const std::vector<std::string>& overrides) {
  attribute(file, "luztar_version", std::string(kVersion));
  attribute(file, "model_name", model.name);
  write_result_data(file, r);
  {
    Handle m = group(file, "model");
    scalar_string(m, "text", model.source_text);
    dataset(m, "reductions", model.reductions);
    dataset(m, "overrides", overrides);
    attribute(m, "source_path", model.source_path);
  }
  {
    Handle run = group(file, "run");
    attribute(run, "t_start", s.t_start);
    attribute(run, "t_end", s.t_end);
    attribute(run, "output_step", s.output_step);
    attribute(run, "rtol", s.rtol);
    attribute(run, "atol", s.atol);
    attribute(run, "max_step", s.max_step);
    attribute(run, "rest_velocity", s.rest_velocity);
    attribute(run, "linear_solver", s.linear_solver);
    attribute(run, "integrator", r.integrator);
    if (!r.integrator_note.empty()) attribute(run, "integrator_note", r.integrator_note);
    attribute(run, "solver", s.solver);
    attribute(run, "step", s.step);
    attribute(run, "theta", s.theta);
    attribute(run, "steps", r.stats.steps);
    attribute(run, "rhs_evals", r.stats.rhs_evals);
    attribute(run, "jac_evals", r.stats.jac_evals);
    attribute(run, "root_evals", r.stats.root_evals);
    attribute(run, "nonlinear_iters", r.stats.nonlinear_iters);
    attribute(run, "error_test_fails", r.stats.error_test_fails);
    attribute(run, "events", r.stats.events);
    attribute(run, "reinits", r.stats.reinits);
    attribute(run, "redundant_splits", r.stats.redundant_splits);
    attribute(run, "velocity_projection_loss", r.stats.velocity_projection_loss);
    attribute(run, "lcp_not_converged", r.stats.lcp_not_converged);
    attribute(run, "impacts", r.stats.impacts);
    attribute(run, "impact_loss", r.stats.impact_loss);
    attribute(run, "missed_strikes", r.stats.missed_strikes);
    attribute(run, "input_restarts", r.stats.input_restarts);
    attribute(run, "selection_fallbacks", r.stats.selection_fallbacks);
    attribute(run, "selection_unsolved", r.stats.selection_unsolved);
    attribute(run, "impact_fallbacks", r.stats.impact_fallbacks);
    attribute(run, "impacts_unsolved", r.stats.impacts_unsolved);
    attribute(run, "energy_residual", r.stats.energy_residual);
    attribute(run, "energy_residual_exceeded", static_cast<long>(r.stats.energy_residual_exceeded));
    attribute(run, "wall_time", r.stats.wall_time);
  }
}

}  // namespace

void write_hdf5(AtomicOutput& out, const Model& model, const SimulationSettings& settings, const Result& r,
                const std::vector<std::string>& overrides) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors come back as exceptions, not printed
  Handle file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
              ("file " + out.path()).c_str());
  write_contents(file, model, settings, r, overrides);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file");
}

void write_hdf5(const std::string& path, const Model& model, const SimulationSettings& settings, const Result& r) {
  AtomicOutput out(path);
  write_hdf5(out, model, settings, r);
  out.commit();
}

}  // namespace luztar::io
