#pragma once
// Groups of equally long named columns with scalar attributes -> one HDF5
// file (e.g. the cases of the steering weave example):
//   /                 attrs: the file's text attributes
//   /<group>/<column> (n) float64, attr units
//   /<group>          attrs: the group's numbers and texts
// Written atomically (temporary file, then rename).
#include <string>
#include <utility>
#include <vector>

namespace luztar::io {

struct Hdf5Column {
  std::string name;
  std::vector<double> values;
  std::string units;  // SI unit ("rad", "m/s^2", "1")
};

struct Hdf5Group {
  std::string name;
  std::vector<Hdf5Column> columns;
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::string>> texts;
};

void write_hdf5_groups(const std::string& path, const std::vector<std::pair<std::string, std::string>>& root_texts,
                       const std::vector<Hdf5Group>& groups);

}  // namespace luztar::io
