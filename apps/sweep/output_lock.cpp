#include "apps/sweep/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace luztar::app {

OutputLock::OutputLock(const std::string& output) : path_(output + ".lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path_ + ": cannot create the lock file: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {0};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string who = n > 0 ? std::string(pid, static_cast<std::size_t>(n)) : std::string("?");
    while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
    throw std::runtime_error(output + ": another luztar sweep (pid " + who +
                             ") is writing this file; wait for it to end or choose another output file");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // the pid is only for the message of a second sweep; the lock itself holds
  }
}

void OutputLock::release() {
  if (fd_ < 0) return;
  std::remove(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

OutputLock::~OutputLock() { release(); }

}  // namespace luztar::app
