#include "io/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace luztar::io {

AtomicOutput::AtomicOutput(std::string path)
    : path_(std::move(path)), temp_(path_ + ".partial-" + std::to_string(::getpid())) {}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicOutput::commit() {
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw std::runtime_error(path_ + ": cannot write the output file: " + std::strerror(errno));
  committed_ = true;
}

}  // namespace luztar::io
