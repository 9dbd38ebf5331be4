#pragma once
// Result -> CSV: one row per output sample. Columns: time, <body>.angle,
// <body>.velocity for each body, <element>.torque and <element>.state for each
// element, the sampled blocks' held outputs, then input_work, kinetic, elastic,
// dissipated. Each header names its unit, "time [s]", "disk.angle [rad]",
// "mesh.state [1]" (core/units.hpp); numbers are the shortest text that reads
// back to the stored double. Written atomically.
#include <string>

#include "core/result.hpp"
#include "io/atomic_file.hpp"

namespace luztar::io {

void write_csv(const std::string& path, const Result& r);
// Writes into out's temporary file; the caller commits.
void write_csv(AtomicOutput& out, const Result& r);

}  // namespace luztar::io
