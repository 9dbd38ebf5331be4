#include "io/sweep_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/hdf5_result.hpp"
#include "io/hdf5_util.hpp"
#include "core/units.hpp"
#include "luztar/version.hpp"

namespace luztar::io {

namespace {

using namespace h5;

const char* kFormat = "luztar sweep";
const char* kStatusCodes = "-1 pending, 0 ok, 1 event_limit, 2 event_storm, 3 solver_failure, 4 error";

const char* kind_name(SweepParameter::Kind k) {
  switch (k) {
    case SweepParameter::Kind::list: return "list";
    case SweepParameter::Kind::range: return "range";
    case SweepParameter::Kind::uniform: return "uniform";
    case SweepParameter::Kind::latin_hypercube: return "latin_hypercube";
  }
  return "?";
}

// A value as a number in SI: plain, or with a unit of the dimension (core/units.hpp).
bool as_number(const std::string& s, Dimension dim, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  if (*end == '\0') return true;
  std::string error;
  return to_si(s, dim, v, error) && error.empty();
}

std::string run_group(std::size_t index, std::size_t runs) {
  std::string digits = std::to_string(index);
  const std::size_t width = std::to_string(runs > 0 ? runs - 1 : 0).size();
  return "run_" + std::string(width > digits.size() ? width - digits.size() : 0, '0') + digits;
}

// Writes element `index` of the 1-D dataset `name`.
void write_element(hid_t file, const std::string& name, std::size_t index, hid_t mem_type, const void* value) {
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, name.c_str());
  Handle space(H5Dget_space(d), H5Sclose, "dataspace");
  const hsize_t start[1] = {index}, count[1] = {1};
  check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr), name);
  Handle mem(H5Screate_simple(1, count, nullptr), H5Sclose, "dataspace");
  check(H5Dwrite(d, mem_type, mem, space, conversion_transfer(1), value), name);
}

void set_attribute(hid_t obj, const std::string& name, long value) {
  Handle a(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose, name.c_str());
  check(H5Awrite(a, H5T_NATIVE_LONG, &value), name);
}

}  // namespace

void create_sweep_file(const std::string& path, const SweepLayout& l) {
  AtomicOutput out(path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::size_t n = l.table.size();
  {
    Handle file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                ("file " + path).c_str());
    attribute(file, "format", std::string(kFormat));
    attribute(file, "luztar_version", std::string(kVersion));
    attribute(file, "runs", static_cast<long>(n));
    attribute(file, "runs_done", 0L);
    attribute(file, "fingerprint", l.fingerprint);
    {
      Handle m = group(file, "model");
      scalar_string(m, "text", l.model_text);
      attribute(m, "source_path", l.model_path);
    }
    {
      Handle s = group(file, "sweep");
      scalar_string(s, "description", l.description);
    }
    {
      Handle g = group(file, "inputs");
      std::vector<std::string> paths, digests;
      for (const InputDigest& in : l.inputs) {
        paths.push_back(in.path);
        digests.push_back(in.digest);
      }
      dataset(g, "path", paths);
      dataset(g, "digest", digests);
    }
    {
      Handle g = group(file, "parameters");
      for (std::size_t p = 0; p < l.parameters.size(); ++p) {
        std::vector<std::string> text(n);
        std::vector<double> num(n);
        bool numeric = true;
        const std::string& name = l.parameters[p].path;
        const Dimension dim = field_dimension(name);  // values with units are stored in SI
        for (std::size_t r = 0; r < n; ++r) {
          text[r] = l.table.values[r][p];
          numeric = numeric && as_number(text[r], dim, num[r]);
        }
        if (numeric) dataset(g, name, num.data(), n, dim == Dimension::plain ? unit::of_signal : si_unit(dim));
        else dataset(g, name, text);
        Handle d(H5Dopen2(g, name.c_str(), H5P_DEFAULT), H5Dclose, name.c_str());
        attribute(d, "kind", std::string(kind_name(l.parameters[p].kind)));
      }
    }
    {
      Handle g = group(file, "metrics");
      const std::vector<double> nan(n, std::numeric_limits<double>::quiet_NaN());
      for (const MetricSpec& m : l.metrics) {
        dataset(g, m.name, nan.data(), n, m.unit().c_str());
        Handle d(H5Dopen2(g, m.name.c_str(), H5P_DEFAULT), H5Dclose, m.name.c_str());
        attribute(d, "definition", m.describe());
      }
    }
    {
      Handle g = group(file, "runs");
      const std::vector<std::int8_t> pending(n, static_cast<std::int8_t>(RunStatus::pending));
      dataset(g, "status", pending.data(), n, unit::one);
      Handle d(H5Dopen2(g, "status", H5P_DEFAULT), H5Dclose, "status");
      attribute(d, "codes", std::string(kStatusCodes));
      dataset(g, "message", std::vector<std::string>(n));
      const std::vector<double> zero(n, 0.0);
      dataset(g, "wall_time", zero.data(), n, unit::time);
    }
    if (l.trajectories) Handle t = group(file, "trajectories");
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file");
  }
  out.commit();
}

void record_runs(const std::string& path, const std::vector<SweepRunResult>& runs) {
  if (runs.empty()) return;
  AtomicOutput out(path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code ec;
  std::filesystem::copy_file(path, out.temp_path(), std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw std::runtime_error(path + ": cannot copy the sweep file for an update: " + ec.message());
  {
    Handle file(H5Fopen(out.temp_path().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, ("file " + path).c_str());
    long total = 0, done = 0;
    {
      Handle a(H5Aopen(file, "runs", H5P_DEFAULT), H5Aclose, "runs");
      check(H5Aread(a, H5T_NATIVE_LONG, &total), "runs");
      Handle b(H5Aopen(file, "runs_done", H5P_DEFAULT), H5Aclose, "runs_done");
      check(H5Aread(b, H5T_NATIVE_LONG, &done), "runs_done");
    }
    std::vector<std::string> metric_names;
    {
      Handle g(H5Gopen2(file, "metrics", H5P_DEFAULT), H5Gclose, "metrics");
      metric_names = children(g);
    }
    Handle string_t = string_type();
    for (const SweepRunResult& r : runs) {
      if (r.index >= static_cast<std::size_t>(total)) throw std::runtime_error(path + ": run index out of range");
      if (r.metrics.size() != metric_names.size())
        throw std::runtime_error(path + ": a run has " + std::to_string(r.metrics.size()) + " metrics, the file " +
                                 std::to_string(metric_names.size()));
      for (std::size_t m = 0; m < metric_names.size(); ++m)
        write_element(file, "metrics/" + metric_names[m], r.index, H5T_NATIVE_DOUBLE, &r.metrics[m]);
      const std::int8_t status = static_cast<std::int8_t>(r.status);
      write_element(file, "runs/status", r.index, H5T_NATIVE_INT8, &status);
      write_element(file, "runs/wall_time", r.index, H5T_NATIVE_DOUBLE, &r.wall_time);
      const char* msg = r.message.c_str();
      write_element(file, "runs/message", r.index, string_t, &msg);
      if (r.has_trajectory) {
        Handle t(H5Gopen2(file, "trajectories", H5P_DEFAULT), H5Gclose, "trajectories");
        const std::string name = run_group(r.index, static_cast<std::size_t>(total));
        if (H5Lexists(t, name.c_str(), H5P_DEFAULT) > 0) check(H5Ldelete(t, name.c_str(), H5P_DEFAULT), name);
        Handle g = group(t, name);
        write_result_data(g, r.trajectory, /*compress=*/true);
      }
      ++done;
    }
    set_attribute(file, "runs_done", done);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file");
  }
  out.commit();
}

SweepFileContents read_sweep_file(const std::string& path) {
  const File f(path);
  std::string format;
  try {
    format = f.string_attribute("/", "format");
  } catch (const std::runtime_error&) {
  }
  if (format != kFormat) throw std::runtime_error(path + ": not a luztar sweep file");
  SweepFileContents c;
  c.fingerprint = f.string_attribute("/", "fingerprint");
  c.luztar_version = f.string_attribute("/", "luztar_version");
  c.runs_done = f.numeric_attribute<long>("/", "runs_done", H5T_NATIVE_LONG);
  c.model_text = f.strings("model/text").front();
  c.description = f.strings("sweep/description").front();
  if (f.has("inputs")) {
    const std::vector<std::string> paths = f.strings("inputs/path"), digests = f.strings("inputs/digest");
    for (std::size_t i = 0; i < paths.size() && i < digests.size(); ++i) c.inputs.push_back({paths[i], digests[i]});
  }
  for (const std::int8_t s : f.bytes("runs/status")) c.status.push_back(static_cast<RunStatus>(s));
  c.message = f.strings("runs/message");
  c.wall_time = f.doubles("runs/wall_time");
  c.parameter_paths = f.children("parameters");
  for (const std::string& p : c.parameter_paths) {
    const std::string name = "parameters/" + p;
    std::vector<std::string> values;
    try {
      for (const double v : f.doubles(name)) values.push_back(format_value(v));
    } catch (const std::runtime_error&) {
      values = f.strings(name);
    }
    c.parameter_values.push_back(values);
  }
  c.metric_names = f.children("metrics");
  for (const std::string& m : c.metric_names) c.metrics.push_back(f.doubles("metrics/" + m));
  return c;
}

Result read_sweep_trajectory(const std::string& path, std::size_t index) {
  const File f(path);
  const std::size_t total = static_cast<std::size_t>(f.numeric_attribute<long>("/", "runs", H5T_NATIVE_LONG));
  return read_result_data(f, "trajectories/" + run_group(index, total) + "/");
}

}  // namespace luztar::io
