// The basics of the model reader (io/yaml_reader.hpp): where a node is,
// errors at it, keys, required fields, numbers with units, whole numbers,
// text, and the table files a model names.
#include "io/yaml_reader.hpp"

#include <filesystem>

#include "core/errors.hpp"
#include "io/yaml_source.hpp"

namespace luztar::io::model_file {

std::string Reader::where(const YAML::Mark& m) const { return location(origin_, m); }

void Reader::fail(const YAML::Node& n, const std::string& field, const std::string& detail) const {
  throw ModelError(field, detail, where(n.Mark()));
}

void Reader::remember(const std::string& field, const YAML::Node& n) { locations_[field] = where(n.Mark()); }

const YAML::Node& Reader::require_map(const YAML::Node& n, const std::string& field) const {
  if (!n.IsMap()) fail(n, field, std::string("expected a mapping of keys to values, got ") + kind(n));
  return n;
}

void Reader::check_keys(const YAML::Node& map, const std::string& field, const std::vector<const char*>& allowed) const {
  for_each_entry(map, field, origin_, [&](const std::string& key, const YAML::Node& k, const YAML::Node&) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      fail(k, field.empty() ? key : field + "." + key, "unknown key '" + key + "' (expected one of: " + list + ")");
    }
  });
}

YAML::Node Reader::required(const YAML::Node& map, const char* key, const std::string& field) const {
  const YAML::Node n = map[key];
  if (!n) fail(map, field, std::string("missing field '") + key + "'");
  return n;
}

double Reader::number(const YAML::Node& n, const std::string& field) { return number(n, field, field_dimension(field)); }

double Reader::number(const YAML::Node& n, const std::string& field, Dimension dim) {
  remember(field, n);
  if (!n.IsScalar()) fail(n, field, std::string("expected a number, got ") + kind(n));
  double v = 0.0;
  if (YAML::convert<double>::decode(n, v)) return v;
  std::string error;
  if (!to_si(n.Scalar(), in_context(dim), v, error)) fail(n, field, "expected a number, got '" + n.Scalar() + "'");
  if (!error.empty()) fail(n, field, unit_error(n.Scalar(), dim, error));
  return v;
}

std::string Reader::unit_error(const std::string& text, Dimension dim, const std::string& error) const {
  const Dimension own = in_context(dim);
  double v = 0.0;
  std::string rotational;
  if (own == dim || !to_si(text, dim, v, rotational) || !rotational.empty()) return error;
  // a unit of the rotational dimension (N m/rad on a translational spring)
  const std::size_t close = text.find_first_not_of(" \t+-.0123456789eE");
  const std::string u = close == std::string::npos ? text : text.substr(close);
  return "'" + u + "' is a unit of " + dimension_name(dim) + ", but " + translational_owner_ + " (" +
         dimension_name(own) + " units: " + accepted_units(own) + ")";
}

double Reader::number_or(const YAML::Node& map, const char* key, const std::string& parent, double fallback) {
  const YAML::Node n = map[key];
  return n ? number(n, parent + "." + key) : fallback;
}

long Reader::integer(const YAML::Node& n, const std::string& field) {
  remember(field, n);
  try {
    if (n.IsScalar()) return n.as<long>();
  } catch (const YAML::Exception&) {
  }
  fail(n, field, "expected a whole number, got " + (n.IsScalar() ? "'" + n.Scalar() + "'" : std::string(kind(n))));
}

std::string Reader::text(const YAML::Node& n, const std::string& field) {
  remember(field, n);
  if (!n.IsScalar()) fail(n, field, std::string("expected a text value, got ") + kind(n));
  return n.Scalar();
}

const char* Reader::kind(const YAML::Node& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing (null)";
  return "a scalar";
}

Table Reader::table(const std::string& path, const char* first) {
  if (!files_) return read_csv_table(path, first);
  auto it = files_->find(path);
  if (it == files_->end()) it = files_->emplace(path, read_table_file(path)).first;
  return parse_csv_table(it->second, path, first);
}

std::string Reader::model_relative(const std::string& name) const {
  std::filesystem::path p(name);
  if (p.is_relative() && !base_dir_.empty()) p = std::filesystem::path(base_dir_) / p;
  return p.string();
}

}  // namespace luztar::io::model_file
