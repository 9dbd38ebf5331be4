#pragma once
// YAML text -> tree, for the model and sweep readers (io-internal: includes
// yaml-cpp, not installed). Only the first document is read.
#include <yaml-cpp/yaml.h>

#include <string>

namespace luztar::io {

// Parses `text`. Every failure is a ModelError located "origin:line:col":
//  - a YAML syntax error ("YAML syntax error: <yaml-cpp's text>");
//  - nesting deeper than yaml-cpp's parser takes (a recursion depth of 2000,
//    some 700 levels of `[`), which yaml-cpp itself calls "bad file";
//  - an alias inside the node its anchor names (`s: &a {sum: [*a]}`): the tree
//    would contain itself, and every reader walking it would recurse without end.
YAML::Node load_yaml_text(const std::string& text, const std::string& origin);

}  // namespace luztar::io
