#pragma once
// Result -> HDF5 file. Layout (every dataset 1-D, nt = number of output samples):
//
//   /                          attrs luztar_version, model_name, status, message
//   /time                      (nt) float64 [s]
//   /bodies/<name>/angle       (nt) float64 [rad]
//   /bodies/<name>/velocity    (nt) float64 [rad/s]
//   /elements/<name>           group, attrs kind (spring|friction|torque), time_stuck [s]
//   /elements/<name>/torque    (nt) float64 [N m]  (sign conventions in core/result.hpp)
//   /elements/<name>/state     (nt) int8: friction -1 slip-, 0 stuck, +1 slip+;
//                              spring -1/0/+1 freeplay side; torque 0
//   /blocks/<name>             (nt) float64: held output of a sampled block of the
//                              control path (named signal, or the field of an inline one)
//   /energy/{input_work,kinetic,elastic,dissipated}   (nt) float64 [J]
//   /events/time (nev) float64, /events/element (nev) string, /events/kind (nev)
//   string, /events/before, /events/after (nev) int8
//   /model/text                scalar string: the model file
//   /model/overrides           (n) string: the fields replaced before it was read
//                              ("--set PATH=VALUE" of luztar run), none usually
//   every numeric dataset      attr units (core/units.hpp)
//   /run                       group, attrs: settings (t_start, t_end, output_step,
//                              rtol, atol), CVODE statistics and wall_time
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/result.hpp"
#include "io/atomic_file.hpp"

namespace luztar::io {

// Writes atomically (temporary file, then rename). Throws std::runtime_error.
void write_hdf5(const std::string& path, const Model& model, const SimulationSettings& settings, const Result& r);
// Writes into out's temporary file and leaves the commit to the caller, who may
// commit it together with other outputs of the same run.
// `overrides`: what replaced fields of the model file before it was read
// (stored in /model/overrides, so that the file says how to run it again).
void write_hdf5(AtomicOutput& out, const Model& model, const SimulationSettings& settings, const Result& r,
                const std::vector<std::string>& overrides = {});

}  // namespace luztar::io
