#pragma once
// ModelSpec -> YAML text in the schema io/yaml_model.hpp reads (README "Model
// files"), so that a reduced model can be written, read back and run. Numbers
// are written with 17 significant digits: the round trip is exact. Table
// signals are written inline (`points:`).
#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "io/atomic_file.hpp"

namespace luztar::io {

// `comment` lines are written first, each prefixed with "# ".
std::string to_yaml(const ModelSpec& spec, const std::vector<std::string>& comment = {});

// Writes atomically. Throws std::runtime_error.
void write_yaml(const std::string& path, const ModelSpec& spec, const std::vector<std::string>& comment = {});
// Writes into out's temporary file; the caller commits.
void write_yaml(AtomicOutput& out, const ModelSpec& spec, const std::vector<std::string>& comment = {});

}  // namespace luztar::io
