#pragma once
// Internal to io/: the paths of FieldOverride (io/yaml_model.hpp) into a
// model file's YAML tree (io/yaml_paths.cpp; field_value is there too).
#include <yaml-cpp/yaml.h>

#include <string>

#include "io/yaml_model.hpp"

namespace luztar::io::model_file {

// Puts o.value at o.path in the tree; returns the path as it is in the file
// (with the signal kind, if one was skipped). A path that names no field (other
// than a missing optional last key) or a value that is not YAML is a
// ModelError at o.where.
std::string apply_override(YAML::Node root, const FieldOverride& o);

}  // namespace luztar::io::model_file
