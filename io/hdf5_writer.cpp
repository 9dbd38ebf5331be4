#include "io/hdf5_writer.hpp"

#include <hdf5.h>

#include <stdexcept>
#include <vector>

#include "luztar/version.hpp"
#include "io/atomic_file.hpp"

namespace luztar::io {

namespace {

// Owns one HDF5 identifier.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const char* what) : id_(id), close_(close) {
    if (id_ < 0) throw std::runtime_error(std::string("HDF5: cannot create ") + what);
  }
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot write " + what);
}

// Groups remember creation order so that readers list bodies and elements in model order.
Handle group(hid_t parent, const std::string& name) {
  Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "group properties");
  check(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), name);
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose, name.c_str());
}

void dataset(hid_t parent, const std::string& name, const double* data, std::size_t n) {
  const hsize_t dims[1] = {n};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle d(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
           name.c_str());
  if (n) check(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
}

void dataset(hid_t parent, const std::string& name, const std::int8_t* data, std::size_t n) {
  const hsize_t dims[1] = {n};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle d(H5Dcreate2(parent, name.c_str(), H5T_STD_I8LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
           name.c_str());
  if (n) check(H5Dwrite(d, H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
}

Handle string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  check(H5Tset_size(t, H5T_VARIABLE), "string type");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "string type");
  return t;
}

void dataset(hid_t parent, const std::string& name, const std::vector<std::string>& strings) {
  std::vector<const char*> ptrs;
  for (const std::string& s : strings) ptrs.push_back(s.c_str());
  const hsize_t dims[1] = {strings.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle type = string_type();
  Handle d(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, name.c_str());
  if (!ptrs.empty()) check(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), name);
}

void scalar_string(hid_t parent, const std::string& name, const std::string& value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle type = string_type();
  Handle d(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, name.c_str());
  const char* p = value.c_str();
  check(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), name);
}

void attribute(hid_t obj, const std::string& name, double value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle a(H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name.c_str());
  check(H5Awrite(a, H5T_NATIVE_DOUBLE, &value), name);
}

void attribute(hid_t obj, const std::string& name, long value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle a(H5Acreate2(obj, name.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name.c_str());
  check(H5Awrite(a, H5T_NATIVE_LONG, &value), name);
}

void attribute(hid_t obj, const std::string& name, const std::string& value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle type = string_type();
  Handle a(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name.c_str());
  const char* p = value.c_str();
  check(H5Awrite(a, type, &p), name);
}

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

void write_contents(hid_t file, const Model& model, const SimulationSettings& s, const Result& r) {
  attribute(file, "luztar_version", std::string(kVersion));
  attribute(file, "model_name", model.name);
  attribute(file, "status", std::string(to_string(r.status)));
  attribute(file, "message", r.message);
  const std::size_t nt = r.time.size();
  dataset(file, "time", r.time.data(), nt);
  {
    Handle bodies = group(file, "bodies");
    for (int j = 0; j < r.num_bodies(); ++j) {
      Handle b = group(bodies, r.body_names[j]);
      const auto angle = column(r.angle, r.num_bodies(), j);
      const auto velocity = column(r.velocity, r.num_bodies(), j);
      dataset(b, "angle", angle.data(), angle.size());
      dataset(b, "velocity", velocity.data(), velocity.size());
    }
  }
  {
    Handle elements = group(file, "elements");
    for (int e = 0; e < r.num_elements(); ++e) {
      Handle g = group(elements, r.element_names[e]);
      attribute(g, "kind", r.element_kinds[e]);
      attribute(g, "time_stuck", r.time_stuck.empty() ? 0.0 : r.time_stuck[e]);
      const auto torque = column(r.element_torque, r.num_elements(), e);
      const auto state = column(r.element_state, r.num_elements(), e);
      dataset(g, "torque", torque.data(), torque.size());
      dataset(g, "state", state.data(), state.size());
    }
  }
  {
    Handle energy = group(file, "energy");
    dataset(energy, "input_work", r.input_work.data(), nt);
    dataset(energy, "kinetic", r.kinetic.data(), nt);
    dataset(energy, "elastic", r.elastic.data(), nt);
    dataset(energy, "dissipated", r.dissipated.data(), nt);
  }
  {
    Handle events = group(file, "events");
    std::vector<double> t;
    std::vector<std::string> element, kind;
    std::vector<std::int8_t> before, after;
    for (const EventRecord& ev : r.events) {
      t.push_back(ev.t);
      element.push_back(r.element_names[ev.element]);
      kind.push_back(to_string(ev.kind));
      before.push_back(ev.before);
      after.push_back(ev.after);
    }
    dataset(events, "time", t.data(), t.size());
    dataset(events, "element", element);
    dataset(events, "kind", kind);
    dataset(events, "before", before.data(), before.size());
    dataset(events, "after", after.data(), after.size());
  }
  {
    Handle m = group(file, "model");
    scalar_string(m, "text", model.source_text);
    dataset(m, "reductions", model.reductions);
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
    attribute(run, "linear_solver", s.linear_solver);
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
    attribute(run, "wall_time", r.stats.wall_time);
  }
}

}  // namespace

void write_hdf5(const std::string& path, const Model& model, const SimulationSettings& settings, const Result& r) {
  AtomicOutput out(path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors come back as exceptions, not printed
  {
    Handle file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                ("file " + path).c_str());
    write_contents(file, model, settings, r);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file");
  }
  out.commit();
}

}  // namespace luztar::io
