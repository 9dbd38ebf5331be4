#pragma once
// YAML model files -> ModelSpec / Model. The schema is documented in README.md
// ("Model files"). Every mistake is a luztar::ModelError whose message starts
// with "file:line:col: field.path: ", e.g.
//   models/x.yaml:12:16: elements.mesh.stiffness: must be >= 0 (got -3)
#include <map>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/model_spec.hpp"

namespace luztar::io {

// Reads a model file: its syntax, keys, types and names are checked here and
// every field's place recorded (ModelSpec::locations); the rules (ranges,
// references, reductions) are left to assemble(), which locates its errors
// through those places. For callers that change the spec before assembling it.
ModelSpec read_model_spec(const std::string& path);

// Reads a model file and checks every rule assemble() applies
// (validate_and_reduce): a spec it returns assembles.
ModelSpec load_model_spec(const std::string& path);
// Same, from text; `origin` names it in messages, `base_dir` resolves table files.
ModelSpec parse_model_spec(const std::string& text, const std::string& origin, const std::string& base_dir);

// A value put in place of a model field before the model is read (how a sweep
// varies a model). `path` is the field's dotted path in the file; inside a
// signal the kind may be left out ("signals.drive.amplitude" reaches
// signals.drive.sine.amplitude). `value` is YAML text (usually a number).
// `where` names the origin of the value in messages.
struct FieldOverride {
  std::string path;
  std::string value;
  std::string where;
};

// parse_model_spec with fields replaced. A path that names no field of the
// model (other than a missing optional last key) is a ModelError; a rule the
// new value breaks is reported at `where`.
ModelSpec parse_model_spec(const std::string& text, const std::string& origin, const std::string& base_dir,
                           const std::vector<FieldOverride>& overrides);

// The text of the files a model refers to (its table files), by the path the
// reader opens (the `file` of a table resolved against base_dir).
using InputFiles = std::map<std::string, std::string>;

// parse_model_spec reading the table files through a snapshot: a file `files`
// holds is read from it, any other from disk and then added to it. A sweep
// reads all its runs through one snapshot, so every run uses the same tables,
// the ones its fingerprint covers (apps/sweep/sweep_plan.hpp).
ModelSpec parse_model_spec(const std::string& text, const std::string& origin, const std::string& base_dir,
                           const std::vector<FieldOverride>& overrides, InputFiles& files);

// The value of the field at `path` (the syntax of FieldOverride::path) in a
// model's text after `overrides`, as YAML text: a scalar as written, a mapping
// or list in flow style. Only what the text says: a field left to its default
// is a ModelError (field = path, where = origin), as is a path through a value.
std::string field_value(const std::string& text, const std::string& origin, const std::string& path,
                        const std::vector<FieldOverride>& overrides = {});
// load_model_spec with fields replaced (`luztar run --set`): a rule the new
// value breaks is reported at the override's `where`.
ModelSpec load_model_spec(const std::string& path, const std::vector<FieldOverride>& overrides);
// read_model_spec and load_model_spec reading the table files through
// `files` (each file read is added to it: what the model reads, for the
// outputs to keep off, io/output_paths.hpp).
ModelSpec read_model_spec(const std::string& path, InputFiles& files);
ModelSpec load_model_spec(const std::string& path, const std::vector<FieldOverride>& overrides, InputFiles& files);

// read_model_spec + assemble (the rules checked once, by assemble()).
Model load_model(const std::string& path);
// The same with fields replaced (as parse_model; table files resolve against
// the file's folder).
Model load_model(const std::string& path, const std::vector<FieldOverride>& overrides);

// parse_model_spec + assemble, the rules checked once (by assemble()); a rule
// an overridden value breaks is reported at the override's `where`, as by
// parse_model_spec.
Model parse_model(const std::string& text, const std::string& origin, const std::string& base_dir,
                  const std::vector<FieldOverride>& overrides = {});
Model parse_model(const std::string& text, const std::string& origin, const std::string& base_dir,
                  const std::vector<FieldOverride>& overrides, InputFiles& files);

}  // namespace luztar::io
