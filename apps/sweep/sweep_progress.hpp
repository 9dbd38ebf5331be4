#pragma once
// Progress of a sweep on stderr: a bar with rate and ETA redrawn in place on a
// terminal, a plain line every 10 s otherwise (logs, CI).
#include <chrono>
#include <cstddef>
#include <string>

namespace luztar::app {

class Progress {
 public:
  // `todo` runs to go out of `total`; `quiet` prints nothing.
  Progress(std::size_t todo, std::size_t total, bool quiet);
  void update(std::size_t done, std::size_t failed);  // done counts this session's runs
  void finish(std::size_t done, std::size_t failed);

 private:
  std::string line(std::size_t done, std::size_t failed) const;
  std::size_t todo_, total_;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace luztar::app
