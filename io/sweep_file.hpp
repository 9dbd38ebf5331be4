#pragma once
// The HDF5 file of a parameter sweep. Layout (N = number of runs, one row per run):
//
//   /                      attrs format = "luztar sweep", luztar_version, runs (N),
//                          runs_done, fingerprint (identifies the sweep for --resume)
//   /model/text            scalar string: the model file; attr source_path
//   /sweep/description     scalar string: the sweep as run (parameters, metrics)
//   /inputs/path, digest   (F) strings: the table files the model reads, by path
//                          relative to the model's folder, and their contents'
//                          FNV-1a hashes (part of the fingerprint; names what changed)
//   /parameters/<path>     (N) float64 when every value is a number, else string;
//                          attr kind (list | range | uniform | latin_hypercube)
//   /metrics/<name>        (N) float64; NaN while pending and for runs that did not
//                          reach t_end; attrs definition, unit
//   /runs/status           (N) int8: -1 pending, 0 ok, 1 event_limit, 2 event_storm,
//                          3 solver_failure, 4 error (attr codes spells this out)
//   /runs/message          (N) string: why a run did not finish ("" when ok)
//   /runs/wall_time        (N) float64 [s]
//   /trajectories/run_<i>  only with trajectories: the layout of a run file's root
//                          (time, bodies, elements, energy, events), chunked and
//                          compressed (shuffle + deflate); <i> zero-padded
//
// Every update writes a copy and renames it over the file, so the file on disk
// is always complete and readable, whenever the writer is killed.
#include <string>
#include <vector>

#include "core/sweep_spec.hpp"

namespace luztar::io {

// A file the model reads, by path (relative to the model's folder), and the
// 64-bit FNV-1a hash of its contents in hex.
struct InputDigest {
  std::string path, digest;
  bool operator==(const InputDigest&) const = default;
};

struct SweepLayout {
  std::string model_path, model_text, description, fingerprint;
  std::vector<InputDigest> inputs;
  std::vector<SweepParameter> parameters;
  RunTable table;
  std::vector<MetricSpec> metrics;
  bool trajectories = false;
};

// Writes a new file with every run pending (atomically; throws std::runtime_error).
void create_sweep_file(const std::string& path, const SweepLayout& layout);

// Stores finished runs (atomically: copy, update, rename).
void record_runs(const std::string& path, const std::vector<SweepRunResult>& runs);

struct SweepFileContents {
  std::string fingerprint, model_text, description, luztar_version;
  std::vector<InputDigest> inputs;  // empty in files written before luztar stored them
  std::vector<std::string> parameter_paths;
  std::vector<std::vector<std::string>> parameter_values;  // [parameter][run]
  std::vector<std::string> metric_names;
  std::vector<std::vector<double>> metrics;  // [metric][run]
  std::vector<RunStatus> status;
  std::vector<std::string> message;
  std::vector<double> wall_time;
  long runs_done = 0;
  std::size_t runs() const { return status.size(); }
};

// Throws std::runtime_error when `path` is not a readable sweep file.
SweepFileContents read_sweep_file(const std::string& path);
// The stored trajectories of run `index` (throws when absent).
Result read_sweep_trajectory(const std::string& path, std::size_t index);

}  // namespace luztar::io
