#pragma once
// What every YAML reader in io/ shares (io-private: includes yaml-cpp): the
// text is checked and parsed here, and keys are read here, so that every
// problem yaml-cpp can raise comes out as a luztar::ModelError located as
// "file:line:col" with the field's dotted path.
#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"

namespace luztar::io {

// "origin:line:col" of a mark (1-based); "origin:1:1" when yaml-cpp gives no
// mark; `origin` alone when it names no file (a command-line option, "--...").
std::string location(const std::string& origin, const YAML::Mark& m);

// Parses YAML text (the first document). Rejects, located: bytes that are not
// UTF-8 text (a NUL or an invalid sequence: a binary file), an empty document
// ("the file is empty", `what` names it), syntax errors ("YAML syntax error:
// ..."), nesting deeper than yaml-cpp's parser takes (a recursion depth of
// 2000, which yaml-cpp itself calls "bad file"), and an alias inside the node
// its anchor names (`s: &a {sum: [*a]}`: a tree containing itself, which every
// reader walking it would follow without end).
YAML::Node parse_yaml(const std::string& text, const std::string& origin, const char* what);

// Whether the keys of a mapping are declared names (bodies, elements, ...).
struct Names {
  bool declared;
};

// Calls each(key, key_node, value) for every entry of the mapping `map`
// (`field` is its dotted path). A key that is not a plain scalar (a list or a
// mapping used as a key) and a key given twice are located errors ("key 'k'
// appears twice"; with `names`, a mapping of declared names: "the name 'k' is
// used twice").
template <class F>
void for_each_entry(const YAML::Node& map, const std::string& field, const std::string& origin, F&& each);
template <class F>
void for_each_entry(const YAML::Node& map, const std::string& field, const std::string& origin, Names names, F&& each);

// Turns any yaml-cpp exception escaping `f` (a bad conversion, an invalid
// node) into a ModelError at its mark: a backstop under the readers' own checks.
template <class F>
auto yaml_guard(const std::string& origin, F&& f) -> decltype(f());

// ---------------------------------------------------------------------------

std::string key_of(const YAML::Node& key, const std::string& field, const std::string& origin);

template <class F>
void for_each_entry(const YAML::Node& map, const std::string& field, const std::string& origin, F&& each) {
  for_each_entry(map, field, origin, Names{false}, std::forward<F>(each));
}

template <class F>
void for_each_entry(const YAML::Node& map, const std::string& field, const std::string& origin, Names names, F&& each) {
  std::vector<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = key_of(kv.first, field, origin);
    for (const std::string& s : seen)
      if (s == key)
        throw ModelError(field.empty() ? key : field + "." + key,
                         names.declared ? "the name '" + key + "' is used twice" : "key '" + key + "' appears twice",
                         location(origin, kv.first.Mark()));
    seen.push_back(key);
    each(key, kv.first, kv.second);
  }
}

template <class F>
auto yaml_guard(const std::string& origin, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const YAML::Exception& e) {
    throw ModelError("", e.msg.empty() ? std::string("malformed YAML") : e.msg, location(origin, e.mark));
  }
}

}  // namespace luztar::io
