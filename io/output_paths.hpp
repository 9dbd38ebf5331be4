#pragma once
// Output paths checked against the files a run reads, before anything is
// written: an output that names the model or one of its table files would
// replace it (the outputs are committed by rename, io/atomic_file.hpp).
#include <string>

#include "io/yaml_model.hpp"

namespace luztar::io {

// Whether two paths name one file (also when one of them does not exist yet).
bool same_file(const std::string& a, const std::string& b);

// Throws std::runtime_error when `out` (the output of `option`, e.g. "--csv")
// names the model file or one of the table files it read (`tables`: the
// snapshot the reader filled, io/yaml_model.hpp).
void require_not_an_input(const std::string& out, const std::string& option, const std::string& model_path,
                          const InputFiles& tables);

}  // namespace luztar::io
