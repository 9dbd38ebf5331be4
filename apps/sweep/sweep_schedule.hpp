#pragma once
// Dynamic scheduling of sweep runs: workers (threads here, ranks under MPI)
// take the next run when they are free, so runs of unequal cost balance out.
// The main thread alone writes the file.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "apps/sweep/sweep_plan.hpp"

namespace luztar::app {

// Hands out the runs still to do, each once.
class Dispenser {
 public:
  explicit Dispenser(std::vector<std::size_t> todo) : todo_(std::move(todo)) {}
  std::optional<std::size_t> next() {
    if (stopped_.load()) return std::nullopt;
    const std::size_t k = next_.fetch_add(1);
    if (k >= todo_.size()) return std::nullopt;
    return todo_[k];
  }
  void stop() { stopped_.store(true); }  // hand out nothing more (interrupt)
  std::size_t size() const { return todo_.size(); }

 private:
  std::vector<std::size_t> todo_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stopped_{false};
};

// Finished runs on their way from the workers to the writer.
class ResultQueue {
 public:
  void push(SweepRunResult r) {
    {
      std::lock_guard<std::mutex> lock(m_);
      items_.push_back(std::move(r));
    }
    cv_.notify_one();
  }
  // Everything queued, after waiting up to `wait` for something to arrive.
  std::vector<SweepRunResult> take(std::chrono::milliseconds wait) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait_for(lock, wait, [&] { return !items_.empty(); });
    std::vector<SweepRunResult> out;
    out.swap(items_);
    return out;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<SweepRunResult> items_;
};

// `n` threads running plan.execute on what the dispenser hands out.
class LocalWorkers {
 public:
  LocalWorkers(const SweepPlan& plan, Dispenser& d, ResultQueue& q, int n) {
    running_ = n;
    for (int k = 0; k < n; ++k)
      threads_.emplace_back([&plan, &d, &q, this] {
        while (const auto i = d.next()) q.push(plan.execute(*i));
        --running_;
      });
  }
  ~LocalWorkers() {
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;
  bool running() const { return running_.load() > 0; }
  // Lets an interrupted process exit without waiting for runs in progress.
  void abandon() {
    for (std::thread& t : threads_) t.detach();
  }

 private:
  std::vector<std::thread> threads_;
  std::atomic<int> running_{0};
};

}  // namespace luztar::app
