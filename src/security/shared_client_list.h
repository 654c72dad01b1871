// shared_client_list.h — the client list an aggregator admits by, replaceable while it runs
// (SIGHUP reloads it).
//
// Current() hands out an immutable snapshot that stays valid as long as the caller holds it;
// Replace() makes a new list the one every later Current() returns, and version() grows with
// each Replace() so that a reader holding a snapshot can tell that it is out of date. Any
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "security/client_list.h"

namespace fathom::security {

class SharedClientList {
 public:
  explicit SharedClientList(ClientList list) : current_(std::make_shared<const ClientList>(std::move(list))) {}

  std::shared_ptr<const ClientList> Current() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  void Replace(ClientList list) {
    auto next = std::make_shared<const ClientList>(std::move(list));
    std::lock_guard lock(mu_);
    current_ = std::move(next);
    version_.fetch_add(1, std::memory_order_release);
  }
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const ClientList> current_;  // guarded by mu_
  std::atomic<uint64_t> version_{0};
};

}  // namespace fathom::security
