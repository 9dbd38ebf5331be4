#include "io/hdf5_reader.hpp"

#include <hdf5.h>

#include <stdexcept>
#include <vector>

namespace luztar::io {

namespace {

struct Closer {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Closer() {
    if (id >= 0) close(id);
  }
};

class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id_ < 0) throw std::runtime_error(path + ": not a readable HDF5 file");
  }
  ~File() { H5Fclose(id_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  hid_t open(const std::string& name) const {
    const hid_t d = H5Dopen2(id_, name.c_str(), H5P_DEFAULT);
    if (d < 0) throw std::runtime_error(path_ + ": missing dataset " + name);
    return d;
  }
  std::size_t length(hid_t d) const {
    Closer space{H5Dget_space(d), H5Sclose};
    hsize_t dims[1] = {0};
    H5Sget_simple_extent_dims(space.id, dims, nullptr);
    return static_cast<std::size_t>(dims[0]);
  }
  std::vector<double> doubles(const std::string& name) const {
    Closer d{open(name), H5Dclose};
    std::vector<double> v(length(d.id));
    if (!v.empty() && H5Dread(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
      throw std::runtime_error(path_ + ": cannot read " + name);
    return v;
  }
  std::vector<std::int8_t> bytes(const std::string& name) const {
    Closer d{open(name), H5Dclose};
    std::vector<std::int8_t> v(length(d.id));
    if (!v.empty() && H5Dread(d.id, H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
      throw std::runtime_error(path_ + ": cannot read " + name);
    return v;
  }
  std::vector<std::string> strings(const std::string& name) const {
    Closer d{open(name), H5Dclose};
    Closer type{H5Dget_type(d.id), H5Tclose};
    Closer space{H5Dget_space(d.id), H5Sclose};
    const std::size_t n = H5Sget_simple_extent_ndims(space.id) == 0 ? 1 : length(d.id);
    std::vector<char*> raw(n, nullptr);
    std::vector<std::string> out;
    if (n && H5Dread(d.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0)
      throw std::runtime_error(path_ + ": cannot read " + name);
    for (char* p : raw) out.emplace_back(p ? p : "");
    if (n) H5Dvlen_reclaim(type.id, space.id, H5P_DEFAULT, raw.data());
    return out;
  }
  std::vector<std::string> children(const std::string& group) const {
    std::vector<std::string> names;
    Closer g{H5Gopen2(id_, group.c_str(), H5P_DEFAULT), H5Gclose};
    if (g.id < 0) throw std::runtime_error(path_ + ": missing group " + group);
    H5Literate(g.id, H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, collect, &names);
    if (names.empty()) H5Literate(g.id, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names);
    return names;
  }
  std::string string_attribute(const std::string& object, const std::string& name) const {
    Closer a{H5Aopen_by_name(id_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    if (a.id < 0) throw std::runtime_error(path_ + ": missing attribute " + object + "@" + name);
    Closer type{H5Aget_type(a.id), H5Tclose};
    char* p = nullptr;
    H5Aread(a.id, type.id, &p);
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  template <class T>
  T numeric_attribute(const std::string& object, const std::string& name, hid_t mem_type) const {
    Closer a{H5Aopen_by_name(id_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    if (a.id < 0) throw std::runtime_error(path_ + ": missing attribute " + object + "@" + name);
    T v{};
    H5Aread(a.id, mem_type, &v);
    return v;
  }

 private:
  static herr_t collect(hid_t, const char* name, const H5L_info_t*, void* data) {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  }
  std::string path_;
  hid_t id_ = -1;
};

}  // namespace

StoredRun read_hdf5(const std::string& path) {
  File f(path);
  StoredRun run;
  Result& r = run.result;
  r.time = f.doubles("time");
  const std::size_t nt = r.time.size();
  r.body_names = f.children("bodies");
  r.element_names = f.children("elements");
  const int nb = r.num_bodies(), ne = r.num_elements();
  r.angle.resize(nt * nb);
  r.velocity.resize(nt * nb);
  for (int j = 0; j < nb; ++j) {
    const auto a = f.doubles("bodies/" + r.body_names[j] + "/angle");
    const auto v = f.doubles("bodies/" + r.body_names[j] + "/velocity");
    for (std::size_t k = 0; k < nt; ++k) {
      r.angle[k * nb + j] = a[k];
      r.velocity[k * nb + j] = v[k];
    }
  }
  r.element_torque.resize(nt * ne);
  r.element_state.resize(nt * ne);
  for (int e = 0; e < ne; ++e) {
    const std::string g = "elements/" + r.element_names[e];
    r.element_kinds.push_back(f.string_attribute(g, "kind"));
    r.time_stuck.push_back(f.numeric_attribute<double>(g, "time_stuck", H5T_NATIVE_DOUBLE));
    const auto T = f.doubles(g + "/torque");
    const auto S = f.bytes(g + "/state");
    for (std::size_t k = 0; k < nt; ++k) {
      r.element_torque[k * ne + e] = T[k];
      r.element_state[k * ne + e] = S[k];
    }
  }
  r.input_work = f.doubles("energy/input_work");
  r.kinetic = f.doubles("energy/kinetic");
  r.elastic = f.doubles("energy/elastic");
  r.dissipated = f.doubles("energy/dissipated");
  const auto et = f.doubles("events/time");
  const auto el = f.strings("events/element");
  const auto ek = f.strings("events/kind");
  const auto eb = f.bytes("events/before");
  const auto ea = f.bytes("events/after");
  for (std::size_t i = 0; i < et.size(); ++i) {
    EventRecord ev;
    ev.t = et[i];
    for (int e = 0; e < ne; ++e)
      if (r.element_names[e] == el[i]) ev.element = e;
    for (int k = 0; k < kNumEventKinds; ++k)
      if (ek[i] == to_string(static_cast<EventKind>(k))) ev.kind = static_cast<EventKind>(k);
    ev.before = eb[i];
    ev.after = ea[i];
    r.events.push_back(ev);
  }
  const std::string status = f.string_attribute("/", "status");
  for (StepStatus s : {StepStatus::reached_time, StepStatus::event_limit, StepStatus::event_storm,
                       StepStatus::solver_failure})
    if (status == to_string(s)) r.status = s;
  r.message = f.string_attribute("/", "message");
  r.stats.steps = f.numeric_attribute<long>("run", "steps", H5T_NATIVE_LONG);
  r.stats.events = f.numeric_attribute<long>("run", "events", H5T_NATIVE_LONG);
  r.stats.wall_time = f.numeric_attribute<double>("run", "wall_time", H5T_NATIVE_DOUBLE);
  run.model_text = f.strings("model/text").front();
  run.luztar_version = f.string_attribute("/", "luztar_version");
  return run;
}

}  // namespace luztar::io
