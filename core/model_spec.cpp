#include "core/model_spec.hpp"

namespace luztar {

const std::string& element_name(const ElementSpec& e) {
  return std::visit([](const auto& x) -> const std::string& { return x.name; }, e);
}

}  // namespace luztar
