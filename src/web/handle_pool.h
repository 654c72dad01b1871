// handle_pool.h — read-only handles on one source (an event store, a catalog), each used by
// one request at a time: a request leases one, opening another when all are busy, and gives it
// back when done; at most `keep` idle handles are kept. A handle whose use failed is dropped,
// not given back, so a broken connection is never reused. Threads: any.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "fathom/status.h"

namespace fathom::web {

template <typename T>
class HandlePool {
 public:
  using Opener = std::function<Result<std::unique_ptr<T>>()>;

  class Lease {
   public:
    Lease(HandlePool* pool, std::unique_ptr<T> handle) : pool_(pool), handle_(std::move(handle)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) noexcept = default;
    ~Lease() {
      if (handle_ && !failed_) pool_->Return(std::move(handle_));
    }
    T* operator->() const { return handle_.get(); }
    T& operator*() const { return *handle_; }
    // The handle is not given back (its use failed).
    void Drop() { failed_ = true; }

   private:
    HandlePool* pool_;
    std::unique_ptr<T> handle_;
    bool failed_ = false;
  };

  HandlePool(Opener open, size_t keep) : open_(std::move(open)), keep_(keep) {}

  Result<Lease> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        std::unique_ptr<T> h = std::move(idle_.back());
        idle_.pop_back();
        return Lease(this, std::move(h));
      }
    }
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<T> h, open_());
    return Lease(this, std::move(h));
  }

 private:
  void Return(std::unique_ptr<T> handle) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < keep_) idle_.push_back(std::move(handle));
  }

  Opener open_;
  size_t keep_;
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> idle_;
};

}  // namespace fathom::web
