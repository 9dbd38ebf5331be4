#pragma once
// Errors raised before a run: bad model input. (Outcomes during a run are not
// exceptions; see StepStatus in core/result.hpp.)
#include <stdexcept>
#include <string>

namespace luztar {

// A model description that breaks a rule. `field` is the dotted path of the
// offending entry (e.g. "elements.mesh.stiffness"); `where` is "file:line:col"
// when the model came from a file, empty otherwise.
class ModelError : public std::runtime_error {
 public:
  ModelError(std::string field, std::string detail, std::string where = {})
      : std::runtime_error(compose(where, field, detail)),
        field_(std::move(field)), detail_(std::move(detail)), where_(std::move(where)) {}

  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }
  const std::string& where() const { return where_; }

 private:
  static std::string compose(const std::string& where, const std::string& field,
                             const std::string& detail) {
    std::string s = where.empty() ? std::string() : where + ": ";
    if (!field.empty()) s += field + ": ";
    return s + detail;
  }
  std::string field_, detail_, where_;
};

}  // namespace luztar
