#include "io/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace luztar::io {

namespace {
const char* kind_name(std::filesystem::file_type t) {
  using T = std::filesystem::file_type;
  switch (t) {
    case T::directory: return "a directory";
    case T::block: return "a block device";
    case T::character: return "a character device";
    case T::fifo: return "a pipe";
    case T::socket: return "a socket";
    default: return "an unknown kind of file";
  }
}
}  // namespace

std::string read_text_file(const std::string& path, const std::string& what) {
  auto fail = [&](const std::string& why) { throw ModelError("", "cannot open the " + what + ": " + why, path); };
  std::error_code ec;
  const std::filesystem::file_type type = std::filesystem::status(path, ec).type();
  // a missing file is left to the open below, which says why
  if (!ec && type != std::filesystem::file_type::regular && type != std::filesystem::file_type::not_found)
    fail(std::string("it is ") + kind_name(type) + ", not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace luztar::io
