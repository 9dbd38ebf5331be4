#pragma once
// Exclusive right to write an output file, held as an flock() on "<file>.lock":
// the kernel releases it when the holder exits in any way (even SIGKILL), so a
// killed sweep never blocks its --resume, and two live sweeps never write the
// same file.
#include <string>

namespace luztar::app {

class OutputLock {
 public:
  // Throws std::runtime_error naming the other holder's pid when taken.
  explicit OutputLock(const std::string& output);
  ~OutputLock();  // releases and removes the lock file
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  void release();

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace luztar::app
