#include "io/hdf5_tables.hpp"

#include "io/atomic_file.hpp"
#include "io/hdf5_util.hpp"

namespace luztar::io {

void write_hdf5_groups(const std::string& path, const std::vector<std::pair<std::string, std::string>>& root_texts,
                       const std::vector<Hdf5Group>& groups) {
  using namespace h5;
  AtomicOutput out(path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    Handle file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                ("file " + path).c_str());
    for (const auto& [k, v] : root_texts) attribute(file, k, v);
    for (const Hdf5Group& g : groups) {
      Handle h = group(file, g.name);
      for (const Hdf5Column& c : g.columns) dataset(h, c.name, c.values.data(), c.values.size(), c.units.c_str());
      for (const auto& [k, v] : g.numbers) attribute(h, k, v);
      for (const auto& [k, v] : g.texts) attribute(h, k, v);
    }
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file");
  }
  out.commit();
}

}  // namespace luztar::io
