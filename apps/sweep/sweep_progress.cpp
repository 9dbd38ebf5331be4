#include "apps/sweep/sweep_progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace luztar::app {

namespace {

std::string duration(double s) {
  char buf[32];
  const long t = std::lround(s);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

}  // namespace

Progress::Progress(std::size_t todo, std::size_t total, bool quiet)
    : todo_(todo), total_(total), quiet_(quiet), tty_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

std::string Progress::line(std::size_t done, std::size_t failed) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0.0 ? static_cast<double>(done) / elapsed : 0.0;
  const std::size_t finished = total_ - todo_ + done;
  std::string s;
  if (tty_) {
    const int width = 30;
    const int fill = total_ ? static_cast<int>(width * finished / total_) : width;
    s.push_back('[');
    s.append(static_cast<std::size_t>(fill), '#');
    s.append(static_cast<std::size_t>(width - fill), '.');
    s.append("] ");
  } else {
    s = "luztar sweep: ";
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu/%zu runs", finished, total_);
  s += buf;
  if (failed) s += " (" + std::to_string(failed) + " did not finish)";
  std::snprintf(buf, sizeof buf, ", %.2f runs/s, elapsed ", rate);
  s += buf;
  s += duration(elapsed);
  if (done > 0 && done < todo_) s += ", ETA " + duration(static_cast<double>(todo_ - done) / rate);
  return s;
}

void Progress::update(std::size_t done, std::size_t failed) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (tty_ ? 0.2 : 10.0)) return;
  last_ = now;
  if (tty_) std::cerr << "\r" << line(done, failed) << "\033[K" << std::flush;
  else std::cerr << line(done, failed) << std::endl;
}

void Progress::finish(std::size_t done, std::size_t failed) {
  if (quiet_) return;
  if (tty_) std::cerr << "\r" << line(done, failed) << "\033[K\n" << std::flush;
  else std::cerr << line(done, failed) << std::endl;
}

}  // namespace luztar::app
