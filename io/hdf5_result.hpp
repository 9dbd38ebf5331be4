#pragma once
// The trajectory part of a result file (time, bodies, elements, energy, events,
// status attributes) at any place in an HDF5 file: the root of a run file, or
// /trajectories/run_<i>/ of a sweep file. Internal to io/.
#include <string>

#include "core/result.hpp"
#include "io/hdf5_util.hpp"

namespace luztar::io {

// Writes into the file or group `where` (layout in io/hdf5_writer.hpp);
// `compress`: chunked, shuffled and deflated datasets.
void write_result_data(hid_t where, const Result& r, bool compress = false);
// Reads what write_result_data wrote under `prefix` ("" or "group/path/").
Result read_result_data(const h5::File& f, const std::string& prefix);

}  // namespace luztar::io
