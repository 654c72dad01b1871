// shedding_pool.h — the server's threads: a fixed number serve connections from one queue, and
// a connection that waited behind more than `max_waiting` others (or longer than a second) is
// still read, but answered 429 at once (see Shed()), so that a flood of requests is refused
// quickly instead of queueing without end, and the server keeps answering the others.
// Ownership: owns its threads until shutdown(). Threads: enqueue from the accepting thread.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fathom::web {

class SheddingPool final : public httplib::TaskQueue {
 public:
  SheddingPool(size_t threads, size_t max_waiting);
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

  // On a serving thread: whether the connection it serves is to be refused.
  static bool Shed();

 private:
  struct Job {
    std::function<void()> fn;
    std::chrono::steady_clock::time_point queued;
  };
  void Work();

  size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace fathom::web
