// shedding_pool.cpp — SheddingPool.
#include "web/shedding_pool.h"

#include "core/thread_name.h"

namespace fathom::web {
namespace {

thread_local bool t_shed = false;
constexpr auto kMaxWait = std::chrono::seconds(1);

}  // namespace

SheddingPool::SheddingPool(size_t threads, size_t max_waiting) : max_waiting_(max_waiting) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

void SheddingPool::enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back({std::move(fn), std::chrono::steady_clock::now()});
  }
  ready_.notify_one();
}

void SheddingPool::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

bool SheddingPool::Shed() { return t_shed; }

void SheddingPool::Work() {
  NameThisThread("serve-http");
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      t_shed = jobs_.size() > max_waiting_ || std::chrono::steady_clock::now() - job.queued > kMaxWait;
    }
    job.fn();
    t_shed = false;
  }
}

}  // namespace fathom::web
