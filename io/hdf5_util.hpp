#pragma once
// Small RAII helpers over the HDF5 C API shared by the io writers and readers
// (internal to io/: other folders never see HDF5 types).
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace luztar::io::h5 {

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

inline void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot write " + what);
}

// Groups remember creation order so that readers list bodies and elements in model order.
inline Handle group(hid_t parent, const std::string& name) {
  Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "group properties");
  check(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), name);
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose, name.c_str());
}

// Dataset creation properties: contiguous, or (compress) chunked with shuffle +
// deflate, for large trajectories stored many times (sweeps).
inline Handle storage(std::size_t n, bool compress) {
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset properties");
  if (compress && n > 0) {
    const hsize_t chunk[1] = {std::min<hsize_t>(n, 16384)};
    check(H5Pset_chunk(dcpl, 1, chunk), "chunking");
    check(H5Pset_shuffle(dcpl), "shuffle filter");
    check(H5Pset_deflate(dcpl, 4), "deflate filter");
  }
  return dcpl;
}

// A 1-D dataset of n values in the file type, written from memory of the native
// type; returned open (for its attributes).
inline Handle numeric_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type,
                              const void* data, std::size_t n, hid_t dcpl) {
  const hsize_t dims[1] = {n};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle d(H5Dcreate2(parent, name.c_str(), file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose,
           name.c_str());
  if (n) check(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
  return d;
}

inline Handle dataset(hid_t parent, const std::string& name, const double* data, std::size_t n,
                      hid_t dcpl = H5P_DEFAULT) {
  return numeric_dataset(parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data, n, dcpl);
}

inline Handle dataset(hid_t parent, const std::string& name, const std::int8_t* data, std::size_t n,
                      hid_t dcpl = H5P_DEFAULT) {
  return numeric_dataset(parent, name, H5T_STD_I8LE, H5T_NATIVE_INT8, data, n, dcpl);
}

// A numeric dataset with its `units` attribute (core/units.hpp), as every
// numeric dataset luztar writes carries one.
template <class T>
void dataset(hid_t parent, const std::string& name, const T* data, std::size_t n, const char* units,
             hid_t dcpl = H5P_DEFAULT);

// Transfer properties for a write or read that converts (variable-length
// strings): HDF5's default conversion buffer is 1 MiB, allocated and zeroed at
// each such call and unmapped after it, which made the page faults of the
// string datasets a fifth of a small run's whole process. A buffer sized to the
// data (at most the default) converts the same in one pass.
inline Handle conversion_transfer(std::size_t elements) {
  Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "transfer properties");
  const std::size_t bytes = std::clamp<std::size_t>(elements * 64, 1024, std::size_t{1} << 20);
  check(H5Pset_buffer(dxpl, bytes, nullptr, nullptr), "transfer buffer");
  return dxpl;
}

inline Handle string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  check(H5Tset_size(t, H5T_VARIABLE), "string type");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "string type");
  return t;
}

inline void dataset(hid_t parent, const std::string& name, const std::vector<std::string>& strings) {
  std::vector<const char*> ptrs;
  for (const std::string& s : strings) ptrs.push_back(s.c_str());
  const hsize_t dims[1] = {strings.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  Handle type = string_type();
  Handle d(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, name.c_str());
  if (!ptrs.empty()) check(H5Dwrite(d, type, H5S_ALL, H5S_ALL, conversion_transfer(ptrs.size()), ptrs.data()), name);
}

inline void scalar_string(hid_t parent, const std::string& name, const std::string& value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle type = string_type();
  Handle d(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, name.c_str());
  const char* p = value.c_str();
  check(H5Dwrite(d, type, H5S_ALL, H5S_ALL, conversion_transfer(1), &p), name);
}

inline void attribute(hid_t obj, const std::string& name, double value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle a(H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name.c_str());
  check(H5Awrite(a, H5T_NATIVE_DOUBLE, &value), name);
}

inline void attribute(hid_t obj, const std::string& name, long value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle a(H5Acreate2(obj, name.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name.c_str());
  check(H5Awrite(a, H5T_NATIVE_LONG, &value), name);
}

inline void attribute(hid_t obj, const std::string& name, const std::string& value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle type = string_type();
  Handle a(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name.c_str());
  const char* p = value.c_str();
  check(H5Awrite(a, type, &p), name);
}


template <class T>
void dataset(hid_t parent, const std::string& name, const T* data, std::size_t n, const char* units, hid_t dcpl) {
  attribute(dataset(parent, name, data, n, dcpl), "units", std::string(units));
}


// Names of the links in an open group, in creation order when it is tracked.
inline std::vector<std::string> children(hid_t group) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  if (H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, collect, &names) < 0) {
    names.clear();
    H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names);
  }
  return names;
}

struct Closer {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Closer() {
    if (id >= 0) close(id);
  }
};

// Why HDF5 could not open path: the file system's reason when there is one
// (a missing file, a directory, no permission), else not HDF5.
inline std::string why_unreadable(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return "no such file";
  if (std::filesystem::is_directory(status)) return "is a directory, not a result file";
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) std::fclose(f);
  else return "cannot be read (permission denied?)";
  return "not a readable HDF5 file";
}

// Read access to an open file; every failure throws std::runtime_error naming the file.
class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id_ < 0) throw std::runtime_error(path + ": " + why_unreadable(path));
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
    if (n && H5Dread(d.id, type.id, H5S_ALL, H5S_ALL, conversion_transfer(n), raw.data()) < 0)
      throw std::runtime_error(path_ + ": cannot read " + name);
    for (char* p : raw) out.emplace_back(p ? p : "");
    if (n) H5Dvlen_reclaim(type.id, space.id, H5P_DEFAULT, raw.data());
    return out;
  }
  // The `units` attribute of every dataset in the file that has one, by path.
  std::map<std::string, std::string> dataset_units() const {
    struct Walk {
      const File* file;
      std::map<std::string, std::string> units;
    } walk{this, {}};
    auto visit = [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
      auto* w = static_cast<Walk*>(data);
      if (info->type == H5O_TYPE_DATASET && w->file->has_attribute(name, "units"))
        w->units[name] = w->file->string_attribute(name, "units");
      return 0;
    };
    if (H5Ovisit2(id_, H5_INDEX_NAME, H5_ITER_INC, visit, &walk, H5O_INFO_BASIC) < 0)
      throw std::runtime_error(path_ + ": cannot list the datasets");
    return walk.units;
  }
  bool has(const std::string& name) const { return H5Lexists(id_, name.c_str(), H5P_DEFAULT) > 0; }
  std::vector<std::string> children(const std::string& group) const {
    std::vector<std::string> names;
    Closer g{H5Gopen2(id_, group.c_str(), H5P_DEFAULT), H5Gclose};
    if (g.id < 0) throw std::runtime_error(path_ + ": missing group " + group);
    return h5::children(g.id);
  }
  bool has_attribute(const std::string& object, const std::string& name) const {
    return H5Aexists_by_name(id_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
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
  std::string path_;
  hid_t id_ = -1;
};

}  // namespace luztar::io::h5
