#include "core/model_spec.hpp"

#include <cctype>
#include <cstdio>

namespace luztar {

std::string where(const ModelSpec& spec, std::string field) {
  while (true) {
    const auto it = spec.locations.find(field);
    if (it != spec.locations.end()) return it->second;
    const auto cut = field.find_last_of(".[");
    if (cut == std::string::npos) break;
    field.erase(cut);
  }
  const auto root = spec.locations.find("");
  return root != spec.locations.end() ? root->second : spec.source_path;
}

std::string name_problem(const std::string& name, bool column) {
  if (name.empty()) return "a name must not be empty";
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
      return std::string("a name must not contain control characters (got byte ") + code + ")";
    }
  const std::string quoted = "the name '" + name + "'";
  for (const char c : name)
    if (c == '/' || c == '.' || c == ',')
      return quoted + " contains '" + c + "', which names must not (they become HDF5 paths and CSV columns)";
  if (std::isspace(static_cast<unsigned char>(name.front())) || std::isspace(static_cast<unsigned char>(name.back())))
    return quoted + " begins or ends with whitespace";
  if (column)
    for (const char* fixed : {"time", "input_work", "kinetic", "elastic", "dissipated"})
      if (name == fixed)
        return quoted + " is taken by a fixed result column (time, input_work, kinetic, elastic, dissipated)";
  return {};
}

const std::string& element_name(const ElementSpec& e) {
  return std::visit([](const auto& x) -> const std::string& { return x.name; }, e);
}

}  // namespace luztar
