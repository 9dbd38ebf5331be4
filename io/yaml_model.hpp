#pragma once
// YAML model files -> ModelSpec / Model. The schema is documented in README.md
// ("Model files"). Every mistake is a luztar::ModelError whose message starts
// with "file:line:col: field.path: ", e.g.
//   models/x.yaml:12:16: elements.mesh.stiffness: must be >= 0 (got -3)
#include <string>

#include "core/model.hpp"
#include "core/model_spec.hpp"

namespace luztar::io {

// Reads and validates a model file.
ModelSpec load_model_spec(const std::string& path);
// Same, from text; `origin` names it in messages, `base_dir` resolves table files.
ModelSpec parse_model_spec(const std::string& text, const std::string& origin, const std::string& base_dir);

// load_model_spec + assemble.
Model load_model(const std::string& path);

}  // namespace luztar::io
