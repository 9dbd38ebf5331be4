// FieldOverride paths (io/yaml_model.hpp) in a model file's YAML tree: dotted
// names, a signal's kind that may be left out, the value put at a path
// (apply_override) or read from it (field_value).
#include "io/yaml_paths.hpp"

#include <vector>

#include "core/errors.hpp"
#include "io/yaml_source.hpp"

namespace luztar::io {

namespace model_file {

namespace {

bool is_signal_kind(const std::string& k) {
  for (const char* s : {"constant", "sine", "step", "ramp", "table", "dead_zone", "saturation", "hold", "play",
                        "saturated_integrator", "relay"})
    if (k == s) return true;
  return false;
}

// A signal written as {kind: {...}}: the mapping one level down.
bool signal_wrapper(const YAML::Node& n, std::string& kind) {
  if (!n.IsMap() || n.size() != 1) return false;
  if (!n.begin()->first.IsScalar()) return false;
  kind = n.begin()->first.Scalar();
  return is_signal_kind(kind) && n.begin()->second.IsMap();
}

std::string keys_of(const YAML::Node& map) {
  std::string s;
  for (const auto& kv : map) s += (s.empty() ? "" : ", ") + (kv.first.IsScalar() ? kv.first.Scalar() : "?");
  return s.empty() ? std::string("nothing") : s;
}

// The names of o.path (a FieldOverride's path syntax), each checked non-empty.
std::vector<std::string> path_parts(const FieldOverride& o) {
  auto fail = [&](const std::string& detail) -> void { throw ModelError(o.path, detail, o.where); };
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = o.path.find('.', start);
    parts.push_back(o.path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const std::string& p : parts)
    if (p.empty()) fail("a path is names joined by dots, e.g. elements.mesh.freeplay");
  return parts;
}

// Walks the tree along o.path as written (a signal's kind may be left out) and
// calls at_last(parent, key) for the last name; returns the path as it is in
// the file (with the signal kind, if one was skipped).
template <class F>
std::string walk_path(YAML::Node root, const FieldOverride& o, F&& at_last) {
  auto fail = [&](const std::string& detail) -> void { throw ModelError(o.path, detail, o.where); };
  const std::vector<std::string> parts = path_parts(o);
  YAML::Node cur = root;
  std::string resolved;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& key = parts[i];
    const std::string here = resolved.empty() ? "the model" : "'" + resolved + "'";
    if (cur.IsSequence())  // (it said "a single value" of a list: a new-user hunt)
      fail(here + " is a list; a path does not step into a list (set the whole list: '" + resolved + "=[...]')");
    if (!cur.IsMap()) fail(here + " is a single value; it has no field '" + key + "'");
    std::string kind;
    if (!static_cast<const YAML::Node&>(cur)[key] && signal_wrapper(cur, kind) && kind != key) {
      cur.reset(cur[kind]);  // step into the signal's parameters
      resolved += "." + kind;
    }
    const YAML::Node child = static_cast<const YAML::Node&>(cur)[key];
    resolved += (resolved.empty() ? "" : ".") + key;
    if (i + 1 == parts.size()) {
      at_last(cur, key);
      break;
    }
    if (!child) fail(here + " has no field '" + key + "' (it has: " + keys_of(cur) + ")");
    cur.reset(child);
  }
  return resolved;
}

}  // namespace

// Puts o.value at o.path in the tree; returns the path as it is in the file
// (with the signal kind, if one was skipped).
std::string apply_override(YAML::Node root, const FieldOverride& o) {
  auto fail = [&](const std::string& detail) -> void { throw ModelError(o.path, detail, o.where); };
  if (path_parts(o).front() == "sweep") fail("the sweep description itself cannot be swept");
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    fail("the value '" + o.value + "' is not valid YAML: " + e.msg);
  }
  if (!value || value.IsNull()) fail("the value is empty");
  // a missing optional key is added; the reader checks it is allowed
  return walk_path(root, o, [&](YAML::Node parent, const std::string& key) { parent[key] = value; });
}

}  // namespace model_file

std::string field_value(const std::string& text, const std::string& origin, const std::string& path,
                        const std::vector<FieldOverride>& overrides) {
  const YAML::Node root = parse_yaml(text, origin, "model file");
  for (const FieldOverride& o : overrides) {
    if (!root.IsMap()) throw ModelError("", "the model file is not a mapping", location(origin, root.Mark()));
    yaml_guard(origin, [&] { return model_file::apply_override(root, o); });
  }
  const FieldOverride at{path, "", origin};
  if (!root.IsMap()) throw ModelError("", "the model file is not a mapping", location(origin, root.Mark()));
  YAML::Node found;
  model_file::walk_path(root, at, [&](YAML::Node parent, const std::string& key) {
    const YAML::Node child = static_cast<const YAML::Node&>(parent)[key];
    if (!child) throw ModelError(path, "the model sets no field '" + key + "' here (it has: " + model_file::keys_of(parent) + ")", origin);
    found.reset(child);
  });
  if (found.IsScalar()) return found.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << found;
  return out.c_str();
}

}  // namespace luztar::io
