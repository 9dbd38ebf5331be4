#pragma once
// Output paths checked against the files a run reads, before anything is
// written: an output that names the model or one of its table files would
// replace it (the outputs are committed by rename, io/atomic_file.hpp).
#include <string>
#include <vector>

#include "core/signal.hpp"

namespace luztar::io {

// Whether two paths name one file (also when one of them does not exist yet).
bool same_file(const std::string& a, const std::string& b);

// The table files `signals` read (Signal::table_file), their terms included.
std::vector<std::string> table_files(const std::vector<Signal>& signals);

// Throws std::runtime_error when `out` (the output of `option`, e.g. "--csv")
// names the model file or one of `tables`.
void require_not_an_input(const std::string& out, const std::string& option, const std::string& model_path,
                          const std::vector<std::string>& tables);

}  // namespace luztar::io
