#include "io/output_paths.hpp"

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace luztar::io {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), eb);
  return ea || eb ? a == b : ca == cb;
}

void require_not_an_input(const std::string& out, const std::string& option, const std::string& model_path,
                          const InputFiles& tables) {
  if (out.empty()) return;
  if (!model_path.empty() && same_file(out, model_path))
    throw std::runtime_error(out + ": " + option + " names the model file; the output would replace it");
  for (const auto& [t, text] : tables)
    if (same_file(out, t))
      throw std::runtime_error(out + ": " + option + " names the table file " + t +
                               " that the model reads; the output would replace it");
}

}  // namespace luztar::io
