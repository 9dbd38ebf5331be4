#pragma once
// Result -> CSV: one row per output sample. Columns: time, <body>.angle,
// <body>.velocity for each body, <element>.torque and <element>.state for each
// element, then input_work, kinetic, elastic, dissipated. Written atomically.
#include <string>

#include "core/result.hpp"

namespace luztar::io {

void write_csv(const std::string& path, const Result& r);

}  // namespace luztar::io
